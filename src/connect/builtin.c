/* builtin.c - which connectors waggle registers, in registration order
 * (spec 8.3; ARCHITECTURE.md Decisions). Demo channel connectors are a
 * separate list: registered only when the service runs with --demo. */
#include "specs/specs.h"

static const wg_connector_spec *const builtin[] = {
    &wg_spec_github,
    &wg_spec_slack,
    &wg_spec_jira,
    &wg_spec_email,
    &wg_spec_gcal,
    &wg_spec_discord,
    &wg_spec_linear,
    &wg_spec_asana,
    &wg_spec_trello,
    &wg_spec_monday,
    &wg_spec_notion,
    &wg_spec_confluence,
    &wg_spec_obsidian,
    &wg_spec_hubspot,
    &wg_spec_salesforce,
    &wg_spec_pipedrive,
    &wg_spec_airtable,
    &wg_spec_gitlab,
    &wg_spec_bitbucket,
    &wg_spec_dropbox,
    &wg_spec_postgres,
    &wg_spec_gmail,
    &wg_spec_gdocs,
    &wg_spec_gdrive,
    &wg_spec_gsheets,
    &wg_spec_msteams,
    &wg_spec_outlook,
    &wg_spec_onedrive,
    &wg_spec_onenote,
    &wg_spec_composio,
};

static const wg_connector_spec *const demo[] = {
    &wg_spec_slack_mock,
    &wg_spec_teams_mock,
    &wg_spec_discord_mock,
};

const wg_connector_spec *const *wg_connector_builtin_specs(size_t *n)
{
    *n = COUNT(builtin);
    return builtin;
}

const wg_connector_spec *const *wg_connector_demo_specs(size_t *n)
{
    *n = COUNT(demo);
    return demo;
}

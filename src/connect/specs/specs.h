/* specs.h - shared by the connector tables in src/connect/specs/.
 *
 * JSON(...) turns JSON written inline into a string literal, so schemas and
 * body templates read as JSON rather than as escaped C strings. */
#ifndef WG_CONNECT_SPECS_H
#define WG_CONNECT_SPECS_H

#include "connect/rest.h"
#include "waggle/error.h"

#define JSON(...) #__VA_ARGS__
#define COUNT(a) (sizeof (a) / sizeof (a)[0])

extern const wg_connector_spec wg_spec_github, wg_spec_gitlab, wg_spec_slack, wg_spec_jira,
    wg_spec_linear, wg_spec_notion, wg_spec_discord, wg_spec_postgres, wg_spec_email,
    wg_spec_obsidian, wg_spec_slack_mock, wg_spec_teams_mock, wg_spec_discord_mock;

/* Google (one "google" connection) and Microsoft 365 (one "microsoft"). */
extern const wg_connector_spec wg_spec_gcal, wg_spec_gmail, wg_spec_gdocs, wg_spec_gdrive,
    wg_spec_gsheets, wg_spec_msteams, wg_spec_outlook, wg_spec_onedrive, wg_spec_onenote;

/* Work management, CRM, data, code and storage (issue 15 section 2). */
extern const wg_connector_spec wg_spec_asana, wg_spec_trello, wg_spec_monday, wg_spec_confluence,
    wg_spec_hubspot, wg_spec_salesforce, wg_spec_pipedrive, wg_spec_airtable, wg_spec_bitbucket,
    wg_spec_dropbox;

/* Composio, the meta-connector (spec 8.3 #30). */
extern const wg_connector_spec wg_spec_composio;

#endif

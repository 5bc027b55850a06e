/* demo.c - the demo channel connectors slack-mock, teams-mock and
 * discord-mock (reference 1.6; ARCHITECTURE.md Decisions). Registered only
 * when the service runs with --demo; always connected; they touch no
 * network and every result says it is demo data. The Teams id is
 * "teams-mock", the id the registry lists (reference 13 item 18). */
#include "waggle/connector.h"
#include "waggle/error.h"
#include "connect/specs/specs.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const char demo_note[] =
    "Demo mode \xe2\x80\x94 configure real credentials in Settings > Keys & Connections to use "
    "real integrations";

typedef struct demo {
    const char *default_channel;
    const char *samples;    /* JSON array of sample channels */
    int slack_ts;           /* Slack answers with ts; the others with messageId */
} demo;

static int demo_execute(json_t **out, const wg_connector_call *call,
                        const wg_connector_action *action, const json_t *params)
{
    const demo *d = call->spec->impl;
    if (strstr(action->name, "list_")) {
        json_t *channels = json_loads(d->samples, 0, NULL);
        *out = wg_connector_ok(json_pack("{s:b,s:b,s:o,s:s}", "demo", 1, "mock", 1, "channels",
                                         channels, "note", demo_note));
    } else {
        const char *channel = json_string_value(json_object_get(params, "channel"));
        const char *message = json_string_value(json_object_get(params, "message"));
        char text[4096], id[64];
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(text, sizeof text, "[DEMO] %s", message ? message : "");
        json_t *data = json_pack("{s:b,s:b,s:b,s:s,s:s,s:s}", "demo", 1, "mock", 1, "sent", 1,
                                 "channel", channel ? channel : d->default_channel,
                                 "message", text, "note", demo_note);
        if (d->slack_ts) {
            snprintf(id, sizeof id, "%lld.%06ld", (long long)ts.tv_sec, ts.tv_nsec / 1000);
            json_object_set_new(data, "ts", json_string(id));
        } else {
            snprintf(id, sizeof id, "mock-%lld", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
            json_object_set_new(data, "messageId", json_string(id));
        }
        *out = wg_connector_ok(data);
    }
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int demo_health(char **error, const wg_connector_call *call)
{
    (void)error;
    (void)call;
    return 0;
}

static const wg_connector_ops ops = { .execute = demo_execute, .health = demo_health };

#define SEND_SCHEMA JSON({"properties":{"channel":{"type":"string"},"message":{"type":"string"}}, \
                          "required":["channel","message"]})

static const wg_connector_action slack_actions[] = {
    { "send_slack_message", "Send a message to a Slack channel (demo data)", SEND_SCHEMA, WG_RISK_MEDIUM },
    { "list_slack_channels", "List Slack channels (demo data)", JSON({"properties":{}}), WG_RISK_LOW },
};
static const wg_connector_action teams_actions[] = {
    { "send_teams_message", "Send a message to a Teams channel (demo data)", SEND_SCHEMA, WG_RISK_MEDIUM },
    { "list_teams_channels", "List Teams channels (demo data)", JSON({"properties":{}}), WG_RISK_LOW },
};
static const wg_connector_action discord_actions[] = {
    { "send_discord_message", "Send a message to a Discord channel (demo data)", SEND_SCHEMA, WG_RISK_MEDIUM },
    { "list_discord_channels", "List Discord channels (demo data)", JSON({"properties":{}}), WG_RISK_LOW },
};

static const demo slack_demo = { "#general",
    JSON([{"id":"C001","name":"general","members":42},{"id":"C002","name":"engineering","members":18},
          {"id":"C003","name":"product","members":12}]), 1 };
static const demo teams_demo = { "General",
    JSON([{"id":"T001","name":"General","team":"Engineering"},
          {"id":"T002","name":"Announcements","team":"Company"},
          {"id":"T003","name":"Stand-ups","team":"Engineering"}]), 0 };
static const demo discord_demo = { "general",
    JSON([{"id":"D001","name":"general","type":"text"},{"id":"D002","name":"announcements","type":"text"},
          {"id":"D003","name":"dev-talk","type":"text"}]), 0 };

const wg_connector_spec wg_spec_slack_mock = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "slack-mock", .name = "Slack (Demo)", .description = "Demo Slack channel: no real messages are sent",
    .service = "demo", .auth_type = WG_AUTH_BEARER, .category = "communication", .logo_slug = "slack",
    .actions = slack_actions, .n_actions = COUNT(slack_actions), .ops = &ops, .impl = &slack_demo,
    .always_connected = 1,
};
const wg_connector_spec wg_spec_teams_mock = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "teams-mock", .name = "Microsoft Teams (Demo)",
    .description = "Demo Teams channel: no real messages are sent",
    .service = "demo", .auth_type = WG_AUTH_OAUTH2, .category = "communication",
    .logo_slug = "microsoftteams",
    .actions = teams_actions, .n_actions = COUNT(teams_actions), .ops = &ops, .impl = &teams_demo,
    .always_connected = 1,
};
const wg_connector_spec wg_spec_discord_mock = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "discord-mock", .name = "Discord (Demo)",
    .description = "Demo Discord channel: no real messages are sent",
    .service = "demo", .auth_type = WG_AUTH_BEARER, .category = "communication", .logo_slug = "discord",
    .actions = discord_actions, .n_actions = COUNT(discord_actions), .ops = &ops, .impl = &discord_demo,
    .always_connected = 1,
};

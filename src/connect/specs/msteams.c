/* msteams.c - Microsoft Teams (reference 1.3 row 26, 1.4) on Microsoft
 * Graph v1.0 (learn.microsoft.com/graph/api/resources/teams-api-overview),
 * signing in through the shared Microsoft connection. Team, channel and
 * chat ids are encoded path segments (the original interpolated them:
 * reference 13 item 11); messages are sent as text unless html is asked
 * for; lists follow @odata.nextLink under the Graph base only. */
#include "specs.h"
#include "graph.h"

static int prepare_message(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define MESSAGE_PROPS                                                                       \
    "\"content\":{\"type\":\"string\"},\"contentType\":{\"type\":\"string\","                \
    "\"description\":\"text (default) or html\"}"

static const wg_connector_action actions[] = {
    { "list_teams", "List the teams you are a member of",
      JSON({"properties":{"maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "list_channels", "List the channels of a team",
      JSON({"properties":{"team_id":{"type":"string"}},"required":["team_id"]}), WG_RISK_LOW },
    { "get_messages", "Get the messages of a channel",
      JSON({"properties":{"team_id":{"type":"string"},"channel_id":{"type":"string"},
            "top":{"type":"integer","description":"per page, at most 50"},
            "maxPages":{"type":"integer"}},"required":["team_id","channel_id"]}), WG_RISK_LOW },
    { "send_message", "Post a message to a channel",
      "{\"properties\":{\"team_id\":{\"type\":\"string\"},\"channel_id\":{\"type\":\"string\"},"
      MESSAGE_PROPS "},\"required\":[\"team_id\",\"channel_id\",\"content\"]}", WG_RISK_MEDIUM },
    { "list_chats", "List your chats",
      JSON({"properties":{"top":{"type":"integer","description":"per page, at most 50"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "send_chat_message", "Send a message in a chat",
      "{\"properties\":{\"chat_id\":{\"type\":\"string\"}," MESSAGE_PROPS "},"
      "\"required\":[\"chat_id\",\"content\"]}", WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_teams", .method = WG_REST_GET, .path = "/me/joinedTeams",
      .page = WG_GRAPH_PAGES },
    { .name = "list_channels", .method = WG_REST_GET, .path = "/teams/{team_id}/channels",
      .page = WG_GRAPH_PAGES },
    { .name = "get_messages", .method = WG_REST_GET,
      .path = "/teams/{team_id}/channels/{channel_id}/messages", .query = "$top:top",
      .page = WG_GRAPH_PAGES },
    { .name = "send_message", .method = WG_REST_POST,
      .path = "/teams/{team_id}/channels/{channel_id}/messages", .prepare = prepare_message,
      .body = WG_REST_BODY_TEMPLATE, .body_template = JSON({"body":"$itemBody"}) },
    { .name = "list_chats", .method = WG_REST_GET, .path = "/me/chats", .query = "$top:top",
      .page = WG_GRAPH_PAGES },
    { .name = "send_chat_message", .method = WG_REST_POST, .path = "/chats/{chat_id}/messages",
      .prepare = prepare_message, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"body":"$itemBody"}) },
};

static int prepare_message(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    json_t *body = NULL;
    int rc = wg_graph__item_body(&body, json_object_get(params, "content"),
                                 json_object_get(params, "contentType"));
    if (rc < 0)
        return rc;
    json_t *p = json_deep_copy(params);
    json_object_set_new(p, "itemBody", body);
    *out = p;
    return 0;
}

static const wg_rest_spec rest = {
    .default_base = WG_GRAPH_BASE,
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Microsoft Graph API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/me",
};

const wg_connector_spec wg_spec_msteams = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "ms-teams",
    .name = "Microsoft Teams",
    .description = "Read and post Microsoft Teams channel and chat messages",
    .service = "teams.microsoft.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "communication",
    .logo_slug = "microsoftteams",
    .setup_guide = WG_GRAPH_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "microsoft",
    .connection = "microsoft",
    .oauth_scopes = "User.Read Team.ReadBasic.All Channel.ReadBasic.All "
                    "ChannelMessage.Read.All ChannelMessage.Send Chat.ReadWrite",
};

/* slack.c - the Slack connector as data (reference 1.3 row 2, 1.4).
 * Web API methods at slack.com/api; a 200 answer with ok:false is an error
 * (the method's error code). */
#include "specs.h"

static const wg_connector_action actions[] = {
    { "list_channels", "List channels in the workspace",
      JSON({"properties":{"types":{"type":"string","description":"public_channel,private_channel"},
            "limit":{"type":"integer"},"cursor":{"type":"string"},
            "exclude_archived":{"type":"boolean"}}}), WG_RISK_LOW },
    { "read_channel", "Read recent messages of a channel",
      JSON({"properties":{"channel":{"type":"string","description":"channel id"},
            "limit":{"type":"integer"},"cursor":{"type":"string"},
            "oldest":{"type":"string"},"latest":{"type":"string"}},"required":["channel"]}), WG_RISK_LOW },
    { "search_messages", "Search messages",
      JSON({"properties":{"query":{"type":"string"},"count":{"type":"integer"},
            "page":{"type":"integer"},"sort":{"type":"string"}},"required":["query"]}), WG_RISK_LOW },
    { "send_message", "Post a message to a channel",
      JSON({"properties":{"channel":{"type":"string"},"text":{"type":"string"},
            "thread_ts":{"type":"string","description":"reply in this thread"}},
            "required":["channel","text"]}), WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_channels", .method = WG_REST_GET, .path = "/conversations.list",
      .query = "types limit cursor exclude_archived", .response = WG_REST_RESP_SLACK },
    { .name = "read_channel", .method = WG_REST_GET, .path = "/conversations.history",
      .query = "channel limit cursor oldest latest", .response = WG_REST_RESP_SLACK },
    { .name = "search_messages", .method = WG_REST_GET, .path = "/search.messages",
      .query = "query count page sort", .response = WG_REST_RESP_SLACK },
    { .name = "send_message", .method = WG_REST_POST, .path = "/chat.postMessage",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"channel":"$channel","text":"$text","thread_ts":"$thread_ts"}),
      .response = WG_REST_RESP_SLACK },
};

static const char *const headers[] = {
    "Content-Type: application/json; charset=utf-8",
    NULL,
};

static const wg_rest_spec rest = {
    .default_base = "https://slack.com/api",
    .auth = WG_REST_AUTH_BEARER,
    .headers = headers,
    .error_prefix = "Slack API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_POST,
    .health_path = "/auth.test",
    .health_response = WG_REST_RESP_SLACK,
};

const wg_connector_spec wg_spec_slack = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "slack",
    .name = "Slack",
    .description = "Read channels, search and post messages in Slack",
    .service = "slack.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "communication",
    .logo_slug = "slack",
    .setup_guide = "Create a Slack app at api.slack.com/apps, add the channels:read, "
                   "channels:history, search:read and chat:write scopes, and paste the "
                   "Bot User OAuth Token (xoxb-…).",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
};

/* composio.c - Composio as a meta-connector (spec 8.3 #30; reference 1.4,
 * 1.5), on Composio's REST API v3 (backend.composio.dev/api/v3, header
 * x-api-key): its apps (toolkits), their actions (tools), the connected
 * accounts, and one generic execute_action with a connected account.
 *
 * Risk. Composio runs thousands of remote actions whose effect waggle
 * cannot know in advance, so execute_action is declared high: the gate asks
 * at Normal and Trusted for every one, whatever the action (the original
 * did not gate it at all, reference 1.5). Listings and results carry each
 * action's own risk as Composio's metadata states it - the MCP-style hints
 * (readOnlyHint, destructiveHint) in its tags or annotations - and "high"
 * when the metadata says nothing: riskLevel plus riskSource, the hint that
 * decided. execute_action reads the action's metadata first, so an unknown
 * slug fails before anything runs.
 *
 * Inputs: the action slug is one checked path segment ([A-Za-z0-9_-],
 * 1-128), app slugs and ids go in queries encoded, the action's arguments
 * travel as a JSON object in the body, never in a URL. */
#include "specs.h"

#include <string.h>

static int list_actions(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int get_action(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int execute_action(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

enum { SLUG_MAX = 128, ARGUMENTS_MAX = 256 * 1024 };

#define PAGING "\"limit\":{\"type\":\"integer\",\"description\":\"items per page\"}," \
               "\"cursor\":{\"type\":\"string\",\"description\":\"next_cursor of the previous page\"}," \
               "\"maxPages\":{\"type\":\"integer\",\"description\":\"pages to follow (1-10)\"}"

static const wg_connector_action actions[] = {
    { "list_integrations", "List the apps (toolkits) Composio connects to",
      "{\"properties\":{\"category\":{\"type\":\"string\"}," PAGING "}}", WG_RISK_LOW },
    { "list_actions", "List the actions of one app, each with its risk from Composio's metadata",
      "{\"properties\":{\"appName\":{\"type\":\"string\",\"description\":\"toolkit slug, e.g. github\"},"
      PAGING "},\"required\":[\"appName\"]}", WG_RISK_LOW },
    { "search_actions", "Search Composio actions by text, each with its risk",
      "{\"properties\":{\"searchQuery\":{\"type\":\"string\"},\"appName\":{\"type\":\"string\"},"
      PAGING "},\"required\":[\"searchQuery\"]}", WG_RISK_LOW },
    { "get_action", "One action's schema and its risk from Composio's metadata",
      JSON({"properties":{"actionId":{"type":"string","description":"tool slug, e.g. GITHUB_CREATE_AN_ISSUE"}},
            "required":["actionId"]}), WG_RISK_LOW },
    { "list_connected_accounts", "List the connected accounts actions can run with",
      "{\"properties\":{\"appName\":{\"type\":\"string\"},\"userId\":{\"type\":\"string\"}," PAGING "}}",
      WG_RISK_LOW },
    { "execute_action", "Execute a Composio action with a connected account",
      JSON({"properties":{"actionId":{"type":"string","description":"tool slug"},
            "params":{"type":"object","description":"the action's arguments"},
            "connectedAccountId":{"type":"string"},"userId":{"type":"string"},
            "version":{"type":"string","description":"toolkit version, default latest"}},
            "required":["actionId"]}), WG_RISK_HIGH },
};

#define CURSOR_PAGES { WG_REST_PAGE_TOKEN, "items", "next_cursor", "cursor", NULL, NULL }

static const wg_rest_action rest_actions[] = {
    { .name = "list_integrations", .method = WG_REST_GET, .path = "/toolkits",
      .query = "category limit cursor", .page = CURSOR_PAGES },
    { .name = "list_actions", .method = WG_REST_GET, .path = "/tools", .custom = list_actions,
      .query = "toolkit_slug:appName limit cursor toolkit_versions=latest", .page = CURSOR_PAGES },
    { .name = "search_actions", .method = WG_REST_GET, .path = "/tools", .custom = list_actions,
      .query = "query:searchQuery toolkit_slug:appName limit cursor toolkit_versions=latest",
      .page = CURSOR_PAGES },
    { .name = "get_action", .method = WG_REST_GET, .path = "/tools/{actionId}",
      .custom = get_action, .query = "toolkit_versions=latest" },
    { .name = "list_connected_accounts", .method = WG_REST_GET, .path = "/connected_accounts",
      .query = "toolkit_slugs:appName user_ids:userId limit cursor", .page = CURSOR_PAGES },
    { .name = "execute_action", .custom = execute_action, .timeout_s = 30 },
};

/* ---- risk from Composio's metadata --------------------------------------- */

static int has_tag(const json_t *tool, const char *tag)
{
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(tool, "tags"), i, t)
        if (json_is_string(t) && strcmp(json_string_value(t), tag) == 0)
            return 1;
    return 0;
}

/* A hint: 1 true, 0 false, -1 unstated (tags say true only). */
static int hint(const json_t *tool, const char *name)
{
    const json_t *v = json_object_get(json_object_get(tool, "annotations"), name);
    if (json_is_boolean(v))
        return json_is_true(v);
    return has_tag(tool, name) ? 1 : -1;
}

/* destructive -> high, read-only -> low, a stated non-destructive write ->
 * medium, anything else (no metadata) -> high. */
static wg_risk_level tool_risk(const json_t *tool, const char **source)
{
    int destructive = hint(tool, "destructiveHint"), read_only = hint(tool, "readOnlyHint");
    if (destructive == 1)
        return *source = "composio:destructiveHint", WG_RISK_HIGH;
    if (read_only == 1)
        return *source = "composio:readOnlyHint", WG_RISK_LOW;
    if (read_only == 0 && destructive == 0)
        return *source = "composio:non-destructive write", WG_RISK_MEDIUM;
    return *source = "unknown", WG_RISK_HIGH;
}

static void annotate(json_t *tool)
{
    const char *source = NULL;
    wg_risk_level r = tool_risk(tool, &source);
    json_object_set_new(tool, "riskLevel", json_string(wg_risk_name(r)));
    json_object_set_new(tool, "riskSource", json_string(source));
}

static int list_actions(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    int rc = wg_rest_run(out, ctx, params);
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(json_object_get(*out, "data"), "items"), i, t)
        if (json_is_object(t))
            annotate(t);
    return rc;
}

/* ---- one action ------------------------------------------------------------- */

static int slug_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n > 0 && n <= SLUG_MAX &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

static int refuse(json_t **out, const char *msg)
{
    *out = wg_connector_fail("%s", msg);
    return *out ? 0 : WG_ENOMEM;
}

static int get_action(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    if (!slug_ok(json_string_value(json_object_get(params, "actionId"))))
        return refuse(out, "Invalid value for actionId: a Composio tool slug ([A-Za-z0-9_-], "
                           "1-128 characters)");
    int rc = wg_rest_run(out, ctx, params);
    json_t *data = json_object_get(*out, "data");
    if (rc == 0 && json_is_object(data))
        annotate(data);
    return rc;
}

static const wg_rest_action metadata_row = {
    .name = "execute_action", .method = WG_REST_GET, .path = "/tools/{actionId}",
    .query = "toolkit_versions=latest",
};

static int execute_action(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *slug = json_string_value(json_object_get(params, "actionId"));
    const json_t *args = json_object_get(params, "params");
    if (!slug)
        return refuse(out, "actionId is required");
    if (!slug_ok(slug))
        return refuse(out, "Invalid value for actionId: a Composio tool slug ([A-Za-z0-9_-], "
                           "1-128 characters)");
    if (args && !json_is_null(args) && !json_is_object(args))
        return refuse(out, "Invalid value for params: an object of the action's arguments");
    char *dump = json_is_object(args) ? json_dumps(args, JSON_COMPACT) : NULL;
    size_t n = dump ? strlen(dump) : 0;
    free(dump);
    if (n > ARGUMENTS_MAX)
        return refuse(out, "Invalid value for params: more than 256 KiB of JSON");
    static const char *const strings[] = { "connectedAccountId", "userId", "version" };
    for (size_t i = 0; i < COUNT(strings); i++) {
        const json_t *v = json_object_get(params, strings[i]);
        if (v && !(json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) <= 256 &&
                   !strpbrk(json_string_value(v), "\r\n")))
            return refuse(out, "Invalid value for connectedAccountId, userId or version: a "
                               "string of 1-256 characters without line breaks");
    }
    /* the action's metadata first: its risk, and an unknown slug stops here */
    wg_rest_ctx meta_ctx = { ctx->call, ctx->rest, &metadata_row };
    json_t *meta = NULL;
    int rc = wg_rest_run(&meta, &meta_ctx, params);
    if (rc < 0 || !json_is_true(json_object_get(meta, "success"))) {
        *out = meta;
        return rc;
    }
    const char *source = NULL;
    wg_risk_level risk = tool_risk(json_object_get(meta, "data"), &source);
    json_decref(meta);
    const json_t *ver = json_object_get(params, "version");
    json_t *body = json_pack("{s:o,s:O*,s:O*,s:o}", "arguments",
                             json_is_object(args) ? json_deep_copy(args) : json_object(),
                             "connected_account_id", json_object_get(params, "connectedAccountId"),
                             "user_id", json_object_get(params, "userId"), "version",
                             ver ? json_incref((json_t *)ver) : json_string("latest"));
    if (!body)
        return WG_ENOMEM;
    wg_rest_response r = { 0 };
    rc = wg_rest_call(&r, ctx, WG_REST_POST, "/tools/execute/{actionId}", params, NULL, body, 30);
    json_decref(body);
    if (rc < 0) {
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    if ((rc = wg_rest_result(out, ctx, &r, WG_REST_RESP_JSON)) == 0 &&
        json_is_true(json_object_get(*out, "success"))) {
        const json_t *resp = json_object_get(*out, "data");
        const json_t *why = json_object_get(resp, "error");
        json_t *res;
        if (json_is_false(json_object_get(resp, "successful")))
            res = wg_connector_fail("Composio action %s failed: %.400s", slug,
                                    json_is_string(why) ? json_string_value(why) : "no reason given");
        else
            res = wg_connector_ok(json_pack("{s:s,s:s,s:s,s:s,s:O?,s:O*}", "actionId", slug,
                                            "service", "composio", "riskLevel", wg_risk_name(risk),
                                            "riskSource", source, "result",
                                            json_object_get(resp, "data"), "logId",
                                            json_object_get(resp, "log_id")));
        json_decref(*out);
        *out = res;
        rc = res ? 0 : WG_ENOMEM;
    }
    wg_rest_response_clear(&r);
    return rc;
}

static const wg_rest_spec rest = {
    .default_base = "https://backend.composio.dev/api/v3",
    .override_origin = 1,
    .auth = WG_REST_AUTH_HEADER,
    .auth_name = "x-api-key",
    .error_prefix = "Composio API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/toolkits",
};

const wg_connector_spec wg_spec_composio = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "composio",
    .name = "Composio",
    .description = "One API key to hundreds of apps: list Composio's apps and actions and run "
                   "an action with a connected account",
    .service = "composio.dev",
    .auth_type = WG_AUTH_API_KEY,
    .category = "integration",
    .logo_slug = NULL,
    .setup_guide = "Copy your project API key from the Composio dashboard (Settings > API Keys) "
                   "and connect the apps you need there first.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
};

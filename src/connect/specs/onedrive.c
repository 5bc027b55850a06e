/* onedrive.c - OneDrive (reference 1.3 row 28, 1.4) on Microsoft Graph
 * v1.0 (learn.microsoft.com/graph/api/resources/onedrive), signing in
 * through the shared Microsoft connection. Paths in root:/{path}: are
 * checked segment by segment (the original interpolated them: reference
 * 13 item 11); the search text is an OData string literal ('' doubling)
 * inside search(q='...'); get_file follows the one pre-authenticated
 * download redirect Graph answers with, without the bearer token. */
#include "specs.h"
#include "graph.h"

#include <stdlib.h>
#include <string.h>

enum { UPLOAD_MAX = 4 * 1024 * 1024 };   /* the original's bound for simple uploads */

static int list_files(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int get_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_upload(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_files", "List the files of a folder (default: the drive's root)",
      JSON({"properties":{"folder_path":{"type":"string","description":"e.g. Documents/Reports"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "get_file", "Download a file's content",
      JSON({"properties":{"item_id":{"type":"string"}},"required":["item_id"]}), WG_RISK_LOW },
    { "search_files", "Search the drive by name and content",
      JSON({"properties":{"query":{"type":"string"},"maxPages":{"type":"integer"}},
            "required":["query"]}), WG_RISK_LOW },
    { "upload_file", "Upload (or replace) a text file at a path",
      JSON({"properties":{"path":{"type":"string","description":"e.g. Documents/notes.txt"},
            "content":{"type":"string"},
            "contentType":{"type":"string","description":"default text/plain"}},
            "required":["path","content"]}), WG_RISK_MEDIUM },
    { "list_recent", "List recently used files", JSON({"properties":{"maxPages":{"type":"integer"}}}),
      WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_files", .method = WG_REST_GET, .path = "/me/drive/root/children",
      .custom = list_files, .page = WG_GRAPH_PAGES },
    { .name = "get_file", .method = WG_REST_GET, .path = "/me/drive/items/{item_id}/content",
      .custom = get_file, .timeout_s = 30 },
    { .name = "search_files", .method = WG_REST_GET, .path = "/me/drive/root/search(q='{qtext}')",
      .prepare = prepare_search, .page = WG_GRAPH_PAGES },
    { .name = "upload_file", .method = WG_REST_PUT, .path = "/me/drive/root:/{+path}:/content",
      .prepare = prepare_upload, .body = WG_REST_BODY_RAW, .body_template = "content",
      .content_type = "$contentType", .timeout_s = 30 },
    { .name = "list_recent", .method = WG_REST_GET, .path = "/me/drive/recent",
      .page = WG_GRAPH_PAGES },
};

/* The path without leading and trailing slashes (new), or NULL when it is
 * empty then. */
static char *trim_slashes(const char *p)
{
    while (*p == '/')
        p++;
    size_t n = strlen(p);
    while (n && p[n - 1] == '/')
        n--;
    return n ? strndup(p, n) : NULL;
}

static int list_files(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *folder = json_string_value(json_object_get(params, "folder_path"));
    char *trimmed = folder ? trim_slashes(folder) : NULL;
    if (!trimmed)
        return wg_rest_run(out, ctx, params);
    json_t *p = json_deep_copy(params);
    json_object_set_new(p, "folder_path", json_string(trimmed));
    free(trimmed);
    int rc = wg_rest_run_path(out, ctx, p, "/me/drive/root:/{+folder_path}:/children");
    json_decref(p);
    return rc;
}

/* GET .../content answers 302 with a pre-authenticated URL (Graph "Download
 * the contents of a driveItem"): that one is fetched with no credential, so
 * the bearer token never goes to the download host. */
static int get_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    wg_rest_response r = { 0 };
    int rc = wg_rest_call(&r, ctx, WG_REST_GET, ctx->action->path, params, NULL, NULL, 30);
    if (rc < 0) {
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    if ((r.status == 302 || r.status == 303 || r.status == 307) && r.location) {
        char *url = strdup(r.location);
        wg_rest_response_clear(&r);
        if (!url || strpbrk(url, "\r\n \t")) {
            free(url);
            *out = wg_connector_fail("OneDrive gave an unusable download link");
            return *out ? 0 : WG_ENOMEM;
        }
        wg_rest_req req = { .method = WG_REST_GET, .url = url, .no_auth = 1, .timeout_s = 30 };
        rc = wg_rest_send(&r, ctx, &req);
        free(url);
        if (rc < 0) {
            *out = wg_rest_call_failure(ctx, rc);
            return *out ? 0 : WG_ENOMEM;
        }
    }
    rc = wg_rest_result(out, ctx, &r, WG_REST_RESP_CONTENT);
    wg_rest_response_clear(&r);
    if (rc == 0 && json_is_true(json_object_get(*out, "success")))
        json_object_set(json_object_get(*out, "data"), "item_id",
                        json_object_get(params, "item_id"));
    return rc;
}

/* The text inside search(q='...'): an OData literal without its quotes. */
static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    char *lit = NULL;
    const char *q = json_string_value(json_object_get(params, "query"));
    int rc = wg_graph__odata_literal(&lit, q ? q : "");
    if (rc < 0)
        return rc;
    size_t n = strlen(lit);
    lit[n - 1] = 0;                     /* drop the closing quote ... */
    json_t *p = json_pack("{s:s}", "qtext", lit + 1);   /* ... and the opening one */
    free(lit);
    *out = p;
    return p ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int prepare_upload(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *path = json_string_value(json_object_get(params, "path"));
    const char *mime = json_string_value(json_object_get(params, "contentType"));
    char *trimmed = path ? trim_slashes(path) : NULL;
    if (!trimmed)
        return wg_error_set(WG_EINVAL, "path must name a file");
    if (mime && !wg_rest_mime_ok(mime)) {
        free(trimmed);
        return wg_error_set(WG_EINVAL, "contentType must look like type/subtype");
    }
    if (json_string_length(json_object_get(params, "content")) > UPLOAD_MAX) {
        free(trimmed);
        return wg_error_set(WG_EINVAL, "content larger than %d bytes", UPLOAD_MAX);
    }
    json_t *p = json_deep_copy(params);
    json_object_set_new(p, "path", json_string(trimmed));
    json_object_set_new(p, "contentType", json_string(mime ? mime : "text/plain"));
    free(trimmed);
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
    .health_path = "/me/drive",
};

const wg_connector_spec wg_spec_onedrive = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "onedrive",
    .name = "OneDrive",
    .description = "List, search, download and upload OneDrive files",
    .service = "onedrive.live.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "storage",
    .logo_slug = "microsoftonedrive",
    .setup_guide = WG_GRAPH_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "microsoft",
    .connection = "microsoft",
    .oauth_scopes = "User.Read Files.ReadWrite",
};

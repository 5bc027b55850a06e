/* dropbox.c - Dropbox (reference 1.3 row 20, 1.4) on the HTTP API v2
 * (www.dropbox.com/developers/documentation/http/documentation): RPC
 * endpoints on api.dropboxapi.com/2 take JSON bodies, content endpoints on
 * content.dropboxapi.com/2 take their arguments as JSON in the
 * Dropbox-API-Arg header (ASCII only: other characters \u-escaped, as the
 * documentation asks) and the file as the body. Paths are checked first
 * (no control characters, no "." or ".." segments); list_folder and
 * search_files follow their cursors up to maxPages. Uploads are medium
 * risk: the original left them ungated. */
#include "specs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PATH_MAX_BYTES = 4096, UPLOAD_MAX = 8 * 1024 * 1024 };

static int prepare_path(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int download_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int upload_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_folder", "List a folder (default: the root)",
      JSON({"properties":{"path":{"type":"string","description":"/Folder or id:...; absent or \"\" for the root"},
            "recursive":{"type":"boolean"},"limit":{"type":"integer","description":"per page, default 100"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "get_file_metadata", "Get a file's or folder's metadata",
      JSON({"properties":{"path":{"type":"string"}},"required":["path"]}), WG_RISK_LOW },
    { "search_files", "Search files and folders by name and content",
      JSON({"properties":{"query":{"type":"string"},
            "path_scope":{"type":"string","description":"only under this folder"},
            "max_results":{"type":"integer","description":"per page, default 100"},
            "maxPages":{"type":"integer"}},"required":["query"]}), WG_RISK_LOW },
    { "download_file", "Download a file's content",
      JSON({"properties":{"path":{"type":"string","description":"/path, id:... or rev:..."}},
            "required":["path"]}), WG_RISK_LOW },
    { "upload_file", "Upload a file (add, or overwrite with mode overwrite)",
      JSON({"properties":{"path":{"type":"string","description":"/Folder/name.txt"},
            "content":{"type":"string"},
            "mode":{"type":"string","description":"add (default) or overwrite"}},
            "required":["path","content"]}), WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_folder", .method = WG_REST_POST, .path = "/files/list_folder",
      .prepare = prepare_path, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"path":"$path=\"\"","recursive":"$recursive=false","limit":"$limit=100"}),
      .page = { WG_REST_PAGE_CURSOR, "entries", "cursor", NULL, "has_more",
                "/files/list_folder/continue" } },
    { .name = "get_file_metadata", .method = WG_REST_POST, .path = "/files/get_metadata",
      .prepare = prepare_path, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"path":"$path"}) },
    { .name = "search_files", .method = WG_REST_POST, .path = "/files/search_v2",
      .prepare = prepare_search, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"query":"$query","options":{"path":"$path_scope",
                                                         "max_results":"$max_results=100"}}),
      .page = { WG_REST_PAGE_CURSOR, "matches", "cursor", NULL, "has_more",
                "/files/search/continue_v2" } },
    { .name = "download_file", .method = WG_REST_POST, .path = "/files/download",
      .base = "content", .custom = download_file, .timeout_s = 30 },
    { .name = "upload_file", .method = WG_REST_POST, .path = "/files/upload",
      .base = "content", .custom = upload_file, .timeout_s = 30 },
};

/* A Dropbox path: "" (when root_ok), "/...", "id:...", "ns:<n>[/...]",
 * "rev:..." (when rev_ok); no control characters, no "." or ".." segment,
 * at most PATH_MAX_BYTES. */
static int path_check(const char *p, const char *what, int root_ok, int rev_ok)
{
    size_t n = p ? strlen(p) : 0;
    if (!p || (!n && !root_ok))
        return wg_error_set(WG_EINVAL, "%s must name a file or folder", what);
    if (n > PATH_MAX_BYTES)
        return wg_error_set(WG_EINVAL, "%s longer than %d bytes", what, PATH_MAX_BYTES);
    if (n && p[0] != '/' && strncmp(p, "id:", 3) && strncmp(p, "ns:", 3) &&
        !(rev_ok && strncmp(p, "rev:", 4) == 0))
        return wg_error_set(WG_EINVAL, "%s must start with / (or be an id:, ns:%s reference)",
                            what, rev_ok ? " or rev:" : "");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f)
            return wg_error_set(WG_EINVAL, "%s may not contain control characters", what);
    }
    for (const char *s = p; *s;) {
        size_t seg = strcspn(s, "/");
        if ((seg == 1 && s[0] == '.') || (seg == 2 && s[0] == '.' && s[1] == '.'))
            return wg_error_set(WG_EINVAL, "%s: path segment '%.*s' is not allowed", what,
                                (int)seg, s);
        s += seg;
        if (*s == '/')
            s++;
    }
    return 0;
}

static int prepare_path(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    int root_ok = strcmp(ctx->action->name, "list_folder") == 0;
    const char *path = json_string_value(json_object_get(params, "path"));
    int rc = path_check(path ? path : root_ok ? "" : NULL, "path", root_ok, 0);
    if (rc < 0)
        return rc;
    *out = json_deep_copy(params);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *scope = json_string_value(json_object_get(params, "path_scope"));
    const char *q = json_string_value(json_object_get(params, "query"));
    if (q && strlen(q) > 1000)
        return wg_error_set(WG_EINVAL, "query longer than 1000 bytes");
    int rc = scope ? path_check(scope, "path_scope", 1, 0) : 0;
    if (rc < 0)
        return rc;
    *out = json_deep_copy(params);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* "Dropbox-API-Arg: <json>" with every non-ASCII character \u-escaped
 * (new), or NULL. */
static char *arg_header(const json_t *arg)
{
    char *json = json_dumps(arg, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
    char *line = NULL;
    if (json && asprintf(&line, "Dropbox-API-Arg: %s", json) < 0)
        line = NULL;
    free(json);
    return line;
}

/* Sends a content request; answers like wg_rest_run (*out a result). */
static int content_call(json_t **out, const wg_rest_ctx *ctx, const json_t *arg,
                        const json_t *content, wg_rest_resp mode)
{
    char *line = arg_header(arg);
    if (!line)
        return wg_error_set(WG_ENOMEM, "out of memory");
    const char *headers[] = { line, NULL };
    wg_rest_req req = { .method = WG_REST_POST, .path = ctx->action->path, .base = "content",
                        .params = arg, .headers = headers, .timeout_s = 30 };
    if (content) {
        req.raw = json_string_value(content);
        req.raw_len = json_string_length(content);
        req.content_type = "application/octet-stream";
    }
    wg_rest_response r = { 0 };
    int rc = wg_rest_send(&r, ctx, &req);
    free(line);
    if (rc < 0) {
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    rc = wg_rest_result(out, ctx, &r, mode);
    if (rc == 0 && mode == WG_REST_RESP_CONTENT && json_is_true(json_object_get(*out, "success"))) {
        /* the file's metadata rides in the Dropbox-API-Result header */
        json_t *meta = r.api_result ? json_loads(r.api_result, 0, NULL) : NULL;
        json_object_set_new(json_object_get(*out, "data"), "metadata",
                            meta ? meta : json_null());
    }
    wg_rest_response_clear(&r);
    return rc;
}

static int download_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *path = json_string_value(json_object_get(params, "path"));
    if (path_check(path, "path", 0, 1) < 0) {
        *out = wg_connector_fail("%s", wg_error_last());
        return *out ? 0 : WG_ENOMEM;
    }
    json_t *arg = json_pack("{s:s}", "path", path);
    int rc = arg ? content_call(out, ctx, arg, NULL, WG_REST_RESP_CONTENT)
                 : wg_error_set(WG_ENOMEM, "out of memory");
    json_decref(arg);
    return rc;
}

static int upload_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *path = json_string_value(json_object_get(params, "path"));
    const char *mode = json_string_value(json_object_get(params, "mode"));
    const json_t *content = json_object_get(params, "content");
    const char *why = NULL;
    if (path_check(path, "path", 0, 0) < 0)
        why = wg_error_last();
    else if (path[strlen(path) - 1] == '/')
        why = "path must name a file, not a folder";
    else if (mode && strcmp(mode, "add") && strcmp(mode, "overwrite"))
        why = "mode must be add or overwrite";
    else if (json_string_length(content) > UPLOAD_MAX)
        why = "content larger than 8 MiB";
    if (why) {
        *out = wg_connector_fail("%s", why);
        return *out ? 0 : WG_ENOMEM;
    }
    json_t *arg = json_pack("{s:s,s:s,s:b,s:b}", "path", path, "mode", mode ? mode : "add",
                            "autorename", 0, "mute", 0);
    int rc = arg ? content_call(out, ctx, arg, content, WG_REST_RESP_JSON)
                 : wg_error_set(WG_ENOMEM, "out of memory");
    json_decref(arg);
    return rc;
}

static const wg_rest_base bases[] = {
    { "content", "https://content.dropboxapi.com/2" },
    { NULL, NULL },
};

static const wg_rest_spec rest = {
    .default_base = "https://api.dropboxapi.com/2",
    .override_origin = 1,
    .bases = bases,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Dropbox API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_POST,
    .health_path = "/users/get_current_account",
};

const wg_connector_spec wg_spec_dropbox = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "dropbox",
    .name = "Dropbox",
    .description = "List, search, download and upload Dropbox files",
    .service = "dropbox.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "storage",
    .logo_slug = "dropbox",
    .setup_guide = "Create an app in the Dropbox App Console (files.metadata.read, "
                   "files.content.read/write) and sign in with waggle connectors oauth dropbox "
                   "--client-id KEY, or connect a generated access token.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "dropbox",
    .oauth_scopes = "account_info.read files.metadata.read files.content.read files.content.write",
};

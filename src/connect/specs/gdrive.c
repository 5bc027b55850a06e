/* gdrive.c - Google Drive (reference 1.3 row 24, 1.4) on the Drive API v3
 * (developers.google.com/drive/api/reference/rest/v3), signing in through
 * the shared Google connection. fileId is one encoded path segment. The
 * search text becomes a Drive query with \ and ' escaped, never query
 * syntax of its own; uploads are multipart/related with a boundary derived
 * from the content and checked not to occur in it (the original's fixed
 * boundary let a file's text forge a second part). */
#include "specs.h"
#include "google.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { UPLOAD_MAX = 5 * 1024 * 1024 };   /* Drive's multipart upload limit */

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_upload(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_folder(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define FILE_FIELDS "id,name,mimeType,modifiedTime,size,parents,webViewLink"

static const wg_connector_action actions[] = {
    { "list_files", "List files in Drive",
      JSON({"properties":{"pageSize":{"type":"integer","description":"per page, default 20"},
            "orderBy":{"type":"string","description":"e.g. modifiedTime desc"},
            "fields":{"type":"string"},"pageToken":{"type":"string"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "search_files", "Search Drive files by text (names and content)",
      JSON({"properties":{"query":{"type":"string","description":"words to find (plain text)"},
            "mimeType":{"type":"string","description":"only files of this type"},
            "folderId":{"type":"string","description":"only files in this folder"},
            "pageSize":{"type":"integer"},"pageToken":{"type":"string"},
            "maxPages":{"type":"integer"}},"required":["query"]}), WG_RISK_LOW },
    { "get_file_metadata", "Get a file's metadata",
      JSON({"properties":{"fileId":{"type":"string"},"fields":{"type":"string"}},
            "required":["fileId"]}), WG_RISK_LOW },
    { "download_file", "Download a file's content",
      JSON({"properties":{"fileId":{"type":"string"}},"required":["fileId"]}), WG_RISK_LOW },
    { "upload_file", "Upload a text file",
      JSON({"properties":{"name":{"type":"string"},"content":{"type":"string"},
            "mimeType":{"type":"string","description":"default text/plain"},
            "folderId":{"type":"string","description":"parent folder"}},
            "required":["name","content"]}), WG_RISK_MEDIUM },
    { "create_folder", "Create a folder",
      JSON({"properties":{"name":{"type":"string"},"folderId":{"type":"string",
            "description":"parent folder"}},"required":["name"]}), WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_files", .method = WG_REST_GET, .path = "/files",
      .query = "pageSize=20 fields=files(id,name,mimeType,modifiedTime,size),nextPageToken "
               "orderBy pageToken",
      .page = { WG_REST_PAGE_TOKEN, "files", "nextPageToken", "pageToken", NULL, NULL } },
    { .name = "search_files", .method = WG_REST_GET, .path = "/files", .prepare = prepare_search,
      .query = "q pageSize=20 fields=files(" FILE_FIELDS "),nextPageToken pageToken",
      .page = { WG_REST_PAGE_TOKEN, "files", "nextPageToken", "pageToken", NULL, NULL } },
    { .name = "get_file_metadata", .method = WG_REST_GET, .path = "/files/{fileId}",
      .query = "fields=" FILE_FIELDS },
    { .name = "download_file", .method = WG_REST_GET, .path = "/files/{fileId}",
      .query = "alt=media", .response = WG_REST_RESP_CONTENT, .timeout_s = 30,
      .result_template = JSON({"fileId":"$fileId"}) },
    { .name = "upload_file", .method = WG_REST_POST, .path = "/files", .base = "upload",
      .query = "uploadType=multipart", .prepare = prepare_upload, .body = WG_REST_BODY_RAW,
      .body_template = "multipart", .content_type = "$contentType", .timeout_s = 30 },
    { .name = "create_folder", .method = WG_REST_POST, .path = "/files",
      .prepare = prepare_folder, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"name":"$name","mimeType":"application/vnd.google-apps.folder",
                             "parents":"$parents"}) },
};

int wg_google__drive_literal(char **out, const char *text)
{
    return wg_rest_quote(out, text, WG_GOOGLE_QUERY_MAX, '\'', "\\'", '\\');
}

/* *q (new) becomes "*q and <before><literal><after>", or the clause alone
 * when *q is NULL. */
static int add_clause(char **q, const char *before, const char *value, const char *after)
{
    char *lit = NULL, *next = NULL;
    int rc = wg_google__drive_literal(&lit, value);
    if (rc < 0)
        return rc;
    if (asprintf(&next, "%s%s%s%s%s", *q ? *q : "", *q ? " and " : "", before, lit, after) < 0)
        next = NULL;
    free(lit);
    if (!next)
        return wg_error_set(WG_ENOMEM, "out of memory");
    free(*q);
    *q = next;
    return 0;
}

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *text = json_string_value(json_object_get(params, "query"));
    const char *mime = json_string_value(json_object_get(params, "mimeType"));
    const char *folder = json_string_value(json_object_get(params, "folderId"));
    char *q = NULL;
    int rc = add_clause(&q, "fullText contains ", text ? text : "", "");
    if (rc == 0) {
        char *t = NULL;
        if (asprintf(&t, "%s and trashed = false", q) < 0)
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        free(q);
        q = t;
    }
    if (rc == 0 && mime)
        rc = add_clause(&q, "mimeType = ", mime, "");
    if (rc == 0 && folder)
        rc = add_clause(&q, "", folder, " in parents");
    if (rc < 0) {
        free(q);
        return rc;
    }
    json_t *p = json_deep_copy(params);
    json_object_del(p, "query");
    json_object_set_new(p, "q", json_string(q));
    free(q);
    *out = p;
    return 0;
}

static json_t *parents_of(const json_t *params)
{
    const json_t *f = json_object_get(params, "folderId");
    return json_is_string(f) ? json_pack("[O]", f) : NULL;
}

/* multipart/related (Drive "Perform a multipart upload"): a JSON metadata
 * part and the content part. The boundary is "waggle-" + 32 hex digits of
 * the content's hash, and is checked not to occur in either part. */
static int prepare_upload(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *content = json_string_value(json_object_get(params, "content"));
    size_t cl = json_string_length(json_object_get(params, "content"));
    const char *mime = json_string_value(json_object_get(params, "mimeType"));
    if (!mime)
        mime = "text/plain";
    if (!wg_rest_mime_ok(mime))
        return wg_error_set(WG_EINVAL, "mimeType must look like type/subtype");
    if (cl > UPLOAD_MAX)
        return wg_error_set(WG_EINVAL, "content larger than %d bytes (Drive's multipart limit)",
                            UPLOAD_MAX);
    json_t *meta = json_pack("{s:O,s:s}", "name", json_object_get(params, "name"), "mimeType",
                             mime);
    json_t *parents = parents_of(params);
    if (parents)
        json_object_set_new(meta, "parents", parents);
    char *mj = meta ? json_dumps(meta, JSON_COMPACT) : NULL;
    json_decref(meta);
    unsigned char h[crypto_generichash_BYTES];
    crypto_generichash(h, sizeof h, (const unsigned char *)content, cl, NULL, 0);
    char hex[2 * 16 + 1], boundary[48];
    sodium_bin2hex(hex, sizeof hex, h, 16);
    snprintf(boundary, sizeof boundary, "waggle-%s", hex);
    if (mj && (memmem(content, cl, boundary, strlen(boundary)) || strstr(mj, boundary))) {
        free(mj);
        return wg_error_set(WG_EINVAL, "content holds the multipart boundary");
    }
    char *body = NULL, *ctype = NULL;
    size_t bl = 0;
    FILE *f = mj ? open_memstream(&body, &bl) : NULL;
    if (f) {
        fprintf(f, "--%s\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n%s\r\n"
                   "--%s\r\nContent-Type: %s\r\n\r\n", boundary, mj, boundary, mime);
        fwrite(content, 1, cl, f);
        fprintf(f, "\r\n--%s--", boundary);
        fclose(f);
    }
    free(mj);
    if (!body || asprintf(&ctype, "multipart/related; boundary=%s", boundary) < 0) {
        free(body);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    *out = json_pack("{s:s%,s:s}", "multipart", body, bl, "contentType", ctype);
    free(body);
    free(ctype);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int prepare_folder(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    json_t *p = json_deep_copy(params);
    json_t *parents = parents_of(params);
    if (parents)
        json_object_set_new(p, "parents", parents);
    *out = p;
    return p ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const wg_rest_base bases[] = {
    { "upload", "https://www.googleapis.com/upload/drive/v3" },
    { NULL, NULL },
};

static const wg_rest_spec rest = {
    .default_base = "https://www.googleapis.com/drive/v3",
    .override_origin = 1,
    .bases = bases,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Google Drive API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/about?fields=user",
};

const wg_connector_spec wg_spec_gdrive = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "gdrive",
    .name = "Google Drive",
    .description = "List, search, download and upload Google Drive files",
    .service = "drive.google.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "storage",
    .logo_slug = "googledrive",
    .setup_guide = WG_GOOGLE_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "google",
    .connection = "google",
    .oauth_scopes = "https://www.googleapis.com/auth/drive",
};

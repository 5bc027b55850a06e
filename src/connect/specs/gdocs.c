/* gdocs.c - Google Docs (reference 1.3 row 23, 1.4) on the Docs API v1
 * (developers.google.com/docs/api/reference/rest) and, for comments, the
 * Drive API v3 (comments.list, whose `fields` parameter is required),
 * signing in through the shared Google connection. documentId is one
 * encoded path segment; batchUpdate takes at most WG_GOOGLE_LIST_MAX
 * requests. */
#include "specs.h"
#include "google.h"

static int prepare_update(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "get_document", "Get a document's content and structure",
      JSON({"properties":{"documentId":{"type":"string"}},"required":["documentId"]}),
      WG_RISK_LOW },
    { "create_document", "Create an empty document",
      JSON({"properties":{"title":{"type":"string"}},"required":["title"]}), WG_RISK_MEDIUM },
    { "update_document", "Apply Docs API batchUpdate requests (insertText, replaceAllText, ...)",
      JSON({"properties":{"documentId":{"type":"string"},
            "requests":{"type":"array","items":{"type":"object"},
                        "description":"Docs API Request objects"},
            "requiredRevisionId":{"type":"string","description":"fail if the document changed"}},
            "required":["documentId","requests"]}), WG_RISK_MEDIUM },
    { "list_comments", "List the comments on a document",
      JSON({"properties":{"documentId":{"type":"string"},
            "pageSize":{"type":"integer","description":"per page, default 20"},
            "pageToken":{"type":"string"},"maxPages":{"type":"integer"}},
            "required":["documentId"]}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "get_document", .method = WG_REST_GET, .path = "/documents/{documentId}" },
    { .name = "create_document", .method = WG_REST_POST, .path = "/documents",
      .body = WG_REST_BODY_TEMPLATE, .body_template = JSON({"title":"$title"}) },
    { .name = "update_document", .method = WG_REST_POST,
      .path = "/documents/{documentId}:batchUpdate", .prepare = prepare_update,
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"requests":"$requests",
                             "writeControl":{"$if":"requiredRevisionId",
                                             "requiredRevisionId":"$requiredRevisionId"}}) },
    { .name = "list_comments", .method = WG_REST_GET, .path = "/files/{documentId}/comments",
      .base = "drive",
      .query = "pageSize=20 fields=comments(id,content,author,createdTime,resolved),nextPageToken "
               "pageToken",
      .page = { WG_REST_PAGE_TOKEN, "comments", "nextPageToken", "pageToken", NULL, NULL } },
};

static int prepare_update(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    size_t n = json_array_size(json_object_get(params, "requests"));
    if (n < 1 || n > WG_GOOGLE_LIST_MAX)
        return wg_error_set(WG_EINVAL, "requests must hold 1 to %d Docs API requests",
                            WG_GOOGLE_LIST_MAX);
    *out = json_deep_copy(params);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const wg_rest_base bases[] = {
    { "drive", "https://www.googleapis.com/drive/v3" },
    { NULL, NULL },
};

static const wg_rest_spec rest = {
    .default_base = "https://docs.googleapis.com/v1",
    .override_origin = 1,
    .bases = bases,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Google Docs API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/about?fields=user",
    .health_base = "drive",
};

const wg_connector_spec wg_spec_gdocs = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "gdocs",
    .name = "Google Docs",
    .description = "Read, create and edit Google Docs and read their comments",
    .service = "docs.google.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "productivity",
    .logo_slug = "googledocs",
    .setup_guide = WG_GOOGLE_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "google",
    .connection = "google",
    .oauth_scopes = "https://www.googleapis.com/auth/documents "
                    "https://www.googleapis.com/auth/drive.readonly",
};

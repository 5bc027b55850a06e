/* notion.c - the Notion connector as data (reference 1.3 row 11, 1.4).
 * Bearer + Notion-Version 2022-06-28; page, database and block ids are
 * encoded path segments (reference 13 item 11). */
#include "specs.h"

#include <string.h>

static int create_page(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "search_pages", "Search pages by title",
      JSON({"properties":{"query":{"type":"string"},"page_size":{"type":"integer"}}}), WG_RISK_LOW },
    { "get_page", "Get a page",
      JSON({"properties":{"page_id":{"type":"string"}},"required":["page_id"]}), WG_RISK_LOW },
    { "list_databases", "List databases shared with the integration",
      JSON({"properties":{"query":{"type":"string"},"page_size":{"type":"integer"}}}), WG_RISK_LOW },
    { "query_database", "Query a database",
      JSON({"properties":{"database_id":{"type":"string"},"filter":{"type":"object"},
            "sorts":{"type":"array"},"page_size":{"type":"integer"},"start_cursor":{"type":"string"}},
            "required":["database_id"]}), WG_RISK_LOW },
    { "create_page", "Create a page under a page or in a database",
      JSON({"properties":{"parent_id":{"type":"string"},
            "parent_type":{"type":"string","description":"page_id (default) or database_id"},
            "title":{"type":"string"},"content":{"type":"string"},"properties":{"type":"object"}},
            "required":["parent_id","title"]}), WG_RISK_MEDIUM },
    { "update_page", "Update a page's properties or archive it",
      JSON({"properties":{"page_id":{"type":"string"},"properties":{"type":"object"},
            "archived":{"type":"boolean"}},"required":["page_id"]}), WG_RISK_MEDIUM },
    { "get_block_children", "Read the blocks (content) of a page or block",
      JSON({"properties":{"block_id":{"type":"string"},"page_size":{"type":"integer"},
            "start_cursor":{"type":"string"}},"required":["block_id"]}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "search_pages", .method = WG_REST_POST, .path = "/search",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"query":"$query","filter":{"value":"page","property":"object"},
                             "page_size":"$page_size"}) },
    { .name = "get_page", .method = WG_REST_GET, .path = "/pages/{page_id}" },
    { .name = "list_databases", .method = WG_REST_POST, .path = "/search",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"query":"$query","filter":{"value":"database","property":"object"},
                             "page_size":"$page_size"}) },
    { .name = "query_database", .method = WG_REST_POST, .path = "/databases/{database_id}/query",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"filter":"$filter","sorts":"$sorts","page_size":"$page_size",
                             "start_cursor":"$start_cursor"}) },
    { .name = "create_page", .custom = create_page },
    { .name = "update_page", .method = WG_REST_PATCH, .path = "/pages/{page_id}",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"properties":"$properties","archived":"$archived"}) },
    { .name = "get_block_children", .method = WG_REST_GET, .path = "/blocks/{block_id}/children",
      .query = "page_size start_cursor" },
};

/* The parent key is chosen from a closed list, never taken from input. */
static int create_page(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *type = json_string_value(json_object_get(params, "parent_type"));
    if (type && strcmp(type, "page_id") && strcmp(type, "database_id")) {
        *out = wg_connector_fail("parent_type must be page_id or database_id");
        return *out ? 0 : WG_ENOMEM;
    }
    json_t *props = json_object();
    json_object_update(props, json_object_get(params, "properties"));
    json_object_set_new(props, "title", json_pack("{s:[{s:{s:O}}]}", "title", "text", "content",
                                                  json_object_get(params, "title")));
    json_t *body = json_pack("{s:{s:O},s:o}", "parent", type ? type : "page_id",
                             json_object_get(params, "parent_id"), "properties", props);
    const json_t *content = json_object_get(params, "content");
    if (json_is_string(content))
        json_object_set_new(body, "children", json_pack(
            "[{s:s,s:s,s:{s:[{s:s,s:{s:O}}]}}]", "object", "block", "type", "paragraph",
            "paragraph", "rich_text", "type", "text", "text", "content", content));
    wg_rest_response r = { 0 };
    int rc = wg_rest_call(&r, ctx, WG_REST_POST, "/pages", params, NULL, body, 0);
    json_decref(body);
    if (rc < 0) {
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    rc = wg_rest_result(out, ctx, &r, WG_REST_RESP_JSON);
    wg_rest_response_clear(&r);
    return rc;
}

static const char *const headers[] = { "Notion-Version: 2022-06-28", NULL };

static const wg_rest_spec rest = {
    .default_base = "https://api.notion.com/v1",
    .auth = WG_REST_AUTH_BEARER,
    .headers = headers,
    .error_prefix = "Notion API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/users/me",
};

const wg_connector_spec wg_spec_notion = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "notion",
    .name = "Notion",
    .description = "Search, read and write Notion pages and databases",
    .service = "notion.so",
    .auth_type = WG_AUTH_BEARER,
    .category = "productivity",
    .logo_slug = "notion",
    .setup_guide = "Create an internal integration at notion.so/my-integrations, share the "
                   "pages it may use with it, and paste its secret.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
};

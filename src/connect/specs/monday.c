/* monday.c - monday.com (reference 1.3 row 10, 1.4) on its GraphQL API v2
 * (developer.monday.com/api-reference). The original built every document
 * by string interpolation (an item name with a quote became GraphQL; its
 * search used board_id 0 and never worked). Here every document is a
 * constant and every value travels in "variables"; column values are sent
 * as the JSON string the JSON scalar expects. Items page by cursor: the
 * result carries items_page.cursor, and list_items takes it back. */
#include "specs.h"

#include <stdlib.h>
#include <string.h>

static int list_items(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_columns(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define ITEM_FIELDS "cursor items { id name group { id title } column_values { id text value } }"

static const wg_connector_action actions[] = {
    { "list_boards", "List boards with their columns and groups",
      JSON({"properties":{"limit":{"type":"integer","description":"default 25"},
            "page":{"type":"integer","description":"default 1"},
            "board_kind":{"type":"string","description":"public, private or share"}}}), WG_RISK_LOW },
    { "list_items", "List the items of a board (or of one group), one page at a time",
      JSON({"properties":{"boardId":{"type":"string"},"groupId":{"type":"string"},
            "limit":{"type":"integer","description":"1-500 (default 50)"},
            "cursor":{"type":"string","description":"items_page.cursor of the previous call"}},
            "required":["boardId"]}), WG_RISK_LOW },
    { "create_item", "Create an item on a board",
      JSON({"properties":{"boardId":{"type":"string"},"itemName":{"type":"string"},
            "groupId":{"type":"string"},
            "columnValues":{"type":"object","description":"column id -> value, e.g. {\"status\":{\"label\":\"Done\"}}"}},
            "required":["boardId","itemName"]}), WG_RISK_MEDIUM },
    { "update_item", "Change column values of an item",
      JSON({"properties":{"boardId":{"type":"string"},"itemId":{"type":"string"},
            "columnValues":{"type":"object","description":"column id -> value"}},
            "required":["boardId","itemId","columnValues"]}), WG_RISK_MEDIUM },
    { "search_items", "Find the items of a board whose column (default: name) has a value",
      JSON({"properties":{"boardId":{"type":"string"},"query":{"type":"string"},
            "column":{"type":"string","description":"column id, default name"},
            "limit":{"type":"integer","description":"default 25"}},
            "required":["boardId","query"]}), WG_RISK_LOW },
};

static const char list_items_doc[] =
    "query ListItems($boardId: [ID!], $limit: Int) { boards(ids: $boardId) { id name "
    "items_page(limit: $limit) { " ITEM_FIELDS " } } }";
static const char list_group_doc[] =
    "query ListGroupItems($boardId: [ID!], $groupId: [String], $limit: Int) { boards(ids: "
    "$boardId) { id name groups(ids: $groupId) { id title items_page(limit: $limit) { "
    ITEM_FIELDS " } } } }";
static const char next_items_doc[] =
    "query NextItems($cursor: String!, $limit: Int) { next_items_page(cursor: $cursor, limit: "
    "$limit) { " ITEM_FIELDS " } }";

static const wg_rest_action rest_actions[] = {
    { .name = "list_boards", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "query ListBoards($limit: Int, $page: Int, $kind: BoardKind) { "
                       "boards(limit: $limit, page: $page, board_kind: $kind) { id name state "
                       "board_kind columns { id title type } groups { id title } } }",
      .vars_template = JSON({"limit":"$limit=25","page":"$page=1","kind":"$board_kind"}),
      .response = WG_REST_RESP_GRAPHQL },
    { .name = "list_items", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = list_items_doc,
      .vars_template = JSON({"boardId":["$boardId"],"groupId":["$groupId"],"limit":"$limit=50",
                             "cursor":"$cursor"}),
      .response = WG_REST_RESP_GRAPHQL, .custom = list_items },
    { .name = "create_item", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "mutation CreateItem($boardId: ID!, $itemName: String!, $groupId: String, "
                       "$columnValues: JSON) { create_item(board_id: $boardId, item_name: "
                       "$itemName, group_id: $groupId, column_values: $columnValues) { id name } }",
      .vars_template = JSON({"boardId":"$boardId","itemName":"$itemName","groupId":"$groupId",
                             "columnValues":"$columnValuesJson"}),
      .prepare = prepare_columns, .response = WG_REST_RESP_GRAPHQL },
    { .name = "update_item", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "mutation UpdateItem($boardId: ID!, $itemId: ID!, $columnValues: JSON!) { "
                       "change_multiple_column_values(board_id: $boardId, item_id: $itemId, "
                       "column_values: $columnValues) { id name } }",
      .vars_template = JSON({"boardId":"$boardId","itemId":"$itemId",
                             "columnValues":"$columnValuesJson"}),
      .prepare = prepare_columns, .response = WG_REST_RESP_GRAPHQL },
    { .name = "search_items", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "query SearchItems($boardId: ID!, $columns: [ItemsPageByColumnValuesQuery!], "
                       "$limit: Int!) { items_page_by_column_values(board_id: $boardId, columns: "
                       "$columns, limit: $limit) { " ITEM_FIELDS " } }",
      .vars_template = JSON({"boardId":"$boardId","limit":"$limit=25",
                             "columns":[{"column_id":"$column=\"name\"",
                                         "column_values":["$query"]}]}),
      .response = WG_REST_RESP_GRAPHQL },
};

/* The document depends on the inputs: a cursor continues a page, a group
 * narrows the board; the variables stay the row's. */
static int list_items(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    wg_rest_action alt = *ctx->action;
    alt.custom = NULL;
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (json_object_get(params, "cursor")) {
        alt.body_template = next_items_doc;
        alt.vars_template = JSON({"cursor":"$cursor","limit":"$limit=50"});
    } else if (json_object_get(params, "groupId")) {
        alt.body_template = list_group_doc;
        alt.vars_template = JSON({"boardId":["$boardId"],"groupId":["$groupId"],"limit":"$limit=50"});
    } else {
        alt.vars_template = JSON({"boardId":["$boardId"],"limit":"$limit=50"});
    }
    wg_rest_ctx c2 = { ctx->call, ctx->rest, &alt };
    int rc = wg_rest_run(out, &c2, p);
    json_decref(p);
    return rc;
}

enum { COLUMN_VALUES_MAX = 64 * 1024 };

/* The JSON scalar takes column values as a JSON-encoded string. */
static int prepare_columns(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const json_t *cv = json_object_get(params, "columnValues");
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (cv && !json_is_null(cv)) {
        char *text = json_dumps(cv, JSON_COMPACT);
        if (!text || strlen(text) > COLUMN_VALUES_MAX) {
            free(text);
            json_decref(p);
            return wg_error_set(WG_EINVAL, "columnValues larger than %d bytes", COLUMN_VALUES_MAX);
        }
        json_object_set_new(p, "columnValuesJson", json_string(text));
        free(text);
    }
    json_object_del(p, "columnValues");
    *out = p;
    return 0;
}

static const char *const headers[] = { "API-Version: 2024-10", NULL };

static const wg_rest_spec rest = {
    .default_base = "https://api.monday.com/v2",
    .override_origin = 1,
    .auth = WG_REST_AUTH_RAW,
    .headers = headers,
    .error_prefix = "monday.com API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_POST,
    .health_path = "",
    .health_body = JSON({"query":"query { me { id name } }"}),
    .health_response = WG_REST_RESP_GRAPHQL,
};

const wg_connector_spec wg_spec_monday = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "monday",
    .name = "Monday.com",
    .description = "Boards and items on monday.com work management",
    .service = "monday.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "productivity",
    .logo_slug = "mondaydotcom",
    .setup_guide = "Copy your personal API token from monday.com (avatar > Developers > My access "
                   "tokens) and connect it.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
};

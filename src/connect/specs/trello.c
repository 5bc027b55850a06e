/* trello.c - Trello (reference 1.3 row 9, 1.4) on the Trello REST API 1
 * (developer.atlassian.com/cloud/trello/rest). The original put key and
 * token in the query string of every call (so in every proxy log); here
 * they go in the documented Authorization header
 * (developer.atlassian.com/cloud/trello/guides/rest-api/authorization),
 * quoted values checked to be bare tokens. Writes keep Trello's
 * query-parameter form; every value is percent-encoded. */
#include "specs.h"

static int list_cards(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_boards", "List the boards of the signed-in member",
      JSON({"properties":{"filter":{"type":"string","description":"all, open, closed, starred, ..."},
            "fields":{"type":"string","description":"comma-separated, e.g. name,url"}}}), WG_RISK_LOW },
    { "list_cards", "List the cards of a list or of a board",
      JSON({"properties":{"listId":{"type":"string"},"boardId":{"type":"string"},
            "filter":{"type":"string","description":"board cards: all, closed, open, visible"}}}),
      WG_RISK_LOW },
    { "create_card", "Create a card in a list",
      JSON({"properties":{"idList":{"type":"string"},"name":{"type":"string"},
            "desc":{"type":"string"},"pos":{"type":"string","description":"top, bottom or a number"},
            "due":{"type":"string","description":"ISO 8601 date"},
            "idLabels":{"type":"string","description":"comma-separated label ids"}},
            "required":["idList","name"]}), WG_RISK_MEDIUM },
    { "update_card", "Change fields of a card (move it with idList, archive it with closed)",
      JSON({"properties":{"cardId":{"type":"string"},"name":{"type":"string"},
            "desc":{"type":"string"},"closed":{"type":"boolean"},"idList":{"type":"string"},
            "due":{"type":"string"},"pos":{"type":"string"}},"required":["cardId"]}),
      WG_RISK_MEDIUM },
    { "list_lists", "List the lists of a board",
      JSON({"properties":{"boardId":{"type":"string"},
            "filter":{"type":"string","description":"all, closed, none, open"}},
            "required":["boardId"]}), WG_RISK_LOW },
    { "search_cards", "Search cards by text (Trello search operators allowed)",
      JSON({"properties":{"query":{"type":"string"},
            "idBoards":{"type":"string","description":"mine or comma-separated board ids"},
            "cards_limit":{"type":"integer","description":"1-1000 (default 10)"}},
            "required":["query"]}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_boards", .method = WG_REST_GET, .path = "/members/me/boards",
      .query = "filter fields" },
    { .name = "list_cards", .method = WG_REST_GET, .path = "/boards/{boardId}/cards",
      .query = "filter", .custom = list_cards },
    { .name = "create_card", .method = WG_REST_POST, .path = "/cards",
      .query = "idList name desc pos due idLabels" },
    { .name = "update_card", .method = WG_REST_PUT, .path = "/cards/{cardId}",
      .query = "name desc closed idList due pos" },
    { .name = "list_lists", .method = WG_REST_GET, .path = "/boards/{boardId}/lists",
      .query = "filter" },
    { .name = "search_cards", .method = WG_REST_GET, .path = "/search",
      .query = "query modelTypes=cards idBoards cards_limit" },
};

/* GET /lists/{id}/cards when a list is named, else the board's cards. */
static int list_cards(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    if (json_object_get(params, "listId"))
        return wg_rest_run_path(out, ctx, params, "/lists/{listId}/cards");
    if (json_object_get(params, "boardId"))
        return wg_rest_run(out, ctx, params);
    *out = wg_connector_fail("Provide boardId or listId to list cards");
    return *out ? 0 : WG_ENOMEM;
}

static const wg_rest_spec rest = {
    .default_base = "https://api.trello.com/1",
    .override_origin = 1,
    .auth = WG_REST_AUTH_KEY_TOKEN,
    .error_prefix = "Trello API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/members/me",
};

static const char *const settings[] = { "api_key", NULL };

const wg_connector_spec wg_spec_trello = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "trello",
    .name = "Trello",
    .description = "Boards, lists and cards in Trello",
    .service = "trello.com",
    .auth_type = WG_AUTH_API_KEY,
    .category = "productivity",
    .logo_slug = "trello",
    .setup_guide = "Create a Power-Up at trello.com/power-ups/admin for an API key, generate a "
                   "token for it, then connect the token with --set api_key=KEY (or connect "
                   "KEY:TOKEN as one credential).",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .extra_key = "api_key",
    .settings = settings,
};

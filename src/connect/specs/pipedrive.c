/* pipedrive.c - Pipedrive (reference 1.3 row 16, 1.4) on the API v1
 * (developers.pipedrive.com/docs/api/v1). The original sent the API token
 * unencoded in the query string of every call; Pipedrive documents the
 * x-api-token header (pipedrive.readme.io/docs/core-api-concepts-authentication),
 * which keeps it out of URLs and logs. After an OAuth2 sign-in the access
 * token is a Bearer token on the company's api_domain (kept from the token
 * response; pipedrive.readme.io/docs/marketplace-oauth-authorization).
 * Lists page by
 * additional_data.pagination.next_start while more_items_in_collection. */
#include "specs.h"

#define PD_PAGES(items)                                                                       \
    { WG_REST_PAGE_TOKEN, items, "additional_data/pagination/next_start", "start",              \
      "additional_data/pagination/more_items_in_collection", NULL }
#define PAGE_PROPS                                                                            \
    "\"start\":{\"type\":\"integer\",\"description\":\"pagination start (default 0)\"},"       \
    "\"limit\":{\"type\":\"integer\",\"description\":\"per page, up to 500 (default 100)\"},"  \
    "\"maxPages\":{\"type\":\"integer\"}"

static const wg_connector_action actions[] = {
    { "list_deals", "List deals",
      "{\"properties\":{\"status\":{\"type\":\"string\",\"description\":\"open, won, lost, "
      "deleted, all_not_deleted\"},\"user_id\":{\"type\":\"integer\"}," PAGE_PROPS "}}",
      WG_RISK_LOW },
    { "get_deal", "Get a deal by id",
      JSON({"properties":{"id":{"type":"integer"}},"required":["id"]}), WG_RISK_LOW },
    { "create_deal", "Create a deal",
      JSON({"properties":{"title":{"type":"string"},"value":{"type":"number"},
            "currency":{"type":"string","description":"ISO 4217, e.g. EUR"},
            "person_id":{"type":"integer"},"org_id":{"type":"integer"},
            "stage_id":{"type":"integer"},"status":{"type":"string"},
            "expected_close_date":{"type":"string","description":"YYYY-MM-DD"}},
            "required":["title"]}), WG_RISK_MEDIUM },
    { "search_deals", "Search deals by title, notes and custom fields",
      "{\"properties\":{\"term\":{\"type\":\"string\",\"description\":\"at least 2 "
      "characters\"},\"fields\":{\"type\":\"string\",\"description\":\"custom_fields, notes, "
      "title\"},\"exact_match\":{\"type\":\"boolean\"}," PAGE_PROPS "},\"required\":[\"term\"]}",
      WG_RISK_LOW },
    { "list_persons", "List persons", "{\"properties\":{" PAGE_PROPS "}}", WG_RISK_LOW },
    { "create_person", "Create a person",
      JSON({"properties":{"name":{"type":"string"},
            "email":{"type":"array","items":{"type":"string"}},
            "phone":{"type":"array","items":{"type":"string"}},"org_id":{"type":"integer"}},
            "required":["name"]}), WG_RISK_MEDIUM },
    { "list_activities", "List activities",
      "{\"properties\":{\"type\":{\"type\":\"string\",\"description\":\"call, meeting, task, "
      "...\"},\"done\":{\"type\":\"integer\",\"description\":\"0 or 1\"}," PAGE_PROPS "}}",
      WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_deals", .method = WG_REST_GET, .path = "/deals",
      .query = "status user_id start limit", .page = PD_PAGES("data") },
    { .name = "get_deal", .method = WG_REST_GET, .path = "/deals/{id}" },
    { .name = "create_deal", .method = WG_REST_POST, .path = "/deals",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"title":"$title","value":"$value","currency":"$currency",
                             "person_id":"$person_id","org_id":"$org_id","stage_id":"$stage_id",
                             "status":"$status","expected_close_date":"$expected_close_date"}) },
    { .name = "search_deals", .method = WG_REST_GET, .path = "/deals/search",
      .query = "term fields exact_match start limit", .page = PD_PAGES("data/items") },
    { .name = "list_persons", .method = WG_REST_GET, .path = "/persons",
      .query = "start limit", .page = PD_PAGES("data") },
    { .name = "create_person", .method = WG_REST_POST, .path = "/persons",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"name":"$name","email":"$email","phone":"$phone","org_id":"$org_id"}) },
    { .name = "list_activities", .method = WG_REST_GET, .path = "/activities",
      .query = "type done start limit", .page = PD_PAGES("data") },
};

static const wg_rest_spec rest = {
    .default_base = "https://api.pipedrive.com/v1",
    .override_origin = 1,
    /* after an OAuth2 sign-in: Bearer, on the company's api_domain */
    .base_suffix = "/api/v1",
    .base_from_extra = 1,
    .oauth_bearer = 1,
    .auth = WG_REST_AUTH_HEADER,
    .auth_name = "x-api-token",
    .error_prefix = "Pipedrive API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/users/me",
};

const wg_connector_spec wg_spec_pipedrive = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "pipedrive",
    .name = "Pipedrive",
    .description = "Deals, persons and activities in Pipedrive CRM",
    .service = "pipedrive.com",
    .auth_type = WG_AUTH_API_KEY,
    .category = "crm",
    .logo_slug = "pipedrive",
    .setup_guide = "Copy your personal API token from Pipedrive (Personal preferences > API, "
                   "app.pipedrive.com/settings/api) and connect it, or sign in with OAuth: "
                   "waggle connectors oauth pipedrive --client-id ID.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .extra_key = "api_domain",      /* kept from the token response */
    .oauth_provider = "pipedrive",
    .oauth_scopes = "base deals:full contacts:full activities:full search:read",
};

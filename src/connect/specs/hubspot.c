/* hubspot.c - HubSpot (reference 1.3 row 14, 1.4) on the CRM API v3
 * (developers.hubspot.com/docs/api-reference/crm-contacts-v3). Lists page
 * with paging.next.after (GET: query `after`; search: body `after`), up to
 * maxPages. The original sent every input as a contact property; here
 * properties are the named ones plus an explicit `properties` object. */
#include "specs.h"

static int prepare_properties(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define HS_PAGES { WG_REST_PAGE_TOKEN, "results", "paging/next/after", "after", NULL, NULL }
#define LIST_PROPS                                                                          \
    "\"limit\":{\"type\":\"integer\",\"description\":\"per page, 1-100 (default 10)\"},"       \
    "\"after\":{\"type\":\"string\",\"description\":\"paging.next.after of the previous call\"},"\
    "\"properties\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"                      \
    "\"description\":\"property names to return\"},\"maxPages\":{\"type\":\"integer\"}"

static const wg_connector_action actions[] = {
    { "list_contacts", "List contacts", "{\"properties\":{" LIST_PROPS "}}", WG_RISK_LOW },
    { "get_contact", "Get a contact by id",
      JSON({"properties":{"contactId":{"type":"string"},
            "properties":{"type":"array","items":{"type":"string"}}},"required":["contactId"]}),
      WG_RISK_LOW },
    { "create_contact", "Create a contact",
      JSON({"properties":{"email":{"type":"string"},"firstname":{"type":"string"},
            "lastname":{"type":"string"},"phone":{"type":"string"},"company":{"type":"string"},
            "properties":{"type":"object","description":"more contact properties by internal name"}},
            "required":["email"]}), WG_RISK_MEDIUM },
    { "search_contacts", "Search contacts by text (name, email, phone, company)",
      JSON({"properties":{"query":{"type":"string"},"limit":{"type":"integer","description":"default 10"},
            "after":{"type":"string"},"maxPages":{"type":"integer"}},"required":["query"]}),
      WG_RISK_LOW },
    { "list_deals", "List deals", "{\"properties\":{" LIST_PROPS "}}", WG_RISK_LOW },
    { "create_deal", "Create a deal",
      JSON({"properties":{"dealname":{"type":"string"},"amount":{"type":"string"},
            "dealstage":{"type":"string"},"pipeline":{"type":"string"},
            "closedate":{"type":"string","description":"ISO 8601"},
            "properties":{"type":"object","description":"more deal properties"}},
            "required":["dealname"]}), WG_RISK_MEDIUM },
    { "list_companies", "List companies", "{\"properties\":{" LIST_PROPS "}}", WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_contacts", .method = WG_REST_GET, .path = "/crm/v3/objects/contacts",
      .query = "limit after properties", .page = HS_PAGES },
    { .name = "get_contact", .method = WG_REST_GET, .path = "/crm/v3/objects/contacts/{contactId}",
      .query = "properties" },
    { .name = "create_contact", .method = WG_REST_POST, .path = "/crm/v3/objects/contacts",
      .prepare = prepare_properties, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"properties":"$props"}) },
    { .name = "search_contacts", .method = WG_REST_POST, .path = "/crm/v3/objects/contacts/search",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"query":"$query","limit":"$limit=10","after":"$after"}),
      .page = HS_PAGES },
    { .name = "list_deals", .method = WG_REST_GET, .path = "/crm/v3/objects/deals",
      .query = "limit after properties", .page = HS_PAGES },
    { .name = "create_deal", .method = WG_REST_POST, .path = "/crm/v3/objects/deals",
      .prepare = prepare_properties, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"properties":"$props"}) },
    { .name = "list_companies", .method = WG_REST_GET, .path = "/crm/v3/objects/companies",
      .query = "limit after properties", .page = HS_PAGES },
};

/* The named properties of the action's schema, over an explicit
 * `properties` object (named inputs win), as `props`. */
static int prepare_properties(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    static const char *const named[] = { "email", "firstname", "lastname", "phone", "company",
                                         "dealname", "amount", "dealstage", "pipeline",
                                         "closedate" };
    (void)ctx;
    const json_t *extra = json_object_get(params, "properties");
    json_t *props = json_is_object(extra) ? json_deep_copy(extra) : json_object();
    for (size_t i = 0; props && i < COUNT(named); i++) {
        const json_t *v = json_object_get(params, named[i]);
        if (v && !json_is_null(v))
            json_object_set(props, named[i], (json_t *)v);
    }
    const char *k;
    json_t *v;
    json_object_foreach(props, k, v)
        if (!json_is_string(v) && !json_is_number(v) && !json_is_boolean(v)) {
            /* the message first: k belongs to props */
            int rc = wg_error_set(WG_EINVAL, "property %s must be a string, number or boolean", k);
            json_decref(props);
            return rc;
        }
    *out = props ? json_pack("{s:o}", "props", props) : NULL;
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const wg_rest_spec rest = {
    .default_base = "https://api.hubapi.com",
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "HubSpot API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/crm/v3/objects/contacts?limit=1",
};

const wg_connector_spec wg_spec_hubspot = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "hubspot",
    .name = "HubSpot",
    .description = "Contacts, deals and companies in HubSpot CRM",
    .service = "hubspot.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "crm",
    .logo_slug = "hubspot",
    .setup_guide = "Create a private app in HubSpot (Settings > Integrations > Private apps) with "
                   "the crm.objects contacts/deals/companies scopes and connect its access token, "
                   "or sign in with OAuth: waggle connectors oauth hubspot --client-id ID.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "hubspot",
    .oauth_scopes = "crm.objects.contacts.read crm.objects.contacts.write "
                    "crm.objects.deals.read crm.objects.deals.write crm.objects.companies.read",
};

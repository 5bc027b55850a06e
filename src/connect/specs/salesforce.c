/* salesforce.c - Salesforce (reference 1.3 row 15, 1.4) on the REST API
 * v59.0 (developer.salesforce.com/docs/atlas.en-us.api_rest.meta) of the
 * instance the token endpoint named (instance_url, kept by the token
 * manager; the operator may set it for a raw token: --set instance_url=).
 * The original's `search` ran whatever SOQL it was given and its lists
 * spliced `fields` into SOQL. Here no SOQL text comes from the caller:
 * queries are built from an object name, field names (checked as SOQL
 * identifiers) and values (quoted and escaped as SOQL string literals,
 * LIKE wildcards escaped too). Query results page with nextRecordsUrl. */
#include "specs.h"
#include "core/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    IDENT_MAX = 80,          /* API names are at most 40 (+ __c, relationship paths) */
    FIELDS_MAX = 100,
    WHERE_MAX = 20,
    VALUE_MAX = 1024,
    LIMIT_MAX = 2000,        /* one query page */
};

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_contacts(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_opportunities(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_fields(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define QUERY_PAGES { WG_REST_PAGE_LINK, "records", "nextRecordsUrl", NULL, NULL, NULL }

static const wg_connector_action actions[] = {
    { "search", "Query records of one object by field values (built as safe SOQL)",
      JSON({"properties":{"objectType":{"type":"string","description":"e.g. Account, Contact, Invoice__c"},
            "fields":{"type":"array","items":{"type":"string"},"description":"default Id, Name"},
            "where":{"type":"object","description":"field -> value that must be equal (AND)"},
            "contains":{"type":"object","description":"field -> text the field must contain (AND)"},
            "orderBy":{"type":"string","description":"a field, optionally followed by ASC or DESC"},
            "limit":{"type":"integer","description":"1-2000 (default 25)"},
            "maxPages":{"type":"integer"}},"required":["objectType"]}), WG_RISK_LOW },
    { "list_contacts", "List the newest contacts",
      JSON({"properties":{"fields":{"type":"array","items":{"type":"string"},
            "description":"default Id, Name, Email, Phone"},
            "limit":{"type":"integer","description":"default 25"},"maxPages":{"type":"integer"}}}),
      WG_RISK_LOW },
    { "get_record", "Get one record",
      JSON({"properties":{"objectType":{"type":"string"},"recordId":{"type":"string"},
            "fields":{"type":"array","items":{"type":"string"}}},
            "required":["objectType","recordId"]}), WG_RISK_LOW },
    { "create_record", "Create a record",
      JSON({"properties":{"objectType":{"type":"string"},
            "fields":{"type":"object","description":"field -> value"}},
            "required":["objectType","fields"]}), WG_RISK_MEDIUM },
    { "update_record", "Change fields of a record",
      JSON({"properties":{"objectType":{"type":"string"},"recordId":{"type":"string"},
            "fields":{"type":"object"}},"required":["objectType","recordId","fields"]}),
      WG_RISK_MEDIUM },
    { "list_opportunities", "List the newest opportunities, optionally of one stage",
      JSON({"properties":{"fields":{"type":"array","items":{"type":"string"},
            "description":"default Id, Name, StageName, Amount, CloseDate"},
            "stage":{"type":"string","description":"StageName to match"},
            "limit":{"type":"integer","description":"default 25"},"maxPages":{"type":"integer"}}}),
      WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "search", .method = WG_REST_GET, .path = "/query", .query = "q",
      .prepare = prepare_search, .page = QUERY_PAGES },
    { .name = "list_contacts", .method = WG_REST_GET, .path = "/query", .query = "q",
      .prepare = prepare_contacts, .page = QUERY_PAGES },
    { .name = "get_record", .method = WG_REST_GET, .path = "/sobjects/{objectType}/{recordId}",
      .query = "fields:fieldList", .prepare = prepare_fields },
    { .name = "create_record", .method = WG_REST_POST, .path = "/sobjects/{objectType}",
      .prepare = prepare_fields, .body = WG_REST_BODY_TEMPLATE, .body_template = "\"$fields\"" },
    { .name = "update_record", .method = WG_REST_PATCH, .path = "/sobjects/{objectType}/{recordId}",
      .prepare = prepare_fields, .body = WG_REST_BODY_TEMPLATE, .body_template = "\"$fields\"",
      .result_template = JSON({"id":"$recordId","updated":true}) },
    { .name = "list_opportunities", .method = WG_REST_GET, .path = "/query", .query = "q",
      .prepare = prepare_opportunities, .page = QUERY_PAGES },
};

/* ---- SOQL from parts ---------------------------------------------------- */

/* An API name: a letter, then letters, digits and '_' (custom names end in
 * __c, __r); `dotted` also allows relationship paths (Account.Name). */
static int ident_ok(const char *s, int dotted)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || n > IDENT_MAX)
        return 0;
    int start = 1, parts = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        if (start) {
            if (!letter)
                return 0;
            start = 0;
            parts++;
        } else if (c == '.' && dotted && parts < 5) {
            start = 1;
        } else if (!letter && !(c >= '0' && c <= '9') && c != '_') {
            return 0;
        }
    }
    return !start;
}

static int ident(wg_sbuf *b, const char *s, int dotted, const char *what)
{
    if (!ident_ok(s, dotted))
        return wg_error_set(WG_EINVAL, "%s must be a Salesforce API name (letters, digits, "
                                       "'_'%s), got '%.60s'", what, dotted ? ", '.'" : "",
                            s ? s : "");
    wg_sbuf__puts(b, s);
    return 0;
}

/* A SOQL string literal (SOQL reference "Quoted String Escape Sequences");
 * like=1 also escapes the LIKE wildcards % and _ and wraps in %...%. */
static int literal(wg_sbuf *b, const char *s, int like)
{
    if (strlen(s) > VALUE_MAX)
        return wg_error_set(WG_EINVAL, "a value is longer than %d bytes", VALUE_MAX);
    wg_sbuf__puts(b, like ? "'%" : "'");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        static const char from[] = "\n\r\t\b\f\"'\\", to[] = "nrtbf\"'\\";
        const char *hit = *p ? strchr(from, *p) : NULL;
        char e[2] = { '\\', 0 };
        if (hit) {
            e[1] = to[hit - from];
            wg_sbuf__put(b, e, 2);
        } else if (*p < 0x20 || *p == 0x7f) {
            return wg_error_set(WG_EINVAL, "values may not contain control characters");
        } else if (like && (*p == '%' || *p == '_')) {
            e[1] = (char)*p;
            wg_sbuf__put(b, e, 2);
        } else {
            wg_sbuf__put(b, (const char *)p, 1);
        }
    }
    wg_sbuf__puts(b, like ? "%'" : "'");
    return 0;
}

static int value(wg_sbuf *b, const json_t *v, const char *field)
{
    char num[64];
    switch (json_typeof(v)) {
    case JSON_STRING: return literal(b, json_string_value(v), 0);
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        wg_sbuf__puts(b, num);
        return 0;
    case JSON_REAL:
        snprintf(num, sizeof num, "%.17g", json_real_value(v));
        wg_sbuf__puts(b, num);
        return 0;
    case JSON_TRUE: wg_sbuf__puts(b, "true"); return 0;
    case JSON_FALSE: wg_sbuf__puts(b, "false"); return 0;
    case JSON_NULL: wg_sbuf__puts(b, "null"); return 0;
    default:
        return wg_error_set(WG_EINVAL, "where.%s must be a string, number, boolean or null", field);
    }
}

static int select_list(wg_sbuf *b, const json_t *fields, const char *dflt)
{
    wg_sbuf__puts(b, "SELECT ");
    if (!fields || json_is_null(fields)) {
        wg_sbuf__puts(b, dflt);
        return 0;
    }
    size_t n = json_array_size(fields), i;
    json_t *f;
    if (!n || n > FIELDS_MAX)
        return wg_error_set(WG_EINVAL, "fields must list 1 to %d names", FIELDS_MAX);
    json_array_foreach(fields, i, f) {
        if (i)
            wg_sbuf__puts(b, ", ");
        int rc = ident(b, json_string_value(f), 1, "each field");
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* field = value AND ... / field LIKE '%text%' AND ... */
static int conditions(wg_sbuf *b, const json_t *where, const json_t *contains, int *any)
{
    const json_t *maps[2] = { where, contains };
    size_t count = 0;
    for (int m = 0; m < 2; m++) {
        const char *k;
        json_t *v;
        if (maps[m] && !json_is_null(maps[m]) && !json_is_object(maps[m]))
            return wg_error_set(WG_EINVAL, "%s must be an object", m ? "contains" : "where");
        json_object_foreach((json_t *)maps[m], k, v) {
            if (++count > WHERE_MAX)
                return wg_error_set(WG_EINVAL, "at most %d conditions", WHERE_MAX);
            wg_sbuf__puts(b, *any ? " AND " : " WHERE ");
            *any = 1;
            int rc = ident(b, k, 1, "a condition's field");
            if (rc == 0 && m == 0) {
                wg_sbuf__puts(b, " = ");
                rc = value(b, v, k);
            } else if (rc == 0) {
                wg_sbuf__puts(b, " LIKE ");
                rc = json_is_string(v) ? literal(b, json_string_value(v), 1)
                                       : wg_error_set(WG_EINVAL, "contains.%s must be text", k);
            }
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

static int order_limit(wg_sbuf *b, const char *order, const json_t *limit)
{
    if (order) {
        char field[IDENT_MAX + 1];
        const char *dir = "";
        size_t n = strcspn(order, " ");
        if (n > IDENT_MAX)
            return wg_error_set(WG_EINVAL, "orderBy field too long");
        snprintf(field, sizeof field, "%.*s", (int)n, order);
        if (order[n]) {
            const char *d = order + n + 1;
            if (strcmp(d, "ASC") && strcmp(d, "DESC") && strcmp(d, "asc") && strcmp(d, "desc"))
                return wg_error_set(WG_EINVAL, "orderBy is a field, optionally followed by ASC "
                                               "or DESC");
            dir = d[0] == 'A' || d[0] == 'a' ? " ASC" : " DESC";
        }
        wg_sbuf__puts(b, " ORDER BY ");
        int rc = ident(b, field, 1, "orderBy");
        if (rc < 0)
            return rc;
        wg_sbuf__puts(b, dir);
    }
    json_int_t lim = limit && !json_is_null(limit) ? json_integer_value(limit) : 25;
    if (lim < 1 || lim > LIMIT_MAX)
        return wg_error_set(WG_EINVAL, "limit must be from 1 to %d", LIMIT_MAX);
    char num[48];
    snprintf(num, sizeof num, " LIMIT %" JSON_INTEGER_FORMAT, lim);
    wg_sbuf__puts(b, num);
    return 0;
}

/* Builds q from the parts and returns the inputs the row runs with. */
static int soql(json_t **out, const json_t *params, const char *object, const char *dflt,
                const json_t *where, const json_t *contains, const char *order)
{
    wg_sbuf b = { 0 };
    int any = 0;
    int rc = select_list(&b, json_object_get(params, "fields"), dflt);
    if (rc == 0) {
        wg_sbuf__puts(&b, " FROM ");
        rc = ident(&b, object, 0, "objectType");
    }
    if (rc == 0)
        rc = conditions(&b, where, contains, &any);
    if (rc == 0)
        rc = order_limit(&b, order, json_object_get(params, "limit"));
    if (rc == 0 && b.oom)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0) {
        *out = json_pack("{s:s}", "q", b.p);
        rc = *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
    }
    free(b.p);
    return rc;
}

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    return soql(out, params, json_string_value(json_object_get(params, "objectType")), "Id, Name",
                json_object_get(params, "where"), json_object_get(params, "contains"),
                json_string_value(json_object_get(params, "orderBy")));
}

static int prepare_contacts(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    return soql(out, params, "Contact", "Id, Name, Email, Phone", NULL, NULL, "CreatedDate DESC");
}

static int prepare_opportunities(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    json_t *where = NULL;
    const json_t *stage = json_object_get(params, "stage");
    if (stage && json_is_string(stage))
        where = json_pack("{s:O}", "StageName", stage);
    int rc = soql(out, params, "Opportunity", "Id, Name, StageName, Amount, CloseDate", where,
                  NULL, "CreatedDate DESC");
    json_decref(where);
    return rc;
}

/* get_record: `fields` names as one comma-separated list; create/update:
 * a fields object whose keys are API names. objectType is checked too (it
 * is also one encoded path segment). */
static int prepare_fields(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    if (!ident_ok(json_string_value(json_object_get(params, "objectType")), 0))
        return wg_error_set(WG_EINVAL, "objectType must be a Salesforce API name");
    const json_t *fields = json_object_get(params, "fields");
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = 0;
    if (json_is_array(fields)) {
        wg_sbuf b = { 0 };
        size_t i;
        json_t *f;
        json_array_foreach(fields, i, f) {
            if (i)
                wg_sbuf__puts(&b, ",");
            if ((rc = ident(&b, json_string_value(f), 1, "each field")) < 0)
                break;
        }
        if (rc == 0 && b.p)
            json_object_set_new(p, "fieldList", json_string(b.p));
        free(b.p);
        json_object_del(p, "fields");
    } else if (json_is_object(fields)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)fields, k, v)
            if (rc == 0 && !ident_ok(k, 0))
                rc = wg_error_set(WG_EINVAL, "field names must be Salesforce API names, got "
                                             "'%.60s'", k);
        if (rc == 0 && json_object_size(fields) == 0)
            rc = wg_error_set(WG_EINVAL, "fields must name at least one field");
    }
    if (rc < 0) {
        json_decref(p);
        return rc;
    }
    *out = p;
    return 0;
}

static const wg_rest_spec rest = {
    .default_base = NULL,                  /* the instance is the person's */
    .base_suffix = "/services/data/v59.0",
    .base_from_extra = 1,                  /* connector:salesforce:instance_url */
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Salesforce API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/limits",
};

static const char *const settings[] = { "instance_url", NULL };

const wg_connector_spec wg_spec_salesforce = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "salesforce",
    .name = "Salesforce",
    .description = "Query and change Salesforce records, contacts and opportunities",
    .service = "salesforce.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "crm",
    .logo_slug = "salesforce",
    .setup_guide = "Create a connected app (OAuth scopes api, refresh_token) and sign in with "
                   "waggle connectors oauth salesforce --client-id KEY; the instance URL comes "
                   "from the sign-in.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .extra_key = "instance_url",
    .settings = settings,
    .oauth_provider = "salesforce",
    .oauth_scopes = "api refresh_token",
};

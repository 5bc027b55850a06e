/* airtable.c - Airtable (reference 1.3 row 17, 1.4) on the Web API v0
 * (airtable.com/developers/web/api). Records page by `offset`, up to
 * maxPages. search_records builds its filterByFormula from field names and
 * values, so a value such as `x") , TRUE()) & ("` stays a string: field
 * names go in {braces} (names with braces or control characters are
 * refused), strings are double-quoted with \ and " escaped (Airtable
 * formula string literals), numbers and booleans are typed. A formula
 * written by the caller may still be given as filterByFormula. */
#include "specs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FORMULA_MAX = 16 * 1024, CONDITIONS_MAX = 20, TEXT_MAX = 1024 };

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define RECORD_PAGES { WG_REST_PAGE_TOKEN, "records", "offset", "offset", NULL, NULL }
#define TABLE_PROPS                                                                           \
    "\"baseId\":{\"type\":\"string\",\"description\":\"app...\"},"                            \
    "\"tableIdOrName\":{\"type\":\"string\"}"
#define LIST_PROPS                                                                            \
    "\"maxRecords\":{\"type\":\"integer\"},\"pageSize\":{\"type\":\"integer\","              \
    "\"description\":\"1-100\"},\"view\":{\"type\":\"string\"},"                               \
    "\"fields\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"                         \
    "\"sortField\":{\"type\":\"string\"},\"sortDirection\":{\"type\":\"string\","             \
    "\"description\":\"asc or desc\"},\"offset\":{\"type\":\"string\"},"                       \
    "\"maxPages\":{\"type\":\"integer\"}"

static const wg_connector_action actions[] = {
    { "list_bases", "List the bases the token can reach",
      JSON({"properties":{"offset":{"type":"string"},"maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "list_records", "List records of a table",
      "{\"properties\":{" TABLE_PROPS "," LIST_PROPS ",\"filterByFormula\":{\"type\":\"string\","
      "\"description\":\"an Airtable formula\"}},\"required\":[\"baseId\",\"tableIdOrName\"]}",
      WG_RISK_LOW },
    { "get_record", "Get one record",
      "{\"properties\":{" TABLE_PROPS ",\"recordId\":{\"type\":\"string\"}},"
      "\"required\":[\"baseId\",\"tableIdOrName\",\"recordId\"]}", WG_RISK_LOW },
    { "create_record", "Create a record",
      "{\"properties\":{" TABLE_PROPS ",\"fields\":{\"type\":\"object\"},\"typecast\":"
      "{\"type\":\"boolean\"}},\"required\":[\"baseId\",\"tableIdOrName\",\"fields\"]}",
      WG_RISK_MEDIUM },
    { "update_record", "Change fields of a record",
      "{\"properties\":{" TABLE_PROPS ",\"recordId\":{\"type\":\"string\"},\"fields\":"
      "{\"type\":\"object\"},\"typecast\":{\"type\":\"boolean\"}},\"required\":[\"baseId\","
      "\"tableIdOrName\",\"recordId\",\"fields\"]}", WG_RISK_MEDIUM },
    { "search_records", "Find records whose fields equal (match) or contain (search) values",
      "{\"properties\":{" TABLE_PROPS ",\"match\":{\"type\":\"object\",\"description\":"
      "\"field -> value that must be equal\"},\"search\":{\"type\":\"object\",\"description\":"
      "\"field -> text it must contain (case-insensitive)\"},\"filterByFormula\":{\"type\":"
      "\"string\",\"description\":\"an Airtable formula, ANDed with the above\"},"
      "\"maxRecords\":{\"type\":\"integer\",\"description\":\"default 100\"},"
      "\"view\":{\"type\":\"string\"},\"maxPages\":{\"type\":\"integer\"}},"
      "\"required\":[\"baseId\",\"tableIdOrName\"]}", WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_bases", .method = WG_REST_GET, .path = "/meta/bases", .query = "offset",
      .page = { WG_REST_PAGE_TOKEN, "bases", "offset", "offset", NULL, NULL } },
    { .name = "list_records", .method = WG_REST_GET, .path = "/{baseId}/{tableIdOrName}",
      .query = "maxRecords pageSize view filterByFormula fields[]:fields "
               "sort[0][field]:sortField sort[0][direction]:sortDirection offset",
      .page = RECORD_PAGES },
    { .name = "get_record", .method = WG_REST_GET, .path = "/{baseId}/{tableIdOrName}/{recordId}" },
    { .name = "create_record", .method = WG_REST_POST, .path = "/{baseId}/{tableIdOrName}",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"fields":"$fields","typecast":"$typecast"}) },
    { .name = "update_record", .method = WG_REST_PATCH, .path = "/{baseId}/{tableIdOrName}/{recordId}",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"fields":"$fields","typecast":"$typecast"}) },
    { .name = "search_records", .method = WG_REST_GET, .path = "/{baseId}/{tableIdOrName}",
      .query = "maxRecords=100 view filterByFormula offset", .prepare = prepare_search,
      .page = RECORD_PAGES },
};

/* {name}: refused when the name could close the braces. */
static int field_ref(char **out, const char *name)
{
    size_t n = strlen(name);
    if (!n || n > 255)
        return wg_error_set(WG_EINVAL, "field names are 1 to 255 bytes");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '{' || *p == '}')
            return wg_error_set(WG_EINVAL, "field name '%.60s' may not contain braces or "
                                           "control characters", name);
    return asprintf(out, "{%s}", name) < 0 ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

static int string_lit(char **out, const char *s)
{
    return wg_rest_quote(out, s, TEXT_MAX, '"', "\"\\", '\\');
}

/* One condition: {f} = value, or FIND(LOWER("text"), LOWER({f})). */
static int condition(char **out, const char *field, const json_t *v, int contains)
{
    char *ref = NULL, *lit = NULL;
    int rc = field_ref(&ref, field);
    if (rc < 0)
        return rc;
    if (contains && !json_is_string(v))
        rc = wg_error_set(WG_EINVAL, "search.%s must be text", field);
    else if (json_is_string(v))
        rc = string_lit(&lit, json_string_value(v));
    else if (json_is_integer(v))
        rc = asprintf(&lit, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0 ? WG_ENOMEM : 0;
    else if (json_is_real(v))
        rc = asprintf(&lit, "%.17g", json_real_value(v)) < 0 ? WG_ENOMEM : 0;
    else if (json_is_boolean(v))
        lit = strdup(json_is_true(v) ? "TRUE()" : "FALSE()");
    else
        rc = wg_error_set(WG_EINVAL, "match.%s must be a string, number or boolean", field);
    if (rc == 0 && !lit)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0 && (contains ? asprintf(out, "FIND(LOWER(%s), LOWER(%s))", lit, ref)
                             : asprintf(out, "%s = %s", ref, lit)) < 0)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    free(ref);
    free(lit);
    return rc;
}

static int append(char **acc, const char *part)
{
    char *n = NULL;
    if (asprintf(&n, "%s%s%s", *acc ? *acc : "", *acc ? ", " : "", part) < 0)
        return wg_error_set(WG_ENOMEM, "out of memory");
    free(*acc);
    *acc = n;
    return 0;
}

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *maps[] = { "match", "search" };
    const char *raw = json_string_value(json_object_get(params, "filterByFormula"));
    char *acc = NULL;
    size_t n = 0;
    int rc = 0;
    for (int m = 0; m < 2 && rc == 0; m++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(params, maps[m]), k, v) {
            char *c = NULL;
            if (++n > CONDITIONS_MAX)
                rc = wg_error_set(WG_EINVAL, "at most %d conditions", CONDITIONS_MAX);
            if (rc == 0)
                rc = condition(&c, k, v, m == 1);
            if (rc == 0)
                rc = append(&acc, c);
            free(c);
            if (rc < 0)
                break;
        }
    }
    if (rc == 0 && raw)
        rc = append(&acc, raw);
    if (rc == 0 && !acc)
        rc = wg_error_set(WG_EINVAL, "give match, search or filterByFormula");
    char *formula = NULL;
    if (rc == 0 && asprintf(&formula, (n + (raw != NULL)) > 1 ? "AND(%s)" : "%s", acc) < 0)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    free(acc);
    if (rc == 0 && strlen(formula) > FORMULA_MAX)
        rc = wg_error_set(WG_EINVAL, "formula longer than %d bytes", FORMULA_MAX);
    json_t *p = rc == 0 ? json_deep_copy(params) : NULL;
    if (rc == 0 && !p)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0) {
        json_object_del(p, "match");
        json_object_del(p, "search");
        json_object_set_new(p, "filterByFormula", json_string(formula));
        *out = p;
    }
    free(formula);
    return rc;
}

static const wg_rest_spec rest = {
    .default_base = "https://api.airtable.com/v0",
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Airtable API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/meta/bases",
};

const wg_connector_spec wg_spec_airtable = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "airtable",
    .name = "Airtable",
    .description = "Bases, tables and records in Airtable",
    .service = "airtable.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "data",
    .logo_slug = "airtable",
    .setup_guide = "Create a personal access token at airtable.com/create/tokens with the "
                   "data.records:read/write and schema.bases:read scopes and connect it.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
};

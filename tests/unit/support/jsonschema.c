/* Tests for the suite's own JSON Schema validator (tests/support/jsonschema.h)
 * and the OpenAPI response check built on it (openapi_check.h): a checker
 * that accepts everything would prove nothing, so each keyword is shown to
 * refuse what it must. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "jsonschema.h"
#include "openapi_check.h"

static json_t *J(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    cr_assert_not_null(v, "%s: %s", text, e.text);
    return v;
}

/* valid(schema, instance) with the schema as its own root */
static int valid(const char *schema, const char *inst, char *why, size_t cap)
{
    json_t *s = J(schema), *i = J(inst);
    int ok = wgt_schema_valid(s, s, i, why, cap);
    json_decref(s);
    json_decref(i);
    return ok;
}

static const struct {
    const char *schema, *good, *bad, *says;
} cases[] = {
    { "{\"type\":\"string\"}", "\"x\"", "1", "wants string" },
    { "{\"type\":[\"string\",\"null\"]}", "null", "true", "not one of the types" },
    { "{\"type\":\"integer\"}", "2.0", "2.5", "wants integer" },
    { "{\"enum\":[\"a\",1]}", "1.0", "\"b\"", "not in the enum" },
    { "{\"const\":\"TIER_INSUFFICIENT\"}", "\"TIER_INSUFFICIENT\"", "\"X\"", "constant" },
    { "{\"required\":[\"a\"]}", "{\"a\":1}", "{\"b\":1}", "required property \"a\"" },
    { "{\"properties\":{\"a\":{\"type\":\"string\"}}}", "{\"a\":\"x\"}", "{\"a\":1}", "/a" },
    { "{\"properties\":{\"a\":{}},\"additionalProperties\":false}", "{\"a\":1}", "{\"a\":1,\"b\":2}",
      "/b" },
    { "{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"x\":1}", "{\"x\":\"1\"}", "/x" },
    { "{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}}}", "{\"x-a\":\"s\"}", "{\"x-a\":1}", "/x-a" },
    { "{\"items\":{\"type\":\"integer\"}}", "[1,2]", "[1,\"2\"]", "/1" },
    { "{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\"]", "[\"a\",1]", "false" },
    { "{\"minItems\":1,\"maxItems\":2}", "[1]", "[]", "minItems" },
    { "{\"uniqueItems\":true}", "[1,2]", "[1,1.0]", "uniqueItems" },
    { "{\"contains\":{\"const\":3}}", "[1,3]", "[1,2]", "contains" },
    { "{\"minLength\":2,\"maxLength\":3}", "\"\xc3\xa9\xc3\xa9\"", "\"abcd\"", "maxLength" },
    { "{\"pattern\":\"^[a-z]+$\"}", "\"abc\"", "\"ab1\"", "pattern" },
    { "{\"minimum\":1,\"exclusiveMaximum\":10}", "9.5", "10", "not below" },
    { "{\"multipleOf\":0.5}", "1.5", "1.3", "multiple" },
    { "{\"allOf\":[{\"type\":\"object\"},{\"required\":[\"a\"]}]}", "{\"a\":1}", "{}", "required" },
    { "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "3", "[]", "anyOf" },
    { "{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":0}]}", "-1", "1", "matches 2 of oneOf" },
    { "{\"not\":{\"type\":\"null\"}}", "0", "null", "under not" },
    { "{\"if\":{\"required\":[\"a\"]},\"then\":{\"required\":[\"b\"]}}", "{\"a\":1,\"b\":2}",
      "{\"a\":1}", "\"b\"" },
    { "{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"c\":1}", "{\"a\":1}", "not \"b\"" },
    { "{\"propertyNames\":{\"maxLength\":3}}", "{\"abc\":1}", "{\"abcd\":1}", "maxLength" },
    { "{\"$defs\":{\"n\":{\"type\":\"integer\"}},\"properties\":{\"v\":{\"$ref\":\"#/$defs/n\"}}}",
      "{\"v\":1}", "{\"v\":\"1\"}", "/v" },
    { "{\"$ref\":\"#/nowhere\"}", NULL, "1", "does not resolve" },
    { "{\"unevaluatedProperties\":false}", NULL, "{}", "does not check" },
    { "false", NULL, "1", "false" },
};

Test(jsonschema, each_keyword_accepts_what_it_should_and_refuses_what_it_must)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char why[512];
        if (cases[i].good)
            cr_expect(valid(cases[i].schema, cases[i].good, why, sizeof why), "%s on %s: %s",
                      cases[i].schema, cases[i].good, why);
        cr_expect(!valid(cases[i].schema, cases[i].bad, why, sizeof why), "%s accepted %s",
                  cases[i].schema, cases[i].bad);
        cr_expect(strstr(why, cases[i].says), "%s on %s says '%s', not '%s'", cases[i].schema,
                  cases[i].bad, why, cases[i].says);
    }
}

Test(jsonschema, a_ref_cycle_is_bounded)
{
    char why[256];
    cr_expect(!valid("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}", "1",
                     why, sizeof why));
    cr_expect(strstr(why, "deeper"), "%s", why);
}

static int check(const char *method, const char *path, long status, const char *ctype,
                 const char *body, char *why, size_t cap)
{
    return wgt_openapi_check(method, path, status, ctype, body, strlen(body), why, cap);
}

Test(openapi_check, the_check_bites)
{
    char why[1024];
    /* a documented route with a body that is not its schema */
    cr_expect(!check("GET", "/api/tier", 200, "application/json", "{\"tier\":7}",
                                 why, sizeof why));
    cr_expect(strstr(why, "GET /api/tier -> 200"), "%s", why);
    /* a status the operation does not declare */
    cr_expect(!check("GET", "/api/tier", 418, "application/json", "{}", why,
                                 sizeof why));
    /* success from a path the document does not list */
    cr_expect(!check("GET", "/api/nope", 200, "application/json", "{}", why,
                                 sizeof why));
    /* an unknown path's error must be an Error */
    cr_expect(check("GET", "/api/nope?x=1", 404, "application/json",
                                "{\"error\":\"NOT_FOUND\",\"message\":\"no such route\"}", why,
                                sizeof why), "%s", why);
    cr_expect(!check("GET", "/api/nope", 404, "application/json", "{\"e\":1}", why,
                                 sizeof why));
    /* a media type the response does not declare */
    cr_expect(!check("GET", "/api/tier", 200, "text/plain", "FREE", why, sizeof why));
    /* a wrong method: 405 is declared by the path's operations */
    cr_expect(check("DELETE", "/api/tier", 405, "application/json",
                                "{\"error\":\"METHOD_NOT_ALLOWED\",\"message\":\"use GET\"}",
                                why, sizeof why), "%s", why);
}

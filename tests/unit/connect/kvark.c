/* kvark.c - the KVARK configuration parser, parseSearchResults and the
 * friendly degradations (waggle/kvark.h; spec 9, reference 2.1, 2.4, 12.9).
 * No I/O. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/error.h"
#include "waggle/kvark.h"

static int parse(wg_kvark_config *c, const char *text)
{
    return wg_kvark_config_parse(c, text, strlen(text));
}

Test(kvark_config, reference_2_1_valid_value_with_trailing_slashes_removed)
{
    wg_kvark_config c;
    cr_assert_eq(parse(&c, "{\"baseUrl\":\"http://kvark:8000//\",\"identifier\":\"u@example.com\","
                           "\"password\":\"pw\"}"), 0, "%s", wg_error_last());
    /* the original's login went to http://kvark:8000//api/auth/login */
    cr_assert_str_eq(c.base_url, "http://kvark:8000");
    cr_assert_str_eq(c.identifier, "u@example.com");
    cr_assert_str_eq(c.password, "pw");
    cr_assert_eq(c.timeout_ms, WG_KVARK_TIMEOUT_DEFAULT_MS);
    wg_kvark_config_clear(&c);
    cr_assert_null(c.base_url);
    cr_assert_eq(parse(&c, "{\"baseUrl\":\"https://k.example/kv/\",\"identifier\":\"i\","
                           "\"password\":\"p\",\"timeoutMs\":1500}"), 0);
    cr_assert_str_eq(c.base_url, "https://k.example/kv");
    cr_assert_eq(c.timeout_ms, 1500);
    wg_kvark_config_clear(&c);
}

Test(kvark_config, reference_2_1_a_timeout_that_is_not_a_number_is_ignored)
{
    wg_kvark_config c;
    cr_assert_eq(parse(&c, "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\","
                           "\"timeoutMs\":\"5\"}"), 0);
    cr_assert_eq(c.timeout_ms, WG_KVARK_TIMEOUT_DEFAULT_MS);
    wg_kvark_config_clear(&c);
}

Test(kvark_config, reference_2_1_invalid_values_are_refused_without_quoting_them)
{
    static const char *const bad[] = {
        "", "not json", "[]", "\"https://kvark\"",
        "{\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\"}",
        "{\"baseUrl\":\"\",\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"\"}",
        "{\"baseUrl\":1,\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":[],\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":null}",
        /* this project's rules */
        "{\"baseUrl\":\"ftp://k\",\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"kvark:8000\",\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://u:secretpw@k\",\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k/?x=1\",\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k/#f\",\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"///\",\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"a\\r\\nX-Evil: 1\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\\u0000q\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\",\"timeoutMs\":0}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\",\"timeoutMs\":-5}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\",\"timeoutMs\":1.5}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\",\"timeoutMs\":300001}",
        "{\"baseUrl\":\"https://k\",\"baseUrl\":\"https://j\",\"identifier\":\"i\",\"password\":\"p\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wg_kvark_config c;
        cr_assert_eq(parse(&c, bad[i]), WG_EINVAL, "accepted %s", bad[i]);
        cr_assert_null(c.base_url);
        cr_assert_null(strstr(wg_error_last(), "secretpw"), "%s", wg_error_last());
    }
}

Test(kvark_config, bounds_of_the_value_and_its_fields)
{
    /* timeoutMs at the edges */
    wg_kvark_config c;
    cr_assert_eq(parse(&c, "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\","
                           "\"timeoutMs\":300000}"), 0);
    wg_kvark_config_clear(&c);
    cr_assert_eq(parse(&c, "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\","
                           "\"timeoutMs\":1}"), 0);
    wg_kvark_config_clear(&c);
    /* a field of WG_KVARK_FIELD_MAX - 1, N, N + 1 bytes */
    for (int n = WG_KVARK_FIELD_MAX - 1; n <= WG_KVARK_FIELD_MAX + 1; n++) {
        char *pw = malloc((size_t)n + 1);
        memset(pw, 'p', (size_t)n);
        pw[n] = 0;
        char *text = NULL;
        cr_assert(asprintf(&text, "{\"baseUrl\":\"https://k\",\"identifier\":\"i\","
                                  "\"password\":\"%s\"}", pw) > 0);
        int rc = parse(&c, text);
        cr_assert_eq(rc, n <= WG_KVARK_FIELD_MAX ? 0 : WG_EINVAL, "n=%d", n);
        wg_kvark_config_clear(&c);
        free(text);
        free(pw);
    }
    /* the whole value: N + 1 bytes is refused before it is parsed */
    char *big = malloc(WG_KVARK_CONNECTION_MAX + 2);
    memset(big, ' ', WG_KVARK_CONNECTION_MAX + 1);
    big[WG_KVARK_CONNECTION_MAX + 1] = 0;
    const char *obj = "{\"baseUrl\":\"https://k\",\"identifier\":\"i\",\"password\":\"p\"}";
    memcpy(big, obj, strlen(obj));
    cr_assert_eq(wg_kvark_config_parse(&c, big, WG_KVARK_CONNECTION_MAX), 0, "%s", wg_error_last());
    wg_kvark_config_clear(&c);
    cr_assert_eq(wg_kvark_config_parse(&c, big, WG_KVARK_CONNECTION_MAX + 1), WG_EINVAL);
    free(big);
    /* deep nesting is JSON jansson refuses, not a crash */
    char *deep = malloc(200001);
    memset(deep, '[', 200000);
    deep[200000] = 0;
    cr_assert_eq(wg_kvark_config_parse(&c, deep, 10000), WG_EINVAL);
    free(deep);
}

Test(kvark_tools, spec_9_parse_search_results_attribution)
{
    json_t *resp = json_loads("{\"results\":[{\"document_id\":1,\"title\":\"Project Status Update\","
                              "\"snippet\":\"s1\",\"score\":0.5,\"document_type\":\"pdf\"},"
                              "{\"document_id\":2,\"title\":\"Architecture Decision Records\","
                              "\"snippet\":\"s2\",\"score\":0.25,\"document_type\":null},"
                              "\"junk\",{\"title\":\"no id\"}],\"total\":2,\"query\":\"q\"}", 0, NULL);
    json_t *out = NULL;
    cr_assert_eq(wg_kvark_parse_search_results(&out, resp), 0);
    cr_assert_eq(json_array_size(out), 2);
    json_t *a = json_array_get(out, 0), *b = json_array_get(out, 1);
    cr_assert_str_eq(json_string_value(json_object_get(a, "attribution")),
                     "[KVARK: pdf: Project Status Update]");
    cr_assert_str_eq(json_string_value(json_object_get(b, "attribution")),
                     "[KVARK: Architecture Decision Records]");
    cr_assert_str_eq(json_string_value(json_object_get(a, "content")), "s1");
    cr_assert_eq(json_integer_value(json_object_get(a, "documentId")), 1);
    cr_assert_str_eq(json_string_value(json_object_get(a, "documentType")), "pdf");
    cr_assert(json_is_null(json_object_get(b, "documentType")));
    cr_assert_float_eq(json_real_value(json_object_get(b, "score")), 0.25, 1e-9);
    json_decref(out);
    json_decref(resp);
    json_t *none = json_loads("{\"total\":0}", 0, NULL);
    cr_assert_eq(wg_kvark_parse_search_results(&out, none), WG_EINVAL);
    json_decref(none);
}

Test(kvark_tools, spec_9_five_error_kinds_have_their_friendly_texts)
{
    static const struct {
        wg_kvark_error_kind kind;
        const char *op, *name, *text;
    } rows[] = {
        { WG_KVARK_ERR_UNAVAILABLE, "search", "KvarkUnavailableError",
          "KVARK is not reachable. Using workspace memory only. Configure KVARK connection in Settings." },
        { WG_KVARK_ERR_AUTH, "action", "KvarkAuthError",
          "KVARK authentication failed. Check KVARK credentials in Settings." },
        { WG_KVARK_ERR_NOT_IMPLEMENTED, "ask", "KvarkNotImplementedError",
          "Document Q&A is not yet available on this KVARK instance. Use kvark_search to find relevant documents instead." },
        { WG_KVARK_ERR_NOT_IMPLEMENTED, "feedback", "KvarkNotImplementedError",
          "Feedback is not yet available on this KVARK instance. This is non-blocking — continue normally." },
        { WG_KVARK_ERR_NOT_IMPLEMENTED, "action", "KvarkNotImplementedError",
          "Governed actions are not yet available on this KVARK instance. The action was not executed." },
        { WG_KVARK_ERR_NOT_IMPLEMENTED, "search", "KvarkNotImplementedError",
          "This KVARK feature is not yet available." },
        { WG_KVARK_ERR_NOT_FOUND, "ask", "KvarkNotFoundError",
          "Document not found. The document may have been removed or the ID may be incorrect." },
        { WG_KVARK_ERR_NOT_FOUND, "search", "KvarkNotFoundError",
          "The requested resource was not found in KVARK." },
        { WG_KVARK_ERR_SERVER, "search", "KvarkServerError",
          "KVARK server error: boom. Try again in a moment." },
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        wg_kvark_error e = { rows[i].kind, 500, -1, "boom" };
        char *t = NULL;
        cr_assert_eq(wg_kvark_friendly(&t, &e, rows[i].op), 0);
        cr_assert_str_eq(t, rows[i].text);
        cr_assert_str_eq(wg_kvark_error_name(rows[i].kind), rows[i].name);
        free(t);
    }
    size_t n = 0;
    const wg_kvark_tool_def *d = wg_kvark_tool_defs(&n);
    cr_assert_eq(n, 4);
    const char *order[] = { "kvark_search", "kvark_feedback", "kvark_action", "kvark_ask_document" };
    for (size_t i = 0; i < n; i++) {
        cr_assert_str_eq(d[i].name, order[i]);
        json_t *p = json_loads(d[i].parameters, 0, NULL);
        cr_assert(json_is_object(p), "%s", d[i].name);
        json_decref(p);
        cr_assert(wg_kvark_is_tool(order[i]));
    }
    cr_assert_not(wg_kvark_is_tool("kvark_delete"));
}

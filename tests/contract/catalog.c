/* catalog.c - GET /api/catalog/search and /api/catalog/categories (spec 4,
 * 12) against a real waggled. */
#include <criterion/criterion.h>

#include "server_test.h"

#include <string.h>

static wgt_server s;

static void setup(void)
{
    wgt_server_start(&s, NULL);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(catalog, .init = setup, .fini = teardown);

Test(catalog, search_postgres_top_hit_and_limit)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/catalog/search?q=postgres&limit=3", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *m = json_object_get(r.json, "matches");
    cr_assert_leq(json_array_size(m), 3);
    cr_assert(strstr(json_string_value(json_object_get(json_array_get(m, 0), "id")), "postgres"));
    cr_assert(json_is_integer(json_object_get(r.json, "catalogSize")));
    wgt_http_res_free(&r);
}

Test(catalog, search_no_match_has_hint)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/catalog/search?q=zzzzqqq", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "matchCount")), 0);
    cr_assert(json_is_string(json_object_get(r.json, "hint")));
    wgt_http_res_free(&r);
}

Test(catalog, search_bad_inputs_are_400_naming_the_field)
{
    static const struct { const char *path, *field; } cases[] = {
        { "/api/catalog/search", "q" },
        { "/api/catalog/search?q=", "q" },
        { "/api/catalog/search?q=x&category=Nope", "category" },
        { "/api/catalog/search?q=x&limit=ten", "limit" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wgt_http_res r;
        wgt_http(&r, &s, "GET", cases[i].path, NULL);
        cr_expect_eq(r.status, 400, "%s", cases[i].path);
        cr_expect_str_eq(json_string_value(json_object_get(r.json, "field")), cases[i].field);
        wgt_http_res_free(&r);
    }
}

Test(catalog, search_category_filter_and_invalid_utf8_query)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/catalog/search?q=chat&category=communication", NULL);
    cr_assert_eq(r.status, 200);
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(r.json, "matches"), i, m)
        cr_assert_str_eq(json_string_value(json_object_get(m, "category")), "Communication");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/catalog/search?q=%ff%fe", NULL);
    cr_assert(r.status == 200 || r.status == 400);
    cr_assert_not_null(r.json);
    wgt_http_res_free(&r);
}

Test(catalog, categories_lists_all_14_in_order)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/catalog/categories", NULL);
    cr_assert_eq(r.status, 200);
    json_t *c = json_object_get(r.json, "categories");
    cr_assert_eq(json_array_size(c), 14);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "category")), "Database");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 13), "category")), "Utilities");
    wgt_http_res_free(&r);
}

/* router.c - route matching, parameters, Allow lists, parameter checks
 * (src/server/router.c). Pure. */
#include <criterion/criterion.h>

#include "server/server_int.h"

#include <string.h>

static int fn(wg_res *res, const wg_req *req)
{
    (void)res;
    (void)req;
    return 0;
}

static const wg_http_route rows[] = {
    { WG_HTTP_GET,  "/api/connectors",            fn, WG_ROUTE_FREE, 0 },
    { WG_HTTP_GET,  "/api/connectors/:id/health", fn, WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/connectors/:id/connect", fn, WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/personas",              fn, WG_ROUTE_PRO,  0 },
    { WG_HTTP_GET,  "/api/personas",              fn, WG_ROUTE_FREE, 0 },
};
static wg_route_entry entries[5];
static wg_route_table table = { entries, 5 };

static void setup(void)
{
    for (size_t i = 0; i < 5; i++)
        entries[i].route = &rows[i];
}

TestSuite(router, .init = setup);

Test(router, param_segment_matches_and_is_copied)
{
    wg_route_match m;
    char scratch[128];
    wg_route__match(&m, &table, WG_HTTP_GET, "/api/connectors/github/health", scratch);
    cr_assert_not_null(m.entry);
    cr_assert_eq(m.entry->route, &rows[1]);
    cr_assert_eq(m.n_params, 1);
    cr_assert_str_eq(m.param_value[0], "github");
    cr_assert_eq(strncmp(m.param_name[0], "id", 2), 0);
}

Test(router, wrong_method_gives_allow_mask)
{
    wg_route_match m;
    char scratch[128];
    wg_route__match(&m, &table, WG_HTTP_DELETE, "/api/personas", scratch);
    cr_assert_null(m.entry);
    cr_assert_eq(m.allow, WG_HTTP_GET | WG_HTTP_POST);
    char allow[64];
    wg_http__allow_list(allow, sizeof allow, m.allow);
    cr_assert_str_eq(allow, "GET, POST");
}

Test(router, trailing_slash_and_extra_segments_do_not_match)
{
    static const char *const paths[] = { "/api/connectors/", "/api/connectors//health",
                                         "/api/connectors/a/b/health", "/api", "/",
                                         "/api/connectorsX" };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        wg_route_match m;
        char scratch[128];
        wg_route__match(&m, &table, WG_HTTP_GET, paths[i], scratch);
        cr_assert_null(m.entry, "%s matched", paths[i]);
        cr_assert_eq(m.allow, 0, "%s allow", paths[i]);
    }
}

Test(router, param_check_refuses_traversal_and_bad_bytes)
{
    cr_assert(wg_route__param_ok("github"));
    cr_assert(wg_route__param_ok("my.plugin-1"));
    cr_assert(wg_route__param_ok("caf\xc3\xa9"));
    cr_assert_not(wg_route__param_ok(".."));
    cr_assert_not(wg_route__param_ok("."));
    cr_assert_not(wg_route__param_ok(""));
    cr_assert_not(wg_route__param_ok("a\\b"));
    cr_assert_not(wg_route__param_ok("a/b"));
    cr_assert_not(wg_route__param_ok("a\nb"));
    cr_assert_not(wg_route__param_ok("\xff\xfe"));
    cr_assert_not(wg_route__param_ok("\xc0\xaf"));          /* overlong '/' */
    cr_assert_not(wg_route__param_ok("\xed\xa0\x80"));      /* surrogate */
}

Test(router, method_names_round_trip)
{
    cr_assert_eq(wg_http__method_parse("PATCH"), WG_HTTP_PATCH);
    cr_assert_eq(wg_http__method_parse("patch"), 0);
    cr_assert_eq(wg_http__method_parse("OPTIONS"), 0);
    cr_assert_str_eq(wg_http__method_name(WG_HTTP_DELETE), "DELETE");
}

Test(router, real_table_builds_without_duplicates)
{
    wg_route_table t;
    cr_assert_eq(wg_route__table_build(&t), 0);
    cr_assert_gt(t.n, 0);
    wg_route__table_free(&t);
}

/* catalog_limit.c - `waggle catalog search --limit N` accepts exactly what
 * its help says, 1..30 (issue 11 section 6: 0 and -1 were accepted). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "wgtest.h"

static int search_with_limit(wgt_result *r, const char *limit)
{
    const char *argv[] = { "catalog", "search", "--limit", limit, "vector", "search", NULL };
    cr_assert_eq(wgt_run_cli(r, NULL, NULL, argv), 0);
    return r->status;
}

Test(cli_catalog_limit, out_of_range_exits_2_with_the_range)
{
    static const char *const bad[] = { "0", "-1", "31", "-30", "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wgt_result r;
        cr_expect_eq(search_with_limit(&r, bad[i]), 2, "--limit %s -> %d", bad[i], r.status);
        cr_expect_not_null(strstr(r.err, "1..30"), "--limit %s: %s", bad[i], r.err);
        wgt_result_free(&r);
    }
}

Test(cli_catalog_limit, bounds_1_2_29_30_are_accepted)
{
    static const char *const good[] = { "1", "2", "29", "30" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        wgt_result r;
        cr_expect_eq(search_with_limit(&r, good[i]), 0, "--limit %s -> %d: %s", good[i], r.status,
                     r.err);
        wgt_result_free(&r);
    }
}

/* connectors.c - `waggle connectors` usage defects of issue 11 section 6:
 * a numeric setting that is not a number exits 2 with a message (the
 * library refuses it, so the service agrees), and the help's example can be
 * copied as it is. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "wgtest.h"

static char *dir;

static void setup(void) { dir = wgt_tmpdir(); }
static void teardown(void)
{
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(cli_connectors, .init = setup, .fini = teardown);

static int run_set(wgt_result *r, const char *setting)
{
    const char *argv[] = { "--data-dir", dir, "connectors", "set", "email", setting, NULL };
    cr_assert_eq(wgt_run_cli(r, NULL, NULL, argv), 0);
    return r->status;
}

Test(cli_connectors, set_max_daily_abc_exits_2_with_a_message)
{
    static const char *const bad[] = { "max_daily=abc", "max_daily=", "max_daily=0",
                                       "max_daily=-1", "max_daily=1000001", "max_daily=5x" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wgt_result r;
        cr_expect_eq(run_set(&r, bad[i]), 2, "%s -> %d: %s", bad[i], r.status, r.err);
        cr_expect_not_null(strstr(r.err, "max_daily must be a whole number from 1 to 1000000"),
                           "%s: %s", bad[i], r.err);
        wgt_result_free(&r);
    }
}

Test(cli_connectors, set_max_daily_in_bounds_exits_0)
{
    static const char *const good[] = { "max_daily=1", "max_daily=250", "max_daily=1000000" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        wgt_result r;
        cr_expect_eq(run_set(&r, good[i]), 0, "%s -> %d: %s", good[i], r.status, r.err);
        wgt_result_free(&r);
    }
}

Test(cli_connectors, help_example_printf_is_copyable)
{
    const char *argv[] = { "connectors", "--help", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert_eq(r.status, 0);
    cr_assert_null(strstr(r.out, "%%"), "help shows a doubled %%: %s", r.out);
    cr_assert_not_null(strstr(r.out, "printf '%s\\n' \"$GITHUB_TOKEN\" | waggle connectors connect github"),
                       "%s", r.out);
    wgt_result_free(&r);
}

/* Tests for `waggle audit` and `waggle audit verify` (issue #5). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/store.h"
#include "wgtest.h"

static char *dir;

static void setup(void) { dir = wgt_tmpdir(); }
static void teardown(void) { wgt_rmtree(dir); free(dir); }

TestSuite(cli_audit, .init = setup, .fini = teardown);

static wgt_result run(const char *a1, const char *a2, const char *a3)
{
    const char *argv[] = { "--data-dir", dir, "audit", a1, a2, a3, NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    return r;
}

static void tier_changes(void)
{
    static const char *const tiers[] = { "pro", "teams", "free" };
    for (int i = 0; i < 3; i++) {
        const char *argv[] = { "--data-dir", dir, "tier", "set", tiers[i], NULL };
        wgt_result r;
        cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
        cr_assert_eq(r.status, 0, "%s", r.err);
        wgt_result_free(&r);
    }
}

Test(cli_audit, empty_log_verifies)
{
    wgt_result r = run("verify", NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "intact: 0 rows"));
    wgt_result_free(&r);
}

Test(cli_audit, list_filters_and_limits)
{
    tier_changes();
    wgt_result r = run("--limit", "2", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "#3"));
    cr_assert(strstr(r.out, "#2"));
    cr_assert_null(strstr(r.out, "#1 "));
    wgt_result_free(&r);
    r = run("--event", "tier_changed", "--json");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "\"to\": \"TEAMS\""), "%s", r.out);
    wgt_result_free(&r);
    r = run("--limit", "zero", NULL);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
}

Test(cli_audit, verify_names_first_edited_row)
{
    tier_changes();
    wg_store *st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_store_exec(st, "UPDATE audit_log SET actor = 'mallory' WHERE id = 2",
                               NULL, 0, NULL, NULL), 0);
    wg_store_free(st);
    wgt_result r = run("verify", NULL, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "row 2"), "%s", r.err);
    wgt_result_free(&r);
    r = run("verify", "--json", NULL);
    cr_assert(strstr(r.out, "\"firstBadId\":2"), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_audit, bad_action_exits_2)
{
    wgt_result r = run("nonsense", NULL, NULL);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
    r = run("verify", "--limit", "3");
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
}

/* Issue 11 section 6: the extra word is the one to blame, not "verify". */
Test(cli_audit, verify_extra_word_is_blamed)
{
    wgt_result r = run("verify", "extra", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "'extra'"), "%s", r.err);
    cr_assert_null(strstr(r.err, "'verify'"), "%s", r.err);
    wgt_result_free(&r);
    r = run("reanchor", "now", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "'now'"), "%s", r.err);
    wgt_result_free(&r);
}

static void sql_on(const char *q)
{
    wg_store *st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_store_exec(st, q, NULL, 0, NULL, NULL), 0);
    wg_store_free(st);
}

Test(cli_audit, verify_names_missing_newest_rows_and_reanchor_recovers)
{
    tier_changes();
    sql_on("DELETE FROM audit_log WHERE id = 3");
    wgt_result r = run("verify", NULL, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "the newest row is missing: the anchor says count 3, head "), "%s", r.err);
    wgt_result_free(&r);
    r = run("verify", "--json", NULL);
    cr_assert(strstr(r.out, "\"firstBadId\":3"), "%s", r.out);
    cr_assert(strstr(r.out, "\"anchorRows\":3"), "%s", r.out);
    wgt_result_free(&r);
    /* Nothing more is appended until the operator has looked. */
    const char *tier[] = { "--data-dir", dir, "tier", "set", "pro", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, tier), 0);
    cr_assert(strstr(r.err, "does not match its sealed anchor"), "%s", r.err);
    wgt_result_free(&r);
    r = run("reanchor", NULL, NULL);
    cr_assert_eq(r.status, 3, "reanchor gives up evidence: it needs --yes");
    wgt_result_free(&r);
    r = run("reanchor", "--yes", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "recorded as row #3"), "%s", r.out);
    wgt_result_free(&r);
    r = run("verify", NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "intact: 3 rows, sealed head "), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_audit, reanchor_refuses_an_edited_log)
{
    tier_changes();
    sql_on("UPDATE audit_log SET rule = 'forged' WHERE id = 1");
    wgt_result r = run("reanchor", "--yes", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "row 1"), "%s", r.err);
    wgt_result_free(&r);
}

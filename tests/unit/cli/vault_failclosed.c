/* Commands that reveal a secret fail closed when its audit row cannot be
 * written (issue 11 section 3): `waggle vault get` and `waggle pool next
 * --reveal` print nothing and exit 1, as the service does. Before the fix
 * both printed the secret and only warned.
 *
 * The failure is injected the way tests/unit/store/faults.c does it, one
 * statement failing on purpose, here inside the CLI's own process: a
 * trigger makes the INSERT into audit_log fail. The second case is the
 * real one: a log that no longer matches its anchor refuses appends. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/store.h"
#include "wgtest.h"

static char *dir;

static wgt_result run(const char *in, const char *a1, const char *a2, const char *a3,
                      const char *a4)
{
    const char *argv[] = { "--data-dir", dir, a1, a2, a3, a4, NULL };
    static const char *const env[] = { "WAGGLE_VAULT_PASSPHRASE=", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, in, env, argv), 0);
    return r;
}

static void sql_on(const char *q)
{
    wg_store *st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_store_exec(st, q, NULL, 0, NULL, NULL), 0, "%s", q);
    wg_store_free(st);
}

static void setup(void)
{
    dir = wgt_tmpdir();
    wgt_result r = run("sk-very-secret-1", "vault", "set", "openai", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
}

static void teardown(void) { wgt_rmtree(dir); free(dir); }

TestSuite(cli_failclosed, .init = setup, .fini = teardown);

static const char FAIL_TRIGGER[] =
    "CREATE TRIGGER inject_audit_failure BEFORE INSERT ON audit_log"
    " BEGIN SELECT RAISE(ABORT, 'injected failure'); END";

static void assert_nothing_shown(wgt_result *r, const char *what)
{
    cr_assert_eq(r->status, 1, "%s", r->err);
    cr_assert_str_eq(r->out, "", "nothing on stdout");
    cr_assert_null(strstr(r->err, "sk-very-secret"), "not on stderr either");
    cr_assert(strstr(r->err, what), "%s", r->err);
}

Test(cli_failclosed, vault_get_prints_nothing_when_the_audit_insert_fails)
{
    sql_on(FAIL_TRIGGER);
    wgt_result r = run(NULL, "vault", "get", "openai", NULL);
    assert_nothing_shown(&r, "not showing the value: its vault_read audit row could not be written");
    cr_assert(strstr(r.err, "injected failure"), "%s", r.err);
    wgt_result_free(&r);
    sql_on("DROP TRIGGER inject_audit_failure");
    r = run(NULL, "vault", "get", "openai", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "sk-very-secret-1");
    wgt_result_free(&r);
}

Test(cli_failclosed, vault_get_prints_nothing_when_the_log_lost_its_newest_row)
{
    sql_on("DELETE FROM audit_log WHERE id = (SELECT MAX(id) FROM audit_log)");
    wgt_result r = run(NULL, "vault", "get", "openai", NULL);
    assert_nothing_shown(&r, "does not match its sealed anchor");
    wgt_result_free(&r);
}

Test(cli_failclosed, pool_reveal_prints_nothing_when_the_audit_insert_fails)
{
    sql_on(FAIL_TRIGGER);
    wgt_result r = run(NULL, "pool", "next", "openai", "--reveal");
    assert_nothing_shown(&r, "not showing the key: its pool_key_revealed audit row");
    wgt_result_free(&r);
    r = run(NULL, "pool", "next", "openai", NULL);
    cr_assert_eq(r.status, 0, "without --reveal nothing secret is shown: %s", r.err);
    cr_assert_str_eq(r.out, "openai\n");
    wgt_result_free(&r);
}

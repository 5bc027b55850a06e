/* Failure paths of the store's users (STYLE §12): a back end that fails its
 * N-th statement on purpose, plugged in through the back-end function table.
 * After each injected failure nothing half-written remains: the audit chain
 * is intact with no extra row, pool state is unchanged, a connector delete
 * removes nothing, a failed migration leaves a store that opens cleanly. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/audit.h"
#include "waggle/error.h"
#include "waggle/pool.h"
#include "waggle/store.h"
#include "waggle/sys/store.h"
#include "waggle/vault.h"
#include "wgtest.h"

static long calls, fail_at;    /* per test process (Criterion forks) */

static int f_open(void **db, const char *t) { return wg_store_sqlite_backend()->open(db, t); }
static void f_close(void *db) { wg_store_sqlite_backend()->close(db); }
static int f_begin(void *db, wg_store_tx k) { return wg_store_sqlite_backend()->begin(db, k); }
static int f_commit(void *db) { return wg_store_sqlite_backend()->commit(db); }
static int f_rollback(void *db) { return wg_store_sqlite_backend()->rollback(db); }

static int f_exec(void *db, const char *sql, const wg_store_value *p, size_t n,
                  wg_store_rows **rows, int64_t *changes)
{
    if (++calls == fail_at)
        return wg_error_set(WG_ESTORE, "injected failure");
    return wg_store_sqlite_backend()->exec(db, sql, p, n, rows, changes);
}

static const wg_store_backend faulty = {
    WG_STORE_BACKEND_VERSION, "faulty", "BLOB", f_open, f_close, f_exec, f_begin, f_commit, f_rollback,
};

static char *dir;
static wg_store *st;

static void open_store(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/waggle.db", dir);
    cr_assert_eq(wg_store_open_backend(&st, &faulty, path, dir), 0, "%s", wg_error_last());
}

static void setup(void)
{
    dir = wgt_tmpdir();
    calls = fail_at = 0;
    open_store();
}

static void teardown(void)
{
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(faults, .init = setup, .fini = teardown);

/* Drops the store and its dir for a new, empty one; path = its waggle.db. */
static void fresh_dir(char *path, size_t cap)
{
    wg_store_free(st);
    st = NULL;
    wgt_rmtree(dir);
    free(dir);
    dir = wgt_tmpdir();
    snprintf(path, cap, "%s/waggle.db", dir);
    calls = 0;
}

static int64_t count(const char *sql)
{
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, sql, NULL, 0, &rows, NULL), 0);
    int64_t n = wg_store_rows_int(rows, 0, 0);
    wg_store_rows_free(rows);
    return n;
}

Test(faults, audit_append_failure_leaves_chain_intact)
{
    wg_audit *a = NULL;
    cr_assert_eq(wg_audit_open(&a, st, NULL), 0);
    wg_audit_record r = { .event = "approval_granted", .actor = "t" };
    cr_assert_eq(wg_audit_append(a, &r, NULL), 0);
    /* 1: reading the anchor, 2: the head, 3: the insert, 4: moving the
     * anchor. A failure at 4 must take the inserted row with it: a row the
     * anchor does not cover would make a valid log look tampered. */
    for (long k = 1; k <= 4; k++) {
        fail_at = calls + k;
        cr_assert_eq(wg_audit_append(a, &r, NULL), WG_ESTORE, "step %ld", k);
        fail_at = 0;
        cr_assert_eq(count("SELECT COUNT(*) FROM audit_log"), 1);
        cr_assert_eq(count("SELECT row_count FROM audit_anchor"), 1, "step %ld", k);
        wg_audit_verify_result res;
        cr_assert_eq(wg_audit_verify(&res, a), 0);
        cr_assert_eq(res.ok, 1, "step %ld: %s", k, res.reason);
    }
    cr_assert_eq(wg_audit_append(a, &r, NULL), 0, "no transaction left open: %s", wg_error_last());
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, a), 0);
    cr_assert_eq(res.ok, 1);
    cr_assert_eq(res.rows, 2);
    wg_audit_free(a);
}

Test(faults, pool_failure_leaves_state_unchanged)
{
    wg_pool *p = NULL;
    cr_assert_eq(wg_pool_new(&p, "prov", st, NULL), 0);
    wg_pool_add(p, "a", "k1");
    wg_pool_add(p, "b", "k2");
    const char *k = NULL;
    cr_assert_eq(wg_pool_get_key(p, &k, NULL), 0);     /* creates the rows */
    for (long step = 1; step <= 3; step++) {
        fail_at = calls + step;
        cr_assert_eq(wg_pool_report_error(p, "k1", 429, NULL, -1, NULL), WG_ESTORE, "step %ld", step);
        fail_at = 0;
        cr_assert_eq(count("SELECT COUNT(*) FROM pool_entries WHERE status = 'cooldown'"), 0);
        cr_assert_eq(count("SELECT SUM(error_count) FROM pool_entries"), 0);
    }
    cr_assert_eq(wg_pool_get_key(p, &k, NULL), 0);
    cr_assert_str_eq(k, "k2", "rotation continues where it was");
    wg_pool_free(p);
}

Test(faults, connector_delete_failure_removes_nothing)
{
    unsigned char key[32] = { 3 };
    wg_vault *v = NULL;
    cr_assert_eq(wg_vault_open_key(&v, st, key), 0);
    wg_vault_credential_input in = { .value = "tok-1", .refresh_token = "ref-1" };
    cr_assert_eq(wg_vault_set_connector_credential(v, "slack", &in), 0);
    fail_at = calls + 3;                  /* list, first delete, second delete */
    char **names = NULL;
    size_t n = 99;
    cr_assert_eq(wg_vault_delete_connector(v, "slack", &names, &n), WG_ESTORE);
    fail_at = 0;
    cr_assert_eq(wg_vault_has(v, "connector:slack"), 1, "rolled back");
    cr_assert_eq(wg_vault_has(v, "connector:slack:refresh"), 1);
    cr_assert_eq(wg_vault_delete_connector(v, "slack", &names, &n), 0);
    cr_assert_eq(n, 2);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    wg_vault_free(v);
}

Test(faults, failed_migration_reopens_cleanly)
{
    char path[4200];
    fresh_dir(path, sizeof path);
    fail_at = 4;                          /* in the middle of migration 1 */
    cr_assert_eq(wg_store_open_backend(&st, &faulty, path, dir), WG_ESTORE);
    cr_assert_null(st);
    fail_at = 0;
    open_store();
    cr_assert_geq(wg_store_schema_version(st), 4);
    /* every migration once (versions need not be contiguous: 1, 2, 4) */
    cr_assert_eq(count("SELECT COUNT(*) FROM schema_version"),
                 count("SELECT COUNT(DISTINCT version) FROM schema_version"));
    cr_assert_geq(count("SELECT COUNT(*) FROM schema_version"), 3);
}

Test(faults, failed_migration_2_rolls_back_and_retries)
{
    char path[4200];
    fresh_dir(path, sizeof path);
    /* 1-2 schema_version, 3-8 migration 1, 9 its version row, 10 the seal
     * column, 11 the anchor table, 12 the anchor row: all one transaction. */
    fail_at = 12;
    cr_assert_eq(wg_store_open_backend(&st, &faulty, path, dir), WG_ESTORE);
    fail_at = 0;
    open_store();
    cr_assert_geq(wg_store_schema_version(st), 2);
    cr_assert_eq(count("SELECT COUNT(*) FROM audit_anchor"), 1, "the anchor row exists once");
    wg_audit *a = NULL;
    cr_assert_eq(wg_audit_open(&a, st, NULL), 0, "%s", wg_error_last());
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, a), 0);
    cr_assert_eq(res.ok, 1, "%s", res.reason);
    wg_audit_free(a);
}

Test(faults, verify_pages_through_long_chains)
{
    wg_audit *a = NULL;
    cr_assert_eq(wg_audit_open(&a, st, NULL), 0);
    cr_assert_eq(wg_store_begin(st, WG_STORE_TX_WRITE), 0);
    cr_assert_eq(wg_store_commit(st), 0);
    for (int i = 0; i < 1101; i++) {
        wg_audit_record r = { .event = "approval_auto" };
        cr_assert_eq(wg_audit_append(a, &r, NULL), 0);
    }
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, a), 0);
    cr_assert_eq(res.rows, 1101);
    cr_assert_eq(wg_store_exec(st, "UPDATE audit_log SET event = 'approval_denied' WHERE id = 1050",
                               NULL, 0, NULL, NULL), 0);
    cr_assert_eq(wg_audit_verify(&res, a), 0);
    cr_assert_eq(res.first_bad_id, 1050);
    cr_assert_eq(res.rows, 1049);
    wg_audit_free(a);
}

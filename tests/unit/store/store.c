/* Tests for the storage interface and its SQLite back end (waggle/store.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "waggle/error.h"
#include "waggle/store.h"
#include "wgtest.h"

static char *dir;
static wg_store *st;

static void setup(void)
{
    dir = wgt_tmpdir();
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
}

static void teardown(void)
{
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(store, .init = setup, .fini = teardown);

Test(store, opens_at_current_schema_in_wal)
{
    cr_assert_geq(wg_store_schema_version(st), 4, "2 = the audit anchor, 4 = lease locks");
    cr_assert_str_eq(wg_store_data_dir(st), dir);
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "PRAGMA journal_mode", NULL, 0, &rows, NULL), 0);
    cr_assert_str_eq(wg_store_rows_text(rows, 0, 0), "wal");
    wg_store_rows_free(rows);
}

Test(store, reopen_does_not_rerun_migrations)
{
    wg_store_free(st);
    cr_assert_eq(wg_store_open(&st, dir), 0);
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT COUNT(*) FROM schema_version", NULL, 0, &rows, NULL), 0);
    cr_assert_geq(wg_store_rows_int(rows, 0, 0), 3, "migrations 1, 2 and 4 at least");
    wg_store_rows_free(rows);
    rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT COUNT(DISTINCT version) - COUNT(*) FROM schema_version",
                               NULL, 0, &rows, NULL), 0);
    cr_assert_eq(wg_store_rows_int(rows, 0, 0), 0, "one row per migration, each run once");
    wg_store_rows_free(rows);
}

Test(store, params_and_types_roundtrip)
{
    wg_store_value p[2] = { WG_SV_TEXT("k"), WG_SV_TEXT("v1") };
    cr_assert_eq(wg_store_setting_set(st, "k", "v1"), 0);
    cr_assert_eq(wg_store_setting_set(st, "k", "v2"), 0);
    char *v = NULL;
    cr_assert_eq(wg_store_setting_get(&v, st, "k"), 0);
    cr_assert_str_eq(v, "v2");
    free(v);
    cr_assert_eq(wg_store_setting_get(&v, st, "absent"), WG_ENOTFOUND);
    (void)p;
    unsigned char blob[3] = { 0, 1, 2 };
    wg_store_value q[4] = { WG_SV_INT(-42), WG_SV_BLOB(blob, 3), WG_SV_NULL, WG_SV_TEXT(NULL) };
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT ?, ?, ?, ?", q, 4, &rows, NULL), 0);
    cr_assert_eq(wg_store_rows_int(rows, 0, 0), -42);
    size_t n = 0;
    const unsigned char *b = wg_store_rows_blob(rows, 0, 1, &n);
    cr_assert_eq(n, 3);
    cr_assert_eq(b[2], 2);
    cr_assert(wg_store_rows_is_null(rows, 0, 2));
    cr_assert(wg_store_rows_is_null(rows, 0, 3));
    cr_assert_null(wg_store_rows_text(rows, 5, 0), "out of range is NULL");
    wg_store_rows_free(rows);
}

Test(store, bad_sql_is_estore_with_message)
{
    cr_assert_eq(wg_store_exec(st, "SELEKT nothing", NULL, 0, NULL, NULL), WG_ESTORE);
    cr_assert(strstr(wg_error_last(), "syntax"), "%s", wg_error_last());
}

Test(store, rollback_discards_and_nesting_refused)
{
    cr_assert_eq(wg_store_begin(st, WG_STORE_TX_WRITE), 0);
    cr_assert_eq(wg_store_begin(st, WG_STORE_TX_WRITE), WG_EINVAL);
    cr_assert_eq(wg_store_setting_set(st, "tx", "1"), 0);
    cr_assert_eq(wg_store_rollback(st), 0);
    char *v = NULL;
    cr_assert_eq(wg_store_setting_get(&v, st, "tx"), WG_ENOTFOUND);
    cr_assert_eq(wg_store_commit(st), WG_EINVAL, "no open transaction");
}

Test(store, second_connection_sees_committed_writes)
{
    /* Another connection waits for the write lock (busy timeout) instead of
     * failing at once: it succeeds after we commit. */
    wg_store *other = NULL;
    cr_assert_eq(wg_store_open(&other, dir), 0);
    cr_assert_eq(wg_store_begin(st, WG_STORE_TX_WRITE), 0);
    cr_assert_eq(wg_store_setting_set(st, "a", "1"), 0);
    cr_assert_eq(wg_store_commit(st), 0);
    cr_assert_eq(wg_store_setting_set(other, "b", "2"), 0);
    char *v = NULL;
    cr_assert_eq(wg_store_setting_get(&v, st, "b"), 0);
    free(v);
    wg_store_free(other);
}

Test(store, open_without_dir_is_einval)
{
    wg_store *s = NULL;
    cr_assert_eq(wg_store_open(&s, NULL), WG_EINVAL);
    cr_assert_eq(wg_store_open(&s, "/nonexistent/dir/x"), WG_EIO);
    wg_store_free(NULL);
}

/* Issue 11 section 5: a FIFO planted as waggle.db is an error, never a
 * hang (SQLite would block reading it); a readable database is made
 * private. */
Test(store, fifo_as_database_is_an_error_not_a_hang, .timeout = 20)
{
    char *d = wgt_tmpdir();
    char p[4200];
    snprintf(p, sizeof p, "%s/waggle.db", d);
    cr_assert_eq(mkfifo(p, 0600), 0);
    wg_store *s2 = NULL;
    cr_assert_eq(wg_store_open(&s2, d), WG_EIO);
    cr_assert(strstr(wg_error_last(), "is not a regular file"), "%s", wg_error_last());
    wgt_rmtree(d);
    free(d);
}

Test(store, readable_database_is_made_private)
{
    wg_store_free(st);
    st = NULL;
    char p[4200];
    snprintf(p, sizeof p, "%s/waggle.db", dir);
    cr_assert_eq(chmod(p, 0644), 0);
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600);
}

/* postgres.c - the store's PostgreSQL back end against a real server
 * ($WAGGLE_TEST_PG, started by scripts/test.sh): the same vault, audit
 * chain and pool behaviour as on SQLite, concurrent appenders from several
 * processes keep one chain, and two replicas share pool cooldowns. Each run
 * works in its own schema. Skipped with a message when WAGGLE_TEST_PG is
 * unset. */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "waggle/audit.h"
#include "waggle/error.h"
#include "waggle/pool.h"
#include "waggle/store.h"
#include "waggle/sys/store.h"
#include "waggle/vault.h"
#include "audit_tamper.h"
#include "wgtest.h"

static char conninfo[1024];
static char schema[64];
static char base[900];
static char *dir;               /* this "replica's" data dir (vault.key, audit-witness) */
static wg_store *st;

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static void sql(const char *info, const char *q)
{
    PGconn *c = PQconnectdb(info);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PQsetNoticeProcessor(c, quiet, NULL);
    PGresult *r = PQexec(c, q);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
              "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

static void setup(void)
{
    const char *env = getenv("WAGGLE_TEST_PG");
    if (!env || !*env)
        cr_skip_test("WAGGLE_TEST_PG is not set (scripts/test.sh starts PostgreSQL and sets it)");
    snprintf(base, sizeof base, "%s", env);
    snprintf(schema, sizeof schema, "wgstore_%ld", (long)getpid());
    char q[256];
    snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
    sql(base, q);
    snprintf(conninfo, sizeof conninfo, "%s options='-csearch_path=%s'", base, schema);
    dir = wgt_tmpdir();
    cr_assert_eq(wg_store_open_backend(&st, wg_store_postgres_backend(), conninfo, dir), 0,
                 "%s", wg_error_last());
}

static void teardown(void)
{
    wg_store_free(st);
    st = NULL;
    if (dir) {
        wgt_rmtree(dir);
        free(dir);
        dir = NULL;
    }
    if (*schema && *base) {
        char q[128];
        snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
        sql(base, q);
    }
}

TestSuite(store_pg, .init = setup, .fini = teardown);

Test(store_pg, migrates_once_and_settings_roundtrip)
{
    cr_assert_geq(wg_store_schema_version(st), 4, "2 = audit anchor, 4 = lease locks");
    wg_store *again = NULL;
    cr_assert_eq(wg_store_open_backend(&again, wg_store_postgres_backend(), conninfo, NULL), 0);
    wg_store_free(again);
    cr_assert_eq(wg_store_setting_set(st, "a", "1"), 0);
    cr_assert_eq(wg_store_setting_set(st, "a", "2"), 0);
    char *v = NULL;
    cr_assert_eq(wg_store_setting_get(&v, st, "a"), 0);
    cr_assert_str_eq(v, "2");
    free(v);
}

/* migration 4 on PostgreSQL: the same lease semantics as on SQLite */
Test(store_pg, lease_locks)
{
    const int64_t t0 = 7000000;
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "a", 100, t0), 0, "%s",
                 wg_error_last());
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "b", 100, t0 + 99), WG_EBUSY);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "a", 100, t0 + 99), 0);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "b", 100, t0 + 198), WG_EBUSY);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "b", 100, t0 + 199), 0);
    cr_assert_eq(wg_store_lock_release(st, "oauth-refresh:google", "a"), 0);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "a", 100, t0 + 200), WG_EBUSY);
    cr_assert_eq(wg_store_lock_release(st, "oauth-refresh:google", "b"), 0);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "a", 100, t0 + 201), 0);
}

Test(store_pg, vault_roundtrip_wrong_key_and_moved_ciphertext)
{
    unsigned char key[32] = { 9 }, other[32] = { 8 };
    wg_vault *v = NULL, *w = NULL;
    cr_assert_eq(wg_vault_open_key(&v, st, key), 0, "%s", wg_error_last());
    cr_assert_eq(wg_vault_set(v, "connector:github", "ghp_pg_secret", 13, NULL), 0);
    cr_assert_eq(wg_vault_set(v, "connector:evil", "zzzz", 4, NULL), 0);
    wg_vault_entry *e = NULL;
    cr_assert_eq(wg_vault_get(&e, v, "connector:github"), 0);
    cr_assert_str_eq(e->value, "ghp_pg_secret");
    wg_vault_entry_free(e);
    cr_assert_eq(wg_vault_open_key(&w, st, other), WG_ECRYPTO);
    cr_assert_eq(wg_store_exec(st,
        "UPDATE vault_entries SET nonce = (SELECT nonce FROM vault_entries WHERE name = 'connector:github'),"
        " ciphertext = (SELECT ciphertext FROM vault_entries WHERE name = 'connector:github')"
        " WHERE name = 'connector:evil'", NULL, 0, NULL, NULL), 0);
    cr_assert_eq(wg_vault_get(&e, v, "connector:evil"), WG_ECRYPTO);
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT count(*) FROM vault_entries WHERE"
                               " position('ghp_pg_secret'::bytea in ciphertext) > 0", NULL, 0, &rows, NULL), 0);
    cr_assert_eq(wg_store_rows_int(rows, 0, 0), 0, "no clear text in the table");
    wg_store_rows_free(rows);
    wg_vault_free(v);
}

static const unsigned char replica_key[32] = { 7, 7, 7 };

Test(store_pg, concurrent_appenders_keep_one_chain)
{
    enum { PROCS = 3, EACH = 20 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        if ((pids[p] = fork()) == 0) {
            /* A replica: its own data dir (its own witness), the shared key. */
            wg_store *s2 = NULL;
            wg_vault *v2 = NULL;
            wg_audit *a2 = NULL;
            char *d2 = wgt_tmpdir();
            if (wg_store_open_backend(&s2, wg_store_postgres_backend(), conninfo, d2) < 0 ||
                wg_vault_open_key(&v2, s2, replica_key) < 0 || wg_audit_open(&a2, s2, v2) < 0)
                _exit(10);
            for (int i = 0; i < EACH; i++) {
                wg_audit_record r = { .event = "approval_auto", .actor = "replica" };
                if (wg_audit_append(a2, &r, NULL) < 0)
                    _exit(11);
            }
            wg_audit_verify_result mine;
            if (wg_audit_verify(&mine, a2) < 0 || !mine.ok || mine.witness_rows < EACH)
                _exit(12);   /* this replica's witness lies on the shared chain */
            wg_audit_free(a2);
            wg_vault_free(v2);
            wg_store_free(s2);
            wgt_rmtree(d2);
            free(d2);
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status = 0;
        waitpid(pids[p], &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: %d", p, status);
    }
    wg_vault *v = NULL;
    wg_audit *a = NULL;
    cr_assert_eq(wg_vault_open_key(&v, st, replica_key), 0);
    cr_assert_eq(wg_audit_open(&a, st, v), 0);
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, a), 0);
    cr_assert_eq(res.ok, 1, "%s", res.reason);
    cr_assert_eq(res.rows, PROCS * EACH);
    cr_assert_eq(wg_store_exec(st, "UPDATE audit_log SET rule = 'forged' WHERE id = 7", NULL, 0, NULL, NULL), 0);
    cr_assert_eq(wg_audit_verify(&res, a), 0);
    cr_assert_eq(res.first_bad_id, 7);
    wg_audit_query q = { .event = "approval_*", .limit = 5 };
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, a, &q), 0, "%s", wg_error_last());
    cr_assert_eq(n, 5);
    cr_assert_eq(ev[0].id, PROCS * EACH);
    wg_audit_events_free(ev, n);
    wg_audit_free(a);
    wg_vault_free(v);
}

static int64_t now_ms;
static int64_t clock_fn(void *ctx)
{
    (void)ctx;
    return now_ms;
}

Test(store_pg, replicas_share_pool_cooldowns)
{
    wg_pool_options o = { .version = WG_POOL_OPTIONS_VERSION, .now = clock_fn };
    wg_store *other = NULL;
    cr_assert_eq(wg_store_open_backend(&other, wg_store_postgres_backend(), conninfo, NULL), 0);
    wg_pool *p1 = NULL, *p2 = NULL;
    cr_assert_eq(wg_pool_new(&p1, "anthropic", st, &o), 0);
    cr_assert_eq(wg_pool_new(&p2, "anthropic", other, &o), 0);
    static const char *const names[] = { "a", "b", "c" }, *const keys[] = { "k1", "k2", "k3" };
    for (int i = 0; i < 3; i++) {
        wg_pool_add(p1, names[i], keys[i]);
        wg_pool_add(p2, names[i], keys[i]);
    }
    now_ms = 1000;
    const char *k = NULL;
    cr_assert_eq(wg_pool_get_key(p1, &k, NULL), 0);
    cr_assert_str_eq(k, "k1");
    cr_assert_eq(wg_pool_report_error(p1, "k2", 503, NULL, -1, NULL), 0);
    cr_assert_eq(wg_pool_get_key(p2, &k, NULL), 0, "%s", wg_error_last());
    cr_assert_str_eq(k, "k3", "the other replica skips the cooled key");
    now_ms += 300000;
    cr_assert_eq(wg_pool_get_key(p2, &k, NULL), 0);
    cr_assert_str_eq(k, "k1");
    cr_assert_eq(wg_pool_get_key(p1, &k, NULL), 0);
    cr_assert_str_eq(k, "k2", "recovered after 5 min");
    wg_pool_free(p1);
    wg_pool_free(p2);
    wg_store_free(other);
}

Test(store_pg, cli_uses_database_url)
{
    char *dir = wgt_tmpdir();
    char env[1200];
    snprintf(env, sizeof env, "WAGGLE_DATABASE_URL=%s", conninfo);
    const char *envp[] = { env, "WAGGLE_VAULT_PASSPHRASE=shared by replicas", NULL };
    const char *set[] = { "--data-dir", dir, "vault", "set", "openai", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, "sk-from-pg", envp, set), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    const char *get[] = { "--data-dir", dir, "vault", "get", "openai", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, envp, get), 0);
    cr_assert_str_eq(r.out, "sk-from-pg");
    wgt_result_free(&r);
    char p[4200];
    snprintf(p, sizeof p, "%s/waggle.db", dir);
    cr_assert_neq(access(p, F_OK), 0, "no SQLite file when the database URL is set");
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT count(*) FROM audit_log WHERE event = 'vault_read'",
                               NULL, 0, &rows, NULL), 0);
    cr_assert_eq(wg_store_rows_int(rows, 0, 0), 1);
    wg_store_rows_free(rows);
    wgt_rmtree(dir);
    free(dir);
}

/* ---- anchoring on PostgreSQL (issue 11 section 3): the main tamper
 * cases, as a database user without the vault key would try them. ---- */

static wg_vault *pv;
static wg_audit *pa;

static void open_audit(void)
{
    cr_assert_eq(wg_vault_open_key(&pv, st, replica_key), 0, "%s", wg_error_last());
    cr_assert_eq(wg_audit_open(&pa, st, pv), 0, "%s", wg_error_last());
}

static void close_audit(void)
{
    wg_audit_free(pa);
    wg_vault_free(pv);
    pa = NULL;
    pv = NULL;
}

static void pg_append(int n)
{
    for (int i = 0; i < n; i++) {
        wg_audit_record r = { .event = "vault_read", .actor = "api" };
        cr_assert_eq(wg_audit_append(pa, &r, NULL), 0, "%s", wg_error_last());
    }
}

static wg_audit_verify_result pg_verify(void)
{
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, pa), 0, "%s", wg_error_last());
    return res;
}

static void pg_exec(const char *q)
{
    cr_assert_eq(wg_store_exec(st, q, NULL, 0, NULL, NULL), 0, "%s: %s", q, wg_error_last());
}

Test(store_pg, anchor_detects_deleted_newest_rows_and_emptied_table)
{
    open_audit();
    pg_append(5);
    cr_assert_eq(pg_verify().ok, 1);
    pg_exec("DELETE FROM audit_log WHERE id >= 4");
    wg_audit_verify_result res = pg_verify();
    cr_assert_eq(res.first_bad_id, 4);
    cr_assert(strstr(res.reason, "the newest 2 rows are missing: the anchor says count 5"), "%s", res.reason);
    wg_audit_record r = { .event = "vault_read" };
    cr_assert_eq(wg_audit_append(pa, &r, NULL), WG_ECRYPTO, "appends are refused");
    pg_exec("DELETE FROM audit_log");
    res = pg_verify();
    cr_assert_eq(res.first_bad_id, 1);
    cr_assert(strstr(res.reason, "the newest 5 rows are missing"), "%s", res.reason);
    close_audit();
}

Test(store_pg, anchor_detects_edited_and_rehashed_history)
{
    open_audit();
    pg_append(6);
    pg_exec("UPDATE audit_log SET actor = 'mallory' WHERE id = 2");
    wgt_audit_rehash_from(st, 2);
    wg_audit_verify_result res = pg_verify();
    cr_assert_eq(res.first_bad_id, 2, "%s", res.reason);
    cr_assert(strstr(res.reason, "row 2: its seal does not match"), "%s", res.reason);
    pg_exec("UPDATE audit_anchor SET row_count = 1");
    close_audit();
    open_audit();
    res = pg_verify();
    cr_assert_eq(res.first_bad_id, 2, "the first bad row still wins");
    close_audit();
}

Test(store_pg, witness_detects_wiped_database)
{
    open_audit();
    pg_append(4);
    close_audit();
    wg_store_free(st);
    st = NULL;
    char q[256];
    snprintf(q, sizeof q, "DROP SCHEMA %s CASCADE; CREATE SCHEMA %s", schema, schema);
    sql(base, q);
    cr_assert_eq(wg_store_open_backend(&st, wg_store_postgres_backend(), conninfo, dir), 0);
    open_audit();
    wg_audit_verify_result res = pg_verify();
    cr_assert_eq(res.ok, 0);
    cr_assert(strstr(res.reason, "the newest 4 rows are missing: this data dir witnessed count 4"),
              "%s", res.reason);
    cr_assert_eq(wg_audit_reanchor(pa, "operator", NULL), 0, "%s", wg_error_last());
    cr_assert_eq(pg_verify().ok, 1);
    close_audit();
}

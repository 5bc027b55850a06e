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
#include "waggle/vault.h"
#include "wgtest.h"

static char conninfo[1024];
static char schema[64];
static char base[900];
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
    cr_assert_eq(wg_store_open_backend(&st, wg_store_postgres_backend(), conninfo, NULL), 0,
                 "%s", wg_error_last());
}

static void teardown(void)
{
    wg_store_free(st);
    st = NULL;
    if (*schema && *base) {
        char q[128];
        snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
        sql(base, q);
    }
}

TestSuite(store_pg, .init = setup, .fini = teardown);

Test(store_pg, migrates_once_and_settings_roundtrip)
{
    cr_assert_eq(wg_store_schema_version(st), 4);
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

Test(store_pg, concurrent_appenders_keep_one_chain)
{
    enum { PROCS = 3, EACH = 20 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        if ((pids[p] = fork()) == 0) {
            wg_store *s2 = NULL;
            wg_audit *a2 = NULL;
            if (wg_store_open_backend(&s2, wg_store_postgres_backend(), conninfo, NULL) < 0 ||
                wg_audit_open(&a2, s2, NULL) < 0)
                _exit(10);
            for (int i = 0; i < EACH; i++) {
                wg_audit_record r = { .event = "approval_auto", .actor = "replica" };
                if (wg_audit_append(a2, &r, NULL) < 0)
                    _exit(11);
            }
            wg_audit_free(a2);
            wg_store_free(s2);
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status = 0;
        waitpid(pids[p], &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: %d", p, status);
    }
    wg_audit *a = NULL;
    cr_assert_eq(wg_audit_open(&a, st, NULL), 0);
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
}

static int64_t now_ms;
static int64_t clock_fn(void *ctx)
{
    (void)ctx;
    return now_ms;
}

Test(store_pg, replicas_share_pool_cooldowns)
{
    wg_pool_options o = { .now = clock_fn };
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

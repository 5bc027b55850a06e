/* shared.c - the state replicas share (migration 5, docs/replicas.md), on
 * both back ends: every test body runs once on SQLite and once on a real
 * PostgreSQL ($WAGGLE_TEST_PG, its own schema per run). Named documents
 * (names and sizes at N-1, N, N+1), migrations that run once under the
 * lock and refuse a newer schema, the tier and personas seen by a second
 * handle ("another replica"), and - PostgreSQL only - NOTIFY/LISTEN between
 * two handles and a lost connection that is WG_EUNAVAILABLE and then
 * re-made without reopening. Skipped with a message when WAGGLE_TEST_PG is
 * unset (test.sh fails on skips). */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/config.h"
#include "waggle/error.h"
#include "waggle/personas.h"
#include "waggle/store.h"
#include "waggle/sys/store.h"
#include "wgtest.h"

static char conninfo[1200], base[900], schema[64];
static char *dir;
static int on_pg;

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static void sql(const char *q)
{
    PGconn *c = PQconnectdb(base);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PQsetNoticeProcessor(c, quiet, NULL);
    PGresult *r = PQexec(c, q);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
              "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* A new handle on this test's store: a second one is "another replica". */
static wg_store *open_store(void)
{
    wg_store *st = NULL;
    int rc;
    if (on_pg) {
        rc = wg_store_open_backend(&st, wg_store_postgres_backend(), conninfo, dir);
    } else {
        char path[4200];
        snprintf(path, sizeof path, "%s/waggle.db", dir);
        rc = wg_store_open_backend(&st, wg_store_sqlite_backend(), path, dir);
    }
    cr_assert_eq(rc, 0, "%s", wg_error_last());
    return st;
}

static void setup_common(void)
{
    const char *env = getenv("WAGGLE_TEST_PG");
    if (!env || !*env)
        cr_skip_test("WAGGLE_TEST_PG is not set (scripts/test.sh starts PostgreSQL and sets it)");
    snprintf(base, sizeof base, "%s", env);
    dir = wgt_tmpdir();
}

static void setup_sqlite(void)
{
    setup_common();
    on_pg = 0;
}

static void setup_pg(void)
{
    setup_common();
    on_pg = 1;
    snprintf(schema, sizeof schema, "wgshared_%ld_%ld", (long)getpid(), (long)time(NULL));
    char q[256];
    snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
    sql(q);
    snprintf(conninfo, sizeof conninfo, "%s options='-csearch_path=%s' application_name=%s", base,
             schema, schema);
}

static void teardown(void)
{
    if (dir) {
        wgt_rmtree(dir);
        free(dir);
        dir = NULL;
    }
    if (on_pg && *schema) {
        char q[128];
        snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
        sql(q);
        *schema = '\0';
    }
}

TestSuite(shared_sqlite, .init = setup_sqlite, .fini = teardown);
TestSuite(shared_pg, .init = setup_pg, .fini = teardown);

/* ---- the bodies -------------------------------------------------------------------- */

static void docs_roundtrip_bounds_and_names(void)
{
    wg_store *st = open_store();
    cr_assert_eq(wg_store_is_shared(st), on_pg);
    cr_assert_eq(wg_store_doc_put(st, "personas/a.json", "{\"id\":\"a\"}", 10), 0, "%s",
                 wg_error_last());
    cr_assert_eq(wg_store_doc_put(st, "personas/b.json", "B", 1), 0);
    cr_assert_eq(wg_store_doc_put(st, "personas%/c", "C", 1), 0);   /* % is no wildcard */
    cr_assert_eq(wg_store_doc_put(st, "config.json", "{}", 2), 0);
    cr_assert_eq(wg_store_doc_put(st, "personas/b.json", "B2", 2), 0);   /* replaced */
    char *v = NULL;
    size_t n = 0;
    cr_assert_eq(wg_store_doc_get(&v, &n, st, "personas/b.json"), 0);
    cr_assert_str_eq(v, "B2");
    cr_assert_eq(n, 2);
    free(v);
    char **names = NULL;
    cr_assert_eq(wg_store_doc_list(&names, &n, st, "personas/"), 0);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(names[0], "personas/a.json");
    cr_assert_str_eq(names[1], "personas/b.json");
    cr_assert_null(names[2]);
    wg_store_doc_names_free(names);
    cr_assert_eq(wg_store_doc_delete(st, "personas/a.json"), 0);
    cr_assert_eq(wg_store_doc_delete(st, "personas/a.json"), 0, "absent is fine");
    cr_assert_eq(wg_store_doc_get(&v, NULL, st, "personas/a.json"), WG_ENOTFOUND);
    /* binary-safe bodies, the size bound at N and N+1 */
    size_t max = WG_STORE_DOC_MAX;
    char *big = malloc(max + 1);
    memset(big, 'x', max + 1);
    big[7] = '\0';
    cr_assert_eq(wg_store_doc_put(st, "big", big, max), 0, "%s", wg_error_last());
    cr_assert_eq(wg_store_doc_get(&v, &n, st, "big"), 0);
    cr_assert_eq(n, max);
    cr_assert_eq(memcmp(v, big, max), 0);
    free(v);
    cr_assert_eq(wg_store_doc_put(st, "big", big, max + 1), WG_EINVAL);
    free(big);
    /* names: 255 bytes fine, 256 not; no "..", no leading '/', no control bytes */
    char name[WG_STORE_DOC_NAME_MAX + 2];
    memset(name, 'n', sizeof name);
    name[WG_STORE_DOC_NAME_MAX - 1] = '\0';
    cr_assert_eq(wg_store_doc_put(st, name, "1", 1), 0);
    name[WG_STORE_DOC_NAME_MAX - 1] = 'n';
    name[WG_STORE_DOC_NAME_MAX] = '\0';
    cr_assert_eq(wg_store_doc_put(st, name, "1", 1), 0);
    name[WG_STORE_DOC_NAME_MAX] = 'n';
    name[WG_STORE_DOC_NAME_MAX + 1] = '\0';
    cr_assert_eq(wg_store_doc_put(st, name, "1", 1), WG_EINVAL);
    static const char *const bad[] = { "", "/etc/passwd", "personas/../x", "a\nb", "a\\b",
                                       "a b", "\xc3\xa9" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(wg_store_doc_put(st, bad[i], "1", 1), WG_EINVAL, "%s", bad[i]);
    cr_assert_eq(wg_store_doc_list(&names, &n, st, "../"), WG_EINVAL);
    wg_store_free(st);
}

static void a_newer_schema_is_refused(void)
{
    wg_store *st = open_store();
    cr_assert_geq(wg_store_schema_version(st), 5);
    cr_assert_eq(wg_store_exec(st, "INSERT INTO schema_version (version) VALUES (1000)", NULL, 0,
                               NULL, NULL), 0);
    wg_store_free(st);
    st = NULL;
    int rc = on_pg ? wg_store_open_backend(&st, wg_store_postgres_backend(), conninfo, dir)
                   : wg_store_open(&st, dir);
    cr_assert_eq(rc, WG_EUNSUPPORTED, "%s", wg_error_last());
    cr_assert(strstr(wg_error_last(), "schema version 1000"), "%s", wg_error_last());
    cr_assert_null(st);
}

/* Several processes open one fresh store at once: each migration runs once. */
static void migrations_run_once_under_the_lock(void)
{
    enum { N = 6 };   /* 4 failed 1 run in 15 before sqlite.c retried a raced WAL switch */
    pid_t kids[N];
    for (int i = 0; i < N; i++) {
        kids[i] = fork();
        cr_assert_geq(kids[i], 0);
        if (kids[i] == 0) {
            wg_store *st = NULL;
            int rc;
            if (on_pg) {
                rc = wg_store_open_backend(&st, wg_store_postgres_backend(), conninfo, dir);
            } else {
                char path[4200];
                snprintf(path, sizeof path, "%s/waggle.db", dir);
                rc = wg_store_open_backend(&st, wg_store_sqlite_backend(), path, dir);
            }
            if (rc != 0)
                fprintf(stderr, "opener %d: %s\n", i, wg_error_last());   /* says why in the log */
            wg_store_free(st);
            _exit(rc == 0 ? 0 : 1);
        }
    }
    for (int i = 0; i < N; i++) {
        int status = 0;
        waitpid(kids[i], &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "opener %d failed", i);
    }
    wg_store *st = open_store();
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT version, COUNT(*) FROM schema_version GROUP BY version"
                               " HAVING COUNT(*) > 1", NULL, 0, &rows, NULL), 0);
    cr_assert_eq(wg_store_rows_count(rows), 0, "a migration ran twice");
    wg_store_rows_free(rows);
    wg_store_free(st);
}

/* The tier set through one handle is what another reads (on PostgreSQL
 * through the store, on SQLite through the data dir). */
static void tier_and_personas_seen_by_another_handle(void)
{
    wg_store *a = open_store(), *b = open_store();
    cr_assert_eq(wg_tier__set_in(a, dir, WG_TIER_TEAMS, NULL, "test"), 0, "%s", wg_error_last());
    wg_tier_status t;
    cr_assert_eq(wg_tier__read_in(&t, b, dir, 0), 0);
    cr_assert_eq(t.effective, WG_TIER_TEAMS);
    cr_assert_eq(wg_tier__start_trial_in(b, dir, 0, NULL, "test"), 0);
    cr_assert_eq(wg_tier__start_trial_in(a, dir, 0, NULL, "test"), WG_EEXISTS);
    cr_assert_eq(wg_tier__read_in(&t, a, dir, 0), 0);
    cr_assert_eq(t.effective, WG_TIER_TRIAL);
    char path[4200];
    snprintf(path, sizeof path, "%s/config.json", dir);
    cr_assert_eq(access(path, F_OK) == 0, !on_pg, "config.json exists only on one machine");
    json_t *body = json_pack("{s:s,s:[s]}", "name", "Hive Reviewer", "tools", "read_file");
    json_t *p = NULL;
    cr_assert_eq(wg_personas_create_in(&p, a, dir, body), 0, "%s", wg_error_last());
    json_decref(p);
    cr_assert_eq(wg_personas_create_in(&p, b, dir, body), WG_EEXISTS);
    json_decref(body);
    json_t *all = NULL;
    cr_assert_eq(wg_personas_list_in(&all, b, dir), 0);
    size_t i;
    json_t *v;
    int found = 0;
    json_array_foreach(all, i, v)
        found += !strcmp(json_string_value(json_object_get(v, "id")), "hive-reviewer");
    cr_assert_eq(found, 1);
    json_decref(all);
    wg_store_free(a);
    wg_store_free(b);
}

Test(shared_sqlite, docs_roundtrip_bounds_and_names) { docs_roundtrip_bounds_and_names(); }
Test(shared_pg, docs_roundtrip_bounds_and_names) { docs_roundtrip_bounds_and_names(); }
Test(shared_sqlite, a_newer_schema_is_refused) { a_newer_schema_is_refused(); }
Test(shared_pg, a_newer_schema_is_refused) { a_newer_schema_is_refused(); }
Test(shared_sqlite, migrations_run_once_under_the_lock) { migrations_run_once_under_the_lock(); }
Test(shared_pg, migrations_run_once_under_the_lock) { migrations_run_once_under_the_lock(); }
Test(shared_sqlite, tier_and_personas_seen_by_another_handle)
{
    tier_and_personas_seen_by_another_handle();
}
Test(shared_pg, tier_and_personas_seen_by_another_handle)
{
    tier_and_personas_seen_by_another_handle();
}

/* ---- PostgreSQL only --------------------------------------------------------------- */

static int got;
static char last[128];

static void on_note(void *ud, const char *payload)
{
    (void)ud;
    snprintf(last, sizeof last, "%s", payload);
    __atomic_add_fetch(&got, 1, __ATOMIC_SEQ_CST);
}

static void wait_for(int (*cond)(void))
{
    for (int i = 0; i < 200 && !cond(); i++) {   /* at most 10 s; no timing is asserted */
        struct timespec d = { 0, 50 * 1000000L };
        nanosleep(&d, NULL);
    }
}

static wg_store_feed *feed;
static int listening(void) { return wg_store_feed_listening(feed); }
static int received(void) { return __atomic_load_n(&got, __ATOMIC_SEQ_CST) > 0; }

Test(shared_pg, notify_reaches_a_listener_on_another_handle)
{
    wg_store *a = open_store(), *b = open_store();
    cr_assert_eq(wg_store_feed_start(&feed, b, "waggle_test_events", on_note, NULL), 0, "%s",
                 wg_error_last());
    wait_for(listening);
    cr_assert(listening(), "the feed never listened");
    cr_assert_eq(wg_store_notify(a, "waggle_test_events", "hello from a"), 0, "%s",
                 wg_error_last());
    wait_for(received);
    cr_assert(received(), "no notification arrived");
    cr_assert_str_eq(last, "hello from a");
    /* bounds: channel names, payload at N and N+1 */
    cr_assert_eq(wg_store_notify(a, "Bad-Channel", "x"), WG_EINVAL);
    cr_assert_eq(wg_store_notify(a, "", "x"), WG_EINVAL);
    char *p = malloc(WG_STORE_NOTIFY_MAX + 2);
    memset(p, 'p', WG_STORE_NOTIFY_MAX + 1);
    p[WG_STORE_NOTIFY_MAX] = '\0';
    cr_assert_eq(wg_store_notify(a, "waggle_test_events", p), 0, "%s", wg_error_last());
    p[WG_STORE_NOTIFY_MAX] = 'p';
    p[WG_STORE_NOTIFY_MAX + 1] = '\0';
    cr_assert_eq(wg_store_notify(a, "waggle_test_events", p), WG_EINVAL);
    free(p);
    wg_store_feed_stop(feed);
    feed = NULL;
    wg_store_free(a);
    wg_store_free(b);
}

Test(shared_sqlite, notifications_need_postgres)
{
    wg_store *st = open_store();
    wg_store_feed *f = NULL;
    cr_assert_eq(wg_store_notify(st, "waggle_events", "x"), WG_EUNSUPPORTED);
    cr_assert_eq(wg_store_feed_start(&f, st, "waggle_events", on_note, NULL), WG_EUNSUPPORTED);
    cr_assert_null(f);
    cr_assert_eq(wg_store_ping(st), 0);
    wg_store_free(st);
}

/* A killed connection (as when PostgreSQL restarts): the statement that
 * finds it is WG_EUNAVAILABLE, the next one reconnects; a transaction that
 * lost its connection fails and is not silently continued outside it. */
Test(shared_pg, a_lost_connection_is_unavailable_then_remade)
{
    wg_store *st = open_store();
    cr_assert_eq(wg_store_setting_set(st, "k", "1"), 0);
    char q[512];
    /* only this test's connections: other tests share the server */
    snprintf(q, sizeof q, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
             "application_name = '%s'", schema);
    sql(q);
    char *v = NULL;
    int rc = wg_store_setting_get(&v, st, "k");
    cr_assert_eq(rc, WG_EUNAVAILABLE, "%d %s", rc, wg_error_last());
    cr_assert(strstr(wg_error_last(), "unreachable"), "%s", wg_error_last());
    cr_assert_eq(wg_store_setting_get(&v, st, "k"), 0, "%s", wg_error_last());
    cr_assert_str_eq(v, "1");
    free(v);
    cr_assert_eq(wg_store_begin(st, WG_STORE_TX_WRITE), 0);
    sql(q);
    cr_assert_eq(wg_store_setting_set(st, "k", "2"), WG_EUNAVAILABLE);
    cr_assert_eq(wg_store_setting_set(st, "k", "3"), WG_EUNAVAILABLE,
                 "no reconnect inside the transaction");
    cr_assert_eq(wg_store_rollback(st), 0);
    cr_assert_eq(wg_store_ping(st), 0, "%s", wg_error_last());
    cr_assert_eq(wg_store_setting_get(&v, st, "k"), 0);
    cr_assert_str_eq(v, "1", "nothing of the lost transaction remains");
    free(v);
    wg_store_free(st);
}

/* `waggle tier` on the replicas' database: set and read through the store,
 * not through a config.json of the CLI's own data dir. */
Test(shared_pg, cli_tier_goes_through_the_shared_store)
{
    char env[1400];
    snprintf(env, sizeof env, "WAGGLE_DATABASE_URL=%s", conninfo);
    const char *envp[] = { env, "WAGGLE_VAULT_PASSPHRASE=shared by replicas", NULL };
    const char *set[] = { "--data-dir", dir, "tier", "set", "teams", "--json", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, envp, set), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/config.json", dir);
    cr_assert_neq(access(path, F_OK), 0, "no config.json beside a shared store");
    wg_store *st = open_store();
    wg_tier_status t;
    cr_assert_eq(wg_tier__read_in(&t, st, NULL, 0), 0);
    cr_assert_eq(t.effective, WG_TIER_TEAMS);
    wg_store_free(st);
    char *other = wgt_tmpdir();
    const char *get[] = { "--data-dir", other, "tier", "--json", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, envp, get), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"TEAMS\""), "%s", r.out);
    wgt_result_free(&r);
    wgt_rmtree(other);
    free(other);
}

/* postgres.c - the engine on the shared PostgreSQL store ($WAGGLE_TEST_PG,
 * skipped without it): migration 3 runs there, an approval made by one
 * process is answered by another (replicas share the store, not memory),
 * racing answers run the call exactly once, and racing connects never take
 * the tier's last connector slot twice (the write transaction's advisory
 * lock). Each test works in its own schema. */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "waggle/engine.h"
#include "waggle/error.h"
#include "wgtest.h"

static char base[1024], conninfo[1200], schema[64];
static char *dir;

static void sql(const char *q)
{
    PGconn *c = PQconnectdb(base);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, q);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

static void setup(void)
{
    const char *env = getenv("WAGGLE_TEST_PG");
    if (!env || !*env)
        cr_skip_test("WAGGLE_TEST_PG is not set (scripts/test.sh starts PostgreSQL and sets it)");
    snprintf(base, sizeof base, "%s", env);
    snprintf(schema, sizeof schema, "wgengine_%ld", (long)getpid());
    char q[256];
    snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
    sql(q);
    snprintf(conninfo, sizeof conninfo, "%s options='-csearch_path=%s'", base, schema);
    dir = wgt_tmpdir();
    wgt_write_file(dir, "vault.key",
                   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
}

static void teardown(void)
{
    if (dir) {
        wgt_rmtree(dir);
        free(dir);
        dir = NULL;
    }
    if (*schema && *base) {
        char q[128];
        snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
        sql(q);
    }
}

TestSuite(engine_pg, .init = setup, .fini = teardown, .timeout = 120);

static wg_engine *open_engine(void)
{
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    o.store_url = conninfo;
    o.demo = 1;
    wg_engine *e = NULL;
    cr_assert_eq(wg_engine_open(&e, &o), 0, "%s", wg_error_last());
    return e;
}

static const char send_args[] = "{\"channel\":\"#hive\",\"message\":\"bees\"}";

static char *request(wg_engine *e)
{
    json_t *args = json_loads(send_args, 0, NULL);
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = "connector_slack-mock_send_slack_message";
    call.args = args;
    wg_engine_outcome o;
    cr_assert_eq(wg_engine_execute(e, &call, NULL, NULL, &o), 0, "%s", wg_error_last());
    json_decref(args);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    return strdup(o.approval_id);
}

/* A replica: its own process, its own engine on the same database. Exit
 * 0 ran, 1 other status, 2 not found, 3 error. */
static pid_t replica_approves(const char *id)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
        o.data_dir = dir;
        o.store_url = conninfo;
        o.demo = 1;
        wg_engine *e = NULL;
        if (wg_engine_open(&e, &o) < 0)
            _exit(3);
        wg_engine_outcome out;
        int rc = wg_engine_approve(e, id, 1, NULL, &out);
        int st = rc == WG_ENOTFOUND ? 2 : rc < 0 ? 3 : out.status == WG_ENGINE_RAN ? 0 : 1;
        wg_engine_outcome_clear(&out);
        wg_engine_free(e);
        _exit(st);
    }
    return pid;
}

static int status_of(pid_t pid)
{
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static size_t rows(wg_engine *e, const char *event)
{
    wg_audit *a = NULL;
    cr_assert_eq(wg_engine_audit(&a, e), 0);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    wg_audit_query q = { .limit = 100, .event = event };
    cr_assert_eq(wg_audit_list(&ev, &n, a, &q), 0);
    wg_audit_events_free(ev, n);
    return n;
}

Test(engine_pg, an_approval_made_on_one_replica_is_answered_on_another)
{
    wg_engine *e = open_engine();
    wg_store *st = NULL;
    cr_assert_eq(wg_engine_store(&st, e), 0);
    cr_assert_geq(wg_store_schema_version(st), 4);
    char *id = request(e);
    cr_assert_eq(status_of(replica_approves(id)), 0, "the other replica ran it");
    char *state = NULL;
    cr_assert_eq(wg_engine_approval_state(&state, e, id), 0);
    cr_assert_str_eq(state, "granted");
    free(state);
    wg_engine_outcome o;
    cr_assert_eq(wg_engine_approve(e, id, 1, NULL, &o), WG_ENOTFOUND, "never twice");
    cr_assert_eq(rows(e, "approval_requested"), 1);
    cr_assert_eq(rows(e, "approval_granted"), 1);
    free(id);
    wg_engine_free(e);
}

Test(engine_pg, racing_replicas_run_an_approval_exactly_once)
{
    wg_engine *e = open_engine();
    char *id = request(e);
    enum { N = 4 };
    pid_t p[N];
    for (int i = 0; i < N; i++)
        p[i] = replica_approves(id);
    int ran = 0, missed = 0;
    for (int i = 0; i < N; i++) {
        int s = status_of(p[i]);
        ran += s == 0;
        missed += s == 2;
    }
    cr_assert_eq(ran, 1);
    cr_assert_eq(missed, N - 1);
    cr_assert_eq(rows(e, "connector.slack-mock.send_slack_message"), 1);
    free(id);
    wg_engine_free(e);
}

Test(engine_pg, racing_replicas_cannot_both_take_the_last_connector_slot)
{
    wg_engine *e = open_engine();
    static const char *const ids[] = { "github", "gitlab", "jira", "linear" };
    wg_connector_limit_decision lim;
    for (size_t i = 0; i < 4; i++) {
        wg_connect_request req = { .token = "tok-0123456789abcdef" };
        cr_assert_eq(wg_engine_connect(&lim, e, ids[i], &req, "test"), 0, "%s", wg_error_last());
    }
    static const char *const racers[] = { "slack", "notion", "discord", NULL };
    pid_t p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = fork();
        cr_assert_neq(p[i], -1);
        if (p[i] == 0) {
            wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
            o.data_dir = dir;
            o.store_url = conninfo;
            wg_engine *c = NULL;
            wg_connector_limit_decision l;
            wg_connect_request req = { .token = "tok-0123456789abcdef" };
            const char *id = i == 3 ? "linear" : racers[i];   /* a reconnect always passes */
            int rc = wg_engine_open(&c, &o) < 0 ? -1 : wg_engine_connect(&l, c, id, &req, "race");
            wg_engine_free(c);
            _exit(rc == 0 ? 0 : rc == WG_ETIER ? 1 : 2);
        }
    }
    int won = 0, refused = 0;
    for (int i = 0; i < 4; i++) {
        int s = status_of(p[i]);
        if (i < 3) {
            won += s == 0;
            refused += s == 1;
        } else {
            cr_assert_eq(s, 0, "the reconnect passed");
        }
    }
    cr_assert_eq(won, 1, "exactly one new connector took the 5th slot (won %d, refused %d)", won,
                 refused);
    cr_assert_eq(refused, 2);
    wg_engine_free(e);
}

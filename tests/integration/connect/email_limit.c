/* email_limit.c - the email daily limit holds under concurrency (reference
 * 13 item 15): several processes on one data dir send at once and exactly
 * max_daily sends succeed; the others get the limit message and send
 * nothing. Underneath, wg_store_counter_take is one conditional upsert, so
 * forked processes racing on one counter take exactly the limit -- on
 * SQLite, and on PostgreSQL when WAGGLE_TEST_PG is set (scripts/test.sh). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "connect_smtp_sink.h"
#include "wgtest.h"
#include "waggle/connector.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/store.h"
#include "waggle/sys/store.h"
#include "waggle/vault.h"

enum { CHILDREN = 6 };
enum { CHILD_SENT = 0, CHILD_LIMITED = 1, CHILD_OTHER = 2 };

/* Forks n children that block on a pipe until all exist, then run fn(dir,
 * arg); fills status[i] with each child's exit code. */
static void race(int n, int *status, int (*fn)(const char *dir, int arg), const char *dir, int arg)
{
    int gate[2];
    cr_assert_eq(pipe(gate), 0);
    pid_t pids[CHILDREN];
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        cr_assert_neq(pids[i], -1);
        if (pids[i] == 0) {
            close(gate[1]);
            char c;
            while (read(gate[0], &c, 1) > 0) {
            }
            _exit(fn(dir, arg));
        }
    }
    close(gate[0]);
    close(gate[1]);   /* every child sees EOF at once */
    for (int i = 0; i < n; i++) {
        int ws = 0;
        cr_assert_eq(waitpid(pids[i], &ws, 0), pids[i]);
        cr_assert(WIFEXITED(ws), "child %d did not exit normally", i);
        status[i] = WEXITSTATUS(ws);
    }
}

/* ---- the store counter ------------------------------------------------------ */

enum { TAKES_PER_CHILD = 10, COUNTER_LIMIT = 25 };

/* target: a data dir (arg 0) or a PostgreSQL conninfo (arg 1). */
static int open_target(wg_store **st, const char *target, int pg)
{
    return pg ? wg_store_open_backend(st, wg_store_postgres_backend(), target, NULL)
              : wg_store_open(st, target);
}

static char counter_key[64];   /* unique per run: a shared PostgreSQL keeps rows */

/* Takes TAKES_PER_CHILD times; exits with how many succeeded (or 255). */
static int take_many(const char *target, int pg)
{
    wg_store *st = NULL;
    if (open_target(&st, target, pg) < 0)
        return 255;
    int ok = 0;
    for (int i = 0; i < TAKES_PER_CHILD; i++) {
        int64_t n = 0;
        int rc = wg_store_counter_take(st, counter_key, COUNTER_LIMIT, &n);
        if (rc == 0)
            ok++;
        else if (rc != WG_EDENIED)
            ok = 255 - TAKES_PER_CHILD;   /* a store failure, visible to the parent */
    }
    wg_store_free(st);
    return ok;
}

static void race_on(const char *target, int pg)
{
    snprintf(counter_key, sizeof counter_key, "test-counter-%ld", (long)getpid());
    wg_store *st = NULL;
    cr_assert_eq(open_target(&st, target, pg), 0, "%s", wg_error_last());   /* migrate once */
    wg_store_free(st);

    int status[CHILDREN];
    race(CHILDREN, status, take_many, target, pg);
    int total = 0;
    for (int i = 0; i < CHILDREN; i++) {
        cr_assert_leq(status[i], TAKES_PER_CHILD, "child %d: store failure (%d)", i, status[i]);
        total += status[i];
    }
    cr_assert_eq(total, COUNTER_LIMIT, "%d of %d takes succeeded", total, CHILDREN * TAKES_PER_CHILD);

    cr_assert_eq(open_target(&st, target, pg), 0);
    char *v = NULL;
    cr_assert_eq(wg_store_setting_get(&v, st, counter_key), 0);
    cr_assert_str_eq(v, "25");
    int64_t n = 0;
    cr_assert_eq(wg_store_counter_take(st, counter_key, COUNTER_LIMIT, &n), WG_EDENIED);
    cr_assert_eq(n, COUNTER_LIMIT, "a refused take changes nothing");
    cr_assert_eq(wg_store_counter_take(st, counter_key, 0, &n), WG_EINVAL);
    free(v);
    wg_store_free(st);
}

Test(store_counter, forked_processes_take_exactly_the_limit)
{
    char *dir = wgt_tmpdir();
    race_on(dir, 0);
    wgt_rmtree(dir);
    free(dir);
}

Test(store_counter, forked_processes_take_exactly_the_limit_on_postgres)
{
    const char *pg = getenv("WAGGLE_TEST_PG");
    if (!pg || !*pg) {
        cr_skip_test("WAGGLE_TEST_PG is not set (scripts/test.sh starts PostgreSQL)");
    }
    race_on(pg, 1);
}

/* ---- the email connector ---------------------------------------------------- */

enum { MAX_DAILY = 3 };

/* Each process holds an engine, as every face does (waggle/engine.h). */
typedef struct env {
    wg_engine *engine;
    wg_connect_vault cv;
} env;

static int env_open(env *e, const char *dir)
{
    memset(e, 0, sizeof *e);
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    o.allow_private_upstreams = 1;   /* the SMTP sink is on 127.0.0.1 */
    o.allow_http_upstreams = 1;
    wg_vault *v = NULL;
    if (wg_engine_open(&e->engine, &o) < 0 || wg_engine_vault(&v, e->engine) < 0)
        return -1;
    wg_connect_vault_of(&e->cv, v);
    return 0;
}

static void env_close(env *e)
{
    wg_engine_free(e->engine);
}

/* Through the one gated executor: send_email always asks at Normal, so the
 * sender approves it as a person at the terminal would. */
static wg_engine_answer approve(void *ud, const wg_engine_ask *a)
{
    (void)ud;
    (void)a;
    return WG_ENGINE_ASK_APPROVE;
}

static int send_one(const char *dir, int arg)
{
    (void)arg;
    env e;
    if (env_open(&e, dir) < 0)
        return CHILD_OTHER;
    json_t *args = json_pack("{s:s,s:s,s:s}", "to", "ada@example.com", "subject", "race", "body", "b");
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = "connector_email_send_email";
    call.args = args;
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.ask = approve;
    wg_engine_outcome res;
    int out = CHILD_OTHER;
    if (wg_engine_execute(e.engine, &call, NULL, &ctx, &res) == 0 && res.status == WG_ENGINE_RAN) {
        const char *err = json_string_value(json_object_get(res.result, "error"));
        if (json_is_true(json_object_get(res.result, "success")))
            out = CHILD_SENT;
        else if (err && !strcmp(err, "Daily email limit reached (3/day). Resets at midnight UTC."))
            out = CHILD_LIMITED;
        wg_engine_outcome_clear(&res);
    }
    json_decref(args);
    env_close(&e);
    return out;
}

static void set(env *e, const char *name, const char *value)
{
    cr_assert_eq(e->cv.set(e->cv.ctx, name, value, NULL), 0, "%s", wg_error_last());
}

Test(connect_email_limit, concurrent_sends_succeed_exactly_max_daily_times)
{
    wgt_smtp *sink = wgt_smtp_start();
    cr_assert_not_null(sink);
    char *dir = wgt_tmpdir();
    env e;
    cr_assert_eq(env_open(&e, dir), 0, "%s", wg_error_last());
    wg_connect_request req = { .token = "app-password-123" };
    wg_connector_limit_decision lim;
    cr_assert_eq(wg_engine_connect(&lim, e.engine, "email", &req, "test"), 0, "%s", wg_error_last());
    char url[64], max[16];
    snprintf(url, sizeof url, "smtp://127.0.0.1:%d", wgt_smtp_port(sink));
    snprintf(max, sizeof max, "%d", MAX_DAILY);
    set(&e, "connector:email:smtp_url", url);
    set(&e, "connector:email:email", "me@example.com");
    set(&e, "connector:email:from_email", "me@example.com");
    set(&e, "connector:email:max_daily", max);
    env_close(&e);

    int status[CHILDREN];
    race(CHILDREN, status, send_one, dir, 0);
    int sent = 0, limited = 0;
    for (int i = 0; i < CHILDREN; i++) {
        cr_assert_neq(status[i], CHILD_OTHER, "child %d failed otherwise", i);
        sent += status[i] == CHILD_SENT;
        limited += status[i] == CHILD_LIMITED;
    }
    cr_assert_eq(sent, MAX_DAILY, "%d sends succeeded, limit %d", sent, MAX_DAILY);
    cr_assert_eq(limited, CHILDREN - MAX_DAILY);
    json_t *msgs = wgt_smtp_messages(sink);
    cr_assert_eq(json_array_size(msgs), MAX_DAILY, "the sink got exactly the allowed messages");
    json_decref(msgs);

    wgt_smtp_stop(sink);
    wgt_rmtree(dir);
    free(dir);
}

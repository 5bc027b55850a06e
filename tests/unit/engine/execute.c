/* execute.c - the one gated executor (waggle/engine.h; spec 4, 7, 7.5):
 * lazy parts, every audit row of an approval's life, the step events, the
 * pending approvals in the store with their count and byte bounds, expiry
 * on an injected clock, the operator's never-autopass list and max level,
 * the agent tools, and an approval answered by another process. Real
 * SQLite files, a loopback GitHub-shaped replay server. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "connect_replay.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "wgtest.h"

static char *dir;
static wgt_replay *up;
static int64_t clock_now;

static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return clock_now;
}

static const char create_args[] =
    "{\"owner\":\"octocat\",\"repo\":\"Hello-World\",\"title\":\"Found a bug\"}";
static const char create_ok[] =
    "[{\"request\":{\"method\":\"POST\",\"uri\":\"/repos/octocat/Hello-World/issues\","
    "\"body\":{\"title\":\"Found a bug\"}},\"response\":{\"status\":201,\"body\":"
    "{\"number\":1347}}}]";

static void expect(const char *json)
{
    json_t *ex = json ? json_loads(json, 0, NULL) : NULL;
    wgt_replay_expect(up, ex);
    json_decref(ex);
}

static wg_engine *open_engine(const wg_engine_options *base)
{
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    if (base)
        o = *base;
    o.data_dir = dir;
    /* the replay upstream is plain http on loopback: the operator allows both */
    o.allow_private_upstreams = 1;
    o.allow_http_upstreams = 1;
    if (!o.clock.now)
        o.clock = (wg_clock){ test_clock, NULL };
    wg_engine *e = NULL;
    cr_assert_eq(wg_engine_open(&e, &o), 0, "%s", wg_error_last());
    return e;
}

/* An engine with github connected to the replay server. */
static wg_engine *connected(const wg_engine_options *base)
{
    wg_engine *e = open_engine(base);
    wg_connect_request req = { .token = "ghp_enginetesttoken0123456789",
                               .base_url = wgt_replay_base(up) };
    wg_connector_limit_decision lim;
    cr_assert_eq(wg_engine_connect(&lim, e, "github", &req, "test"), 0, "%s", wg_error_last());
    return e;
}

static void setup(void)
{
    dir = wgt_tmpdir();
    wgt_write_file(dir, "vault.key",
                   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
    clock_now = 1777629600000;   /* 2026-05-01T10:00:00Z */
    up = wgt_replay_start();
    expect(NULL);
}

static void teardown(void)
{
    wgt_replay_stop(up);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(engine, .init = setup, .fini = teardown);

/* Rows with this event (newest first), from a fresh handle on the data dir. */
static size_t rows(wg_audit_event **ev, wg_engine *e, const char *event)
{
    wg_audit *a = NULL;
    cr_assert_eq(wg_engine_audit(&a, e), 0);
    size_t n = 0;
    wg_audit_query q = { .limit = 200, .event = event };
    cr_assert_eq(wg_audit_list(ev, &n, a, &q), 0);
    return n;
}

static size_t count(wg_engine *e, const char *event)
{
    wg_audit_event *ev = NULL;
    size_t n = rows(&ev, e, event);
    wg_audit_events_free(ev, n);
    return n;
}

static int run(wg_engine *e, const char *tool, const char *args_json,
               const wg_autonomy_request *a, const wg_engine_ctx *ctx, wg_engine_outcome *out)
{
    json_t *args = json_loads(args_json, 0, NULL);
    cr_assert_not_null(args);
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = tool;
    call.args = args;
    call.session_id = "sess-1";
    call.workspace_id = "ws-1";
    int rc = wg_engine_execute(e, &call, a, ctx, out);
    json_decref(args);
    return rc;
}

static wg_autonomy_request level(wg_autonomy l, int64_t ahead_ms)
{
    wg_autonomy_request r = WG_AUTONOMY_REQUEST_INIT;
    r.level = l;
    r.has_expires = 1;
    r.expires_ms = clock_now + ahead_ms;
    return r;
}

Test(engine, a_gate_only_check_opens_no_store)
{
    wg_engine *e = open_engine(NULL);
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = "bash";
    json_t *args = json_pack("{s:s}", "command", "ls -la");
    call.args = args;
    wg_engine_outcome o;
    cr_assert_eq(wg_engine_check(e, &call, NULL, 0, &o), 0);
    cr_assert_not(o.decision.needs_confirmation);
    /* a connector's declared risk without opening the registry */
    call.tool = "connector_postgres_execute";
    cr_assert_eq(wg_engine_check(e, &call, NULL, 0, &o), 0);
    cr_assert(o.decision.needs_confirmation);
    cr_assert_eq(o.decision.approval_class, WG_APPROVAL_CRITICAL, "high risk from the table");
    json_decref(args);
    char path[4096];
    snprintf(path, sizeof path, "%s/waggle.db", dir);
    cr_assert_neq(access(path, F_OK), 0, "the store was opened by a gate-only check");
    wg_engine_free(e);
}

Test(engine, a_read_runs_at_once_and_leaves_only_the_connector_row)
{
    wg_engine *e = connected(NULL);
    expect("[{\"request\":{\"method\":\"GET\",\"uri\":\"/user/repos\"},\"response\":{\"status\":200,"
           "\"body\":[{\"full_name\":\"octocat/Hello-World\"}]}}]");
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_list_repos", "{}", NULL, NULL, &o), 0, "%s", wg_error_last());
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert(json_is_true(json_object_get(o.result, "success")));
    cr_assert_null(wgt_replay_verdict(up));
    wg_engine_outcome_clear(&o);
    cr_assert_eq(count(e, "connector.github.list_repos"), 1);
    cr_assert_eq(count(e, "approval_*"), 0);
    wg_engine_free(e);
}

typedef struct events {
    char log[4096];
} events;

static void on_event(void *ud, const wg_engine_event *ev)
{
    events *x = ud;
    const char *content = json_string_value(json_object_get(ev->data, "content"));
    size_t n = strlen(x->log);
    snprintf(x->log + n, sizeof x->log - n, "%s:%s;", ev->name, content ? content : ev->tool);
}

Test(engine, spec_7_5_yolo_auto_approval_writes_approval_auto_and_the_step)
{
    wg_engine *e = connected(NULL);
    expect(create_ok);
    events x = { "" };
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.on_event = on_event;
    ctx.event_ud = &x;
    wg_autonomy_request a = level(WG_AUTONOMY_YOLO, 600000);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, &a, &ctx, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert(o.decision.auto_approved);
    cr_assert_null(wgt_replay_verdict(up));
    wg_engine_outcome_clear(&o);
    cr_assert_str_eq(x.log, "step:⚡ connector_github_create_issue auto-approved (yolo);"
                            "result:connector_github_create_issue;");
    wg_audit_event *ev = NULL;
    cr_assert_eq(rows(&ev, e, "approval_auto"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "_autonomy")), "yolo");
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "session")), "sess-1");
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "workspaceId")), "ws-1");
    cr_assert_str_eq(ev[0].decision, "auto");
    cr_assert_str_eq(ev[0].rule, "connector.write_verb");
    wg_audit_events_free(ev, 1);
    wg_engine_free(e);
}

Test(engine, write_at_normal_waits_in_the_store_then_runs_once)
{
    wg_engine *e = connected(NULL);
    events x = { "" };
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.on_event = on_event;
    ctx.event_ud = &x;
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, &ctx, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    cr_assert_eq(strlen(o.approval_id), 32);
    cr_assert_eq(o.expires_ms, clock_now + WG_ENGINE_DEFAULT_APPROVAL_TTL_MS);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "nothing ran");
    cr_assert_str_eq(x.log, "approval_required:connector_github_create_issue;");
    char id[40];
    snprintf(id, sizeof id, "%s", o.approval_id);

    wg_engine_approval *list = NULL;
    size_t n = 0;
    cr_assert_eq(wg_engine_approvals(&list, &n, e, 0, 0), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(list[0].id, id);
    cr_assert_str_eq(list[0].state, "pending");
    cr_assert_str_eq(list[0].tool, "connector_github_create_issue");
    wg_engine_approvals_free(list, n);

    expect(create_ok);
    wg_engine_ctx approver = WG_ENGINE_CTX_INIT;
    approver.actor = "reviewer";
    cr_assert_eq(wg_engine_approve(e, id, 1, &approver, &o), 0, "%s", wg_error_last());
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(o.result, "data"), "number")), 1347);
    wg_engine_outcome_clear(&o);
    cr_assert_null(wgt_replay_verdict(up));
    cr_assert_eq(wg_engine_approve(e, id, 1, NULL, &o), WG_ENOTFOUND, "used once");
    cr_assert_eq(wg_engine_approve(e, id, 0, NULL, &o), WG_ENOTFOUND);

    wg_audit_event *ev = NULL;
    cr_assert_eq(rows(&ev, e, "approval_requested"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "approvalId")), id);
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "_autonomy")), "normal");
    cr_assert_not_null(json_object_get(ev[0].input, "argsDigest"));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(ev[0].input, "args"), "title")),
                     "Found a bug");
    wg_audit_events_free(ev, 1);
    cr_assert_eq(rows(&ev, e, "approval_granted"), 1);
    cr_assert_str_eq(ev[0].actor, "reviewer");
    wg_audit_events_free(ev, 1);
    cr_assert_eq(count(e, "connector.github.create_issue"), 1);
    wg_engine_free(e);
}

Test(engine, a_denial_runs_nothing_and_is_audited)
{
    wg_engine *e = connected(NULL);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, NULL, &o), 0);
    char id[40];
    snprintf(id, sizeof id, "%s", o.approval_id);
    cr_assert_eq(wg_engine_approve(e, id, 0, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_DENIED);
    cr_assert_null(o.result);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    cr_assert_eq(count(e, "approval_denied"), 1);
    cr_assert_eq(wg_engine_approve(e, id, 1, NULL, &o), WG_ENOTFOUND, "no run after a denial");
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    wg_engine_free(e);
}

Test(engine, expiry_is_a_denial_with_rule_approval_expired)
{
    wg_engine_options opt = WG_ENGINE_OPTIONS_INIT;
    opt.approval_ttl_ms = 1000;
    wg_engine *e = connected(&opt);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, NULL, &o), 0);
    char late[40], never[40];
    snprintf(late, sizeof late, "%s", o.approval_id);
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, NULL, &o), 0);
    snprintf(never, sizeof never, "%s", o.approval_id);
    clock_now += 999;
    char *state = NULL;
    cr_assert_eq(wg_engine_approval_state(&state, e, late), 0);
    cr_assert_str_eq(state, "pending");
    free(state);
    clock_now += 1;   /* exactly the TTL: expired */
    cr_assert_eq(wg_engine_approve(e, late, 1, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_EXPIRED);
    cr_assert_null(o.result);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "an expired approval never runs");
    cr_assert_eq(count(e, "approval_denied"), 1, "the late answer wrote the expiry row");
    /* the one nobody answered is swept when someone looks */
    wg_engine_approval *list = NULL;
    size_t n = 0;
    cr_assert_eq(wg_engine_approvals(&list, &n, e, 0, 0), 0);
    cr_assert_eq(n, 0);
    wg_engine_approvals_free(list, n);
    wg_audit_event *ev = NULL;
    cr_assert_eq(rows(&ev, e, "approval_denied"), 2);
    cr_assert_str_eq(ev[0].rule, "approval.expired");
    cr_assert_str_eq(ev[1].rule, "approval.expired");
    wg_audit_events_free(ev, 2);
    /* the first late answer is told "expired", the next one "not found" */
    cr_assert_eq(wg_engine_approve(e, never, 1, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_EXPIRED);
    cr_assert_eq(count(e, "approval_denied"), 2, "no second row for one expiry");
    cr_assert_eq(wg_engine_approve(e, never, 1, NULL, &o), WG_ENOTFOUND);
    cr_assert_eq(wg_engine_approve(e, late, 0, NULL, &o), WG_ENOTFOUND);
    wg_engine_free(e);
}

Test(engine, pending_approvals_are_bounded_by_count)
{
    wg_engine_options opt = WG_ENGINE_OPTIONS_INIT;
    opt.max_pending = 3;
    wg_engine *e = connected(&opt);
    wg_engine_outcome o;
    for (int i = 0; i < 3; i++)
        cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, NULL, &o), 0);
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, NULL, &o), WG_EBUSY);
    cr_assert(strstr(wg_error_last(), "too many"), "%s", wg_error_last());
    cr_assert_eq(count(e, "approval_requested"), 3, "the refused call waits for nothing");
    wg_engine_free(e);
}

/* Arguments of exactly `bytes` bytes of canonical JSON. */
static char *args_of(size_t bytes)
{
    static const char head[] = "{\"owner\":\"o\",\"repo\":\"r\",\"title\":\"";
    size_t fixed = sizeof head - 1 + 2;
    cr_assert(bytes > fixed);
    char *s = malloc(bytes + 1);
    memcpy(s, head, sizeof head - 1);
    memset(s + sizeof head - 1, 'x', bytes - fixed);
    memcpy(s + bytes - 2, "\"}", 3);
    return s;
}

Test(engine, pending_approvals_are_bounded_by_bytes_n_minus_1_n_n_plus_1)
{
    /* two approvals of 100 bytes each under a 200-byte bound */
    for (size_t total = 199; total <= 201; total++) {
        wg_engine_options opt = WG_ENGINE_OPTIONS_INIT;
        opt.max_pending_bytes = total;
        wg_engine *e = connected(&opt);
        char *a = args_of(100);
        wg_engine_outcome o;
        cr_assert_eq(run(e, "connector_github_create_issue", a, NULL, NULL, &o), 0);
        int rc = run(e, "connector_github_create_issue", a, NULL, NULL, &o);
        cr_assert_eq(rc, total >= 200 ? 0 : WG_EBUSY, "bound %zu: %s", total, wg_error_last());
        free(a);
        /* clean for the next round: deny what waits */
        wg_engine_approval *list = NULL;
        size_t n = 0;
        wg_engine_approvals(&list, &n, e, 0, 0);
        for (size_t i = 0; i < n; i++)
            wg_engine_approve(e, list[i].id, 0, NULL, &o);
        wg_engine_approvals_free(list, n);
        wg_engine_free(e);
    }
}

Test(engine, a_huge_argument_writes_a_bounded_masked_row)
{
    wg_engine *e = connected(NULL);
    size_t big = 200 * 1024;
    char *title = malloc(big + 1);
    memset(title, 'A', big);
    title[big] = 0;
    json_t *args = json_pack("{s:s,s:s,s:s,s:s}", "owner", "o", "repo", "r", "title", title,
                             "apiToken", "sk-live-SECRETSECRETSECRET");
    char *text = json_dumps(args, JSON_COMPACT);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", text, NULL, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    wg_audit_event *ev = NULL;
    cr_assert_eq(rows(&ev, e, "approval_requested"), 1);
    char *row = json_dumps(ev[0].input, JSON_COMPACT);
    cr_assert(strlen(row) < 4096, "the row holds %zu bytes", strlen(row));
    cr_assert_null(strstr(row, "SECRETSECRET"), "a secret reached the audit row");
    cr_assert(json_is_true(json_object_get(ev[0].input, "argsTruncated")));
    cr_assert_eq(json_integer_value(json_object_get(ev[0].input, "argsBytes")), (json_int_t)strlen(text));
    cr_assert_eq(strncmp(json_string_value(json_object_get(ev[0].input, "argsDigest")), "sha256:", 7), 0);
    free(row);
    wg_audit_events_free(ev, 1);
    /* and the whole arguments still run once approved */
    expect("[{\"request\":{\"method\":\"POST\",\"uri\":\"/repos/o/r/issues\"},"
           "\"response\":{\"status\":201,\"body\":{\"number\":2}}}]");
    cr_assert_eq(wg_engine_approve(e, o.approval_id, 1, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert_null(wgt_replay_verdict(up));
    wg_engine_outcome_clear(&o);
    free(text);
    free(title);
    json_decref(args);
    wg_engine_free(e);
}

Test(engine, the_operator_never_autopass_list_wins_at_yolo)
{
    static const char *const never[] = { "connector_github_create_*", NULL };
    wg_engine_options opt = WG_ENGINE_OPTIONS_INIT;
    opt.never_autopass = never;
    wg_engine *e = connected(&opt);
    wg_autonomy_request a = level(WG_AUTONOMY_YOLO, 60000);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, &a, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    cr_assert_str_eq(o.decision.rule, "operator.never_autopass");
    cr_assert(o.decision.critical);
    cr_assert_eq(count(e, "approval_auto"), 0);
    /* a read on the list asks too, even at normal */
    static const char *const reads[] = { "connector_github_list_repos", NULL };
    opt.never_autopass = reads;
    wg_engine *e2 = open_engine(&opt);
    cr_assert_eq(run(e2, "connector_github_list_repos", "{}", NULL, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    wg_engine_free(e2);
    wg_engine_free(e);
}

Test(engine, never_autopass_names_are_bounded)
{
    const char *list[WG_ENGINE_NEVER_AUTOPASS_MAX + 2];
    for (int i = 0; i <= WG_ENGINE_NEVER_AUTOPASS_MAX + 1; i++)
        list[i] = "connector_x_y";
    wg_engine_options opt = WG_ENGINE_OPTIONS_INIT;
    opt.data_dir = dir;
    opt.never_autopass = list;
    wg_engine *e = NULL;
    list[WG_ENGINE_NEVER_AUTOPASS_MAX] = NULL;
    cr_assert_eq(wg_engine_open(&e, &opt), 0);
    wg_engine_free(e);
    list[WG_ENGINE_NEVER_AUTOPASS_MAX] = "connector_x_y";
    list[WG_ENGINE_NEVER_AUTOPASS_MAX + 1] = NULL;
    cr_assert_eq(wg_engine_open(&e, &opt), WG_EINVAL);
    static const char *const bad[] = { "has space", NULL };
    opt.never_autopass = bad;
    cr_assert_eq(wg_engine_open(&e, &opt), WG_EINVAL);
}

Test(engine, the_operator_max_level_caps_what_the_app_asks)
{
    wg_engine_options opt = WG_ENGINE_OPTIONS_INIT;
    opt.max_autonomy = WG_AUTONOMY_TRUSTED;
    wg_engine *e = connected(&opt);
    wg_autonomy_request a = level(WG_AUTONOMY_YOLO, 60000);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, &a, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_PENDING, "yolo was lowered to trusted, which gates writes");
    cr_assert_eq(o.autonomy.applied, WG_AUTONOMY_TRUSTED);
    cr_assert_str_eq(o.autonomy.rule, "autonomy.max_level");
    wg_engine_free(e);
    opt.autonomy_cap_ms = -1;
    opt.data_dir = dir;
    cr_assert_eq(wg_engine_open(&e, &opt), WG_EINVAL, "a negative cap is an error, not unlimited");
}

static wg_engine_answer say_yes(void *ud, const wg_engine_ask *a)
{
    (void)a;
    ++*(int *)ud;
    return WG_ENGINE_ASK_APPROVE;
}

static wg_engine_answer say_no(void *ud, const wg_engine_ask *a)
{
    (void)a;
    ++*(int *)ud;
    return WG_ENGINE_ASK_DENY;
}

Test(engine, a_person_at_hand_answers_and_the_rows_say_so)
{
    wg_engine *e = connected(NULL);
    int asked = 0;
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.actor = "cli";
    ctx.ask = say_no;
    ctx.ask_ud = &asked;
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, &ctx, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_DENIED);
    cr_assert_eq(asked, 1);
    expect(create_ok);
    ctx.ask = say_yes;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, &ctx, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert_str_eq(o.decision.rule, "connector.write_verb", "the gate's decision is kept");
    wg_engine_outcome_clear(&o);
    cr_assert_null(wgt_replay_verdict(up));
    cr_assert_eq(count(e, "approval_requested"), 2);
    cr_assert_eq(count(e, "approval_denied"), 1);
    cr_assert_eq(count(e, "approval_granted"), 1);
    wg_engine_free(e);
}

Test(engine, agent_tools_run_through_the_executor)
{
    wg_engine *e = open_engine(NULL);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "list_connector_categories", "{}", NULL, NULL, &o), 0, "%s", wg_error_last());
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert(json_is_true(json_object_get(o.result, "success")));
    cr_assert(json_is_object(json_object_get(o.result, "data")));
    wg_engine_outcome_clear(&o);
    cr_assert_eq(run(e, "find_connector", "{\"query\":\"github\"}", NULL, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert(json_is_object(json_object_get(o.result, "data")));
    wg_engine_outcome_clear(&o);
    /* spec 4: acquire_capability records its audit event */
    cr_assert_eq(run(e, "acquire_capability", "{\"need\":\"assess the risks of a project\"}", NULL,
                     NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    wg_engine_outcome_clear(&o);
    cr_assert_eq(count(e, "capability_proposed"), 1);
    /* install_capability always asks (spec 7.1) */
    cr_assert_eq(run(e, "install_capability", "{\"name\":\"risk-assessment\",\"source\":\"starter-pack\"}",
                     NULL, NULL, &o), 0);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    cr_assert_eq(wg_engine_approve(e, o.approval_id, 1, NULL, &o), 0, "%s", wg_error_last());
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert(json_is_true(json_object_get(o.result, "success")), "%s",
              json_string_value(json_object_get(o.result, "error")));
    wg_engine_outcome_clear(&o);
    cr_assert_eq(count(e, "capability_installed"), 1);
    cr_assert_eq(run(e, "bash", "{\"command\":\"ls\"}", NULL, NULL, &o), WG_ENOTFOUND);
    wg_engine_free(e);
}

Test(engine, bad_calls_are_refused)
{
    wg_engine *e = open_engine(NULL);
    wg_engine_outcome o;
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    cr_assert_eq(wg_engine_execute(e, &call, NULL, NULL, &o), WG_EINVAL, "no tool");
    call.tool = "find_connector";
    json_t *arr = json_array();
    call.args = arr;
    cr_assert_eq(wg_engine_execute(e, &call, NULL, NULL, &o), WG_EINVAL, "args not an object");
    call.args = NULL;
    call.session_id = "a\nb";
    cr_assert_eq(wg_engine_execute(e, &call, NULL, NULL, &o), WG_EINVAL);
    json_decref(arr);
    cr_assert_eq(wg_engine_approve(e, "../../etc", 1, NULL, &o), WG_ENOTFOUND);
    wg_engine_free(e);
}

/* ---- two processes ---------------------------------------------------------- */

/* In a child process: a fresh engine on the same data dir answers id.
 * Exit status: 0 ran, 1 denied/other status, 2 not found, 3 error. */
static int child_approve(const char *id, int approved)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
        o.data_dir = dir;
        o.allow_private_upstreams = o.allow_http_upstreams = 1;
        o.clock = (wg_clock){ test_clock, NULL };
        wg_engine *e = NULL;
        if (wg_engine_open(&e, &o) < 0)
            _exit(3);
        wg_engine_outcome out;
        int rc = wg_engine_approve(e, id, approved, NULL, &out);
        int status = rc == WG_ENOTFOUND ? 2 : rc < 0 ? 3 : out.status == WG_ENGINE_RAN ? 0 : 1;
        wg_engine_outcome_clear(&out);
        wg_engine_free(e);
        _exit(status);
    }
    return pid;
}

static int wait_status(int pid)
{
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

Test(engine, an_approval_made_by_one_process_is_resolved_by_another)
{
    wg_engine *e = connected(NULL);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, NULL, &o), 0);
    char id[40];
    snprintf(id, sizeof id, "%s", o.approval_id);
    expect(create_ok);
    cr_assert_eq(wait_status(child_approve(id, 1)), 0, "the other process ran it");
    cr_assert_null(wgt_replay_verdict(up));
    char *state = NULL;
    cr_assert_eq(wg_engine_approval_state(&state, e, id), 0);
    cr_assert_str_eq(state, "granted");
    free(state);
    cr_assert_eq(wg_engine_approve(e, id, 1, NULL, &o), WG_ENOTFOUND, "never twice");
    cr_assert_eq(count(e, "approval_granted"), 1);
    wg_engine_free(e);
}

Test(engine, racing_processes_run_an_approval_exactly_once)
{
    wg_engine *e = connected(NULL);
    wg_engine_outcome o;
    cr_assert_eq(run(e, "connector_github_create_issue", create_args, NULL, NULL, &o), 0);
    char id[40];
    snprintf(id, sizeof id, "%s", o.approval_id);
    expect(create_ok);
    enum { N = 4 };
    int pids[N], ran = 0, missed = 0;
    for (int i = 0; i < N; i++)
        pids[i] = child_approve(id, 1);
    for (int i = 0; i < N; i++) {
        int s = wait_status(pids[i]);
        ran += s == 0;
        missed += s == 2;
    }
    cr_assert_eq(ran, 1, "exactly one process ran it");
    cr_assert_eq(missed, N - 1);
    cr_assert_null(wgt_replay_verdict(up));
    wg_engine_free(e);
}

/* ---- the connector limit ------------------------------------------------------- */

Test(engine, the_connector_limit_counts_every_process_and_live_reservations)
{
    wg_engine *e = open_engine(NULL);
    static const char *const ids[] = { "github", "gitlab", "jira", "linear" };
    wg_connector_limit_decision lim;
    for (size_t i = 0; i < 4; i++) {
        wg_connect_request req = { .token = "tok-0123456789abcdef" };
        cr_assert_eq(wg_engine_connect(&lim, e, ids[i], &req, "test"), 0, "%s", wg_error_last());
    }
    /* another process is connecting slack right now: its reservation holds the 5th slot */
    wg_store *st = NULL;
    cr_assert_eq(wg_engine_store(&st, e), 0);
    char until[32];
    snprintf(until, sizeof until, "%lld", (long long)(clock_now + 30000));
    cr_assert_eq(wg_store_setting_set(st, "connector.reserve.slack", until), 0);
    wg_connect_request req = { .token = "tok-0123456789abcdef" };
    cr_assert_eq(wg_engine_connect(&lim, e, "notion", &req, "test"), WG_ETIER);
    cr_assert_str_eq(lim.rule, "connector.limit.exceeded");
    cr_assert_eq(lim.used, 5);
    cr_assert_eq(count(e, "connector_refused"), 1);
    /* a reservation that outlived its minute no longer counts */
    clock_now += 30001;
    cr_assert_eq(wg_engine_connect(&lim, e, "notion", &req, "test"), 0, "%s", wg_error_last());
    cr_assert_eq(count(e, "connector_connected"), 5);
    wg_engine_free(e);
}

Test(engine, racing_processes_cannot_both_take_the_last_slot)
{
    wg_engine *e = open_engine(NULL);
    static const char *const ids[] = { "github", "gitlab", "jira", "linear" };
    wg_connector_limit_decision lim;
    for (size_t i = 0; i < 4; i++) {
        wg_connect_request req = { .token = "tok-0123456789abcdef" };
        cr_assert_eq(wg_engine_connect(&lim, e, ids[i], &req, "test"), 0);
    }
    static const char *const racers[] = { "slack", "notion", "discord", "gcal" };
    int pids[4];
    for (int i = 0; i < 4; i++) {
        pid_t pid = fork();
        cr_assert_neq(pid, -1);
        if (pid == 0) {
            wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
            o.data_dir = dir;
            wg_engine *c = NULL;
            wg_connector_limit_decision l;
            wg_connect_request req = { .token = "tok-0123456789abcdef" };
            int rc = wg_engine_open(&c, &o) < 0 ? -1 : wg_engine_connect(&l, c, racers[i], &req, "race");
            wg_engine_free(c);
            _exit(rc == 0 ? 0 : rc == WG_ETIER ? 1 : 2);
        }
        pids[i] = pid;
    }
    int won = 0, refused = 0;
    for (int i = 0; i < 4; i++) {
        int s = wait_status(pids[i]);
        won += s == 0;
        refused += s == 1;
    }
    cr_assert_eq(won, 1, "exactly one took the 5th slot");
    cr_assert_eq(refused, 3);
    wg_engine_free(e);
}

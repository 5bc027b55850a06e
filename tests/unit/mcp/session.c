/* session.c - the MCP session (src/mcp/session.h) on a real engine (a
 * SQLite data dir with the demo connectors): lifecycle, tools/list and
 * tools/call through the engine, an approval asked by elicitation and
 * answered accept / decline / not at all, the isError answer with the
 * approval id for a client without elicitation, cancellation, progress,
 * list_changed after a connect from outside the session, and the errors. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/session.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "wgtest.h"

#define SEND_TOOL "connector_slack-mock_send_slack_message"
#define LIST_TOOL "connector_slack-mock_list_slack_channels"

typedef struct sink {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    json_t *msgs;            /* every message sent, in order */
} sink;

static char *dir;
static wg_engine *engine;
static sink out;
static wg_mcp_session *sess;

static void capture(void *ud, const json_t *related, int final, const char *line, size_t len)
{
    (void)related;
    (void)final;
    sink *k = ud;
    json_t *m = json_loadb(line, len, 0, NULL);
    cr_assert_not_null(m, "a message that is not JSON: %.*s", (int)len, line);
    cr_assert_null(memchr(line, '\n', len));
    pthread_mutex_lock(&k->mu);
    json_array_append_new(k->msgs, m);
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

/* The first message (from index *from) that matches: a response with id, or
 * (id < 0) a request or notification named method. Waits up to 20 s. */
static json_t *wait_for(size_t *from, json_int_t id, const char *method)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&out.mu);
    json_t *found = NULL;
    size_t i = from ? *from : 0;
    while (!found) {
        for (; i < json_array_size(out.msgs) && !found; i++) {
            json_t *m = json_array_get(out.msgs, i);
            const char *mm = json_string_value(json_object_get(m, "method"));
            if (id >= 0 ? !mm && json_integer_value(json_object_get(m, "id")) == id
                        : mm && strcmp(mm, method) == 0)
                found = json_incref(m);
        }
        if (!found && pthread_cond_timedwait(&out.cv, &out.mu, &until) != 0)
            break;
    }
    pthread_mutex_unlock(&out.mu);
    if (from)
        *from = i;
    cr_assert_not_null(found, "no message id %lld / %s", (long long)id, method ? method : "");
    return found;
}

static void handle(const char *text)
{
    wg_mcp__session_handle(sess, text, strlen(text));
}

static void start(const char *caps, wg_autonomy level)
{
    wg_mcp_options o = WG_MCP_OPTIONS_INIT;
    o.engine = engine;
    o.level = level;
    o.poll_ms = 50;
    o.send = capture;
    o.send_ud = &out;
    cr_assert_eq(wg_mcp__session_new(&sess, &o), 0, "%s", wg_error_last());
    char buf[512];
    snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,\"clientInfo\":"
             "{\"name\":\"unit\",\"version\":\"1\"}}}", caps);
    handle(buf);
    handle("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    json_decref(wait_for(NULL, 1, NULL));
}

static void setup(void)
{
    dir = wgt_tmpdir();
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    o.demo = 1;
    cr_assert_eq(wg_engine_open(&engine, &o), 0, "%s", wg_error_last());
    pthread_mutex_init(&out.mu, NULL);
    pthread_cond_init(&out.cv, NULL);
    out.msgs = json_array();
}

static void teardown(void)
{
    wg_mcp__session_free(sess);
    sess = NULL;
    wg_engine_free(engine);
    json_decref(out.msgs);
    wgt_rmtree(dir);
    free(dir);
}

static json_t *result_of(json_t *msg)
{
    json_t *r = json_object_get(msg, "result");
    cr_assert_not_null(r, "not a result: %s", json_dumps(msg, 0));
    return r;
}

static int error_code(json_t *msg)
{
    return (int)json_integer_value(json_object_get(json_object_get(msg, "error"), "code"));
}

static const char *text_of(json_t *result)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(result, "content"), 0),
                                             "text"));
}

static int audit_rows(const char *event)
{
    wg_audit *a = NULL;
    cr_assert_eq(wg_engine_audit(&a, engine), 0);
    wg_audit_query q = { 0 };
    q.event = event;
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, a, &q), 0, "%s", wg_error_last());
    wg_audit_events_free(ev, n);
    return (int)n;
}

TestSuite(session, .init = setup, .fini = teardown, .timeout = 60);

Test(session, initialize_negotiates_the_revision_and_declares_tools)
{
    wg_mcp_options o = WG_MCP_OPTIONS_INIT;
    o.engine = engine;
    o.no_watch = 1;
    o.send = capture;
    o.send_ud = &out;
    cr_assert_eq(wg_mcp__session_new(&sess, &o), 0);
    handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    cr_expect_eq(error_code(wait_for(NULL, 1, NULL)), -32600, "tools/list before initialize");
    handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    cr_expect(json_is_object(result_of(wait_for(NULL, 2, NULL))));
    handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"capabilities\":{}}}");
    cr_expect_eq(error_code(wait_for(NULL, 3, NULL)), -32602);
    handle("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}");
    json_t *r = result_of(wait_for(NULL, 4, NULL));
    cr_expect_str_eq(json_string_value(json_object_get(r, "protocolVersion")), "2025-06-18");
    cr_expect(json_is_true(json_object_get(json_object_get(json_object_get(r, "capabilities"),
                                                           "tools"), "listChanged")));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "serverInfo"), "name")),
                     "waggle");
    handle("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}");
    cr_expect_eq(error_code(wait_for(NULL, 5, NULL)), -32600, "initialized twice");
    cr_expect_str_eq(wg_mcp__session_protocol(sess), "2025-06-18");
}

Test(session, an_unknown_revision_is_answered_with_the_newest)
{
    wg_mcp_options o = WG_MCP_OPTIONS_INIT;
    o.engine = engine;
    o.no_watch = 1;
    o.send = capture;
    o.send_ud = &out;
    cr_assert_eq(wg_mcp__session_new(&sess, &o), 0);
    handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{}}}");
    json_t *r = result_of(wait_for(NULL, 1, NULL));
    cr_expect_str_eq(json_string_value(json_object_get(r, "protocolVersion")), "2025-11-25");
}

Test(session, tools_list_has_the_agent_tools_and_the_connected_connectors)
{
    start("{}", WG_AUTONOMY_NORMAL);
    handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
    json_t *tools = json_object_get(result_of(wait_for(NULL, 2, NULL)), "tools");
    static const char *const want[] = { "gate_check", "find_connector", "list_connector_categories",
                                        "acquire_capability", "install_capability", SEND_TOOL,
                                        LIST_TOOL };
    for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
        int found = 0;
        size_t i;
        json_t *t;
        json_array_foreach(tools, i, t) {
            if (strcmp(json_string_value(json_object_get(t, "name")), want[w]) == 0) {
                found = 1;
                json_t *schema = json_object_get(t, "inputSchema");
                cr_expect_str_eq(json_string_value(json_object_get(schema, "type")), "object");
            }
        }
        cr_expect(found, "%s is not listed", want[w]);
    }
    handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"x\"}}");
    cr_expect_eq(error_code(wait_for(NULL, 3, NULL)), -32602);
}

Test(session, a_read_runs_silently_through_the_engine)
{
    start("{}", WG_AUTONOMY_NORMAL);
    handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\""
           LIST_TOOL "\",\"arguments\":{}}}");
    json_t *r = result_of(wait_for(NULL, 2, NULL));
    cr_expect(json_is_false(json_object_get(r, "isError")), "%s", text_of(r));
    cr_expect(json_is_true(json_object_get(json_object_get(r, "structuredContent"), "success")));
    cr_expect_eq(audit_rows("approval_requested"), 0);
}

Test(session, without_elicitation_a_write_answers_iserror_with_the_approval_id)
{
    start("{}", WG_AUTONOMY_NORMAL);
    handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\""
           SEND_TOOL "\",\"arguments\":{\"channel\":\"#general\",\"message\":\"hi\"}}}");
    json_t *r = result_of(wait_for(NULL, 2, NULL));
    cr_expect(json_is_true(json_object_get(r, "isError")));
    json_t *sc = json_object_get(r, "structuredContent");
    const char *id = json_string_value(json_object_get(sc, "approvalId"));
    cr_assert_not_null(id);
    cr_expect_str_eq(json_string_value(json_object_get(sc, "status")), "pending");
    char want[128];
    snprintf(want, sizeof want, "waggle approve %s", id);
    cr_expect(strstr(text_of(r), want), "%s", text_of(r));
    snprintf(want, sizeof want, "POST /api/approval/%s", id);
    cr_expect(strstr(text_of(r), want));
    cr_expect_eq(audit_rows("approval_requested"), 1);
    /* and the engine runs it once a person approves */
    wg_engine_outcome o;
    cr_assert_eq(wg_engine_approve(engine, id, 1, NULL, &o), 0, "%s", wg_error_last());
    cr_expect_eq(o.status, WG_ENGINE_RAN);
    wg_engine_outcome_clear(&o);
}

/* Answers the next elicitation/create with result (NULL: not at all). */
static void answer_elicitation(size_t *from, const char *result)
{
    json_t *req = wait_for(from, -1, "elicitation/create");
    json_t *p = json_object_get(req, "params");
    cr_expect_str_eq(json_string_value(json_object_get(p, "mode")), "form");
    cr_expect(strstr(json_string_value(json_object_get(p, "message")), SEND_TOOL));
    if (result) {
        char buf[256];
        snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}",
                 (long long)json_integer_value(json_object_get(req, "id")), result);
        handle(buf);
    }
    json_decref(req);
}

static const char send_call[] =
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"" SEND_TOOL
    "\",\"arguments\":{\"channel\":\"#general\",\"message\":\"hi\"},\"_meta\":{\"progressToken\":\"p1\"}}}";

Test(session, elicitation_accept_runs_the_call)
{
    start("{\"elicitation\":{}}", WG_AUTONOMY_NORMAL);
    size_t from = 0;
    handle(send_call);
    answer_elicitation(&from, "{\"action\":\"accept\",\"content\":{\"approve\":true}}");
    json_t *r = result_of(wait_for(NULL, 2, NULL));
    cr_expect(json_is_false(json_object_get(r, "isError")), "%s", text_of(r));
    cr_expect_eq(audit_rows("approval_granted"), 1);
    /* its engine events came as progress, the token echoed */
    json_t *p = wait_for(NULL, -1, "notifications/progress");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(p, "params"),
                                                       "progressToken")), "p1");
}

Test(session, elicitation_decline_refuses_the_call)
{
    start("{\"elicitation\":{\"form\":{}}}", WG_AUTONOMY_NORMAL);
    size_t from = 0;
    handle(send_call);
    answer_elicitation(&from, "{\"action\":\"decline\"}");
    json_t *r = result_of(wait_for(NULL, 2, NULL));
    cr_expect(json_is_true(json_object_get(r, "isError")));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "structuredContent"),
                                                       "status")), "denied");
    cr_expect_eq(audit_rows("approval_denied"), 1);
    cr_expect_eq(audit_rows("approval_granted"), 0);
}

Test(session, a_cancelled_call_stops_waiting_and_gets_no_answer)
{
    start("{\"elicitation\":{}}", WG_AUTONOMY_NORMAL);
    size_t from = 0;
    handle(send_call);
    answer_elicitation(&from, NULL);
    handle("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
           "{\"requestId\":2,\"reason\":\"user\"}}");
    /* we take the question down, and the call ends without a response */
    json_decref(wait_for(&from, -1, "notifications/cancelled"));
    wg_mcp__session_close(sess);
    pthread_mutex_lock(&out.mu);
    size_t i;
    json_t *m;
    json_array_foreach(out.msgs, i, m)
        cr_expect(!(json_integer_value(json_object_get(m, "id")) == 2 &&
                    !json_object_get(m, "method")), "a cancelled request was answered");
    pthread_mutex_unlock(&out.mu);
    cr_expect_eq(audit_rows("approval_granted"), 0);
    wg_engine_approval *a = NULL;
    size_t n = 0;
    cr_assert_eq(wg_engine_approvals(&a, &n, engine, 0, 0), 0);
    cr_expect_eq(n, 1, "the approval stays pending for `waggle approve`");
    wg_engine_approvals_free(a, n);
}

Test(session, closing_gives_up_the_wait_and_the_call_still_answers)
{
    start("{\"elicitation\":{}}", WG_AUTONOMY_NORMAL);
    size_t from = 0;
    handle(send_call);
    answer_elicitation(&from, NULL);
    wg_mcp__session_close(sess);        /* the client went away */
    json_t *r = result_of(wait_for(NULL, 2, NULL));
    cr_expect(json_is_true(json_object_get(r, "isError")));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "structuredContent"),
                                                       "status")), "pending");
    cr_expect_eq(audit_rows("approval_granted"), 0);
}

Test(session, at_yolo_a_write_runs_with_the_auto_approved_row)
{
    start("{}", WG_AUTONOMY_YOLO);
    handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\""
           SEND_TOOL "\",\"arguments\":{\"channel\":\"#general\",\"message\":\"hi\"}}}");
    json_t *r = result_of(wait_for(NULL, 2, NULL));
    cr_expect(json_is_false(json_object_get(r, "isError")), "%s", text_of(r));
    cr_expect_eq(audit_rows("approval_auto"), 1);
}

Test(session, gate_check_gives_rule_and_reason)
{
    start("{}", WG_AUTONOMY_YOLO);
    handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
           "\"gate_check\",\"arguments\":{\"tool\":\"bash\",\"args\":{\"command\":\"sudo ls\"}}}}");
    json_t *sc = json_object_get(result_of(wait_for(NULL, 2, NULL)), "structuredContent");
    cr_expect(json_is_true(json_object_get(sc, "needsConfirmation")), "never-autopass at yolo");
    cr_expect(json_is_true(json_object_get(sc, "critical")));
    cr_expect_str_eq(json_string_value(json_object_get(sc, "rule")), "critical.privilege");
    handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
           "\"gate_check\",\"arguments\":{}}}");
    cr_expect(json_is_true(json_object_get(result_of(wait_for(NULL, 3, NULL)), "isError")));
}

Test(session, bad_calls_get_protocol_errors)
{
    start("{}", WG_AUTONOMY_NORMAL);
    static const struct { const char *frame; int code; } rows[] = {
        { "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", -32602 },
        { "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{}}", -32602 },
        { "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"gate_check\","
          "\"arguments\":[1]}}", -32602 },
        { "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"gate_check\","
          "\"_meta\":{\"progressToken\":1.5}}}", -32602 },
        { "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/list\"}", -32601 },
        { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":\"x\"}", -32602 },
        { "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":"
          "\"gate_check\\nfind_connector\"}}", -32602 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        handle(rows[i].frame);
        cr_expect_eq(error_code(wait_for(NULL, (json_int_t)i + 2, NULL)), rows[i].code, "%s",
                     rows[i].frame);
    }
    size_t from = json_array_size(out.msgs);
    handle("not json");
    json_t *m = wait_for(&from, 0, NULL);          /* id null */
    cr_expect_eq(error_code(m), -32700);
    cr_expect(json_is_null(json_object_get(m, "id")));
    json_decref(m);
}

Test(session, a_connect_from_outside_the_session_sends_list_changed)
{
    start("{}", WG_AUTONOMY_NORMAL);
    handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    json_decref(wait_for(NULL, 2, NULL));
    /* another engine on the same data dir: another process */
    wg_engine *other = NULL;
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    cr_assert_eq(wg_engine_open(&other, &o), 0);
    wg_connect_request req = { .token = "ghp_unit_test_token", .principal = WG_PRINCIPAL_OPERATOR };
    wg_connector_limit_decision lim;
    cr_assert_eq(wg_engine_connect(&lim, other, "github", &req, "test"), 0, "%s", wg_error_last());
    json_decref(wait_for(NULL, -1, "notifications/tools/list_changed"));
    wg_engine_free(other);
}

Test(session, calls_beyond_max_calls_wait_their_turn_and_a_queued_cancel_gets_no_answer)
{
    wg_mcp_options o = WG_MCP_OPTIONS_INIT;
    o.engine = engine;
    o.max_calls = 1;
    o.no_watch = 1;
    o.send = capture;
    o.send_ud = &out;
    cr_assert_eq(wg_mcp__session_new(&sess, &o), 0);
    handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}}}}");
    json_decref(wait_for(NULL, 1, NULL));
    size_t from = 0;
    handle(send_call);                 /* id 2: holds the only thread, asking the person */
    json_t *req = wait_for(&from, -1, "elicitation/create");
    for (int id = 3; id <= 5; id++) {
        char buf[256];
        snprintf(buf, sizeof buf, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
                 "{\"name\":\"gate_check\",\"arguments\":{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}}}}", id);
        handle(buf);
    }
    handle("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":4}}");
    cr_expect_eq(wg_mcp__session_running(sess), 4, "one running, three queued");
    pthread_mutex_lock(&out.mu);
    size_t i;
    json_t *m;
    json_array_foreach(out.msgs, i, m)
        cr_expect(json_integer_value(json_object_get(m, "id")) < 3 || json_object_get(m, "method"),
                  "a queued call answered before its turn");
    pthread_mutex_unlock(&out.mu);
    char ans[160];
    snprintf(ans, sizeof ans, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"decline\"}}",
             (long long)json_integer_value(json_object_get(req, "id")));
    json_decref(req);
    handle(ans);
    json_decref(wait_for(NULL, 2, NULL));
    json_decref(wait_for(NULL, 3, NULL));
    json_decref(wait_for(NULL, 5, NULL));
    wg_mcp__session_close(sess);
    pthread_mutex_lock(&out.mu);
    json_array_foreach(out.msgs, i, m)
        cr_expect(!(json_integer_value(json_object_get(m, "id")) == 4 && !json_object_get(m, "method")),
                  "the cancelled queued call was answered");
    pthread_mutex_unlock(&out.mu);
    cr_expect_eq(wg_mcp__session_running(sess), 0);
}

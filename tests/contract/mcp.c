/* mcp.c - /mcp (MCP Streamable HTTP, revision 2025-11-25) against a real
 * 2-thread waggled with real SSE clients (curl -N): a call that waits for
 * the person keeps its stream suspended, never a pool thread; an
 * elicitation answered from another connection runs the call on the
 * waiting stream; clients that vanish mid-call are released by the next
 * heartbeat and nothing runs; DELETE ends the session and its waits, the
 * approvals stay pending. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/server_int.h"
#include "server/sse.h"
#include "server_test.h"
#include "sse_client.h"

#define SEND "connector_slack-mock_send_slack_message"

static wgt_server s;
static const char *const origins[] = { "https://app.example", NULL };

static void setup(void)
{
    wgt_server_config cfg = { .demo = 1, .sse_heartbeat_ms = 200, .threads = 2,
                              .cors_origins = origins };
    wgt_server_start(&s, &cfg);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(mcp, .init = setup, .fini = teardown, .timeout = 90);

static size_t open_streams(void)
{
    return wg_sse__count(s.srv->sse);
}

static int wait_streams(size_t n, int ms)
{
    for (int waited = 0; waited < ms; waited += 20) {
        if (open_streams() == n)
            return 1;
        usleep(20 * 1000);
    }
    return open_streams() == n;
}

static const char accept_both[] = "Accept: application/json, text/event-stream";

/* POST /mcp with the session header (sid NULL: none). */
static void post(wgt_http_res *r, const char *sid, const char *body)
{
    char h[96];
    snprintf(h, sizeof h, "Mcp-Session-Id: %s", sid ? sid : "");
    const char *headers[] = { accept_both, sid ? h : NULL, NULL };
    wgt_http_ex(r, &s, "POST", "/mcp", body, strlen(body), 1, headers);
}

/* A session whose client declares elicitation; *sid is new (free()). */
static char *session(void)
{
    wgt_http_res r;
    post(&r, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
         "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
         "\"clientInfo\":{\"name\":\"contract\",\"version\":\"1\"}}}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *sid = wgt_http_header(&r, "Mcp-Session-Id");
    cr_assert_not_null(sid);
    wgt_http_res_free(&r);
    post(&r, sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    cr_assert_eq(r.status, 202);
    wgt_http_res_free(&r);
    return sid;
}

static wgt_sse *start_call(const char *sid, int id)
{
    char h[96], body[256];
    snprintf(h, sizeof h, "Mcp-Session-Id: %s", sid);
    snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
             "{\"name\":\"" SEND "\",\"arguments\":{\"channel\":\"#general\",\"message\":\"hi\"}}}", id);
    const char *headers[] = { accept_both, h, NULL };
    return wgt_sse_open_ex(&s, "POST", "/mcp", body, headers);
}

static int pending_approvals(void)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/approvals", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *list = json_object_get(r.json, "approvals");
    int n = 0;
    size_t i;
    json_t *a;
    json_array_foreach(list, i, a)
        n += strcmp(json_string_value(json_object_get(a, "state")), "pending") == 0;
    wgt_http_res_free(&r);
    return n;
}

Test(mcp, an_elicitation_answered_from_another_connection_runs_the_call_on_its_stream)
{
    char *sid = session();
    wgt_sse *c = start_call(sid, 7);
    json_t *ask = wgt_sse_next(c, "message", 15000);
    cr_assert_not_null(ask, "no elicitation: %s", wgt_sse_raw(c));
    cr_assert_str_eq(json_string_value(json_object_get(ask, "method")), "elicitation/create");
    char answer[256];
    snprintf(answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":"
             "\"accept\",\"content\":{\"approve\":true}}}",
             (long long)json_integer_value(json_object_get(ask, "id")));
    json_decref(ask);
    wgt_http_res r;
    post(&r, sid, answer);
    cr_assert_eq(r.status, 202);
    wgt_http_res_free(&r);
    json_t *m = NULL;
    while ((m = wgt_sse_next(c, "message", 15000)) && json_object_get(m, "method"))
        json_decref(m);          /* progress */
    cr_assert_not_null(m, "no response: %s", wgt_sse_raw(c));
    cr_assert_eq(json_integer_value(json_object_get(m, "id")), 7);
    json_t *result = json_object_get(m, "result");
    cr_assert(json_is_false(json_object_get(result, "isError")), "%s", wgt_sse_raw(c));
    json_decref(m);
    cr_assert(wgt_sse_ended(c, 15000), "the stream ends with its response");
    wgt_sse_close(c);
    free(sid);
}

Test(mcp, vanished_clients_mid_call_neither_hold_threads_nor_run_anything)
{
    /* more waiting calls than the server has pool threads (2) */
    enum { N = 6 };
    char *sid = session();
    wgt_sse *c[N];
    for (int i = 0; i < N; i++) {
        c[i] = start_call(sid, 10 + i);
        json_t *ask = wgt_sse_next(c[i], "message", 15000);
        cr_assert_not_null(ask, "call %d was not asked: %s", i, wgt_sse_raw(c[i]));
        json_decref(ask);
    }
    cr_assert(wait_streams(N, 15000), "%zu streams open", open_streams());
    /* while every call waits for a person, ordinary requests are answered */
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/tier", NULL);
    cr_assert_eq(r.status, 200, "the pool threads are not held by waiting calls");
    wgt_http_res_free(&r);
    post(&r, sid, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}");
    cr_assert_eq(r.status, 200, "the session answers while its calls wait");
    wgt_http_res_free(&r);
    for (int i = 0; i < N; i++)
        wgt_sse_kill(c[i]);
    /* the next heartbeat finds each dead connection and releases its stream */
    cr_assert(wait_streams(0, 15000), "%zu streams were not released", open_streams());
    for (int i = 0; i < N; i++)
        wgt_sse_close(c[i]);
    cr_assert_eq(pending_approvals(), N, "nothing ran, every approval still waits");
    /* ending the session gives up the waits; the approvals stay for `waggle approve` */
    char h[96];
    snprintf(h, sizeof h, "Mcp-Session-Id: %s", sid);
    const char *headers[] = { h, NULL };
    wgt_http_ex(&r, &s, "DELETE", "/mcp", NULL, 0, 1, headers);
    cr_assert_eq(r.status, 204);
    wgt_http_res_free(&r);
    post(&r, sid, "{\"jsonrpc\":\"2.0\",\"id\":100,\"method\":\"ping\"}");
    cr_assert_eq(r.status, 404, "an ended session");
    wgt_http_res_free(&r);
    cr_assert_eq(pending_approvals(), N);
    free(sid);
    /* and a new session works */
    free(session());
}

Test(mcp, an_allowed_browser_origin_may_send_and_read_the_session_header)
{
    const char *pre[] = { "Origin: https://app.example", "Access-Control-Request-Method: POST",
                          "Access-Control-Request-Headers: mcp-session-id", NULL };
    wgt_http_res r;
    wgt_http_ex(&r, &s, "OPTIONS", "/mcp", NULL, 0, 0, pre);
    cr_assert_eq(r.status, 204);
    char *allow = wgt_http_header(&r, "Access-Control-Allow-Headers");
    cr_assert(allow && strstr(allow, "Mcp-Session-Id") && strstr(allow, "MCP-Protocol-Version"),
              "%s", allow ? allow : "(none)");
    free(allow);
    wgt_http_res_free(&r);
    const char *h[] = { accept_both, "Origin: https://app.example", NULL };
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}";
    wgt_http_ex(&r, &s, "POST", "/mcp", init, strlen(init), 1, h);
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *expose = wgt_http_header(&r, "Access-Control-Expose-Headers");
    cr_assert(expose && strstr(expose, "Mcp-Session-Id"));
    free(expose);
    wgt_http_res_free(&r);
    /* another origin is refused */
    const char *bad[] = { accept_both, "Origin: https://evil.example", NULL };
    wgt_http_ex(&r, &s, "POST", "/mcp", init, strlen(init), 1, bad);
    cr_assert_eq(r.status, 403);
    wgt_http_res_free(&r);
}

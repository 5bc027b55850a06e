/* events.c - spec 7.5 step events on the wire, with a real SSE client
 * (curl -N): POST /api/tools/execute with Accept: text/event-stream and
 * GET /api/events. The ⚡ step and the approval_auto row for a tool
 * auto-approved at Trusted; approval_required, then an approval from
 * another connection ends the stream with the result; a denial and an
 * expiry end it too; heartbeats; clients that vanish mid-stream neither
 * leak nor wedge the 2-thread server; the stream bound N-1, N, N+1. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "connect_replay.h"
#include "server/server_int.h"
#include "server/sse.h"
#include "server_test.h"
#include "sse_client.h"

static wgt_server s;
static wgt_replay *up;

static const char *const key_file[] = {
    "vault.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", NULL };

static const char create_args[] =
    "{\"owner\":\"octocat\",\"repo\":\"Hello-World\",\"title\":\"Found a bug\"}";
static const char create_ok[] =
    "[{\"request\":{\"method\":\"POST\",\"uri\":\"/repos/octocat/Hello-World/issues\","
    "\"body\":{\"title\":\"Found a bug\"}},\"response\":{\"status\":201,\"body\":{\"number\":1347}}}]";

static void expect(const char *json)
{
    json_t *ex = json ? json_loads(json, 0, NULL) : NULL;
    wgt_replay_expect(up, ex);
    json_decref(ex);
}

static void start(unsigned ttl_s, unsigned max_streams)
{
    wgt_server_config cfg = { .files = key_file, .approval_ttl_s = ttl_s, .sse_heartbeat_ms = 200,
                              .sse_max_streams = max_streams, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1 };
    wgt_server_start(&s, &cfg);
    up = wgt_replay_start();
    expect(NULL);
    char body[256];
    snprintf(body, sizeof body, "{\"token\":\"ghp_ssetesttoken0123456789\",\"baseUrl\":\"%s\"}",
             wgt_replay_base(up));
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/github/connect", body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
}

static void setup(void) { start(0, 0); }
static void setup_ttl(void) { start(1, 0); }
static void teardown(void)
{
    wgt_replay_stop(up);
    wgt_server_stop(&s);
}

static size_t open_streams(void)
{
    return wg_sse__count(s.srv->sse);
}

/* Waits until the server holds n streams (no timing is asserted). */
static int wait_streams(size_t n, int ms)
{
    for (int waited = 0; waited < ms; waited += 20) {
        if (open_streams() == n)
            return 1;
        usleep(20000);
    }
    return open_streams() == n;
}

static long long ahead(long long ms)
{
    return (long long)time(NULL) * 1000 + ms;
}

static json_t *audit(const char *event)
{
    char path[160];
    snprintf(path, sizeof path, "/api/audit?event=%s&limit=50", event);
    wgt_http_res r;
    wgt_http(&r, &s, "GET", path, NULL);
    cr_assert_eq(r.status, 200);
    json_t *ev = json_incref(json_object_get(r.json, "events"));
    wgt_http_res_free(&r);
    return ev;
}

static const char *content(const json_t *ev)
{
    const char *c = json_string_value(json_object_get(ev, "content"));
    return c ? c : "";
}

TestSuite(events, .init = setup, .fini = teardown, .timeout = 60);
TestSuite(events_ttl, .init = setup_ttl, .fini = teardown, .timeout = 60);

Test(events, spec_7_5_lightning_step_and_approval_auto_row_for_a_tool_auto_approved_at_trusted)
{
    wgt_sse *dash = wgt_sse_open(&s, "GET", "/api/events", NULL);
    cr_assert(wait_streams(1, 10000), "the dashboard stream did not open");
    char body[256];
    snprintf(body, sizeof body, "{\"tool\":\"write_file\",\"args\":{\"path\":\"notes.txt\"},"
             "\"sessionId\":\"s-1\",\"autonomy\":{\"level\":\"trusted\",\"expiresAt\":%lld}}",
             ahead(600000));
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/gate/check", body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_true(json_object_get(r.json, "autoApproved")), "%s", r.body);
    wgt_http_res_free(&r);
    json_t *ev = wgt_sse_next(dash, "step", 10000);
    cr_assert_not_null(ev, "no step event: %s", wgt_sse_raw(dash));
    cr_assert_str_eq(content(ev), "⚡ write_file auto-approved (trusted)");
    json_decref(ev);
    json_t *rows = audit("approval_auto");
    json_t *row = json_array_get(rows, 0);
    cr_assert_str_eq(json_string_value(json_object_get(row, "tool")), "write_file");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(row, "input"), "_autonomy")),
                     "trusted");
    json_decref(rows);
    /* framing: id, event and one data line, a blank line between events */
    cr_assert(strstr(wgt_sse_raw(dash), "\nevent: step\ndata: {"), "%s", wgt_sse_raw(dash));
    wgt_sse_close(dash);
}

Test(events, tools_execute_streams_the_yolo_auto_approval_then_the_result)
{
    expect(create_ok);
    char body[512];
    snprintf(body, sizeof body, "{\"tool\":\"connector_github_create_issue\",\"args\":%s,"
             "\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}", create_args, ahead(600000));
    wgt_sse *c = wgt_sse_open(&s, "POST", "/api/tools/execute", body);
    json_t *ev = wgt_sse_next(c, "step", 10000);
    cr_assert_not_null(ev, "%s", wgt_sse_raw(c));
    cr_assert_str_eq(content(ev), "⚡ connector_github_create_issue auto-approved (yolo)");
    json_decref(ev);
    ev = wgt_sse_next(c, "result", 10000);
    cr_assert_not_null(ev, "%s", wgt_sse_raw(c));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(ev, "result"),
                                                                    "data"), "number")), 1347);
    json_decref(ev);
    cr_assert(wgt_sse_ended(c, 10000), "the stream ends after the result");
    cr_assert_null(wgt_replay_verdict(up));
    wgt_sse_close(c);
    json_t *rows = audit("approval_auto");
    cr_assert_eq(json_array_size(rows), 1);
    json_decref(rows);
}

Test(events, approval_required_then_approved_from_another_connection)
{
    wgt_sse *dash = wgt_sse_open(&s, "GET", "/api/events", NULL);
    cr_assert(wait_streams(1, 10000));
    char body[512];
    snprintf(body, sizeof body, "{\"tool\":\"connector_github_create_issue\",\"args\":%s}", create_args);
    wgt_sse *c = wgt_sse_open(&s, "POST", "/api/tools/execute", body);
    json_t *ev = wgt_sse_next(c, "approval_required", 10000);
    cr_assert_not_null(ev, "%s", wgt_sse_raw(c));
    char id[64];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(ev, "approvalId")));
    cr_assert_str_eq(json_string_value(json_object_get(ev, "requestId")), id);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "toolName")), "connector_github_create_issue");
    json_decref(ev);
    /* the dashboard's live queue saw the same request */
    ev = wgt_sse_next(dash, "approval_required", 10000);
    cr_assert_not_null(ev);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "approvalId")), id);
    json_decref(ev);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "nothing ran yet");
    cr_assert_not(wgt_sse_ended(c, 300), "the stream waits for the answer");

    expect(create_ok);
    char path[128];
    snprintf(path, sizeof path, "/api/approval/%s", id);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    ev = wgt_sse_next(c, "step", 10000);
    cr_assert_not_null(ev, "%s", wgt_sse_raw(c));
    cr_assert_str_eq(content(ev), "✔ connector_github_create_issue approved");
    json_decref(ev);
    ev = wgt_sse_next(c, "result", 10000);
    cr_assert_not_null(ev, "%s", wgt_sse_raw(c));
    cr_assert_str_eq(json_string_value(json_object_get(ev, "approvalId")), id);
    json_decref(ev);
    cr_assert(wgt_sse_ended(c, 10000), "the stream ends after the result");
    cr_assert_null(wgt_replay_verdict(up));
    wgt_sse_close(c);
    wgt_sse_close(dash);
}

Test(events, a_denial_from_another_connection_ends_the_stream)
{
    char body[512];
    snprintf(body, sizeof body, "{\"tool\":\"connector_github_create_issue\",\"args\":%s}", create_args);
    wgt_sse *c = wgt_sse_open(&s, "POST", "/api/tools/execute", body);
    json_t *ev = wgt_sse_next(c, "approval_required", 10000);
    cr_assert_not_null(ev);
    char path[128];
    snprintf(path, sizeof path, "/api/approval/%s", json_string_value(json_object_get(ev, "approvalId")));
    json_decref(ev);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", path, "{\"approved\":false}");
    cr_assert_eq(r.status, 200);
    wgt_http_res_free(&r);
    ev = wgt_sse_next(c, "step", 10000);
    cr_assert_not_null(ev, "%s", wgt_sse_raw(c));
    cr_assert_str_eq(content(ev), "✖ connector_github_create_issue denied by user");
    json_decref(ev);
    ev = wgt_sse_next(c, "error", 10000);
    cr_assert_not_null(ev);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "error")), "APPROVAL_DENIED");
    json_decref(ev);
    cr_assert(wgt_sse_ended(c, 10000));
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    wgt_sse_close(c);
}

Test(events_ttl, an_expiry_ends_the_waiting_stream_as_a_denial)
{
    char body[512];
    snprintf(body, sizeof body, "{\"tool\":\"connector_github_create_issue\",\"args\":%s}", create_args);
    wgt_sse *c = wgt_sse_open(&s, "POST", "/api/tools/execute", body);
    json_t *ev = wgt_sse_next(c, "approval_required", 10000);
    cr_assert_not_null(ev);
    json_decref(ev);
    ev = wgt_sse_next(c, "error", 20000);
    cr_assert_not_null(ev, "%s", wgt_sse_raw(c));
    cr_assert_str_eq(json_string_value(json_object_get(ev, "error")), "APPROVAL_EXPIRED");
    json_decref(ev);
    cr_assert(strstr(wgt_sse_raw(c), "approval expired"), "%s", wgt_sse_raw(c));
    cr_assert(wgt_sse_ended(c, 10000));
    wgt_sse_close(c);
    json_t *rows = audit("approval_denied");
    cr_assert_eq(json_array_size(rows), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "rule")),
                     "approval.expired");
    json_decref(rows);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
}

Test(events, idle_streams_get_heartbeats)
{
    wgt_sse *dash = wgt_sse_open(&s, "GET", "/api/events", NULL);
    for (int i = 0; i < 100 && !strstr(wgt_sse_raw(dash), ": heartbeat"); i++)
        wgt_sse_next(dash, "none", 100);
    cr_assert(strstr(wgt_sse_raw(dash), ": heartbeat\n\n"), "%s", wgt_sse_raw(dash));
    wgt_sse_close(dash);
}

Test(events, vanished_clients_neither_leak_nor_wedge_the_server)
{
    /* more streams than the server has pool threads (2), then every client
     * vanishes mid-stream without a goodbye */
    enum { N = 6 };
    wgt_sse *c[N];
    char body[512];
    snprintf(body, sizeof body, "{\"tool\":\"connector_github_create_issue\",\"args\":%s}", create_args);
    for (int i = 0; i < N; i++) {
        c[i] = i % 2 ? wgt_sse_open(&s, "GET", "/api/events", NULL)
                     : wgt_sse_open(&s, "POST", "/api/tools/execute", body);
    }
    cr_assert(wait_streams(N, 15000), "%zu streams open", open_streams());
    /* while they are open, ordinary requests are answered at once */
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/tier", NULL);
    cr_assert_eq(r.status, 200, "the pool threads are not held by streams");
    wgt_http_res_free(&r);
    for (int i = 0; i < N; i++)
        wgt_sse_kill(c[i]);
    /* the next heartbeat finds each dead connection and releases its stream */
    cr_assert(wait_streams(0, 15000), "%zu streams were not released", open_streams());
    for (int i = 0; i < N; i++)
        wgt_sse_close(c[i]);
    wgt_http(&r, &s, "GET", "/healthz", NULL);
    cr_assert_eq(r.status, 200);
    wgt_http_res_free(&r);
    /* and a new stream still works */
    wgt_sse *again = wgt_sse_open(&s, "GET", "/api/events", NULL);
    cr_assert(wait_streams(1, 10000));
    wgt_sse_close(again);
}

Test(events, without_the_accept_header_the_answer_is_json)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/tools/execute", "{\"tool\":\"list_connector_categories\"}");
    cr_assert_eq(r.status, 200);
    char *ct = wgt_http_header(&r, "Content-Type");
    cr_assert(ct && strstr(ct, "application/json"), "%s", ct ? ct : "(none)");
    free(ct);
    wgt_http_res_free(&r);
}

TestSuite(events_bound, .timeout = 60);

Test(events_bound, at_most_max_streams_n_minus_1_n_n_plus_1)
{
    start(0, 2);
    wgt_sse *a = wgt_sse_open(&s, "GET", "/api/events", NULL);
    cr_assert(wait_streams(1, 10000));
    wgt_sse *b = wgt_sse_open(&s, "GET", "/api/events", NULL);
    cr_assert(wait_streams(2, 10000), "the bound admits N");
    wgt_sse *c = wgt_sse_open(&s, "GET", "/api/events", NULL);
    cr_assert(wgt_sse_ended(c, 10000), "N+1 is refused at once");
    cr_assert(strstr(wgt_sse_raw(c), "UNAVAILABLE"), "%s", wgt_sse_raw(c));
    cr_assert_eq(open_streams(), 2);
    wgt_sse_close(c);
    wgt_sse_close(a);
    wgt_sse_close(b);
    teardown();
}

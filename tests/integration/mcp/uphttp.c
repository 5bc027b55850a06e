/* uphttp.c - the gateway's url upstream (src/mcp/upstream.h over
 * src/mcp/uphttp.h, MCP 2025-11-25 Streamable HTTP, client side) against
 * tests/support/mcp_http_fixture.c on a real loopback socket: what every
 * request carries (Accept, Content-Type, the configured headers with the
 * vault value, the session id and protocol version after initialize, a
 * DELETE at the end, nothing in the URL), a JSON answer, an SSE answer with
 * a comment, a priming event, a notification and CRLF before a response
 * split over data lines, a ping and a list_changed inside a stream, a
 * list_changed on the GET stream (and the timer when GET is 405), a POST
 * stream that ends after an event id (resumed with GET Last-Event-ID), a body
 * and an event over the limit (the session restarts), a stream of garbage
 * without a response (only the call fails), a hang (timeout, cancelled, the
 * session stays), a 404 for the session (initialize again), a 500 (restart),
 * a redirect (not followed), nobody listening (FAILED), a header value with
 * CR/LF from the vault (refused, the value never shown), and a call in
 * flight when the session breaks (it fails at once), a server gone
 * between calls (noticed through the GET stream), and an https server with
 * a self-signed certificate (refused: TLS is verified). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcp/upstream.h"
#include "upstream_calls.h"
#include "mcp_http_fixture.h"
#include "waggle/error.h"

#define SECRET "s3cret-from-vault"

static wgt_mcphttp *fx;

static void setup(void)
{
    fx = wgt_mcphttp_start();
    cr_assert_not_null(fx);
}

static void teardown(void)
{
    wgt_mcphttp_stop(fx);
}

TestSuite(uphttp, .init = setup, .fini = teardown, .timeout = 120);

static int resolve(void *ud, const char *name, char **value)
{
    (void)ud;
    if (!strcmp(name, "tok"))
        *value = strdup("Bearer " SECRET);
    else if (!strcmp(name, "crlf"))
        *value = strdup("Bearer x\r\nX-Injected: " SECRET);
    else
        return WG_ENOTFOUND;
    return 0;
}

/* The last request of the log that is not the session's GET stream: the
 * fixture logs on receipt, so a listener's GET sent just before the close
 * may be logged after the DELETE that follows it (seen under ASan). */
static const wgt_mcphttp_req *last_but_get(const wgt_mcphttp_req *log, size_t n)
{
    while (n > 0 && strcmp(log[n - 1].method, "GET") == 0)
        n--;
    cr_assert_gt(n, 0, "only GET requests");
    return &log[n - 1];
}

static long relist_ms;   /* 0: the default (a minute: never within a test) */

static wg_upstream *start_at(const char *url, wg_gw_pair *pairs, size_t npairs, long backoff)
{
    wg_gw_server s = { .name = "far", .url = (char *)url, .pairs = pairs, .npairs = npairs,
                       .timeout_ms = 20000 };
    wg_up_options o = { .server = &s, .resolve = resolve, .line_max = 1u << 20, .backoff_min_ms = backoff,
                        .backoff_max_ms = backoff * 4, .stderr_fd = -1, .relist_ms = relist_ms };
    wg_upstream *u = NULL;
    cr_assert_eq(wg_mcp__up_start(&u, &o), 0, "%s", wg_error_last());
    return u;
}

static wg_upstream *start_healthy(void)
{
    wg_gw_pair pairs[] = { { "Authorization", "tok", 1 }, { "X-Team", "blue", 0 } };
    wg_upstream *u = start_at(wgt_mcphttp_url(fx), pairs, 2, 10);
    cr_assert_eq(wg_mcp__up_wait_healthy(u, 20000), 0, "%s", wg_error_last());
    return u;
}

/* Polls until the fixture's counter reaches n (or 10 s). */
static long wait_count(const char *what, long n)
{
    long v = 0;
    for (int i = 0; i < 1000 && (v = wgt_mcphttp_count(fx, what)) < n; i++)
        wgt_sleep_ms(10);
    return v;
}

static void expect_back(wg_upstream *u, unsigned restarts)
{
    wg_up_status st = { 0 };
    for (int i = 0; i < 2000; i++) {
        wg_mcp__up_status(u, &st);
        if (st.restarts >= restarts && st.state == WG_UP_HEALTHY)
            break;
        wgt_sleep_ms(10);
    }
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    cr_expect_geq(st.restarts, restarts);
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"back\"}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "back");
    json_decref(r);
}

Test(uphttp, sends_what_the_transport_requires_and_deletes_the_session)
{
    wg_upstream *u = start_healthy();
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.tools, 14, "%zu", st.tools);
    cr_expect_eq(wait_count("get", 1), 1, "the GET stream opens after initialize");
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"hello\"}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "hello");
    json_decref(r);
    wg_mcp__up_free(u);

    cr_expect_null(wgt_mcphttp_problem(fx), "%s", wgt_mcphttp_problem(fx));
    cr_expect_eq(wgt_mcphttp_count(fx, "delete"), 1);
    wgt_mcphttp_req log[32];
    size_t n = wgt_mcphttp_requests(fx, log, 32);
    cr_assert_geq(n, 6, "%zu", n);   /* initialize, initialized, tools/list, GET, tools/call, DELETE */
    cr_expect_str_eq(log[0].rpc, "initialize");
    cr_expect_str_eq(log[0].session, "");
    cr_expect_str_eq(log[1].rpc, "notifications/initialized");
    for (size_t i = 0; i < n; i++) {
        cr_expect_str_eq(log[i].path, "/mcp");
        cr_expect_str_eq(log[i].auth, "Bearer " SECRET, "request %zu", i);
        cr_expect_str_eq(log[i].team, "blue");
        if (!strcmp(log[i].method, "GET")) {
            cr_expect_str_eq(log[i].accept, "text/event-stream");
            cr_expect_str_eq(log[i].session, "fx-session-1");
        }
        if (strcmp(log[i].method, "POST"))
            continue;
        cr_expect_str_eq(log[i].accept, "application/json, text/event-stream");
        cr_expect_str_eq(log[i].ctype, "application/json");
        if (i > 0) {
            cr_expect_str_eq(log[i].session, "fx-session-1", "request %zu", i);
            cr_expect_str_eq(log[i].proto, "2025-11-25", "request %zu", i);
        }
    }
    cr_expect_str_eq(last_but_get(log, n)->method, "DELETE");
    cr_expect_str_eq(last_but_get(log, n)->session, "fx-session-1");
}

Test(uphttp, an_sse_answer_with_events_before_the_response_is_read)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "sse_echo", "{\"text\":\"hi\"}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "hi via sse");
    json_decref(r);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.ignored, 0, "the priming event and the comment are not garbage: %zu", st.ignored);
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    wg_mcp__up_free(u);
}

Test(uphttp, a_ping_and_a_list_changed_inside_a_stream)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "ping_me", NULL, 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "pong");
    json_decref(r);
    cr_expect_eq(wait_count("pong", 1), 1);
    cr_assert_eq(wgt_up_call(u, "change", NULL, 0, &r), 0, "%s", wg_error_last());
    json_decref(r);
    wg_up_status st = { 0 };
    for (int i = 0; i < 1000 && st.tools != 15; i++) {
        wg_mcp__up_status(u, &st);
        wgt_sleep_ms(10);
    }
    cr_expect_eq(st.tools, 15);
    json_t *extra = wg_mcp__up_tool(u, "extra");
    cr_expect_not_null(extra);
    json_decref(extra);
    wg_mcp__up_free(u);
    cr_expect_null(wgt_mcphttp_problem(fx), "%s", wgt_mcphttp_problem(fx));
}

Test(uphttp, a_body_or_an_event_over_the_limit_restarts_the_session)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "big", NULL, 0, &r), WG_EUNAVAILABLE);
    cr_expect_not_null(strstr(wg_error_last(), "over 1048576 bytes"), "%s", wg_error_last());
    expect_back(u, 1);
    cr_expect_eq(wgt_up_call(u, "bigsse", NULL, 0, &r), WG_EUNAVAILABLE);
    cr_expect_not_null(strstr(wg_error_last(), "over 1048576 bytes"), "%s", wg_error_last());
    expect_back(u, 2);
    cr_expect_geq(wgt_mcphttp_count(fx, "initialize"), 3);
    wg_mcp__up_free(u);
}

Test(uphttp, a_stream_of_garbage_without_a_response_fails_only_the_call)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "badsse", NULL, 0, &r), WG_EUPSTREAM);
    cr_expect_not_null(strstr(wg_error_last(), "without its response"), "%s", wg_error_last());
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    cr_expect_eq(st.restarts, 0);
    cr_expect_geq(st.ignored, 2, "%zu", st.ignored);
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"still\"}", 0, &r), 0, "%s", wg_error_last());
    json_decref(r);
    wg_mcp__up_free(u);
}

Test(uphttp, a_hung_call_times_out_is_cancelled_and_the_session_stays)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "hang", NULL, 300, &r), WG_ETIMEOUT);
    cr_expect_not_null(strstr(wg_error_last(), "did not answer tools/call within 300 ms"), "%s", wg_error_last());
    cr_expect_eq(wait_count("cancelled", 1), 1);
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"still\"}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "still");
    json_decref(r);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.restarts, 0);
    wg_mcp__up_free(u);
}

Test(uphttp, a_404_for_the_session_initializes_again)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "expire", NULL, 0, &r), WG_EUNAVAILABLE);
    cr_expect_not_null(strstr(wg_error_last(), "session expired"), "%s", wg_error_last());
    expect_back(u, 1);
    cr_expect_eq(wgt_mcphttp_count(fx, "initialize"), 2);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_not_null(strstr(st.last_error, "session expired"), "%s", st.last_error);
    wg_mcp__up_free(u);
    wgt_mcphttp_req log[64];
    size_t n = wgt_mcphttp_requests(fx, log, 64);
    cr_assert_gt(n, 2);
    cr_expect_str_eq(last_but_get(log, n)->method, "DELETE");
    cr_expect_str_eq(last_but_get(log, n)->session, "fx-session-2");
    cr_expect_null(wgt_mcphttp_problem(fx), "%s", wgt_mcphttp_problem(fx));
}

Test(uphttp, a_500_restarts_with_backoff)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "fail500", NULL, 0, &r), WG_EUNAVAILABLE);
    cr_expect_not_null(strstr(wg_error_last(), "HTTP 500"), "%s", wg_error_last());
    expect_back(u, 1);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_not_null(strstr(st.last_error, "HTTP 500"), "%s", st.last_error);
    /* a 500 whose body is a JSON-RPC error is still a broken server */
    cr_expect_eq(wgt_up_call(u, "fail500rpc", NULL, 0, &r), WG_EUNAVAILABLE);
    expect_back(u, 2);
    wg_mcp__up_free(u);
}

Test(uphttp, a_redirect_is_not_followed)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "redirect", NULL, 0, &r), WG_EUPSTREAM);
    cr_expect_not_null(strstr(wg_error_last(), "HTTP 307, a redirect"), "%s", wg_error_last());
    cr_expect_eq(wgt_mcphttp_count(fx, "elsewhere"), 0);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    wg_mcp__up_free(u);
}

Test(uphttp, nobody_listening_ends_failed_with_the_reason)
{
    wg_upstream *u = start_at("http://127.0.0.1:1/mcp", NULL, 0, 1);
    cr_expect_eq(wg_mcp__up_wait_healthy(u, 60000), WG_EUNAVAILABLE);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_FAILED);
    cr_expect_eq(st.restarts, WG_UP_GIVEUP - 1);
    cr_expect_not_null(strstr(st.last_error, "connect"), "%s", st.last_error);
    cr_expect_eq(st.tools, 0);
    wg_mcp__up_free(u);
}

Test(uphttp, a_header_value_with_crlf_is_refused_and_never_shown)
{
    wg_gw_pair pairs[] = { { "Authorization", "crlf", 1 } };
    wg_upstream *u = start_at(wgt_mcphttp_url(fx), pairs, 1, 1);
    cr_expect_eq(wg_mcp__up_wait_healthy(u, 60000), WG_EUNAVAILABLE);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_FAILED);
    cr_expect_not_null(strstr(st.last_error, "Authorization"), "%s", st.last_error);
    cr_expect_null(strstr(st.last_error, SECRET), "%s", st.last_error);
    cr_expect_null(strstr(st.last_error, "Bearer"), "%s", st.last_error);
    cr_expect_eq(wgt_mcphttp_count(fx, "initialize"), 0, "nothing was sent");
    wg_mcp__up_free(u);
}

static void *hang_call(void *arg)
{
    json_t *r = NULL;
    intptr_t rc = wgt_up_call(arg, "hang", NULL, 20000, &r);
    json_decref(r);
    return (void *)rc;
}

Test(uphttp, calls_in_flight_fail_at_once_when_the_session_breaks)
{
    wg_upstream *u = start_healthy();
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, hang_call, u), 0);
    wait_count("tools/call", 1);
    wgt_sleep_ms(100);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "fail500", NULL, 0, &r), WG_EUNAVAILABLE);
    void *rc = NULL;
    pthread_join(t, &rc);   /* aborted by the teardown, not after its 20 s */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    cr_expect_eq((intptr_t)rc, WG_EUNAVAILABLE);
    cr_expect_lt(ms, 5000, "%ld ms", ms);
    expect_back(u, 1);
    wg_mcp__up_free(u);
}

static unsigned tools_within(wg_upstream *u, size_t want, long ms)
{
    wg_up_status st = { 0 };
    for (long t = 0; t < ms; t += 10) {
        wg_mcp__up_status(u, &st);
        if (st.tools == want)
            break;
        wgt_sleep_ms(10);
    }
    return (unsigned)st.tools;
}

Test(uphttp, list_changed_on_the_get_stream_lists_again)
{
    wg_upstream *u = start_healthy();
    cr_expect_eq(wait_count("get", 1), 1);
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "change_later", NULL, 0, &r), 0, "%s", wg_error_last());
    json_decref(r);
    cr_expect_eq(tools_within(u, 15, 10000), 15, "the GET stream's list_changed (the timer is a minute)");
    wg_mcp__up_free(u);
    cr_expect_null(wgt_mcphttp_problem(fx), "%s", wgt_mcphttp_problem(fx));
}

Test(uphttp, without_a_get_stream_the_timer_lists_again)
{
    char url[96];
    snprintf(url, sizeof url, "%s-noget", wgt_mcphttp_url(fx));
    relist_ms = 200;
    wg_upstream *u = start_at(url, NULL, 0, 10);
    relist_ms = 0;
    cr_assert_eq(wg_mcp__up_wait_healthy(u, 20000), 0, "%s", wg_error_last());
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "change_later", NULL, 0, &r), 0, "%s", wg_error_last());
    json_decref(r);
    cr_expect_eq(tools_within(u, 15, 10000), 15);
    cr_expect_eq(wgt_mcphttp_count(fx, "get"), 0);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    cr_expect_eq(st.restarts, 0, "a 405 to GET is not a failure");
    wg_mcp__up_free(u);
}

Test(uphttp, a_server_gone_between_calls_is_noticed_without_a_call)
{
    wg_upstream *u = start_healthy();
    cr_expect_eq(wait_count("get", 1), 1);
    wgt_mcphttp_stop(fx);   /* ends the GET stream; nothing listens any more */
    fx = NULL;
    wg_up_status st = { 0 };
    for (int i = 0; i < 1000; i++) {
        wg_mcp__up_status(u, &st);
        if (st.state != WG_UP_HEALTHY)
            break;
        wgt_sleep_ms(10);
    }
    cr_expect_neq(st.state, WG_UP_HEALTHY);
    cr_expect_not_null(strstr(st.last_error, "connect"), "%s", st.last_error);
    wg_mcp__up_free(u);
}

/* A self-signed certificate for 127.0.0.1, made now by openssl (no key is
 * kept in the tree). 0 when openssl is not there. */
static int self_signed(char **cert, char **key)
{
    char dir[] = "/tmp/wg-uphttp-tls-XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char cmd[512], cp[128], kp[128];
    snprintf(cp, sizeof cp, "%s/cert.pem", dir);
    snprintf(kp, sizeof kp, "%s/key.pem", dir);
    snprintf(cmd, sizeof cmd, "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 "
             "-addext subjectAltName=IP:127.0.0.1 -days 2 -keyout %s -out %s >/dev/null 2>&1", kp, cp);
    int ok = system(cmd) == 0;
    FILE *f;
    *cert = *key = NULL;
    for (int i = 0; ok && i < 2; i++) {
        char **dst = i ? key : cert;
        f = fopen(i ? kp : cp, "rb");
        if (!f) {
            ok = 0;
            break;
        }
        *dst = calloc(1, 16384);
        ok = *dst && fread(*dst, 1, 16383, f) > 0;
        fclose(f);
    }
    unlink(cp);
    unlink(kp);
    rmdir(dir);
    return ok;
}

Test(uphttp, https_verifies_the_certificate)
{
    char *cert = NULL, *key = NULL;
    if (!self_signed(&cert, &key)) {
        free(cert);
        free(key);
        cr_skip_test("openssl cannot make a test certificate");
    }
    wgt_mcphttp *tls = wgt_mcphttp_start_tls(cert, key);
    cr_assert_not_null(tls);
    cr_assert_eq(strncmp(wgt_mcphttp_url(tls), "https://", 8), 0);
    wg_upstream *u = start_at(wgt_mcphttp_url(tls), NULL, 0, 1);
    cr_expect_eq(wg_mcp__up_wait_healthy(u, 60000), WG_EUNAVAILABLE);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_FAILED);
    cr_expect_not_null(strstr(st.last_error, "SSL"), "%s", st.last_error);
    cr_expect_eq(wgt_mcphttp_count(tls, "initialize"), 0, "a self-signed server is never spoken to");
    wg_mcp__up_free(u);
    wgt_mcphttp_stop(tls);
    free(cert);
    free(key);
}

Test(uphttp, a_stream_ended_after_an_event_id_is_resumed_with_get)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "poll", NULL, 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "polled");
    json_decref(r);
    cr_expect_eq(wgt_mcphttp_count(fx, "resumed"), 1);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.restarts, 0);
    wg_mcp__up_free(u);
    cr_expect_null(wgt_mcphttp_problem(fx), "%s", wgt_mcphttp_problem(fx));
}

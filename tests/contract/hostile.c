/* hostile.c - hostile inputs against a real waggled: malformed JSON, wrong
 * types, invalid UTF-8, NUL bytes, deep nesting, huge headers and URLs,
 * garbage on the socket, slow clients. The server must answer a JSON error
 * (or close the connection) and stay up; nothing is echoed back. */
#include <criterion/criterion.h>

#include "server_test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static wgt_server s;

static void setup(void)
{
    wgt_server_config cfg = { .timeout_s = 1 };
    wgt_server_start(&s, &cfg);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(hostile, .init = setup, .fini = teardown);

static void still_alive(void)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/healthz", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 200, "server no longer answers");
    wgt_http_res_free(&r);
}

static void post_raw(wgt_http_res *r, const char *path, const char *body, size_t len)
{
    wgt_http_ex(r, &s, "POST", path, body, len, WGT_AUTH_API, NULL);
}

Test(hostile, malformed_json_is_400_invalid_json)
{
    static const char *const bodies[] = {
        "{", "{\"query\":", "{\"query\":\"x\"} trailing", "{'query':'x'}", "{\"query\":NaN}",
        "{\"query\":\"x\",\"query\":\"y\"}", "[]", "1", "null", "\"str\"", "{\"query\":\"\xff\xfe\"}",
        "{\"query\":\"\xc0\xaf\"}", "{\"query\":\"\xed\xa0\x80\"}", "\xef\xbb\xbf{}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        wgt_http_res r;
        post_raw(&r, "/api/capabilities/resolve", bodies[i], strlen(bodies[i]));
        cr_expect_eq(r.status, 400, "body %zu -> %ld", i, r.status);
        cr_expect_str_eq(json_string_value(json_object_get(r.json, "error")), "INVALID_JSON",
                         "body %zu: %s", i, r.body);
        wgt_http_res_free(&r);
    }
    still_alive();
}

Test(hostile, nul_byte_inside_body_is_refused)
{
    static const char body[] = "{\"query\":\"a\0b\"}";
    wgt_http_res r;
    post_raw(&r, "/api/capabilities/resolve", body, sizeof body - 1);
    cr_assert_eq(r.status, 400);
    wgt_http_res_free(&r);
    static const char escaped[] = "{\"query\":\"a\\u0000b\"}";
    post_raw(&r, "/api/capabilities/resolve", escaped, sizeof escaped - 1);
    cr_assert_eq(r.status, 400, "%s", r.body);   /* jansson refuses \u0000 */
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "INVALID_JSON");
    wgt_http_res_free(&r);
}

Test(hostile, deep_nesting_does_not_crash)
{
    size_t depth = 200000;
    char *b = malloc(depth * 2 + 16);
    size_t k = 0;
    k += (size_t)sprintf(b, "{\"query\":");
    for (size_t i = 0; i < depth; i++)
        b[k++] = '[';
    for (size_t i = 0; i < depth; i++)
        b[k++] = ']';
    b[k++] = '}';
    wgt_http_res r;
    post_raw(&r, "/api/capabilities/resolve", b, k);
    cr_assert_eq(r.status, 400);
    wgt_http_res_free(&r);
    free(b);
    still_alive();
}

Test(hostile, wrong_types_name_the_field)
{
    static const struct { const char *path, *body, *field; } cases[] = {
        { "/api/capabilities/resolve", "{\"query\":[\"x\"]}", "query" },
        { "/api/capabilities/resolve", "{\"query\":\"x\",\"deps\":\"all\"}", "deps" },
        { "/api/capabilities/acquire", "{\"need\":{}}", "need" },
        { "/api/trust/assess", "{\"content\":42}", "content" },
        { "/api/trust/assess", "{\"content\":\"x\",\"source\":false}", "source" },
        { "/api/cost/events", "{\"workspaceId\":\"a\",\"costUsd\":1,\"inputTokens\":1.5}", "inputTokens" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wgt_http_res r;
        post_raw(&r, cases[i].path, cases[i].body, strlen(cases[i].body));
        cr_expect_eq(r.status, 400, "%s %s -> %ld", cases[i].path, cases[i].body, r.status);
        cr_expect_str_eq(json_string_value(json_object_get(r.json, "error")), "INVALID_FIELD");
        cr_expect_str_eq(json_string_value(json_object_get(r.json, "field")), cases[i].field,
                         "%s", r.body);
        wgt_http_res_free(&r);
    }
}

Test(hostile, error_bodies_do_not_echo_input)
{
    static const char body[] = "{\"query\":\"<script>alert(1)</script>\",\"deps\":7}";
    wgt_http_res r;
    post_raw(&r, "/api/capabilities/resolve", body, sizeof body - 1);
    cr_assert_eq(r.status, 400);
    cr_assert_null(strstr(r.body, "<script>"));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/<script>alert(1)</script>", NULL);
    cr_assert_eq(r.status, 404);
    cr_assert_null(strstr(r.body, "script"));
    wgt_http_res_free(&r);
}

Test(hostile, token_is_never_in_a_response)
{
    static const char *const paths[] = { "/api/tier", "/api/capabilities/status", "/api/nope",
                                         "/api/tools", "/api/admin/overview" };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        wgt_http_res r;
        wgt_http(&r, &s, "GET", paths[i], NULL);
        cr_assert_null(strstr(r.body, s.token), "%s leaks the token", paths[i]);
        cr_assert_null(strstr(r.headers, s.token), "%s leaks the token in a header", paths[i]);
        wgt_http_res_free(&r);
    }
}

/* ---- raw sockets ---------------------------------------------------------- */

static int connect_raw(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)s.port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Reads until EOF or timeout_ms; returns bytes read (-1 on timeout). */
static long read_all(int fd, char *buf, size_t cap, int timeout_ms)
{
    size_t got = 0;
    for (;;) {
        struct pollfd p = { fd, POLLIN, 0 };
        int n = poll(&p, 1, timeout_ms);
        if (n <= 0)
            return -1;
        ssize_t r = read(fd, buf + got, cap - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got + 1 >= cap)
            break;
    }
    buf[got] = '\0';
    return (long)got;
}

Test(hostile, slow_client_is_disconnected_after_the_timeout)
{
    int fd = connect_raw();
    const char *partial = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n";
    cr_assert_eq(write(fd, partial, strlen(partial)), (ssize_t)strlen(partial));
    char buf[4096];
    /* Timeout is 1 s; allow generous slack, never assert a duration. */
    long n = read_all(fd, buf, sizeof buf, 10000);
    cr_assert_geq(n, 0, "the server kept a stalled connection open");
    close(fd);
    still_alive();
}

Test(hostile, slow_body_is_disconnected_after_the_timeout)
{
    int fd = connect_raw();
    char req[512];
    snprintf(req, sizeof req,
             "POST /api/capabilities/resolve HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\n"
             "Content-Length: 100\r\n\r\n{\"query\":", s.token);
    cr_assert_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    char buf[4096];
    long n = read_all(fd, buf, sizeof buf, 10000);
    cr_assert_geq(n, 0, "the server kept a stalled body open");
    close(fd);
    still_alive();
}

Test(hostile, garbage_on_the_socket_gets_an_error_or_close)
{
    static const char *const junk[] = {
        "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",          /* a TLS hello */
        "GARBAGE\r\n\r\n",
        "GET / HTTP/9.9\r\nHost: localhost\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n",
        ("POST /api/tier/start-trial HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n"
         "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    };
    for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) {
        int fd = connect_raw();
        ssize_t w = write(fd, junk[i], strlen(junk[i]));
        (void)w;
        char buf[4096];
        long n = read_all(fd, buf, sizeof buf, 10000);
        cr_expect(n >= 0, "junk %zu: no answer and no close", i);
        if (n > 0)
            cr_expect(strncmp(buf, "HTTP/1.1 2", 10) != 0, "junk %zu accepted: %.40s", i, buf);
        close(fd);
    }
    still_alive();
}

Test(hostile, huge_header_and_url_are_refused)
{
    size_t n = 100 * 1024;
    char *big = malloc(n + 32);
    memset(big, 'a', n);
    big[n] = '\0';
    char *hdr = malloc(n + 32);
    snprintf(hdr, n + 32, "X-Big: %s", big);
    const char *h[] = { hdr, NULL };
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/healthz", NULL, 0, WGT_AUTH_NONE, h);
    cr_assert(r.status == 0 || r.status == 431 || r.status == 413 || r.status == 400,
              "huge header -> %ld", r.status);
    wgt_http_res_free(&r);
    char *url = malloc(n + 32);
    snprintf(url, n + 32, "/api/%s", big);
    wgt_http(&r, &s, "GET", url, NULL);
    cr_assert(r.status == 0 || r.status == 414 || r.status == 431 || r.status == 400,
              "huge url -> %ld", r.status);
    wgt_http_res_free(&r);
    free(url);
    free(hdr);
    free(big);
    still_alive();
}

Test(hostile, unknown_methods_get_json_errors)
{
    static const char *const methods[] = { "HEAD", "TRACE", "FOO", "CONNECT" };
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
        wgt_http_res r;
        wgt_http(&r, &s, methods[i], "/api/tier", NULL);
        cr_expect(r.status == 405 || r.status == 400 || r.status == 501 || r.status == 0,
                  "%s -> %ld", methods[i], r.status);
        wgt_http_res_free(&r);
    }
    still_alive();
}

Test(hostile, invalid_utf8_and_control_bytes_in_path_and_query)
{
    static const char *const paths[] = {
        "/api/capabilities/plugins/%ff/enable", "/api/capabilities/plugins/%00x/enable",
        "/api/catalog/search?q=%00", "/api/catalog/search?q=%c0%af&limit=%ff",
        "/api/connectors/%2e%2e/health", "/api/connectors/%0d%0aSet-Cookie:x/health",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        const char *method = strstr(paths[i], "enable") ? "POST" : "GET";
        wgt_http_res r;
        wgt_http(&r, &s, method, paths[i], NULL);
        cr_expect(r.status >= 200 && r.status < 500, "%s -> %ld", paths[i], r.status);
        cr_expect_not_null(r.json, "%s: not JSON: %s", paths[i], r.body);
        cr_expect_null(strstr(r.headers, "Set-Cookie"), "%s: header injection", paths[i]);
        wgt_http_res_free(&r);
    }
    still_alive();
}

/* framing.c - the request head and body against a real waggled (issue 11
 * section 4): %00 in a path or query is 400 INVALID_PARAM, never a shorter
 * path; two Content-Length headers or an unknown Transfer-Encoding are 400
 * at once (no guess, no hang); headers past 16 KiB or 100 fields are a JSON
 * 431; a body past 1 MiB is a JSON 413 that a client writing its whole body
 * first can still read (raw socket, Python's http.client, curl). */
#include <criterion/criterion.h>

#include "raw_http.h"
#include "server/server_int.h"
#include "server_test.h"
#include "wgtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static wgt_server s;

static void setup(void)
{
    wgt_server_start(&s, NULL);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(framing, .init = setup, .fini = teardown, .timeout = 120);

static const char *err(const wgt_raw_res *r)
{
    return json_string_value(json_object_get(r->json, "error"));
}

/* Sends req (len bytes) on a new connection and reads one answer. */
static int exchange(wgt_raw_res *r, const char *req, size_t len)
{
    int fd = wgt_raw_connect(s.port, NULL);
    cr_assert_geq(fd, 0);
    int rc = wgt_raw_send(fd, req, len);
    cr_assert_eq(rc, 0, "send: %d", rc);
    rc = wgt_raw_read(fd, r, 10000);
    close(fd);
    return rc;
}

static void still_alive(void)
{
    wgt_http_res h;
    wgt_http_ex(&h, &s, "GET", "/healthz", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(h.status, 200, "server no longer answers");
    wgt_http_res_free(&h);
}

/* ---- %00 ---------------------------------------------------------------- */

Test(framing, encoded_nul_in_a_path_is_400_and_does_not_connect)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/obsidian/connect%00junk", "{\"token\":\"/tmp\"}");
    cr_assert_eq(r.status, 400, "%ld %s", r.status, r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "INVALID_PARAM");
    cr_assert_null(strstr(r.body, "junk"));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/connectors/obsidian/health", NULL);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "status")), "disconnected",
                     "obsidian was connected through %%00: %s", r.body);
    wgt_http_res_free(&r);
}

Test(framing, encoded_nul_anywhere_in_the_target_is_400)
{
    static const char *const paths[] = {
        "/healthz%00", "/%00healthz", "/api/tier%00", "/api/catalog/search?q=a%00b",
        "/api/catalog/search?q%00=x", "/api/connectors/git%00hub/health",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        wgt_http_res r;
        wgt_http(&r, &s, "GET", paths[i], NULL);
        cr_expect_eq(r.status, 400, "%s -> %ld", paths[i], r.status);
        cr_expect_str_eq(json_string_value(json_object_get(r.json, "error")), "INVALID_PARAM",
                         "%s: %s", paths[i], r.body);
        wgt_http_res_free(&r);
    }
    /* other escapes of zeros are not NUL */
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/catalog/search?q=%300", NULL);
    cr_expect_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
}

Test(framing, encoded_nul_keeps_the_connection_usable)
{
    int fd = wgt_raw_connect(s.port, NULL);
    const char *bad = "GET /healthz%00 HTTP/1.1\r\nHost: localhost\r\n\r\n";
    const char *good = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    cr_assert_eq(wgt_raw_send(fd, bad, strlen(bad)), 0);
    wgt_raw_res r;
    cr_assert_eq(wgt_raw_read(fd, &r, 10000), 0);
    cr_assert_eq(r.status, 400);
    cr_assert_null(strstr(r.head, "Connection: close"), "%s", r.head);
    wgt_raw_res_free(&r);
    cr_assert_eq(wgt_raw_send(fd, good, strlen(good)), 0);
    cr_assert_eq(wgt_raw_read(fd, &r, 10000), 0, "the keep-alive connection was closed");
    cr_assert_eq(r.status, 200);
    wgt_raw_res_free(&r);
    close(fd);
}

/* ---- Content-Length / Transfer-Encoding ----------------------------------- */

Test(framing, two_content_lengths_are_400)
{
    static const char *const reqs[] = {
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
        "Content-Length: 2\r\n\r\n{}",
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
        "Content-Length: 40\r\n\r\n{}",
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\ncontent-length: 40\r\n"
        "Content-Length: 2\r\n\r\n{}",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof *reqs; i++) {
        wgt_raw_res r;
        cr_assert_eq(exchange(&r, reqs[i], strlen(reqs[i])), 0, "request %zu: no answer", i);
        cr_expect_eq(r.status, 400, "request %zu -> %d", i, r.status);
        cr_expect_str_eq(err(&r), "INVALID_REQUEST", "request %zu: %s", i, r.body);
        cr_expect_not_null(strstr(r.body, "Content-Length"), "%s", r.body);
        wgt_raw_res_free(&r);
    }
    still_alive();
}

Test(framing, unknown_transfer_encoding_is_400_not_a_hang)
{
    static const char *const reqs[] = {
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\nxxxx",
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        "0\r\n\r\n",
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
        "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
        "Content-Length: 5\r\n\r\n0\r\n\r\n",
        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: identity\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof *reqs; i++) {
        wgt_raw_res r;
        cr_assert_eq(exchange(&r, reqs[i], strlen(reqs[i])), 0, "request %zu: no answer", i);
        cr_expect_eq(r.status, 400, "request %zu -> %d", i, r.status);
        cr_expect_str_eq(err(&r), "INVALID_REQUEST", "request %zu: %s", i, r.body);
        wgt_raw_res_free(&r);
    }
    still_alive();
}

Test(framing, chunked_in_any_case_is_read)
{
    static const char req[] =
        "POST /api/trust/assess HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\n"
        "Transfer-Encoding: Chunked\r\n\r\n"
        "c\r\n{\"content\":\"\r\n4\r\nhi\"}\r\n0\r\n\r\n";
    char buf[512];
    snprintf(buf, sizeof buf, req, s.token);
    wgt_raw_res r;
    cr_assert_eq(exchange(&r, buf, strlen(buf)), 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_raw_res_free(&r);
}

/* ---- header size: a JSON 431 -------------------------------------------- */

/* A GET /healthz whose head (request line + headers + blank line) is
 * exactly total bytes, padded by one X-Pad header. */
static char *head_of(size_t total)
{
    static const char pre[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Pad: ";
    static const char post[] = "\r\n\r\n";
    size_t fixed = strlen(pre) + strlen(post);
    cr_assert_gt(total, fixed);
    char *b = malloc(total + 1);
    memcpy(b, pre, strlen(pre));
    memset(b + strlen(pre), 'a', total - fixed);
    memcpy(b + total - strlen(post), post, strlen(post));
    b[total] = '\0';
    return b;
}

Test(framing, head_bound_n_minus_1_n_n_plus_1)
{
    static const size_t sizes[] = { WG_SERVER_HEAD_MAX - 1, WG_SERVER_HEAD_MAX,
                                    WG_SERVER_HEAD_MAX + 1 };
    static const int want[] = { 200, 200, 431 };
    for (size_t i = 0; i < 3; i++) {
        char *req = head_of(sizes[i]);
        wgt_raw_res r;
        cr_assert_eq(exchange(&r, req, sizes[i]), 0, "head %zu: no answer", sizes[i]);
        cr_expect_eq(r.status, want[i], "head of %zu bytes -> %d", sizes[i], r.status);
        if (want[i] == 431) {
            cr_expect_str_eq(err(&r), "HEADERS_TOO_LARGE", "%s", r.body);
            cr_expect_not_null(strstr(r.head, "application/json"), "%s", r.head);
        }
        wgt_raw_res_free(&r);
        free(req);
    }
}

Test(framing, headers_between_the_bound_and_the_pool_get_a_json_431)
{
    static const size_t sizes[] = { 20 * 1024, 24 * 1024 };
    for (size_t i = 0; i < 2; i++) {
        char *req = head_of(sizes[i]);
        wgt_raw_res r;
        cr_assert_eq(exchange(&r, req, sizes[i]), 0);
        cr_expect_eq(r.status, 431, "%zu -> %d", sizes[i], r.status);
        cr_expect_str_eq(err(&r), "HEADERS_TOO_LARGE", "%zu: %s", sizes[i], r.body);
        wgt_raw_res_free(&r);
        free(req);
    }
    still_alive();
}

/* What remains: past libmicrohttpd's own per-connection memory the library
 * answers by itself (its 431 is not JSON), then closes. */
Test(framing, headers_past_the_pool_are_refused_by_libmicrohttpd)
{
    size_t n = 2 * WG_SERVER_CONN_MEMORY;
    char *req = head_of(n);
    int fd = wgt_raw_connect(s.port, NULL);
    wgt_raw_send(fd, req, n);    /* may fail part way: the server refuses early */
    wgt_raw_res r;
    int rc = wgt_raw_read(fd, &r, 10000);
    cr_assert(rc != -1, "no answer and no close");
    if (rc == 0)
        cr_expect(r.status == 431 || r.status == 414, "-> %d", r.status);
    wgt_raw_res_free(&r);
    close(fd);
    free(req);
    still_alive();
}

static char *fields(unsigned extra)
{
    size_t cap = 64 + extra * 16;
    char *b = malloc(cap);
    size_t k = (size_t)snprintf(b, cap, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n");
    for (unsigned i = 0; i < extra; i++)
        k += (size_t)snprintf(b + k, cap - k, "X-F%u: v\r\n", i);
    k += (size_t)snprintf(b + k, cap - k, "\r\n");
    return b;
}

Test(framing, header_fields_bound_n_minus_1_n_n_plus_1)
{
    /* Host plus extra: 99, 100, 101 fields */
    static const unsigned extra[] = { WG_SERVER_HEADER_FIELDS_MAX - 2, WG_SERVER_HEADER_FIELDS_MAX - 1,
                                      WG_SERVER_HEADER_FIELDS_MAX };
    static const int want[] = { 200, 200, 431 };
    for (size_t i = 0; i < 3; i++) {
        char *req = fields(extra[i]);
        wgt_raw_res r;
        cr_assert_eq(exchange(&r, req, strlen(req)), 0);
        cr_expect_eq(r.status, want[i], "%u fields -> %d", extra[i] + 1, r.status);
        if (want[i] == 431)
            cr_expect_str_eq(err(&r), "HEADERS_TOO_LARGE", "%s", r.body);
        wgt_raw_res_free(&r);
        free(req);
    }
}

/* ---- body size: a 413 the client can read --------------------------------- */

/* POST /healthz with a body of n bytes: 405 once the body is in (the route
 * has no POST), 413 past the limit. Written whole before reading. */
static int post_whole(wgt_raw_res *r, size_t n, int chunked)
{
    char head[256];
    if (chunked)
        snprintf(head, sizeof head, "POST /healthz HTTP/1.1\r\nHost: localhost\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n");
    else
        snprintf(head, sizeof head, "POST /healthz HTTP/1.1\r\nHost: localhost\r\n"
                 "Content-Length: %zu\r\n\r\n", n);
    int fd = wgt_raw_connect(s.port, NULL);
    cr_assert_geq(fd, 0);
    char *body = malloc(n ? n : 1);
    memset(body, 'x', n);
    int rc = wgt_raw_send(fd, head, strlen(head));
    for (size_t off = 0; rc == 0 && off < n;) {
        size_t piece = n - off < 65536 ? n - off : 65536;
        if (chunked) {
            char size[32];
            snprintf(size, sizeof size, "%zx\r\n", piece);
            rc = wgt_raw_send(fd, size, strlen(size));
        }
        if (rc == 0)
            rc = wgt_raw_send(fd, body + off, piece);
        if (rc == 0 && chunked)
            rc = wgt_raw_send(fd, "\r\n", 2);
        off += piece;
    }
    if (rc == 0 && chunked)
        rc = wgt_raw_send(fd, "0\r\n\r\n", 5);
    free(body);
    cr_assert_eq(rc, 0, "writing the body failed (%s): the server reset the connection",
                 strerror(-rc));
    rc = wgt_raw_read(fd, r, 10000);
    close(fd);
    return rc;
}

Test(framing, two_mib_body_written_whole_reads_the_413)
{
    for (int chunked = 0; chunked < 2; chunked++) {
        wgt_raw_res r;
        cr_assert_eq(post_whole(&r, 2 * 1024 * 1024, chunked), 0, "chunked=%d: no answer", chunked);
        cr_expect_eq(r.status, 413, "chunked=%d -> %d", chunked, r.status);
        cr_expect_str_eq(err(&r), "PAYLOAD_TOO_LARGE", "%s", r.body);
        wgt_raw_res_free(&r);
    }
    still_alive();
}

Test(framing, body_bound_n_minus_1_n_n_plus_1)
{
    static const size_t sizes[] = { WG_SERVER_BODY_MAX - 1, WG_SERVER_BODY_MAX,
                                    WG_SERVER_BODY_MAX + 1 };
    static const int want[] = { 405, 405, 413 };
    for (int chunked = 0; chunked < 2; chunked++) {
        for (size_t i = 0; i < 3; i++) {
            wgt_raw_res r;
            cr_assert_eq(post_whole(&r, sizes[i], chunked), 0);
            cr_expect_eq(r.status, want[i], "chunked=%d %zu bytes -> %d", chunked, sizes[i],
                         r.status);
            wgt_raw_res_free(&r);
        }
    }
}

Test(framing, declared_body_with_expect_is_refused_before_it_is_sent)
{
    char req[256];
    snprintf(req, sizeof req, "POST /healthz HTTP/1.1\r\nHost: localhost\r\n"
             "Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", 2 * 1024 * 1024);
    int fd = wgt_raw_connect(s.port, NULL);
    cr_assert_eq(wgt_raw_send(fd, req, strlen(req)), 0);
    char first[16] = { 0 };
    cr_assert_gt(recv(fd, first, 12, MSG_PEEK | MSG_WAITALL), 0);
    cr_assert_str_eq(first, "HTTP/1.1 413", "expected 413 before any 100 Continue");
    wgt_raw_res r;
    cr_assert_eq(wgt_raw_read(fd, &r, 10000), 0);
    cr_assert_str_eq(err(&r), "PAYLOAD_TOO_LARGE");
    wgt_raw_res_free(&r);
    close(fd);
}

/* Beyond the drain bound the body is not read: the answer comes at once
 * and the connection is closed (the client may see a reset). */
Test(framing, declared_body_past_the_drain_bound_is_closed_promptly)
{
    char req[256];
    snprintf(req, sizeof req, "POST /healthz HTTP/1.1\r\nHost: localhost\r\n"
             "Content-Length: %d\r\n\r\n", WG_SERVER_DRAIN_MAX + 1);
    int fd = wgt_raw_connect(s.port, NULL);
    cr_assert_eq(wgt_raw_send(fd, req, strlen(req)), 0);
    wgt_raw_res r;
    cr_assert_eq(wgt_raw_read(fd, &r, 10000), 0);
    cr_assert_eq(r.status, 413);
    wgt_raw_res_free(&r);
    cr_assert(wgt_raw_closed_within(fd, 10000), "the connection stayed open");
    close(fd);
    still_alive();
}

/* ---- real clients ----------------------------------------------------------- */

/* Runs sh -c cmd, returns what it printed (first line). */
static char *run_sh(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char line[512] = { 0 };
    if (!fgets(line, sizeof line, p))
        line[0] = '\0';
    int st = pclose(p);
    cr_assert(WIFEXITED(st), "%s: killed", cmd);
    line[strcspn(line, "\n")] = '\0';
    return strdup(line);
}

Test(framing, python_http_client_reads_the_413)
{
    static const char script[] =
        "import http.client, json, sys\n"
        "c = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]), timeout=20)\n"
        "try:\n"
        "    c.request('POST', '/api/trust/assess', body=b'x' * (2 * 1024 * 1024),\n"
        "              headers={'Authorization': 'Bearer ' + sys.argv[2],\n"
        "                       'Content-Type': 'application/json'})\n"
        "    r = c.getresponse()\n"
        "    print(r.status, json.loads(r.read())['error'])\n"
        "except Exception as e:\n"
        "    print('error', type(e).__name__)\n";
    char *path = NULL;
    char *dir = wgt_tmpdir();
    cr_assert_eq(wgt_write_file(dir, "post.py", script), 0);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "python3 %s/post.py %u %s 2>&1", dir, s.port, s.token);
    char *out = run_sh(cmd);
    cr_assert_str_eq(out, "413 PAYLOAD_TOO_LARGE", "python3 said: %s", out);
    free(out);
    free(path);
    wgt_rmtree(dir);
    free(dir);
}

Test(framing, curl_reads_the_413_with_and_without_expect)
{
    char *dir = wgt_tmpdir();
    char *big = malloc(2 * 1024 * 1024 + 1);
    memset(big, 'x', 2 * 1024 * 1024);
    big[2 * 1024 * 1024] = '\0';
    cr_assert_eq(wgt_write_file(dir, "big.json", big), 0);
    free(big);
    static const char *const extra[] = { "", "-H 'Expect:'", "-H 'Expect: 100-continue'" };
    for (size_t i = 0; i < 3; i++) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd,
                 "curl -s -m 20 -o /dev/null -w '%%{http_code}' %s -H 'Authorization: Bearer %s' "
                 "-H 'Content-Type: application/json' --data-binary @%s/big.json "
                 "http://127.0.0.1:%u/api/trust/assess; echo \" exit=$?\"",
                 extra[i], s.token, dir, s.port);
        char *out = run_sh(cmd);
        cr_expect_str_eq(out, "413 exit=0", "curl %s said: %s", extra[i], out);
        free(out);
    }
    wgt_rmtree(dir);
    free(dir);
}

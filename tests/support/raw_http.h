/* raw_http.h - HTTP/1.1 over a plain socket for contract tests that need
 * what libcurl will not send: duplicate or contradictory framing headers,
 * bodies written whole before reading (as Python's http.client does), slow
 * clients, a chosen source address (127.0.0.2 as the attacker).
 *
 *     int fd = wgt_raw_connect(s.port, NULL);
 *     wgt_raw_send(fd, req, strlen(req));
 *     wgt_raw_res r;
 *     cr_assert_eq(wgt_raw_read(fd, &r, 10000), 0);
 *     cr_assert_eq(r.status, 400);
 *     wgt_raw_res_free(&r);
 *     close(fd);
 */
#ifndef WGT_RAW_HTTP_H
#define WGT_RAW_HTTP_H

#include <jansson.h>
#include <stddef.h>

/* A connected TCP socket to 127.0.0.1:port, bound first to src (e.g.
 * "127.0.0.2") when src is not NULL. -1 on failure. */
int wgt_raw_connect(unsigned port, const char *src);

/* Writes all of buf (blocking, no SIGPIPE). 0, or -errno (EPIPE,
 * ECONNRESET...) at the first failure. */
int wgt_raw_send(int fd, const void *buf, size_t len);

typedef struct wgt_raw_res {
    int status;             /* from the status line */
    char *head;             /* status line + headers, NUL-terminated */
    char *body;             /* Content-Length bytes, NUL-terminated */
    size_t body_len;
    json_t *json;           /* parsed body or NULL */
} wgt_raw_res;

/* Reads one response (a "100 Continue" is skipped); bytes past it are
 * dropped, so pipeline only after reading. Returns 0; -1 when
 * nothing complete came within timeout_ms; -2 when the peer closed before a
 * whole response; -3 on a read error such as ECONNRESET (errno kept). */
int wgt_raw_read(int fd, wgt_raw_res *r, int timeout_ms);
void wgt_raw_res_free(wgt_raw_res *r);

/* 1 when the peer has closed (EOF or reset) within timeout_ms, 0 if the
 * connection is still open then. Discards what it reads. */
int wgt_raw_closed_within(int fd, int timeout_ms);

#endif

/* events_overflow.c - spec 7.5 event streams are bounded: a GET /api/events
 * client that stops reading while events keep coming is not buffered
 * without limit. Once its unsent bytes pass the stream's bound
 * (WG_SSE_BUFFER_MAX, 1 MiB, src/server/sse.c) the server appends one
 * final `event: error` with STREAM_OVERFLOW, ends the stream, frees it, and
 * goes on serving everyone else.
 *
 * The slow client is a raw socket with a small receive buffer that sends
 * its request and then reads nothing while the test publishes ~24 MiB of
 * events into the server's engine bus (wg_engine_publish_remote: what a
 * replica's events arrive through). HTTP/1.0, so the body is not chunked
 * and the notice can be searched in the raw bytes. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server_int.h"
#include "server/sse.h"
#include "server_test.h"
#include "waggle/engine.h"
#include "waggle/error.h"

enum {
    PAYLOAD = 8 * 1024,            /* bytes of filler per event */
    EVENTS = 3000,                 /* ~24 MiB in all: far past 1 MiB plus socket buffers */
    READ_MAX = 64 * 1024 * 1024,   /* what the test reads at most */
};

static wgt_server s;

static void setup(void)
{
    wgt_server_config cfg = { .sse_heartbeat_ms = 200 };
    wgt_server_start(&s, &cfg);
}

static void teardown(void) { wgt_server_stop(&s); }

TestSuite(events_overflow, .init = setup, .fini = teardown, .timeout = 120);

/* A connected socket that has sent GET /api/events and will not read yet. */
static int slow_client(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)s.port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "%s", strerror(errno));
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET /api/events HTTP/1.0\r\nHost: 127.0.0.1:%u\r\n"
                     "Authorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n",
                     s.port, s.token);
    cr_assert_eq(write(fd, req, (size_t)n), n);
    return fd;
}

static size_t open_streams(void) { return wg_sse__count(s.srv->sse); }

/* Waits until the server holds n streams (no timing is asserted). */
static int wait_streams(size_t n, int ms)
{
    for (int waited = 0; waited < ms && open_streams() != n; waited += 20)
        usleep(20000);
    return open_streams() == n;
}

/* Reads until the server closes the connection (or 60 s of silence). */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    cr_assert_not_null(buf);
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 60000) <= 0)
            break;
        if (n == cap) {
            cr_assert_lt(cap, (size_t)READ_MAX, "the stream never ended");
            cap *= 2;
            buf = realloc(buf, cap + 1);
            cr_assert_not_null(buf);
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static size_t count(const char *hay, size_t len, const char *needle)
{
    size_t c = 0, nl = strlen(needle);
    for (const char *p = hay; (p = memmem(p, len - (size_t)(p - hay), needle, nl)); p += nl)
        c++;
    return c;
}

Test(events_overflow, a_client_that_stops_reading_is_told_and_dropped_not_buffered)
{
    int fd = slow_client();
    cr_assert(wait_streams(1, 10000), "the stream opened");

    char *filler = malloc(PAYLOAD + 1);
    cr_assert_not_null(filler);
    memset(filler, 'x', PAYLOAD);
    filler[PAYLOAD] = 0;
    wg_engine *e = s.srv->engine;
    for (int i = 0; i < EVENTS; i++) {
        json_t *data = json_pack("{s:s,s:i,s:s}", "tool", "connector_slack-mock_send_slack_message",
                                 "n", i, "content", filler);
        cr_assert_eq(wg_engine_publish_remote(e, "step", data), 0, "%s", wg_error_last());
        json_decref(data);
    }
    free(filler);

    size_t len = 0;
    char *raw = read_all(fd, &len);
    close(fd);
    cr_assert(wait_streams(0, 30000), "the overflowing stream ended and was freed");
    cr_assert(strstr(raw, "HTTP/1.0 200") || strstr(raw, "HTTP/1.1 200"), "%.200s", raw);
    const char *notice = strstr(raw, "event: error\ndata: {\"error\":\"STREAM_OVERFLOW\"");
    cr_assert_not_null(notice, "the client is told why its stream ended");
    cr_assert_eq(count(raw, len, "STREAM_OVERFLOW"), 1, "one notice");
    cr_assert(strstr(notice, "\n\n") && strstr(notice, "\n\n")[2] == 0,
              "the notice is the stream's last event");
    size_t steps = count(raw, len, "event: step\n");
    cr_assert_gt(steps, 0, "events before the overflow were delivered");
    cr_assert_lt(steps, (size_t)EVENTS, "the events past the bound were dropped, not queued");
    cr_assert_lt(len, (size_t)(EVENTS / 2) * PAYLOAD, "the server did not buffer them all");
    free(raw);

    /* Everyone else is still served, and a new stream opens. */
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/tier", NULL);
    cr_assert_eq(r.status, 200);
    wgt_http_res_free(&r);
    int again = slow_client();
    cr_assert(wait_streams(1, 10000), "a new stream opens after the overflow");
    close(again);
}

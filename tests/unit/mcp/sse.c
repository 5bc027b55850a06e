/* sse.c - the text/event-stream reader (src/mcp/sse.h; HTML Living
 * Standard 9.2.6 "Interpreting an event stream"): line ends, comments,
 * fields, multi-line data, the last event id, retry, a BOM, any chunking,
 * and the limits at N-1, N and N+1. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/sse.h"
#include "waggle/error.h"

typedef struct {
    char got[16][256];   /* "type|data|id" */
    int n;
    int stop_after;      /* 0: never */
} seen;

static int on_event(void *ud, const char *type, const char *data, size_t len, const char *id)
{
    seen *s = ud;
    cr_assert_eq(strlen(data), len);
    if (s->n < 16)
        snprintf(s->got[s->n], sizeof s->got[0], "%s|%s|%s", type, data, id);
    s->n++;
    return s->stop_after && s->n >= s->stop_after ? 7 : 0;
}

/* Feeds text in pieces of chunk bytes (0: at once). Returns feed's result. */
static int feed(seen *out, const char *text, size_t chunk, size_t max)
{
    wg_sse s;
    cr_assert_eq(wg_mcp__sse_init(&s, max), 0);
    size_t n = strlen(text);
    int rc = 0;
    if (!chunk)
        chunk = n ? n : 1;
    for (size_t off = 0; off < n && !rc; off += chunk)
        rc = wg_mcp__sse_feed(&s, text + off, off + chunk > n ? n - off : chunk, on_event, out);
    wg_mcp__sse_clear(&s);
    return rc;
}

static const char STREAM[] =
    "\xEF\xBB\xBF: a comment\r\n"
    "id: p1\r\ndata:\r\n\r\n"                               /* priming: empty data, dispatched */
    "event: message\nid: 2\ndata: {\"a\":\ndata:  1}\n\n"     /* two data lines, one leading space kept */
    "retry: 250\rdata:x\r\r"                                 /* CR line ends, no space after ':' */
    "event: other\ndata: y\n\n"
    "id\ndata\n\n"                                           /* fields without ':': id "" and data "" */
    "data: unterminated";                                    /* no blank line: never dispatched */

static void expect_stream(const seen *s)
{
    cr_assert_eq(s->n, 5, "%d events", s->n);
    cr_expect_str_eq(s->got[0], "message||p1");
    cr_expect_str_eq(s->got[1], "message|{\"a\":\n 1}|2");
    cr_expect_str_eq(s->got[2], "message|x|2");
    cr_expect_str_eq(s->got[3], "other|y|2");
    cr_expect_str_eq(s->got[4], "message||");
}

Test(sse, fields_line_ends_comments_and_the_bom)
{
    seen s = { 0 };
    cr_assert_eq(feed(&s, STREAM, 0, 1024), 0);
    expect_stream(&s);
}

Test(sse, any_chunking_gives_the_same_events)
{
    for (size_t chunk = 1; chunk <= 9; chunk++) {
        seen s = { 0 };
        cr_assert_eq(feed(&s, STREAM, chunk, 1024), 0, "chunk %zu", chunk);
        expect_stream(&s);
    }
}

Test(sse, crlf_split_between_chunks_is_one_line_end)
{
    seen s = { 0 };
    cr_assert_eq(feed(&s, "data: a\r\n\r\ndata: b\r\n\r\n", 1, 64), 0);
    cr_assert_eq(s.n, 2);
    cr_expect_str_eq(s.got[1], "message|b|");
}

Test(sse, the_retry_field_takes_digits_only)
{
    wg_sse s;
    seen sn = { 0 };
    cr_assert_eq(wg_mcp__sse_init(&s, 64), 0);
    const char *t = "retry: 12a\nretry: 300\nretry: x\n\n";
    cr_assert_eq(wg_mcp__sse_feed(&s, t, strlen(t), on_event, &sn), 0);
    cr_expect_eq(s.retry_ms, 300);
    cr_expect_eq(sn.n, 0, "no data field: nothing dispatched");
    wg_mcp__sse_clear(&s);
}

Test(sse, a_callback_can_stop_the_stream)
{
    seen s = { .stop_after = 1 };
    cr_expect_eq(feed(&s, "data: 1\n\ndata: 2\n\n", 0, 64), 7);
    cr_expect_eq(s.n, 1);
}

Test(sse, a_line_of_max_bytes_passes_one_more_fails)
{
    enum { MAX = 32 };
    char text[128];
    for (int len = MAX - 1; len <= MAX + 1; len++) {
        /* a comment line of len bytes */
        memset(text, 'c', (size_t)len);
        text[0] = ':';
        strcpy(text + len, "\ndata: ok\n\n");
        seen s = { 0 };
        int rc = feed(&s, text, 5, MAX);
        if (len <= MAX) {
            cr_expect_eq(rc, 0, "len %d", len);
            cr_expect_eq(s.n, 1);
        } else {
            cr_expect_eq(rc, WG_EUPSTREAM, "len %d", len);
            cr_expect_not_null(strstr(wg_error_last(), "over 32 bytes"), "%s", wg_error_last());
        }
    }
}

Test(sse, an_event_of_max_bytes_of_data_passes_one_more_fails)
{
    enum { MAX = 32 };
    /* data over two lines: 15 + LF + k bytes */
    for (int k = MAX - 17; k <= MAX - 15; k++) {
        char text[256];
        char a[64], b[64];
        memset(a, 'a', 15);
        a[15] = '\0';
        memset(b, 'b', (size_t)k);
        b[k] = '\0';
        snprintf(text, sizeof text, "data:%s\ndata:%s\n\n", a, b);
        seen s = { 0 };
        int rc = feed(&s, text, 3, MAX);
        if (15 + 1 + k <= MAX) {
            cr_expect_eq(rc, 0, "k %d", k);
            cr_expect_eq(s.n, 1);
        } else {
            cr_expect_eq(rc, WG_EUPSTREAM, "k %d", k);
            cr_expect_eq(s.n, 0);
        }
    }
}

Test(sse, a_zero_limit_is_refused)
{
    wg_sse s;
    cr_expect_eq(wg_mcp__sse_init(&s, 0), WG_EINVAL);
}

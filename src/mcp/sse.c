/* mcp/sse.c - the text/event-stream reader of mcp/sse.h. Each byte is
 * looked at once: a line is copied into a max-byte buffer until its end,
 * then interpreted; data accumulates into a second max-byte buffer. */
#include "mcp/sse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/error.h"

int wg_mcp__sse_init(wg_sse *s, size_t max)
{
    memset(s, 0, sizeof *s);
    if (!max)
        return wg_error_set(WG_EINVAL, "sse: a zero limit");
    s->max = max;
    s->retry_ms = -1;
    s->line = malloc(max + 1);
    s->data = malloc(max + 1);
    if (!s->line || !s->data) {
        wg_mcp__sse_clear(s);
        return wg_error_set(WG_ENOMEM, "sse: out of memory");
    }
    return 0;
}

void wg_mcp__sse_clear(wg_sse *s)
{
    if (!s)
        return;
    free(s->line);
    free(s->data);
    s->line = s->data = NULL;
    s->line_len = s->data_len = 0;
}

static int field_is(const char *name, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(name, want, n) == 0;
}

/* A blank line: dispatch the event (when it has data), then reset it. */
static int dispatch(wg_sse *s, wg_sse_event_fn fn, void *ud)
{
    int rc = 0;
    if (s->has_data) {
        /* the data of the last line carries no trailing LF */
        size_t len = s->data_len - 1;
        s->data[len] = '\0';
        s->events++;
        rc = fn(ud, s->type[0] ? s->type : "message", s->data, len, s->last_id);
    }
    s->data_len = 0;
    s->has_data = 0;
    s->type[0] = '\0';
    return rc;
}

static int on_line(wg_sse *s, wg_sse_event_fn fn, void *ud)
{
    const char *l = s->line;
    size_t n = s->line_len;
    if (!n)
        return dispatch(s, fn, ud);
    if (l[0] == ':')
        return 0;                       /* a comment */
    const char *colon = memchr(l, ':', n);
    size_t fl = colon ? (size_t)(colon - l) : n;
    const char *v = colon ? colon + 1 : l + n;
    size_t vl = (size_t)(l + n - v);
    if (vl && *v == ' ') {
        v++;
        vl--;
    }
    if (field_is(l, fl, "data")) {
        if (s->data_len + vl > s->max)   /* data_len counts the LF joining the lines */
            return wg_error_set(WG_EUPSTREAM, "an event of the stream is over %zu bytes", s->max);
        memcpy(s->data + s->data_len, v, vl);
        s->data_len += vl;
        s->data[s->data_len++] = '\n';
        s->has_data = 1;
    } else if (field_is(l, fl, "event")) {
        if (vl <= WG_SSE_TYPE_MAX) {
            memcpy(s->type, v, vl);
            s->type[vl] = '\0';
        } else {
            snprintf(s->type, sizeof s->type, "%s", "(too long)");
        }
    } else if (field_is(l, fl, "id")) {
        if (vl <= WG_SSE_ID_MAX && !memchr(v, '\0', vl)) {
            memcpy(s->last_id, v, vl);
            s->last_id[vl] = '\0';
        }
    } else if (field_is(l, fl, "retry")) {
        long r = 0;
        size_t i = 0;
        for (; i < vl && v[i] >= '0' && v[i] <= '9' && r < 100000000L; i++)
            r = r * 10 + (v[i] - '0');
        if (vl && i == vl)
            s->retry_ms = r;
    }
    return 0;
}

int wg_mcp__sse_feed(wg_sse *s, const char *buf, size_t n, wg_sse_event_fn fn, void *ud)
{
    static const char bom[] = "\xEF\xBB\xBF";
    size_t i = 0;
    if (!s->started) {
        /* the BOM may itself arrive split: hold its bytes until decided */
        while (i < n && s->line_len < 3 && (unsigned char)buf[i] == (unsigned char)bom[s->line_len])
            s->line[s->line_len++] = buf[i++];
        if (s->line_len == 3) {
            s->line_len = 0;
            s->started = 1;
        } else if (i < n) {
            s->started = 1;             /* not a BOM: what was held is text */
        } else {
            return 0;
        }
    }
    for (; i < n; i++) {
        char c = buf[i];
        if (c == '\n' && s->after_cr) {
            s->after_cr = 0;
            continue;
        }
        s->after_cr = c == '\r';
        if (c == '\n' || c == '\r') {
            int rc = on_line(s, fn, ud);
            s->line_len = 0;
            if (rc)
                return rc;
            continue;
        }
        if (s->line_len >= s->max)
            return wg_error_set(WG_EUPSTREAM, "a line of the stream is over %zu bytes", s->max);
        s->line[s->line_len++] = c;
    }
    return 0;
}

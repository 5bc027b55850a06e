/* mcp_sse.c - libFuzzer target for the text/event-stream reader
 * (src/mcp/sse.c) that the gateway's url upstreams read hostile servers
 * with. Invariants, not only crashes: the events and the result do not
 * depend on how the bytes are chunked (all at once, byte by byte, or split
 * at a point the input picks); no event's data is over the limit; the type
 * and the id stay within their bounds. The first byte picks the limit
 * (16..271 bytes) so the limits are reached often. */
#include "mcp/sse.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t max;
    uint64_t hash;       /* FNV-1a over every event's type, data and id */
    unsigned n;
} trace;

static void mix(trace *t, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        t->hash ^= b[i];
        t->hash *= 1099511628211ull;
    }
    t->hash ^= 0xff;     /* a separator: "ab"+"c" differs from "a"+"bc" */
    t->hash *= 1099511628211ull;
}

static int on_event(void *ud, const char *type, const char *data, size_t len, const char *id)
{
    trace *t = ud;
    if (len > t->max || strlen(data) > len || strlen(type) > WG_SSE_TYPE_MAX || strlen(id) > WG_SSE_ID_MAX)
        abort();
    mix(t, type, strlen(type));
    mix(t, data, len);
    mix(t, id, strlen(id));
    t->n++;
    return 0;
}

/* Feeds data in pieces: at split (when 0 < split < size), else in steps of
 * step bytes. Returns the first failure or 0. */
static int run(trace *t, const uint8_t *data, size_t size, size_t step, size_t split)
{
    wg_sse s;
    if (wg_mcp__sse_init(&s, t->max))
        abort();
    int rc = 0;
    if (split && split < size) {
        rc = wg_mcp__sse_feed(&s, (const char *)data, split, on_event, t);
        if (!rc)
            rc = wg_mcp__sse_feed(&s, (const char *)data + split, size - split, on_event, t);
    } else {
        for (size_t off = 0; off < size && !rc; off += step)
            rc = wg_mcp__sse_feed(&s, (const char *)data + off, off + step > size ? size - off : step, on_event, t);
    }
    wg_mcp__sse_clear(&s);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t max = 16 + data[0];
    size_t split = data[1] % size;
    data += 2;
    size -= 2;
    trace a = { .max = max, .hash = 14695981039346656037ull };
    trace b = a, c = a;
    int ra = run(&a, data, size, size ? size : 1, 0);
    int rb = run(&b, data, size, 1, 0);
    int rc = run(&c, data, size, size ? size : 1, split);   /* split 0: all at once */
    if (ra != rb || ra != rc || a.n != b.n || a.n != c.n || a.hash != b.hash || a.hash != c.hash)
        abort();
    return 0;
}

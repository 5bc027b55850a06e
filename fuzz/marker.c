/* marker.c - libFuzzer target for the capability-request marker parser and
 * the reason sanitizer (spec 4.3). Checks invariants, not only crashes:
 * hits are ordered and inside the input, no two share source+name, every
 * reason is sanitized (no { } < >, at most 140 characters, idempotent). */
#include "waggle/marker.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t code_points(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void check_reason(const char *r)
{
    if (!r)
        return;
    if (strpbrk(r, "{}<>") || code_points(r) > WG_MARKER_REASON_MAX)
        abort();
    char *again = NULL;
    if (wg_marker_sanitize_reason(&again, r) != 0)
        return;
    if (strcmp(again, r) != 0)
        abort();
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wg_marker_list l;
    if (wg_marker_parse(&l, (const char *)data, size) != 0)
        return 0;
    size_t last = 0;
    for (size_t i = 0; i < l.count; i++) {
        const wg_marker *m = &l.items[i];
        if (m->start < last || m->end > size || m->start >= m->end || !*m->name || !*m->source)
            abort();
        last = m->end;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(l.items[j].name, m->name) && !strcmp(l.items[j].source, m->source))
                abort();
        check_reason(m->reason);
        check_reason(m->kind);
    }
    wg_marker_list_free(&l);

    /* The input as a reason: sanitizing must be idempotent. */
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    char *r = NULL;
    if (wg_marker_sanitize_reason(&r, s) == 0)
        check_reason(r);
    free(r);
    free(s);
    return 0;
}

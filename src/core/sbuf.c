/* sbuf.c - the growing byte buffer (sbuf.h). */
#include "core/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for n more bytes and the NUL; 0, or -1 with oom set. */
static int reserve(wg_sbuf *b, size_t n)
{
    if (b->oom)
        return -1;
    if (n > (size_t)-1 / 4 - b->len) {   /* the doubling below cannot overflow */
        b->oom = 1;
        return -1;
    }
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void wg_sbuf__put(wg_sbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) < 0)
        return;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void wg_sbuf__puts(wg_sbuf *b, const char *s)
{
    wg_sbuf__put(b, s, strlen(s));
}

/* Formats into the room left; when it does not fit, grows once and formats
 * again. */
void wg_sbuf__vprintf(wg_sbuf *b, const char *fmt, va_list ap)
{
    if (b->oom)
        return;
    va_list aq;
    va_copy(aq, ap);
    size_t room = b->cap - b->len;
    int k = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, aq);
    va_end(aq);
    if (k < 0) {
        b->oom = 1;
        return;
    }
    if ((size_t)k >= room || !b->p) {
        if (reserve(b, (size_t)k) < 0)
            return;
        vsnprintf(b->p + b->len, (size_t)k + 1, fmt, ap);
    }
    b->len += (size_t)k;
}

void wg_sbuf__printf(wg_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wg_sbuf__vprintf(b, fmt, ap);
    va_end(ap);
}

char *wg_sbuf__take(wg_sbuf *b)
{
    char *p = b->oom ? NULL : b->p ? b->p : strdup("");
    if (b->oom)
        free(b->p);
    memset(b, 0, sizeof *b);
    return p;
}

/* catalog_jsonw.c - find_connector's answer written straight to a buffer
 * (waggle/catalog.h wg_catalog_find_connector_text).
 *
 * Building the answer as jansson objects and serialising them cost ~95% of
 * a call; here the same bytes are written directly. Strings are escaped as
 * jansson's compact dump does (", \, \b \f \n \r \t, other bytes below 0x20
 * as \u00XX with upper-case hex, '/' and non-ASCII kept), after checking that
 * they are valid UTF-8 (no overlongs, surrogates or code points past
 * U+10FFFF). One documented difference: U+2028 and U+2029 are written as
 * \u2028 / \u2029, so the text is also a valid JavaScript string literal and
 * survives line-splitting consumers. matchScore is a multiple of 1/8 and is
 * printed exactly (jansson's "%.17g" plus ".0" for whole numbers).
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wg_catbuf__grow(wg_catbuf *b, size_t more)
{
    if (b->failed)
        return -1;
    if (more <= b->cap - b->len)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < more) {
        if (cap > WG_CATBUF_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void wg_catbuf__put(wg_catbuf *b, const char *s, size_t n)
{
    if (wg_catbuf__grow(b, n + 1) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void wg_catbuf__puts(wg_catbuf *b, const char *s)
{
    wg_catbuf__put(b, s, strlen(s));
}

void wg_catbuf__uint(wg_catbuf *b, unsigned long long v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    wg_catbuf__put(b, tmp + i, sizeof tmp - i);
}

/* Length of the valid UTF-8 sequence at p (n bytes left), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    unsigned cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

int wg_catalog__utf8_ok(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* ASCII runs, 8 bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        size_t k = utf8_seq(p + i, n - i);
        if (k == 0)
            return 0;
        i += k;
    }
    return 1;
}

/* Bytes written escaped; everything else is copied in runs. */
static const unsigned char needs_escape[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0A] = 1, [0x0B] = 1, [0x0C] = 1, [0x0D] = 1,
    [0x0E] = 1, [0x0F] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1A] = 1, [0x1B] = 1,
    [0x1C] = 1, [0x1D] = 1, [0x1E] = 1, [0x1F] = 1, ['"'] = 1, ['\\'] = 1,
    [0xE2] = 1,   /* may start U+2028 / U+2029 */
};

/* SWAR: non-zero when some byte of w is < 0x20, '"', '\\' or 0xE2. */
static uint64_t attention(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t lt = (w - ones * 0x20) & ~w;
    uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\'), e2 = w ^ (ones * 0xE2);
    return (lt | ((q - ones) & ~q) | ((bs - ones) & ~bs) | ((e2 - ones) & ~e2)) & high;
}

int wg_catbuf__str(wg_catbuf *b, const char *s, size_t n, int check_utf8)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)s;
    if (check_utf8 && !wg_catalog__utf8_ok(s, n))
        return WG_EINVAL;
    /* worst case 6 bytes per input byte, plus the quotes */
    if (n > WG_CATBUF_MAX / 8 || wg_catbuf__grow(b, n * 6 + 3) < 0)
        return WG_ENOMEM;
    char *o = b->p + b->len;
    *o++ = '"';
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        while (i + 8 <= n) {   /* skip plain bytes 8 at a time */
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (attention(w))
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned char c = p[i];
        if (!needs_escape[c])
            continue;
        if (c == 0xE2 && !(i + 2 < n && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)))
            continue;
        memcpy(o, s + run, i - run);
        o += i - run;
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        case 0xE2:
            memcpy(o, p[i + 2] == 0xA8 ? "u2028" : "u2029", 5);
            o += 5;
            i += 2;
            break;
        default:
            memcpy(o, "u00", 3);
            o[3] = hex[c >> 4];
            o[4] = hex[c & 15];
            o += 5;
            break;
        }
        run = i + 1;
    }
    memcpy(o, s + run, n - run);
    o += n - run;
    *o++ = '"';
    b->len = (size_t)(o - b->p);
    return 0;
}

/* A multiple of 1/8 as jansson prints a real: shortest exact form, ".0"
 * for whole numbers. Past 2^46 (never a score) the general "%.17g" path. */
void wg_catbuf__eighths(wg_catbuf *b, double v)
{
    static const char *const frac[8] = { ".0", ".125", ".25", ".375", ".5", ".625", ".75", ".875" };
    if (v >= 0 && v < 70368744177664.0) {
        double ip = floor(v);
        int k = (int)((v - ip) * 8.0);
        if ((double)k / 8.0 == v - ip) {
            wg_catbuf__uint(b, (unsigned long long)ip);
            wg_catbuf__puts(b, frac[k]);
            return;
        }
    }
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    if (n <= 0 || (size_t)n >= sizeof tmp)
        return;
    char *e = strchr(tmp, 'e');
    if (e) {   /* "1e+17" -> "1e17", "1e-05" -> "1e-5", as jansson writes them */
        char *d = e + 1, *src = e + 1;
        if (*src == '+')
            src++;
        else if (*src == '-')
            *d++ = *src++;
        while (*src == '0' && src[1])
            src++;
        memmove(d, src, strlen(src) + 1);
        n = (int)strlen(tmp);
    }
    wg_catbuf__put(b, tmp, (size_t)n);
    if (!strpbrk(tmp, ".eni"))
        wg_catbuf__puts(b, ".0");
}

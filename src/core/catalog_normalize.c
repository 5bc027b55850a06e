/* catalog_normalize.c - normalizeMcpId (original-facts 7.1, vectors 12.3).
 *
 * The twelve steps of the original, done on bytes with the same word
 * boundaries as a JavaScript regex without the u flag (word characters are
 * ASCII [A-Za-z0-9_]; every byte of a non-ASCII character is a non-word
 * character and ends up as '-'). Pure; no allocation.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <string.h>

static int is_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static int starts(const char *s, size_t i, size_t n, const char *w)
{
    size_t k = strlen(w);
    return i + k <= n && memcmp(s + i, w, k) == 0;
}

/* Length of a match of `a[- ]?b\b` (b may be NULL for `a\b`) at i, which must
 * be at a word boundary; 0 when none. */
static size_t affix_at(const char *s, size_t i, size_t n, unsigned char prev,
                       const char *a, const char *b)
{
    if (is_word(prev))
        return 0;
    if (!starts(s, i, n, a))
        return 0;
    size_t j = i + strlen(a);
    if (b) {
        if (j < n && (s[j] == '-' || s[j] == ' ') && starts(s, j + 1, n, b))
            j += 1;
        if (!starts(s, j, n, b))
            return 0;
        j += strlen(b);
    }
    if (j < n && is_word((unsigned char)s[j]))
        return 0;
    return j - i;
}

/* Global removal of `\ba[- ]?b\b` (or `\ba\b`), matching on the input the
 * way String.replace(/.../g) does. In place (the write position never passes
 * the read position; prev keeps the input byte before i for \b).
 * Returns the new length. */
static size_t remove_affix(char *s, size_t n, const char *a, const char *b)
{
    size_t o = 0;
    unsigned char prev = 0;
    for (size_t i = 0; i < n;) {
        size_t m = affix_at(s, i, n, prev, a, b);
        if (m) {
            prev = (unsigned char)s[i + m - 1];
            i += m;
            continue;
        }
        prev = (unsigned char)s[i];
        s[o++] = s[i++];
    }
    return o;
}

int wg_catalog_normalize_id(char *out, size_t cap, const char *raw)
{
    if (!out || !raw)
        return wg_error_set(WG_EINVAL, "normalize: NULL argument");
    size_t n = strlen(raw);
    if (cap <= n)
        return wg_error_set(WG_EINVAL, "normalize: output buffer too small");
    char *s = out;
    size_t start = 0;
    /* 1. lower-case; 2. strip a leading npm scope ^@[^/]+/ */
    if (raw[0] == '@') {
        const char *slash = strchr(raw + 1, '/');
        if (slash && slash > raw + 1)
            start = (size_t)(slash - raw) + 1;
    }
    size_t len = 0;
    int in_space = 0;
    for (size_t i = start; i < n; i++) {
        unsigned char c = (unsigned char)raw[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        /* 3. [.()[\]/,] -> space; 4. collapse whitespace runs */
        if (strchr(".()[]/,", c) && c)
            c = ' ';
        if (is_space(c)) {
            if (in_space)
                continue;
            in_space = 1;
            c = ' ';
        } else {
            in_space = 0;
        }
        s[len++] = (char)c;
    }
    /* 5-7. affixes anywhere */
    len = remove_affix(s, len, "mcp", "server");
    len = remove_affix(s, len, "server", "mcp");
    len = remove_affix(s, len, "mcp", NULL);
    /* 8. ^server[- ] */
    if (len >= 7 && memcmp(s, "server", 6) == 0 && (s[6] == '-' || s[6] == ' ')) {
        memmove(s, s + 7, len - 7);
        len -= 7;
    }
    /* 9. [- ]server$ */
    if (len >= 7 && memcmp(s + len - 6, "server", 6) == 0 &&
        (s[len - 7] == '-' || s[len - 7] == ' '))
        len -= 7;
    /* 10. [^a-z0-9]+ -> '-'; 11. trim '-'; 12. trim() is then a no-op */
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (keep)
            s[o++] = (char)c;
        else if (o > 0 && s[o - 1] != '-')
            s[o++] = '-';
    }
    while (o > 0 && s[o - 1] == '-')
        o--;
    s[o] = '\0';
    return (int)o;
}

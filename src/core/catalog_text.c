/* catalog_text.c - words for the catalog's search: tokens, stop words and a
 * light suffix stemmer. The same function turns both catalog entries and
 * queries into words, so the stemmer only has to be consistent, not
 * linguistically right ("messages", "messaging" and "message" all become
 * "messag"). Pure; no allocation. */
#include "catalog_internal.h"

#include <stdlib.h>
#include <string.h>

/* Sorted (bsearch): words that say nothing about which server is wanted,
 * including the ways people phrase a request ("I need a tool to ..."). */
static const char *const stop_words[] = {
    "a", "about", "all", "allow", "also", "am", "an", "and", "any", "app", "apps", "are",
    "as", "at", "be", "been", "being", "but", "by", "can", "could", "do", "does", "doing",
    "for", "from", "get", "give", "go", "got", "had", "has", "have", "help", "helps", "her",
    "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let",
    "lets", "like", "make", "mcp", "me", "might", "mine", "more", "most", "much", "must",
    "my", "need", "needs", "of", "on", "one", "or", "our", "ours", "out", "over", "please",
    "server", "servers", "so", "some", "something", "somewhere", "such", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "thing", "things", "this",
    "those", "through", "to", "tool", "tools", "up", "us", "use", "using", "via", "want",
    "wants", "was", "way", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "without", "would", "you", "your", "yours",
};

#define STOP_MAX_LEN 9   /* the longest stop word ("somewhere") */

static int cmp_word(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(const char *const *)elem);
}

int wg_catalog__is_stop(const char *w, size_t len)
{
    char buf[WG_CAT_WORD_MAX + 1];
    if (len > STOP_MAX_LEN)   /* most words: no lookup at all */
        return 0;
    memcpy(buf, w, len);
    buf[len] = '\0';
    return bsearch(buf, stop_words, sizeof stop_words / sizeof stop_words[0],
                   sizeof stop_words[0], cmp_word) != NULL;
}

static int ends(const char *w, size_t len, const char *suf)
{
    size_t k = strlen(suf);
    return len >= k && memcmp(w + len - k, suf, k) == 0;
}

static int is_vowel(char c)
{
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

/* "runn" -> "run", "stopp" -> "stop"; keeps ll, ss, zz ("bill", "access"). */
static size_t undouble(char *w, size_t len)
{
    if (len >= 3 && w[len - 1] == w[len - 2] && !is_vowel(w[len - 1]) &&
        w[len - 1] != 'l' && w[len - 1] != 's' && w[len - 1] != 'z')
        len--;
    return len;
}

/* Suffix rules, tried in order; the first that applies (with at least `keep`
 * bytes left) strips `strip` bytes and then appends `add`. */
static const struct {
    const char *suffix;
    size_t keep;
    const char *add;
    int undouble;
} rules[] = {
    { "ations", 3, "ate", 0 },
    { "ation",  3, "ate", 0 },
    { "ments",  4, "",    0 },
    { "ment",   4, "",    0 },
    { "ings",   3, "",    1 },
    { "ing",    3, "",    1 },
    { "ies",    3, "y",   0 },
    { "ers",    4, "",    1 },
    { "er",     4, "",    1 },
    { "ed",     3, "",    1 },
    { "ly",     4, "",    0 },
};

size_t wg_catalog__stem(char *w, size_t len)
{
    if (len < 4)
        return len;
    int stripped = 0;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        size_t k = strlen(rules[i].suffix);
        if (!ends(w, len, rules[i].suffix) || len - k < rules[i].keep)
            continue;
        len -= k;
        if (rules[i].undouble)
            len = undouble(w, len);
        size_t a = strlen(rules[i].add);
        memcpy(w + len, rules[i].add, a);
        len += a;
        stripped = 1;
        break;
    }
    /* plural s (not "ss", "us", "is": "access", "status", "analysis") */
    if (!stripped && len >= 4 && w[len - 1] == 's' && w[len - 2] != 's' &&
        w[len - 2] != 'u' && w[len - 2] != 'i')
        len--;
    /* a final e: "message"/"messag", "scrape"/"scrap", "automate"/"automat" */
    if (len >= 5 && w[len - 1] == 'e')
        len--;
    w[len] = '\0';
    return len;
}

static int alnum_or_high(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

size_t wg_catalog__words(const char *text, wg_cat_word_fn fn, void *ctx)
{
    size_t pos = 0;
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        while (*p && !alnum_or_high(*p))
            p++;
        const unsigned char *start = p;
        while (*p && alnum_or_high(*p))
            p++;
        size_t len = (size_t)(p - start);
        if (len == 0 || len > WG_CAT_WORD_MAX)
            continue;
        char w[WG_CAT_WORD_MAX + 4];
        for (size_t i = 0; i < len; i++) {
            unsigned char c = start[i];
            w[i] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
        }
        w[len] = '\0';
        if (wg_catalog__is_stop(w, len))
            continue;
        len = wg_catalog__stem(w, len);
        if (len == 0)
            continue;
        if (fn(ctx, w, len, pos++))
            break;
    }
    return pos;
}

size_t wg_catalog__split(char out[][WG_CAT_WORD_MAX + 4], size_t cap, const char *s)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && n < cap) {
        while (*p && !alnum_or_high(*p))
            p++;
        const unsigned char *b = p;
        while (alnum_or_high(*p))
            p++;
        size_t len = (size_t)(p - b);
        if (len == 0 || len > WG_CAT_WORD_MAX)
            continue;
        for (size_t i = 0; i < len; i++)
            out[n][i] = (char)(b[i] >= 'A' && b[i] <= 'Z' ? b[i] - 'A' + 'a' : b[i]);
        out[n][len] = '\0';
        wg_catalog__stem(out[n], len);
        n++;
    }
    return n;
}

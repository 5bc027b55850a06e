/* text.c - keyword extraction, the STOP_WORDS table, folding and
 * word-bounded matching (spec 3.2; original-facts 3.2, 13 item 22 and 25).
 *
 * Matching is by word, not substring: the original's `includes` let "memo"
 * hit "search_memory" and "a" hit everything. A small inflection table keeps
 * "risks"/"risk" and "assess"/"assessment" together without a stemmer.
 */
#include "waggle/text.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

/* Common English function words and request filler ("need", "help",
 * "please") that say nothing about the capability asked for. */
static const char *const STOP_WORDS[] = {
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being",
    "do", "does", "did", "or", "and", "but", "so", "to", "of", "in", "on",
    "at", "by", "up", "it", "its", "my", "me", "we", "our", "you", "your",
    "no", "not", "for", "with", "from", "into", "about", "this", "that",
    "these", "those", "there", "here", "can", "could", "would", "should",
    "will", "shall", "may", "might", "must", "have", "has", "had", "want",
    "need", "help", "make", "please", "like", "get", "give", "use", "using",
    "something", "thing", "things", "way", "what", "which", "who", "how",
    "when", "where", "why", "all", "each", "every", "more", "most", "some",
    "any", "just", "very", "also", "than", "then", "out", "over", "them",
    "they", "their", "him", "her", "his", "she", "let", "lets", "able",
};
enum { N_STOP_WORDS = sizeof STOP_WORDS / sizeof STOP_WORDS[0] };

/* Inflections a word may carry beyond its stem. Short on purpose: each
 * entry is a way two different words could be mistaken for one. */
static const char *const SUFFIXES[] = {
    "s", "es", "ed", "d", "ing", "er", "ers", "ment", "ments", "ion", "ions",
    "ning", "ned", "ting", "ted", "ly", "al",
};
enum { N_SUFFIXES = sizeof SUFFIXES / sizeof SUFFIXES[0] };

size_t wg_text_stop_word_count(void) { return N_STOP_WORDS; }

const char *wg_text_stop_word(size_t i)
{
    return i < N_STOP_WORDS ? STOP_WORDS[i] : NULL;
}

int wg_text_is_stop_word(const char *word)
{
    if (!word)
        return 0;
    for (size_t i = 0; i < N_STOP_WORDS; i++)
        if (strcmp(STOP_WORDS[i], word) == 0)
            return 1;
    return 0;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static int is_alnum_lower(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

void wg_keywords_free(wg_keywords *kw)
{
    if (!kw)
        return;
    for (size_t i = 0; i < kw->count; i++)
        free(kw->items[i]);
    free(kw->items);
    kw->items = NULL;
    kw->count = 0;
}

static int push_keyword(wg_keywords *kw, const char *tok, size_t n)
{
    char **grown = realloc(kw->items, (kw->count + 1) * sizeof *grown);
    if (!grown)
        return wg_error_set(WG_ENOMEM, "out of memory");
    kw->items = grown;
    char *copy = strndup(tok, n);
    if (!copy)
        return wg_error_set(WG_ENOMEM, "out of memory");
    kw->items[kw->count++] = copy;
    return 0;
}

int wg_text_keywords(wg_keywords *out, const char *text)
{
    out->items = NULL;
    out->count = 0;
    if (!text)
        return 0;
    size_t len = strlen(text);
    char *tok = malloc(len + 1);
    if (!tok)
        return wg_error_set(WG_ENOMEM, "out of memory");
    const unsigned char *p = (const unsigned char *)text;
    int rc = 0;
    while (*p && rc == 0) {
        while (*p && is_space(*p))
            p++;
        size_t n = 0;
        for (; *p && !is_space(*p); p++) {
            unsigned char c = lower(*p);
            if (is_alnum_lower(c) || c == '-' || c == '_')
                tok[n++] = (char)c;
        }
        tok[n] = '\0';
        if (n >= 3 && !wg_text_is_stop_word(tok))
            rc = push_keyword(out, tok, n);
    }
    free(tok);
    if (rc < 0)
        wg_keywords_free(out);
    return rc;
}

int wg_text_fold(char **out, const char *s)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    char *f = malloc(len + 1);
    if (!f)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = lower(*p);
        if (is_alnum_lower(c))
            f[n++] = (char)c;
        else if (n > 0 && f[n - 1] != ' ')
            f[n++] = ' ';
    }
    while (n > 0 && f[n - 1] == ' ')
        n--;
    f[n] = '\0';
    *out = f;
    return 0;
}

static int is_suffix(const char *s, size_t n)
{
    for (size_t i = 0; i < N_SUFFIXES; i++)
        if (strlen(SUFFIXES[i]) == n && memcmp(SUFFIXES[i], s, n) == 0)
            return 1;
    return 0;
}

/* The rest of the word after a match is empty or an inflection. */
static int rest_ok(const char *p)
{
    size_t n = 0;
    while (p[n] && p[n] != ' ')
        n++;
    return n == 0 || is_suffix(p, n);
}

static int find_word(const char *hay, const char *needle, size_t nlen)
{
    if (nlen == 0)
        return 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) {
        if (p != hay && p[-1] != ' ')
            continue;
        if (rest_ok(p + nlen))
            return 1;
    }
    return 0;
}

int wg_text_word_match(const char *hay, const char *needle)
{
    if (!hay || !needle || !*needle)
        return 0;
    size_t nlen = strlen(needle);
    if (find_word(hay, needle, nlen))
        return 1;
    /* needle is an inflection of a word in hay: try its stem, which must
     * stay a real word (>= 3 letters) so "is" never becomes "i". */
    char *stem = strdup(needle);
    if (!stem)
        return 0;
    int hit = 0;
    for (size_t i = 0; i < N_SUFFIXES && !hit; i++) {
        size_t sl = strlen(SUFFIXES[i]);
        if (nlen < sl + 3 || strcmp(needle + nlen - sl, SUFFIXES[i]) != 0)
            continue;
        if (needle[nlen - sl - 1] == ' ')
            continue;
        stem[nlen - sl] = '\0';
        hit = find_word(hay, stem, nlen - sl);
        stem[nlen - sl] = needle[nlen - sl];
    }
    free(stem);
    return hit;
}

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    unsigned cp, min;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) { k = 2; cp = c & 0x1Fu; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { k = 3; cp = c & 0x0Fu; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { k = 4; cp = c & 0x07u; min = 0x10000; }
    else return 0;
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    return (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) ? 0 : k;
}

int wg_text_one_line(char **out, const char *s, size_t max_bytes)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    char *buf = malloc(len + 1);
    if (!buf)
        return wg_error_set(WG_ENOMEM, "out of memory");
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0, i = 0;
    int space = 0;
    while (i < len) {
        if (p[i] <= 0x20 || p[i] == 0x7f) {
            space = n > 0;
            i++;
            continue;
        }
        size_t k = utf8_seq(p + i, len - i);
        size_t need = (k ? k : 1) + (space ? 1 : 0);
        if (n + need > max_bytes)
            break;
        if (space)
            buf[n++] = ' ';
        space = 0;
        if (k == 0) {
            buf[n++] = '?';
            i++;
        } else {
            memcpy(buf + n, p + i, k);
            n += k;
            i += k;
        }
    }
    buf[n] = '\0';
    *out = buf;
    return 0;
}

json_t *wg_text_json_string(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    size_t len = strlen(s);
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(p + i, len - i);
        if (k == 0) {
            copy[n++] = '?';
            i++;
        } else {
            memcpy(copy + n, p + i, k);
            n += k;
            i += k;
        }
    }
    copy[n] = '\0';
    j = json_string(copy);
    free(copy);
    return j;
}

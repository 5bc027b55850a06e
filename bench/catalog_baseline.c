/* catalog_baseline.c - the original system's find_connector scoring
 * (original-facts 7.2), written from the fact sheet for comparison.
 *
 * Substring points per entry: the whole query against name (=20 / includes
 * 10), id (8), category (6), description (5); then each expanded word of 3+
 * letters against name (3), id (2), description (2), category (1) and each
 * capability (3, at most 3 capability hits per entry), halved for stems and
 * synonyms. Stable sort by score. The fact sheet lists the 24 synonym keys
 * and two full rows (chat, crm); the other rows are reconstructed from the
 * key names and marked as such. Fields are lower-cased once at build time,
 * which makes the baseline faster than the original, never slower.
 */
#include "catalog_baseline.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *name, *id, *desc, *cat;
    char **caps;
    size_t ncaps;
} bl_entry;

struct bl_catalog {
    bl_entry *e;
    size_t n;
};

/* key -> space-separated synonyms. chat and crm are the original's rows;
 * the others are reconstructions from the key names. */
static const struct {
    const char *key, *syn;
} synonyms[] = {
    { "chat", "message channel communication" },
    { "messag", "chat slack email sms" },
    { "automat", "workflow zapier n8n" },
    { "workflow", "automation pipeline" },
    { "crm", "salesforce hubspot customer contact deal" },
    { "db", "database sql postgres" },
    { "auth", "authentication login oauth" },
    { "payment", "stripe billing invoice" },
    { "invoice", "billing payment accounting" },
    { "analytic", "metrics dashboard insights" },
    { "metric", "analytics monitoring" },
    { "monitor", "observability alert metrics" },
    { "log", "logging observability" },
    { "task", "todo project issue" },
    { "issue", "ticket bug task" },
    { "note", "notes notion obsidian" },
    { "document", "docs file pdf" },
    { "email", "mail gmail inbox" },
    { "sms", "text twilio phone" },
    { "voice", "speech audio tts" },
    { "vector", "embedding semantic" },
    { "embedding", "vector semantic" },
    { "scrap", "crawl extract web" },
    { "crawl", "scrape spider web" },
};

static char *lower_dup(const char *s)
{
    char *d = strdup(s ? s : "");
    for (char *p = d; d && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return d;
}

bl_catalog *bl_build(const wg_catalog *cat, int with_keywords)
{
    bl_catalog *b = calloc(1, sizeof *b);
    b->n = wg_catalog_count(cat);
    b->e = calloc(b->n + 1, sizeof *b->e);
    for (size_t i = 0; i < b->n; i++) {
        const wg_catalog_server *s = wg_catalog_at(cat, i);
        bl_entry *e = &b->e[i];
        e->name = lower_dup(s->name);
        e->id = lower_dup(s->id);
        e->cat = lower_dup(s->category);
        size_t len = strlen(s->description) + 2;
        for (size_t k = 0; with_keywords && k < s->keyword_count; k++)
            len += strlen(s->keywords[k]) + 2;
        char *d = malloc(len);
        strcpy(d, s->description);
        for (size_t k = 0; with_keywords && k < s->keyword_count; k++) {
            strcat(d, " ");
            strcat(d, s->keywords[k]);
        }
        e->desc = lower_dup(d);
        free(d);
        e->ncaps = s->capability_count;
        e->caps = calloc(e->ncaps + 1, sizeof *e->caps);
        for (size_t k = 0; k < e->ncaps; k++)
            e->caps[k] = lower_dup(s->capabilities[k]);
    }
    return b;
}

void bl_free(bl_catalog *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        free(b->e[i].name);
        free(b->e[i].id);
        free(b->e[i].desc);
        free(b->e[i].cat);
        for (size_t k = 0; k < b->e[i].ncaps; k++)
            free(b->e[i].caps[k]);
        free(b->e[i].caps);
    }
    free(b->e);
    free(b);
}

/* stem(w): len >= 5, first matching suffix, base >= 3. */
static void stem(char *out, const char *w)
{
    static const char *suf[] = { "ations", "ation", "ings", "ing", "ies", "ed", "es", "s" };
    size_t n = strlen(w);
    strcpy(out, w);
    if (n < 5)
        return;
    for (size_t i = 0; i < sizeof suf / sizeof suf[0]; i++) {
        size_t k = strlen(suf[i]);
        if (n > k && strcmp(w + n - k, suf[i]) == 0 && n - k >= 3) {
            out[n - k] = '\0';
            return;
        }
    }
}

typedef struct {
    char w[64];
    double mul;
} xword;

static size_t add_word(xword *x, size_t n, size_t cap, const char *w, double mul)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(x[i].w, w) == 0)
            return n;
    if (n < cap && strlen(w) < sizeof x[0].w) {
        strcpy(x[n].w, w);
        x[n].mul = mul;
        n++;
    }
    return n;
}

static size_t expand(xword *x, size_t cap, const char *query)
{
    size_t n = 0;
    const char *p = query;
    while (*p) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        const char *s = p;
        while (*p && isalnum((unsigned char)*p))
            p++;
        if (p == s || (size_t)(p - s) >= 64)
            continue;
        char w[64], st[64];
        memcpy(w, s, (size_t)(p - s));
        w[p - s] = '\0';
        n = add_word(x, n, cap, w, 1.0);
        stem(st, w);
        if (strcmp(st, w) != 0)
            n = add_word(x, n, cap, st, 0.5);
        const char *syn = NULL;
        for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0] && !syn; i++)
            if (strcmp(synonyms[i].key, st) == 0)
                syn = synonyms[i].syn;
        for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0] && !syn; i++)
            if (strcmp(synonyms[i].key, w) == 0)
                syn = synonyms[i].syn;
        while (syn && *syn) {
            const char *e = strchr(syn, ' ');
            size_t len = e ? (size_t)(e - syn) : strlen(syn);
            char sw[64];
            memcpy(sw, syn, len);
            sw[len] = '\0';
            n = add_word(x, n, cap, sw, 0.5);
            syn = e ? e + 1 : syn + len;
        }
    }
    return n;
}

static double score_entry(const bl_entry *e, const char *q, const xword *x, size_t nx)
{
    double s = 0;
    if (strcmp(e->name, q) == 0)
        s += 20;
    else if (strstr(e->name, q))
        s += 10;
    if (strstr(e->id, q))
        s += 8;
    if (strcmp(e->cat, q) == 0 || strstr(e->cat, q))
        s += 6;
    if (strstr(e->desc, q))
        s += 5;
    int cap_hits = 0;
    for (size_t i = 0; i < nx; i++) {
        const char *w = x[i].w;
        if (strlen(w) < 3)
            continue;
        double m = x[i].mul;
        if (strstr(e->name, w))
            s += 3 * m;
        if (strstr(e->id, w))
            s += 2 * m;
        if (strstr(e->desc, w))
            s += 2 * m;
        if (strstr(e->cat, w))
            s += 1 * m;
        for (size_t k = 0; k < e->ncaps && cap_hits < 3; k++)
            if (strstr(e->caps[k], w)) {
                s += 3 * m;
                cap_hits++;
            }
    }
    return s;
}

size_t bl_search(const bl_catalog *b, const char *query, size_t limit, size_t *out)
{
    char *q = lower_dup(query);
    size_t ql = strlen(q), st = 0;
    while (st < ql && isspace((unsigned char)q[st]))
        st++;
    while (ql > st && isspace((unsigned char)q[ql - 1]))
        q[--ql] = '\0';
    const char *qq = q + st;
    xword x[128];
    size_t nx = expand(x, 128, qq);
    /* stable: insertion into a best-first list keeps earlier entries ahead on ties */
    double *best = calloc(limit + 1, sizeof *best);
    size_t n = 0;
    for (size_t i = 0; *qq && i < b->n; i++) {
        double s = score_entry(&b->e[i], qq, x, nx);
        if (s <= 0)
            continue;
        size_t pos = n;
        while (pos > 0 && best[pos - 1] < s)
            pos--;
        if (pos >= limit)
            continue;
        size_t last = n < limit ? n : limit - 1;
        memmove(&best[pos + 1], &best[pos], (last - pos) * sizeof *best);
        memmove(&out[pos + 1], &out[pos], (last - pos) * sizeof *out);
        best[pos] = s;
        out[pos] = i;
        if (n < limit)
            n++;
    }
    free(best);
    free(q);
    return n;
}

/* catalog_search.c - ranking catalog servers for a need (spec 4 find_connector).
 *
 * A query becomes weighted terms: its own stemmed words (1.0), the other
 * words of their synonym groups (0.5), and for a word the index does not
 * know, the known words it is a prefix of (0.5, "kube" -> "kubernetes"),
 * the words intent rules (0.7) and need-lexicon rows (0.4) say the need means.
 * Scores are BM25F (catalog_index.c) summed over the postings of those terms,
 * plus two boosts: the query contains every word of a server's name (+3),
 * and the whole query is the server's id in any spelling (+5), then are
 * multiplied by the category prior (category_factors). Only servers
 * that some term reaches are scored, so the cost follows the postings read,
 * not the catalog size. Read-only on the catalog; scratch is per call.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

#define MAX_QTERMS     96
#define MAX_QWORDS     32
#define W_SYNONYM      0.5f
#define W_PREFIX       0.5f
#define MAX_PREFIX     8
#define CAT_BOOST      0.5f   /* score x (1 + CAT_BOOST) in the category the need is most for */
#define PRIOR_OFFICIAL 0.5f   /* a category listed without words: official servers first */
#define BOOST_NAME     3.0f
#define BOOST_EXACT_ID 5.0f

typedef struct {
    uint32_t tid;
    float w;
    int original;   /* a word the user typed (counts for the name boost) */
} qterm;

typedef struct {
    const wg_catalog_index *ix;
    const wg_catalog_vocab *vocab;   /* NULL when it could not be built */
    qterm t[MAX_QTERMS];
    size_t n;
    size_t words;
    float votes[WG_CATALOG_CATEGORY_COUNT];   /* the need's category prior, unnormalised */
    char consumed[8][WG_CAT_WORD_MAX + 4];            /* stems an intent phrase took */
    size_t nconsumed;
} query;

static void add_term(query *q, uint32_t tid, float w, int original)
{
    for (size_t i = 0; i < q->n; i++)
        if (q->t[i].tid == tid) {
            if (w > q->t[i].w)
                q->t[i].w = w;
            q->t[i].original |= original;
            return;
        }
    if (q->n < MAX_QTERMS)
        q->t[q->n++] = (qterm){ tid, w, original };
}

/* Known terms that start with w (w itself unknown). */
static void add_prefix(query *q, const char *w, size_t len)
{
    const wg_catalog_index *ix = q->ix;
    size_t lo = 0, hi = ix->nterms;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strncmp(wg_catalog__term(ix, ix->sorted[mid]), w, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, k = 0; i < ix->nterms && k < MAX_PREFIX; i++, k++) {
        uint32_t t = ix->sorted[i];
        if (strncmp(wg_catalog__term(ix, t), w, len) != 0)
            break;
        add_term(q, t, W_PREFIX, 0);
    }
}

static void add_synonyms(query *q, const char *w, size_t len)
{
    const wg_catalog_vocab *v = q->vocab;
    if (!v)
        return;
    for (uint32_t k = wg_strmap__get(&v->map, w, len); k != UINT32_MAX; k = v->vnext[k]) {
        uint32_t r = v->vrow[k];
        for (uint32_t j = v->row_start[r]; j < v->row_start[r + 1]; j++) {
            uint32_t t = wg_catalog__term_find(q->ix, v->vstem[j], v->vlen[j]);
            if (t != UINT32_MAX)
                add_term(q, t, W_SYNONYM, 0);
        }
    }
}

static int query_word(void *ctx, const char *w, size_t len, size_t pos)
{
    query *q = ctx;
    if (pos >= MAX_QWORDS)
        return 1;
    q->words++;
    for (size_t i = 0; i < q->nconsumed; i++)
        if (strcmp(q->consumed[i], w) == 0)
            return 0;
    uint32_t t = wg_catalog__term_find(q->ix, w, len);
    if (t != UINT32_MAX)
        add_term(q, t, 1.0f, 1);
    else if (len >= 3)
        add_prefix(q, w, len);
    add_synonyms(q, w, len);
    return 0;
}

static void on_intent(void *ctx, const char *stem, size_t len, int category, float weight)
{
    query *q = ctx;
    if (category == WG_CAT_CONSUME) {
        if (q->nconsumed < sizeof q->consumed / sizeof q->consumed[0] && len <= WG_CAT_WORD_MAX) {
            memcpy(q->consumed[q->nconsumed], stem, len);
            q->consumed[q->nconsumed++][len] = '\0';
        }
        return;
    }
    if (!stem) {
        if (category >= 0 && category < WG_CATALOG_CATEGORY_COUNT)
            q->votes[category] += weight;
        return;
    }
    uint32_t t = wg_catalog__term_find(q->ix, stem, len);
    if (t != UINT32_MAX)
        add_term(q, t, weight, 0);
}

/* Keeps the best cap hits in hits[0..*n), best first. Servers are offered in
 * the order the postings reached them, so ties compare the catalog index. */
static void offer(wg_catalog_hit *hits, uint32_t *idx, size_t cap, size_t *n,
                  const wg_catalog *cat, uint32_t d, float score)
{
    size_t pos = *n;
    while (pos > 0 && (hits[pos - 1].score < score ||
                       (hits[pos - 1].score == score && idx[pos - 1] > d)))
        pos--;
    if (pos >= cap)
        return;
    size_t last = *n < cap ? *n : cap - 1;
    memmove(&hits[pos + 1], &hits[pos], (last - pos) * sizeof *hits);
    memmove(&idx[pos + 1], &idx[pos], (last - pos) * sizeof *idx);
    hits[pos] = (wg_catalog_hit){ &cat->servers[d], score };
    idx[pos] = d;
    if (*n < cap)
        (*n)++;
}

typedef struct {
    float *acc;
    unsigned char *name_hits;
    uint32_t *touched;
    size_t ntouched;
} scratch;

static void accumulate(scratch *s, const wg_catalog_index *ix, const query *q)
{
    for (size_t i = 0; i < q->n; i++) {
        uint32_t t = q->t[i].tid;
        float w = q->t[i].w * ix->idf[t];
        for (uint32_t p = ix->post_off[t]; p < ix->post_off[t + 1]; p++) {
            const wg_catalog_posting *ps = &ix->post[p];
            uint32_t d = ps->doc & WG_POST_DOC;
            if (s->acc[d] == 0.0f)
                s->touched[s->ntouched++] = d;
            s->acc[d] += w * ps->impact + 1e-9f;
            if (q->t[i].original && (ps->doc & WG_POST_NAME) && s->name_hits[d] < 255)
                s->name_hits[d]++;
        }
    }
}

/* Score multiplier of each category: the need's votes for it (intent rules
 * 1, lexicon words 0.5 split over their rows) as a share of the votes of the
 * category voted most, so the category the need is most for gets the whole
 * boost and one a stray word touched gets a little. */
static void category_factors(float *factor, const query *q)
{
    float maxv = 0.0f;
    for (int c = 0; c < WG_CATALOG_CATEGORY_COUNT; c++)
        maxv = q->votes[c] > maxv ? q->votes[c] : maxv;
    for (int c = 0; c < WG_CATALOG_CATEGORY_COUNT; c++)
        factor[c] = 1.0f + (maxv > 0.0f ? CAT_BOOST * q->votes[c] / maxv : 0.0f);
}

/* The whole query as an id ("mcp-server-github", "GitHub"). */
static int exact_id(const wg_catalog *cat, const char *query_text)
{
    size_t len = strlen(query_text);
    if (len > 200)
        return -1;
    char key[208];
    int n = wg_catalog_normalize_id(key, sizeof key, query_text);
    if (n <= 0)
        return -1;
    uint32_t d = wg_catalog__id_find(cat, key, (size_t)n);
    return d == UINT32_MAX ? -1 : (int)d;
}

int wg_catalog_search(wg_catalog_hit *hits, size_t cap, size_t *n,
                      const wg_catalog *cat, const char *query_text, const char *category)
{
    if (!hits || !n || !cat || !query_text)
        return wg_error_set(WG_EINVAL, "catalog search: NULL argument");
    int want_cat = -1;
    if (category && (want_cat = wg_catalog_category_index(category)) < 0)
        return wg_error_set(WG_EINVAL, "unknown category \"%s\"", category);
    *n = 0;
    if (cap == 0 || cat->n == 0)
        return 0;
    query q = { .ix = &cat->index, .vocab = wg_catalog__vocab_get() };
    wg_catalog__intents(query_text, on_intent, &q);   /* first: phrases may take words */
    wg_catalog__words(query_text, query_word, &q);
    int exact = exact_id(cat, query_text);
    uint32_t idx[WG_CATALOG_LIMIT_MAX + 1];
    size_t lim = cap < WG_CATALOG_LIMIT_MAX ? cap : WG_CATALOG_LIMIT_MAX;
    if (q.words == 0 && exact < 0 && want_cat >= 0) {
        /* "--category Database server": nothing but stop words, so the
         * category is what was asked for - list it, official servers first */
        for (size_t d = 0; d < cat->n; d++)
            if (cat->category[d] == want_cat)
                offer(hits, idx, lim, n, cat, (uint32_t)d,
                      1.0f + (cat->servers[d].official ? PRIOR_OFFICIAL : 0.0f));
        return 0;
    }
    if (q.n == 0 && exact < 0)
        return 0;
    scratch s = { 0 };
    s.acc = calloc(cat->n, sizeof *s.acc);
    s.name_hits = calloc(cat->n, 1);
    s.touched = malloc((cat->n + 1) * sizeof *s.touched);
    if (!s.acc || !s.name_hits || !s.touched) {
        free(s.acc);
        free(s.name_hits);
        free(s.touched);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    accumulate(&s, &cat->index, &q);
    float factor[WG_CATALOG_CATEGORY_COUNT];
    category_factors(factor, &q);
    if (exact >= 0) {
        if (s.acc[exact] == 0.0f)
            s.touched[s.ntouched++] = (uint32_t)exact;
        s.acc[exact] += BOOST_EXACT_ID;
    }
    for (size_t i = 0; i < s.ntouched; i++) {
        uint32_t d = s.touched[i];
        if (want_cat >= 0 && cat->category[d] != want_cat)
            continue;
        float score = s.acc[d];
        unsigned nl = cat->index.name_len[d];
        if (nl > 0 && s.name_hits[d] >= nl)
            score += BOOST_NAME;
        score *= factor[cat->category[d]];
        offer(hits, idx, lim, n, cat, d, score);
    }
    free(s.acc);
    free(s.name_hits);
    free(s.touched);
    return 0;
}

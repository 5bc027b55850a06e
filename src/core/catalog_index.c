/* catalog_index.c - the catalog's inverted index, built once at load.
 *
 * BM25F: each server is a document with seven fields of different weight
 * (name > id > keywords > capabilities > description = category > author).
 * A term's frequency in a document is the weighted sum over fields, each
 * field's count normalized by that field's length relative to its average;
 * the index stores the saturated value tf/(k1+tf) per (term, server) and an
 * idf per term, so a query only multiplies and adds. Postings are one array
 * in term order (CSR). Also kept: the terms in byte order (for completing
 * unknown words by prefix) and the number of distinct words in each name
 * (for the "query names the server" boost). The result is serialised into
 * the catalog's blob (catalog_blob.c) - at build time for the embedded
 * catalog - and freed; searches read the blob.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BM25_K1 1.2

static const struct {
    double weight;
    double b;   /* length normalization strength */
} field_spec[WG_FLD_COUNT] = {
    [WG_FLD_NAME]     = { 4.0, 0.3 },
    [WG_FLD_ID]       = { 3.0, 0.3 },
    [WG_FLD_KEYWORDS] = { 2.5, 0.5 },
    [WG_FLD_CAPS]     = { 1.5, 0.5 },
    [WG_FLD_DESC]     = { 1.0, 0.75 },
    [WG_FLD_CATEGORY] = { 1.0, 0.0 },
    [WG_FLD_AUTHOR]   = { 0.5, 0.0 },
};

/* Calls fn on every word of field f of server s. */
static void field_words(const wg_catalog_server *s, int f, wg_cat_word_fn fn, void *ctx)
{
    switch (f) {
    case WG_FLD_NAME:     wg_catalog__words(s->name, fn, ctx); break;
    case WG_FLD_ID:       wg_catalog__words(s->id, fn, ctx); break;
    case WG_FLD_DESC:     wg_catalog__words(s->description, fn, ctx); break;
    case WG_FLD_CATEGORY: wg_catalog__words(s->category, fn, ctx); break;
    case WG_FLD_AUTHOR:   wg_catalog__words(s->author, fn, ctx); break;
    case WG_FLD_KEYWORDS:
        for (size_t i = 0; i < s->keyword_count; i++)
            wg_catalog__words(s->keywords[i], fn, ctx);
        break;
    case WG_FLD_CAPS:
        for (size_t i = 0; i < s->capability_count; i++)
            wg_catalog__words(s->capabilities[i], fn, ctx);
        break;
    }
}

/* One (term, contribution) of the server being indexed. */
typedef struct {
    uint32_t tid;
    float tf;
    uint32_t fields;
} occ;

typedef struct {
    wg_catalog_ixbuild *ix;
    occ *occs;
    size_t nocc, cap;
    float contrib;      /* this field's per-occurrence contribution */
    int field;
    int rc;
} builder;

static int add_word(void *ctx, const char *w, size_t len, size_t pos)
{
    (void)pos;
    builder *b = ctx;
    uint32_t tid = (uint32_t)b->ix->nterms, old;
    if ((b->rc = wg_strmap__put(&b->ix->terms, w, len, tid, &old)) < 0)
        return 1;
    if (old != UINT32_MAX)
        tid = old;
    else
        b->ix->nterms++;
    if (b->nocc == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        occ *o = realloc(b->occs, cap * sizeof *o);
        if (!o) {
            b->rc = wg_error_set(WG_ENOMEM, "out of memory");
            return 1;
        }
        b->occs = o;
        b->cap = cap;
    }
    b->occs[b->nocc++] = (occ){ tid, b->contrib, 1u << b->field };
    return 0;
}

static int cmp_occ(const void *a, const void *b)
{
    uint32_t x = ((const occ *)a)->tid, y = ((const occ *)b)->tid;
    return x < y ? -1 : x > y;
}

/* Sums a server's occurrences per term into its postings (still unordered
 * by term: the triples go to *all). Returns the number of distinct terms. */
static size_t merge_occs(occ *o, size_t n)
{
    qsort(o, n, sizeof *o, cmp_occ);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && o[k - 1].tid == o[i].tid) {
            o[k - 1].tf += o[i].tf;
            o[k - 1].fields |= o[i].fields;
        } else {
            o[k++] = o[i];
        }
    }
    return k;
}

static int cmp_term(const void *a, const void *b, void *ctx)
{
    const char **term = ctx;
    return strcmp(term[*(const uint32_t *)a], term[*(const uint32_t *)b]);
}

void wg_catalog__index_free(wg_catalog_ixbuild *ix)
{
    if (!ix)
        return;
    wg_strmap__free(&ix->terms);
    free(ix->term);
    free(ix->post_off);
    free(ix->post);
    free(ix->idf);
    free(ix->sorted);
    free(ix->name_len);
    free(ix);
}

/* Raw postings of all servers, grouped by server; turned into CSR at the end. */
typedef struct {
    wg_catalog_posting *p;
    uint32_t *tid;
    size_t n, cap;
} raw_postings;

static int raw_push(raw_postings *r, uint32_t tid, wg_catalog_posting p)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4096;
        wg_catalog_posting *np = realloc(r->p, cap * sizeof *np);
        if (!np)
            return wg_error_set(WG_ENOMEM, "out of memory");
        r->p = np;
        uint32_t *nt = realloc(r->tid, cap * sizeof *nt);
        if (!nt)
            return wg_error_set(WG_ENOMEM, "out of memory");
        r->tid = nt;
        r->cap = cap;
    }
    r->p[r->n] = p;
    r->tid[r->n++] = tid;
    return 0;
}

/* Distinct words of one server's name, from its occurrences (<= 255). */
static unsigned char name_words(const occ *o, size_t n)
{
    uint32_t seen[255];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 255; i++) {
        if (!(o[i].fields & (1u << WG_FLD_NAME)))
            continue;
        size_t j = 0;
        while (j < k && seen[j] != o[i].tid)
            j++;
        if (j == k)
            seen[k++] = o[i].tid;
    }
    return (unsigned char)k;
}

/* Tokenizes every field of every server once, keeping (term, field) per
 * occurrence; start[d] is where server d's occurrences begin. */
static int tokenize_all(builder *b, size_t *start, const wg_catalog_server *servers, size_t n)
{
    for (size_t d = 0; d < n; d++) {
        start[d] = b->nocc;
        for (int f = 0; f < WG_FLD_COUNT; f++) {
            b->field = f;
            field_words(&servers[d], f, add_word, b);
            if (b->rc < 0)
                return b->rc;
        }
    }
    start[n] = b->nocc;
    return 0;
}

static int index_servers(wg_catalog_ixbuild *ix, const wg_catalog_server *servers, size_t ndocs,
                         raw_postings *raw)
{
    builder b = { .ix = ix, .contrib = 1.0f };
    size_t *start = calloc(ndocs + 1, sizeof *start);
    size_t *lens = calloc(ndocs * WG_FLD_COUNT + 1, sizeof *lens);
    int rc = (!start || !lens) ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
    if (rc == 0)
        rc = tokenize_all(&b, start, servers, ndocs);
    double avg[WG_FLD_COUNT] = { 0 };
    for (size_t d = 0; rc == 0 && d < ndocs; d++)
        for (size_t i = start[d]; i < start[d + 1]; i++) {
            int f = __builtin_ctz(b.occs[i].fields);
            lens[d * WG_FLD_COUNT + (size_t)f]++;
            avg[f] += 1.0;
        }
    for (int f = 0; f < WG_FLD_COUNT; f++)
        avg[f] = ndocs && avg[f] > 0 ? avg[f] / (double)ndocs : 1.0;
    for (size_t d = 0; rc == 0 && d < ndocs; d++) {
        occ *o = b.occs + start[d];
        size_t n = start[d + 1] - start[d];
        for (size_t i = 0; i < n; i++) {
            int f = __builtin_ctz(o[i].fields);
            double norm = 1.0 - field_spec[f].b +
                          field_spec[f].b * (double)lens[d * WG_FLD_COUNT + (size_t)f] / avg[f];
            o[i].tf = (float)(field_spec[f].weight / norm);
        }
        ix->name_len[d] = name_words(o, n);
        size_t k = merge_occs(o, n);
        for (size_t i = 0; i < k && rc == 0; i++) {
            double tf = o[i].tf;
            uint32_t name = (o[i].fields & (1u << WG_FLD_NAME)) ? WG_POST_NAME : 0;
            rc = raw_push(raw, o[i].tid, (wg_catalog_posting){
                (uint32_t)d | name, (float)(tf / (BM25_K1 + tf)) });
        }
    }
    free(b.occs);
    free(lens);
    free(start);
    return rc;
}

static int to_csr(wg_catalog_ixbuild *ix, const raw_postings *raw, size_t ndocs)
{
    ix->post_off = calloc(ix->nterms + 2, sizeof *ix->post_off);
    ix->post = malloc((raw->n + 1) * sizeof *ix->post);
    ix->idf = calloc(ix->nterms + 1, sizeof *ix->idf);
    ix->term = calloc(ix->nterms + 1, sizeof *ix->term);
    ix->sorted = calloc(ix->nterms + 1, sizeof *ix->sorted);
    if (!ix->post_off || !ix->post || !ix->idf || !ix->term || !ix->sorted)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < raw->n; i++)
        ix->post_off[raw->tid[i] + 1]++;
    for (size_t t = 0; t < ix->nterms; t++)
        ix->post_off[t + 1] += ix->post_off[t];
    uint32_t *fill = calloc(ix->nterms + 1, sizeof *fill);
    if (!fill)
        return wg_error_set(WG_ENOMEM, "out of memory");
    /* raw is in server order, so each term's postings come out sorted by server */
    for (size_t i = 0; i < raw->n; i++) {
        uint32_t t = raw->tid[i];
        ix->post[ix->post_off[t] + fill[t]++] = raw->p[i];
    }
    free(fill);
    ix->npost = raw->n;
    for (size_t t = 0; t < ix->nterms; t++) {
        double df = ix->post_off[t + 1] - ix->post_off[t];
        ix->idf[t] = (float)log(1.0 + ((double)ndocs - df + 0.5) / (df + 0.5));
    }
    for (size_t i = 0; i < ix->terms.cap; i++)
        if (ix->terms.keys[i])
            ix->term[ix->terms.vals[i]] = ix->terms.keys[i];
    for (size_t t = 0; t < ix->nterms; t++)
        ix->sorted[t] = (uint32_t)t;
    qsort_r(ix->sorted, ix->nterms, sizeof *ix->sorted, cmp_term, ix->term);
    return 0;
}

int wg_catalog__index_build(wg_catalog_ixbuild **out, const wg_catalog_server *servers, size_t n)
{
    if (n > WG_CATBLOB_SERVERS)
        return wg_error_set(WG_EINVAL, "catalog: %zu servers, more than the %u an index holds",
                            n, WG_CATBLOB_SERVERS);
    wg_catalog_ixbuild *ix = calloc(1, sizeof *ix);
    if (!ix)
        return wg_error_set(WG_ENOMEM, "out of memory");
    wg_strmap__init(&ix->terms, 1);
    raw_postings raw = { 0 };
    int rc = 0;
    if (!(ix->name_len = calloc(n + 1, 1)))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0)
        rc = index_servers(ix, servers, n, &raw);
    if (rc == 0 && ix->nterms > WG_CATBLOB_TERMS)
        rc = wg_error_set(WG_EINVAL, "catalog: %zu distinct words, more than the %u an index "
                          "holds", ix->nterms, WG_CATBLOB_TERMS);
    if (rc == 0)
        rc = to_csr(ix, &raw, n);
    free(raw.p);
    free(raw.tid);
    if (rc < 0) {
        wg_catalog__index_free(ix);
        return rc;
    }
    *out = ix;
    return 0;
}

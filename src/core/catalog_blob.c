/* catalog_blob.c - a catalog and its search index in one flat buffer, built
 * once and loaded without parsing (waggle/catalog.h loading, issue 12).
 *
 * The embedded catalog's blob is made at build time (tools/catalog_check.c)
 * and compiled in; an imported catalog's blob is cached in the data dir
 * (src/store/catalog_local.c). Loading a blob is a strict validation pass
 * and pointer set-up, not a JSON parse and an index build: the cached file
 * may have been written by anyone who can write the data dir, so every
 * count is bounded, every section must sit exactly where the counts put it,
 * every string offset must start a NUL-terminated string of a pool that is
 * valid UTF-8, every float is finite and in range, postings are in
 * increasing server order with server ids in range, the sorted term list is
 * strictly increasing, hash tables hold each id at most once and always have
 * an empty slot (lookups end), install commands pass the same rule as the
 * JSON loader, and a checksum covers every section but the string pool (the
 * numbers a damaged file would silently mis-rank with; the pool is checked
 * as UTF-8 and by every reference into it, and hashing it too would cost
 * a third of the load). Any failure is WG_EINVAL with what was wrong; the
 * caller rebuilds from JSON.
 *
 * What the validation does not re-derive (it would cost a rebuild): that
 * each term's postings and weights are the ones its words would give, and
 * that ids are in normal form and unique by every rule of
 * catalog_unique.c. A forged blob can therefore rank its own servers
 * differently - no more than a forged catalog.json could - but it cannot
 * change a server of the embedded catalog (those always come from the
 * embedded blob), read out of bounds, loop, or carry an install command the
 * JSON loader would refuse.
 *
 * Layout (native byte order, 8-byte aligned sections, in this order):
 * header | records | lists | term_str | post_off | post | idf | sorted |
 * name_len | id_slot | term_slot | pool.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define BLOB_MAGIC   "WGCATIX"    /* 8 bytes with the NUL */
#define BLOB_VERSION 1u
#define BLOB_ENDIAN  0x01020304u
#define IDF_MAX      64.0f        /* log(1 + N) for any N the bounds allow is far below */

typedef struct {
    char magic[8];
    uint32_t version, endian;
    uint64_t size;          /* whole blob, bytes */
    uint64_t checksum;      /* wg_catalog__hash of bytes [sizeof header, pool) */
    uint64_t base_sum;      /* checksum of the base (embedded) blob, 0 when none */
    wg_catblob_source source;
    uint32_t n_base, n_servers, n_lists, pool_len;
    uint32_t n_terms, n_post, id_slots, term_slots;
} blob_hdr;

_Static_assert(sizeof(blob_hdr) == 128, "the blob header is 128 bytes");

typedef struct {
    uint32_t id, name, description, author, url, install_cmd, logo;  /* pool offsets */
    uint32_t list;          /* first of ncaps + nkw entries in lists */
    uint16_t ncaps, nkw;
    uint8_t category, official, pad[2];
} blob_rec;

#define NO_STRING UINT32_MAX

enum { S_REC, S_LISTS, S_TERM_STR, S_POST_OFF, S_POST, S_IDF, S_SORTED, S_NAME_LEN,
       S_ID_SLOT, S_TERM_SLOT, S_POOL, S_COUNT };

typedef struct {
    size_t off[S_COUNT];
    size_t size;
} layout;

static size_t align8(size_t v)
{
    return (v + 7) & ~(size_t)7;
}

/* Offsets of every section from the counts (all bounded, so no overflow). */
static void layout_of(layout *l, const blob_hdr *h)
{
    size_t n_total = (size_t)h->n_base + h->n_servers;
    size_t len[S_COUNT] = {
        [S_REC] = (size_t)h->n_servers * sizeof(blob_rec),
        [S_LISTS] = (size_t)h->n_lists * 4,
        [S_TERM_STR] = (size_t)h->n_terms * 4,
        [S_POST_OFF] = ((size_t)h->n_terms + 1) * 4,
        [S_POST] = (size_t)h->n_post * sizeof(wg_catalog_posting),
        [S_IDF] = (size_t)h->n_terms * 4,
        [S_SORTED] = (size_t)h->n_terms * 4,
        [S_NAME_LEN] = n_total,
        [S_ID_SLOT] = (size_t)h->id_slots * 4,
        [S_TERM_SLOT] = (size_t)h->term_slots * 4,
        [S_POOL] = h->pool_len,
    };
    size_t at = align8(sizeof(blob_hdr));
    for (int s = 0; s < S_COUNT; s++) {
        l->off[s] = at;
        at = align8(at + len[s]);
    }
    l->size = at;
}

/* ---- hashing ------------------------------------------------------------- */

static uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 29;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 32;
    return h;
}

/* Eight independent lanes of 8 bytes with one multiply each, so the
 * multiplies overlap (about 8 bytes per cycle); lanes and tail are mixed at
 * the end. */
uint64_t wg_catalog__hash(const void *data, size_t n)
{
    const unsigned char *p = data;
    const uint64_t k1 = 0x9E3779B97F4A7C15ULL, k2 = 0xC2B2AE3D27D4EB4FULL;
    uint64_t lane[8];
    for (int j = 0; j < 8; j++)
        lane[j] = k1 * (uint64_t)(j + 1);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t w[8];
        memcpy(w, p + i, 64);
        for (int j = 0; j < 8; j++) {
            uint64_t x = (lane[j] ^ w[j]) * k2;
            lane[j] = x ^ (x >> 29);
        }
    }
    uint64_t h = (uint64_t)n * k1;
    for (int j = 0; j < 8; j++)
        h = rotl(h ^ mix(lane[j]), 23) * k2;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = rotl(h ^ (w * k2), 27) * k1;
    }
    uint64_t tail = 0;
    for (size_t k = 0; i < n; i++, k++)
        tail |= (uint64_t)p[i] << (8 * k);
    return mix(h ^ (tail * k2));
}

/* ---- serialising ------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t len, cap;
} pool_builder;

/* Appends s with its NUL; *off receives its offset. -1 when out of memory
 * or past the blob bound. */
static int pool_add(pool_builder *pb, const char *s, uint32_t *off)
{
    size_t n = strlen(s) + 1;
    if (pb->len + n > WG_CATBLOB_MAX)
        return -1;
    if (pb->len + n > pb->cap) {
        size_t cap = pb->cap ? pb->cap : 1 << 16;
        while (cap < pb->len + n)
            cap *= 2;
        char *p = realloc(pb->p, cap);
        if (!p)
            return -1;
        pb->p = p;
        pb->cap = cap;
    }
    memcpy(pb->p + pb->len, s, n);
    *off = (uint32_t)pb->len;
    pb->len += n;
    return 0;
}

static size_t slots_for(size_t n)
{
    size_t s = 2;
    while (s < 2 * n)
        s *= 2;
    return s;
}

static void slot_put(uint32_t *slot, size_t mask, const char *key, uint32_t val)
{
    size_t i = wg_strmap__hash(key, strlen(key)) & mask;
    while (slot[i] != UINT32_MAX)
        i = (i + 1) & mask;
    slot[i] = val;
}

static int records(blob_rec *rec, uint32_t *lists, pool_builder *pb, const wg_catalog_server *own,
                   const unsigned char *category, size_t n)
{
    uint32_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        const wg_catalog_server *s = &own[i];
        blob_rec *r = &rec[i];
        memset(r, 0, sizeof *r);
        if (s->capability_count > UINT16_MAX || s->keyword_count > UINT16_MAX)
            return wg_error_set(WG_EINVAL, "catalog \"%s\": more than %u capabilities or keywords",
                                s->id, UINT16_MAX);
        if (pool_add(pb, s->id, &r->id) < 0 || pool_add(pb, s->name, &r->name) < 0 ||
            pool_add(pb, s->description, &r->description) < 0 ||
            pool_add(pb, s->author, &r->author) < 0 || pool_add(pb, s->url, &r->url) < 0 ||
            pool_add(pb, s->install_cmd, &r->install_cmd) < 0)
            return wg_error_set(WG_ENOMEM, "catalog: out of memory or larger than %zu bytes",
                                WG_CATBLOB_MAX);
        r->logo = NO_STRING;
        if (s->logo && pool_add(pb, s->logo, &r->logo) < 0)
            return wg_error_set(WG_ENOMEM, "out of memory");
        r->list = nl;
        r->ncaps = (uint16_t)s->capability_count;
        r->nkw = (uint16_t)s->keyword_count;
        r->category = category[i];
        r->official = s->official ? 1 : 0;
        for (size_t k = 0; k < s->capability_count; k++)
            if (pool_add(pb, s->capabilities[k], &lists[nl++]) < 0)
                return wg_error_set(WG_ENOMEM, "out of memory");
        for (size_t k = 0; k < s->keyword_count; k++)
            if (pool_add(pb, s->keywords[k], &lists[nl++]) < 0)
                return wg_error_set(WG_ENOMEM, "out of memory");
    }
    return 0;
}

/* servers[0..n_total) with their categories; the blob holds records for
 * servers[n_base..n_total) and the index of all. */
int wg_catalog__blob_make(void **out, size_t *out_len, const wg_catalog_server *servers,
                          const unsigned char *category, size_t n_total, size_t n_base,
                          uint64_t base_sum, const wg_catalog_ixbuild *ix)
{
    size_t n_own = n_total - n_base, n_lists = 0;
    for (size_t i = n_base; i < n_total; i++)
        n_lists += servers[i].capability_count + servers[i].keyword_count;
    if (n_total > WG_CATBLOB_SERVERS || n_lists > UINT32_MAX / 8 || ix->npost > UINT32_MAX / 16)
        return wg_error_set(WG_EINVAL, "catalog: too large for an index (%zu servers)", n_total);
    blob_rec *rec = calloc(n_own + 1, sizeof *rec);
    uint32_t *lists = calloc(n_lists + 1, sizeof *lists), *term_str = calloc(ix->nterms + 1, 4);
    pool_builder pb = { 0 };
    uint32_t zero;
    int rc = (!rec || !lists || !term_str || pool_add(&pb, "", &zero) < 0)
             ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
    if (rc == 0)
        rc = records(rec, lists, &pb, servers + n_base, category + n_base, n_own);
    for (size_t t = 0; rc == 0 && t < ix->nterms; t++)
        if (pool_add(&pb, ix->term[t], &term_str[t]) < 0)
            rc = wg_error_set(WG_ENOMEM, "out of memory");
    unsigned char *blob = NULL;
    blob_hdr h;
    layout l;
    if (rc == 0) {
        memset(&h, 0, sizeof h);
        memcpy(h.magic, BLOB_MAGIC, 8);
        h.version = BLOB_VERSION;
        h.endian = BLOB_ENDIAN;
        h.base_sum = base_sum;
        h.n_base = (uint32_t)n_base;
        h.n_servers = (uint32_t)n_own;
        h.n_lists = (uint32_t)n_lists;
        h.pool_len = (uint32_t)pb.len;
        h.n_terms = (uint32_t)ix->nterms;
        h.n_post = (uint32_t)ix->npost;
        h.id_slots = (uint32_t)slots_for(n_total);
        h.term_slots = (uint32_t)slots_for(ix->nterms);
        layout_of(&l, &h);
        h.size = l.size;
        if (l.size > WG_CATBLOB_MAX || !(blob = calloc(1, l.size)))
            rc = wg_error_set(WG_ENOMEM, "catalog: out of memory or index larger than %zu bytes",
                              WG_CATBLOB_MAX);
    }
    if (rc == 0) {
        memcpy(blob + l.off[S_REC], rec, n_own * sizeof *rec);
        memcpy(blob + l.off[S_LISTS], lists, n_lists * 4);
        memcpy(blob + l.off[S_TERM_STR], term_str, ix->nterms * 4);
        memcpy(blob + l.off[S_POST_OFF], ix->post_off, (ix->nterms + 1) * 4);
        memcpy(blob + l.off[S_POST], ix->post, ix->npost * sizeof *ix->post);
        memcpy(blob + l.off[S_IDF], ix->idf, ix->nterms * 4);
        memcpy(blob + l.off[S_SORTED], ix->sorted, ix->nterms * 4);
        memcpy(blob + l.off[S_NAME_LEN], ix->name_len, n_total);
        uint32_t *ids = (uint32_t *)(void *)(blob + l.off[S_ID_SLOT]);
        uint32_t *terms = (uint32_t *)(void *)(blob + l.off[S_TERM_SLOT]);
        memset(ids, 0xFF, (size_t)h.id_slots * 4);
        memset(terms, 0xFF, (size_t)h.term_slots * 4);
        for (size_t d = 0; d < n_total; d++)
            slot_put(ids, h.id_slots - 1, servers[d].id, (uint32_t)d);
        for (size_t t = 0; t < ix->nterms; t++)
            slot_put(terms, h.term_slots - 1, ix->term[t], (uint32_t)t);
        memcpy(blob + l.off[S_POOL], pb.p, pb.len);
        h.checksum = wg_catalog__hash(blob + sizeof h, l.off[S_POOL] - sizeof h);
        memcpy(blob, &h, sizeof h);
        *out = blob;
        *out_len = l.size;
    }
    free(rec);
    free(lists);
    free(term_str);
    free(pb.p);
    return rc;
}

/* ---- validating ------------------------------------------------------------- */

typedef struct {
    blob_hdr h;
    const unsigned char *base;
    const blob_rec *rec;
    const uint32_t *lists, *term_str, *post_off, *sorted, *id_slot, *term_slot;
    const wg_catalog_posting *post;
    const float *idf;
    const unsigned char *name_len;
    const char *pool;
} view;

static int bad(const char *what)
{
    return wg_error_set(WG_EINVAL, "catalog index: %s", what);
}

/* A reference to a NUL-terminated string of the pool (the pool ends with a
 * NUL, so the string ends inside it). */
static int str_ok(const view *v, uint32_t off, int nonempty)
{
    if (off >= v->h.pool_len || (off > 0 && v->pool[off - 1] != '\0'))
        return 0;
    return !nonempty || v->pool[off] != '\0';
}

static int header_ok(view *v, const unsigned char *blob, size_t len)
{
    if (((uintptr_t)blob & 7) != 0)
        return bad("not 8-byte aligned in memory");
    if (len < sizeof(blob_hdr))
        return bad("shorter than its header");
    memcpy(&v->h, blob, sizeof v->h);
    const blob_hdr *h = &v->h;
    if (memcmp(h->magic, BLOB_MAGIC, 8) != 0)
        return bad("not a waggle catalog index (magic)");
    if (h->version != BLOB_VERSION || h->endian != BLOB_ENDIAN)
        return bad("another format version or byte order");
    if (h->size != len || len > WG_CATBLOB_MAX)
        return bad("size differs from the file's, or is past the bound");
    if ((uint64_t)h->n_base + h->n_servers > WG_CATBLOB_SERVERS || h->n_terms > WG_CATBLOB_TERMS ||
        h->n_lists > UINT32_MAX / 8 || h->n_post > UINT32_MAX / 16 || h->pool_len == 0)
        return bad("a count is past its bound");
    size_t n_total = (size_t)h->n_base + h->n_servers;
    if (h->id_slots < 2 || (h->id_slots & (h->id_slots - 1)) || h->id_slots <= n_total ||
        h->term_slots < 2 || (h->term_slots & (h->term_slots - 1)) || h->term_slots <= h->n_terms)
        return bad("hash table sizes are not powers of two with a free slot");
    layout l;
    layout_of(&l, h);
    if (l.size != len)
        return bad("sections do not add up to the size");
    v->rec = (const blob_rec *)(const void *)(blob + l.off[S_REC]);
    v->lists = (const uint32_t *)(const void *)(blob + l.off[S_LISTS]);
    v->term_str = (const uint32_t *)(const void *)(blob + l.off[S_TERM_STR]);
    v->post_off = (const uint32_t *)(const void *)(blob + l.off[S_POST_OFF]);
    v->post = (const wg_catalog_posting *)(const void *)(blob + l.off[S_POST]);
    v->idf = (const float *)(const void *)(blob + l.off[S_IDF]);
    v->sorted = (const uint32_t *)(const void *)(blob + l.off[S_SORTED]);
    v->name_len = blob + l.off[S_NAME_LEN];
    v->id_slot = (const uint32_t *)(const void *)(blob + l.off[S_ID_SLOT]);
    v->term_slot = (const uint32_t *)(const void *)(blob + l.off[S_TERM_SLOT]);
    v->pool = (const char *)(blob + l.off[S_POOL]);
    v->base = blob;
    if (wg_catalog__hash(blob + sizeof(blob_hdr), l.off[S_POOL] - sizeof(blob_hdr)) != h->checksum)
        return bad("checksum mismatch (damaged or changed)");
    return 0;
}

static int records_ok(const view *v)
{
    for (uint32_t i = 0; i < v->h.n_servers; i++) {
        const blob_rec *r = &v->rec[i];
        if (!str_ok(v, r->id, 1) || !str_ok(v, r->name, 1) || !str_ok(v, r->description, 1) ||
            !str_ok(v, r->author, 1) || !str_ok(v, r->url, 1) || !str_ok(v, r->install_cmd, 1) ||
            (r->logo != NO_STRING && !str_ok(v, r->logo, 1)))
            return bad("a server's string is outside the pool");
        if (r->category >= WG_CATALOG_CATEGORY_COUNT || r->official > 1)
            return bad("a server's category or official flag is out of range");
        if ((uint64_t)r->list + r->ncaps + r->nkw > v->h.n_lists)
            return bad("a server's lists are outside the list table");
        const char *url = v->pool + r->url;
        if (strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)
            return bad("a server's url is not http(s)");
        if (!wg_catalog__install_cmd_ok(v->pool + r->install_cmd))
            return bad("a server's installCmd is not a plain launcher command");
    }
    for (uint32_t k = 0; k < v->h.n_lists; k++)
        if (!str_ok(v, v->lists[k], 1))
            return bad("a capability or keyword is outside the pool");
    return 0;
}

static int index_ok(const view *v)
{
    const blob_hdr *h = &v->h;
    uint32_t n_total = h->n_base + h->n_servers;
    if (v->post_off[0] != 0 || v->post_off[h->n_terms] != h->n_post)
        return bad("postings offsets do not span the postings");
    for (uint32_t t = 0; t < h->n_terms; t++) {
        if (!str_ok(v, v->term_str[t], 1))
            return bad("a term is outside the pool");
        if (v->post_off[t + 1] < v->post_off[t])
            return bad("postings offsets decrease");
        float idf = v->idf[t];
        if (!(idf >= 0.0f && idf <= IDF_MAX))
            return bad("an idf is not a finite weight");
        uint32_t prev = 0;
        for (uint32_t p = v->post_off[t]; p < v->post_off[t + 1]; p++) {
            uint32_t d = v->post[p].doc & WG_POST_DOC;
            float w = v->post[p].impact;
            if (d >= n_total || (p > v->post_off[t] && d <= prev))
                return bad("a posting's server is out of range or out of order");
            if (!(w >= 0.0f && w <= 1.0f))
                return bad("a posting's weight is not in [0, 1]");
            prev = d;
        }
    }
    for (uint32_t i = 0; i < h->n_terms; i++) {
        if (v->sorted[i] >= h->n_terms)
            return bad("the sorted term list names a term that does not exist");
        if (i > 0 && strcmp(v->pool + v->term_str[v->sorted[i - 1]],
                            v->pool + v->term_str[v->sorted[i]]) >= 0)
            return bad("the sorted term list is not strictly increasing");
    }
    return 0;
}

/* Every used slot names an existing entry, exactly `count` are used, and
 * at least one is empty (so a probe for an absent key ends). A repeated
 * entry would only make a lookup miss, never loop or read out of bounds. */
static int slots_ok(const uint32_t *slot, uint32_t nslots, uint32_t limit, uint32_t count)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < nslots; i++) {
        uint32_t x = slot[i];
        if (x == UINT32_MAX)
            continue;
        if (x >= limit)
            return bad("a hash table names an entry that does not exist");
        used++;
    }
    if (used != count || used >= nslots)
        return bad("a hash table does not hold every entry once with a free slot");
    return 0;
}

static int view_check(view *v, const unsigned char *blob, size_t len)
{
    int rc = header_ok(v, blob, len);
    if (rc == 0 && v->pool[v->h.pool_len - 1] != '\0')
        rc = bad("the string pool does not end with NUL");
    if (rc == 0 && !wg_catalog__utf8_ok(v->pool, v->h.pool_len))
        rc = bad("the string pool is not valid UTF-8");
    if (rc == 0)
        rc = records_ok(v);
    if (rc == 0)
        rc = index_ok(v);
    if (rc == 0)
        rc = slots_ok(v->id_slot, v->h.id_slots, v->h.n_base + v->h.n_servers,
                      v->h.n_base + v->h.n_servers);
    if (rc == 0)
        rc = slots_ok(v->term_slot, v->h.term_slots, v->h.n_terms, v->h.n_terms);
    return rc;
}

/* ---- a catalog from blobs ----------------------------------------------------- */

static void fill(wg_catalog *cat, const view *v, size_t first, const char **lists)
{
    for (uint32_t i = 0; i < v->h.n_servers; i++) {
        const blob_rec *r = &v->rec[i];
        wg_catalog_server *s = &cat->servers[first + i];
        s->id = v->pool + r->id;
        s->name = v->pool + r->name;
        s->description = v->pool + r->description;
        s->author = v->pool + r->author;
        s->url = v->pool + r->url;
        s->install_cmd = v->pool + r->install_cmd;
        s->logo = r->logo == NO_STRING ? NULL : v->pool + r->logo;
        s->category = wg_catalog_category_name(r->category);
        const char **l = lists + r->list;
        for (uint32_t k = 0; k < (uint32_t)r->ncaps + r->nkw; k++)
            l[k] = v->pool + v->lists[r->list + k];
        s->capabilities = l;
        s->capability_count = r->ncaps;
        s->keywords = l + r->ncaps;
        s->keyword_count = r->nkw;
        s->official = r->official;
        cat->category[first + i] = r->category;
        cat->official += r->official;
    }
}

void wg_catalog__blob_free(void *blob, size_t len)
{
    (void)len;
    free(blob);
}

int wg_catalog__from_blob(wg_catalog **out, const void *blob, size_t len,
                          wg_catblob_release release)
{
    view v, base;
    int rc = view_check(&v, blob, len);
    int has_base = rc == 0 && v.h.n_base > 0;
    if (has_base) {
        rc = view_check(&base, wg_catalog__embedded_blob, wg_catalog__embedded_blob_len);
        if (rc == 0 && (base.h.n_base != 0 || base.h.n_servers != v.h.n_base ||
                        base.h.checksum != v.h.base_sum))
            rc = bad("built on another embedded catalog (rebuild it)");
    } else if (rc == 0 && v.h.base_sum != 0) {
        rc = bad("names a base catalog but holds none of its servers");
    }
    wg_catalog *cat = rc == 0 ? calloc(1, sizeof *cat) : NULL;
    size_t n_total = rc == 0 ? (size_t)v.h.n_base + v.h.n_servers : 0;
    size_t n_lists = rc == 0 ? (size_t)v.h.n_lists + (has_base ? base.h.n_lists : 0) : 0;
    /* every field of every server is set by fill() */
    if (rc == 0 && (!cat || !(cat->servers = malloc((n_total + 1) * sizeof *cat->servers)) ||
                    !(cat->category = calloc(n_total + 1, 1)) ||
                    !(cat->lists = calloc(n_lists + 1, sizeof *cat->lists))))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc < 0) {
        wg_catalog_free(cat);
        if (release)
            release((void *)blob, len);
        return rc;
    }
    if (has_base)
        fill(cat, &base, 0, cat->lists);
    fill(cat, &v, v.h.n_base, cat->lists + (has_base ? base.h.n_lists : 0));
    cat->n = n_total;
    cat->n_base = v.h.n_base;
    cat->blob = blob;
    cat->blob_len = len;
    cat->release = release;
    cat->index = (wg_catalog_index){
        .pool = v.pool, .term_str = v.term_str, .nterms = v.h.n_terms, .post_off = v.post_off,
        .post = v.post, .idf = v.idf, .sorted = v.sorted, .name_len = v.name_len,
        .term_slot = v.term_slot, .id_slot = v.id_slot, .term_mask = v.h.term_slots - 1,
        .id_mask = v.h.id_slots - 1,
    };
    *out = cat;
    return 0;
}

uint32_t wg_catalog__term_find(const wg_catalog_index *ix, const char *w, size_t len)
{
    for (size_t i = wg_strmap__hash(w, len) & ix->term_mask;; i = (i + 1) & ix->term_mask) {
        uint32_t t = ix->term_slot[i];
        if (t == UINT32_MAX)
            return UINT32_MAX;
        const char *k = ix->pool + ix->term_str[t];
        if (strncmp(k, w, len) == 0 && k[len] == '\0')
            return t;
    }
}

uint32_t wg_catalog__id_find(const wg_catalog *cat, const char *id, size_t len)
{
    const wg_catalog_index *ix = &cat->index;
    for (size_t i = wg_strmap__hash(id, len) & ix->id_mask;; i = (i + 1) & ix->id_mask) {
        uint32_t d = ix->id_slot[i];
        if (d == UINT32_MAX)
            return UINT32_MAX;
        const char *k = cat->servers[d].id;
        if (strncmp(k, id, len) == 0 && k[len] == '\0')
            return d;
    }
}

uint64_t wg_catalog__blob_sum(const void *blob, size_t len)
{
    blob_hdr h;
    if (!blob || len < sizeof h)
        return 0;
    memcpy(&h, blob, sizeof h);
    return h.checksum;
}

int wg_catalog__blob_source(wg_catblob_source *src, const void *blob, size_t len)
{
    blob_hdr h;
    if (!blob || len < sizeof h)
        return bad("shorter than its header");
    memcpy(&h, blob, sizeof h);
    if (memcmp(h.magic, BLOB_MAGIC, 8) != 0 || h.version != BLOB_VERSION || h.endian != BLOB_ENDIAN)
        return bad("not a waggle catalog index of this version");
    *src = h.source;
    return 0;
}

void wg_catalog__blob_reseal(void *blob, size_t len)
{
    blob_hdr h;
    if (!blob || len < sizeof h || ((uintptr_t)blob & 7))
        return;
    memcpy(&h, blob, sizeof h);
    if ((uint64_t)h.n_base + h.n_servers > WG_CATBLOB_SERVERS || h.n_terms > WG_CATBLOB_TERMS ||
        h.n_lists > UINT32_MAX / 8 || h.n_post > UINT32_MAX / 16)
        return;
    layout l;
    layout_of(&l, &h);
    if (l.size != len || h.size != len)
        return;
    h.checksum = wg_catalog__hash((unsigned char *)blob + sizeof h, l.off[S_POOL] - sizeof h);
    memcpy(blob, &h, sizeof h);
}

size_t wg_catalog__blob_header_size(void)
{
    return sizeof(blob_hdr);
}

void wg_catalog__blob_set_source(void *hdr, const wg_catblob_source *src)
{
    memcpy((unsigned char *)hdr + offsetof(blob_hdr, source), src, sizeof *src);
}

/* catalog_internal.h - what the catalog's files share (not installed).
 *
 * The catalog is split by concept: catalog_normalize.c (ids),
 * catalog_category.c (the 14 categories), catalog_strmap.c (a string hash
 * map), catalog_text.c (tokens, stop words, stemming), catalog_vocab.c (the
 * synonym vocabulary), catalog_load.c (JSON -> entries, field checks),
 * catalog_unique.c (uniqueness), catalog_index.c (inverted index),
 * catalog_search.c (ranking), catalog_tools.c (find_connector JSON),
 * catalog_registry.c (official registry format), catalog_embedded.c (the
 * data compiled into the library).
 */
#ifndef WAGGLE_CATALOG_INTERNAL_H
#define WAGGLE_CATALOG_INTERNAL_H

#include "waggle/catalog.h"

#include <stddef.h>
#include <stdint.h>

/* ---- string -> uint32 hash map (open addressing, never shrinks) ---------- */
typedef struct wg_strmap {
    char **keys;        /* owned copies when own_keys, else borrowed */
    uint32_t *vals;
    size_t cap;         /* power of two, or 0 */
    size_t n;
    int own_keys;
} wg_strmap;

void wg_strmap__init(wg_strmap *m, int own_keys);
void wg_strmap__free(wg_strmap *m);
/* Value of key (len bytes, need not be NUL-terminated) or UINT32_MAX. */
uint32_t wg_strmap__get(const wg_strmap *m, const char *key, size_t len);
/* Inserts key -> val unless present. *existing gets the old value or
 * UINT32_MAX when inserted. Returns 0 or WG_ENOMEM. */
int wg_strmap__put(wg_strmap *m, const char *key, size_t len, uint32_t val, uint32_t *existing);
uint64_t wg_strmap__hash(const char *key, size_t len);

/* ---- text --------------------------------------------------------------- */
#define WG_CAT_WORD_MAX 40

/* Called once per kept token with its stem (NUL-terminated, borrowed) and the
 * token's position among kept tokens. Return non-zero to stop. */
typedef int (*wg_cat_word_fn)(void *ctx, const char *stem, size_t len, size_t pos);

/* Splits text on non-alphanumeric bytes (ASCII letters lower-cased, other
 * bytes >= 0x80 kept as part of words), drops stop words and over-long
 * words, stems, and calls fn. Returns the number of words passed to fn. */
size_t wg_catalog__words(const char *text, wg_cat_word_fn fn, void *ctx);

/* Splits s like wg_catalog__words but keeps stop words (as the intent rules
 * and the lexicon see a query): at most cap stems into out, each lower-case
 * and NUL-terminated; over-long words are dropped. Returns the count. */
size_t wg_catalog__split(char out[][WG_CAT_WORD_MAX + 4], size_t cap, const char *s);

/* Light suffix stemmer in place (plurals, -ing, -ed, -er, -ment, -ly,
 * -ation, final e). Returns the new length. */
size_t wg_catalog__stem(char *w, size_t len);

int wg_catalog__is_stop(const char *w, size_t len);

/* ---- vocabulary --------------------------------------------------------- */
/* Groups of words people use for one need; a query word in a group also
 * looks for the others at a lower weight. NULL-terminated table of
 * space-separated groups. */
extern const char *const wg_catalog__vocab[];

/* The vocabulary stemmed, built once per process (pthread_once): word k
 * belongs to row vrow[k]; rows are contiguous runs [row_start[r],
 * row_start[r+1]); vnext chains the words with the same stem; map takes a
 * stem to its first word. Read-only once built. */
typedef struct {
    wg_strmap map;
    char **vstem;
    size_t *vlen;
    uint32_t *vrow, *vnext, *row_start;
    size_t nvocab, nrows;
} wg_catalog_vocab;

/* Intent vocabulary (catalog_intent.c): what a need means when it names no
 * product. fn is called with each stem to search for (category -1, weight:
 * the term's query weight), with each stem the plain search must skip
 * (category WG_CAT_CONSUME), and with stem NULL and a category such needs
 * belong to (weight: that category's vote). A word no intent rule starts at
 * is looked up in the need lexicon (catalog_lexicon.c). */
#define WG_CAT_QUERY_WORDS 32   /* words of a query that are looked at */
#define WG_CAT_CONSUME     (-2)
#define WG_CAT_W_INTENT    0.7f  /* a word an intent rule means */
#define WG_CAT_V_INTENT    1.0f  /* an intent rule's vote for its category */
#define WG_CAT_W_LEXICON   0.4f  /* a word of a need-lexicon row */
#define WG_CAT_V_LEXICON   0.5f  /* a lexicon word's vote, split over its rows */
typedef void (*wg_cat_intent_fn)(void *ctx, const char *stem, size_t len, int category,
                                 float weight);
void wg_catalog__intents(const char *query, wg_cat_intent_fn fn, void *ctx);

/* Need lexicon (catalog_lexicon.c): the rows a query word (stemmed, stop words
 * kept) belongs to. For each row fn gets the row's words (category -1, weight
 * wword) and one call with stem NULL, the row's category and wvote divided by
 * the number of rows the word is in. Thread-safe (built once per process). */
void wg_catalog__lexicon(const char *stem, size_t len, float wword, float wvote,
                         wg_cat_intent_fn fn, void *ctx);

/* The process-wide stemmed vocabulary, or NULL when memory ran out. */
const wg_catalog_vocab *wg_catalog__vocab_get(void);

/* ---- the inverted index -------------------------------------------------- */
enum { WG_FLD_NAME, WG_FLD_ID, WG_FLD_KEYWORDS, WG_FLD_CAPS, WG_FLD_DESC,
       WG_FLD_CATEGORY, WG_FLD_AUTHOR, WG_FLD_COUNT };

#define WG_POST_NAME 0x80000000u   /* doc bit: the term occurs in the server's name */
#define WG_POST_DOC  0x7FFFFFFFu

typedef struct wg_catalog_posting {
    uint32_t doc;      /* server index | WG_POST_NAME */
    float impact;      /* BM25F saturated term frequency tf/(k1+tf), in (0,1) */
} wg_catalog_posting;

/* The index as built from entries (catalog_index.c); serialised into a blob
 * (catalog_blob.c) and freed. */
typedef struct wg_catalog_ixbuild {
    wg_strmap terms;           /* stem -> term id (owned keys) */
    const char **term;         /* term id -> stem (borrowed from terms) */
    size_t nterms;
    uint32_t *post_off;        /* nterms+1 offsets into post */
    wg_catalog_posting *post;
    size_t npost;
    float *idf;                /* per term */
    uint32_t *sorted;          /* term ids in byte order of their stems */
    unsigned char *name_len;   /* distinct words in each server's name (<=255) */
} wg_catalog_ixbuild;

int wg_catalog__index_build(wg_catalog_ixbuild **out, const wg_catalog_server *servers, size_t n);
void wg_catalog__index_free(wg_catalog_ixbuild *ix);

/* The index of a loaded catalog: every array points into a validated blob
 * (catalog_blob.c). Terms and ids are found through open-addressing tables
 * of slots (UINT32_MAX = empty) hashed with wg_strmap__hash. */
typedef struct wg_catalog_index {
    const char *pool;          /* NUL-terminated strings */
    const uint32_t *term_str;  /* term id -> offset of its stem in pool */
    size_t nterms;
    const uint32_t *post_off;  /* nterms+1 offsets into post */
    const wg_catalog_posting *post;
    const float *idf;
    const uint32_t *sorted;    /* term ids in byte order of their stems */
    const unsigned char *name_len;
    const uint32_t *term_slot, *id_slot;
    size_t term_mask, id_mask; /* slot counts - 1 (powers of two) */
} wg_catalog_index;

static inline const char *wg_catalog__term(const wg_catalog_index *ix, uint32_t t)
{
    return ix->pool + ix->term_str[t];
}

/* Term id of stem w (len bytes), or UINT32_MAX. */
uint32_t wg_catalog__term_find(const wg_catalog_index *ix, const char *w, size_t len);

/* ---- the handle ---------------------------------------------------------- */
/* Gives a blob back (free, munmap, ...). */
typedef void (*wg_catblob_release)(void *blob, size_t len);
/* free() as a release function. */
void wg_catalog__blob_free(void *blob, size_t len);

struct wg_catalog {
    wg_catalog_server *servers;
    const char **lists;       /* capabilities and keywords of every server */
    unsigned char *category;  /* category index per server */
    size_t n;
    size_t n_base;            /* servers that come from the base (embedded) blob */
    size_t official;
    wg_catalog_index index;
    const unsigned char *blob;   /* this catalog's own blob (validated) */
    size_t blob_len;
    wg_catblob_release release;  /* called on blob by wg_catalog_free (NULL: static) */
};

/* Server index of id (exact, len bytes), or UINT32_MAX. */
uint32_t wg_catalog__id_find(const wg_catalog *cat, const char *id, size_t len);

/* Fills one server from a JSON object, checking types, required fields and
 * the category. where names the entry in messages. Returns 0, WG_EINVAL,
 * WG_ENOMEM. */
int wg_catalog__entry(wg_catalog_server *s, unsigned char *category,
                      const json_t *obj, const char *where);
void wg_catalog__entry_clear(wg_catalog_server *s);
/* 1 when installCmd is a known runner followed by plain words (catalog_load.c). */
int wg_catalog__install_cmd_ok(const char *cmd);

/* Uniqueness across all entries; where[i] names entry i ("file #k").
 * Returns 0 or WG_EINVAL naming both entries. */
int wg_catalog__check_unique(const wg_catalog_server *servers, char *const *where, size_t n);

/* URL comparison key: lower-case, trailing slashes removed. New string. */
char *wg_catalog__url_key(const char *url);

/* ---- JSON text written directly (catalog_jsonw.c) ------------------------ */
#define WG_CATBUF_MAX ((size_t)256 << 20)   /* largest buffer a writer grows to */

typedef struct {
    char *p;
    size_t len, cap;
    int failed;   /* an allocation failed or the bound was reached */
} wg_catbuf;

/* Ensures room for more bytes; -1 (and failed set) when it cannot. */
int wg_catbuf__grow(wg_catbuf *b, size_t more);
void wg_catbuf__put(wg_catbuf *b, const char *s, size_t n);
void wg_catbuf__puts(wg_catbuf *b, const char *s);
void wg_catbuf__uint(wg_catbuf *b, unsigned long long v);
/* A JSON string of s[0..n). With check_utf8, WG_EINVAL when s is not valid
 * UTF-8 (nothing written); catalog strings were checked when loaded and are
 * written with check_utf8 = 0. WG_ENOMEM. */
int wg_catbuf__str(wg_catbuf *b, const char *s, size_t n, int check_utf8);
/* A real that is a multiple of 1/8, printed as jansson prints it. */
void wg_catbuf__eighths(wg_catbuf *b, double v);
/* 1 when s[0..n) is valid UTF-8 (jansson's rules). */
int wg_catalog__utf8_ok(const char *s, size_t n);

/* ---- blobs: a catalog and its index in one validated buffer --------------- */
/* Largest blob accepted, and the counts it may hold (named bounds; a blob
 * past any of them is refused). */
#define WG_CATBLOB_MAX      ((size_t)256 << 20)
#define WG_CATBLOB_SERVERS  (1u << 20)
#define WG_CATBLOB_TERMS    (1u << 24)

/* The header's key of the JSON file a blob was built from (set by the
 * caller that writes the blob to disk; opaque to the core). */
typedef struct {
    uint64_t hash;       /* wg_catalog__hash of the file's bytes */
    uint64_t size, mtime_ns, ctime_ns, ino, dev;
    uint64_t racy;       /* 1: the file changed too close to when the blob was written */
} wg_catblob_source;

/* 64-bit hash of bytes (not cryptographic; keys caches, checks blobs). */
uint64_t wg_catalog__hash(const void *p, size_t n);

/* Parses and validates JSON documents into a catalog whose own blob holds
 * them; with embedded_base the embedded catalog comes first (uniqueness is
 * checked across both) and the blob holds only the documents' servers plus
 * the index of all. Returns 0, WG_EINVAL (naming the entries), WG_ENOMEM. */
int wg_catalog__build(wg_catalog **out, int embedded_base, const char *const *docs,
                      const size_t *lens, const char *const *origins, size_t n);

/* Validates blob (len bytes) strictly - every count, offset, string, float
 * and table - and makes a catalog of it (on the embedded blob when the blob
 * says it overlays one). release (NULL for static data) gives the blob back
 * when the catalog is freed, or at once when this fails. Returns 0,
 * WG_EINVAL (a message saying what is wrong), WG_ENOMEM. */
int wg_catalog__from_blob(wg_catalog **out, const void *blob, size_t len,
                          wg_catblob_release release);

/* Serialises servers[0..n_total) (categories alongside): records for
 * servers[n_base..n_total), the index ix of all, and base_sum, the checksum
 * of the base blob (0 when n_base is 0). *out is new (free()). Returns 0,
 * WG_EINVAL (past a bound), WG_ENOMEM. */
int wg_catalog__blob_make(void **out, size_t *out_len, const wg_catalog_server *servers,
                          const unsigned char *category, size_t n_total, size_t n_base,
                          uint64_t base_sum, const wg_catalog_ixbuild *ix);

/* The checksum in a blob's header (its identity), or 0. */
uint64_t wg_catalog__blob_sum(const void *blob, size_t len);

/* Reads the source key of a blob (the header, not validated). Returns 0 or
 * WG_EINVAL (not a blob of this version). */
int wg_catalog__blob_source(wg_catblob_source *src, const void *blob, size_t len);
/* Size of a blob's header: the source key lies inside it, outside the
 * checksum, so a writer may patch a copy of the header. */
size_t wg_catalog__blob_header_size(void);
/* Writes src into hdr, a copy of a blob's first wg_catalog__blob_header_size() bytes. */
void wg_catalog__blob_set_source(void *hdr, const wg_catblob_source *src);
/* Recomputes the checksum of a blob whose header describes len bytes (for
 * tests and the fuzz target, which must get past it to reach the rest of
 * the validation). No effect on a blob whose sizes do not add up. */
void wg_catalog__blob_reseal(void *blob, size_t len);

/* The embedded data (generated at build time by the checker): the blob of
 * data/mcp-catalog.json, 8-byte aligned. */
extern const unsigned char wg_catalog__embedded_blob[];
extern const size_t wg_catalog__embedded_blob_len;
extern const char wg_catalog__embedded_origin[];

#endif

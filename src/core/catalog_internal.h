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

/* Light suffix stemmer in place (plurals, -ing, -ed, -er, -ment, -ly,
 * -ation, final e). Returns the new length. */
size_t wg_catalog__stem(char *w, size_t len);

int wg_catalog__is_stop(const char *w, size_t len);

/* ---- vocabulary --------------------------------------------------------- */
/* Groups of words people use for one need; a query word in a group also
 * looks for the others at a lower weight. NULL-terminated table of
 * space-separated groups. */
extern const char *const wg_catalog__vocab[];

/* ---- the inverted index (catalog_index.c) -------------------------------- */
enum { WG_FLD_NAME, WG_FLD_ID, WG_FLD_KEYWORDS, WG_FLD_CAPS, WG_FLD_DESC,
       WG_FLD_CATEGORY, WG_FLD_AUTHOR, WG_FLD_COUNT };

typedef struct wg_catalog_posting {
    uint32_t doc;
    float impact;      /* BM25F saturated term frequency tf/(k1+tf), in (0,1) */
    uint32_t fields;   /* bit f set when the term occurs in field f */
} wg_catalog_posting;

typedef struct wg_catalog_index {
    wg_strmap terms;           /* stem -> term id (owned keys) */
    const char **term;         /* term id -> stem (borrowed from terms) */
    size_t nterms;
    uint32_t *post_off;        /* nterms+1 offsets into post */
    wg_catalog_posting *post;
    float *idf;                /* per term */
    uint32_t *sorted;          /* term ids in byte order of their stems */
    unsigned char *name_len;   /* distinct words in each server's name (<=255) */
    /* synonym vocabulary, stemmed: word k belongs to row vrow[k]; rows are
     * contiguous runs [row_start[r], row_start[r+1]). vnext chains the words
     * with the same stem; vocab maps a stem to its first word. */
    wg_strmap vocab;
    char **vstem;
    uint32_t *vrow, *vnext, *row_start;
    size_t nvocab, nrows;
} wg_catalog_index;

/* ---- the handle ---------------------------------------------------------- */
struct wg_catalog {
    json_t **docs;            /* the parsed documents; entries borrow their strings */
    size_t ndocs;
    wg_catalog_server *servers;
    unsigned char *category;  /* category index per server */
    size_t n;
    size_t official;
    wg_strmap ids;            /* id -> server index (borrowed keys) */
    wg_catalog_index *index;
};

/* Fills one server from a JSON object, checking types, required fields and
 * the category. where names the entry in messages. Returns 0, WG_EINVAL,
 * WG_ENOMEM. */
int wg_catalog__entry(wg_catalog_server *s, unsigned char *category,
                      const json_t *obj, const char *where);
void wg_catalog__entry_clear(wg_catalog_server *s);
/* 1 when installCmd is a known runner followed by plain words (catalog_load.c). */
int wg_catalog__install_cmd_ok(const char *cmd);

/* Uniqueness across all entries; origins[i] names entry i ("file #k").
 * Returns 0 or WG_EINVAL naming both entries. */
int wg_catalog__check_unique(const wg_catalog_server *servers, char *const *where, size_t n);

/* URL comparison key: lower-case, trailing slashes removed. New string. */
char *wg_catalog__url_key(const char *url);

int wg_catalog__index_build(wg_catalog_index **out, const wg_catalog *cat);
void wg_catalog__index_free(wg_catalog_index *ix);

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

/* The embedded data (generated at build time by the checker). */
extern const char wg_catalog__embedded_json[];
extern const size_t wg_catalog__embedded_len;
extern const char wg_catalog__embedded_origin[];

#endif

/* catalog_load.c - JSON documents -> a catalog handle (waggle/catalog.h).
 *
 * Checks every entry's fields (types, required, one of the 14 categories,
 * the id in normal form, an http(s) url), then uniqueness across all
 * documents (catalog_unique.c), then builds the search index once and
 * serialises entries and index into the catalog's blob (catalog_blob.c);
 * the parsed documents are then freed and the handle reads the blob. The
 * same code runs in the build-time checker (tools/catalog_check.c), which
 * embeds the blob, so the build and the library can never disagree about
 * what is valid.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_MAX 4000  /* longest accepted string field, in bytes */

enum { F_STRING, F_OPT_STRING, F_STRINGS, F_OPT_STRINGS, F_OPT_BOOL };

static const struct {
    const char *name;
    int kind;
    size_t offset;
} fields[] = {
    { "id",           F_STRING,      offsetof(wg_catalog_server, id) },
    { "name",         F_STRING,      offsetof(wg_catalog_server, name) },
    { "description",  F_STRING,      offsetof(wg_catalog_server, description) },
    { "author",       F_STRING,      offsetof(wg_catalog_server, author) },
    { "category",     F_STRING,      offsetof(wg_catalog_server, category) },
    { "url",          F_STRING,      offsetof(wg_catalog_server, url) },
    { "installCmd",   F_STRING,      offsetof(wg_catalog_server, install_cmd) },
    { "logo",         F_OPT_STRING,  offsetof(wg_catalog_server, logo) },
    { "capabilities", F_STRINGS,     0 },
    { "keywords",     F_OPT_STRINGS, 0 },
    { "official",     F_OPT_BOOL,    0 },
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* installCmd is shown to agents that may run it, so the catalog only holds
 * plain launcher commands: a known runner, then words of [A-Za-z0-9] and
 * @/._:+=~%?- only. No quotes, $, ;, |, &, `, redirections or globs, so
 * nothing in a catalog file (a hand-edited overlay, an import) can smuggle
 * shell syntax into a command someone copies. */
static const char *const runners[] = { "npx", "uvx", "docker", "dnx", "pipx", "bunx" };

/* Bytes allowed after the runner: [A-Za-z0-9] and @/._:+=~%?- (space is
 * handled apart: single, never trailing). */
static const unsigned char cmd_byte[256] = {
    ['@'] = 1, ['/'] = 1, ['.'] = 1, ['_'] = 1, [':'] = 1, ['+'] = 1, ['='] = 1, ['~'] = 1,
    ['%'] = 1, ['?'] = 1, ['-'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
    ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
    ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
    ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1,
};

int wg_catalog__install_cmd_ok(const char *cmd)
{
    const char *sp = strchr(cmd, ' ');
    size_t first = sp ? (size_t)(sp - cmd) : strlen(cmd);
    int known = 0;
    for (size_t i = 0; i < sizeof runners / sizeof runners[0] && !known; i++)
        known = strlen(runners[i]) == first && memcmp(cmd, runners[i], first) == 0;
    if (!known)
        return 0;
    for (const unsigned char *p = (const unsigned char *)cmd; *p; p++)
        if (!cmd_byte[*p] && !(*p == ' ' && p[1] != ' ' && p[1]))
            return 0;
    return 1;
}

void wg_catalog__entry_clear(wg_catalog_server *s)
{
    free((void *)s->capabilities);
    memset(s, 0, sizeof *s);
}

static int string_field(const char **dst, const json_t *v, const char *field, const char *where)
{
    if (!json_is_string(v))
        return wg_error_set(WG_EINVAL, "%s: field \"%s\" must be a string", where, field);
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len == 0 || len > FIELD_MAX || strlen(s) != len)
        return wg_error_set(WG_EINVAL, "%s: field \"%s\" must be 1..%d bytes without NUL",
                            where, field, FIELD_MAX);
    *dst = s;
    return 0;
}

static int strings_field(const json_t *v, const char *field, const char *where)
{
    if (!json_is_array(v))
        return wg_error_set(WG_EINVAL, "%s: field \"%s\" must be an array of strings", where, field);
    size_t i;
    const json_t *e;
    json_array_foreach(v, i, e) {
        const char *ignored;
        int rc = string_field(&ignored, e, field, where);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Both string lists share one allocation: capabilities, then keywords. */
static int fill_lists(wg_catalog_server *s, const json_t *caps, const json_t *kws)
{
    size_t nc = caps ? json_array_size(caps) : 0, nk = kws ? json_array_size(kws) : 0;
    const char **all = calloc(nc + nk + 1, sizeof *all);
    if (!all)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < nc; i++)
        all[i] = json_string_value(json_array_get(caps, i));
    for (size_t i = 0; i < nk; i++)
        all[nc + i] = json_string_value(json_array_get(kws, i));
    s->capabilities = all;
    s->capability_count = nc;
    s->keywords = all + nc;
    s->keyword_count = nk;
    return 0;
}

static int known_field(const char *key)
{
    for (size_t f = 0; f < NFIELDS; f++)
        if (strcmp(fields[f].name, key) == 0)
            return 1;
    return 0;
}

int wg_catalog__entry(wg_catalog_server *s, unsigned char *category,
                      const json_t *obj, const char *where)
{
    wg_catalog_server tmp;
    memset(&tmp, 0, sizeof tmp);
    if (!json_is_object(obj))
        return wg_error_set(WG_EINVAL, "%s: a server must be a JSON object", where);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        if (!known_field(key))
            return wg_error_set(WG_EINVAL, "%s: unknown field \"%s\"", where, key);
    }
    for (size_t f = 0; f < NFIELDS; f++) {
        v = json_object_get(obj, fields[f].name);
        int rc = 0;
        switch (fields[f].kind) {
        case F_STRING:
            if (!v)
                return wg_error_set(WG_EINVAL, "%s: missing field \"%s\"", where, fields[f].name);
            rc = string_field((const char **)((char *)&tmp + fields[f].offset), v, fields[f].name, where);
            break;
        case F_OPT_STRING:
            if (v)
                rc = string_field((const char **)((char *)&tmp + fields[f].offset), v, fields[f].name, where);
            break;
        case F_STRINGS:
            if (!v)
                return wg_error_set(WG_EINVAL, "%s: missing field \"%s\"", where, fields[f].name);
            rc = strings_field(v, fields[f].name, where);
            break;
        case F_OPT_STRINGS:
            if (v)
                rc = strings_field(v, fields[f].name, where);
            break;
        case F_OPT_BOOL:
            if (v && !json_is_boolean(v))
                rc = wg_error_set(WG_EINVAL, "%s: field \"%s\" must be true or false", where, fields[f].name);
            tmp.official = v && json_is_true(v);
            break;
        }
        if (rc < 0)
            return rc;
    }
    int cat = wg_catalog_category_index(tmp.category);
    if (cat < 0 || strcmp(wg_catalog_category_name(cat), tmp.category) != 0)
        return wg_error_set(WG_EINVAL, "%s \"%s\": category \"%s\" is not one of the 14 "
                            "(Database, Files, Web, Code, Communication, Productivity, Analytics, "
                            "Cloud, DevTools, Business, AI & ML, Security, Media, Utilities)",
                            where, tmp.id, tmp.category);
    if (strncmp(tmp.url, "https://", 8) != 0 && strncmp(tmp.url, "http://", 7) != 0)
        return wg_error_set(WG_EINVAL, "%s \"%s\": url must start with https:// (got \"%s\")",
                            where, tmp.id, tmp.url);
    if (!wg_catalog__install_cmd_ok(tmp.install_cmd))
        return wg_error_set(WG_EINVAL, "%s \"%s\": installCmd must be npx, uvx, docker, dnx, pipx "
                            "or bunx followed by plain words (no quotes, $, ;, |, &, `, < or >)",
                            where, tmp.id);
    int rc = fill_lists(&tmp, json_object_get(obj, "capabilities"), json_object_get(obj, "keywords"));
    if (rc < 0)
        return rc;
    *category = (unsigned char)cat;
    *s = tmp;
    return 0;
}

void wg_catalog_free(wg_catalog *cat)
{
    if (!cat)
        return;
    free(cat->servers);
    free(cat->lists);
    free(cat->category);
    if (cat->release)
        cat->release((void *)cat->blob, cat->blob_len);
    free(cat);
}

static const json_t *server_list(const json_t *doc)
{
    if (json_is_array(doc))
        return doc;
    if (json_is_object(doc)) {
        const json_t *a = json_object_get(doc, "servers");
        if (json_is_array(a))
            return a;
    }
    return NULL;
}

/* What a build holds until its blob is made: the entries (base first,
 * borrowing the base catalog's strings and the parsed documents'), where
 * each one comes from, and the documents. */
typedef struct {
    wg_catalog *base;
    json_t **docs;
    size_t ndocs;
    wg_catalog_server *servers;
    unsigned char *category;
    char **where;
    size_t n, nb;
} build;

static void build_free(build *b)
{
    for (size_t i = b->nb; i < b->n; i++)
        wg_catalog__entry_clear(&b->servers[i]);
    for (size_t i = 0; b->where && b->where[i]; i++)
        free(b->where[i]);
    for (size_t i = 0; i < b->ndocs; i++)
        json_decref(b->docs[i]);
    free(b->docs);
    free(b->where);
    free(b->servers);
    free(b->category);
    wg_catalog_free(b->base);
}

static int add_where(build *b, const char *origin, size_t k)
{
    if (asprintf(&b->where[b->n], "%s #%zu", origin, k) < 0) {
        b->where[b->n] = NULL;
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    return 0;
}

static int parse_docs(build *b, const char *const *docs, const size_t *lens,
                      const char *const *origins, size_t n)
{
    size_t total = b->nb;
    for (size_t d = 0; d < n; d++) {
        json_error_t jerr;
        const char *origin = origins && origins[d] ? origins[d] : "catalog";
        json_t *doc = json_loadb(docs[d], lens[d], JSON_REJECT_DUPLICATES, &jerr);
        if (!doc)
            return wg_error_set(WG_EINVAL, "%s:%d:%d: not valid JSON: %s", origin, jerr.line,
                                jerr.column, jerr.text);
        b->docs[b->ndocs++] = doc;
        const json_t *list = server_list(doc);
        if (!list)
            return wg_error_set(WG_EINVAL, "%s: expected a JSON array of servers or "
                                "{\"servers\": [...]}", origin);
        total += json_array_size(list);
    }
    if (total > WG_CATBLOB_SERVERS)
        return wg_error_set(WG_EINVAL, "catalog: %zu servers, more than the %u allowed", total,
                            WG_CATBLOB_SERVERS);
    b->servers = calloc(total + 1, sizeof *b->servers);
    b->category = calloc(total + 1, 1);
    b->where = calloc(total + 1, sizeof *b->where);
    if (!b->servers || !b->category || !b->where)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < b->nb; i++) {
        b->servers[i] = b->base->servers[i];
        b->category[i] = b->base->category[i];
        int rc = add_where(b, wg_catalog__embedded_origin, i + 1);
        if (rc < 0)
            return rc;
        b->n++;
    }
    for (size_t d = 0; d < n; d++) {
        const char *origin = origins && origins[d] ? origins[d] : "catalog";
        size_t i;
        const json_t *e;
        json_array_foreach(server_list(b->docs[d]), i, e) {
            int rc = add_where(b, origin, i + 1);
            if (rc == 0)
                rc = wg_catalog__entry(&b->servers[b->n], &b->category[b->n], e, b->where[b->n]);
            if (rc < 0) {
                if (b->where[b->n]) {   /* keep where[] NULL-terminated at n */
                    free(b->where[b->n]);
                    b->where[b->n] = NULL;
                }
                return rc;
            }
            b->n++;
        }
    }
    return 0;
}

int wg_catalog__build(wg_catalog **out, int embedded_base, const char *const *docs,
                      const size_t *lens, const char *const *origins, size_t n)
{
    if (!out || (n && (!docs || !lens)))
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    for (size_t d = 0; d < n; d++)
        if (!docs[d])
            return wg_error_set(WG_EINVAL, "catalog: document %zu is NULL", d);
    build b;
    memset(&b, 0, sizeof b);
    int rc = 0;
    if (embedded_base && (rc = wg_catalog_open_embedded(&b.base)) < 0)
        return rc;
    b.nb = b.base ? b.base->n : 0;
    if (!(b.docs = calloc(n + 1, sizeof *b.docs)))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0)
        rc = parse_docs(&b, docs, lens, origins, n);
    if (rc == 0)
        rc = wg_catalog__check_unique(b.servers, b.where, b.n);
    wg_catalog_ixbuild *ix = NULL;
    if (rc == 0)
        rc = wg_catalog__index_build(&ix, b.servers, b.n);
    void *blob = NULL;
    size_t len = 0;
    if (rc == 0)
        rc = wg_catalog__blob_make(&blob, &len, b.servers, b.category, b.n, b.nb,
                                   b.base ? wg_catalog__blob_sum(b.base->blob, b.base->blob_len) : 0,
                                   ix);
    wg_catalog__index_free(ix);
    build_free(&b);
    if (rc < 0)
        return rc;
    return wg_catalog__from_blob(out, blob, len, wg_catalog__blob_free);
}

int wg_catalog_parse(wg_catalog **out, const char *const *docs,
                     const size_t *lens, const char *const *origins, size_t n)
{
    return wg_catalog__build(out, 0, docs, lens, origins, n);
}

size_t wg_catalog_count(const wg_catalog *cat)
{
    return cat ? cat->n : 0;
}

const wg_catalog_server *wg_catalog_at(const wg_catalog *cat, size_t i)
{
    return cat && i < cat->n ? &cat->servers[i] : NULL;
}

const wg_catalog_server *wg_catalog_lookup(const wg_catalog *cat, const char *any_spelling)
{
    if (!cat || !any_spelling)
        return NULL;
    size_t len = strlen(any_spelling);
    char *key = malloc(len + 1);
    if (!key)
        return NULL;
    const wg_catalog_server *s = NULL;
    int n = wg_catalog_normalize_id(key, len + 1, any_spelling);
    if (n > 0) {
        uint32_t i = wg_catalog__id_find(cat, key, (size_t)n);
        if (i != UINT32_MAX)
            s = &cat->servers[i];
    }
    free(key);
    return s;
}

static json_t *string_array(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(v[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

int wg_catalog_server_json(json_t **out, const wg_catalog_server *s)
{
    if (!out || !s)
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:b}",
                          "id", s->id, "name", s->name, "description", s->description,
                          "author", s->author, "category", s->category, "url", s->url,
                          "installCmd", s->install_cmd,
                          "capabilities", string_array(s->capabilities, s->capability_count),
                          "official", s->official);
    if (o && s->logo && json_object_set_new(o, "logo", json_string(s->logo)) < 0) {
        json_decref(o);
        o = NULL;
    }
    if (o && json_object_set_new(o, "keywords", string_array(s->keywords, s->keyword_count)) < 0) {
        json_decref(o);
        o = NULL;
    }
    if (!o)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = o;
    return 0;
}

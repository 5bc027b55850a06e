/* catalog_load.c - JSON documents -> a catalog handle (waggle/catalog.h).
 *
 * Checks every entry's fields (types, required, one of the 14 categories,
 * the id in normal form, an http(s) url), then uniqueness across all
 * documents (catalog_unique.c), then builds the search index once. Entries
 * borrow their strings from the parsed documents, which the handle keeps.
 * The same code runs in the build-time checker (tools/catalog_check.c), so
 * the build and the library can never disagree about what is valid.
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

int wg_catalog__install_cmd_ok(const char *cmd)
{
    size_t first = strcspn(cmd, " ");
    int known = 0;
    for (size_t i = 0; i < sizeof runners / sizeof runners[0]; i++)
        if (strlen(runners[i]) == first && strncmp(cmd, runners[i], first) == 0)
            known = 1;
    if (!known)
        return 0;
    for (const char *p = cmd; *p; p++) {
        unsigned char c = (unsigned char)*p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 (c == ' ' && p[1] != ' ' && p[1]) || strchr("@/._:+=~%?-", c);
        if (!ok || !c)
            return 0;
    }
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
    for (size_t i = 0; i < cat->n; i++)
        wg_catalog__entry_clear(&cat->servers[i]);
    free(cat->servers);
    free(cat->category);
    for (size_t i = 0; i < cat->ndocs; i++)
        json_decref(cat->docs[i]);
    free(cat->docs);
    wg_strmap__free(&cat->ids);
    wg_catalog__index_free(cat->index);
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

/* Adds every entry of one document; where[] receives "origin #k". */
static int add_document(wg_catalog *cat, char **where, size_t *nwhere, const json_t *list,
                        const char *origin)
{
    size_t i;
    const json_t *e;
    json_array_foreach(list, i, e) {
        char *w = NULL;
        if (asprintf(&w, "%s #%zu", origin, i + 1) < 0)
            return wg_error_set(WG_ENOMEM, "out of memory");
        where[(*nwhere)++] = w;
        int rc = wg_catalog__entry(&cat->servers[cat->n], &cat->category[cat->n], e, w);
        if (rc < 0)
            return rc;
        cat->n++;
        if (cat->servers[cat->n - 1].official)
            cat->official++;
    }
    return 0;
}

static int load_all(wg_catalog *cat, char ***where_out, const char *const *docs,
                    const size_t *lens, const char *const *origins, size_t n)
{
    size_t total = 0;
    for (size_t d = 0; d < n; d++) {
        json_error_t jerr;
        const char *origin = origins && origins[d] ? origins[d] : "catalog";
        json_t *doc = json_loadb(docs[d], lens[d], JSON_REJECT_DUPLICATES, &jerr);
        if (!doc)
            return wg_error_set(WG_EINVAL, "%s:%d:%d: not valid JSON: %s", origin, jerr.line,
                                jerr.column, jerr.text);
        cat->docs[cat->ndocs++] = doc;
        const json_t *list = server_list(doc);
        if (!list)
            return wg_error_set(WG_EINVAL, "%s: expected a JSON array of servers or "
                                "{\"servers\": [...]}", origin);
        total += json_array_size(list);
    }
    cat->servers = calloc(total + 1, sizeof *cat->servers);
    cat->category = calloc(total + 1, 1);
    char **where = calloc(total + 1, sizeof *where);
    *where_out = where;
    if (!cat->servers || !cat->category || !where)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t nwhere = 0;
    for (size_t d = 0; d < n; d++) {
        int rc = add_document(cat, where, &nwhere, server_list(cat->docs[d]),
                              origins && origins[d] ? origins[d] : "catalog");
        if (rc < 0)
            return rc;
    }
    int rc = wg_catalog__check_unique(cat->servers, where, cat->n);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < cat->n; i++) {
        const char *id = cat->servers[i].id;
        if ((rc = wg_strmap__put(&cat->ids, id, strlen(id), (uint32_t)i, NULL)) < 0)
            return rc;
    }
    return wg_catalog__index_build(&cat->index, cat);
}

int wg_catalog_parse(wg_catalog **out, const char *const *docs,
                     const size_t *lens, const char *const *origins, size_t n)
{
    if (!out || (n && (!docs || !lens)))
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    for (size_t d = 0; d < n; d++)
        if (!docs[d])
            return wg_error_set(WG_EINVAL, "catalog: document %zu is NULL", d);
    wg_catalog *cat = calloc(1, sizeof *cat);
    if (!cat || !(cat->docs = calloc(n + 1, sizeof *cat->docs))) {
        free(cat);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    wg_strmap__init(&cat->ids, 0);
    char **where = NULL;
    int rc = load_all(cat, &where, docs, lens, origins, n);
    if (where) {
        for (size_t i = 0; where[i]; i++)
            free(where[i]);
        free(where);
    }
    if (rc < 0) {
        wg_catalog_free(cat);
        return rc;
    }
    *out = cat;
    return 0;
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
        uint32_t i = wg_strmap__get(&cat->ids, key, (size_t)n);
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

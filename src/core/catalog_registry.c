/* catalog_registry.c - the official MCP registry's server format <-> catalog
 * entries (waggle/catalog.h wg_catalog_from_registry, wg_catalog_to_registry).
 *
 * Registry documents are untrusted input: identifiers and urls that end up
 * inside an installCmd are checked against a strict character set, so an
 * imported entry can never smuggle shell syntax into a command a user may
 * copy. The catalog's own fields (category, keywords, ...) travel in
 * _meta["io.waggle/catalog"], so export followed by import gives the same
 * entries back. Pure: no I/O.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_KEY "io.waggle/catalog"

/* Package identifiers and urls: letters, digits and @/._:+-=?%~ only. */
static int safe_token(const char *s)
{
    if (!s || !*s || strlen(s) > 300 || s[0] == '-')
        return 0;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 strchr("@/._:+-=?%~", c);
        if (!ok || !c)
            return 0;
    }
    return 1;
}

static const struct {
    const char *registry_type;
    const char *prefix;
} runners[] = {
    { "npm",   "npx -y " },
    { "pypi",  "uvx " },
    { "oci",   "docker run -i --rm " },
    { "nuget", "dnx " },
};

static const char *str(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static char *install_from(const json_t *srv, const char *where)
{
    const json_t *pkgs = json_object_get(srv, "packages");
    for (size_t i = 0; i < json_array_size(pkgs); i++) {
        const json_t *p = json_array_get(pkgs, i);
        const char *type = str(p, "registryType"), *ident = str(p, "identifier");
        for (size_t r = 0; type && r < sizeof runners / sizeof runners[0]; r++) {
            if (strcmp(type, runners[r].registry_type) != 0)
                continue;
            if (!safe_token(ident)) {
                wg_error_set(WG_EINVAL, "%s: package identifier \"%s\" has characters that are "
                             "not allowed in an install command", where, ident ? ident : "");
                return NULL;
            }
            char *cmd = NULL;
            if (asprintf(&cmd, "%s%s", runners[r].prefix, ident) < 0)
                return NULL;
            return cmd;
        }
    }
    const json_t *remotes = json_object_get(srv, "remotes");
    const char *url = str(json_array_get(remotes, 0), "url");
    if (url) {
        if (strncmp(url, "https://", 8) != 0 || !safe_token(url)) {
            wg_error_set(WG_EINVAL, "%s: remote url must be https:// without spaces or quotes", where);
            return NULL;
        }
        char *cmd = NULL;
        if (asprintf(&cmd, "npx -y mcp-remote %s", url) < 0)
            return NULL;
        return cmd;
    }
    wg_error_set(WG_EINVAL, "%s: no npm, pypi, oci or nuget package and no remote to install from", where);
    return NULL;
}

/* A monorepo subfolder ("src/everything"): a clean relative path. */
static int subfolder_ok(const char *s)
{
    if (!s || !*s || *s == '/' || strlen(s) > 200 || strstr(s, ".."))
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("._/-", *p)))
            return 0;
    return 1;
}

/* repository.url (with /tree/HEAD/SUBFOLDER for a server in a monorepo, so
 * two servers of one repository keep two urls), else websiteUrl, else the
 * first remote. New string, or NULL. */
static char *url_from(const json_t *srv)
{
    const json_t *repo = json_object_get(srv, "repository");
    const char *u = str(repo, "url"), *sub = str(repo, "subfolder");
    char *out = NULL;
    if (u && subfolder_ok(sub)) {
        size_t n = strlen(u);
        while (n > 0 && u[n - 1] == '/')
            n--;
        if (asprintf(&out, "%.*s/tree/HEAD/%s", (int)n, u, sub) < 0)
            out = NULL;
        return out;
    }
    if (!u)
        u = str(srv, "websiteUrl");
    if (!u)
        u = str(json_array_get(json_object_get(srv, "remotes"), 0), "url");
    return u ? strdup(u) : NULL;
}

/* "io.github.owner/repo" -> author "owner", id from "repo". */
static int names_from(char **id, char **author, const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *last = slash ? slash + 1 : name;
    size_t cap = strlen(name) + 1;
    *id = malloc(cap);
    if (!*id)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (wg_catalog_normalize_id(*id, cap, last) <= 0)
        wg_catalog_normalize_id(*id, cap, name);
    size_t ns = slash ? (size_t)(slash - name) : strlen(name);
    const char *dot = ns ? memrchr(name, '.', ns) : NULL;
    const char *a = dot ? dot + 1 : name;
    *author = strndup(a, ns - (size_t)(a - name));
    return *author ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const char *guess_category(const wg_catalog *ref, const char *text)
{
    wg_catalog_hit hit;
    size_t n = 0;
    if (ref && wg_catalog_search(&hit, 1, &n, ref, text, NULL) == 0 && n == 1)
        return hit.server->category;
    return "Utilities";
}

static json_t *entry_from(const json_t *srv, const char *category, const wg_catalog *ref,
                          const char *where)
{
    const json_t *meta = json_object_get(json_object_get(srv, "_meta"), META_KEY);
    const char *name = str(srv, "name"), *desc = str(srv, "description");
    char *url = url_from(srv);
    if (!name || !desc || !url) {
        free(url);
        wg_error_set(WG_EINVAL, "%s: a registry server needs \"name\", \"description\" and "
                     "repository.url, websiteUrl or a remote url", where);
        return NULL;
    }
    char *id = NULL, *author = NULL, *cmd = NULL;
    json_t *e = NULL;
    if (names_from(&id, &author, name) < 0)
        goto done;
    const char *install = str(meta, "installCmd");
    if (install && !wg_catalog__install_cmd_ok(install)) {
        wg_error_set(WG_EINVAL, "%s: _meta installCmd \"%s\" is not a plain launcher command",
                     where, install);
        goto done;
    }
    if (!install && !(install = cmd = install_from(srv, where)))
        goto done;
    const char *title = str(srv, "title");
    const char *cat = category ? category : str(meta, "category");
    if (!cat)
        cat = guess_category(ref, desc);
    e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id", str(meta, "id") ? str(meta, "id") : id,
                  "name", title ? title : (str(meta, "id") ? str(meta, "id") : id),
                  "description", desc,
                  "author", str(meta, "author") ? str(meta, "author") : (*author ? author : "Community"),
                  "category", cat, "url", url, "installCmd", install);
    if (!e) {
        wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    const json_t *caps = json_object_get(meta, "capabilities"), *kws = json_object_get(meta, "keywords");
    json_object_set_new(e, "capabilities", json_is_array(caps) ? json_deep_copy(caps) : json_array());
    json_object_set_new(e, "official", json_boolean(json_is_true(json_object_get(meta, "official"))));
    json_object_set_new(e, "keywords", json_is_array(kws) ? json_deep_copy(kws) : json_array());
    if (str(meta, "logo"))
        json_object_set_new(e, "logo", json_string(str(meta, "logo")));
done:
    free(id);
    free(author);
    free(cmd);
    free(url);
    return e;
}

/* The registry's own metadata of a list item. */
static const json_t *official_meta(const json_t *item)
{
    return json_object_get(json_object_get(item, "_meta"), "io.modelcontextprotocol.registry/official");
}

/* Which items to import: not deleted, and of the versions of one name the
 * one marked isLatest (else the last listed). keep[i] = 1 for those. One
 * pass with a map from each name to its first item. */
static int pick_versions(unsigned char *keep, const json_t *list, wg_catalog_registry_stats *st)
{
    size_t n = json_array_size(list);
    uint32_t *best = calloc(n + 1, sizeof *best);   /* per first item: the item kept */
    wg_strmap names;
    wg_strmap__init(&names, 0);
    int rc = best ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++) {
        const json_t *item = json_array_get(list, i), *srv = json_object_get(item, "server");
        if (!json_is_object(srv))
            srv = item;
        const char *status = str(official_meta(item), "status"), *name = str(srv, "name");
        if (status && strcmp(status, "deleted") == 0) {
            st->deleted++;
            continue;
        }
        keep[i] = 1;
        if (!name)
            continue;   /* entry_from names the problem */
        uint32_t first;
        if ((rc = wg_strmap__put(&names, name, strlen(name), (uint32_t)i, &first)) < 0)
            break;
        if (first == UINT32_MAX) {
            best[i] = (uint32_t)i;
            continue;
        }
        uint32_t prev = best[first];
        int latest = json_is_true(json_object_get(official_meta(item), "isLatest"));
        int prev_latest = json_is_true(json_object_get(official_meta(json_array_get(list, prev)),
                                                       "isLatest"));
        st->old_versions++;
        if (prev_latest && !latest) {
            keep[i] = 0;
        } else {
            keep[prev] = 0;
            best[first] = (uint32_t)i;
        }
    }
    wg_strmap__free(&names);
    free(best);
    return rc;
}

typedef struct {
    wg_strmap ids, urls;   /* owned keys: what the catalog and earlier entries use */
} seen;

static int seen_add(seen *sn, const char *id, const char *url)
{
    char *k = wg_catalog__url_key(url);
    if (!k)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = wg_strmap__put(&sn->urls, k, strlen(k), 1, NULL);
    free(k);
    if (rc == 0)
        rc = wg_strmap__put(&sn->ids, id, strlen(id), 1, NULL);
    return rc;
}

/* Skips an entry already in the catalog (its url is), renames one whose id
 * another server has ("io.github.someone/sentry-mcp" -> "someone-sentry").
 * 1 when e is to be skipped. */
static int place(json_t *e, seen *sn, wg_catalog_registry_stats *st, const char *where)
{
    const char *id = json_string_value(json_object_get(e, "id"));
    const char *url = json_string_value(json_object_get(e, "url"));
    char *k = wg_catalog__url_key(url);
    if (!k)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int present = wg_strmap__get(&sn->urls, k, strlen(k)) != UINT32_MAX;
    free(k);
    if (present) {
        st->present++;
        return 1;
    }
    if (wg_strmap__get(&sn->ids, id, strlen(id)) == UINT32_MAX)
        return seen_add(sn, id, url);
    const char *author = json_string_value(json_object_get(e, "author"));
    for (int k2 = 1; k2 <= 9; k2++) {
        char raw[400], norm[400];
        if (k2 == 1)
            snprintf(raw, sizeof raw, "%s-%s", author, id);
        else
            snprintf(raw, sizeof raw, "%s-%s-%d", author, id, k2);
        if (wg_catalog_normalize_id(norm, sizeof norm, raw) <= 0)
            break;
        if (wg_strmap__get(&sn->ids, norm, strlen(norm)) != UINT32_MAX)
            continue;
        if (json_object_set_new(e, "id", json_string(norm)) < 0)
            return wg_error_set(WG_ENOMEM, "out of memory");
        st->renamed++;
        return seen_add(sn, norm, url);
    }
    return wg_error_set(WG_EINVAL, "%s: id \"%s\" is taken and so are its qualified forms", where, id);
}

int wg_catalog_from_registry_stats(json_t **out, wg_catalog_registry_stats *stats,
                                   const json_t *doc, const char *category, const wg_catalog *ref)
{
    if (!out || !doc)
        return wg_error_set(WG_EINVAL, "registry import: NULL argument");
    if (category && wg_catalog_category_index(category) < 0)
        return wg_error_set(WG_EINVAL, "unknown category \"%s\"", category);
    wg_catalog_registry_stats st = { 0 };
    json_t *single = NULL;
    const json_t *list = json_object_get(doc, "servers");
    if (!json_is_array(list)) {
        if (!json_is_object(doc) || !json_object_get(doc, "name"))
            return wg_error_set(WG_EINVAL, "not a registry document: expected {\"servers\":[...]} "
                                "or a server.json with \"name\"");
        list = single = json_pack("[O]", doc);
    }
    size_t n = json_array_size(list);
    unsigned char *keep = calloc(n + 1, 1);
    json_t *arr = json_array();
    seen sn;
    wg_strmap__init(&sn.ids, 1);
    wg_strmap__init(&sn.urls, 1);
    int rc = (arr && keep) ? pick_versions(keep, list, &st) : wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && ref && i < wg_catalog_count(ref); i++)
        rc = seen_add(&sn, wg_catalog_at(ref, i)->id, wg_catalog_at(ref, i)->url);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!keep[i])
            continue;
        const json_t *item = json_array_get(list, i);
        const json_t *srv = json_object_get(item, "server");
        char where[48];
        snprintf(where, sizeof where, "registry server #%zu", i + 1);
        json_t *e = entry_from(json_is_object(srv) ? srv : item, category, ref, where);
        if (!e) {
            rc = wg_error_last_code() ? wg_error_last_code() : WG_ENOMEM;
            break;
        }
        int skip = place(e, &sn, &st, where);
        if (skip < 0)
            rc = skip;
        if (skip != 0 || json_array_append_new(arr, e) < 0) {
            if (skip == 0)
                rc = wg_error_set(WG_ENOMEM, "out of memory");
            json_decref(e);
        }
    }
    wg_strmap__free(&sn.ids);
    wg_strmap__free(&sn.urls);
    free(keep);
    json_decref(single);
    if (rc < 0) {
        json_decref(arr);
        return rc;
    }
    if (stats)
        *stats = st;
    *out = arr;
    return 0;
}

int wg_catalog_from_registry(json_t **out, const json_t *doc, const char *category,
                             const wg_catalog *ref)
{
    return wg_catalog_from_registry_stats(out, NULL, doc, category, ref);
}

/* ---- export --------------------------------------------------------------- */

/* The package an installCmd names, when it is one of the runners. */
static json_t *package_of(const char *cmd)
{
    for (size_t r = 0; r < sizeof runners / sizeof runners[0]; r++) {
        size_t k = strlen(runners[r].prefix);
        if (strncmp(cmd, runners[r].prefix, k) != 0)
            continue;
        const char *ident = cmd + k;
        size_t len = strcspn(ident, " ");
        if (len == 0 || strncmp(ident, "mcp-remote", len) == 0)
            return NULL;
        char *id = strndup(ident, len);
        if (!id)
            return NULL;
        /* "pkg@1.2.3" / "@scope/pkg@latest": the registry keeps the version apart */
        char *at = strrchr(id, '@');
        const char *version = NULL;
        if (at && at != id) {
            *at = '\0';
            version = at + 1;
        }
        json_t *p = json_pack("{s:s, s:s, s:{s:s}}", "registryType", runners[r].registry_type,
                              "identifier", id, "transport", "type", "stdio");
        if (p && version && *version)
            json_object_set_new(p, "version", json_string(version));
        free(id);
        return p;
    }
    return NULL;
}

static char *registry_name(const wg_catalog_server *s)
{
    char *n = NULL;
    const char *gh = "https://github.com/";
    if (strncmp(s->url, gh, strlen(gh)) == 0) {
        const char *owner = s->url + strlen(gh);
        size_t len = strcspn(owner, "/");
        if (asprintf(&n, "io.github.%.*s/%s", (int)len, owner, s->id) < 0)
            n = NULL;
    } else if (asprintf(&n, "local.waggle/%s", s->id) < 0) {
        n = NULL;
    }
    return n;
}

static json_t *server_of(const wg_catalog_server *s)
{
    char *name = registry_name(s);
    json_t *meta = NULL, *full = NULL;
    if (wg_catalog_server_json(&full, s) == 0) {
        meta = json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "id", json_object_get(full, "id"),
                         "author", json_object_get(full, "author"),
                         "category", json_object_get(full, "category"),
                         "capabilities", json_object_get(full, "capabilities"),
                         "keywords", json_object_get(full, "keywords"),
                         "official", json_object_get(full, "official"),
                         "installCmd", json_object_get(full, "installCmd"));
        if (meta && s->logo)
            json_object_set_new(meta, "logo", json_string(s->logo));
        json_decref(full);
    }
    json_t *srv = json_pack("{s:s, s:s, s:s, s:s, s:{s:s}, s:{s:o}}", "name", name ? name : s->id,
                            "title", s->name, "description", s->description, "version", "0.0.0",
                            "repository", "url", s->url, "_meta", META_KEY, meta);
    free(name);
    if (!srv)
        return NULL;
    json_t *pkg = package_of(s->install_cmd);
    if (pkg)
        json_object_set_new(srv, "packages", json_pack("[o]", pkg));
    const char *remote = strstr(s->install_cmd, "mcp-remote");
    if (remote && (remote = strstr(remote, "https://")))
        json_object_set_new(srv, "remotes", json_pack("[{s:s, s:s}]", "type", "sse", "url", remote));
    return json_pack("{s:o}", "server", srv);
}

int wg_catalog_to_registry(json_t **out, const wg_catalog *cat)
{
    if (!out || !cat)
        return wg_error_set(WG_EINVAL, "registry export: NULL argument");
    json_t *list = json_array();
    for (size_t i = 0; list && i < cat->n; i++)
        if (json_array_append_new(list, server_of(&cat->servers[i])) < 0) {
            json_decref(list);
            list = NULL;
        }
    json_t *o = list ? json_pack("{s:o, s:{s:I}}", "servers", list, "metadata", "count",
                                 (json_int_t)cat->n) : NULL;
    if (!o)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = o;
    return 0;
}

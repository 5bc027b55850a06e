/* catalog_shared.c - the local catalog of replicas (waggle/catalog.h
 * wg_catalog_open_in, wg_catalog_import_local_in; docs/replicas.md).
 *
 * On a shared store the entries one machine keeps in DATA_DIR/catalog.json
 * are documents catalog/<000001>.json of shared_docs, each a JSON array in
 * the catalog's format of at most WG_STORE_DOC_MAX bytes. An import never
 * rewrites what is there: it checks the embedded catalog, every chunk and
 * the incoming entries together, then adds the incoming entries as new
 * chunks (numbered after the last) - all inside one write transaction, so
 * two replicas importing at once are serialised and each check sees the
 * other's entries. Loading builds embedded + chunks in their order (no
 * index cache: the build runs once per process). All the chunks together
 * are at most CHUNKS_MAX bytes, as catalog.json is on one machine.
 * The first replica to open the shared store with a catalog.json in its
 * data dir imports that file (tree_import.c), once: when the store holds a
 * catalog already, the file is left out and reported. Files are read only. */
#include "waggle/catalog.h"
#include "waggle/error.h"
#include "core/catalog_internal.h"
#include "store/files.h"
#include "store/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNKS_MAX ((size_t)64 << 20)   /* bytes of all chunks (catalog.json's bound) */
#define CHUNK_DIR "catalog"

typedef struct chunks {
    char **names;        /* stems, sorted: "000001", ... */
    size_t n;
    char **texts;
    size_t *lens;
    char **origins;      /* "the shared store (catalog/000001.json)" */
    size_t total;
} chunks;

static void chunks_free(chunks *c)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->texts)
            free(c->texts[i]);
        if (c->origins)
            free(c->origins[i]);
    }
    free(c->texts);
    free(c->lens);
    free(c->origins);
    wg_store_doc_names_free(c->names);
    memset(c, 0, sizeof *c);
}

static int chunks_load(chunks *c, wg_store *st)
{
    memset(c, 0, sizeof *c);
    int rc = wg_tree__list(&c->names, &c->n, st, NULL, CHUNK_DIR, ".json");
    if (rc < 0)
        return rc;
    if (c->n && (!(c->texts = calloc(c->n, sizeof *c->texts)) ||
                 !(c->lens = calloc(c->n, sizeof *c->lens)) ||
                 !(c->origins = calloc(c->n, sizeof *c->origins))))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, CHUNK_DIR "/%s.json", c->names[i]);
        if ((rc = wg_tree__read(&c->texts[i], &c->lens[i], st, NULL, rel, WG_STORE_DOC_MAX)) < 0)
            break;
        if ((c->total += c->lens[i]) > CHUNKS_MAX)
            rc = wg_error_set(WG_EINVAL, "the shared store's catalog is over %zu MiB",
                              CHUNKS_MAX >> 20);
        else if (!(c->origins[i] = wg_tree__where(st, NULL, rel)))
            rc = wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (rc < 0)
        chunks_free(c);
    return rc;
}

/* Embedded + chunks (+ extra, when non-NULL). */
static int build(wg_catalog **out, const chunks *c, const char *extra, size_t extra_len,
                 const char *extra_origin)
{
    size_t n = c->n + (extra != NULL);
    if (n == 0)
        return wg_catalog_open_embedded(out);
    const char **docs = calloc(n, sizeof *docs), **origins = calloc(n, sizeof *origins);
    size_t *lens = calloc(n, sizeof *lens);
    int rc = docs && origins && lens ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        docs[i] = c->texts[i];
        lens[i] = c->lens[i];
        origins[i] = c->origins[i];
    }
    if (rc == 0 && extra) {
        docs[c->n] = extra;
        lens[c->n] = extra_len;
        origins[c->n] = extra_origin;
    }
    if (rc == 0)
        rc = wg_catalog__build(out, 1, docs, lens, origins, n);
    free(docs);
    free(origins);
    free(lens);
    return rc;
}

int wg_catalog_open_in(wg_catalog **out, wg_store *st, const char *data_dir)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    if (!wg_tree__shared(st))
        return wg_catalog_open(out, data_dir);
    chunks c;
    int rc = chunks_load(&c, st);
    if (rc < 0)
        return rc;
    rc = build(out, &c, NULL, 0, NULL);
    chunks_free(&c);
    return rc;
}

/* Writes entries as chunks numbered from seq, each at most
 * WG_STORE_DOC_MAX bytes (one entry larger than that is WG_EINVAL). */
static int write_chunks(wg_store *st, const json_t *entries, unsigned long seq)
{
    size_t n = json_array_size(entries), i = 0;
    int rc = 0;
    while (rc == 0 && i < n) {
        json_t *part = json_array();
        char *text = NULL;
        size_t len = 2;   /* "[]" */
        for (; part && i < n; i++) {
            char *one = json_dumps(json_array_get(entries, i), JSON_COMPACT);
            size_t ol = one ? strlen(one) : 0;
            free(one);
            if (!ol) {
                rc = wg_error_set(WG_ENOMEM, "out of memory");
                break;
            }
            if (ol + 2 > WG_STORE_DOC_MAX) {
                rc = wg_error_set(WG_EINVAL, "catalog entry %zu is over %u bytes", i + 1,
                                  WG_STORE_DOC_MAX);
                break;
            }
            if (json_array_size(part) && len + ol + 1 > WG_STORE_DOC_MAX)
                break;   /* this chunk is full */
            len += ol + (json_array_size(part) ? 1 : 0);
            json_array_append(part, json_array_get(entries, i));
        }
        if (rc == 0 && !(text = part ? json_dumps(part, JSON_COMPACT) : NULL))
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        if (rc == 0) {
            char rel[64];
            snprintf(rel, sizeof rel, CHUNK_DIR "/%06lu.json", seq++);
            rc = wg_tree__create(st, NULL, rel, text, strlen(text));
        }
        free(text);
        json_decref(part);
    }
    return rc;
}

static unsigned long next_seq(const chunks *c)
{
    return c->n ? strtoul(c->names[c->n - 1], NULL, 10) + 1 : 1;
}

/* Checks entries against embedded + chunks and adds them; caller holds
 * the write transaction. */
static int import_locked(size_t *added, wg_store *st, const json_t *entries)
{
    chunks c;
    int rc = chunks_load(&c, st);
    if (rc < 0)
        return rc;
    char *incoming = json_dumps(entries, JSON_COMPACT);
    wg_catalog *check = NULL;
    if (!incoming)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    else if (c.total + strlen(incoming) > CHUNKS_MAX)
        rc = wg_error_set(WG_EINVAL, "the shared store's catalog would be over %zu MiB",
                          CHUNKS_MAX >> 20);
    if (rc == 0)
        rc = build(&check, &c, incoming, strlen(incoming), "imported");
    wg_catalog_free(check);
    if (rc == 0)
        rc = write_chunks(st, entries, next_seq(&c));
    if (rc == 0)
        *added = json_array_size(entries);
    free(incoming);
    chunks_free(&c);
    return rc;
}

int wg_catalog_import_local_in(size_t *added, wg_store *st, const char *data_dir,
                               const json_t *entries)
{
    if (!wg_tree__shared(st))
        return wg_catalog_import_local(added, data_dir, entries);
    if (!added || !json_is_array(entries))
        return wg_error_set(WG_EINVAL, "catalog import: expected an array of servers");
    int rc = wg_tree__begin(st);
    if (rc == 0)
        rc = wg_tree__end(st, import_locked(added, st, entries));
    return rc;
}

/* ---- the one-time import of DATA_DIR/catalog.json (tree_import.c) ------------------ */

int wg_tree__import_catalog(wg_tree_import *rep, wg_store *st, const char *data_dir)
{
    char *path = wg_files__join(data_dir, "catalog.json", NULL), *text = NULL;
    size_t len = 0;
    if (!path)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = wg_files__read(&text, &len, path, CHUNKS_MAX);
    free(path);
    if (rc == WG_ENOTFOUND || rc == WG_ENOMEM)
        return rc == WG_ENOTFOUND ? (wg_error_clear(), 0) : rc;
    if (rc < 0)
        return wg_tree__refuse(rep, "catalog.json: a symlink, not a regular file, unreadable "
                               "or over %zu MiB", CHUNKS_MAX >> 20), 0;
    json_t *entries = json_loadb(text, len, 0, NULL);
    free(text);
    if (!json_is_array(entries)) {
        json_decref(entries);
        return wg_tree__refuse(rep, "catalog.json: not a JSON array of servers"), 0;
    }
    if ((rc = wg_tree__begin(st)) < 0) {
        json_decref(entries);
        return rc;
    }
    chunks c;
    size_t added = 0;
    rc = chunks_load(&c, st);
    int present = rc == 0 && c.n > 0;
    if (rc == 0)
        chunks_free(&c);
    if (rc == 0 && !present)
        rc = import_locked(&added, st, entries);
    char msg[256] = "";
    if (rc == WG_EINVAL)
        snprintf(msg, sizeof msg, "%s", wg_error_last());
    rc = wg_tree__end(st, rc);
    json_decref(entries);
    if (rc == WG_EINVAL)
        return wg_tree__refuse(rep, "catalog.json: %s", msg), 0;
    if (rc < 0)
        return rc;
    if (present)
        rep->present++;
    else
        rep->imported++;
    return 0;
}

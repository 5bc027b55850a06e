/* tree.h - the data dir subtrees that replicas share (issue 16 §1,
 * docs/replicas.md): installed skills (skills/<name>.md), marketplace packs
 * (marketplace/<pack>/pack.json and marketplace/<pack>/<skill>.md) and
 * plugin manifests (plugins/<name>/plugin.json).
 *
 * On one machine (st NULL or SQLite) they are files of DATA_DIR, exactly as
 * before. On a shared store (wg_store_is_shared: replicas on PostgreSQL)
 * they are documents of shared_docs under the same relative names, so that
 * what one replica installs every replica sees. Every function takes both
 * (st, data_dir) and decides; callers write one code path.
 *
 * Names: every relative name is components joined by '/', each of which
 * passes wg_files__name_ok ([A-Za-z0-9._-], 1..64, no leading '.'), checked
 * here (WG_EINVAL): a name built from a request can never leave its subtree.
 *
 * Thread-safety: as the store (one statement per call) and the file system;
 * a check-then-create sequence across several names is one step only
 * inside wg_tree__begin .. wg_tree__end (the store's write lock when
 * shared; nothing on one machine, where the caller's own mutex serialises).
 * Internal to libwaggle. */
#ifndef WAGGLE_STORE_TREE_H
#define WAGGLE_STORE_TREE_H

#include <jansson.h>
#include <stddef.h>

#include "waggle/store.h"

#define WG_TREE_LIST_MAX 4096   /* names one list returns at most (more: WG_EINVAL) */

/* 1 when (st) keeps the subtrees as documents. */
int wg_tree__shared(const wg_store *st);

/* Reads rel, at most max bytes. *out new, NUL-terminated (len may be NULL).
 * Returns 0, WG_ENOTFOUND, WG_EDENIED (larger than max; for files also a
 * symlink or not a regular file), WG_EINVAL (a bad name), WG_EIO,
 * WG_ENOMEM, or the store's error (WG_EUNAVAILABLE, WG_ESTORE). */
int wg_tree__read(char **out, size_t *len, wg_store *st, const char *data_dir, const char *rel,
                  size_t max);

/* 1 when rel exists (for files: anything at that path, even unusable), 0
 * when not, or a negative error. */
int wg_tree__exists(wg_store *st, const char *data_dir, const char *rel);

/* Creates rel holding body, never replacing what is there: WG_EEXISTS when
 * it exists. Files: a private temporary file (0600), fsync, link() into
 * place, fsync of the directory; missing parents are made 0700. Shared:
 * one INSERT ... ON CONFLICT DO NOTHING, so of two replicas creating one
 * name at once exactly one wins. Bodies over WG_STORE_DOC_MAX are
 * WG_EINVAL on both. */
int wg_tree__create(wg_store *st, const char *data_dir, const char *rel, const char *body,
                    size_t len);

/* The children of dir (a relative directory: "skills", "marketplace"),
 * sorted bytewise, each passing wg_files__name_ok; *names a new
 * NULL-terminated array (wg_store_doc_names_free).
 *   leaf ".md" (starts with '.'): files dir/<stem>.md, returned as <stem>;
 *   leaf "pack.json": subdirectories; files: every entry of dir with a
 *     safe name (the caller reads dir/<child>/leaf and decides), shared:
 *     the children for which the document dir/<child>/leaf exists.
 * A missing dir is an empty list. More than WG_TREE_LIST_MAX children is
 * WG_EINVAL (fail closed, never a silent cut). */
int wg_tree__list(char ***names, size_t *n, wg_store *st, const char *data_dir, const char *dir,
                  const char *leaf);

/* A multi-name step: the store's write transaction when shared, nothing
 * otherwise. end commits when rc == 0, else rolls back; returns rc, or the
 * commit's error. */
int wg_tree__begin(wg_store *st);
int wg_tree__end(wg_store *st, int rc);

/* A human place for rel in messages: "DATA_DIR/rel" or "the shared store
 * (rel)". New string or NULL. */
char *wg_tree__where(const wg_store *st, const char *data_dir, const char *rel);

/* ---- marketplace packs (marketplace/<pack>/pack.json) ------------------ */

#define WG_PACK_MANIFEST_MAX (64 * 1024)       /* bytes of one pack.json */
#define WG_PACK_BYTES_MAX (4u * 1024 * 1024)   /* bytes of all a pack's skills */

/* Parses a pack.json strictly: a JSON object (duplicate keys refused) whose
 * "skills" is an array of 1..WG_MARKETPLACE_SKILLS_MAX distinct skill
 * names, "description" (optional) a string of at most
 * WG_MARKETPLACE_DESCRIPTION_MAX characters, and every other field a
 * string, number, boolean or null: nothing nested, so a deep document is
 * refused, never walked. *out new with "name" set to name. Returns 0 or
 * WG_EINVAL with a message that says what is wrong (never the text). */
int wg_tree__pack_parse(json_t **out, const char *text, size_t len, const char *name);

/* ---- importing a data dir's files into a shared store ------------------ */

typedef struct wg_tree_import {
    size_t imported;          /* documents created */
    size_t present;           /* already in the store: the store's copy is kept */
    size_t refused;           /* files not imported (they stay where they are) */
    char first_refusal[320];  /* why the first refusal happened, with its name */
} wg_tree_import;

/* Copies DATA_DIR/skills/<name>.md, DATA_DIR/marketplace/<pack>/,
 * DATA_DIR/plugins/<name>/plugin.json, DATA_DIR/personas/<id>.json and
 * DATA_DIR/catalog.json (see catalog_shared.c) into a shared store, once: a name the
 * store already holds is left as the store has it (another replica may have
 * changed it), so running it again, or on every replica at once, changes
 * nothing. Files are only read, never moved or deleted. What the loaders
 * would skip (a symlink, a bad name, a file over its bound, a manifest that
 * does not parse) and a pack over its bounds is refused and counted; a
 * pack goes in whole or not at all (one transaction). No-op (all zero)
 * when st is not shared. Returns 0, or the store's error (WG_EUNAVAILABLE,
 * WG_ESTORE, WG_ENOMEM). */
int wg_tree__import(wg_tree_import *rep, wg_store *st, const char *data_dir);

/* Counts one refusal in rep, keeping the first one's reason (clears the
 * error). */
void wg_tree__refuse(wg_tree_import *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* catalog_shared.c: DATA_DIR/catalog.json into the store's catalog
 * chunks, when the store holds no catalog yet (else counted present). */
int wg_tree__import_catalog(wg_tree_import *rep, wg_store *st, const char *data_dir);

#endif

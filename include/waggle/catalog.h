/* waggle/catalog.h - the MCP server catalog: ids, uniqueness, ranked search
 * (spec 4 find_connector / list_connector_categories, spec 12).
 *
 * A catalog is a read-only list of MCP servers (a discovery and install
 * directory; nothing here connects to a server). It is made from one or more
 * JSON documents; the library embeds data/mcp-catalog.json at build time and
 * wg_catalog_open() overlays the data dir's catalog.json on it.
 *
 * Loading validates every entry (required fields, one of the 14 categories,
 * ids in normal form) and uniqueness across all documents; any failure names
 * both entries involved. An inverted index is built once, at load; searches
 * never modify the handle, so one catalog may be searched from many threads
 * at once. Every returned pointer is borrowed from the catalog and stays
 * valid until wg_catalog_free().
 */
#ifndef WAGGLE_CATALOG_H
#define WAGGLE_CATALOG_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>

#include "waggle/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The spec's 14 categories, in the spec's order. */
#define WG_CATALOG_CATEGORY_COUNT 14

/* find_connector's limit: default and clamp range (spec 4). */
#define WG_CATALOG_LIMIT_DEFAULT 10
#define WG_CATALOG_LIMIT_MAX     30

/* One MCP server (spec 12 McpServer, plus keywords). Strings are UTF-8 and
 * never NULL except logo (NULL when absent). */
typedef struct wg_catalog_server {
    const char *id;           /* in normal form: wg_catalog_normalize_id(id) == id */
    const char *name;
    const char *description;
    const char *author;
    const char *category;     /* one of the 14 spellings */
    const char *url;          /* repository or documentation page */
    const char *install_cmd;  /* JSON field installCmd */
    const char *logo;         /* may be NULL */
    const char *const *capabilities;
    size_t capability_count;
    const char *const *keywords;  /* words people use when they need it */
    size_t keyword_count;
    int official;             /* 1 when maintained by the service's vendor */
} wg_catalog_server;

typedef struct wg_catalog wg_catalog;

/* One ranked result of wg_catalog_search. */
typedef struct wg_catalog_hit {
    const wg_catalog_server *server;  /* borrowed */
    double score;                     /* > 0; larger is better */
} wg_catalog_hit;

/* ---- ids and categories (pure, thread-safe) ------------------------------ */

/* normalizeMcpId (original-facts 7.1, vectors 12.3): lower-case, strip a
 * leading npm scope, drop mcp/server affixes, join words with '-'. Writes a
 * NUL-terminated result of at most cap-1 bytes to out (never longer than the
 * input). "GitHub", "github-mcp", "mcp-server-github" and
 * "@modelcontextprotocol/server-github" all give "github"; "mcp" gives "".
 * Returns the length written, or WG_EINVAL when raw or out is NULL or cap is
 * too small (cap > strlen(raw) always suffices). */
WG_EXTERN int wg_catalog_normalize_id(char *out, size_t cap, const char *raw);

/* The category's spelling at index i (0..13, the spec's order), or NULL. */
WG_EXTERN const char *wg_catalog_category_name(int i);

/* CATEGORY_EMOJI (original-facts 7.1) of a category spelling (exact), or NULL. */
WG_EXTERN const char *wg_catalog_category_emoji(const char *category);

/* Index 0..13 of a category, matched case-insensitively ("ai & ml" works),
 * or -1 when it is none of the 14. */
WG_EXTERN int wg_catalog_category_index(const char *category);

/* ---- loading ------------------------------------------------------------ */

/* Parses and validates n JSON documents as one catalog (later documents are
 * overlays). Each document is a JSON array of servers or an object with a
 * "servers" array. origins[i] names document i in messages (may be NULL).
 * On any invalid field or uniqueness failure returns WG_EINVAL with a message
 * naming the document and both entries, e.g.
 *   duplicate entry: "sentry" (data/mcp-catalog.json #12) and "sentry"
 *   (data/mcp-catalog.json #57) are the same server
 * Uniqueness failures: two ids that normalize to the same key, the same id
 * twice (identical or with two urls), two ids whose urls are equal once case
 * and trailing slashes are ignored. *out is new: free with wg_catalog_free.
 * Returns 0, WG_EINVAL, WG_ENOMEM. */
WG_EXTERN int wg_catalog_parse(wg_catalog **out, const char *const *docs,
                               const size_t *lens, const char *const *origins, size_t n);

/* The catalog embedded in the library at build time (data/mcp-catalog.json,
 * validated by the build). *out is new. Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_catalog_open_embedded(wg_catalog **out);

/* The embedded catalog with the data dir's catalog.json overlaid when that
 * file exists. data_dir may be NULL (then only the embedded catalog; the
 * directory is not resolved or created). *out is new.
 * Returns 0, WG_EINVAL (the local file is invalid or collides: the message
 * says which entries), WG_EIO, WG_ENOMEM. */
WG_EXTERN int wg_catalog_open(wg_catalog **out, const char *data_dir);

WG_EXTERN void wg_catalog_free(wg_catalog *cat);

WG_EXTERN size_t wg_catalog_count(const wg_catalog *cat);

/* Entry i in catalog order (embedded first, then overlays), or NULL. */
WG_EXTERN const wg_catalog_server *wg_catalog_at(const wg_catalog *cat, size_t i);

/* The entry whose id equals wg_catalog_normalize_id(any_spelling), or NULL. */
WG_EXTERN const wg_catalog_server *wg_catalog_lookup(const wg_catalog *cat, const char *any_spelling);

/* ---- search ------------------------------------------------------------- */

/* Ranks servers for a natural-language need: BM25F over name, id, keywords,
 * capabilities, description and category with light stemming, a synonym
 * vocabulary, prefix completion of unknown words, and boosts when the query
 * names a server. category (NULL = all) is matched case-insensitively.
 * Writes up to min(cap, WG_CATALOG_LIMIT_MAX) hits to hits, best first (ties
 * in catalog order), and their number to *n. Allocates scratch proportional to the catalog size.
 * Returns 0, WG_EINVAL (NULL arguments, unknown category), WG_ENOMEM. */
WG_EXTERN int wg_catalog_search(wg_catalog_hit *hits, size_t cap, size_t *n,
                                const wg_catalog *cat, const char *query, const char *category);

/* find_connector (spec 4, original-facts 7.2): args is the tool's argument
 * object ({"query": string, "limit"?: number|string, "category"?: string}),
 * borrowed, may be NULL. *out is a new JSON object: the match list
 * {query, catalogSize, matchCount, matches[...]}, the no-match
 * {query, matchCount:0, hint}, or for an empty query
 * {error:"query is required", hint}. limit defaults to 10 and is clamped to
 * 1..30 (0 and non-numbers give 10). Returns 0, WG_EINVAL (NULL catalog, or
 * a query that is not valid UTF-8 - only possible when args were built
 * without jansson's checks), WG_ENOMEM. */
WG_EXTERN int wg_catalog_find_connector(json_t **out, const wg_catalog *cat, const json_t *args);

/* find_connector's answer as compact JSON text, written directly (no jansson
 * objects): the same bytes as json_dumps(JSON_COMPACT) of
 * wg_catalog_find_connector's object, except that U+2028 and U+2029 are
 * escaped as \u2028 / \u2029. *out is new NUL-terminated text (free());
 * *len (may be NULL) receives its length. Thread-safe on a shared catalog.
 * Returns 0, WG_EINVAL (NULL catalog or out, a query that is not valid
 * UTF-8), WG_ENOMEM. */
WG_EXTERN int wg_catalog_find_connector_text(char **out, size_t *len, const wg_catalog *cat,
                                             const json_t *args);

/* list_connector_categories: {totalServers, officialServers, categoryCount,
 * categories:[{category, emoji, count}]} with all 14 categories in the
 * spec's order (zero counts included). *out is new. Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_catalog_categories(json_t **out, const wg_catalog *cat);

/* One server as the catalog's JSON object (spec 12 fields plus keywords).
 * *out is new. Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_catalog_server_json(json_t **out, const wg_catalog_server *s);

/* ---- the official MCP registry's format --------------------------------- */

/* Maps a registry document (a /v0.1/servers response {"servers":[{"server":
 * {...}}]} or one server.json) to catalog entries: id from the name's last
 * segment, url from repository.url (else websiteUrl, else the first remote),
 * installCmd from the first package (npm -> "npx -y ID", pypi -> "uvx ID",
 * oci -> "docker run -i --rm ID", nuget -> "dnx ID") or else
 * "npx -y mcp-remote URL" for a remote. category is used for every entry when
 * given; otherwise each entry takes the category of its best match in ref
 * (NULL: "Utilities"). *out is a new JSON array in the catalog's own format.
 * Same as wg_catalog_from_registry_stats (below) without the counts.
 * Returns 0, WG_EINVAL (malformed document, with the entry), WG_ENOMEM. */
WG_EXTERN int wg_catalog_from_registry(json_t **out, const json_t *doc, const char *category,
                                       const wg_catalog *ref);

/* What wg_catalog_from_registry_stats left out or changed. */
typedef struct {
    size_t deleted;       /* status "deleted" in the registry's metadata */
    size_t old_versions;  /* another version of the same name was kept (isLatest, else the last) */
    size_t present;       /* already in ref, or listed twice: same url ignoring case and '/' */
    size_t renamed;       /* id taken by another server: qualified with the owner */
} wg_catalog_registry_stats;

/* wg_catalog_from_registry for a whole registry list at scale: skips
 * deleted servers and all but the latest version of each name; skips a
 * server whose url ref or an earlier entry already has; gives a server whose
 * id is taken the owner-qualified id ("io.github.someone/sentry-mcp" ->
 * "someone-sentry", then "-2".."-9"); a server in a monorepo gets its
 * subfolder's url (repository.url + "/tree/HEAD/" + subfolder). *stats (may
 * be NULL) counts what was skipped or renamed. Returns 0, WG_EINVAL,
 * WG_ENOMEM. */
WG_EXTERN int wg_catalog_from_registry_stats(json_t **out, wg_catalog_registry_stats *stats,
                                             const json_t *doc, const char *category,
                                             const wg_catalog *ref);

/* The catalog in the registry's list format: {"servers":[{"server":{...}}],
 * "metadata":{"count":N}}. *out is new. Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_catalog_to_registry(json_t **out, const wg_catalog *cat);

/* Merges entries (a JSON array in the catalog's format) into the data dir's
 * catalog.json after checking them against the embedded catalog, the
 * existing local entries and each other; on a collision nothing is written
 * and WG_EINVAL names both entries. *added receives the number of entries
 * written. Returns 0, WG_EINVAL, WG_EIO, WG_ENOMEM. */
WG_EXTERN int wg_catalog_import_local(size_t *added, const char *data_dir, const json_t *entries);

/* The same over a store (docs/replicas.md). When st is shared (replicas on
 * PostgreSQL) the local entries are its documents catalog/<n>.json, the same
 * on every replica: open builds the embedded catalog with them (an
 * unreachable store is WG_EUNAVAILABLE), import checks the incoming entries
 * against all of them and adds them as new documents in one write
 * transaction (at most 64 MiB in all; one entry over WG_STORE_DOC_MAX is
 * WG_EINVAL). Otherwise (st NULL or SQLite) the data dir's catalog.json as
 * above. A running process reads its catalog once: after an import, restart
 * the replicas to serve it, as on one machine. */
WG_EXTERN int wg_catalog_open_in(wg_catalog **out, wg_store *st, const char *data_dir);
WG_EXTERN int wg_catalog_import_local_in(size_t *added, wg_store *st, const char *data_dir,
                                         const json_t *entries);

#ifdef __cplusplus
}
#endif
#endif

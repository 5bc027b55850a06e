/* waggle/plugins.h - locally installed plugins: DATA_DIR/plugins/<name>/plugin.json
 *   {"name": "...", "description": "...", "skills": ["..."],
 *    "mcpServers": ["..."], "tools": ["..."]}
 * Read by `waggle route` (router deps) and the capability status route.
 *
 * A plugin whose plugin.json is missing, unreadable, not an object, larger
 * than WG_PLUGIN_MAX_BYTES, or whose name is not a safe name is skipped and
 * counted in `skipped`: one broken plugin never hides the others.
 * Lists are plain values; safe to share read-only between threads.
 */
#ifndef WAGGLE_PLUGINS_H
#define WAGGLE_PLUGINS_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>

#include "waggle/store.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { WG_PLUGIN_MAX_BYTES = 256 * 1024 };

typedef struct {
    char *name;          /* "name", else the directory name */
    char *description;   /* "" when absent */
    char **skills;       size_t n_skills;
    char **mcp_servers;  size_t n_mcp_servers;
    char **tools;        size_t n_tools;
} wg_plugin;

typedef struct {
    wg_plugin *items;    /* sorted by directory name */
    size_t count;
    size_t skipped;      /* plugin directories that could not be read */
} wg_plugin_list;

/* Loads DATA_DIR/plugins/ * /plugin.json. A missing plugins dir is an empty
 * list. out is zeroed first; free with wg_plugin_list_free (also after an
 * error). Returns 0, WG_EIO (the plugins dir exists but cannot be listed),
 * WG_ENOMEM. */
WG_EXTERN int wg_plugins_load(wg_plugin_list *out, const char *data_dir);

/* The same over a store: when st is shared (replicas on PostgreSQL) the
 * manifests are its documents plugins/<name>/plugin.json, the same on every
 * replica (an unreachable store is WG_EUNAVAILABLE); otherwise (st NULL or
 * SQLite) DATA_DIR/plugins as above. Sorted by name either way. */
WG_EXTERN int wg_plugins_load_in(wg_plugin_list *out, wg_store *st, const char *data_dir);

/* Parses one plugin.json text; dir_name is the fallback name. out is zeroed
 * first. Returns 0, WG_EINVAL (not a JSON object, wrong field types, unsafe
 * name), WG_ENOMEM. */
WG_EXTERN int wg_plugin_parse(wg_plugin *out, const char *json_text, size_t len, const char *dir_name);
WG_EXTERN void wg_plugin_clear(wg_plugin *p);
WG_EXTERN void wg_plugin_list_free(wg_plugin_list *list);

/* {name, description, skills, mcpServers, tools}. New reference or NULL. */
WG_EXTERN json_t *wg_plugin_json(const wg_plugin *p);

#ifdef __cplusplus
}
#endif
#endif

/* plugins_store.c - walking DATA_DIR/plugins/<name>/plugin.json, or for
 * replicas the shared store's documents plugins/<name>/plugin.json
 * (waggle/plugins.h, store/tree.h). */
#include "waggle/plugins.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "store/files.h"
#include "store/tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads dir/name/plugin.json; 1 when it cannot be used (absent, a symlink,
 * unreadable or too large), so the plugin is skipped rather than fatal. */
static int read_manifest(char **out, size_t *len, const char *dir, const char *name)
{
    char *path = wg_files__join(dir, name, "plugin.json");
    if (!path)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = wg_files__read(out, len, path, WG_PLUGIN_MAX_BYTES);
    free(path);
    if (rc < 0 && rc != WG_ENOMEM) {
        wg_error_clear();
        return 1;
    }
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const wg_plugin *)a)->name, ((const wg_plugin *)b)->name);
}

int wg_plugins_load(wg_plugin_list *out, const char *data_dir)
{
    memset(out, 0, sizeof *out);
    char *dir = NULL;
    if (wg_datadir_path(&dir, data_dir, "plugins") < 0)
        return WG_ENOMEM;
    DIR *d = opendir(dir);
    if (!d) {
        int rc = errno == ENOENT ? 0 : wg_error_set(WG_EIO, "cannot read %s: %s", dir, strerror(errno));
        free(dir);
        return rc;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *text = NULL;
        size_t len = 0;
        rc = read_manifest(&text, &len, dir, e->d_name);
        if (rc == 1) {
            rc = 0;
            out->skipped++;
            continue;
        }
        if (rc < 0)
            break;
        wg_plugin p;
        int prc = wg_plugin_parse(&p, text, len, e->d_name);
        free(text);
        if (prc == WG_ENOMEM) {
            rc = prc;
            break;
        }
        if (prc < 0) {
            wg_error_clear();
            out->skipped++;
            continue;
        }
        wg_plugin *g = realloc(out->items, (out->count + 1) * sizeof *g);
        if (!g) {
            wg_plugin_clear(&p);
            rc = wg_error_set(WG_ENOMEM, "out of memory");
            break;
        }
        out->items = g;
        out->items[out->count++] = p;
    }
    closedir(d);
    free(dir);
    if (rc < 0) {
        wg_plugin_list_free(out);
        return rc;
    }
    if (out->count > 1)
        qsort(out->items, out->count, sizeof *out->items, by_name);
    return 0;
}

/* Adds the parsed manifest, or counts it skipped when it cannot be used. */
static int add_parsed(wg_plugin_list *out, const char *text, size_t len, const char *dir_name)
{
    wg_plugin p;
    int rc = wg_plugin_parse(&p, text, len, dir_name);
    if (rc == WG_ENOMEM)
        return rc;
    if (rc < 0) {
        wg_error_clear();
        out->skipped++;
        return 0;
    }
    wg_plugin *g = realloc(out->items, (out->count + 1) * sizeof *g);
    if (!g) {
        wg_plugin_clear(&p);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    out->items = g;
    out->items[out->count++] = p;
    return 0;
}

int wg_plugins_load_in(wg_plugin_list *out, wg_store *st, const char *data_dir)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "wg_plugins_load_in: NULL argument");
    if (!wg_tree__shared(st))
        return wg_plugins_load(out, data_dir);
    memset(out, 0, sizeof *out);
    char **names = NULL;
    size_t n = 0;
    int rc = wg_tree__list(&names, &n, st, NULL, "plugins", "plugin.json");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char rel[128], *text = NULL;
        size_t len = 0;
        snprintf(rel, sizeof rel, "plugins/%s/plugin.json", names[i]);
        rc = wg_tree__read(&text, &len, st, NULL, rel, WG_PLUGIN_MAX_BYTES);
        if (rc == WG_EDENIED || rc == WG_ENOTFOUND) {
            wg_error_clear();
            out->skipped += rc == WG_EDENIED;
            rc = 0;
            continue;
        }
        if (rc == 0)
            rc = add_parsed(out, text, len, names[i]);
        free(text);
    }
    wg_store_doc_names_free(names);
    if (rc < 0) {
        wg_plugin_list_free(out);
        return rc;
    }
    if (out->count > 1)
        qsort(out->items, out->count, sizeof *out->items, by_name);
    return 0;
}

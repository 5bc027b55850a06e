/* catalog_local.c - the data dir's own catalog (DATA_DIR/catalog.json),
 * overlaid on the embedded one (waggle/catalog.h wg_catalog_open,
 * wg_catalog_import_local). The file is a JSON array in the catalog's format;
 * it is written whole to a temporary file and renamed, so a crash never
 * leaves half a catalog. */
#include "store/files.h"
#include "waggle/catalog.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "core/catalog_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOCAL_NAME "catalog.json"
#define LOCAL_MAX  (16u << 20)

/* Reads the local file; *text = NULL when it does not exist. */
static int read_local(char **text, size_t *len, char **path_out, const char *data_dir)
{
    char *path;
    int rc = wg_datadir_path(&path, data_dir, LOCAL_NAME);
    if (rc < 0)
        return rc;
    *path_out = path;
    *text = NULL;
    *len = 0;
    /* Never through a symlink, never blocking on a FIFO (files.h). */
    rc = wg_files__read(text, len, path, LOCAL_MAX);
    if (rc == WG_ENOTFOUND) {
        wg_error_clear();
        return 0;
    }
    if (rc == WG_EDENIED)
        return wg_error_set(WG_EINVAL, "%s: not a regular file, or larger than 16 MiB", path);
    return rc < 0 ? wg_error_set(rc, "cannot read %s", path) : 0;
}

int wg_catalog_open(wg_catalog **out, const char *data_dir)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    if (!data_dir)
        return wg_catalog_open_embedded(out);
    char *text = NULL, *path = NULL;
    size_t len = 0;
    int rc = read_local(&text, &len, &path, data_dir);
    if (rc == 0) {
        const char *docs[2] = { wg_catalog__embedded_json, text };
        size_t lens[2] = { wg_catalog__embedded_len, len };
        const char *origins[2] = { wg_catalog__embedded_origin, path };
        rc = wg_catalog_parse(out, docs, lens, origins, text ? 2 : 1);
    }
    free(text);
    free(path);
    return rc;
}

static int write_atomic(const char *path, const char *text)
{
    int rc = wg_files__write_atomic(path, text, strlen(text));   /* 0600, temp + rename */
    return rc < 0 ? wg_error_set(rc, "cannot write %s", path) : 0;
}

int wg_catalog_import_local(size_t *added, const char *data_dir, const json_t *entries)
{
    if (!added || !data_dir || !json_is_array(entries))
        return wg_error_set(WG_EINVAL, "catalog import: expected a data dir and an array of servers");
    char *text = NULL, *path = NULL;
    size_t len = 0;
    int rc = read_local(&text, &len, &path, data_dir);
    json_t *merged = NULL;
    char *merged_text = NULL, *incoming = NULL;
    wg_catalog *check = NULL;
    if (rc < 0)
        goto done;
    json_error_t jerr;
    merged = text ? json_loadb(text, len, 0, &jerr) : json_array();
    if (!json_is_array(merged)) {
        rc = wg_error_set(WG_EINVAL, "%s: not a JSON array of servers", path);
        goto done;
    }
    incoming = json_dumps(entries, JSON_COMPACT);
    if (!incoming) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    /* Check embedded + local + incoming together before writing anything. */
    const char *docs[3] = { wg_catalog__embedded_json, text ? text : "[]", incoming };
    size_t lens[3] = { wg_catalog__embedded_len, text ? len : 2, strlen(incoming) };
    const char *origins[3] = { wg_catalog__embedded_origin, path, "imported" };
    if ((rc = wg_catalog_parse(&check, docs, lens, origins, 3)) < 0)
        goto done;
    if (json_array_extend(merged, (json_t *)entries) < 0 ||
        !(merged_text = json_dumps(merged, JSON_INDENT(2)))) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = write_atomic(path, merged_text)) == 0)
        *added = json_array_size(entries);
done:
    wg_catalog_free(check);
    json_decref(merged);
    free(merged_text);
    free(incoming);
    free(text);
    free(path);
    return rc;
}

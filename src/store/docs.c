/* docs.c - named documents in the store (waggle/store.h "shared state",
 * migration 5): what several replicas share instead of data dir files
 * (the config, personas, marketplace packs, installed skills). One
 * statement per call, portable SQL; names are checked so that a name built
 * from a request can never mean anything but one row. */
#include "waggle/store.h"
#include "waggle/error.h"
#include "waggle/time.h"

#include <stdlib.h>
#include <string.h>

static int name_ok(const char *s, int allow_empty)
{
    size_t n = s ? strlen(s) : 0;
    if (!s || (!n && !allow_empty) || n > WG_STORE_DOC_NAME_MAX || s[0] == '/' || strstr(s, ".."))
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == '\\')
            return 0;
    return 1;
}

static int bad_name(void)
{
    return wg_error_set(WG_EINVAL, "a document name is 1..%d printable ASCII bytes without "
                        "'..', a leading '/' or a backslash", WG_STORE_DOC_NAME_MAX);
}

int wg_store_doc_get(char **out, size_t *len, wg_store *st, const char *name)
{
    if (!out || !st || !name_ok(name, 0))
        return out && st ? bad_name() : wg_error_set(WG_EINVAL, "wg_store_doc_get: NULL argument");
    wg_store_value k = WG_SV_TEXT(name);
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(st, "SELECT body FROM shared_docs WHERE name = ?", &k, 1, &rows, NULL);
    if (rc < 0)
        return rc;
    size_t n = 0;
    const void *b = wg_store_rows_blob(rows, 0, 0, &n);
    if (!wg_store_rows_count(rows)) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOTFOUND, "no document %s in the store", name);
    }
    char *c = malloc(n + 1);
    if (!c) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (n)
        memcpy(c, b, n);
    c[n] = '\0';
    wg_store_rows_free(rows);
    *out = c;
    if (len)
        *len = n;
    return 0;
}

int wg_store_doc_put(wg_store *st, const char *name, const char *body, size_t len)
{
    if (!st || (!body && len))
        return wg_error_set(WG_EINVAL, "wg_store_doc_put: NULL argument");
    if (!name_ok(name, 0))
        return bad_name();
    if (len > WG_STORE_DOC_MAX)
        return wg_error_set(WG_EINVAL, "document %s is %zu bytes, at most %u allowed", name, len,
                            WG_STORE_DOC_MAX);
    wg_store_value p[3] = { WG_SV_TEXT(name), WG_SV_BLOB(body ? body : "", len),
                            WG_SV_INT(wg_time_now_ms()) };
    return wg_store_exec(st,
        "INSERT INTO shared_docs (name, body, updated_ms) VALUES (?, ?, ?)"
        " ON CONFLICT (name) DO UPDATE SET body = excluded.body, updated_ms = excluded.updated_ms",
        p, 3, NULL, NULL);
}

int wg_store_doc_delete(wg_store *st, const char *name)
{
    if (!st)
        return wg_error_set(WG_EINVAL, "wg_store_doc_delete: NULL argument");
    if (!name_ok(name, 0))
        return bad_name();
    wg_store_value k = WG_SV_TEXT(name);
    return wg_store_exec(st, "DELETE FROM shared_docs WHERE name = ?", &k, 1, NULL, NULL);
}

void wg_store_doc_names_free(char **names)
{
    for (char **p = names; p && *p; p++)
        free(*p);
    free(names);
}

int wg_store_doc_list(char ***names, size_t *n, wg_store *st, const char *prefix)
{
    if (!names || !st || !prefix)
        return wg_error_set(WG_EINVAL, "wg_store_doc_list: NULL argument");
    if (!name_ok(prefix, 1))
        return bad_name();
    /* substr, not LIKE: a prefix holding '%' or '_' means itself. */
    wg_store_value p[3] = { WG_SV_INT((int64_t)strlen(prefix)), WG_SV_TEXT(prefix),
                            WG_SV_INT(WG_STORE_DOC_LIST_MAX + 1) };
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(st, "SELECT name FROM shared_docs WHERE substr(name, 1, ?) = ?"
                           " ORDER BY name LIMIT ?", p, 3, &rows, NULL);
    if (rc < 0)
        return rc;
    size_t count = wg_store_rows_count(rows);
    if (count > WG_STORE_DOC_LIST_MAX) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_EINVAL, "more than %d documents under %s", WG_STORE_DOC_LIST_MAX,
                            prefix);
    }
    char **out = calloc(count + 1, sizeof *out);
    for (size_t i = 0; out && i < count; i++) {
        if (!(out[i] = strdup(wg_store_rows_text(rows, i, 0)))) {
            wg_store_doc_names_free(out);
            out = NULL;
        }
    }
    wg_store_rows_free(rows);
    if (!out)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *names = out;
    if (n)
        *n = count;
    return 0;
}

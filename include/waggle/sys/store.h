/* waggle/sys/store.h - the store back-end interface, for back-end authors
 * (in the way include/git2/sys/ keeps libgit2's). A program that only uses
 * a store needs waggle/store.h; this header is for code that plugs another
 * database under it, or opens a given back end.
 *
 * A back end is a function table. The store serialises every call on one
 * wg_store (waggle/store.h, thread-safety), so a back end's functions are
 * never called concurrently for the same db handle. Every function returns
 * 0 or a negative WG_E* with the message set (wg_error_set).
 */
#ifndef WAGGLE_SYS_STORE_H
#define WAGGLE_SYS_STORE_H

#include "waggle/export.h"
#include "waggle/store.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of wg_store_backend this header describes. A table whose
 * version differs is refused (WG_EINVAL): fields may be added at the end
 * in a later version without breaking back ends built against this one. */
#define WG_STORE_BACKEND_VERSION 1

typedef struct wg_store_backend {
    unsigned int version;      /* WG_STORE_BACKEND_VERSION */
    const char *name;          /* "sqlite", "postgres" */
    const char *blob_type;     /* column type for WG_STORE_BLOB: "BLOB", "BYTEA" */
    /* target: a file path for sqlite, a conninfo string for postgres. */
    int (*open)(void **db, const char *target);
    void (*close)(void *db);
    int (*exec)(void *db, const char *sql, const wg_store_value *params,
                size_t n, wg_store_rows **rows, int64_t *changes);
    int (*begin)(void *db, wg_store_tx kind);
    int (*commit)(void *db);
    int (*rollback)(void *db);
} wg_store_backend;

/* A table with only the version set; a static table names the version
 * itself: { .version = WG_STORE_BACKEND_VERSION, .name = ..., ... }. */
#define WG_STORE_BACKEND_INIT { .version = WG_STORE_BACKEND_VERSION }

/* The built-in back ends: SQLite (one file) and PostgreSQL (libpq
 * conninfo or postgres:// URL as the target; several replicas share it).
 * Static tables, never NULL. */
WG_EXTERN const wg_store_backend *wg_store_sqlite_backend(void);
WG_EXTERN const wg_store_backend *wg_store_postgres_backend(void);

/* Opens any back end and migrates it. be is borrowed and must outlive the
 * store; data_dir may be NULL. Returns 0, WG_EINVAL (NULL argument, a
 * table of another WG_STORE_BACKEND_VERSION, a missing function), or what
 * the back end's open or the migration returned. */
WG_EXTERN int wg_store_open_backend(wg_store **out, const wg_store_backend *be,
                                    const char *target, const char *data_dir);

/* For back ends: building a result set. wg_store_rows_new returns NULL on
 * allocation failure; wg_store_rows_add_row appends an all-NULL row;
 * wg_store_rows_set copies the value into the last row. */
WG_EXTERN wg_store_rows *wg_store_rows_new(size_t columns);
WG_EXTERN int wg_store_rows_add_row(wg_store_rows *rows);
WG_EXTERN int wg_store_rows_set(wg_store_rows *rows, size_t c, const wg_store_value *v);

#ifdef __cplusplus
}
#endif
#endif

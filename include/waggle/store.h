/* waggle/store.h - the storage interface under the vault, the audit log,
 * pool state and settings.
 *
 * A wg_store is one open database. wg_store_open() opens the embedded SQLite
 * back end at DATA_DIR/waggle.db (WAL journal, 5 s busy timeout, schema
 * migrated to the current version on open). Other back ends (PostgreSQL, for
 * several waggled replicas sharing state) plug in through the function table
 * wg_store_backend and wg_store_open_backend() (waggle/sys/store.h): every
 * module above the store
 * speaks only portable SQL through wg_store_exec() -- `?` placeholders,
 * TEXT / BIGINT columns, blobs typed through the back end's blob_type,
 * INSERT ... ON CONFLICT (...) DO UPDATE, no SQLite-only functions.
 *
 * Thread-safety: a wg_store may be shared by threads; calls are serialised
 * by a recursive mutex, and a transaction (wg_store_begin .. commit/rollback)
 * holds that mutex on the calling thread until it ends, so the transaction
 * must begin and end on one thread. Several processes may open the same
 * data dir at once: wg_store_begin(st, WG_STORE_TX_WRITE) takes the database
 * write lock up front (SQLite BEGIN IMMEDIATE), so read-modify-write
 * sequences (the audit hash chain, pool cooldowns) never interleave.
 *
 * Errors: WG_ESTORE (with the back end's message), WG_EBUSY (the write
 * lock stayed taken past the busy timeout), WG_EINVAL, WG_ENOMEM, WG_EIO.
 */
#ifndef WAGGLE_STORE_H
#define WAGGLE_STORE_H

#include "waggle/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_store wg_store;

/* Opens (creating when missing) the SQLite store DATA_DIR/waggle.db, mode
 * 0600, and migrates it. data_dir must exist (see wg_datadir_open). When
 * $WAGGLE_DATABASE_URL is set and non-empty, the PostgreSQL back end is
 * opened on it instead (data_dir still holds config.json and key files;
 * replicas sharing a database should share WAGGLE_VAULT_PASSPHRASE or one
 * vault.key). *out is new: free with wg_store_free.
 * Returns 0, WG_EINVAL, WG_EIO, WG_ESTORE, WG_ENOMEM. */
WG_EXTERN int wg_store_open(wg_store **out, const char *data_dir);

/* Closes the store. NULL is a no-op. Must not be called inside a
 * transaction. */
WG_EXTERN void wg_store_free(wg_store *st);

/* The data dir the store was opened from (borrowed; NULL for a back end
 * opened without one). */
WG_EXTERN const char *wg_store_data_dir(const wg_store *st);

/* Schema version the store is at after migration (>= 1). */
WG_EXTERN int wg_store_schema_version(const wg_store *st);

/* ---- portable SQL --------------------------------------------------- */

typedef enum {
    WG_STORE_NULL = 0,
    WG_STORE_INT,      /* 64-bit integer (BIGINT) */
    WG_STORE_TEXT,     /* UTF-8 text (TEXT) */
    WG_STORE_BLOB      /* bytes (the back end's blob_type) */
} wg_store_type;

/* One bound parameter; p/len borrowed for the duration of the call. For
 * TEXT, len may be (size_t)-1 meaning strlen(p). */
typedef struct wg_store_value {
    wg_store_type type;
    int64_t i;
    const void *p;
    size_t len;
} wg_store_value;

#define WG_SV_NULL        ((wg_store_value){ WG_STORE_NULL, 0, NULL, 0 })
#define WG_SV_INT(v)      ((wg_store_value){ WG_STORE_INT, (int64_t)(v), NULL, 0 })
#define WG_SV_TEXT(s)     wg_store_value_text(s)

/* A TEXT parameter, or NULL when s is NULL. */
static inline wg_store_value wg_store_value_text(const char *s)
{
    wg_store_value v = { s ? WG_STORE_TEXT : WG_STORE_NULL, 0, s, (size_t)-1 };
    return v;
}
#define WG_SV_BLOB(b, n)  ((wg_store_value){ WG_STORE_BLOB, 0, (b), (n) })

/* A fully materialised result set (all rows read before exec returns). */
typedef struct wg_store_rows wg_store_rows;

/* Runs one statement with n parameters. When rows is non-NULL, *rows is new
 * (free with wg_store_rows_free; it may hold zero rows). When changes is
 * non-NULL, *changes is the number of rows inserted/updated/deleted.
 * Returns 0, WG_ESTORE, WG_EBUSY, WG_EINVAL, WG_ENOMEM. */
WG_EXTERN int wg_store_exec(wg_store *st, const char *sql, const wg_store_value *params,
                            size_t n, wg_store_rows **rows, int64_t *changes);

WG_EXTERN size_t wg_store_rows_count(const wg_store_rows *rows);
WG_EXTERN size_t wg_store_rows_columns(const wg_store_rows *rows);
/* Cell accessors: NULL / 0 for SQL NULL or out-of-range. Pointers are
 * borrowed, valid until wg_store_rows_free. Text is NUL-terminated. */
WG_EXTERN const char *wg_store_rows_text(const wg_store_rows *rows, size_t r, size_t c);
WG_EXTERN int64_t wg_store_rows_int(const wg_store_rows *rows, size_t r, size_t c);
WG_EXTERN const void *wg_store_rows_blob(const wg_store_rows *rows, size_t r, size_t c, size_t *len);
WG_EXTERN int wg_store_rows_is_null(const wg_store_rows *rows, size_t r, size_t c);
/* Frees the rows, wiping cell memory first. NULL is a no-op. */
WG_EXTERN void wg_store_rows_free(wg_store_rows *rows);

typedef enum {
    WG_STORE_TX_READ = 0,   /* one snapshot: every read sees the same moment
                               (SQLite WAL read transaction, PostgreSQL
                               REPEATABLE READ) */
    WG_STORE_TX_WRITE = 1   /* takes the write lock now (BEGIN IMMEDIATE) */
} wg_store_tx;

/* Transactions do not nest. Returns 0, WG_EBUSY, WG_ESTORE, WG_EINVAL
 * (already in a transaction on this store). */
WG_EXTERN int wg_store_begin(wg_store *st, wg_store_tx kind);
WG_EXTERN int wg_store_commit(wg_store *st);
/* Always ends the transaction; returns 0 or WG_ESTORE. */
WG_EXTERN int wg_store_rollback(wg_store *st);

/* ---- small settings table (key -> text), e.g. the vault's salt ------- */

/* *out is new (free()). WG_ENOTFOUND when absent. */
WG_EXTERN int wg_store_setting_get(char **out, wg_store *st, const char *key);
WG_EXTERN int wg_store_setting_set(wg_store *st, const char *key, const char *value);

/* A bounded counter in the settings table (value = decimal text): adds one
 * to key when its value is below limit, as one conditional upsert inside a
 * write transaction, so concurrent threads and processes (and replicas on
 * PostgreSQL) never take more than limit in total. A missing key counts as
 * 0. Returns 0 with *count the new value; WG_EDENIED with *count the
 * current value when it already reached limit (nothing changes); WG_EINVAL
 * (limit < 1, NULL key), WG_EBUSY, WG_ESTORE. Must not be called inside a
 * transaction on st. count may be NULL. */
WG_EXTERN int wg_store_counter_take(wg_store *st, const char *key, int64_t limit, int64_t *count);

/* ---- lease locks (migration 4) ---------------------------------------- */

/* A named lock with a lease, shared by every thread, process and replica
 * on the store (table store_locks). Taken for owner until now_ms + ttl_ms
 * when it is free, when the holder's lease ran out (a crashed holder never
 * blocks for longer than its ttl), or when owner holds it already (the
 * lease is renewed). One conditional upsert decides, so two takers never
 * both win. now_ms 0 = the real clock. Returns 0 (taken), WG_EBUSY
 * (another owner holds a live lease), WG_EINVAL, WG_ESTORE. Must not be
 * called inside a transaction of another thread's making (like every call). */
WG_EXTERN int wg_store_lock_take(wg_store *st, const char *name, const char *owner, int64_t ttl_ms,
                                 int64_t now_ms);

/* Releases the lock when owner holds it; 0 also when it did not. */
WG_EXTERN int wg_store_lock_release(wg_store *st, const char *name, const char *owner);

/* ---- shared state (migration 5; docs/replicas.md) ---------------------- */

/* 1 when the store is the one source of truth for state that a data dir
 * file holds on a single machine: every back end but SQLite (several
 * waggled replicas on one PostgreSQL). On SQLite the data dir itself is
 * what the processes of the machine share, and nothing changes. */
WG_EXTERN int wg_store_is_shared(const wg_store *st);
/* 0 when the store can be used now (a lost PostgreSQL connection is
 * re-made first; no round trip while it is up), WG_EUNAVAILABLE when the
 * server cannot be reached. SQLite: always 0. */
WG_EXTERN int wg_store_ping(wg_store *st);
/* "sqlite", "postgres"; borrowed. */
WG_EXTERN const char *wg_store_backend_name(const wg_store *st);

#define WG_STORE_DOC_NAME_MAX 255          /* bytes of a document's name */
#define WG_STORE_DOC_MAX (4u * 1024 * 1024)   /* bytes of one document */
#define WG_STORE_DOC_LIST_MAX 4096         /* names one list returns at most */

/* Named documents (table shared_docs), e.g. "config.json",
 * "personas/reviewer.json", "skills/tidy.md": what replicas share instead of
 * data dir files. Names are 1..WG_STORE_DOC_NAME_MAX printable ASCII bytes
 * without "..", a leading '/' or a backslash; bodies at most
 * WG_STORE_DOC_MAX bytes. Work on every back end (tests run them on both).
 * get: *out new, NUL-terminated (len may be NULL); WG_ENOTFOUND when
 * absent. put: insert or replace. delete: 0 also when absent.
 * list: the names under prefix ("" = all), sorted, *names a new
 * NULL-terminated array (free with wg_store_doc_names_free); more than
 * WG_STORE_DOC_LIST_MAX is WG_EINVAL (fail closed, never a silent cut).
 * Each is one statement: safe inside or outside a transaction. */
WG_EXTERN int wg_store_doc_get(char **out, size_t *len, wg_store *st, const char *name);
WG_EXTERN int wg_store_doc_put(wg_store *st, const char *name, const char *body, size_t len);
WG_EXTERN int wg_store_doc_delete(wg_store *st, const char *name);
WG_EXTERN int wg_store_doc_list(char ***names, size_t *n, wg_store *st, const char *prefix);
WG_EXTERN void wg_store_doc_names_free(char **names);

/* ---- notifications between replicas (PostgreSQL LISTEN/NOTIFY) ---------- */

#define WG_STORE_NOTIFY_MAX 7999           /* payload bytes (PostgreSQL's limit is 8000) */

/* Sends payload on channel to every listener on the database (delivered
 * when the surrounding transaction, if any, commits). Channel: 1..63 of
 * [a-z0-9_]. WG_EUNSUPPORTED on SQLite; WG_EINVAL for a bad channel or a
 * payload over WG_STORE_NOTIFY_MAX; WG_EUNAVAILABLE when unreachable. */
WG_EXTERN int wg_store_notify(wg_store *st, const char *channel, const char *payload);

typedef struct wg_store_feed wg_store_feed;
/* Called on the feed's own thread for each notification; payload borrowed. */
typedef void (*wg_store_feed_fn)(void *ud, const char *payload);

/* Starts a thread with its own connection ($WAGGLE_DATABASE_LISTEN_URL when
 * set - LISTEN needs a session, so behind PgBouncer in transaction mode it
 * goes straight to PostgreSQL - else the store's target) that LISTENs on
 * channel and hands every notification to fn. A lost connection is retried every
 * half second (notifications sent meanwhile are not replayed). *out new:
 * stop with wg_store_feed_stop. WG_EUNSUPPORTED on SQLite. */
WG_EXTERN int wg_store_feed_start(wg_store_feed **out, wg_store *st, const char *channel,
                        wg_store_feed_fn fn, void *ud);
/* Stops the thread (joins it; fn is not running after) and frees. NULL ok. */
WG_EXTERN void wg_store_feed_stop(wg_store_feed *f);
/* 1 while the feed's connection is up and listening. */
WG_EXTERN int wg_store_feed_listening(wg_store_feed *f);

/* Store back ends (the function table, wg_store_open_backend, result-set
 * builders) are declared in waggle/sys/store.h, for back-end authors. */

#ifdef __cplusplus
}
#endif
#endif

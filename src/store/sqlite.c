/* sqlite.c - the embedded SQLite back end of the store (waggle/store.h).
 *
 * One database file, WAL journal (readers never block the writer), a 5 s
 * busy timeout so concurrent processes wait for the write lock instead of
 * failing, synchronous=NORMAL (durable at checkpoints, safe under WAL), and
 * BEGIN IMMEDIATE for write transactions so a read-modify-write sequence
 * holds the lock from its first read. The file is created 0600. */
#include "waggle/store.h"
#include "waggle/sys/store.h"
#include "waggle/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUSY_TIMEOUT_MS 5000
#define RETRY_MS 20

static int fail(sqlite3 *db, int code, const char *what)
{
    int wg = (code == SQLITE_BUSY || code == SQLITE_LOCKED) ? WG_EBUSY : WG_ESTORE;
    return wg_error_set(wg, "store: %s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(code));
}

/* One attempt: the connection with its busy timeout and pragmas. Returns
 * an SQLite code; *step names what failed (db stays set for the message). */
static int open_once(sqlite3 **db, const char *path, const char **step)
{
    *step = "open";
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                             SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_busy_timeout(*db, BUSY_TIMEOUT_MS);
    static const char *const pragmas[] = {
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=NORMAL",
        "PRAGMA foreign_keys=ON",
    };
    for (size_t i = 0; i < sizeof pragmas / sizeof *pragmas; i++) {
        *step = pragmas[i];
        if ((rc = sqlite3_exec(*db, pragmas[i], NULL, NULL, NULL)) != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

/* Failures another process's open can cause for a moment. */
static int transient(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY: case SQLITE_LOCKED: case SQLITE_PROTOCOL: case SQLITE_IOERR:
        return 1;
    default:
        return 0;
    }
}

static int sq_open(void **out, const char *path)
{
    /* Create the file ourselves so it is 0600 from its first byte, and
     * look at what is there before SQLite does: a FIFO would block it
     * forever, another user's file could be rewritten behind our back. A
     * symlink is allowed (a database on another disk). */
    int fd = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0)
        return wg_error_set(WG_EIO, "cannot open %s: %s", path, strerror(errno));
    struct stat sb;
    const char *why = fstat(fd, &sb) != 0 ? "cannot be examined"
                    : !S_ISREG(sb.st_mode) ? "is not a regular file"
                    : sb.st_uid != geteuid() ? "belongs to another user" : NULL;
    if (!why && (sb.st_mode & 077))
        (void)fchmod(fd, 0600);
    close(fd);
    if (why)
        return wg_error_set(WG_EIO, "the store %s %s", path, why);
    /* Processes that open a fresh file at the same moment race to switch it
     * to WAL: the loser sees "database is locked" or, while the winner
     * creates the -shm/-wal files, a transient I/O error, and SQLite calls
     * no busy handler for that step. Such a failure closes and opens again
     * until the busy timeout has passed. */
    sqlite3 *db = NULL;
    for (int waited_ms = 0;; waited_ms += RETRY_MS) {
        const char *step = NULL;
        int rc = open_once(&db, path, &step);
        if (rc == SQLITE_OK)
            break;
        int e = fail(db, rc, step);
        sqlite3_close(db);
        db = NULL;
        if (!transient(rc) || waited_ms >= BUSY_TIMEOUT_MS)
            return e;
        struct timespec ts = { 0, RETRY_MS * 1000000L };
        nanosleep(&ts, NULL);
    }
    *out = db;
    return 0;
}

static void sq_close(void *db)
{
    sqlite3_close(db);
}

static int bind(sqlite3 *db, sqlite3_stmt *s, const wg_store_value *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int k = (int)i + 1, rc = SQLITE_OK;
        switch (p[i].type) {
        case WG_STORE_NULL:
            rc = sqlite3_bind_null(s, k);
            break;
        case WG_STORE_INT:
            rc = sqlite3_bind_int64(s, k, p[i].i);
            break;
        case WG_STORE_TEXT:
            rc = sqlite3_bind_text(s, k, p[i].p,
                                   p[i].len == (size_t)-1 ? -1 : (int)p[i].len, SQLITE_TRANSIENT);
            break;
        case WG_STORE_BLOB:
            rc = sqlite3_bind_blob(s, k, p[i].p ? p[i].p : "", (int)p[i].len, SQLITE_TRANSIENT);
            break;
        }
        if (rc != SQLITE_OK)
            return fail(db, rc, "bind");
    }
    return 0;
}

static int collect(wg_store_rows *rows, sqlite3_stmt *s)
{
    int rc = wg_store_rows_add_row(rows);
    if (rc < 0)
        return rc;
    int nc = sqlite3_column_count(s);
    for (int c = 0; c < nc; c++) {
        wg_store_value v = WG_SV_NULL;
        switch (sqlite3_column_type(s, c)) {
        case SQLITE_INTEGER:
            v = WG_SV_INT(sqlite3_column_int64(s, c));
            break;
        case SQLITE_FLOAT:
            v = WG_SV_INT((int64_t)sqlite3_column_double(s, c));
            break;
        case SQLITE_TEXT:
            v.type = WG_STORE_TEXT;
            v.p = sqlite3_column_text(s, c);
            v.len = (size_t)sqlite3_column_bytes(s, c);
            break;
        case SQLITE_BLOB:
            v.type = WG_STORE_BLOB;
            v.p = sqlite3_column_blob(s, c);
            v.len = (size_t)sqlite3_column_bytes(s, c);
            break;
        default:
            break;
        }
        if ((rc = wg_store_rows_set(rows, (size_t)c, &v)) < 0)
            return rc;
    }
    return 0;
}

static int sq_exec(void *vdb, const char *sql, const wg_store_value *params,
                   size_t n, wg_store_rows **out, int64_t *changes)
{
    sqlite3 *db = vdb;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        return fail(db, rc, "prepare");
    wg_store_rows *rows = NULL;
    if ((rc = bind(db, s, params, n)) < 0)
        goto done;
    if (out && !(rows = wg_store_rows_new((size_t)sqlite3_column_count(s)))) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    for (;;) {
        int st = sqlite3_step(s);
        if (st == SQLITE_DONE)
            break;
        if (st != SQLITE_ROW) {
            rc = fail(db, st, "step");
            goto done;
        }
        if (rows && (rc = collect(rows, s)) < 0)
            goto done;
    }
    rc = 0;
    if (changes)
        *changes = sqlite3_changes64(db);
    if (out) {
        *out = rows;
        rows = NULL;
    }
done:
    wg_store_rows_free(rows);
    sqlite3_finalize(s);
    return rc;
}

static int simple(sqlite3 *db, const char *sql)
{
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : fail(db, rc, sql);
}

static int sq_begin(void *db, wg_store_tx kind)
{
    return simple(db, kind == WG_STORE_TX_WRITE ? "BEGIN IMMEDIATE" : "BEGIN");
}

static int sq_commit(void *db) { return simple(db, "COMMIT"); }

static int sq_rollback(void *db)
{
    if (sqlite3_get_autocommit(db))
        return 0;   /* SQLite already rolled back (e.g. after SQLITE_FULL) */
    return simple(db, "ROLLBACK");
}

static const wg_store_backend sqlite_backend = {
    .version = WG_STORE_BACKEND_VERSION,
    .name = "sqlite",
    .blob_type = "BLOB",
    .open = sq_open,
    .close = sq_close,
    .exec = sq_exec,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
};

const wg_store_backend *wg_store_sqlite_backend(void)
{
    return &sqlite_backend;
}

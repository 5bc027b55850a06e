/* store.c - the storage interface (waggle/store.h): the handle, the
 * recursive lock that serialises threads, result sets, versioned
 * migrations written in portable SQL, and the settings table. The SQL
 * dialect details live in the back ends (sqlite.c). */
#include "waggle/store.h"
#include "waggle/sys/store.h"
#include "waggle/error.h"
#include "waggle/time.h"
#include "waggle/version.h"
#include "store/store_int.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wg_store {
    const wg_store_backend *be;
    void *db;
    char *data_dir;
    pthread_mutex_t mu;        /* recursive; held across a transaction */
    int in_tx;
    int version;
    char *target;              /* the back end's target (the feed opens its own connection) */
};

/* ---- result sets ------------------------------------------------------ */

typedef struct cell {
    wg_store_type type;
    int64_t i;
    char *p;                   /* text (NUL-terminated) or blob */
    size_t len;
} cell;

struct wg_store_rows {
    size_t ncols, nrows, cap;
    cell *cells;
};

wg_store_rows *wg_store_rows_new(size_t columns)
{
    wg_store_rows *r = calloc(1, sizeof *r);
    if (r)
        r->ncols = columns;
    return r;
}

int wg_store_rows_add_row(wg_store_rows *r)
{
    if (r->nrows == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        cell *c = realloc(r->cells, cap * (r->ncols ? r->ncols : 1) * sizeof *c);
        if (!c)
            return wg_error_set(WG_ENOMEM, "out of memory");
        r->cells = c;
        r->cap = cap;
    }
    memset(&r->cells[r->nrows * r->ncols], 0, r->ncols * sizeof(cell));
    r->nrows++;
    return 0;
}

int wg_store_rows_set(wg_store_rows *r, size_t c, const wg_store_value *v)
{
    if (!r->nrows || c >= r->ncols)
        return wg_error_set(WG_EINTERNAL, "row cell out of range");
    cell *x = &r->cells[(r->nrows - 1) * r->ncols + c];
    x->type = v->type;
    x->i = v->i;
    if (v->type == WG_STORE_TEXT || v->type == WG_STORE_BLOB) {
        size_t len = v->len == (size_t)-1 ? strlen(v->p) : v->len;
        x->p = malloc(len + 1);
        if (!x->p)
            return wg_error_set(WG_ENOMEM, "out of memory");
        if (len)
            memcpy(x->p, v->p, len);
        x->p[len] = '\0';
        x->len = len;
    }
    return 0;
}

static const cell *at(const wg_store_rows *r, size_t row, size_t c)
{
    if (!r || row >= r->nrows || c >= r->ncols)
        return NULL;
    return &r->cells[row * r->ncols + c];
}

size_t wg_store_rows_count(const wg_store_rows *r) { return r ? r->nrows : 0; }
size_t wg_store_rows_columns(const wg_store_rows *r) { return r ? r->ncols : 0; }

const char *wg_store_rows_text(const wg_store_rows *r, size_t row, size_t c)
{
    const cell *x = at(r, row, c);
    return x && (x->type == WG_STORE_TEXT || x->type == WG_STORE_BLOB) ? x->p : NULL;
}

int64_t wg_store_rows_int(const wg_store_rows *r, size_t row, size_t c)
{
    const cell *x = at(r, row, c);
    if (!x)
        return 0;
    if (x->type == WG_STORE_INT)
        return x->i;
    if (x->type == WG_STORE_TEXT)
        return strtoll(x->p, NULL, 10);
    return 0;
}

const void *wg_store_rows_blob(const wg_store_rows *r, size_t row, size_t c, size_t *len)
{
    const cell *x = at(r, row, c);
    if (!x || (x->type != WG_STORE_BLOB && x->type != WG_STORE_TEXT)) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = x->len;
    return x->p;
}

int wg_store_rows_is_null(const wg_store_rows *r, size_t row, size_t c)
{
    const cell *x = at(r, row, c);
    return !x || x->type == WG_STORE_NULL;
}

void wg_store_rows_free(wg_store_rows *r)
{
    if (!r)
        return;
    for (size_t k = 0; k < r->nrows * r->ncols; k++) {
        if (r->cells[k].p) {
            sodium_memzero(r->cells[k].p, r->cells[k].len);
            free(r->cells[k].p);
        }
    }
    free(r->cells);
    free(r);
}

/* ---- locking ------------------------------------------------------------ */

static void lock(wg_store *st) { pthread_mutex_lock(&st->mu); }
static void unlock(wg_store *st) { pthread_mutex_unlock(&st->mu); }

int wg_store_exec(wg_store *st, const char *sql, const wg_store_value *params,
                  size_t n, wg_store_rows **rows, int64_t *changes)
{
    if (!st || !sql || (n && !params))
        return wg_error_set(WG_EINVAL, "wg_store_exec: NULL argument");
    lock(st);
    int rc = st->be->exec(st->db, sql, params, n, rows, changes);
    unlock(st);
    return rc;
}

int wg_store_begin(wg_store *st, wg_store_tx kind)
{
    if (!st)
        return wg_error_set(WG_EINVAL, "wg_store_begin: NULL store");
    lock(st);
    if (st->in_tx) {
        unlock(st);
        return wg_error_set(WG_EINVAL, "a transaction is already open on this store");
    }
    int rc = st->be->begin(st->db, kind);
    if (rc < 0) {
        unlock(st);
        return rc;
    }
    st->in_tx = 1;
    return 0;   /* the lock stays held until commit/rollback */
}

int wg_store_commit(wg_store *st)
{
    if (!st || !st->in_tx)
        return wg_error_set(WG_EINVAL, "no open transaction");
    int rc = st->be->commit(st->db);
    if (rc < 0) {
        st->be->rollback(st->db);
    }
    st->in_tx = 0;
    unlock(st);
    return rc;
}

int wg_store_rollback(wg_store *st)
{
    if (!st || !st->in_tx)
        return wg_error_set(WG_EINVAL, "no open transaction");
    int rc = st->be->rollback(st->db);
    st->in_tx = 0;
    unlock(st);
    return rc;
}

/* ---- migrations ------------------------------------------------------------
 * Portable SQL; "{blob}" is replaced by the back end's blob type. A
 * migration's statements and its version row commit together. */

typedef struct migration {
    int version;
    const char *const *stmts;
} migration;

static const char *const m1[] = {
    "CREATE TABLE IF NOT EXISTS settings ("
    " key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vault_entries ("
    " name TEXT PRIMARY KEY, nonce {blob} NOT NULL,"
    " ciphertext {blob} NOT NULL, updated_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS audit_log ("
    " id BIGINT PRIMARY KEY, ts TEXT NOT NULL, event TEXT NOT NULL,"
    " actor TEXT, tool TEXT, input TEXT, decision TEXT, rule TEXT,"
    " prev_hash TEXT NOT NULL, hash TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS audit_log_event ON audit_log (event)",
    "CREATE TABLE IF NOT EXISTS pool_entries ("
    " provider TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL,"
    " cooldown_until BIGINT, last_error TEXT,"
    " success_count BIGINT NOT NULL, error_count BIGINT NOT NULL,"
    " PRIMARY KEY (provider, name))",
    "CREATE TABLE IF NOT EXISTS pool_state ("
    " provider TEXT PRIMARY KEY, rr_index BIGINT NOT NULL)",
    NULL
};

/* 2: the audit anchor (audit.c). Every row gets a keyed seal, and one
 * anchor row keeps the sealed chain head (row count + newest hash). The
 * migration has no key, so it leaves the anchor unsealed (seal ''):
 * wg_audit_open seals it, and says so with an audit_anchored row when
 * older rows exist. */
static const char *const m2[] = {
    "ALTER TABLE audit_log ADD COLUMN seal TEXT",
    "CREATE TABLE IF NOT EXISTS audit_anchor ("
    " id BIGINT PRIMARY KEY, row_count BIGINT NOT NULL, head TEXT NOT NULL,"
    " seal TEXT NOT NULL, updated_at TEXT NOT NULL)",
    "INSERT INTO audit_anchor (id, row_count, head, seal, updated_at)"
    " VALUES (1, 0, '', '', '')",
    NULL
};

/* 4 (connectors2): lease locks, e.g. one OAuth2 refresh at a time per
 * connection across processes and replicas (wg_store_lock_take). */
static const char *const m4[] = {
    "CREATE TABLE IF NOT EXISTS store_locks ("
    " name TEXT PRIMARY KEY, owner TEXT NOT NULL, until_ms BIGINT NOT NULL)",
    NULL
};

/* 3 (engine): pending approvals (src/engine/approvals.c): one row per call
 * waiting for a person, so any process or replica on the store can answer. */
static const char *const m3[] = {
    "CREATE TABLE IF NOT EXISTS approvals ("
    " id TEXT PRIMARY KEY, state TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,"
    " args_bytes BIGINT NOT NULL, summary TEXT NOT NULL, level TEXT NOT NULL,"
    " approval_class TEXT NOT NULL, rule TEXT NOT NULL, workspace_id TEXT, session_id TEXT,"
    " actor TEXT, created_ms BIGINT NOT NULL, expires_ms BIGINT NOT NULL,"
    " forget_ms BIGINT NOT NULL, resolved_ms BIGINT, resolved_by TEXT)",
    "CREATE INDEX IF NOT EXISTS approvals_state ON approvals (state, expires_ms)",
    NULL
};

/* 5 (replicas): the state every replica must see that was a data dir
 * file (docs/replicas.md): named documents (the config with tier, trial
 * and settings; personas; marketplace packs; installed skills) and the
 * cost events. Created on both back ends; SQLite stores use them only when
 * asked to (wg_store_is_shared). */
static const char *const m5[] = {
    "CREATE TABLE IF NOT EXISTS shared_docs ("
    " name TEXT PRIMARY KEY, body {blob} NOT NULL, updated_ms BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS cost_events ("
    " id TEXT PRIMARY KEY, created_ms BIGINT NOT NULL, workspace_id TEXT NOT NULL,"
    " body TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS cost_events_ws ON cost_events (workspace_id)",
    NULL
};

static const migration migrations[] = {
    { 1, m1 },
    { 2, m2 },
    { 3, m3 },
    { 4, m4 },
    { 5, m5 },
};

static int known_version(int64_t v)
{
    for (size_t m = 0; m < sizeof migrations / sizeof *migrations; m++)
        if (migrations[m].version == v)
            return 1;
    return 0;
}

static int run_sql(wg_store *st, const char *tmpl)
{
    const char *mark = strstr(tmpl, "{blob}");
    if (!mark)
        return st->be->exec(st->db, tmpl, NULL, 0, NULL, NULL);
    /* Replace every {blob}; statements are short, two passes suffice. */
    size_t cap = strlen(tmpl) + 64;
    char *sql = malloc(cap);
    if (!sql)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t o = 0;
    for (const char *s = tmpl; *s;) {
        if (!strncmp(s, "{blob}", 6)) {
            size_t bl = strlen(st->be->blob_type);
            if (o + bl + 1 >= cap) {
                char *g = realloc(sql, cap *= 2);
                if (!g) {
                    free(sql);
                    return wg_error_set(WG_ENOMEM, "out of memory");
                }
                sql = g;
            }
            memcpy(sql + o, st->be->blob_type, bl);
            o += bl;
            s += 6;
        } else {
            if (o + 2 >= cap) {
                char *g = realloc(sql, cap *= 2);
                if (!g) {
                    free(sql);
                    return wg_error_set(WG_ENOMEM, "out of memory");
                }
                sql = g;
            }
            sql[o++] = *s++;
        }
    }
    sql[o] = '\0';
    int rc = st->be->exec(st->db, sql, NULL, 0, NULL, NULL);
    free(sql);
    return rc;
}

/* Applies every migration whose version is not recorded yet. Versions are
 * allocated to several branches and may land out of order (4 before 2), so
 * a store is checked against each version, not against the highest one. */
static int migrate(wg_store *st)
{
    int rc = wg_store_begin(st, WG_STORE_TX_WRITE);
    if (rc < 0)
        return rc;
    wg_store_rows *rows = NULL;
    if ((rc = st->be->exec(st->db,
            "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)",
            NULL, 0, NULL, NULL)) < 0)
        goto fail;
    if ((rc = st->be->exec(st->db, "SELECT version FROM schema_version",
                           NULL, 0, &rows, NULL)) < 0)
        goto fail;
    int have = 0;
    size_t applied = wg_store_rows_count(rows);
    /* A store migrated by a newer waggle (another replica upgraded first)
     * has tables this one does not know to keep consistent: refuse rather
     * than write beside them. */
    for (size_t r = 0; r < applied; r++) {
        int64_t v = wg_store_rows_int(rows, r, 0);
        if (!known_version(v)) {
            rc = wg_error_set(WG_EUNSUPPORTED, "the store is at schema version %lld, which this "
                              "waggle %s does not know (it knows up to %d): upgrade this replica "
                              "before starting it; nothing was changed", (long long)v,
                              wg_version(), migrations[sizeof migrations / sizeof *migrations - 1].version);
            goto fail;
        }
    }
    for (size_t m = 0; m < sizeof migrations / sizeof *migrations; m++) {
        int done = 0;
        for (size_t r = 0; r < applied && !done; r++)
            done = wg_store_rows_int(rows, r, 0) == migrations[m].version;
        if (!done) {
            for (const char *const *s = migrations[m].stmts; *s; s++)
                if ((rc = run_sql(st, *s)) < 0)
                    goto fail;
            wg_store_value v = WG_SV_INT(migrations[m].version);
            if ((rc = st->be->exec(st->db, "INSERT INTO schema_version (version) VALUES (?)",
                                   &v, 1, NULL, NULL)) < 0)
                goto fail;
        }
        if (migrations[m].version > have)
            have = migrations[m].version;
    }
    wg_store_rows_free(rows);
    rows = NULL;
    st->version = have;
    return wg_store_commit(st);
fail:
    wg_store_rows_free(rows);
    wg_store_rollback(st);
    return rc;
}

/* ---- open / close ------------------------------------------------------- */

int wg_store_open_backend(wg_store **out, const wg_store_backend *be,
                          const char *target, const char *data_dir)
{
    if (!out || !be || !target)
        return wg_error_set(WG_EINVAL, "wg_store_open_backend: NULL argument");
    if (be->version != WG_STORE_BACKEND_VERSION)
        return wg_error_set(WG_EINVAL, "store back end %s: table version %u, this library knows %d "
                            "(start it from WG_STORE_BACKEND_INIT)", be->name ? be->name : "(unnamed)",
                            be->version, WG_STORE_BACKEND_VERSION);
    if (!be->open || !be->close || !be->exec || !be->begin || !be->commit || !be->rollback)
        return wg_error_set(WG_EINVAL, "store back end %s: a function is missing",
                            be->name ? be->name : "(unnamed)");
    if (sodium_init() < 0)
        return wg_error_set(WG_EINTERNAL, "libsodium failed to initialise");
    wg_store *st = calloc(1, sizeof *st);
    if (!st)
        return wg_error_set(WG_ENOMEM, "out of memory");
    st->be = be;
    if (data_dir && !(st->data_dir = strdup(data_dir))) {
        free(st);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&st->mu, &attr);
    pthread_mutexattr_destroy(&attr);
    if (!(st->target = strdup(target))) {
        wg_store_free(st);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    int rc = be->open(&st->db, target);
    if (rc < 0) {
        st->db = NULL;
        wg_store_free(st);
        return rc;
    }
    if ((rc = migrate(st)) < 0) {
        wg_store_free(st);
        return rc;
    }
    *out = st;
    return 0;
}

int wg_store_open(wg_store **out, const char *data_dir)
{
    if (!out || !data_dir || !*data_dir)
        return wg_error_set(WG_EINVAL, "wg_store_open: no data dir");
    const char *url = getenv("WAGGLE_DATABASE_URL");
    if (url && *url)
        return wg_store_open_backend(out, wg_store_postgres_backend(), url, data_dir);
    size_t n = strlen(data_dir) + sizeof "/waggle.db";
    char *path = malloc(n);
    if (!path)
        return wg_error_set(WG_ENOMEM, "out of memory");
    snprintf(path, n, "%s/waggle.db", data_dir);
    int rc = wg_store_open_backend(out, wg_store_sqlite_backend(), path, data_dir);
    free(path);
    return rc;
}

void wg_store_free(wg_store *st)
{
    if (!st)
        return;
    if (st->db)
        st->be->close(st->db);
    pthread_mutex_destroy(&st->mu);
    if (st->target)
        sodium_memzero(st->target, strlen(st->target));   /* a conninfo may hold a password */
    free(st->target);
    free(st->data_dir);
    free(st);
}

const char *wg_store_data_dir(const wg_store *st) { return st ? st->data_dir : NULL; }
int wg_store_schema_version(const wg_store *st) { return st ? st->version : 0; }

int wg_store_ping(wg_store *st)
{
    if (!st)
        return wg_error_set(WG_EINVAL, "wg_store_ping: NULL store");
    if (st->be != wg_store_postgres_backend())
        return 0;
    lock(st);
    int rc = st->in_tx ? 0 : wg_store__pg_ping(st->db);
    unlock(st);
    return rc;
}

int wg_store_is_shared(const wg_store *st)
{
    return st && strcmp(st->be->name, "sqlite") != 0;
}

const char *wg_store__target(const wg_store *st) { return st ? st->target : NULL; }
const char *wg_store_backend_name(const wg_store *st) { return st ? st->be->name : NULL; }

/* ---- settings ------------------------------------------------------------- */

int wg_store_setting_get(char **out, wg_store *st, const char *key)
{
    wg_store_rows *rows = NULL;
    wg_store_value k = WG_SV_TEXT(key);
    int rc = wg_store_exec(st, "SELECT value FROM settings WHERE key = ?", &k, 1, &rows, NULL);
    if (rc < 0)
        return rc;
    const char *v = wg_store_rows_text(rows, 0, 0);
    if (!v) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOTFOUND, "no setting %s", key);
    }
    char *c = strdup(v);
    wg_store_rows_free(rows);
    if (!c)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = c;
    return 0;
}

/* Why one statement: a read-then-write lets two senders both see limit-1
 * and both write limit, one over (connect reference 13 item 15). The WHERE
 * of the DO UPDATE makes "below the limit?" and "+1" one step; the write
 * transaction only keeps the read-back of the new value consistent. */
static const char COUNTER_TAKE_SQL[] =
    "INSERT INTO settings (key, value) VALUES (?, '1')"
    " ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(settings.value AS BIGINT) + 1 AS TEXT)"
    " WHERE CAST(settings.value AS BIGINT) < ?";

int wg_store_counter_take(wg_store *st, const char *key, int64_t limit, int64_t *count)
{
    if (!st || !key || limit < 1)
        return wg_error_set(WG_EINVAL, "counter key and a limit >= 1 are required");
    wg_store_value p[2] = { WG_SV_TEXT(key), WG_SV_INT(limit) };
    int64_t changed = 0;
    wg_store_rows *rows = NULL;
    int rc = wg_store_begin(st, WG_STORE_TX_WRITE);
    if (rc < 0)
        return rc;
    if ((rc = wg_store_exec(st, COUNTER_TAKE_SQL, p, 2, NULL, &changed)) < 0 ||
        (rc = wg_store_exec(st, "SELECT value FROM settings WHERE key = ?", p, 1, &rows, NULL)) < 0) {
        wg_store_rollback(st);
        return rc;
    }
    const char *v = wg_store_rows_text(rows, 0, 0);
    int64_t now = v ? strtoll(v, NULL, 10) : 0;
    wg_store_rows_free(rows);
    if ((rc = wg_store_commit(st)) < 0)
        return rc;
    if (count)
        *count = now;
    if (changed < 1)
        return wg_error_set(WG_EDENIED, "counter %s reached its limit %lld", key, (long long)limit);
    return 0;
}

/* One statement decides: the row is inserted when absent, or taken over
 * when its lease ran out or the owner renews it; otherwise nothing changes
 * and the lock is busy. */
static const char LOCK_TAKE_SQL[] =
    "INSERT INTO store_locks (name, owner, until_ms) VALUES (?, ?, ?)"
    " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until_ms = excluded.until_ms"
    " WHERE store_locks.until_ms <= ? OR store_locks.owner = ?";

int wg_store_lock_take(wg_store *st, const char *name, const char *owner, int64_t ttl_ms,
                       int64_t now_ms)
{
    if (!st || !name || !*name || !owner || !*owner || ttl_ms < 1)
        return wg_error_set(WG_EINVAL, "lock name, owner and a ttl >= 1 ms are required");
    if (!now_ms)
        now_ms = wg_time_now_ms();
    wg_store_value p[5] = { WG_SV_TEXT(name), WG_SV_TEXT(owner), WG_SV_INT(now_ms + ttl_ms),
                            WG_SV_INT(now_ms), WG_SV_TEXT(owner) };
    int64_t changed = 0;
    int rc = wg_store_exec(st, LOCK_TAKE_SQL, p, 5, NULL, &changed);
    if (rc < 0)
        return rc;
    if (changed < 1)
        return wg_error_set(WG_EBUSY, "lock %s is held", name);
    return 0;
}

int wg_store_lock_release(wg_store *st, const char *name, const char *owner)
{
    if (!st || !name || !owner)
        return wg_error_set(WG_EINVAL, "lock name and owner are required");
    wg_store_value p[2] = { WG_SV_TEXT(name), WG_SV_TEXT(owner) };
    return wg_store_exec(st, "DELETE FROM store_locks WHERE name = ? AND owner = ?", p, 2,
                         NULL, NULL);
}

int wg_store_setting_set(wg_store *st, const char *key, const char *value)
{
    wg_store_value p[2] = { WG_SV_TEXT(key), WG_SV_TEXT(value) };
    if (!key || !value)
        return wg_error_set(WG_EINVAL, "setting key and value are required");
    return wg_store_exec(st,
        "INSERT INTO settings (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        p, 2, NULL, NULL);
}

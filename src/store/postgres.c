/* postgres.c - the PostgreSQL back end of the store (waggle/store.h), for
 * several waggled replicas sharing one vault, audit log and pool state.
 *
 * The portable SQL of the modules above is translated here: `?` becomes
 * $1, $2, ... (outside quoted literals), blobs travel in binary format as
 * BYTEA, results come back in text format and are typed by column OID.
 * A write transaction takes a transaction-scoped advisory lock, the
 * equivalent of SQLite's BEGIN IMMEDIATE: read-modify-write sequences (the
 * audit chain's head, pool cooldowns) never interleave across replicas;
 * a read transaction is a REPEATABLE READ snapshot.
 * NOTICEs are swallowed: the library never prints.
 *
 * A lost connection (PostgreSQL restarted, a network cut) is WG_EUNAVAILABLE,
 * never a crash: the statement that found it fails (it may or may not have
 * reached the server, so it is never re-sent), and the next statement
 * outside a transaction reconnects first (PQreset). While the server is
 * down every call fails fast with WG_EUNAVAILABLE (the service answers 503)
 * and the first one after it is back succeeds; nothing restarts. */
#include "store/store_int.h"
#include "waggle/sys/store.h"
#include "waggle/error.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WRITE_LOCK_KEY 0x77616767   /* "wagg" */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static int unreachable(PGconn *c, const char *what)
{
    char clean[240];
    snprintf(clean, sizeof clean, "%s", PQerrorMessage(c));
    for (char *p = clean; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return wg_error_set(WG_EUNAVAILABLE, "store (postgres) unreachable during %s: %s", what,
                        clean);
}

/* Reconnects a lost connection before a statement. Only called outside a
 * transaction (a transaction is lost with its connection). */
static int ensure(PGconn *c, const char *what)
{
    if (PQstatus(c) == CONNECTION_OK)
        return 0;
    PQreset(c);
    if (PQstatus(c) != CONNECTION_OK)
        return unreachable(c, what);
    PQsetNoticeProcessor(c, quiet, NULL);
    return 0;
}

static int fail(PGconn *c, const PGresult *r, const char *what)
{
    if (PQstatus(c) != CONNECTION_OK)
        return unreachable(c, what);
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    /* serialization failure, deadlock, lock not available: retryable */
    int busy = state && (!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "55P03"));
    const char *msg = r ? PQresultErrorMessage(r) : PQerrorMessage(c);
    char clean[300];
    snprintf(clean, sizeof clean, "%s", msg && *msg ? msg : "unknown error");
    size_t n = strlen(clean);
    while (n && (clean[n - 1] == '\n' || clean[n - 1] == ' '))
        clean[--n] = '\0';
    return wg_error_set(busy ? WG_EBUSY : WG_ESTORE, "store (postgres): %s: %s", what, clean);
}

/* The connection and whether a transaction is open on it: a connection
 * lost inside a transaction is never silently replaced (what follows would
 * run outside the transaction); the transaction fails and ends first. */
typedef struct pgdb {
    PGconn *c;
    int in_tx;
} pgdb;

static int pg_open(void **out, const char *conninfo)
{
    pgdb *d = calloc(1, sizeof *d);
    if (!d || !(d->c = PQconnectdb(conninfo))) {
        free(d);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (PQstatus(d->c) != CONNECTION_OK) {
        int rc = unreachable(d->c, "connect");
        PQfinish(d->c);
        free(d);
        return rc;
    }
    PQsetNoticeProcessor(d->c, quiet, NULL);
    *out = d;
    return 0;
}

static void pg_close(void *vd)
{
    pgdb *d = vd;
    PQfinish(d->c);
    free(d);
}

/* "?" -> "$n" outside single- and double-quoted text. New string. */
static char *translate(const char *sql, size_t nparams)
{
    size_t cap = strlen(sql) + nparams * 6 + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t o = 0, k = 0;
    char quote = 0;
    for (const char *s = sql; *s; s++) {
        if (quote) {
            if (*s == quote)
                quote = 0;
        } else if (*s == '\'' || *s == '"') {
            quote = *s;
        } else if (*s == '?') {
            o += (size_t)snprintf(out + o, cap - o, "$%zu", ++k);
            continue;
        }
        out[o++] = *s;
    }
    out[o] = '\0';
    return out;
}

static int collect(wg_store_rows **out, PGresult *r)
{
    int nf = PQnfields(r), nt = PQntuples(r);
    wg_store_rows *rows = wg_store_rows_new((size_t)nf);
    if (!rows)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (int t = 0; t < nt; t++) {
        int rc = wg_store_rows_add_row(rows);
        for (int f = 0; rc == 0 && f < nf; f++) {
            if (PQgetisnull(r, t, f))
                continue;
            const char *txt = PQgetvalue(r, t, f);
            Oid ty = PQftype(r, f);
            wg_store_value v = WG_SV_TEXT(txt);
            if (ty == OID_INT8 || ty == OID_INT4 || ty == OID_INT2) {
                v = WG_SV_INT(strtoll(txt, NULL, 10));
                rc = wg_store_rows_set(rows, (size_t)f, &v);
            } else if (ty == OID_BOOL) {
                v = WG_SV_INT(txt[0] == 't');
                rc = wg_store_rows_set(rows, (size_t)f, &v);
            } else if (ty == OID_BYTEA) {
                size_t len = 0;
                unsigned char *b = PQunescapeBytea((const unsigned char *)txt, &len);
                if (!b) {
                    rc = wg_error_set(WG_ENOMEM, "out of memory");
                    break;
                }
                v = WG_SV_BLOB(b, len);
                rc = wg_store_rows_set(rows, (size_t)f, &v);
                PQfreemem(b);
            } else {
                rc = wg_store_rows_set(rows, (size_t)f, &v);
            }
        }
        if (rc < 0) {
            wg_store_rows_free(rows);
            return rc;
        }
    }
    *out = rows;
    return 0;
}

static int pg_exec(void *vd, const char *sql, const wg_store_value *p, size_t n,
                   wg_store_rows **rows, int64_t *changes)
{
    pgdb *d = vd;
    PGconn *c = d->c;
    char *q = translate(sql, n);
    const char **vals = calloc(n + 1, sizeof *vals);
    int *lens = calloc(n + 1, sizeof *lens), *fmts = calloc(n + 1, sizeof *fmts);
    char (*nums)[24] = calloc(n + 1, sizeof *nums);
    int rc = 0;
    if (!q || !vals || !lens || !fmts || !nums) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        switch (p[i].type) {
        case WG_STORE_NULL:
            break;
        case WG_STORE_INT:
            snprintf(nums[i], sizeof nums[i], "%lld", (long long)p[i].i);
            vals[i] = nums[i];
            break;
        case WG_STORE_TEXT:
            vals[i] = p[i].p;   /* NUL-terminated text; text format ignores lens */
            break;
        case WG_STORE_BLOB:
            vals[i] = p[i].p ? p[i].p : "";
            lens[i] = (int)p[i].len;
            fmts[i] = 1;
            break;
        }
    }
    if (!d->in_tx && (rc = ensure(c, "exec")) < 0)
        goto done;
    PGresult *r = PQexecParams(c, q, (int)n, NULL, vals, lens, fmts, 0);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        rc = fail(c, r, "exec");
    } else {
        if (rows)
            rc = collect(rows, r);
        if (rc == 0 && changes) {
            const char *ct = PQcmdTuples(r);
            *changes = ct && *ct ? atoll(ct) : 0;
        }
    }
    PQclear(r);
done:
    free(q);
    free(vals);
    free(lens);
    free(fmts);
    free(nums);
    return rc;
}

static int simple(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0 : fail(c, r, sql);
    PQclear(r);
    return rc;
}

static int pg_begin(void *vd, wg_store_tx kind)
{
    pgdb *d = vd;
    PGconn *c = d->c;
    /* A read transaction is one snapshot (REPEATABLE READ), as SQLite's
     * deferred BEGIN is under WAL: wg_audit_verify reads the anchor and
     * every row of the chain as of one moment while appends go on. */
    int rc = ensure(c, "begin");
    if (rc < 0)
        return rc;
    rc = simple(c, kind == WG_STORE_TX_WRITE ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ");
    if (rc == 0 && kind == WG_STORE_TX_WRITE) {
        char q[64];
        snprintf(q, sizeof q, "SELECT pg_advisory_xact_lock(%d)", WRITE_LOCK_KEY);
        if ((rc = simple(c, q)) < 0)
            simple(c, "ROLLBACK");
    }
    d->in_tx = rc == 0;
    return rc;
}

static int pg_commit(void *vd)
{
    pgdb *d = vd;
    d->in_tx = 0;
    return simple(d->c, "COMMIT");
}

static int pg_rollback(void *vd)
{
    pgdb *d = vd;
    d->in_tx = 0;
    if (PQstatus(d->c) != CONNECTION_OK)
        return 0;   /* the server already dropped the transaction with the connection */
    return simple(d->c, "ROLLBACK");
}

int wg_store__pg_ping(void *vd)
{
    pgdb *d = vd;
    return d->in_tx ? 0 : ensure(d->c, "reconnect");
}

static const wg_store_backend postgres_backend = {
    .version = WG_STORE_BACKEND_VERSION,
    .name = "postgres",
    .blob_type = "BYTEA",
    .open = pg_open,
    .close = pg_close,
    .exec = pg_exec,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
};

const wg_store_backend *wg_store_postgres_backend(void)
{
    return &postgres_backend;
}

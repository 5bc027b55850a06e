/* postgres.c - the PostgreSQL connector over libpq (reference 1.3 row 21,
 * 1.4; reference 13 item 13; issue 11).
 *
 * The credential is a libpq conninfo or postgresql:// URI, opened under the
 * operator's policy by pgconn.c: hosts checked and pinned, file keywords
 * the operator's only, TLS required unless plain upstreams are allowed,
 * and a privileged role (superuser, server-file or program roles, …)
 * refused unless the operator allows it - on connect and on every call.
 *
 * `query` is the low-risk read: the statement must pass the read-only
 * checker (sqlcheck.h: one SELECT/WITH/VALUES/TABLE, no writes or locking
 * clauses, only allow-listed side-effect-free functions), then runs inside
 * BEGIN READ ONLY with a statement timeout, standard_conforming_strings on
 * (so the server reads quotes as the checker did) and pg_catalog first on
 * the search path (so an allow-listed name is the built-in function),
 * through the extended protocol (one statement), and is always rolled
 * back. Results are capped at MAX_ROWS rows and MAX_RESULT_BYTES bytes of
 * cell text: rows arrive one at a time (single-row mode) and at the cap the
 * query is cancelled, so a huge result never piles up in memory (one row
 * is held whole: PostgreSQL caps a value at 1 GB). `execute` is the
 * high-risk write (the gate asks): one statement, with parameters,
 * committed. Values never enter SQL text: schema and table names for the
 * listing actions are parameters too.
 */
#include "waggle/connector.h"
#include "waggle/error.h"
#include "connect/pgconn.h"
#include "connect/specs/specs.h"
#include "connect/sqlcheck.h"

#include <libpq-fe.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

enum {
    MAX_ROWS = 1000,          /* rows returned to the caller */
    MAX_RESULT_BYTES = 1024 * 1024,   /* cell text (and column names) returned */
    MAX_PARAMS = 64,
    TIMEOUT_MIN_MS = 100,     /* connector:postgres:statement_timeout_ms bounds */
    TIMEOUT_MAX_MS = 600000,
};

static const wg_connector_action actions[] = {
    { "query", "Run a read-only SQL query (one statement, $1… parameters)",
      JSON({"properties":{"sql":{"type":"string"},
            "params":{"type":"array","description":"values for $1, $2, …"}},
            "required":["sql"]}), WG_RISK_LOW },
    { "execute", "Run one SQL statement that changes data (INSERT, UPDATE, DELETE, DDL)",
      JSON({"properties":{"sql":{"type":"string"},"params":{"type":"array"}},
            "required":["sql"]}), WG_RISK_HIGH },
    { "list_tables", "List tables of a schema",
      JSON({"properties":{"schema":{"type":"string","description":"default public"}}}), WG_RISK_LOW },
    { "describe_table", "Describe a table's columns and primary key",
      JSON({"properties":{"table":{"type":"string"},"schema":{"type":"string"}},
            "required":["table"]}), WG_RISK_LOW },
};

static json_t *pg_fail(PGresult *res, PGconn *c)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!msg)
        msg = PQerrorMessage(c);
    json_t *r = wg_connector_fail("PostgreSQL: %s", msg);
    if (r && state)
        json_object_set_new(r, "sqlstate", json_string(state));
    return r;
}

/* Runs a constant command (our own text, never input). */
static int exec_fixed(PGconn *c, const char *sql, json_t **fail)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        *fail = pg_fail(r, c);
    PQclear(r);
    return ok ? 0 : -1;
}

/* params -> text values; NULL stays NULL. Returns count or -1. */
static int bind_params(const json_t *params, char **vals, json_t **fail)
{
    size_t n = json_array_size(params);
    if (params && !json_is_array(params)) {
        *fail = wg_connector_fail("params must be an array");
        return -1;
    }
    if (n > MAX_PARAMS) {
        *fail = wg_connector_fail("at most %d params", MAX_PARAMS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(params, i);
        if (json_is_null(v))
            vals[i] = NULL;
        else if (json_is_string(v))
            vals[i] = strdup(json_string_value(v));
        else
            vals[i] = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    }
    return (int)n;
}

static json_t *cell(PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return json_null();
    const char *v = PQgetvalue(r, row, col);
    switch (PQftype(r, col)) {
    case 20: case 21: case 23:             /* int8, int2, int4 */
        return json_integer(strtoll(v, NULL, 10));
    case 700: case 701:                    /* float4, float8 */
        return json_real(strtod(v, NULL));
    case 16:                               /* bool */
        return json_boolean(v[0] == 't');
    case 114: case 3802: {                 /* json, jsonb */
        json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);
        return j ? j : json_string(v);
    }
    default:
        return json_string(v);
    }
}

/* statement_timeout: connector:postgres:statement_timeout_ms when set (a
 * number, 100..600000), else 10 s for reads and 30 s for writes. Built from
 * a parsed integer, never from the stored text. */
static int set_timeout(PGconn *c, const wg_connector_call *call, int read_only, json_t **fail)
{
    long ms = read_only ? 10000 : 30000;
    const char *conf = call->creds->extra;
    if (conf && *conf) {
        char *end;
        long v = strtol(conf, &end, 10);
        if (!*end && v >= TIMEOUT_MIN_MS && v <= TIMEOUT_MAX_MS)
            ms = v;
    }
    char sql[64];
    snprintf(sql, sizeof sql, "SET LOCAL statement_timeout = %ld", ms);
    return exec_fixed(c, sql, fail);
}

/* Runs a constant command (our own text) that may answer a row. */
static int exec_setup(PGconn *c, const char *sql, json_t **fail)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        *fail = pg_fail(r, c);
    PQclear(r);
    return ok ? 0 : -1;
}

typedef enum {
    RUN_QUERY,   /* the agent's read: checked, read only, capped, cancelled at the cap */
    RUN_READ,    /* our own constant read (listing, health) */
    RUN_WRITE    /* execute: committed, rows not returned */
} run_mode;

/* What the rows of one statement became. */
typedef struct {
    json_t *rows, *fields;
    size_t bytes;
    const char *stopped;          /* "rows" | "bytes" when capped */
    int too_big;                  /* the first row alone is over the byte cap */
} collect;

static size_t row_bytes(const PGresult *r)
{
    size_t n = 0;
    for (int f = 0; f < PQnfields(r); f++)
        n += (size_t)PQgetlength(r, 0, f) + strlen(PQfname(r, f));
    return n;
}

static void take_fields(collect *k, const PGresult *r)
{
    if (k->fields)
        return;
    k->fields = json_array();
    for (int f = 0; f < PQnfields(r); f++)
        json_array_append_new(k->fields, json_pack("{s:s,s:I}", "name", PQfname(r, f),
                                                   "dataTypeID", (json_int_t)PQftype(r, f)));
}

/* One row of single-row mode: kept, or the cap is reached (1). */
static int take_row(collect *k, PGresult *r)
{
    take_fields(k, r);
    size_t b = row_bytes(r);
    if (json_array_size(k->rows) == MAX_ROWS) {
        k->stopped = "rows";
        return 1;
    }
    if (k->bytes + b > MAX_RESULT_BYTES) {
        k->stopped = "bytes";
        k->too_big = json_array_size(k->rows) == 0;
        return 1;
    }
    json_t *row = json_object();
    for (int f = 0; f < PQnfields(r); f++)
        json_object_set_new(row, PQfname(r, f), cell(r, 0, f));
    json_array_append_new(k->rows, row);
    k->bytes += b;
    return 0;
}

static void cancel(PGconn *c)
{
    PGcancel *pc = PQgetCancel(c);
    char err[256];
    if (pc) {
        PQcancel(pc, err, sizeof err);
        PQfreeCancel(pc);
    }
}

/* Sends the statement in single-row mode and gathers the results until the
 * end. *out is the failure when one happened; otherwise NULL and k / *last
 * (the final result, owned by the caller) describe it. */
static void gather(PGconn *c, run_mode mode, collect *k, PGresult **last, json_t **out)
{
    PGresult *r;
    int cancelled = 0;
    while ((r = PQgetResult(c))) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE) {
            if (!k->stopped && mode != RUN_WRITE && take_row(k, r) && !cancelled) {
                cancel(c);            /* the rest is not wanted: stop the server */
                cancelled = 1;
            }
            PQclear(r);
        } else if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
            take_fields(k, r);
            PQclear(*last);
            *last = r;
        } else {
            /* 57014 query_canceled: the cancel above, not a failure */
            const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
            if (!*out && !(cancelled && state && strcmp(state, "57014") == 0))
                *out = pg_fail(r, c);
            PQclear(r);
        }
    }
}

static json_t *result_json(collect *k, PGresult *last, run_mode mode)
{
    if (mode == RUN_WRITE) {
        const char *tuples = last ? PQcmdTuples(last) : "";
        return wg_connector_ok(json_pack("{s:I,s:s}", "rowCount",
                                         (json_int_t)(tuples[0] ? atoll(tuples) : 0),
                                         "command", last ? PQcmdStatus(last) : ""));
    }
    if (k->too_big)
        return wg_connector_fail("PostgreSQL: the first row is larger than the %d-byte result "
                                 "limit; select fewer or shorter columns (e.g. left(col, 1000))",
                                 MAX_RESULT_BYTES);
    json_t *data = json_pack("{s:O,s:I,s:O}", "rows", k->rows, "rowCount",
                             (json_int_t)json_array_size(k->rows), "fields",
                             k->fields ? k->fields : json_array());
    if (data && k->stopped) {
        json_object_set_new(data, "truncated", json_true());
        json_object_set_new(data, "truncatedBy", json_string(k->stopped));
        json_object_set_new(data, "limits", json_pack("{s:i,s:i}", "rows", MAX_ROWS, "bytes",
                                                      MAX_RESULT_BYTES));
    }
    return data ? wg_connector_ok(data) : NULL;
}

/* One statement with parameters inside a transaction: read modes BEGIN
 * READ ONLY and always ROLLBACK; RUN_WRITE BEGIN … COMMIT. */
static json_t *run(const wg_connector_call *call, const char *sql, const json_t *params,
                   run_mode mode)
{
    if (mode == RUN_QUERY && wg_sqlcheck__readonly(sql, strlen(sql)) < 0)
        return wg_connector_fail("PostgreSQL query refused: %s", wg_error_last());
    json_t *fail = NULL;
    int code;
    PGconn *c = wg_pgconn__open(call, &fail, &code);
    if (!c)
        return fail ? fail : wg_connector_fail("PostgreSQL connection failed");
    char *vals[MAX_PARAMS] = { 0 };
    int n = bind_params(params, vals, &fail);
    int ro = mode != RUN_WRITE;
    json_t *out = NULL;
    if (n >= 0 && exec_fixed(c, ro ? "BEGIN READ ONLY" : "BEGIN", &fail) == 0 &&
        set_timeout(c, call, ro, &fail) == 0 &&
        (!ro || (exec_setup(c, "SET LOCAL standard_conforming_strings = on", &fail) == 0 &&
                 exec_setup(c, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, ' || "
                               "pg_catalog.current_setting('search_path'), true)", &fail) == 0))) {
        collect k = { json_array(), NULL, 0, NULL, 0 };
        PGresult *last = NULL;
        if (!PQsendQueryParams(c, sql, n, NULL, (const char *const *)vals, NULL, NULL, 0)) {
            out = pg_fail(NULL, c);
        } else {
            PQsetSingleRowMode(c);
            gather(c, mode, &k, &last, &out);
            if (!out)
                out = result_json(&k, last, mode);
        }
        PQclear(last);
        json_decref(k.rows);
        json_decref(k.fields);
        if (json_is_true(json_object_get(out, "success")) && !ro) {
            if (exec_fixed(c, "COMMIT", &fail) < 0) {
                json_decref(out);
                out = fail;
                fail = NULL;
            }
        } else {
            PGresult *rb = PQexec(c, "ROLLBACK");
            PQclear(rb);
        }
    }
    for (int i = 0; i < n; i++)
        free(vals[i]);
    PQfinish(c);
    if (!out)
        out = fail;
    else
        json_decref(fail);
    return out ? out : wg_connector_fail("PostgreSQL: unknown failure");
}

static const char list_sql[] =
    "SELECT table_name, table_type FROM information_schema.tables "
    "WHERE table_schema = $1 ORDER BY table_name";

static const char columns_sql[] =
    "SELECT column_name, data_type, is_nullable, column_default "
    "FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 "
    "ORDER BY ordinal_position";

static const char pk_sql[] =
    "SELECT k.column_name FROM information_schema.table_constraints t "
    "JOIN information_schema.key_column_usage k ON k.constraint_name = t.constraint_name "
    "AND k.table_schema = t.table_schema AND k.table_name = t.table_name "
    "WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = $1 AND t.table_name = $2 "
    "ORDER BY k.ordinal_position";

static const char *schema_of(const json_t *params)
{
    const char *s = json_string_value(json_object_get(params, "schema"));
    return s ? s : "public";
}

static json_t *list_tables(const wg_connector_call *call, const json_t *params)
{
    json_t *p = json_pack("[s]", schema_of(params));
    json_t *r = run(call, list_sql, p, RUN_READ);
    json_decref(p);
    json_t *data = json_object_get(r, "data");
    if (data) {
        json_t *tables = json_incref(json_object_get(data, "rows"));
        json_int_t n = (json_int_t)json_array_size(tables);
        json_object_set_new(r, "data", json_pack("{s:o,s:s,s:I}", "tables", tables, "schema",
                                                 schema_of(params), "count", n));
    }
    return r;
}

static json_t *describe_table(const wg_connector_call *call, const json_t *params)
{
    json_t *p = json_pack("[s,O]", schema_of(params), json_object_get(params, "table"));
    json_t *cols = run(call, columns_sql, p, RUN_READ);
    if (!json_is_true(json_object_get(cols, "success"))) {
        json_decref(p);
        return cols;
    }
    json_t *pk = run(call, pk_sql, p, RUN_READ);
    json_decref(p);
    if (!json_is_true(json_object_get(pk, "success"))) {
        json_decref(cols);
        return pk;
    }
    json_t *rows = json_object_get(json_object_get(cols, "data"), "rows");
    if (json_array_size(rows) == 0) {
        json_decref(cols);
        json_decref(pk);
        return wg_connector_fail("Table not found: %s.%s", schema_of(params),
                                 json_string_value(json_object_get(params, "table")));
    }
    json_t *keys = json_array();
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(json_object_get(pk, "data"), "rows"), i, row)
        json_array_append(keys, json_object_get(row, "column_name"));
    json_t *out = wg_connector_ok(json_pack("{s:O,s:s,s:O,s:o}", "table",
                                            json_object_get(params, "table"), "schema",
                                            schema_of(params), "columns", rows, "primaryKey", keys));
    json_decref(cols);
    json_decref(pk);
    return out;
}

static json_t *query(const wg_connector_call *call, const json_t *params)
{
    return run(call, json_string_value(json_object_get(params, "sql")),
               json_object_get(params, "params"), RUN_QUERY);
}

static json_t *execute(const wg_connector_call *call, const json_t *params)
{
    return run(call, json_string_value(json_object_get(params, "sql")),
               json_object_get(params, "params"), RUN_WRITE);
}

static const struct {
    const char *name;
    json_t *(*fn)(const wg_connector_call *, const json_t *);
} handlers[] = {
    { "query", query },
    { "execute", execute },
    { "list_tables", list_tables },
    { "describe_table", describe_table },
};

static int pg_execute(json_t **out, const wg_connector_call *call,
                      const wg_connector_action *action, const json_t *params)
{
    *out = NULL;
    for (size_t i = 0; i < COUNT(handlers); i++)
        if (strcmp(handlers[i].name, action->name) == 0)
            *out = handlers[i].fn(call, params);
    if (!*out)
        *out = wg_connector_fail("Unknown action: %s", action->name);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int pg_health(char **error, const wg_connector_call *call)
{
    json_t *r = run(call, "SELECT 1", NULL, RUN_READ);
    int ok = json_is_true(json_object_get(r, "success"));
    if (!ok) {
        const char *e = json_string_value(json_object_get(r, "error"));
        *error = strdup(e ? e : "PostgreSQL health check failed");
    }
    json_decref(r);
    return ok ? 0 : WG_EUPSTREAM;
}

/* On connect: the policy and, when the server answers, the role. A server
 * that cannot be reached now is not a reason to refuse (every call checks
 * again); a refused host, keyword or role is. */
static int pg_validate(const wg_connector_call *call)
{
    json_t *fail = NULL;
    int code = 0;
    PGconn *c = wg_pgconn__open(call, &fail, &code);
    PQfinish(c);
    if (c || code == WG_EUPSTREAM) {
        json_decref(fail);
        return 0;
    }
    const char *e = json_string_value(json_object_get(fail, "error"));
    int rc = wg_error_set(code ? code : WG_EINVAL, "%s", e ? e : "PostgreSQL connection refused");
    json_decref(fail);
    return rc;
}

static const wg_connector_ops ops = { .execute = pg_execute, .health = pg_health,
                                      .validate = pg_validate };

static const char *const settings_names[] = { "statement_timeout_ms", NULL };
static const wg_connector_number_setting number_settings[] = {
    { "statement_timeout_ms", TIMEOUT_MIN_MS, TIMEOUT_MAX_MS }, { NULL, 0, 0 },
};

const wg_connector_spec wg_spec_postgres = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "postgres",
    .name = "PostgreSQL",
    .description = "Query a PostgreSQL database (reads run read-only; writes need approval)",
    .service = "local",
    .auth_type = WG_AUTH_API_KEY,
    .category = "data",
    .logo_slug = "postgresql",
    .setup_guide = "Paste a connection string (postgresql://user:password@host:5432/db) for a "
                   "role with only the privileges the agent needs: superusers and roles that "
                   "read server files or run programs are refused unless the operator allows "
                   "them.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &ops,
    .extra_key = "statement_timeout_ms",
    .settings = settings_names,
    .number_settings = number_settings,
};

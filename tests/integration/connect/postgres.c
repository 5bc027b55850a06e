/* postgres.c - the PostgreSQL connector against a real server
 * ($WAGGLE_TEST_PG, started by scripts/test.sh). `query` is read-only for
 * real (reference 13 item 13): stacked statements, data-modifying CTEs and
 * writes are refused, values travel as parameters, a slow query hits the
 * statement timeout. Issue 11: a privileged role is refused unless the
 * operator allows it, dangerous functions are refused even for a role that
 * could run them, results are capped in rows and bytes, the search path
 * cannot shadow an allowed function, and hosts are pinned. The tests run as
 * a plain role of their own (wgt_<pid>_r, owner of schema wgt_<pid>);
 * $WAGGLE_TEST_PG is the superuser that sets it up. Skipped with a message
 * when WAGGLE_TEST_PG is unset. */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "connect_fixture.h"

static wgt_connect f;
static char admin[1024];      /* $WAGGLE_TEST_PG: a superuser */
static char conninfo[1024];   /* our plain role, search_path = our own schema */
static char schema[64];       /* wgt_<pid>: tests of parallel runs do not meet */
static char role[64];         /* wgt_<pid>_r */

static void quiet(void *ud, const char *msg)
{
    (void)ud;
    (void)msg;
}

/* Runs q as the superuser. */
static void sql(const char *q)
{
    PGconn *c = PQconnectdb(admin);
    PQsetNoticeProcessor(c, quiet, NULL);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, q);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
              "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

static void sqlf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sqlf(const char *fmt, ...)
{
    char q[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q, sizeof q, fmt, ap);
    va_end(ap);
    sql(q);
}

static long long count_users(void)
{
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQexec(c, "SELECT count(*) FROM wg_users");
    long long n = PQresultStatus(r) == PGRES_TUPLES_OK ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return n;
}

static void setup(void)
{
    const char *env = getenv("WAGGLE_TEST_PG");
    if (!env || !*env)
        cr_skip_test("WAGGLE_TEST_PG is not set (scripts/test.sh starts PostgreSQL and sets it)");
    snprintf(schema, sizeof schema, "wgt_%ld", (long)getpid());
    snprintf(role, sizeof role, "wgt_%ld_r", (long)getpid());
    snprintf(admin, sizeof admin, "%s", env);
    sqlf("DROP SCHEMA IF EXISTS %s CASCADE; DROP ROLE IF EXISTS %s; CREATE ROLE %s LOGIN; "
         "CREATE SCHEMA %s AUTHORIZATION %s", schema, role, role, schema, role);
    snprintf(conninfo, sizeof conninfo, "%s user=%s options='-csearch_path=%s'", env, role, schema);
    sqlf("SET ROLE %s; SET search_path = %s; CREATE TABLE wg_users (id serial PRIMARY KEY, "
         "name text NOT NULL, admin boolean DEFAULT false, meta jsonb);"
         "INSERT INTO wg_users (name, meta) VALUES ('ada', '{\"lang\":\"en\"}'), ('bob', NULL)",
         role, schema);
    wgt_connect_open(&f, "postgres", conninfo, 0);
}

static void teardown(void)
{
    if (!f.reg)
        return;
    wgt_connect_close(&f);
    sqlf("DROP SCHEMA IF EXISTS %s CASCADE; DROP ROLE IF EXISTS %s", schema, role);
}

TestSuite(connect_postgres, .init = setup, .fini = teardown);

Test(connect_postgres, query_returns_typed_rows)
{
    wgt_connect_call(&f, "connector_postgres_query",
                     "{\"sql\":\"SELECT id, name, admin, meta FROM wg_users WHERE name = $1\","
                     "\"params\":[\"ada\"]}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    json_t *d = json_object_get(f.last, "data");
    cr_assert_eq(json_integer_value(json_object_get(d, "rowCount")), 1);
    json_t *row = json_array_get(json_object_get(d, "rows"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(row, "name")), "ada");
    cr_assert(json_is_false(json_object_get(row, "admin")));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(row, "meta"), "lang")), "en");
    cr_assert_eq(json_array_size(json_object_get(d, "fields")), 4);
}

Test(connect_postgres, stacked_statement_is_refused)
{
    wgt_connect_call(&f, "connector_postgres_query", "{\"sql\":\"SELECT 1; DROP TABLE wg_users\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "one statement only"), "%s", wgt_connect_error(&f));
    /* execute is refused by the server's extended protocol */
    wgt_connect_call(&f, "connector_postgres_execute", "{\"sql\":\"SELECT 1; DROP TABLE wg_users\"}");
    cr_assert(strstr(wgt_connect_error(&f), "multiple commands"), "%s", wgt_connect_error(&f));
    cr_assert_eq(count_users(), 2, "the table is still there");
}

Test(connect_postgres, data_modifying_cte_is_refused)
{
    wgt_connect_call(&f, "connector_postgres_query",
                     "{\"sql\":\"WITH x AS (DELETE FROM wg_users RETURNING *) SELECT * FROM x\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "delete is not allowed"), "%s", wgt_connect_error(&f));
    cr_assert_eq(count_users(), 2);
}

Test(connect_postgres, writes_and_escapes_from_read_only_are_refused)
{
    static const char *const attempts[] = {
        "{\"sql\":\"INSERT INTO wg_users (name) VALUES ('eve')\"}",
        "{\"sql\":\"UPDATE wg_users SET admin = true\"}",
        "{\"sql\":\"SELECT set_config('transaction_read_only', 'off', true)\"}",
        "{\"sql\":\"SELECT nextval('wg_users_id_seq')\"}",
        "{\"sql\":\"COMMIT\"}",
        "{\"sql\":\"SELECT 1\\n;\\nDELETE FROM wg_users\"}",
    };
    for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
        wgt_connect_call(&f, "connector_postgres_query", attempts[i]);
        cr_assert(!wgt_connect_ok(&f) || strstr(attempts[i], "COMMIT"), "%s ran", attempts[i]);
    }
    cr_assert_eq(count_users(), 2);
    wgt_connect_call(&f, "connector_postgres_query", "{\"sql\":\"SELECT bool_or(admin) AS a FROM wg_users\"}");
    cr_assert(json_is_false(json_object_get(json_array_get(json_object_get(
        json_object_get(f.last, "data"), "rows"), 0), "a")));
}

Test(connect_postgres, parameters_are_values_not_sql)
{
    wgt_connect_call(&f, "connector_postgres_query",
                     "{\"sql\":\"SELECT count(*) AS n FROM wg_users WHERE name = $1\","
                     "\"params\":[\"x' OR '1'='1\"]}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(
        json_object_get(f.last, "data"), "rows"), 0), "n")), 0);
}

Test(connect_postgres, slow_query_hits_the_statement_timeout)
{
    f.vault->set(f.vault->ctx, "connector:postgres:statement_timeout_ms", "300", NULL);
    wgt_connect_call(&f, "connector_postgres_query", "{\"sql\":\"SELECT pg_sleep(5)\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "statement timeout"), "%s", wgt_connect_error(&f));
}

Test(connect_postgres, execute_is_high_risk_and_commits_one_statement)
{
    wg_risk_level r;
    cr_assert_eq(wg_registry_action_risk(&r, f.reg, "connector_postgres_execute"), 0);
    cr_assert_eq(r, WG_RISK_HIGH);
    wgt_connect_call(&f, "connector_postgres_execute",
                     "{\"sql\":\"INSERT INTO wg_users (name) VALUES ($1)\",\"params\":[\"carol\"]}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(f.last, "data"), "rowCount")), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(f.last, "data"), "command")),
                     "INSERT 0 1");
    cr_assert_eq(count_users(), 3);
    wgt_connect_call(&f, "connector_postgres_execute", "{\"sql\":\"DELETE FROM wg_users; DROP TABLE wg_users\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert_eq(count_users(), 3);
}

Test(connect_postgres, list_and_describe_tables)
{
    char args[256];
    snprintf(args, sizeof args, "{\"schema\":\"%s\"}", schema);
    wgt_connect_call(&f, "connector_postgres_list_tables", args);
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    json_t *d = json_object_get(f.last, "data");
    cr_assert_str_eq(json_string_value(json_object_get(d, "schema")), schema);
    cr_assert_eq(json_integer_value(json_object_get(d, "count")), 1);
    snprintf(args, sizeof args, "{\"schema\":\"%s\",\"table\":\"wg_users\"}", schema);
    wgt_connect_call(&f, "connector_postgres_describe_table", args);
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    d = json_object_get(f.last, "data");
    cr_assert_eq(json_array_size(json_object_get(d, "columns")), 4);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "primaryKey"), 0)), "id");
    wgt_connect_call(&f, "connector_postgres_describe_table", "{\"table\":\"wg_users'; DROP TABLE wg_users; --\"}");
    cr_assert(strstr(wgt_connect_error(&f), "Table not found"));
    cr_assert_eq(count_users(), 2);
}

Test(connect_postgres, bad_conninfo_error_hides_the_password)
{
    wg_connect_request req = { .token = "host=127.0.0.1 port=1 user=x password=hunter2secret dbname=x" };
    cr_assert_eq(wg_registry_connect(f.reg, "postgres", &req), 0);
    wgt_connect_call(&f, "connector_postgres_query", "{\"sql\":\"SELECT 1\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert_null(strstr(wgt_connect_error(&f), "hunter2secret"));
}

/* ---- issue 11: privileged roles, dangerous functions, caps, pinning ------ */

/* A registry with only postgres, as the operator would build it. */
static wg_registry *registry(wg_connect_vault **v, int allow_privileged,
                             const wg_upstream_resolver *r)
{
    wg_registry *reg = NULL;
    cr_assert_eq(wg_connect_memvault_new(v), 0);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = *v, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1, .allow_privileged_db_roles = allow_privileged,
                              .resolver = r };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    return reg;
}

static json_t *query_on(wg_registry *reg, const char *tool, const char *sql_text)
{
    json_t *args = json_pack("{s:s}", "sql", sql_text), *res = NULL;
    wg_registry_execute(&res, reg, tool, args);
    json_decref(args);
    cr_assert_not_null(res);
    return res;
}

static const char *err_of(const json_t *r)
{
    const char *e = json_string_value(json_object_get(r, "error"));
    return e ? e : "";
}

Test(connect_postgres, a_superuser_role_is_refused_unless_the_operator_allows_it)
{
    wg_connect_vault *v;
    wg_registry *reg = registry(&v, 0, NULL);
    wg_connect_request req = { .token = admin };
    cr_assert_eq(wg_registry_connect(reg, "postgres", &req), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "superuser"), "%s", wg_error_last());
    cr_assert(strstr(wg_error_last(), "--allow-privileged-db-roles"), "%s", wg_error_last());
    cr_assert_str_eq(wg_registry_status(reg, "postgres"), "disconnected");
    /* a credential stored past connect is inspected on every call */
    json_t *meta = json_pack("{s:s}", "credentialType", "api_key");
    cr_assert_eq(v->set(v->ctx, "connector:postgres", admin, meta), 0);
    json_decref(meta);
    json_t *r = query_on(reg, "connector_postgres_query", "SELECT 1 AS one");
    cr_assert(!json_is_true(json_object_get(r, "success")));
    cr_assert(strstr(err_of(r), "is privileged"), "%s", err_of(r));
    json_decref(r);
    r = query_on(reg, "connector_postgres_execute", "SELECT 1");
    cr_assert(strstr(err_of(r), "is privileged"), "%s", err_of(r));
    json_decref(r);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    /* the operator may allow it */
    reg = registry(&v, 1, NULL);
    cr_assert_eq(wg_registry_connect(reg, "postgres", &req), 0, "%s", wg_error_last());
    r = query_on(reg, "connector_postgres_query", "SELECT 1 AS one");
    cr_assert(json_is_true(json_object_get(r, "success")), "%s", err_of(r));
    json_decref(r);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
}

Test(connect_postgres, roles_that_reach_files_programs_or_other_sessions_are_refused)
{
    static const struct { const char *suffix, *grant, *reason; } roles[] = {
        { "files", "GRANT pg_read_server_files TO %s", "pg_read_server_files" },
        { "write", "GRANT pg_write_server_files TO %s", "pg_write_server_files" },
        { "prog", "GRANT pg_execute_server_program TO %s", "pg_execute_server_program" },
        { "sig", "GRANT pg_signal_backend TO %s", "pg_signal_backend" },
        { "crole", "ALTER ROLE %s CREATEROLE", "createrole" },
        { "repl", "ALTER ROLE %s REPLICATION", "replication" },
        { "bypass", "ALTER ROLE %s BYPASSRLS", "bypassrls" },
        { "inherit", "GRANT %s_g TO %%s", "pg_read_server_files" },   /* through a group */
    };
    char group[96];
    snprintf(group, sizeof group, "%s_g", role);
    sqlf("DROP ROLE IF EXISTS %s; CREATE ROLE %s NOLOGIN; GRANT pg_read_server_files TO %s",
         group, group, group);
    wg_connect_vault *v;
    wg_registry *reg = registry(&v, 0, NULL);
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++) {
        char name[96], grant[256], ci[1200];
        snprintf(name, sizeof name, "%s_%s", role, roles[i].suffix);
        if (strstr(roles[i].grant, "_g TO")) {
            char tmpl[128];
            snprintf(tmpl, sizeof tmpl, roles[i].grant, role);
            snprintf(grant, sizeof grant, tmpl, name);
        } else {
            snprintf(grant, sizeof grant, roles[i].grant, name);
        }
        sqlf("DROP ROLE IF EXISTS %s; CREATE ROLE %s LOGIN; %s", name, name, grant);
        snprintf(ci, sizeof ci, "%s user=%s", admin, name);
        wg_connect_request req = { .token = ci };
        int rc = wg_registry_connect(reg, "postgres", &req);
        cr_expect_eq(rc, WG_EDENIED, "%s was accepted", name);
        cr_expect(strstr(wg_error_last(), roles[i].reason), "%s: %s", name, wg_error_last());
        sqlf("DROP ROLE %s", name);
    }
    sqlf("DROP ROLE %s", group);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
}

Test(connect_postgres, the_owner_of_dblink_is_refused)
{
    char db[64], owner[96], ci[1200];
    snprintf(db, sizeof db, "wgt_%ld_ext", (long)getpid());
    snprintf(owner, sizeof owner, "%s_ext", role);
    sqlf("DROP DATABASE IF EXISTS %s", db);
    sqlf("DROP ROLE IF EXISTS %s; CREATE ROLE %s LOGIN", owner, owner);
    sqlf("CREATE DATABASE %s", db);
    /* dblink is not a trusted extension: create it as the superuser, then
     * hand it to the role as if the role had made it */
    char in_db[1200];
    snprintf(in_db, sizeof in_db, "%s dbname=%s", admin, db);
    PGconn *c = PQconnectdb(in_db);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    char q[512];
    snprintf(q, sizeof q, "CREATE EXTENSION dblink; UPDATE pg_extension SET extowner = "
                          "(SELECT oid FROM pg_roles WHERE rolname = '%s') WHERE extname = 'dblink'",
             owner);
    PGresult *r = PQexec(c, q);
    cr_assert_eq(PQresultStatus(r), PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    wg_connect_vault *v;
    wg_registry *reg = registry(&v, 0, NULL);
    snprintf(ci, sizeof ci, "%s dbname=%s user=%s", admin, db, owner);
    wg_connect_request req = { .token = ci };
    cr_expect_eq(wg_registry_connect(reg, "postgres", &req), WG_EDENIED);
    cr_expect(strstr(wg_error_last(), "owner of extension dblink"), "%s", wg_error_last());
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    sqlf("DROP DATABASE %s", db);
    sqlf("DROP ROLE %s", owner);
}

Test(connect_postgres, dangerous_functions_are_refused_even_for_a_role_that_could_run_them)
{
    /* the operator allowed a superuser: query (low risk) still may not use them */
    wg_connect_vault *v;
    wg_registry *reg = registry(&v, 1, NULL);
    wg_connect_request req = { .token = admin };
    cr_assert_eq(wg_registry_connect(reg, "postgres", &req), 0, "%s", wg_error_last());
    static const char *const bad[] = {
        "SELECT pg_read_file('/etc/hostname')", "SELECT pg_read_binary_file('/etc/hostname')",
        "SELECT * FROM pg_ls_dir('/')", "SELECT lo_import('/etc/hostname')",
        "SELECT lo_export(1, '/tmp/wgt-lo')", "SELECT lo_get(1)",
        "SELECT pg_terminate_backend(pg_backend_pid())", "SELECT pg_cancel_backend(1)",
        "SELECT pg_reload_conf()", "SELECT set_config('transaction_read_only', 'off', true)",
        "SELECT dblink_exec('dbname=x', 'DROP TABLE wg_users')", "SELECT pg_notify('c', 'x')",
        "SELECT nextval('wg_users_id_seq')", "SELECT query_to_xml('DELETE FROM wg_users', true, true, '')",
        "SELECT ('/etc/hostname'::text).pg_read_file", "SELECT PG_READ_FILE('/etc/hostname')",
        "SELECT \"pg_read_file\"('/etc/hostname')", "SELECT pg_catalog.pg_read_file('/etc/hostname')",
        "COPY (SELECT 1) TO '/tmp/wgt-copy'", "COPY wg_users TO PROGRAM 'id'",
        "DO $$ BEGIN PERFORM pg_sleep(0); END $$", "CALL p()", "SET role postgres",
        "SELECT 1; SELECT pg_read_file('/etc/hostname')", "SELECT * FROM wg_users FOR UPDATE",
        "SELECT * INTO wgt_copy FROM wg_users", "SELECT pg_advisory_lock(1)",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *r = query_on(reg, "connector_postgres_query", bad[i]);
        cr_expect(!json_is_true(json_object_get(r, "success")), "ran: %s", bad[i]);
        cr_expect(strstr(err_of(r), "query refused"), "%s: %s", bad[i], err_of(r));
        json_decref(r);
    }
    /* the same function through execute (high risk: a human approved it) */
    json_t *r = query_on(reg, "connector_postgres_execute", "SELECT pg_read_file('/etc/hostname')");
    cr_assert(json_is_true(json_object_get(r, "success")), "%s", err_of(r));
    json_decref(r);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
}

static json_t *data_of(const char *sql_text)
{
    json_t *args = json_pack("{s:s}", "sql", sql_text);
    json_decref(f.last);
    f.last = NULL;
    wg_registry_execute(&f.last, f.reg, "connector_postgres_query", args);
    json_decref(args);
    return json_object_get(f.last, "data");
}

Test(connect_postgres, a_100_mb_value_is_capped)
{
    data_of("SELECT repeat('x', 100 * 1024 * 1024) AS big");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "larger than the 1048576-byte result limit"), "%s",
              wgt_connect_error(&f));
    char *dump = json_dumps(f.last, 0);
    cr_assert_lt(strlen(dump), 4096);
    free(dump);
}

Test(connect_postgres, results_are_capped_at_n_rows_and_n_bytes)
{
    /* rows: 999, 1000, 1001 */
    for (int n = 999; n <= 1001; n++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT g FROM generate_series(1, %d) g", n);
        json_t *d = data_of(q);
        cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
        cr_expect_eq(json_array_size(json_object_get(d, "rows")), (size_t)(n <= 1000 ? n : 1000));
        cr_expect_eq(json_is_true(json_object_get(d, "truncated")), n > 1000, "%d rows", n);
        if (n > 1000)
            cr_expect_str_eq(json_string_value(json_object_get(d, "truncatedBy")), "rows");
    }
    /* bytes of one row: the column name (1) plus the value, at cap-1, cap, cap+1 */
    for (long b = 1048576 - 1; b <= 1048576 + 1; b++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT repeat('x', %ld) AS v", b - 1);
        json_t *d = data_of(q);
        if (b <= 1048576) {
            cr_expect(wgt_connect_ok(&f), "%ld bytes: %s", b, wgt_connect_error(&f));
            cr_expect_eq(json_array_size(json_object_get(d, "rows")), 1);
        } else {
            cr_expect(!wgt_connect_ok(&f), "%ld bytes were returned", b);
        }
    }
    /* many rows over the byte cap: the rows that fit, and the flag */
    json_t *d = data_of("SELECT repeat('x', 4095) AS v FROM generate_series(1, 1000)");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    cr_expect_eq(json_array_size(json_object_get(d, "rows")), 256, "%zu rows",
                 json_array_size(json_object_get(d, "rows")));
    cr_expect_str_eq(json_string_value(json_object_get(d, "truncatedBy")), "bytes");
    /* a long result is cancelled at the cap, not read to the end */
    d = data_of("SELECT generate_series(1, 100000000) AS g");   /* streams (FROM would materialize) */
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    cr_expect(json_is_true(json_object_get(d, "truncated")));
}

Test(connect_postgres, the_search_path_cannot_shadow_an_allowed_function)
{
    /* a lower() of the role's own, and a search path that puts it first */
    sqlf("SET ROLE %s; CREATE FUNCTION %s.lower(text) RETURNS text LANGUAGE sql "
         "AS $$ SELECT 'shadowed' $$", role, schema);
    char ci[1200];
    snprintf(ci, sizeof ci, "%s user=%s options='-csearch_path=%s,pg_catalog'", admin, role, schema);
    wg_connect_request req = { .token = ci, .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(f.reg, "postgres", &req), 0, "%s", wg_error_last());
    json_t *d = data_of("SELECT lower('ABC') AS v");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d, "rows"), 0),
                                                       "v")), "abc");
}

Test(connect_postgres, quotes_are_read_as_the_checker_reads_them)
{
    /* a role whose sessions default to backslash escapes in '…' */
    sqlf("ALTER ROLE %s SET standard_conforming_strings = off", role);
    json_t *d = data_of("SELECT 'a\\' AS v");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d, "rows"), 0),
                                                       "v")), "a\\");
}

static int stub_resolve(void *ud, const char *host, char (*addrs)[WG_UPSTREAM_ADDR_LEN], size_t max,
                        size_t *n)
{
    (void)max;
    int *calls = ud;
    (*calls)++;
    snprintf(addrs[0], WG_UPSTREAM_ADDR_LEN, "%s", strcmp(host, "db.waggle.test") == 0
                                                       ? "127.0.0.1" : "192.0.2.1");
    *n = 1;
    return 0;
}

Test(connect_postgres, the_connection_is_pinned_to_the_checked_address)
{
    /* libpq cannot resolve db.waggle.test: it connects only through hostaddr */
    int calls = 0;
    wg_upstream_resolver r = { stub_resolve, &calls };
    wg_connect_vault *v;
    wg_registry *reg = registry(&v, 0, &r);
    const char *port = strstr(admin, "port=");
    cr_assert_not_null(port);
    char ci[1200];
    snprintf(ci, sizeof ci, "host=db.waggle.test port=%d dbname=waggle_test user=%s "
                            "options='-csearch_path=%s'", atoi(port + 5), role, schema);
    wg_connect_request req = { .token = ci };
    cr_assert_eq(wg_registry_connect(reg, "postgres", &req), 0, "%s", wg_error_last());
    json_t *res = query_on(reg, "connector_postgres_query", "SELECT count(*) AS n FROM wg_users");
    cr_assert(json_is_true(json_object_get(res, "success")), "%s", err_of(res));
    json_decref(res);
    cr_assert_geq(calls, 1);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
}

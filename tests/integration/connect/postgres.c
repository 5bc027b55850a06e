/* postgres.c - the PostgreSQL connector against a real server
 * ($WAGGLE_TEST_PG, started by scripts/test.sh). `query` is read-only for
 * real (reference 13 item 13): stacked statements, data-modifying CTEs and
 * writes are refused by the server, values travel as parameters, a slow
 * query hits the statement timeout. Skipped with a message when
 * WAGGLE_TEST_PG is unset. */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "connect_fixture.h"

static wgt_connect f;
static char conninfo[1024];   /* $WAGGLE_TEST_PG with search_path = our own schema */
static char schema[64];       /* wgt_<pid>: tests of parallel runs do not meet */

static void sql(const char *q)
{
    PGconn *c = PQconnectdb(conninfo);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, q);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
              "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
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
    snprintf(conninfo, sizeof conninfo, "%s", env);
    char q[256];
    snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
    sql(q);
    snprintf(conninfo, sizeof conninfo, "%s options='-csearch_path=%s'", env, schema);
    sql("CREATE TABLE wg_users (id serial PRIMARY KEY, "
        "name text NOT NULL, admin boolean DEFAULT false, meta jsonb);"
        "INSERT INTO wg_users (name, meta) VALUES ('ada', '{\"lang\":\"en\"}'), ('bob', NULL)");
    wgt_connect_open(&f, "postgres", conninfo, 0);
}

static void teardown(void)
{
    if (!f.reg)
        return;
    wgt_connect_close(&f);
    char q[128];
    snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
    sql(q);
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
    cr_assert(strstr(wgt_connect_error(&f), "multiple commands"), "%s", wgt_connect_error(&f));
    cr_assert_eq(count_users(), 2, "the table is still there");
}

Test(connect_postgres, data_modifying_cte_is_refused)
{
    wgt_connect_call(&f, "connector_postgres_query",
                     "{\"sql\":\"WITH x AS (DELETE FROM wg_users RETURNING *) SELECT * FROM x\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "read-only transaction"), "%s", wgt_connect_error(&f));
    cr_assert_str_eq(json_string_value(json_object_get(f.last, "sqlstate")), "25006");
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

/* sqlcheck.c - the read-only query checker (src/connect/sqlcheck.h,
 * docs/security.md 3.3): what a low-risk `query` may run. Every dangerous
 * function of issue 11 is refused in every spelling the PostgreSQL lexer
 * accepts (case, quotes, schema, comments, attribute notation), statements
 * other than one SELECT are refused, quoting cannot hide code or reveal it,
 * ordinary read queries pass, and the bounds hold at N-1, N, N+1. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/sqlcheck.h"
#include "waggle/error.h"

static int chk(const char *sql) { return wg_sqlcheck__readonly(sql, strlen(sql)); }

Test(sqlcheck, tables_are_sorted_and_unique)
{
    for (int t = 0; t < 5; t++) {
        size_t n = 0;
        const char *const *v = wg_sql__table(t, &n);
        cr_assert_not_null(v);
        for (size_t i = 1; i < n; i++)
            cr_expect_lt(strcmp(v[i - 1], v[i]), 0, "table %d: %s before %s", t, v[i - 1], v[i]);
    }
    size_t n;
    cr_expect_null(wg_sql__table(5, &n));
}

Test(sqlcheck, ordinary_read_queries_pass)
{
    static const char *const ok[] = {
        "SELECT 1",
        "select 1;",
        "SELECT id, name FROM wg_users WHERE name = $1 ORDER BY id LIMIT 10 OFFSET 5",
        "SELECT count(*), max(id), string_agg(name, ', ') FROM t GROUP BY admin HAVING count(*) > 1",
        "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT sum(n) FROM t",
        "WITH a(x) AS (SELECT 1), b(y) AS MATERIALIZED (SELECT 2) SELECT * FROM a, b",
        "VALUES (1, 'a'), (2, 'b')",
        "TABLE wg_users",
        "(SELECT 1) UNION (SELECT 2)",
        "SELECT CASE WHEN x > 0 THEN 'p' ELSE 'n' END FROM t",
        "SELECT EXTRACT(YEAR FROM now()), date_trunc('day', now()) - interval '1 day'",
        "SELECT CAST(x AS numeric(10,2)), x::varchar(5), x::character varying(8), '1'::int",
        "SELECT TIMESTAMP(3) '2024-01-01', x::timestamp(0) without time zone FROM t",
        "SELECT row_number() OVER (PARTITION BY a ORDER BY b), lag(b) OVER w FROM t WINDOW w AS (ORDER BY b)",
        "SELECT count(*) FILTER (WHERE admin) FROM t",
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t",
        "SELECT * FROM generate_series(1, 10) AS g(n)",
        "SELECT * FROM (VALUES (1), (2)) v(a)",
        "SELECT * FROM (SELECT 1) s(a)",
        "SELECT a FROM t WHERE a IN (1, 2) AND EXISTS (SELECT 1) AND b = ANY ($1) AND c NOT IN (SELECT 1)",
        "SELECT coalesce(a, 'x'), nullif(a, ''), greatest(1, 2), least(1, 2) FROM t",
        "SELECT substring(s FROM 1 FOR 2), position('a' IN s), trim(both ' ' FROM s), overlay(s PLACING 'x' FROM 1 FOR 1) FROM t",
        "SELECT 'DELETE FROM t; DROP TABLE t', $$pg_read_file('/etc/passwd')$$, $q$ ; COPY $q$",
        "SELECT 1 -- DROP TABLE t\n",
        "SELECT /* pg_terminate_backend(1) /* nested */ still comment */ 1",
        "SELECT E'it\\'s', 'it''s', B'1010', X'ff', N'text', \"Weird \"\"Name\"\"\" FROM t",
        "SELECT pg_catalog.lower('A'), \"lower\"('B')",
        "SELECT t.* , (t).* FROM t",
        "SELECT jsonb_build_object('a', 1) -> 'a', meta->>'lang', meta #> '{a,b}' FROM t",
        "SELECT a FROM t ORDER BY a NULLS LAST FETCH FIRST 5 ROWS ONLY",
        "SELECT a FROM t1 JOIN t2 USING (id) LEFT JOIN t3 ON (t3.id = t1.id)",
        "SELECT ARRAY(SELECT 1), ARRAY[1,2][1], ROW(1, 2)",
        "SELECT * FROM t TABLESAMPLE SYSTEM (10) REPEATABLE (1)",
        "SELECT a FROM t GROUP BY GROUPING SETS ((a), ()), ROLLUP (a), CUBE (a)",
        "SELECT pg_sleep(0.1)",
        "SELECT a$b FROM t",
        "SELECT x FROM t WHERE x LIKE 'a\\%' ESCAPE '\\'",
        "SELECT 1.5e10, .5, 1e-3, 42",
        "SELECT a <> b, a != b, a >= b, a || b, a @> b, a ~* b FROM t",
        "SELECT a FROM t WHERE a OPERATOR(pg_catalog.=) 1",
        "SELECT DISTINCT ON (a) a FROM t",
        "SELECT now() AT TIME ZONE 'UTC'",
        "SELECT a FROM t FOR_UPDATE",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        cr_expect_eq(chk(ok[i]), 0, "refused: %s\n  (%s)", ok[i], wg_error_last());
}

Test(sqlcheck, every_dangerous_function_of_issue_11_is_refused)
{
    static const char *const fns[] = {
        "pg_read_file('/etc/passwd')", "pg_read_binary_file('/etc/passwd')",
        "pg_ls_dir('/')", "pg_stat_file('/etc/passwd')", "lo_import('/etc/passwd')",
        "lo_export(1, '/tmp/x')", "lo_get(1)", "lo_from_bytea(0, 'x')", "lo_unlink(1)",
        "dblink('dbname=x', 'select 1')", "dblink_exec('dbname=x', 'drop table t')",
        "dblink_connect('x')", "pg_terminate_backend(1)", "pg_cancel_backend(1)",
        "pg_reload_conf()", "set_config('role', 'postgres', false)", "pg_notify('c', 'x')",
        "nextval('s')", "setval('s', 1)", "query_to_xml('delete from t', true, true, '')",
        "pg_advisory_lock(1)", "pg_try_advisory_lock(1)", "txid_current()",
        "pg_switch_wal()", "pg_rotate_logfile()", "pg_create_restore_point('x')",
        "pg_logical_emit_message(true, 'p', 'x')", "pg_file_write('x', 'y', false)",
        "current_setting('data_directory')", "pg_backend_pid()", "myschema_fn()",
    };
    static const char *const forms[] = {
        "SELECT %s", "select %s", "SELECT * FROM %s", "SELECT 1 WHERE %s IS NOT NULL",
        "WITH x AS (SELECT %s) SELECT * FROM x", "VALUES (%s)", "SELECT (SELECT %s)",
        "SELECT coalesce(%s, 'x')", "SELECT ARRAY[%s]", "SELECT 1 FROM t ORDER BY %s",
    };
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++)
        for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
            char sql[256];
            snprintf(sql, sizeof sql, forms[k], fns[f]);
            int rc = chk(sql);
            cr_expect_eq(rc, WG_EDENIED, "allowed: %s (rc %d)", sql, rc);
        }
    cr_expect(strstr((chk("SELECT pg_read_file('/etc/passwd')"), wg_error_last()),
                     "function pg_read_file is not on the read-only allow-list"),
              "%s", wg_error_last());
}

Test(sqlcheck, spellings_that_hide_a_call_are_refused)
{
    static const char *const bad[] = {
        "SELECT PG_READ_FILE('/etc/passwd')",
        "SELECT Pg_Read_File ('/etc/passwd')",
        "SELECT \"pg_read_file\"('/etc/passwd')",
        "SELECT pg_catalog.pg_read_file('/etc/passwd')",
        "SELECT \"pg_catalog\".\"pg_read_file\"('/etc/passwd')",
        "SELECT pg_read_file/**/('/etc/passwd')",
        "SELECT pg_read_file -- comment\n ('/etc/passwd')",
        "SELECT pg_read_file /* a /* nested */ one */ ('/etc/passwd')",
        "SELECT public.lower('x')",                      /* not pg_catalog's */
        "SELECT a.b.lower('x')",                          /* three-part name */
        "SELECT ('/etc/passwd'::text).pg_read_file",      /* attribute notation */
        "SELECT (x).pg_terminate_backend FROM (SELECT 1 AS x) s",
        "SELECT ('/etc/passwd'::text).\"pg_read_file\"",
        "SELECT (x).f(1) FROM t",
        "SELECT U&\"\\0070g_read_file\"('/etc/passwd')",
        "SELECT U&'\\0041'",
        "SELECT u&'x'",
        "SELECT 'it''s' || pg_read_file('/etc/passwd')",
        "SELECT E'\\'' || pg_read_file('/etc/passwd') || ''",
        "SELECT $$ x $$ || pg_read_file('/etc/passwd')",
        "SELECT $a$ $b$ $a$ || pg_read_file('/etc/passwd')",
        "SELECT 1 FROM t WHERE x = 'a' OR pg_terminate_backend(1)",
        "SELECT \"lower\" ('x'), \"Lower\"('x')",          /* quoted names are exact */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_lt(chk(bad[i]), 0, "allowed: %s", bad[i]);
}

Test(sqlcheck, statements_other_than_one_select_are_refused)
{
    static const char *const bad[] = {
        "SELECT 1; SELECT 2", "SELECT 1;;", "SELECT 1; DROP TABLE t", "SELECT 1\n;\nDELETE FROM t",
        "COPY t TO '/tmp/x'", "COPY (SELECT 1) TO PROGRAM 'id'", "DO $$ BEGIN END $$",
        "CALL p()", "SET role postgres", "SET LOCAL transaction_read_only = off", "RESET ALL",
        "SHOW data_directory", "BEGIN", "COMMIT", "ROLLBACK", "EXPLAIN ANALYZE DELETE FROM t",
        "INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "DELETE FROM t",
        "MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE", "TRUNCATE t", "DROP TABLE t",
        "CREATE TABLE x (a int)", "ALTER ROLE x SUPERUSER", "GRANT ALL ON t TO public",
        "LOCK TABLE t", "NOTIFY c", "LISTEN c", "PREPARE p AS SELECT 1", "EXECUTE p",
        "VACUUM", "ANALYZE t", "CHECKPOINT", "LOAD 'x'", "DECLARE c CURSOR FOR SELECT 1",
        "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x",
        "WITH x AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM x",
        "WITH x AS (UPDATE t SET a = 1 RETURNING *) SELECT 1",
        "SELECT * INTO newtable FROM t",
        "SELECT * FROM t FOR UPDATE", "SELECT * FROM t FOR SHARE", "SELECT * FROM t FOR NO KEY UPDATE",
        "SELECT * FROM t FOR KEY SHARE", "SELECT * FROM t for update skip locked",
        "", "   ", ";", "-- only a comment", "(", "SELECT (1", "SELECT 1)",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_lt(chk(bad[i]), 0, "allowed: %s", bad[i]);
}

Test(sqlcheck, what_the_lexer_does_not_understand_is_refused)
{
    static const char *const bad[] = {
        "SELECT 'unterminated", "SELECT E'unterminated\\'", "SELECT \"unterminated",
        "SELECT $$ unterminated", "SELECT $a$ x $b$", "SELECT /* unterminated",
        "SELECT /* nested /* still */ open", "SELECT \"\"", "SELECT \\x", "SELECT {1}",
        "SELECT $ 1", "SELECT $a", "SELECT 1 \\g",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_lt(chk(bad[i]), 0, "allowed: %s", bad[i]);
    /* a NUL byte in the text */
    cr_expect_eq(wg_sqlcheck__readonly("SELECT 1\0; DROP TABLE t", 23), WG_EINVAL);
    cr_expect_eq(wg_sqlcheck__readonly(NULL, 0), WG_EINVAL);
}

Test(sqlcheck, bounds_at_n_minus_1_n_n_plus_1)
{
    /* length: "SELECT 1" padded with spaces */
    for (size_t len = WG_SQL_MAX_LEN - 1; len <= WG_SQL_MAX_LEN + 1; len++) {
        char *s = malloc(len + 1);
        memset(s, ' ', len);
        memcpy(s, "SELECT 1", 8);
        s[len] = 0;
        int rc = wg_sqlcheck__readonly(s, len);
        cr_expect_eq(rc, len <= WG_SQL_MAX_LEN ? 0 : WG_EINVAL, "len %zu: rc %d", len, rc);
        free(s);
    }
    /* depth: SELECT ((((1)))) */
    for (int d = WG_SQL_MAX_DEPTH - 1; d <= WG_SQL_MAX_DEPTH + 1; d++) {
        char s[512] = "SELECT ";
        for (int i = 0; i < d; i++)
            strcat(s, "(");
        strcat(s, "1");
        for (int i = 0; i < d; i++)
            strcat(s, ")");
        int rc = chk(s);
        cr_expect_eq(rc, d <= WG_SQL_MAX_DEPTH ? 0 : WG_EINVAL, "depth %d: rc %d", d, rc);
    }
    /* tokens: SELECT 1,1,1,... ("SELECT" + n*"1,"... ) */
    for (int want = WG_SQL_MAX_TOKENS - 1; want <= WG_SQL_MAX_TOKENS + 1; want++) {
        /* "SELECT" "1" then pairs "," "1": tokens = 2 + 2k */
        int k = (want - 2) / 2;
        size_t len = 6 + 2 + (size_t)k * 2;
        char *s = malloc(len + 2), *p = s + 8;
        memcpy(s, "SELECT 1", 8);
        for (int i = 0; i < k; i++, p += 2)
            memcpy(p, ",1", 2);
        *p = 0;
        int tokens = 2 + 2 * k;
        if (tokens < want) {                       /* one more: a trailing ';' */
            *p++ = ';';
            *p = 0;
            tokens++;
        }
        int rc = chk(s);
        cr_expect_eq(rc, tokens <= WG_SQL_MAX_TOKENS ? 0 : WG_EINVAL, "%d tokens: rc %d (%s)",
                     tokens, rc, wg_error_last());
        free(s);
    }
}

Test(sqlcheck, every_allowed_function_is_callable)
{
    size_t n = 0;
    const char *const *fns = wg_sql__table(0, &n);
    for (size_t i = 0; i < n; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT %s(1)", fns[i]);
        cr_expect_eq(chk(sql), 0, "%s refused: %s", sql, wg_error_last());
        snprintf(sql, sizeof sql, "SELECT pg_catalog.%s(1)", fns[i]);
        cr_expect_eq(chk(sql), 0, "%s refused: %s", sql, wg_error_last());
    }
}

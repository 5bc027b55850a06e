/* sqlcheck.h - is this SQL one read-only query? (internal to src/connect;
 * docs/security.md 3.3)
 *
 * The PostgreSQL connector's `query` action is low risk and runs without
 * approval, so it must not reach anything with a side effect. A READ ONLY
 * transaction stops writes to tables, but not functions that open
 * connections (dblink_exec), touch files (pg_read_file, lo_import,
 * COPY … TO), signal backends (pg_terminate_backend) or change settings
 * (set_config, pg_reload_conf). libpg_query is not available, so this is a
 * careful tokenizer with a few grammar rules, and it fails closed on
 * anything it does not understand:
 *   - quoting: '…' (standard conforming: the caller sets
 *     standard_conforming_strings on), E'…' with backslash escapes, B'…',
 *     X'…', N'…', $tag$…$tag$, "quoted identifiers"; U&'…' and U&"…"
 *     (Unicode escapes that could spell any name) are refused;
 *   - comments: -- to the end of the line, and nested slash-star blocks;
 *     unterminated quotes or comments are refused;
 *   - exactly one statement (one trailing ';' at most), starting with
 *     SELECT, WITH, VALUES or TABLE (or '(' before one of them);
 *   - INSERT, UPDATE, DELETE, MERGE (data-modifying WITH), INTO (SELECT
 *     INTO) and locking clauses (FOR UPDATE / SHARE / NO KEY UPDATE /
 *     KEY SHARE) are refused;
 *   - every function call - a name before '(' that is not SQL grammar
 *     (IN, EXISTS, CAST, OVER, a type's modifier after ::, an alias's
 *     column list after AS, a WITH query's column list), and every
 *     attribute-notation call "(expr).name" - must name a side-effect-free
 *     function on the allow-list, unqualified or in pg_catalog;
 *   - bounds: WG_SQL_MAX_LEN bytes, WG_SQL_MAX_TOKENS tokens,
 *     WG_SQL_MAX_DEPTH nested parentheses.
 * What it cannot see: functions the database calls on its own while
 * answering (a view's definition, a user-defined operator or cast). That
 * is why the role is inspected too, and why the query still runs READ ONLY.
 * Pure: no I/O, thread-safe.
 */
#ifndef WG_CONNECT_SQLCHECK_H
#define WG_CONNECT_SQLCHECK_H

#include <stddef.h>

enum {
    WG_SQL_MAX_LEN = 64 * 1024,    /* bytes of SQL text */
    WG_SQL_MAX_TOKENS = 16384,
    WG_SQL_MAX_DEPTH = 64,         /* nested parentheses / brackets */
};

/* 0 when sql (len bytes; NUL bytes are refused) passes every rule above;
 * WG_EDENIED (a rule refused it) or WG_EINVAL (the text cannot be read:
 * unterminated quote or comment, too long, too deep) with wg_error_last()
 * naming the rule and the word. */
int wg_sqlcheck__readonly(const char *sql, size_t len);

/* 1 when name (lowercase, unqualified) is on the allow-list. */
int wg_sqlcheck__function_allowed(const char *name);

/* The checker's tables, for tests: 0 functions, 1 grammar words, 2 write
 * words, 3 lock words, 4 first words; NULL for another number. */
const char *const *wg_sql__table(int which, size_t *n);

#endif

/* db.c - database command-line clients (issue #10 §2, redteam2 round):
 * psql, mysql/mariadb, sqlite3, redis-cli, mongosh.
 *
 * A client is read-only when every statement it is given on the command
 * line only reads: SQL that starts SELECT/SHOW/DESCRIBE/EXPLAIN/VALUES/
 * PRAGMA name, names no writing keyword anywhere (comments included: MySQL
 * runs its bang comments) and calls only listed functions; psql's listing meta
 * commands (\dt, \l, ...) and sqlite3's dot commands (.tables, .schema);
 * a redis command from the reading list; a mongosh --eval chain whose every
 * call is a listed reader. Anything else (no statement: an interactive
 * session or a script on stdin, an option not listed, an expansion in the
 * text) asks, as an unknown program did before. Pure; linear in the words.
 */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* A word anywhere in the text that makes SQL change something or run code. */
static const char *const sql_bad[] = {
    "insert", "update", "delete", "drop", "alter", "create", "truncate", "grant", "revoke",
    "merge", "replace", "into", "copy", "call", "do", "lock", "set", "attach", "detach",
    "vacuum", "reindex", "analyze", "analyse", "load", "handler", "rename", "comment",
    "security", "cluster", "refresh", "listen", "notify", "prepare", "execute", "exec",
    "deallocate", "discard", "reset", "checkpoint", "import", "system", "shutdown", "kill",
    "flush", "purge", "install", "uninstall", "backup", "restore", "savepoint", "begin",
    "commit", "rollback", "outfile", "dumpfile", "upsert", "returning", NULL,
};
/* Words followed by '(' that are syntax, not a call. */
static const char *const sql_syntax[] = {
    "in", "exists", "any", "all", "some", "from", "join", "and", "or", "not", "on", "where",
    "as", "over", "filter", "values", "select", "with", "by", "when", "then", "else", "case",
    "using", "having", "union", "between", "like", "is", "cast", NULL,
};
/* Functions that compute and read; anything else (pg_read_file, lo_export,
 * load_extension, sleep, nextval, dblink, ...) asks. */
static const char *const sql_funcs[] = {
    "count", "sum", "avg", "min", "max", "version", "now", "current_date", "current_timestamp",
    "current_database", "current_user", "current_schema", "coalesce", "length", "lower",
    "upper", "substr", "substring", "round", "abs", "date", "datetime", "strftime", "typeof",
    "date_trunc", "to_char", "nullif", "greatest", "least", "pg_size_pretty",
    "pg_database_size", "pg_relation_size", "pg_total_relation_size", "table_info",
    "index_list", "index_info", "foreign_key_list", "trim", "concat", "json_extract",
    "group_concat", "string_agg", "array_agg", "row_number", "rank", "extract", "char_length",
    "database", "user", "ifnull", "sqlite_version", NULL,
};
static const char *const sql_first[] = {
    "select", "show", "describe", "desc", "explain", "values", "pragma", "with", "table", NULL,
};
static const char *const psql_meta[] = {
    "\\d", "\\d+", "\\dt", "\\dt+", "\\di", "\\di+", "\\dv", "\\dv+", "\\dn", "\\dn+", "\\du",
    "\\df", "\\df+", "\\dx", "\\ds", "\\dm", "\\db", "\\l", "\\l+", "\\list", "\\conninfo",
    "\\encoding", "\\x", NULL,
};
static const char *const sqlite_dot[] = {
    ".tables", ".schema", ".indexes", ".indices", ".databases", ".dbinfo", ".fullschema",
    ".show", NULL,
};
static const char *const redis_read[] = {
    "ping", "get", "mget", "exists", "ttl", "pttl", "type", "strlen", "hget", "hmget",
    "hgetall", "hkeys", "hvals", "hlen", "hexists", "lrange", "llen", "lindex", "smembers",
    "scard", "sismember", "zrange", "zrevrange", "zcard", "zscore", "zrank", "scan", "hscan",
    "sscan", "zscan", "dbsize", "info", "time", "lastsave", "echo", "keys", "xlen", "xrange",
    "xinfo", "pfcount", "getrange", "bitcount", "getbit", "object", NULL,
};
static const char *const mongo_calls[] = {
    "find", "findOne", "countDocuments", "count", "estimatedDocumentCount",
    "getCollectionNames", "getCollectionInfos", "getIndexes", "stats", "version", "getName",
    "limit", "sort", "skip", "toArray", "pretty", "distinct", "ObjectId", "ISODate",
    "hostInfo", "serverStatus", "isMaster", "hello", "listCollections", NULL,
};

static int word_in(const char *s, size_t n, const char *const *set, int fold)
{
    char buf[40];
    if (n == 0 || n >= sizeof buf)
        return 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = fold ? (char)tolower((unsigned char)s[i]) : s[i];
    buf[n] = '\0';
    return in_set(buf, set);
}

static int ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* One SQL text (possibly several statements): 1 when it only reads.
 * mysql: a trailing \G (vertical output) is allowed. */
static int sql_reads(const char *s, size_t n, int mysql)
{
    int at_start = 1, any = 0, pragma = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '=' && pragma)
            return 0;                   /* PRAGMA journal_mode=WAL sets, PRAGMA name reads */
        if (c == '\'' || c == '"' || c == '`') {        /* a literal or a quoted name */
            const char *e = memchr(s + i + 1, c, n - i - 1);
            if (!e)
                return 0;
            i = (size_t)(e - s) + 1;
            at_start = 0;
            continue;
        }
        if (c == '$')
            return 0;                   /* $$ quoting hides text */
        if (c == '\\') {
            if (mysql && i + 2 >= n && i + 1 < n && (s[i + 1] == 'G' || s[i + 1] == 'g'))
                break;
            return 0;
        }
        if (c == ';') {
            at_start = 1;
            pragma = 0;
            i++;
            continue;
        }
        if (!ident(c)) {
            i++;
            continue;
        }
        size_t b = i;
        while (i < n && ident(s[i]))
            i++;
        size_t len = i - b;
        if (word_in(s + b, len, sql_bad, 1))
            return 0;
        if (at_start) {
            if (!word_in(s + b, len, sql_first, 1))
                return 0;
            pragma = len == 6 && strncasecmp(s + b, "pragma", 6) == 0;
            at_start = 0;
            any = 1;
        }
        size_t k = i;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n'))
            k++;
        if (k < n && s[k] == '(' && !word_in(s + b, len, sql_syntax, 1) &&
            !word_in(s + b, len, sql_funcs, 1))
            return 0;
    }
    return any;
}

/* psql -c TEXT: one meta command from the list, or reading SQL. */
static int psql_reads(const char *t, size_t n)
{
    if (n && t[0] == '\\') {
        size_t k = strcspn(t, " \t");
        return word_in(t, k, psql_meta, 0) && !memchr(t + k, '\\', n - k) && !memchr(t + k, '|', n - k);
    }
    return sql_reads(t, n, 0);
}

static int sqlite_reads(const char *t, size_t n)
{
    if (n && t[0] == '.') {
        size_t k = strcspn(t, " \t");
        return word_in(t, k, sqlite_dot, 0) && !memchr(t, '\n', n);
    }
    return sql_reads(t, n, 0);
}

/* mongosh --eval: calls only of listed readers, no assignment, arrow, template
 * or server-side code ($where, $function, $accumulator, $out, $merge). */
static int mongo_reads(const char *s, size_t n)
{
    static const char *const bad[] = { "$where", "$function", "$accumulator", "$out", "$merge", "=>", NULL };
    for (const char *const *b = bad; *b; b++)
        if (memmem(s, n, *b, strlen(*b)))
            return 0;
    if (memchr(s, '=', n) || memchr(s, '`', n))
        return 0;
    int any = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '\'' || s[i] == '"') {
            const char *e = memchr(s + i + 1, s[i], n - i - 1);
            if (!e)
                return 0;
            i = (size_t)(e - s) + 1;
            continue;
        }
        if (!ident(s[i]) && s[i] != '$') {
            i++;
            continue;
        }
        size_t b = i;
        while (i < n && (ident(s[i]) || s[i] == '$'))
            i++;
        if (i < n && s[i] == '(') {
            if (!word_in(s + b, i - b, mongo_calls, 0))
                return 0;
            any = 1;
        }
    }
    return any;
}

enum { DB_PSQL, DB_MYSQL, DB_SQLITE, DB_REDIS, DB_MONGO };

typedef struct {
    const char *name;
    int kind;
    const char *const *flags;   /* options alone that change nothing */
    const char *const *valued;  /* options followed by a value (or =value / attached) */
    const char *const *stmt;    /* options whose value is a statement */
} db_spec;

static const char *const F_psql[] = {
    "-l", "--list", "-A", "-t", "-At", "-tA", "-X", "-q", "-x", "-H", "-w", "-E", "-e", "-a", "-b", "-n",
    "--csv", "--no-align", "--tuples-only", "--quiet", "--no-psqlrc", "--no-password",
    "--expanded", "--html", "--echo-queries", "--echo-all", "--echo-errors", "--echo-hidden", NULL,
};
static const char *const V_psql[] = {
    "-d", "-h", "-U", "-p", "-P", "-F", "-R", "--dbname", "--host", "--port", "--username",
    "--pset", "--field-separator", "--record-separator", NULL,
};
static const char *const S_psql[] = { "-c", "--command", NULL };
static const char *const F_mysql[] = {
    "-N", "-B", "-s", "-t", "-r", "-E", "-n", "-p", "--table", "--batch", "--silent",
    "--skip-column-names", "--raw", "--vertical", "--unbuffered", "--column-names",
    "--no-auto-rehash", "--compress", "-C", "--ssl", NULL,
};
static const char *const V_mysql[] = {
    "-u", "-h", "-P", "-D", "-S", "--user", "--host", "--port", "--database", "--socket",
    "--password", "--protocol", "--default-character-set", NULL,
};
static const char *const S_mysql[] = { "-e", "--execute", NULL };
static const char *const F_sqlite[] = {
    "-readonly", "-header", "-noheader", "-column", "-csv", "-json", "-line", "-list", "-box",
    "-table", "-markdown", "-html", "-quote", "-bail", "-batch", "-echo", "-safe",
    "--readonly", "--header", "--noheader", "--column", "--csv", "--json", "--line", "--list",
    "--box", "--table", "--markdown", "--html", "--quote", "--bail", "--batch", "--safe", NULL,
};
static const char *const V_sqlite[] = { "-separator", "-newline", "-nullvalue", "-cmd", NULL };
static const char *const S_sqlite[] = { "-cmd", NULL };
static const char *const F_redis[] = {
    "--raw", "--no-raw", "--tls", "--scan", "--bigkeys", "--memkeys", "--hotkeys", "--stat",
    "--no-auth-warning", "-c", "--csv", "--json", NULL,
};
static const char *const V_redis[] = {
    "-h", "-p", "-a", "-n", "-u", "-s", "--user", "--pass", "--pattern", "--count", "--cacert",
    "--sni", NULL,
};
static const char *const F_mongo[] = { "--quiet", "--norc", "--nodb", "--tls", NULL };
static const char *const V_mongo[] = {
    "--host", "--port", "-u", "--username", "--authenticationDatabase", "--eval", NULL,
};
static const char *const S_mongo[] = { "--eval", NULL };
static const char *const S_none[] = { NULL };

static const db_spec dbs[] = {
    { "mariadb", DB_MYSQL, F_mysql, V_mysql, S_mysql },
    { "mongo", DB_MONGO, F_mongo, V_mongo, S_mongo },
    { "mongosh", DB_MONGO, F_mongo, V_mongo, S_mongo },
    { "mysql", DB_MYSQL, F_mysql, V_mysql, S_mysql },
    { "psql", DB_PSQL, F_psql, V_psql, S_psql },
    { "redis-cli", DB_REDIS, F_redis, V_redis, S_none },
    { "sqlite3", DB_SQLITE, F_sqlite, V_sqlite, S_sqlite },
};

static int stmt_reads(int kind, const char *t, size_t n)
{
    switch (kind) {
    case DB_PSQL:
        return psql_reads(t, n);
    case DB_MYSQL:
        return sql_reads(t, n, 1);
    case DB_SQLITE:
        return sqlite_reads(t, n);
    case DB_MONGO:
        return mongo_reads(t, n);
    default:
        return 0;
    }
}

/* 1 when the command line only reads (see the file comment). */
static int db_reads(const sh_view *v, const db_spec *d)
{
    const sh_cmd *c = v->c;
    if (c->piped_in)
        return 0;                       /* statements on stdin */
    for (int r = 0; r < c->nr; r++)
        if (c->r[r].op == SH_R_IN || c->r[r].op == SH_R_HEREDOC || c->r[r].op == SH_R_HERESTR ||
            c->r[r].op == SH_R_RDWR)
            return 0;
    int stmts = 0, pos = 0, scan = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        size_t n = c->w[j].len;
        if (t[0] == '-' && t[1]) {
            const char *eq = strchr(t, '=');
            size_t on = eq ? (size_t)(eq - t) : n;
            char opt[40];
            if (on >= sizeof opt)
                return 0;
            memcpy(opt, t, on);
            opt[on] = '\0';
            if (in_set(opt, d->flags) && !eq) {
                scan |= strcmp(opt, "--scan") == 0 || strcmp(opt, "--bigkeys") == 0 ||
                        strcmp(opt, "--memkeys") == 0 || strcmp(opt, "--stat") == 0 ||
                        strcmp(opt, "-l") == 0 || strcmp(opt, "--list") == 0;   /* psql -l */
                continue;
            }
            const char *val = NULL;
            size_t vn = 0;
            int jv = j;
            if (in_set(opt, d->valued) || in_set(opt, d->stmt)) {
                if (eq) {
                    val = eq + 1;
                    vn = n - on - 1;
                } else if (j + 1 < v->end) {
                    jv = ++j;
                    val = W(j);
                    vn = c->w[j].len;
                } else {
                    return 0;
                }
            } else if (d->kind == DB_MYSQL && t[1] == 'p' && t[2]) {
                continue;               /* -pSECRET */
            } else if (d->kind == DB_MYSQL && t[1] == 'e' && t[2]) {
                val = t + 2;            /* -e'SELECT 1' */
                vn = n - 2;
                opt[2] = '\0';
            } else {
                return 0;               /* an option not listed: -f FILE, -o FILE, --eval ... */
            }
            if (in_set(opt, d->stmt)) {
                if ((FL(jv) & (SH_W_EXP | SH_W_OPAQUE | SH_W_CMDSUB | SH_W_PROCSUB)) ||
                    !stmt_reads(d->kind, val, vn))
                    return 0;
                stmts++;
            }
            continue;
        }
        pos++;
        if (d->kind == DB_REDIS && pos == 1) {
            if ((FL(j) & (SH_W_EXP | SH_W_OPAQUE)) || !word_in(t, n, redis_read, 1))
                return 0;
            stmts++;
            break;                      /* the rest are its keys and values */
        }
        if (d->kind == DB_SQLITE && pos >= 2) {
            if ((FL(j) & (SH_W_EXP | SH_W_OPAQUE | SH_W_CMDSUB | SH_W_PROCSUB)) ||
                !sqlite_reads(t, n))
                return 0;
            stmts++;
        }
    }
    return stmts > 0 || scan;
}

void sh_rule_db(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;                         /* psql --version */
    for (size_t k = 0; k < sizeof dbs / sizeof dbs[0]; k++) {
        if (strcmp(dbs[k].name, p->name) != 0)
            continue;
        if (db_reads(v, &dbs[k]))
            return;
        break;
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.database", p->name,
               " may change the database or run a script (not only reading statements)", NULL, v->via);
    sh_probe_args(cx, v, v->i + 1);
}

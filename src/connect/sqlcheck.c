/* sqlcheck.c - see sqlcheck.h. Two linear passes: a lexer that mirrors
 * PostgreSQL 15's scanner for everything that decides where code ends and
 * a literal begins (quotes, dollar quotes, comments, identifiers, numbers),
 * then one walk over the tokens with a look at the neighbours of each
 * '(' and '.'. The tables below are sorted (bsearch; a unit test checks). */
#include "connect/sqlcheck.h"
#include "waggle/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Side-effect-free functions a read-only query may call: arithmetic,
 * text, dates, JSON, arrays, aggregates, window functions, full-text
 * search, and catalog readers. Sorted. pg_sleep is here on purpose: it
 * has no effect beyond time, which statement_timeout bounds. */
static const char *const allowed_functions[] = {
    "abbrev", "abs", "acos", "acosd", "age", "array_agg", "array_append", "array_cat",
    "array_dims", "array_fill", "array_length", "array_lower", "array_ndims", "array_position",
    "array_positions", "array_prepend", "array_remove", "array_replace", "array_to_json",
    "array_to_string", "array_upper", "ascii", "asin", "asind", "atan", "atan2", "atan2d",
    "atand", "avg", "bit_and", "bit_count", "bit_length", "bit_or", "bit_xor", "bool_and",
    "bool_or", "broadcast", "btrim", "cardinality", "cbrt", "ceil", "ceiling", "char_length",
    "character_length", "chr", "clock_timestamp", "col_description", "concat", "concat_ws",
    "convert_from", "convert_to", "corr", "cos", "cosd", "cosh", "cot", "cotd", "count",
    "covar_pop", "covar_samp", "cume_dist", "current_database", "current_date",
    "current_schema", "current_schemas", "current_time", "current_timestamp", "date_bin",
    "date_part", "date_trunc", "decode", "degrees", "dense_rank", "div", "encode", "every",
    "exp", "factorial", "family", "first_value", "floor", "format", "format_type", "gcd",
    "gen_random_uuid", "generate_series", "generate_subscripts", "get_bit", "get_byte",
    "has_column_privilege", "has_database_privilege", "has_schema_privilege",
    "has_table_privilege", "host", "hostmask", "inet_client_addr", "initcap", "isempty",
    "isfinite", "json_agg", "json_array", "json_array_elements", "json_array_elements_text",
    "json_array_length", "json_build_array", "json_build_object", "json_each", "json_each_text",
    "json_extract_path", "json_extract_path_text", "json_object", "json_object_agg",
    "json_object_keys", "json_populate_record", "json_populate_recordset", "json_strip_nulls",
    "json_to_record", "json_to_recordset", "json_typeof", "jsonb_agg", "jsonb_array_elements",
    "jsonb_array_elements_text", "jsonb_array_length", "jsonb_build_array",
    "jsonb_build_object", "jsonb_each", "jsonb_each_text", "jsonb_extract_path",
    "jsonb_extract_path_text", "jsonb_insert", "jsonb_object", "jsonb_object_agg",
    "jsonb_object_keys", "jsonb_path_exists", "jsonb_path_match", "jsonb_path_query",
    "jsonb_path_query_array", "jsonb_path_query_first", "jsonb_populate_record",
    "jsonb_populate_recordset", "jsonb_pretty", "jsonb_set", "jsonb_set_lax",
    "jsonb_strip_nulls", "jsonb_to_record", "jsonb_to_recordset", "jsonb_typeof",
    "justify_days", "justify_hours", "justify_interval", "lag", "last_value", "lcm", "lead",
    "left", "length", "ln", "localtime", "localtimestamp", "log", "log10", "lower", "lower_inc",
    "lower_inf", "lpad", "ltrim", "make_date", "make_interval", "make_time", "make_timestamp",
    "make_timestamptz", "masklen", "max", "md5", "min", "min_scale", "mod", "mode", "netmask",
    "network", "now", "nth_value", "ntile", "num_nonnulls", "num_nulls", "numnode",
    "obj_description", "octet_length", "percent_rank", "percentile_cont", "percentile_disc",
    "pg_column_size", "pg_get_constraintdef", "pg_get_expr", "pg_get_functiondef",
    "pg_get_indexdef", "pg_get_viewdef", "pg_size_pretty", "pg_sleep", "pg_typeof",
    "phraseto_tsquery", "pi", "plainto_tsquery", "power", "querytree", "quote_ident",
    "quote_literal", "quote_nullable", "radians", "random", "range_merge", "rank",
    "regexp_count", "regexp_instr", "regexp_like", "regexp_match", "regexp_matches",
    "regexp_replace", "regexp_split_to_array", "regexp_split_to_table", "regexp_substr",
    "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope",
    "regr_sxx", "regr_sxy", "regr_syy", "repeat", "replace", "reverse", "right", "round",
    "row_number", "row_to_json", "rpad", "rtrim", "scale", "setweight", "sha224", "sha256",
    "sha384", "sha512", "sign", "sin", "sind", "sinh", "split_part", "sqrt", "starts_with",
    "statement_timestamp", "stddev", "stddev_pop", "stddev_samp", "string_agg",
    "string_to_array", "string_to_table", "strip", "strpos", "substr", "sum", "tan", "tand",
    "tanh", "timeofday", "to_ascii", "to_char", "to_date", "to_hex", "to_json", "to_jsonb",
    "to_number", "to_timestamp", "to_tsquery", "to_tsvector", "transaction_timestamp",
    "translate", "trim_array", "trim_scale", "trunc", "ts_headline", "ts_rank", "ts_rank_cd",
    "unistr", "unnest", "upper", "upper_inc", "upper_inf", "var_pop", "var_samp", "variance",
    "version", "websearch_to_tsquery", "width_bucket",
};

/* Words that may stand before '(' without being a function call: SQL
 * grammar and type names (their modifiers). Sorted. */
static const char *const grammar_words[] = {
    "all", "and", "any", "array", "as", "asc", "bernoulli", "between", "bigint", "bit",
    "boolean", "both", "by", "case", "cast", "char", "character", "coalesce", "collate",
    "collation", "cross", "cube", "current", "dec", "decimal", "desc", "distinct", "double",
    "else", "end", "escape", "except", "exists", "extract", "fetch", "filter", "first",
    "float", "following", "for", "from", "full", "greatest", "group", "grouping", "having",
    "ilike", "in", "inner", "int", "integer", "intersect", "interval", "is", "join", "last",
    "lateral", "leading", "least", "like", "limit", "materialized", "national", "natural",
    "nchar", "next", "normalize", "not", "nullif", "nulls", "numeric", "of", "offset", "on",
    "only", "operator", "or", "order", "ordinality", "outer", "over", "overlay", "partition",
    "placing", "position", "preceding", "precision", "range", "real", "recursive",
    "repeatable", "rollup", "row", "rows", "select", "sets", "similar", "smallint", "some",
    "substring", "symmetric", "system", "table", "tablesample", "then", "ties", "time",
    "timestamp", "to", "trailing", "treat", "trim", "unbounded", "union", "using", "values",
    "varchar", "varying", "when", "where", "window", "with", "within", "xmlattributes",
    "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlparse", "xmlpi", "xmlroot",
    "xmlserialize", "zone",
};

/* Words refused anywhere (unquoted): data-modifying WITH queries and
 * SELECT INTO. Locking clauses are FOR + one of lock_words. */
static const char *const write_words[] = { "delete", "insert", "into", "merge", "update" };
static const char *const lock_words[] = { "key", "no", "share", "update" };
static const char *const first_words[] = { "select", "table", "values", "with" };

static int cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int in_table(const char *w, const char *const *t, size_t n)
{
    return bsearch(&w, t, n, sizeof *t, cmp) != NULL;
}

#define IN(w, t) in_table((w), (t), sizeof(t) / sizeof *(t))

int wg_sqlcheck__function_allowed(const char *name) { return IN(name, allowed_functions); }

const char *const *wg_sql__table(int which, size_t *n)
{
    static const struct { const char *const *t; size_t n; } tables[] = {
        { allowed_functions, sizeof allowed_functions / sizeof *allowed_functions },
        { grammar_words, sizeof grammar_words / sizeof *grammar_words },
        { write_words, sizeof write_words / sizeof *write_words },
        { lock_words, sizeof lock_words / sizeof *lock_words },
        { first_words, sizeof first_words / sizeof *first_words },
    };
    if (which < 0 || which >= (int)(sizeof tables / sizeof *tables))
        return NULL;
    *n = tables[which].n;
    return tables[which].t;
}

/* ---- the lexer ----------------------------------------------------------- */

typedef enum {
    T_IDENT, T_QIDENT, T_STRING, T_NUMBER, T_PARAM, T_OP, T_LPAREN, T_RPAREN,
    T_LBRACK, T_RBRACK, T_COMMA, T_SEMI, T_DOT, T_CAST, T_COLON
} ttype;

typedef struct {
    unsigned char type;
    uint32_t off, len;
} tok;

typedef struct {
    const char *s;
    size_t n;
    tok *t;
    size_t nt;
} lexed;

static int ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static int ident_char(unsigned char c)
{
    return ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static int digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int op_char(unsigned char c) { return c && strchr("+-*/<>=~!@#%^&|`?", c) != NULL; }

/* End of a quoted run starting after the opening quote at i: q is the
 * quote, backslash escapes when esc. Returns the index after the closing
 * quote, or 0 when unterminated. A doubled quote is part of the run. */
static size_t quoted_end(const char *s, size_t n, size_t i, char q, int esc)
{
    while (i < n) {
        if (esc && s[i] == '\\') {
            i += 2;
            continue;
        }
        if (s[i] == q) {
            if (i + 1 < n && s[i + 1] == q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i++;
    }
    return 0;
}

static int push(lexed *L, ttype type, size_t off, size_t len)
{
    if (L->nt == WG_SQL_MAX_TOKENS)
        return wg_error_set(WG_EINVAL, "query has more than %d tokens", WG_SQL_MAX_TOKENS);
    L->t[L->nt++] = (tok){ (unsigned char)type, (uint32_t)off, (uint32_t)len };
    return 0;
}

static int lex(lexed *L)
{
    const char *s = L->s;
    size_t n = L->n, i = 0;
    int rc = 0;
    while (i < n && rc == 0) {
        unsigned char c = (unsigned char)s[i];
        size_t start = i;
        if (strchr(" \t\n\r\f\v", c)) {
            i++;
        } else if (c == '-' && i + 1 < n && s[i + 1] == '-') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            int depth = 0;                         /* comments nest in PostgreSQL */
            do {
                if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
                    depth++;
                    i += 2;
                } else if (i + 1 < n && s[i] == '*' && s[i + 1] == '/') {
                    depth--;
                    i += 2;
                } else {
                    i++;
                }
            } while (depth > 0 && i < n);
            if (depth > 0)
                return wg_error_set(WG_EINVAL, "unterminated /* comment");
        } else if ((c == 'u' || c == 'U') && i + 2 < n && s[i + 1] == '&' &&
                   (s[i + 2] == '\'' || s[i + 2] == '"')) {
            return wg_error_set(WG_EDENIED, "U&'...' Unicode escapes are not allowed in "
                                            "read-only queries");
        } else if (strchr("eEbBxXnN", c) && i + 1 < n && s[i + 1] == '\'') {
            i = quoted_end(s, n, i + 2, '\'', c == 'e' || c == 'E');
            if (!i)
                return wg_error_set(WG_EINVAL, "unterminated string literal");
            rc = push(L, T_STRING, start, i - start);
        } else if (ident_start(c)) {
            while (i < n && ident_char((unsigned char)s[i]))
                i++;
            rc = push(L, T_IDENT, start, i - start);
        } else if (c == '"') {
            i = quoted_end(s, n, i + 1, '"', 0);
            if (!i)
                return wg_error_set(WG_EINVAL, "unterminated quoted identifier");
            if (i - start == 2)
                return wg_error_set(WG_EINVAL, "empty quoted identifier");
            rc = push(L, T_QIDENT, start, i - start);
        } else if (c == '\'') {
            i = quoted_end(s, n, i + 1, '\'', 0);
            if (!i)
                return wg_error_set(WG_EINVAL, "unterminated string literal");
            rc = push(L, T_STRING, start, i - start);
        } else if (c == '$' && i + 1 < n && digit((unsigned char)s[i + 1])) {
            for (i++; i < n && digit((unsigned char)s[i]); i++)
                ;
            rc = push(L, T_PARAM, start, i - start);
        } else if (c == '$') {
            /* $tag$ … $tag$ : the tag is an identifier without '$', or empty */
            size_t t = i + 1;
            if (t < n && ident_start((unsigned char)s[t]))
                for (t++; t < n && ident_char((unsigned char)s[t]) && s[t] != '$'; t++)
                    ;
            if (t >= n || s[t] != '$')
                return wg_error_set(WG_EDENIED, "'$' outside a parameter or dollar quote "
                                                "is not understood");
            size_t tag = t + 1 - i;                /* "$tag$" */
            if (tag > 66)
                return wg_error_set(WG_EINVAL, "dollar-quote tag longer than 64 characters");
            const char *end = NULL;
            for (size_t k = t + 1; k + tag <= n; k++)
                if (s[k] == '$' && memcmp(s + k, s + i, tag) == 0) {
                    end = s + k;
                    break;
                }
            if (!end)
                return wg_error_set(WG_EINVAL, "unterminated dollar-quoted string");
            i = (size_t)(end - s) + tag;
            rc = push(L, T_STRING, start, i - start);
        } else if (digit(c) || (c == '.' && i + 1 < n && digit((unsigned char)s[i + 1]))) {
            while (i < n && digit((unsigned char)s[i]))
                i++;
            if (i < n && s[i] == '.' && !(i + 1 < n && s[i + 1] == '.'))
                for (i++; i < n && digit((unsigned char)s[i]); i++)
                    ;
            if (i < n && (s[i] == 'e' || s[i] == 'E')) {
                size_t e = i + 1;
                if (e < n && (s[e] == '+' || s[e] == '-'))
                    e++;
                if (e < n && digit((unsigned char)s[e]))
                    for (i = e; i < n && digit((unsigned char)s[i]); i++)
                        ;
            }
            rc = push(L, T_NUMBER, start, i - start);
        } else if (strchr("()[],;", c)) {
            static const ttype punct[] = { T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_COMMA, T_SEMI };
            i++;
            rc = push(L, punct[strchr("()[],;", c) - "()[],;"], start, 1);
        } else if (c == ':') {
            int cast = i + 1 < n && s[i + 1] == ':';
            i += cast ? 2 : 1;
            rc = push(L, cast ? T_CAST : T_COLON, start, i - start);
        } else if (c == '.') {
            i++;
            rc = push(L, T_DOT, start, 1);
        } else if (op_char(c)) {
            /* an operator never contains the start of a comment */
            while (i < n && op_char((unsigned char)s[i]) &&
                   !(i + 1 < n && ((s[i] == '-' && s[i + 1] == '-') ||
                                   (s[i] == '/' && s[i + 1] == '*'))))
                i++;
            if (i == start)
                continue;                          /* a comment starts here */
            rc = push(L, T_OP, start, i - start);
        } else {
            return wg_error_set(WG_EDENIED, "character 0x%02x is not understood in a "
                                            "read-only query", c);
        }
    }
    return rc;
}

/* ---- the rules ------------------------------------------------------------ */

/* The word of an unquoted identifier, lowercased, into buf ("" when it is
 * not an identifier or too long to be one we know). */
static const char *word(const lexed *L, size_t i, char *buf, size_t cap)
{
    buf[0] = 0;
    if (i >= L->nt || L->t[i].type != T_IDENT || L->t[i].len >= cap)
        return buf;
    for (size_t k = 0; k < L->t[i].len; k++) {
        char c = L->s[L->t[i].off + k];
        buf[k] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    buf[L->t[i].len] = 0;
    return buf;
}

/* A function's name as written: unquoted lowercased, quoted exact. */
static const char *name_of(const lexed *L, size_t i, char *buf, size_t cap)
{
    if (L->t[i].type == T_IDENT)
        return word(L, i, buf, cap);
    size_t len = L->t[i].len - 2;                  /* without the quotes */
    const char *p = L->s + L->t[i].off + 1;
    size_t k = 0;
    for (size_t j = 0; j < len && k + 1 < cap; j++, k++) {
        buf[k] = p[j];
        if (p[j] == '"')
            j++;                                   /* "" is one quote */
    }
    buf[k] = 0;
    return k + 1 < cap || len == 0 ? buf : "";
}

static int is_name(const lexed *L, size_t i)
{
    return i < L->nt && (L->t[i].type == T_IDENT || L->t[i].type == T_QIDENT);
}

static int type_at(const lexed *L, size_t i, ttype t) { return i < L->nt && L->t[i].type == t; }

static int word_is(const lexed *L, size_t i, const char *w)
{
    char b[32];
    return strcmp(word(L, i, b, sizeof b), w) == 0;
}

/* Index of the ')' matching the '(' at i, or L->nt. */
static size_t matching(const lexed *L, size_t i)
{
    int depth = 0;
    for (size_t k = i; k < L->nt; k++) {
        if (L->t[k].type == T_LPAREN)
            depth++;
        else if (L->t[k].type == T_RPAREN && --depth == 0)
            return k;
    }
    return L->nt;
}

static int refuse_function(const lexed *L, size_t i, const char *qual)
{
    char b[64];
    const char *n = name_of(L, i, b, sizeof b);
    return wg_error_set(WG_EDENIED, "function %s%s%s is not on the read-only allow-list "
                                    "(docs/security.md 3.3); use execute for anything else",
                        qual ? qual : "", qual ? "." : "", *n ? n : "(long name)");
}

/* The name at i is followed by '(' : is it a call, and an allowed one? */
static int check_call(const lexed *L, size_t i, const int *cte_name)
{
    char b[64];
    if (L->t[i].type == T_IDENT && IN(word(L, i, b, sizeof b), grammar_words))
        return 0;                                  /* IN (…), EXISTS (…), CAST (…) */
    if (i > 0 && (type_at(L, i - 1, T_CAST) || type_at(L, i - 1, T_RPAREN) ||
                  word_is(L, i - 1, "as")))
        return 0;    /* ::numeric(10,2), AS t(a, b), (subquery) s(a, b): no call */
    if (cte_name && *cte_name)
        return 0;                                  /* WITH t(a, b) AS (…) */
    const char *qual = NULL;
    char qb[64];
    if (i > 0 && type_at(L, i - 1, T_DOT)) {
        if (i < 2 || !is_name(L, i - 2) || (i >= 3 && type_at(L, i - 3, T_DOT)))
            return wg_error_set(WG_EDENIED, "a call through an expression or a three-part "
                                            "name is not understood in a read-only query");
        qual = name_of(L, i - 2, qb, sizeof qb);
        if (strcmp(qual, "pg_catalog") != 0)
            return refuse_function(L, i, qual);
    }
    const char *n = name_of(L, i, b, sizeof b);
    if (!*n || !wg_sqlcheck__function_allowed(n))
        return refuse_function(L, i, qual);
    return 0;
}

static int check(const lexed *L)
{
    size_t nt = L->nt;
    char b[32];
    if (nt && L->t[nt - 1].type == T_SEMI)
        nt--;                                      /* one trailing ';' */
    if (nt == 0)
        return wg_error_set(WG_EINVAL, "empty query");
    size_t first = 0;
    while (first < nt && L->t[first].type == T_LPAREN)
        first++;
    if (!IN(word(L, first, b, sizeof b), first_words))
        return wg_error_set(WG_EDENIED, "a read-only query starts with SELECT, WITH, VALUES "
                                        "or TABLE; use execute for anything else");
    /* per depth: inside a WITH list, and whether a query name comes next */
    unsigned char with_list[WG_SQL_MAX_DEPTH + 2] = { 0 }, name_next[WG_SQL_MAX_DEPTH + 2] = { 0 };
    int depth = 0;
    for (size_t i = 0; i < nt; i++) {
        const tok *t = &L->t[i];
        switch (t->type) {
        case T_SEMI:
            return wg_error_set(WG_EDENIED, "one statement only (a ';' inside the query)");
        case T_LPAREN:
        case T_LBRACK:
            if (++depth > WG_SQL_MAX_DEPTH)
                return wg_error_set(WG_EINVAL, "query nests deeper than %d", WG_SQL_MAX_DEPTH);
            with_list[depth] = name_next[depth] = 0;
            break;
        case T_RPAREN:
        case T_RBRACK:
            if (--depth < 0)
                return wg_error_set(WG_EINVAL, "unbalanced ')'");
            break;
        case T_COMMA:
            if (with_list[depth])
                name_next[depth] = 1;
            break;
        case T_DOT:
            /* (expr).name is a call of name(expr): attribute notation */
            if (i > 0 && (type_at(L, i - 1, T_RPAREN) || type_at(L, i - 1, T_RBRACK)) &&
                is_name(L, i + 1) && !type_at(L, i + 2, T_LPAREN)) {
                char nb[64];
                const char *n = name_of(L, i + 1, nb, sizeof nb);
                if (!*n || !wg_sqlcheck__function_allowed(n))
                    return wg_error_set(WG_EDENIED, "(expression).%s may call a function; "
                                                    "field selection on an expression is not "
                                                    "allowed in a read-only query",
                                        *n ? n : "(long name)");
            }
            break;
        case T_IDENT: {
            const char *w = word(L, i, b, sizeof b);
            if (IN(w, write_words))
                return wg_error_set(WG_EDENIED, "%s is not allowed in a read-only query", w);
            if (strcmp(w, "for") == 0 && IN(word(L, i + 1, b, sizeof b), lock_words))
                return wg_error_set(WG_EDENIED, "locking clauses (FOR UPDATE, FOR SHARE…) are "
                                                "not allowed in a read-only query");
            w = word(L, i, b, sizeof b);
            if (strcmp(w, "with") == 0 && (i == first || type_at(L, i - 1, T_LPAREN))) {
                with_list[depth] = name_next[depth] = 1;
                break;
            }
            if (with_list[depth] && IN(w, first_words) && strcmp(w, "with") != 0)
                with_list[depth] = name_next[depth] = 0;   /* the main query of the WITH */
            if (strcmp(w, "recursive") == 0)
                break;
        } /* fall through */
        case T_QIDENT: {
            int cte = 0;
            if (name_next[depth]) {
                name_next[depth] = 0;
                /* a query name; "(cols) AS" after it makes the '(' a column list */
                if (type_at(L, i + 1, T_LPAREN)) {
                    size_t close = matching(L, i + 1);
                    cte = close < nt && word_is(L, close + 1, "as");
                }
            }
            if (type_at(L, i + 1, T_LPAREN)) {
                int rc = check_call(L, i, &cte);
                if (rc < 0)
                    return rc;
            }
            break;
        }
        default:
            break;
        }
    }
    if (depth != 0)
        return wg_error_set(WG_EINVAL, "unbalanced '('");
    return 0;
}

int wg_sqlcheck__readonly(const char *sql, size_t len)
{
    if (!sql)
        return wg_error_set(WG_EINVAL, "no query");
    if (len > WG_SQL_MAX_LEN)
        return wg_error_set(WG_EINVAL, "query longer than %d bytes", WG_SQL_MAX_LEN);
    if (memchr(sql, 0, len))
        return wg_error_set(WG_EINVAL, "query contains a NUL byte");
    lexed L = { sql, len, NULL, 0 };
    /* a token needs at least one byte: len + 1 bounds the count */
    size_t cap = len + 1 < WG_SQL_MAX_TOKENS ? len + 1 : WG_SQL_MAX_TOKENS;
    if (!(L.t = malloc(cap * sizeof *L.t)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = lex(&L);
    if (rc == 0)
        rc = check(&L);
    free(L.t);
    return rc;
}

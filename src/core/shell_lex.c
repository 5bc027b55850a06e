/* shell_lex.c - the POSIX-shell lexer and parser of the bash gate (issue #2 §3).
 *
 * One pass over the text, the way bash reads it: words with quote removal
 * (' " \ $'..' $".."), expansions ($name ${..} $(..) $((..)) `..` <(..) >(..)),
 * redirections (< > >> >| <> <& >& &> &>> <<< << <<- with fd numbers),
 * here-doc bodies, comments, line continuations, and every separator
 * (newline ; & && || | |& ( ) and the reserved words, which shell_analyze.c
 * drops in command position). Each simple command is handed to the rules as
 * soon as it ends; the commands inside substitutions are parsed recursively.
 * Word text, words and redirections live in the decision's arena (sh_ctx.ar,
 * sized from the input); a nested parse allocates above its caller and gives
 * it all back on return. Every pass is linear: no byte is rescanned per
 * byte (the bracket and brace look-aheads are remembered), and every pool
 * and counter is bounded, failing closed through sh_overflow.
 *
 * Not a full bash grammar: `case`, `;;`, and anything odd return -1 and the
 * caller classifies the whole input fail-closed.
 */
#include "core/shell_internal.h"

#include <string.h>

enum { SEP_SEQ, SEP_AND, SEP_PIPE, SEP_BG, SEP_END };

typedef struct {
    sh_ctx *cx;
    const char *s;
    size_t n;
    size_t p;
    sh_cmd *c;
    const char *via;
    uint32_t tbase;         /* this list's first text byte */
    uint32_t tcmd;          /* the current command's first text byte (after piped echo text) */
    size_t rbracket;        /* next ']' at or after this position, n when none (memo) */
    size_t brace_end;       /* brace look-ahead memo: end of the last scan ... */
    int brace_hit;          /* ... and its answer */
} lx;

static int parse_list(sh_ctx *cx, const char *s, size_t n, size_t *pos, int term,
                      int piped_in, const char *via);

/* Byte classes: 1 = metacharacter (ends a word), 2 = needs the slow path
 * inside a word (quotes, escapes, expansions, globs, braces, MARK). */
static const unsigned char byte_class[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, [';'] = 1, ['&'] = 1, ['|'] = 1, ['('] = 1,
    [')'] = 1, ['<'] = 1, ['>'] = 1,
    ['\\'] = 2, ['\''] = 2, ['"'] = 2, ['$'] = 2, ['`'] = 2, ['*'] = 2, ['?'] = 2,
    ['['] = 2, ['{'] = 2, [(unsigned char)SH_MARK] = 2,
};

static int is_meta(char ch)
{
    return byte_class[(unsigned char)ch] == 1;
}

static int is_name_start(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static int is_name_char(char ch)
{
    return is_name_start(ch) || (ch >= '0' && ch <= '9');
}

/* ---- word text ---------------------------------------------------------- */

static void truncated(lx *L, sh_word *w)
{
    w->flags |= SH_W_TRUNC;
    sh_overflow(L->cx, "the words do not fit in the model's scratch space");
}

/* Room for k more bytes of the current word, keeping one for its NUL and
 * the pool's final NUL. */
static int room(const lx *L, size_t k)
{
    const sh_arena *a = &L->cx->ar;
    return (size_t)a->ttop + k + 2 <= a->tcap;
}

static void put(lx *L, sh_word *w, char ch)
{
    sh_arena *a = &L->cx->ar;
    if (room(L, 1)) {
        a->text[a->ttop++] = ch;
        w->len++;
    } else {
        truncated(L, w);
    }
}

static void put_mark(lx *L, sh_word *w, char kind)
{
    if (!room(L, 2)) {
        truncated(L, w);
        return;
    }
    put(L, w, SH_MARK);
    put(L, w, kind);
}

static void word_begin(lx *L, sh_word *w)
{
    w->off = L->cx->ar.ttop;
    w->len = 0;
    w->flags = 0;
    w->raw_off = (uint32_t)L->p;
    w->raw_len = 0;
}

static void word_end(lx *L, sh_word *w)
{
    sh_arena *a = &L->cx->ar;
    if ((size_t)a->ttop + 1 < a->tcap) {
        a->text[a->ttop++] = '\0';
    } else {                            /* no room even for the NUL */
        w->off = a->tcap - 1;           /* the pool's final NUL: "" */
        w->len = 0;
        truncated(L, w);
    }
    w->raw_len = (uint32_t)(L->p - w->raw_off);
}

/* ---- substitutions ------------------------------------------------------ */

/* $( ... ): L->p is just after "$(". */
static int read_cmdsub(lx *L, sh_word *w)
{
    size_t p = L->p;
    if (parse_list(L->cx, L->s, L->n, &p, ')', 0, "inside $(...)") < 0)
        return -1;
    L->p = p;
    put_mark(L, w, SH_K_CMDSUB);
    w->flags |= SH_W_CMDSUB;
    return 0;
}

/* `...`: L->p is just after the opening backtick. The body is unescaped
 * (\\ \` \$) into a buffer of its own, then parsed as a script. */
static int read_backtick(lx *L, sh_word *w)
{
    size_t p = L->p;
    const char *e = NULL;
    for (size_t q = p; q < L->n; q++) {        /* find the closing backtick */
        if (L->s[q] == '\\')
            q++;
        else if (L->s[q] == '`') {
            e = L->s + q;
            break;
        }
    }
    if (!e)
        return -1;
    size_t end = (size_t)(e - L->s);
    SH_STEP(L->cx, end - p);
    uint32_t mark;
    char *buf = sh_scratch(L->cx, end - p + 1, &mark);
    if (!buf) {
        truncated(L, w);
        L->p = end + 1;
        return 0;
    }
    size_t k = 0;
    for (; p < end; p++) {
        char ch = L->s[p];
        if (ch == '\\' && p + 1 < end &&
            (L->s[p + 1] == '\\' || L->s[p + 1] == '`' || L->s[p + 1] == '$'))
            ch = L->s[++p];
        buf[k++] = ch;
    }
    L->p = end + 1;
    size_t q = 0;
    int rc = parse_list(L->cx, buf, k, &q, 0, 0, "inside `...`");
    sh_scratch_release(L->cx, mark);
    if (rc < 0)
        return -1;
    put_mark(L, w, SH_K_CMDSUB);
    w->flags |= SH_W_CMDSUB;
    return 0;
}

static int read_dq(lx *L, sh_word *w, int until_end);
static int read_dollar(lx *L, sh_word *w, int in_dq);
static int read_param_body(lx *L, sh_word *w);

/* ${ ... }: L->p at "${". Nested quotes and substitutions are followed so
 * that `${x:-$(rm -rf ~)}` is seen. */
static int read_param(lx *L, sh_word *w)
{
    if (L->cx->lex_depth >= SH_MAX_LEX_DEPTH)
        return -1;
    L->cx->lex_depth++;
    int rc = read_param_body(L, w);
    L->cx->lex_depth--;
    return rc;
}

static int read_param_body(lx *L, sh_word *w)
{
    size_t start = L->p + 2;
    size_t p = start;
    int depth = 1;
    sh_word dummy;
    while (p < L->n) {
        char ch = L->s[p];
        if (ch == '\\') {
            p += 2;
        } else if (ch == '\'') {
            const char *e = memchr(L->s + p + 1, '\'', L->n - p - 1);
            if (!e)
                return -1;
            p = (size_t)(e - L->s) + 1;
        } else if (ch == '"') {
            uint32_t save = L->cx->ar.ttop;
            L->p = p + 1;
            word_begin(L, &dummy);
            if (read_dq(L, &dummy, 0) < 0)
                return -1;
            w->flags |= dummy.flags & (SH_W_CMDSUB | SH_W_TRUNC);
            L->cx->ar.ttop = save;
            p = L->p;
        } else if (ch == '$' && p + 1 < L->n && L->s[p + 1] == '{') {
            depth++;
            p += 2;
        } else if (ch == '$' && p + 1 < L->n && L->s[p + 1] == '(') {
            uint32_t save = L->cx->ar.ttop;
            L->p = p;
            word_begin(L, &dummy);
            if (read_dollar(L, &dummy, 1) < 0)
                return -1;
            w->flags |= dummy.flags & (SH_W_CMDSUB | SH_W_TRUNC);
            L->cx->ar.ttop = save;
            p = L->p;
        } else if (ch == '`') {
            uint32_t save = L->cx->ar.ttop;
            L->p = p + 1;
            word_begin(L, &dummy);
            if (read_backtick(L, &dummy) < 0)
                return -1;
            w->flags |= SH_W_CMDSUB;
            L->cx->ar.ttop = save;
            p = L->p;
        } else if (ch == '}') {
            if (--depth == 0)
                break;
            p++;
        } else {
            p++;
        }
    }
    SH_STEP(L->cx, p - start);
    if (p >= L->n)
        return -1;
    int home = p - start == 4 && memcmp(L->s + start, "HOME", 4) == 0;
    L->p = p + 1;
    put_mark(L, w, home ? SH_K_HOME : SH_K_PARAM);
    w->flags |= SH_W_EXP;
    return 0;
}

/* $(( ... )): arithmetic. A substitution inside is not modelled: fail. */
static int read_arith(lx *L, sh_word *w)
{
    size_t p = L->p + 3;
    int depth = 2;
    while (p < L->n && depth > 0) {
        char ch = L->s[p];
        if (ch == '(')
            depth++;
        else if (ch == ')')
            depth--;
        else if (ch == '`' || (ch == '$' && p + 1 < L->n && L->s[p + 1] == '('))
            return -1;
        p++;
    }
    SH_STEP(L->cx, p - L->p);
    if (depth)
        return -1;
    L->p = p;
    put_mark(L, w, SH_K_PARAM);
    w->flags |= SH_W_EXP;
    return 0;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static void put_byte(lx *L, sh_word *w, unsigned v)
{
    if (v == 0 || v == (unsigned char)SH_MARK)
        w->flags |= SH_W_CTRL;          /* NUL cuts the word; MARK spoofs */
    put(L, w, (char)v);
}

static void put_utf8(lx *L, sh_word *w, unsigned long cp)
{
    if (cp < 0x80) {
        put_byte(L, w, (unsigned)cp);
    } else if (cp < 0x800) {
        put(L, w, (char)(0xC0 | (cp >> 6)));
        put(L, w, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        put(L, w, (char)(0xE0 | (cp >> 12)));
        put(L, w, (char)(0x80 | ((cp >> 6) & 0x3F)));
        put(L, w, (char)(0x80 | (cp & 0x3F)));
    } else {
        put(L, w, (char)(0xF0 | ((cp >> 18) & 0x07)));
        put(L, w, (char)(0x80 | ((cp >> 12) & 0x3F)));
        put(L, w, (char)(0x80 | ((cp >> 6) & 0x3F)));
        put(L, w, (char)(0x80 | (cp & 0x3F)));
    }
}

/* $'...': L->p just after the opening quote. */
static int read_ansi(lx *L, sh_word *w)
{
    static const char simple_from[] = "abeEfnrtv\\'\"?";
    static const char simple_to[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
    size_t p = L->p;
    w->flags |= SH_W_QUOTED;
    while (p < L->n && L->s[p] != '\'') {
        char ch = L->s[p++];
        if (ch != '\\' || p >= L->n) {
            put_byte(L, w, (unsigned char)ch);
            continue;
        }
        char e = L->s[p++];
        const char *hit = strchr(simple_from, e);
        if (e && hit) {
            put(L, w, simple_to[hit - simple_from]);
        } else if (e == 'x' || e == 'u' || e == 'U') {
            int max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            unsigned long v = 0;
            int k = 0;
            while (k < max && p < L->n && hexval(L->s[p]) >= 0)
                v = v * 16 + (unsigned long)hexval(L->s[p++]), k++;
            if (k == 0) {
                put(L, w, '\\');
                put(L, w, e);
            } else if (e == 'x') {
                put_byte(L, w, (unsigned)v);
            } else {
                put_utf8(L, w, v);
            }
        } else if (e >= '0' && e <= '7') {
            unsigned v = (unsigned)(e - '0');
            for (int k = 0; k < 2 && p < L->n && L->s[p] >= '0' && L->s[p] <= '7'; k++)
                v = v * 8 + (unsigned)(L->s[p++] - '0');
            put_byte(L, w, v & 0xFF);
        } else if (e == 'c' && p < L->n) {
            put_byte(L, w, (unsigned char)L->s[p++] & 0x1F);
        } else {
            put(L, w, '\\');
            put(L, w, e);
        }
    }
    SH_STEP(L->cx, p - L->p);
    if (p >= L->n)
        return -1;
    L->p = p + 1;
    return 0;
}

/* At '$'. in_dq: inside double quotes ($' and $" are then literal). */
static int read_dollar(lx *L, sh_word *w, int in_dq)
{
    const char *s = L->s;
    size_t p = L->p;
    char nx = p + 1 < L->n ? s[p + 1] : '\0';
    if (nx == '(') {
        if (p + 2 < L->n && s[p + 2] == '(')
            return read_arith(L, w);
        L->p = p + 2;
        return read_cmdsub(L, w);
    }
    if (nx == '{')
        return read_param(L, w);
    if (nx == '\'' && !in_dq) {
        L->p = p + 2;
        return read_ansi(L, w);
    }
    if (nx == '"' && !in_dq) {
        L->p = p + 2;
        w->flags |= SH_W_QUOTED;
        return read_dq(L, w, 0);
    }
    if (is_name_start(nx)) {
        size_t q = p + 1;
        while (q < L->n && is_name_char(s[q]))
            q++;
        int home = q - p - 1 == 4 && memcmp(s + p + 1, "HOME", 4) == 0;
        L->p = q;
        put_mark(L, w, home ? SH_K_HOME : SH_K_PARAM);
        w->flags |= SH_W_EXP;
        return 0;
    }
    if (nx && strchr("0123456789@*#?$!-", nx)) {
        L->p = p + 2;
        put_mark(L, w, SH_K_PARAM);
        w->flags |= SH_W_EXP;
        return 0;
    }
    L->p = p + 1;
    put(L, w, '$');
    return 0;
}

/* Inside "...": L->p just after the opening quote. until_end: a here-doc
 * body, read to L->n with no closing quote. */
static int read_dq_body(lx *L, sh_word *w, int until_end);

static int read_dq(lx *L, sh_word *w, int until_end)
{
    if (L->cx->lex_depth >= SH_MAX_LEX_DEPTH)
        return -1;
    L->cx->lex_depth++;
    int rc = read_dq_body(L, w, until_end);
    L->cx->lex_depth--;
    return rc;
}

static int read_dq_body(lx *L, sh_word *w, int until_end)
{
    w->flags |= SH_W_QUOTED;
    while (L->p < L->n) {
        char ch = L->s[L->p];
        SH_STEP(L->cx, 1);
        if (ch == '"' && !until_end) {
            L->p++;
            return 0;
        }
        if (ch == '\\' && L->p + 1 < L->n) {
            char e = L->s[L->p + 1];
            if (e == '\n') {
                L->p += 2;
            } else if (e == '$' || e == '`' || e == '\\' || (e == '"' && !until_end)) {
                put(L, w, e);
                L->p += 2;
            } else {
                put(L, w, '\\');
                L->p++;
            }
        } else if (ch == '$') {
            if (read_dollar(L, w, 1) < 0)
                return -1;
        } else if (ch == '`') {
            L->p++;
            if (read_backtick(L, w) < 0)
                return -1;
        } else {
            if (ch == SH_MARK)
                w->flags |= SH_W_CTRL;
            put(L, w, ch);
            L->p++;
        }
    }
    return until_end ? 0 : -1;
}

/* Does the unquoted '{' at p start a brace expansion ({a,b} or {1..3})?
 * The scan from p stops at the first '}', ',', '..' or metacharacter; a
 * later '{' before that stop gets the same answer, so it is remembered
 * (else "{{{{..." would be quadratic). */
static int brace_expands(lx *L, size_t p)
{
    const char *s = L->s;
    size_t n = L->n;
    if (p < L->brace_end)
        return L->brace_hit;
    size_t q = p + 1;
    int hit = 0;
    for (; q < n && !is_meta(s[q]); q++) {
        if (s[q] == '}')
            break;
        if (s[q] == ',' || (s[q] == '.' && q + 1 < n && s[q + 1] == '.')) {
            hit = 1;
            break;
        }
    }
    SH_STEP(L->cx, q - p);
    L->brace_end = q;
    L->brace_hit = hit;
    return hit;
}

/* Is there a ']' after p (the bracket-expression check)? Remembered, so a
 * run of '[' scans the rest of the text once. */
static int bracket_follows(lx *L, size_t p)
{
    if (L->rbracket <= p || L->rbracket == (size_t)-1) {
        const char *e = p + 1 < L->n ? memchr(L->s + p + 1, ']', L->n - p - 1) : NULL;
        size_t at = e ? (size_t)(e - L->s) : L->n;
        SH_STEP(L->cx, at - p);
        L->rbracket = at;
    }
    return L->rbracket < L->n;
}

/* One word, up to the next unquoted metacharacter. */
static int read_word(lx *L, sh_word *w)
{
    word_begin(L, w);
    const char *s = L->s;
    /* process substitution <(..) / >(..) */
    if (L->p + 1 < L->n && (s[L->p] == '<' || s[L->p] == '>') && s[L->p + 1] == '(') {
        size_t p = L->p + 2;
        if (parse_list(L->cx, s, L->n, &p, ')', 0, "inside a process substitution") < 0)
            return -1;
        L->p = p;
        put_mark(L, w, SH_K_PROCSUB);
        w->flags |= SH_W_PROCSUB;
        word_end(L, w);
        return 0;
    }
    /* tilde prefix */
    if (s[L->p] == '~') {
        size_t q = L->p + 1;
        while (q < L->n && (is_name_char(s[q]) || s[q] == '.' || s[q] == '-' || s[q] == '+'))
            q++;
        if (q >= L->n || s[q] == '/' || is_meta(s[q])) {
            size_t nlen = q - L->p - 1;
            char kind = nlen == 0 ? SH_K_HOME
                      : (s[L->p + 1] == '+' || s[L->p + 1] == '-') ? SH_K_PARAM
                      : SH_K_USER;
            put_mark(L, w, kind);
            w->flags |= SH_W_EXP;
            L->p = q;
        }
    }
    while (L->p < L->n) {
        char ch = s[L->p];
        unsigned char bc = byte_class[(unsigned char)ch];
        if (bc == 0) {                          /* fast path: plain bytes */
            size_t q = L->p + 1;
            while (q < L->n && byte_class[(unsigned char)s[q]] == 0)
                q++;
            size_t k = q - L->p;
            SH_STEP(L->cx, k);
            if (room(L, k)) {
                sh_arena *a = &L->cx->ar;
                memcpy(a->text + a->ttop, s + L->p, k);
                a->ttop += (uint32_t)k;
                w->len += (uint32_t)k;
            } else {
                truncated(L, w);                /* the run is skipped, never rescanned */
            }
            L->p = q;
            continue;
        }
        SH_STEP(L->cx, 1);
        if (bc == 1)
            break;
        switch (ch) {
        case '\\':
            if (L->p + 1 >= L->n) {
                put(L, w, '\\');
                L->p++;
            } else if (s[L->p + 1] == '\n') {
                L->p += 2;
            } else {
                w->flags |= SH_W_QUOTED;
                if (s[L->p + 1] == SH_MARK)
                    w->flags |= SH_W_CTRL;
                put(L, w, s[L->p + 1]);
                L->p += 2;
            }
            break;
        case '\'': {
            const char *e = memchr(s + L->p + 1, '\'', L->n - L->p - 1);
            if (!e)
                return -1;
            SH_STEP(L->cx, e - (s + L->p));
            w->flags |= SH_W_QUOTED;
            for (const char *q = s + L->p + 1; q < e; q++) {
                if (*q == SH_MARK)
                    w->flags |= SH_W_CTRL;
                put(L, w, *q);
            }
            L->p = (size_t)(e - s) + 1;
            break;
        }
        case '"':
            L->p++;
            if (read_dq(L, w, 0) < 0)
                return -1;
            break;
        case '$':
            if (read_dollar(L, w, 0) < 0)
                return -1;
            break;
        case '`':
            L->p++;
            if (read_backtick(L, w) < 0)
                return -1;
            break;
        case '[':
            if (L->p + 1 < L->n && !is_meta(s[L->p + 1]) && bracket_follows(L, L->p))
                w->flags |= SH_W_GLOB;          /* a bracket expression */
            put(L, w, ch);
            L->p++;
            break;
        case '*': case '?':
            w->flags |= SH_W_GLOB;
            put(L, w, ch);
            L->p++;
            break;
        case '{':
            if (brace_expands(L, L->p))
                w->flags |= SH_W_BRACE;
            put(L, w, ch);
            L->p++;
            break;
        default:
            if (ch == SH_MARK)
                w->flags |= SH_W_CTRL;
            put(L, w, ch);
            L->p++;
        }
    }
    word_end(L, w);
    return 0;
}

/* ---- here-documents ------------------------------------------------------ */

/* After a newline: read the bodies of the pending here-docs, in order. */
static int read_heredocs(lx *L)
{
    sh_ctx *cx = L->cx;
    for (int h = 0; h < cx->nheredoc; h++) {
        sh_heredoc *hd = &cx->heredoc[h];
        size_t body = L->p, end = L->p, after = L->n;
        size_t p = L->p;
        while (p < L->n) {
            size_t ls = p;
            const char *nl = memchr(L->s + p, '\n', L->n - p);
            size_t le = nl ? (size_t)(nl - L->s) : L->n;
            size_t q = ls;
            if (hd->strip_tabs)
                while (q < le && L->s[q] == '\t')
                    q++;
            SH_STEP(cx, le - ls + 1);
            if (le - q == (size_t)hd->dlen && memcmp(L->s + q, hd->delim, (size_t)hd->dlen) == 0) {
                end = ls;
                after = nl ? le + 1 : le;
                break;
            }
            p = nl ? le + 1 : le;
            end = p;
        }
        if (p >= L->n)
            after = L->n;
        if (hd->serial == L->c->serial && hd->redir) {
            hd->redir->body_ok = 1;
            hd->redir->body_off = (uint32_t)body;
            hd->redir->body_len = (uint32_t)(end - body);
        }
        if (!hd->quoted && end > body) {
            /* an unquoted body is expanded: its substitutions run */
            size_t save_n = L->n;
            uint32_t save_t = cx->ar.ttop;
            sh_word dummy;
            L->n = end;
            L->p = body;
            word_begin(L, &dummy);
            int rc = read_dq(L, &dummy, 1);
            L->n = save_n;
            cx->ar.ttop = save_t;
            if (rc < 0)
                return -1;
        }
        L->p = after;
    }
    cx->nheredoc = 0;
    return 0;
}

/* ---- redirections -------------------------------------------------------- */

static int read_redir(lx *L, int fd)
{
    sh_cmd *c = L->c;
    sh_arena *ar = &L->cx->ar;
    const char *s = L->s;
    size_t p = L->p;
    int op, strip = 0;
    char a = s[p], b = p + 1 < L->n ? s[p + 1] : '\0', d = p + 2 < L->n ? s[p + 2] : '\0';
    if (a == '<') {
        if (b == '<' && d == '<') { op = SH_R_HERESTR; p += 3; }
        else if (b == '<' && d == '-') { op = SH_R_HEREDOC; strip = 1; p += 3; }
        else if (b == '<') { op = SH_R_HEREDOC; p += 2; }
        else if (b == '>') { op = SH_R_RDWR; p += 2; }
        else if (b == '&') { op = SH_R_DUP; p += 2; }
        else { op = SH_R_IN; p += 1; }
    } else {
        if (b == '>') { op = SH_R_APPEND; p += 2; }
        else if (b == '|') { op = SH_R_CLOBBER; p += 2; }
        else if (b == '&') { op = SH_R_DUP; p += 2; }
        else { op = SH_R_OUT; p += 1; }
    }
    while (p < L->n && (s[p] == ' ' || s[p] == '\t'))
        p++;
    L->p = p;
    if (p >= L->n || is_meta(s[p]))
        return -1;
    /* the target is read first: a substitution in it parses above us */
    sh_redir r;
    r.op = (uint8_t)op;
    r.fd = fd;
    r.body_ok = 0;
    r.body_literal = 0;
    r.body_off = r.body_len = 0;
    if (read_word(L, &r.target) < 0)
        return -1;
    if (op == SH_R_DUP) {
        /* >&word with a non-number word writes to a file (bash: both streams) */
        const char *t = ar->text + r.target.off;
        int digits = r.target.len > 0;
        for (uint32_t i = 0; i < r.target.len; i++)
            if (!(t[i] >= '0' && t[i] <= '9') && !(t[i] == '-' && i == r.target.len - 1))
                digits = 0;
        if (!digits)
            op = r.op = a == '<' ? SH_R_IN : SH_R_OUT;
    }
    sh_redir *slot = NULL;
    if (ar->rtop < ar->rcap) {
        slot = &ar->r[ar->rtop++];
        *slot = r;
        c->nr++;
    } else {
        c->overflow = 1;
        sh_overflow(L->cx, "a command has more redirections than the model holds");
    }
    if (op == SH_R_HEREDOC) {
        if (L->cx->nheredoc >= SH_MAX_HEREDOCS || r.target.len >= SH_MAX_DELIM ||
            (r.target.flags & SH_W_OPAQUE))
            return -1;
        sh_heredoc *hd = &L->cx->heredoc[L->cx->nheredoc++];
        hd->serial = c->serial;
        hd->quoted = (r.target.flags & SH_W_QUOTED) != 0;
        hd->strip_tabs = strip;
        hd->dlen = (int)r.target.len;
        memcpy(hd->delim, ar->text + r.target.off, (size_t)hd->dlen);
        hd->redir = slot;
        if (slot)
            slot->body_literal = (uint8_t)hd->quoted;
    }
    return 0;
}

/* ---- commands and lists -------------------------------------------------- */

/* Starts the next command: its words, redirections and text begin where
 * the list's (or the piped echo text's) end. */
static void cmd_reset(lx *L, int piped_in)
{
    sh_cmd *c = L->c;
    sh_arena *a = &L->cx->ar;
    a->wtop = (uint32_t)(c->w - a->w);
    a->rtop = (uint32_t)(c->r - a->r);
    a->ttop = L->tcmd;
    c->nw = 0;
    c->nr = 0;
    c->overflow = 0;
    c->piped_in = piped_in;
    c->piped_out = 0;
    c->background = 0;
    c->serial = ++L->cx->serial;
}

/* Literal text an `echo` stage writes into a pipe: joined at the list's
 * text base (the echo's own words are done with), the next command's text
 * starts after it. Its length, or -1. */
static int echo_text(lx *L)
{
    sh_cmd *c = L->c;
    sh_arena *a = &L->cx->ar;
    if (c->nw < 1 || c->nr > 0 || strcmp(sh_wtext(c, 0), "echo") != 0)
        return -1;
    size_t need = sh_words_len(c, 1, c->nw);
    for (int i = 1; i < c->nw; i++)
        if (c->w[i].flags & SH_W_OPAQUE)
            return -1;
    if ((size_t)a->ttop + need + 2 > a->tcap || need > INT32_MAX) {
        sh_overflow(L->cx, "echoed text does not fit in the model's scratch space");
        return -1;
    }
    char *out = a->text + a->ttop;
    size_t k = 0;
    for (int i = 1; i < c->nw; i++) {
        if (i > 1)
            out[k++] = ' ';
        memcpy(out + k, sh_wtext(c, i), c->w[i].len);
        k += c->w[i].len;
    }
    memmove(a->text + L->tbase, out, k);
    a->text[L->tbase + k] = '\0';
    L->tcmd = L->tbase + (uint32_t)k + 1;
    return (int)k;
}

static void end_cmd(lx *L, int sep)
{
    sh_cmd *c = L->c;
    sh_ctx *cx = L->cx;
    c->piped_out = sep == SEP_PIPE;
    c->background = sep == SEP_BG;
    if (c->nw > 0 || c->nr > 0 || c->overflow) {
        if (++cx->ncmd > SH_MAX_COMMANDS)
            sh_overflow(cx, "the command has more simple commands than the model checks");
        else
            sh_analyze_command(cx, c, L->via);
    }
    L->tcmd = L->tbase;
    int plen = sep == SEP_PIPE ? echo_text(L) : -1;
    cmd_reset(L, sep == SEP_PIPE);
    c->pipe_text = plen >= 0 ? cx->ar.text + L->tbase : NULL;
    c->pipe_text_len = plen;
}

/* FNV-1a over a function name. */
static uint32_t name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The slot of name in the function table: its entry, or the empty slot
 * where it belongs. */
static uint32_t *func_slot(const sh_arena *a, const char *name, size_t n)
{
    uint32_t i = name_hash(name, n) & a->fmask;
    for (;;) {
        uint32_t *slot = &a->fslot[i];
        if (*slot == 0)
            return slot;
        const char *have = a->names + *slot - 1;
        if (strncmp(have, name, n) == 0 && have[n] == '\0')
            return slot;
        i = (i + 1) & a->fmask;
    }
}

int sh_is_function(const sh_ctx *cx, const char *name)
{
    const sh_arena *a = &cx->ar;
    return a->nfunc > 0 && *func_slot(a, name, strlen(name)) != 0;
}

static void define_function(lx *L, const char *name)
{
    sh_arena *a = &L->cx->ar;
    size_t n = strlen(name);
    if (!a->fready) {
        memset(a->fslot, 0, ((size_t)a->fmask + 1) * sizeof *a->fslot);
        a->fready = 1;
    }
    uint32_t *slot = func_slot(a, name, n);
    if (*slot)
        return;
    /* the table stays at most half full, so probes stay short */
    if ((a->nfunc + 1) * 2 > a->fmask + 1 || (size_t)a->ntop + n + 1 > a->ncap) {
        sh_overflow(L->cx, "the command defines more functions than the model holds");
        return;
    }
    memcpy(a->names + a->ntop, name, n + 1);
    *slot = a->ntop + 1;
    a->ntop += (uint32_t)n + 1;
    a->nfunc++;
}

static void skip_blanks(lx *L)
{
    size_t p0 = L->p;
    while (L->p < L->n) {
        char ch = L->s[L->p];
        if (ch == ' ' || ch == '\t')
            L->p++;
        else if (ch == '\\' && L->p + 1 < L->n && L->s[L->p + 1] == '\n')
            L->p += 2;
        else
            break;
    }
    SH_STEP(L->cx, L->p - p0);
}

/* arr=( a b c ): the elements are words; their substitutions are parsed,
 * the words themselves are dropped. L->p just after '('. */
static int read_array(lx *L)
{
    uint32_t save = L->cx->ar.ttop;
    for (;;) {
        while (L->p < L->n && (L->s[L->p] == ' ' || L->s[L->p] == '\t' || L->s[L->p] == '\n'))
            L->p++;
        if (L->p >= L->n)
            return -1;
        if (L->s[L->p] == ')') {
            L->p++;
            break;
        }
        if (is_meta(L->s[L->p]))
            return -1;
        sh_word w;
        if (read_word(L, &w) < 0)
            return -1;
        L->cx->ar.ttop = save;
    }
    L->cx->ar.ttop = save;
    return 0;
}

static int add_word(lx *L)
{
    sh_cmd *c = L->c;
    sh_arena *a = &L->cx->ar;
    sh_word w;
    if (read_word(L, &w) < 0)
        return -1;
    if (c->nw >= SH_MAX_WORDS || a->wtop >= a->wcap) {
        /* the word is dropped: the decision fails closed on the whole text */
        c->overflow = 1;
        sh_overflow(L->cx, c->nw >= SH_MAX_WORDS ? "a command has more words than the model checks"
                                                 : "the words do not fit in the model's scratch space");
        return 0;
    }
    c->w[c->nw++] = w;
    a->wtop++;
    /* name=( ... ) array assignment */
    if (L->p < L->n && L->s[L->p] == '(' && w.len > 1 && !(w.flags & SH_W_QUOTED) &&
        sh_wtext(c, c->nw - 1)[w.len - 1] == '=') {
        L->p++;
        return read_array(L);
    }
    /* `function NAME` */
    if (c->nw == 2 && !(c->w[0].flags & SH_W_QUOTED) && strcmp(sh_wtext(c, 0), "function") == 0) {
        define_function(L, sh_wtext(c, 1));
        skip_blanks(L);
        if (L->p + 1 < L->n && L->s[L->p] == '(' ) {
            size_t q = L->p + 1;
            while (q < L->n && (L->s[q] == ' ' || L->s[q] == '\t'))
                q++;
            if (q < L->n && L->s[q] == ')')
                L->p = q + 1;
        }
        cmd_reset(L, 0);
    }
    return 0;
}

/* Parses a list of commands from s[*pos] up to term (')' or 0 for end of
 * text), analysing each simple command as it ends. */
static int parse_list(sh_ctx *cx, const char *s, size_t n, size_t *pos, int term,
                      int piped_in, const char *via)
{
    if (cx->depth >= SH_MAX_DEPTH)
        return -1;
    cx->depth++;
    sh_arena *ar = &cx->ar;
    uint32_t save_t = ar->ttop, save_w = ar->wtop, save_r = ar->rtop;
    sh_cmd cmd;
    lx L;
    L.cx = cx;
    L.s = s;
    L.n = n;
    L.p = *pos;
    L.c = &cmd;
    L.via = via;
    L.tbase = L.tcmd = save_t;
    L.rbracket = (size_t)-1;
    L.brace_end = 0;
    L.brace_hit = 0;
    cmd.src = s;
    cmd.text = ar->text;
    cmd.w = ar->w + save_w;
    cmd.r = ar->r + save_r;
    cmd.pipe_text = NULL;
    cmd.pipe_text_len = -1;
    cmd_reset(&L, piped_in);
    int rc = 0;
    for (;;) {
        skip_blanks(&L);
        SH_STEP(cx, 1);
        if (L.p >= n) {
            if (term)
                rc = -1;
            else
                end_cmd(&L, SEP_END);
            break;
        }
        char ch = s[L.p];
        char nx = L.p + 1 < n ? s[L.p + 1] : '\0';
        if (ch == ')' && term == ')') {
            L.p++;
            end_cmd(&L, SEP_END);
            break;
        }
        switch (ch) {
        case '\n':
            L.p++;
            if (cx->nheredoc && read_heredocs(&L) < 0) {
                rc = -1;
                goto out;
            }
            end_cmd(&L, SEP_SEQ);
            continue;
        case ';':
            if (nx == ';' || nx == '&') {
                rc = -1;                /* case arms are not modelled */
                goto out;
            }
            L.p++;
            end_cmd(&L, SEP_SEQ);
            continue;
        case '&':
            if (nx == '&') {
                L.p += 2;
                end_cmd(&L, SEP_AND);
            } else if (nx == '>') {
                L.p += 1;               /* &> and &>>: both streams */
                if (read_redir(&L, -2) < 0) {
                    rc = -1;
                    goto out;
                }
            } else {
                L.p++;
                end_cmd(&L, SEP_BG);
            }
            continue;
        case '|':
            if (nx == '|') {
                L.p += 2;
                end_cmd(&L, SEP_AND);
            } else {
                L.p += nx == '&' ? 2 : 1;
                end_cmd(&L, SEP_PIPE);
            }
            continue;
        case '(':
            if (cmd.nw == 1 && !(cmd.w[0].flags & SH_W_QUOTED)) {
                size_t q = L.p + 1;
                while (q < n && (s[q] == ' ' || s[q] == '\t'))
                    q++;
                if (q < n && s[q] == ')') {       /* name() : a function */
                    define_function(&L, sh_wtext(&cmd, 0));
                    L.p = q + 1;
                    cmd_reset(&L, 0);
                    continue;
                }
            }
            if (cmd.nw > 0) {
                rc = -1;
                goto out;
            }
            {
                size_t q = L.p + 1;
                if (parse_list(cx, s, n, &q, ')', cmd.piped_in, via) < 0) {
                    rc = -1;
                    goto out;
                }
                L.p = q;
            }
            continue;
        case ')':
            rc = -1;
            goto out;
        case '#': {
            const char *nl = memchr(s + L.p, '\n', n - L.p);
            size_t e = nl ? (size_t)(nl - s) : n;
            SH_STEP(cx, e - L.p);
            L.p = e;
            continue;
        }
        case '<':
        case '>':
            if (nx == '(') {
                if (add_word(&L) < 0) {
                    rc = -1;
                    goto out;
                }
            } else if (read_redir(&L, -1) < 0) {
                rc = -1;
                goto out;
            }
            continue;
        default:
            break;
        }
        if (ch >= '0' && ch <= '9') {
            size_t q = L.p;
            int fd = 0;
            while (q < n && s[q] >= '0' && s[q] <= '9' && fd < 100000)
                fd = fd * 10 + (s[q++] - '0');
            if (q < n && (s[q] == '<' || s[q] == '>') && !(q + 1 < n && s[q + 1] == '(')) {
                L.p = q;
                if (read_redir(&L, fd) < 0) {
                    rc = -1;
                    goto out;
                }
                continue;
            }
        }
        if (add_word(&L) < 0) {
            rc = -1;
            goto out;
        }
    }
out:
    *pos = L.p;
    ar->ttop = save_t;
    ar->wtop = save_w;
    ar->rtop = save_r;
    cx->depth--;
    return rc;
}

int sh_parse_script(sh_ctx *cx, const char *s, size_t n, const char *via)
{
    size_t pos = 0;
    if (cx->nheredoc > 0)
        return -1;      /* an outer here-doc is pending: not modelled */
    int rc = parse_list(cx, s, n, &pos, 0, 0, via);
    cx->nheredoc = 0;
    return rc;
}

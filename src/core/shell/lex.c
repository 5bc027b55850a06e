/* lex.c - the POSIX-shell lexer and parser of the bash gate (issue #2 §3).
 *
 * One pass over the text, the way bash reads it: words with quote removal
 * (' " \ $'..' $".."), expansions ($name ${..} $(..) $((..)) `..` <(..) >(..)),
 * redirections (< > >> >| <> <& >& &> &>> <<< << <<- with fd numbers),
 * here-doc bodies, comments, line continuations, and every separator
 * (newline ; & && || | |& ( ) and the reserved words, which analyze.c
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
#include "core/shell/internal.h"

#include <string.h>

enum { SEP_SEQ, SEP_AND, SEP_PIPE, SEP_BG, SEP_END };

/* An open { } group: what to restore when it closes. */
typedef struct {
    int prev_func, prev_level;
    int body;               /* a function's body */
    int forked;             /* it raised fork_level (piped into) */
    uint32_t edge_start;    /* the call edges made inside start here */
} lx_group;

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
    int lead;               /* leading reserved words of the command (if ! time {...):
                             * the next word is in command position while nw == lead */
    int coproc_at;          /* index of a `coproc` word in the command, or -1 */
    int nassign;            /* NAME=value words right after the leading reserved words */
    int function_kw;        /* the command is `function NAME` so far */
    int case_depth;         /* open case ... esac in this list */
    int pending_body;       /* a function was just named: the symbol whose body comes next, or -1 */
    int closed_group;       /* edges from this index were made in a { } group that just
                             * closed: forked if the command ends in & or | (else -1) */
    int ngroup;             /* open { } groups of this list */
    lx_group group[SH_MAX_LEX_DEPTH];
} lx;

static int parse_list(sh_ctx *cx, const char *s, size_t n, size_t *pos, int term,
                      int piped_in, const char *via);
static void put_value(lx *L, sh_word *w, const char *v, uint32_t n, int in_dq);

/* Byte classes: 1 = metacharacter (ends a word), 2 = needs the slow path
 * inside a word (quotes, escapes, expansions, globs, braces, MARK). */
static const unsigned char byte_class[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, [';'] = 1, ['&'] = 1, ['|'] = 1, ['('] = 1,
    [')'] = 1, ['<'] = 1, ['>'] = 1,
    ['\\'] = 2, ['\''] = 2, ['"'] = 2, ['$'] = 2, ['`'] = 2, ['*'] = 2, ['?'] = 2,
    ['['] = 2, ['{'] = 2, ['~'] = 2, [(unsigned char)SH_MARK] = 2,
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

static __attribute__((noinline, cold)) void truncated(lx *L, sh_word *w)
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

static inline void word_end(lx *L, sh_word *w)
{
    sh_arena *a = &L->cx->ar;
    SH_STEP(L->cx, L->p - w->raw_off);  /* the slow path consumes a byte or more a pass */
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
/* `which NAME`, `command -v NAME`, `type -P NAME`: the substitution is
 * NAME's path, so it names that program. NAME, or NULL. */
static const char *program_lookup(const char *t, size_t n, size_t *len)
{
    static const char *const forms[] = { "which ", "command -v ", "command -V ", "type -P ",
                                         "type -p ", "whence -p " };
    while (n && (*t == ' ' || *t == '\t'))
        t++, n--;
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\n'))
        n--;
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        size_t k = strlen(forms[i]);
        if (n <= k || memcmp(t, forms[i], k) != 0)
            continue;
        const char *name = t + k;
        size_t m = n - k;
        for (size_t j = 0; j < m; j++)
            if (!is_name_char(name[j]) && !strchr("./+-", name[j]))
                return NULL;
        *len = m;
        return name;
    }
    return NULL;
}

static int read_cmdsub(lx *L, sh_word *w)
{
    size_t p = L->p;
    L->cx->fork_level++;
    int rc = parse_list(L->cx, L->s, L->n, &p, ')', 0, "inside $(...)");
    L->cx->fork_level--;
    if (rc < 0)
        return -1;
    size_t len;
    const char *name = program_lookup(L->s + L->p, p - 1 - L->p, &len);
    L->p = p;
    if (name) {
        put_value(L, w, name, (uint32_t)len, 1);
        return 0;
    }
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
    L->cx->fork_level++;
    int rc = parse_list(L->cx, buf, k, &q, 0, 0, "inside `...`");
    L->cx->fork_level--;
    size_t len;
    const char *name = rc == 0 ? program_lookup(buf, k, &len) : NULL;
    if (name) {
        /* copy out of the scratch before giving it back */
        char keep[64];
        if (len < sizeof keep) {
            memcpy(keep, name, len);
            sh_scratch_release(L->cx, mark);
            put_value(L, w, keep, (uint32_t)len, 1);
            return 0;
        }
    }
    sh_scratch_release(L->cx, mark);
    if (rc < 0)
        return -1;
    put_mark(L, w, SH_K_CMDSUB);
    w->flags |= SH_W_CMDSUB;
    return 0;
}

static int read_dq(lx *L, sh_word *w, int until_end);
static int read_dollar(lx *L, sh_word *w, int in_dq);
static int read_param_body(lx *L, sh_word *w, int in_dq);

/* ---- variables ----------------------------------------------------------- */

/* Unquoted $IFS (and ${IFS...}): blanks that split the word (rm${IFS}-rf). */
static void put_split(lx *L, sh_word *w)
{
    put_mark(L, w, SH_K_SPLIT);
    w->flags |= SH_W_SPLIT;
}

/* Element sel of a value (array elements are separated by SH_K_SPLIT);
 * sel < 0: all of it. */
static const char *element(const char *v, uint32_t n, long sel, uint32_t *len)
{
    if (sel < 0) {
        *len = n;
        return v;
    }
    const char *e = v, *end = v + n;
    for (const char *q = v; q < end; q++) {
        if (q + 1 < end && q[0] == SH_MARK && q[1] == SH_K_SPLIT) {
            if (sel-- == 0)
                break;
            e = q + 2;
            q++;
            continue;
        }
        if (q[0] == SH_MARK)
            q++;
    }
    if (sel > 0) {
        *len = 0;
        return v + n;
    }
    const char *stop = e;
    while (stop < end && !(stop + 1 < end && stop[0] == SH_MARK && stop[1] == SH_K_SPLIT))
        stop += stop[0] == SH_MARK && stop + 1 < end ? 2 : 1;
    *len = (uint32_t)(stop - e);
    return e;
}

/* A known value put into the word: unquoted, its IFS characters split it
 * and its * ? [ are a glob (bash expands the result); an array's element
 * boundaries split it even in quotes. */
static void put_value(lx *L, sh_word *w, const char *v, uint32_t n, int in_dq)
{
    if (!room(L, n)) {
        truncated(L, w);                /* never copy what cannot fit */
        return;
    }
    const char *ifs = " \t\n";
    uint32_t ifs_len = 3;
    if (!in_dq) {
        const char *iv;
        uint32_t il;
        if (sh_var_value(L->cx, "IFS", 3, &iv, &il) && !memchr(iv, SH_MARK, il)) {
            ifs = iv;
            ifs_len = il;
        }
    }
    SH_STEP(L->cx, n);
    for (uint32_t i = 0; i < n; i++) {
        char ch = v[i];
        if (ch == SH_MARK && i + 1 < n) {
            if (v[i + 1] == SH_K_SPLIT) {
                put_split(L, w);
            } else {
                put_mark(L, w, v[i + 1]);
                w->flags |= SH_W_EXP;
            }
            i++;
        } else if (!in_dq && memchr(ifs, ch, ifs_len)) {
            put_split(L, w);
        } else {
            if (!in_dq && (ch == '*' || ch == '?' || ch == '['))
                w->flags |= SH_W_GLOB;
            put(L, w, ch);
        }
    }
}

/* An array's elements joined by the first byte of IFS (none when IFS is
 * empty), in quotes. */
static void put_joined(lx *L, sh_word *w, const char *v, uint32_t n)
{
    const char *iv = " ";
    uint32_t il = 1;
    if (sh_var_value(L->cx, "IFS", 3, &iv, &il) && il > 0 && iv[0] == SH_MARK) {
        put_mark(L, w, SH_K_PARAM);     /* IFS unseen: the joint is unseen */
        w->flags |= SH_W_EXP;
        return;
    }
    if (!room(L, n)) {
        truncated(L, w);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] == SH_MARK && i + 1 < n && v[i + 1] == SH_K_SPLIT) {
            if (il > 0)
                put(L, w, iv[0]);
            i++;
        } else if (v[i] == SH_MARK && i + 1 < n) {
            put_mark(L, w, v[i + 1]);
            w->flags |= SH_W_EXP;
            i++;
        } else {
            put(L, w, v[i]);
        }
    }
}

/* Variables whose conventional value is a program (the user's editor,
 * compiler, ...): not a hidden sudo, an unknown program. $SHELL and $BASH
 * are a shell. */
static const char *conventional(const char *name, size_t n)
{
    static const char *const progs[] = {
        "AR", "AS", "BROWSER", "CARGO", "CC", "CPP", "CXX", "DOCKER", "EDITOR", "FC", "GIT_EDITOR",
        "GIT_PAGER", "GO", "JAVA", "KUBECTL", "LD", "MAKE", "MANPAGER", "NODE", "NPM", "PAGER",
        "PERL", "PHP", "PYTHON", "PYTHON3", "RUBY", "RUSTC", "VISUAL", "YARN",
    };
    if ((n == 5 && memcmp(name, "SHELL", 5) == 0) || (n == 4 && memcmp(name, "BASH", 4) == 0))
        return "bash";
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++)
        if (strlen(progs[i]) == n && memcmp(progs[i], name, n) == 0)
            return "";
    return NULL;
}

/* Unquoted, a value is split at IFS: IFS set to something the model cannot
 * see makes every unquoted value unseen. */
static int ifs_known(const lx *L)
{
    const char *v;
    uint32_t n;
    return !sh_sym_find(L->cx, SH_SYM_VAR, "IFS", 3) || sh_var_value(L->cx, "IFS", 3, &v, &n);
}

/* $NAME or ${NAME...} element sel: its value when the model knows it. */
static void put_var(lx *L, sh_word *w, const char *name, size_t n, long sel, int in_dq)
{
    const char *v;
    uint32_t vl;
    if (!in_dq && !ifs_known(L)) {
        put_mark(L, w, SH_K_PARAM);
        w->flags |= SH_W_EXP;
        return;
    }
    if (n == 8 && memcmp(name, "FUNCNAME", 8) == 0 && L->cx->cur_func >= 0 && sel <= 0) {
        const sh_sym *f = &L->cx->ar.sym[L->cx->cur_func];
        put_value(L, w, sh_sym_name(L->cx, f), f->nlen, 1);   /* the function being defined */
        return;
    }
    if (sh_var_value(L->cx, name, n, &v, &vl) && sh_charge(L->cx, sel > 0 ? vl : 0) == 0) {
        if (sel == -2) {
            put_joined(L, w, v, vl);
            return;
        }
        v = element(v, vl, sel, &vl);
        put_value(L, w, v, vl, in_dq);
        return;
    }
    const char *conv = L->cx->vars_unknown ? NULL : conventional(name, n);
    if (conv && *conv && !sh_sym_find(L->cx, SH_SYM_VAR, name, n)) {
        put_value(L, w, conv, (uint32_t)strlen(conv), 1);
        return;
    }
    put_mark(L, w, conv && !sh_sym_find(L->cx, SH_SYM_VAR, name, n) ? SH_K_CONV : SH_K_PARAM);
    w->flags |= SH_W_EXP;
}

/* Plain text: no quotes, expansions, escapes or markers. */
static int plain(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strchr("$`'\"\\", t[i]) || t[i] == SH_MARK)
            return 0;
    return 1;
}

/* ${...} with content c[0..n): the forms whose value the model can tell
 * (${X} ${X[@]} ${X[N]} ${X:-lit} ${X-lit} ${X:=lit} ${X:+lit}); 1 when it
 * put the value, 0 when the caller puts an unseen expansion. */
static int param_value(lx *L, sh_word *w, const char *c, size_t n, int in_dq)
{
    size_t k = 0;
    while (k < n && is_name_char(c[k]))
        k++;
    if (k == 0 || !is_name_start(c[0]))
        return 0;
    const char *r = c + k;
    size_t rn = n - k;
    if (rn == 0) {
        put_var(L, w, c, k, 0, in_dq);
        return 1;
    }
    if (r[0] == '[' && r[rn - 1] == ']') {
        if (rn == 3 && r[1] == '@') {
            put_var(L, w, c, k, -1, in_dq);
            return 1;
        }
        if (rn == 3 && r[1] == '*') {
            /* "${a[*]}": one word, the elements joined by IFS's first byte */
            put_var(L, w, c, k, in_dq ? -2 : -1, in_dq);
            return 1;
        }
        long sel = 0;
        for (size_t i = 1; i + 1 < rn; i++) {
            if (r[i] < '0' || r[i] > '9' || sel > 100000)
                return 0;
            sel = sel * 10 + (r[i] - '0');
        }
        if (rn < 3)
            return 0;
        put_var(L, w, c, k, sel, in_dq);
        return 1;
    }
    int colon = r[0] == ':';
    char op = r[colon];
    if (rn < (size_t)colon + 1 || !strchr("-=+", op))
        return 0;
    const char *lit = r + colon + 1;
    size_t ln = rn - colon - 1;
    const char *v;
    uint32_t vl;
    int known = sh_var_value(L->cx, c, k, &v, &vl);
    if (!known || !plain(lit, ln) || (!in_dq && !ifs_known(L)))
        return 0;
    int set = colon ? vl > 0 : !sh_var_is_unset(L->cx, c, k);   /* a variable the model knows is set */
    if (op == '+') {
        if (set)
            put_value(L, w, lit, (uint32_t)ln, in_dq);
        return 1;
    }
    if (set)
        put_value(L, w, v, vl, in_dq);
    else
        put_value(L, w, lit, (uint32_t)ln, in_dq);
    return 1;
}

/* ${ ... }: L->p at "${". Nested quotes and substitutions are followed so
 * that `${x:-$(rm -rf ~)}` is seen. */
static int read_param(lx *L, sh_word *w, int in_dq)
{
    if (L->cx->lex_depth >= SH_MAX_LEX_DEPTH)
        return -1;
    L->cx->lex_depth++;
    int rc = read_param_body(L, w, in_dq);
    L->cx->lex_depth--;
    return rc;
}

static int read_param_body(lx *L, sh_word *w, int in_dq)
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
    if (!in_dq && p - start >= 3 && memcmp(L->s + start, "IFS", 3) == 0 &&
        (p - start == 3 || !is_name_char(L->s[start + 3]))) {
        put_split(L, w);                /* ${IFS}, ${IFS:0:1}: some of the blanks */
        return 0;
    }
    if (!home && !(w->flags & SH_W_CMDSUB) && param_value(L, w, L->s + start, p - start, in_dq))
        return 0;
    if (p - start == 1 && (L->s[start] == '@' || L->s[start] == '*' ||
                           (L->s[start] >= '1' && L->s[start] <= '9'))) {
        put_mark(L, w, L->s[start] >= '1' ? L->s[start] : SH_K_ARGS);   /* ${@} ${1} */
        w->flags |= SH_W_EXP;
        return 0;
    }
    put_mark(L, w, home ? SH_K_HOME : SH_K_PARAM);
    w->flags |= SH_W_EXP;
    return 0;
}

/* From q (inside parentheses, depth open), the end of the arithmetic: the
 * position after the ')' that brings depth to 0, or with dparen (the `((`
 * command) after the "))" when the ')' closing the inner '(' is followed at
 * once by ')' (bash's rule; otherwise `((a); (b))` is two subshells).
 * Quoted text is skipped. 0 when it does not end (or is not arithmetic). */
static size_t arith_end(lx *L, size_t q, int depth, int dparen)
{
    const char *s = L->s;
    size_t n = L->n, q0 = q;
    size_t end = 0;
    while (q < n) {
        char ch = s[q];
        if (ch == '\\') {
            q += 2;
            continue;
        }
        if (ch == '\'' || ch == '`') {
            const char *e = memchr(s + q + 1, ch, n - q - 1);
            if (!e)
                break;
            q = (size_t)(e - s) + 1;
            continue;
        }
        if (ch == '"') {
            q++;
            while (q < n && s[q] != '"')
                q += s[q] == '\\' ? 2 : 1;
            q++;
            continue;
        }
        if (ch == '(') {
            depth++;
        } else if (ch == ')') {
            depth--;
            if (dparen && depth == 1) {
                end = q + 1 < n && s[q + 1] == ')' ? q + 2 : 0;
                break;
            }
            if (depth == 0) {
                end = q + 1;
                break;
            }
        }
        q++;
    }
    SH_STEP(L->cx, q - q0);
    return end;
}

/* The substitutions inside arithmetic text [from, to): $(..), `..`, ${..}
 * and "..": their commands run before the arithmetic does. */
static int arith_subs(lx *L, size_t from, size_t to)
{
    size_t save_n = L->n;
    uint32_t save_t = L->cx->ar.ttop;
    int rc = 0;
    sh_word dummy;
    L->n = to;                          /* a substitution must close inside */
    L->p = from;
    while (L->p < to && rc == 0) {
        char ch = L->s[L->p];
        char nx = L->p + 1 < to ? L->s[L->p + 1] : '\0';
        SH_STEP(L->cx, 1);
        word_begin(L, &dummy);
        if (ch == '$' && nx == '(' && L->p + 2 < to && L->s[L->p + 2] == '(') {
            L->p += 3;                  /* nested arithmetic: its text is scanned on */
        } else if (ch == '$' && (nx == '(' || nx == '{')) {
            rc = read_dollar(L, &dummy, 1);
        } else if (ch == '`') {
            L->p++;
            rc = read_backtick(L, &dummy);
        } else if (ch == '"') {
            L->p++;
            rc = read_dq(L, &dummy, 0);
        } else if (ch == '\'') {
            const char *e = memchr(L->s + L->p + 1, '\'', to - L->p - 1);
            if (!e)
                rc = -1;
            else
                L->p = (size_t)(e - L->s) + 1;
        } else {
            L->p += ch == '\\' ? 2 : 1;
        }
        L->cx->ar.ttop = save_t;
    }
    L->n = save_n;
    L->p = to;
    return rc;
}

/* $(( ... )): arithmetic; the substitutions inside are parsed. */
static int read_arith(lx *L, sh_word *w)
{
    size_t end = arith_end(L, L->p + 3, 2, 0);
    if (!end || end < L->p + 5)
        return -1;
    if (arith_subs(L, L->p + 3, end - 2) < 0)
        return -1;
    L->p = end;
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
        return read_param(L, w, in_dq);
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
        if (!in_dq && q - p - 1 == 3 && memcmp(s + p + 1, "IFS", 3) == 0) {
            put_split(L, w);
            return 0;
        }
        if (home) {
            put_mark(L, w, SH_K_HOME);
            w->flags |= SH_W_EXP;
            return 0;
        }
        put_var(L, w, s + p + 1, q - p - 1, 0, in_dq);
        return 0;
    }
    if (nx && strchr("0123456789@*#?$!-", nx)) {
        L->p = p + 2;
        put_mark(L, w, (nx == '@' || nx == '*') ? SH_K_ARGS : (nx >= '1' && nx <= '9') ? nx : SH_K_PARAM);
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
static int read_dq_loop(lx *L, sh_word *w, int until_end);

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
    size_t p0 = L->p;
    int rc = read_dq_loop(L, w, until_end);
    SH_STEP(L->cx, L->p - p0);          /* each pass of the loop consumes a byte or more */
    return rc;
}

static int read_dq_loop(lx *L, sh_word *w, int until_end)
{
    while (L->p < L->n) {
        char ch = L->s[L->p];
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

/* One word, up to the next unquoted metacharacter. Unquoted brace syntax
 * and the field-splitting points of unquoted expansions stay as markers
 * (SH_K_BRACE_*, SH_K_SPLIT) for sh_word_expand; read_word resolves them to
 * plain text. */
static int read_word_marked(lx *L, sh_word *w)
{
    word_begin(L, w);
    const char *s = L->s;
    int bopen = 0;                              /* unquoted '{' still open */
    /* process substitution <(..) / >(..) */
    if (L->p + 1 < L->n && (s[L->p] == '<' || s[L->p] == '>') && s[L->p + 1] == '(') {
        size_t p = L->p + 2;
        L->cx->fork_level++;
        int rc = parse_list(L->cx, s, L->n, &p, ')', 0, "inside a process substitution");
        L->cx->fork_level--;
        if (rc < 0)
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
        if (bc == 0 && !(bopen && (ch == ',' || ch == '}'))) {   /* fast path: plain bytes */
            size_t q = L->p + 1;
            if (bopen)
                while (q < L->n && byte_class[(unsigned char)s[q]] == 0 && s[q] != ',' && s[q] != '}')
                    q++;
            else
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
        case '~': {
            /* NAME=~/x, PATH=a:~/bin: an assignment expands ~ after = and : */
            char prev = w->len ? L->cx->ar.text[L->cx->ar.ttop - 1] : '\0';
            char next = L->p + 1 < L->n ? s[L->p + 1] : '\0';
            size_t k = 0;
            const char *r = s + w->raw_off;
            while (w->raw_off + k < L->p && is_name_char(r[k]))
                k++;
            if ((prev == '=' || prev == ':') && k > 0 && is_name_start(r[0]) && r[k] == '=' &&
                (next == '/' || next == ':' || next == '\0' || is_meta(next))) {
                put_mark(L, w, SH_K_HOME);
                w->flags |= SH_W_EXP;
            } else {
                put(L, w, ch);
            }
            L->p++;
            break;
        }
        case '*': case '?':
            w->flags |= SH_W_GLOB;
            put(L, w, ch);
            L->p++;
            break;
        case '{':
            put_mark(L, w, SH_K_BRACE_OPEN);
            w->flags |= SH_W_BRACE;
            bopen++;
            L->p++;
            break;
        default:
            if (ch == ',' && bopen) {
                put_mark(L, w, SH_K_BRACE_COMMA);
            } else if (ch == '}' && bopen) {
                put_mark(L, w, SH_K_BRACE_CLOSE);
                bopen--;
            } else {
                if (ch == SH_MARK)
                    w->flags |= SH_W_CTRL;
                put(L, w, ch);
            }
            L->p++;
        }
    }
    word_end(L, w);
    return 0;
}

/* A word whose markers become plain text: no brace expansion, no field
 * splitting (redirection targets, here-doc delimiters, patterns, tests). */
static int read_word(lx *L, sh_word *w)
{
    if (read_word_marked(L, w) < 0)
        return -1;
    if (w->flags & (SH_W_BRACE | SH_W_SPLIT))
        sh_word_literal(L->cx->ar.text, w);
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
        if (hd->pipe_next && L->c->serial == hd->serial + 1 && L->c->piped_in &&
            (hd->quoted || (!memchr(L->s + body, '$', end - body) && !memchr(L->s + body, '`', end - body) &&
                            !memchr(L->s + body, '\\', end - body)))) {
            L->c->pipe_text = L->s + body;      /* literal: what the next stage reads */
            L->c->pipe_text_len = (int)(end - body);
        }
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
    int procsub = p + 1 < L->n && (s[p] == '<' || s[p] == '>') && s[p + 1] == '(';
    if (p >= L->n || (is_meta(s[p]) && !procsub))
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
        hd->pipe_next = 0;
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
static inline void cmd_reset(lx *L, int piped_in)
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
    L->lead = 0;
    L->nassign = 0;
    L->function_kw = 0;
    L->coproc_at = -1;
}

/* Literal text an `echo` or `printf` stage writes into a pipe: written at
 * the list's text base (the stage's own words are done with), the next
 * command's text starts after it. Its length, or -1. */
static int echo_text(lx *L)
{
    sh_cmd *c = L->c;
    sh_arena *a = &L->cx->ar;
    int i = L->lead > 0 ? L->lead : 0;
    if (c->nw <= i || c->nr > 0)
        return -1;
    const char *prog = sh_wtext(c, i);
    if (!sh_streq(prog, "echo") && !sh_streq(prog, "printf"))
        return -1;
    /* printf repeats its format: bound the text by the command's own size */
    size_t cap = 2 * sh_words_len(c, i, c->nw) + 256;
    if ((size_t)a->ttop + cap + 2 > a->tcap)
        cap = a->tcap > a->ttop + 2 ? a->tcap - a->ttop - 2 : 0;
    char *out = a->text + a->ttop;
    long k = sh_printed_text(c, i, c->nw, out, cap);
    if (k < 0 || k > INT32_MAX || memchr(out, '\0', (size_t)k))
        return -1;
    memmove(a->text + L->tbase, out, (size_t)k);
    a->text[L->tbase + k] = '\0';
    L->tcmd = L->tbase + (uint32_t)k + 1;
    return (int)k;
}

static void end_cmd(lx *L, int sep)
{
    sh_cmd *c = L->c;
    sh_ctx *cx = L->cx;
    c->piped_out = sep == SEP_PIPE;
    c->background = sep == SEP_BG || L->coproc_at >= 0;
    if (L->closed_group >= 0 && (c->piped_out || c->background))
        for (uint32_t e = (uint32_t)L->closed_group; e < cx->ar.nedge; e++)
            cx->ar.edge[e].forked = 1;  /* { ...; } & and { ...; } | x run apart */
    L->closed_group = -1;
    SH_STEP(cx, 1 + c->nw + c->nr);
    if (c->nw > 0 || c->nr > 0 || c->overflow) {
        if (++cx->ncmd > SH_MAX_COMMANDS)
            sh_overflow(cx, "the command has more simple commands than the model checks");
        else
            sh_analyze_command(cx, c, L->via);
    } else if (c->background) {
        sh_loop_command(cx, c, L->via);     /* `( ... ) &` inside a loop */
    }
    L->tcmd = L->tbase;
    int plen = sep == SEP_PIPE ? echo_text(L) : -1;
    if (sep == SEP_PIPE && plen < 0 && cx->nheredoc > 0 && L->lead >= 0 && c->nw == L->lead + 1 &&
        c->nr == 1 && c->r[0].op == SH_R_HEREDOC && c->r[0].fd <= 0 && sh_weq(c, L->lead, "cat")) {
        sh_heredoc *hd = &cx->heredoc[cx->nheredoc - 1];
        if (hd->serial == c->serial)
            hd->pipe_next = 1;          /* cat <<EOF | sh: the body, once read */
    }
    cmd_reset(L, sep == SEP_PIPE);
    c->pipe_text = plen >= 0 ? cx->ar.text + L->tbase : NULL;
    c->pipe_text_len = plen;
}

int sh_is_function(const sh_ctx *cx, const char *name)
{
    return sh_sym_find(cx, SH_SYM_FUNC, name, strlen(name)) != NULL;
}

static void define_function(lx *L, const char *name)
{
    sh_sym *f = sh_sym_add(L->cx, SH_SYM_FUNC, name, strlen(name));
    if (f) {
        f->state = 1;                   /* defined (a name only called so far has 0) */
        L->pending_body = (int)(f - L->cx->ar.sym);
    }
}

/* { opens a group; a function's body when one was just named. */
static int group_open(lx *L)
{
    sh_ctx *cx = L->cx;
    if (L->ngroup >= SH_MAX_LEX_DEPTH)
        return -1;
    int body = L->pending_body;
    L->pending_body = -1;
    lx_group *g = &L->group[L->ngroup++];
    g->prev_func = cx->cur_func;
    g->prev_level = cx->body_fork_level;
    g->edge_start = cx->ar.nedge;
    g->forked = 0;
    g->body = body >= 0;
    if (body >= 0) {
        cx->cur_func = body;
        cx->body_fork_level = cx->fork_level;
    } else if (L->c->piped_in) {
        g->forked = 1;                  /* ... | { ...; } runs in a subshell */
        cx->fork_level++;
    }
    return 0;
}

static void group_close(lx *L)
{
    sh_ctx *cx = L->cx;
    if (L->ngroup == 0)
        return;
    lx_group *g = &L->group[--L->ngroup];
    cx->cur_func = g->prev_func;
    cx->body_fork_level = g->prev_level;
    if (g->forked)
        cx->fork_level--;
    L->closed_group = g->body ? -1 : (int)g->edge_start;
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
    (void)p0;                           /* blanks are consumed: counted by the caller's progress */
}

/* arr=( a b c ): the elements are words; their substitutions are parsed,
 * the words themselves are dropped. L->p just after '('. */
static int read_array(lx *L, const char *name, size_t nlen, int append)
{
    sh_arena *a = &L->cx->ar;
    uint32_t save = a->ttop;
    int literal = 1;
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
        if (w.flags & (SH_W_GLOB | SH_W_BRACE | SH_W_CTRL | SH_W_TRUNC))
            literal = 0;
    }
    /* the elements are consecutive NUL-terminated texts: one value with
     * SH_MARK SH_K_SPLIT between elements */
    uint32_t end = a->ttop, k = 0;
    uint32_t mark;
    char *buf = sh_scratch(L->cx, 2 * (size_t)(end - save) + 1, &mark);
    if (buf) {
        for (uint32_t i = save; i + 1 < end; i++) {
            if (a->text[i] == '\0') {          /* between two elements */
                buf[k++] = SH_MARK;
                buf[k++] = SH_K_SPLIT;
            } else {
                buf[k++] = a->text[i];
            }
        }
        if (literal)
            sh_var_assign(L->cx, name, nlen, buf, k, append);
        else
            sh_var_unknown(L->cx, name, nlen);
        sh_scratch_release(L->cx, mark);
    }
    a->ttop = save;
    return 0;
}

/* Is w the unquoted word lit? */
static int word_is(const lx *L, const sh_word *w, const char *lit)
{
    return !(w->flags & SH_W_QUOTED) && sh_streq(L->cx->ar.text + w->off, lit);
}

/* The reserved words the lexer acts on, told apart in one look. */
enum {
    RW_NONE, RW_LEAD,       /* ! do elif else then time: a command follows */
    RW_IF,                  /* if while until: the same, and may start a function body */
    RW_COPROC, RW_OPEN, RW_CLOSE, RW_COND, RW_CASE, RW_ESAC,
};

static inline int reserved(const lx *L, const sh_word *w)
{
    const char *t = L->cx->ar.text + w->off;
    if (w->flags & (SH_W_QUOTED | SH_W_BRACE | SH_W_SPLIT)) {
        if ((w->flags & (SH_W_BRACE | SH_W_QUOTED)) == SH_W_BRACE && w->len == 2 &&
            t[0] == SH_MARK && t[1] == SH_K_BRACE_OPEN)
            return RW_OPEN;             /* a lone { (still marked for brace expansion) */
        return RW_NONE;
    }
    if (w->len == 0 || w->len > 6)
        return RW_NONE;
    switch (t[0]) {
    case '!': return w->len == 1 ? RW_LEAD : RW_NONE;
    case '{': return w->len == 1 ? RW_OPEN : RW_NONE;
    case '}': return w->len == 1 ? RW_CLOSE : RW_NONE;
    case '[': return w->len == 2 && t[1] == '[' ? RW_COND : RW_NONE;
    case 'c':
        return sh_streq(t, "case") ? RW_CASE : sh_streq(t, "coproc") ? RW_COPROC : RW_NONE;
    case 'd': return sh_streq(t, "do") ? RW_LEAD : RW_NONE;
    case 'e':
        return sh_streq(t, "else") || sh_streq(t, "elif") ? RW_LEAD
             : sh_streq(t, "esac") ? RW_ESAC : RW_NONE;
    case 'i': return sh_streq(t, "if") ? RW_IF : RW_NONE;
    case 't': return sh_streq(t, "then") || sh_streq(t, "time") ? RW_LEAD : RW_NONE;
    case 'u': return sh_streq(t, "until") ? RW_IF : RW_NONE;
    case 'w': return sh_streq(t, "while") ? RW_IF : RW_NONE;
    default: return RW_NONE;
    }
}

static void skip_space(lx *L)
{
    size_t p0 = L->p;
    while (L->p < L->n) {
        char ch = L->s[L->p];
        if (ch == ' ' || ch == '\t' || ch == '\n')
            L->p++;
        else if (ch == '\\' && L->p + 1 < L->n && L->s[L->p + 1] == '\n')
            L->p += 2;
        else if (ch == '#') {
            const char *nl = memchr(L->s + L->p, '\n', L->n - L->p);
            L->p = nl ? (size_t)(nl - L->s) : L->n;
        } else
            break;
    }
    SH_STEP(L->cx, L->p - p0);
}

/* [[ ... ]]: L->p just after "[[". The words are tested, not run: their
 * substitutions are parsed, the words dropped; && || ! ( ) < > are
 * operators, and the word after =~ is a regular expression that may hold
 * ( ) |. */
static int read_cond(lx *L)
{
    sh_arena *a = &L->cx->ar;
    uint32_t save_t = a->ttop;
    int regex = 0;
    for (;;) {
        skip_space(L);
        if (L->p >= L->n)
            return -1;
        const char *s = L->s;
        char ch = s[L->p], nx = L->p + 1 < L->n ? s[L->p + 1] : '\0';
        SH_STEP(L->cx, 1);
        if (ch == ']' && nx == ']' && (L->p + 2 >= L->n || is_meta(s[L->p + 2]))) {
            L->p += 2;
            break;
        }
        if ((ch == '&' && nx == '&') || (ch == '|' && nx == '|')) {
            L->p += 2;
            continue;
        }
        if (ch == '(' || ch == ')' || ch == '<' || ch == '>') {
            L->p++;
            continue;
        }
        if (ch == '&' || ch == '|' || ch == ';')
            return -1;
        sh_word w;
        if (regex) {
            int depth = 0;
            word_begin(L, &w);
            while (L->p < L->n) {
                ch = s[L->p];
                if ((ch == ' ' || ch == '\t' || ch == '\n') && depth == 0)
                    break;
                int rc = 0;
                if (ch == '(') {
                    depth++;
                    L->p++;
                } else if (ch == ')') {
                    if (depth == 0)
                        break;
                    depth--;
                    L->p++;
                } else if (ch == '\\') {
                    L->p += 2;
                } else if (ch == '\'') {
                    const char *e = memchr(s + L->p + 1, '\'', L->n - L->p - 1);
                    if (!e)
                        return -1;
                    L->p = (size_t)(e - s) + 1;
                } else if (ch == '"') {
                    L->p++;
                    rc = read_dq(L, &w, 0);
                } else if (ch == '$') {
                    rc = read_dollar(L, &w, 0);
                } else if (ch == '`') {
                    L->p++;
                    rc = read_backtick(L, &w);
                } else {
                    L->p++;
                }
                SH_STEP(L->cx, 1);
                if (rc < 0)
                    return -1;
            }
            regex = 0;
        } else {
            if (read_word(L, &w) < 0)
                return -1;
            regex = word_is(L, &w, "=~");
            sh_arith_text(L->cx, a->text + w.off, w.len);
        }
        a->ttop = save_t;
    }
    a->ttop = save_t;
    return 0;
}

/* After `in`, `;;`, `;&` or `;;&`: the next arm's patterns up to ')', or
 * `esac`. 1 when the case closed, 0 when an arm begins, -1 on error. */
static int read_case_patterns(lx *L)
{
    sh_arena *a = &L->cx->ar;
    uint32_t save_t = a->ttop;
    skip_space(L);
    if (L->p >= L->n)
        return -1;
    if (L->s[L->p] == '(')
        L->p++;
    for (int first = 1;; first = 0) {
        skip_blanks(L);
        if (L->p >= L->n || is_meta(L->s[L->p]))
            return -1;
        sh_word w;
        if (read_word(L, &w) < 0)
            return -1;
        int esac = first && word_is(L, &w, "esac");
        a->ttop = save_t;
        if (esac) {
            L->case_depth--;
            return 1;
        }
        skip_blanks(L);
        if (L->p < L->n && L->s[L->p] == '|') {
            L->p++;
            continue;
        }
        if (L->p < L->n && L->s[L->p] == ')') {
            L->p++;
            return 0;
        }
        return -1;
    }
}

/* case WORD in ...: L->p just after `case`. */
static int read_case(lx *L)
{
    sh_arena *a = &L->cx->ar;
    uint32_t save_t = a->ttop;
    if (L->case_depth >= SH_MAX_LEX_DEPTH)
        return -1;
    skip_blanks(L);
    if (L->p >= L->n || is_meta(L->s[L->p]))
        return -1;
    sh_word w;
    if (read_word(L, &w) < 0)           /* the subject: its substitutions run */
        return -1;
    skip_space(L);
    if (L->p >= L->n || is_meta(L->s[L->p]) || read_word(L, &w) < 0 || !word_is(L, &w, "in"))
        return -1;
    a->ttop = save_t;
    L->case_depth++;
    return read_case_patterns(L) < 0 ? -1 : 0;
}

/* NAME= or NAME+= at the start of the word's source? */
static int looks_assignment(const lx *L, const sh_word *w)
{
    const char *r = L->s + w->raw_off;
    size_t n = w->raw_len, k = 0;
    if (n == 0 || !is_name_start(r[0]))
        return 0;
    while (k < n && is_name_char(r[k]))
        k++;
    return k < n && (r[k] == '=' || (r[k] == '+' && k + 1 < n && r[k + 1] == '='));
}

/* Appends one finished word to the command (sh_emit_fn). */
static int append_word_rw(lx *L, const sh_word *wp, int rw);

/* Appends one finished word to the command (sh_emit_fn). */
static int append_word(void *ctx, const sh_word *wp)
{
    lx *L = ctx;
    return append_word_rw(L, wp, L->c->nw == L->lead ? reserved(L, wp) : RW_NONE);
}

/* The same with the word's reserved-word kind already known (RW_NONE when
 * it is not in command position). */
static int append_word_rw(lx *L, const sh_word *wp, int rw)
{
    sh_cmd *c = L->c;
    sh_arena *a = &L->cx->ar;
    if (c->nw >= SH_MAX_WORDS || a->wtop >= a->wcap) {
        /* the word is dropped: the decision fails closed on the whole text */
        c->overflow = 1;
        sh_overflow(L->cx, c->nw >= SH_MAX_WORDS ? "a command has more words than the model checks"
                                                 : "the words do not fit in the model's scratch space");
        return 0;
    }
    c->w[c->nw++] = *wp;
    a->wtop++;
    if (c->nw - 1 == L->lead + L->nassign && is_name_start(L->s[wp->raw_off]) && looks_assignment(L, wp))
        L->nassign++;
    if (rw == RW_NONE && L->pending_body < 0 && L->coproc_at < 0)
        return 0;                       /* the common case: an argument */
    if (rw == RW_CLOSE)
        group_close(L);
    if (rw == RW_OPEN) {
        if (group_open(L) < 0)
            return -1;
    } else {
        L->pending_body = -1;
    }
    if (rw == RW_LEAD || rw == RW_IF || rw == RW_COPROC || rw == RW_OPEN) {
        L->lead++;
        if (rw == RW_COPROC)
            L->coproc_at = c->nw - 1;
    } else if (L->coproc_at >= 0 && c->nw == L->coproc_at + 3 && word_is(L, wp, "{")) {
        c->w[c->nw - 2] = *wp;          /* coproc NAME { ...; }: NAME is a name, not a program */
        c->nw--;
        a->wtop--;
        L->lead = c->nw;
        L->pending_body = -1;
        if (group_open(L) < 0)
            return -1;
        L->group[L->ngroup - 1].forked = 1;   /* the coprocess runs apart */
        L->cx->fork_level++;
    }
    return 0;
}

static int add_word_slow(lx *L, sh_word *wp);

static inline __attribute__((always_inline)) int add_word(lx *L)
{
    sh_cmd *c = L->c;
    sh_arena *a = &L->cx->ar;
    if (c->nw >= SH_MAX_WORDS || a->wtop >= a->wcap) {
        sh_word w;                      /* no slot: append_word_rw fails closed */
        if (read_word_marked(L, &w) < 0)
            return -1;
        return add_word_slow(L, &w);
    }
    /* read straight into the command's next slot, reserved so that a
     * substitution inside the word parses above it */
    sh_word *w = &c->w[c->nw];
    const char *s = L->s;
    size_t p = L->p, q = p;
    while (q < L->n && byte_class[(unsigned char)s[q]] == 0)
        q++;
    size_t k = q - p;
    if (k > 0 && (q == L->n || byte_class[(unsigned char)s[q]] == 1) && room(L, k)) {
        /* a plain word (most are): copied in one go, no quote or expansion */
        w->off = a->ttop;
        w->len = (uint32_t)k;
        w->flags = 0;
        w->raw_off = (uint32_t)p;
        w->raw_len = (uint32_t)k;
        memcpy(a->text + a->ttop, s + p, k);
        a->ttop += (uint32_t)k;
        a->text[a->ttop++] = '\0';
        L->p = q;
        SH_STEP(L->cx, k);
    } else {
        a->wtop++;
        int rc = read_word_marked(L, w);
        a->wtop--;
        if (rc < 0)
            return -1;
    }
    if (!(w->flags & (SH_W_BRACE | SH_W_SPLIT)) && L->pending_body < 0 && L->coproc_at < 0 &&
        L->lead >= 0 && !L->function_kw && !(L->p < L->n && L->s[L->p] == '(')) {
        int program = c->nw == L->lead;
        if (!program || reserved(L, w) == RW_NONE) {
            /* the common cases: an argument, or a program word that is no
             * reserved word */
            if (c->nw == L->lead + L->nassign && is_name_start(L->s[w->raw_off]) &&
                memchr(L->s + w->raw_off, '=', w->raw_len) && looks_assignment(L, w))
                L->nassign++;
            c->nw++;
            a->wtop++;
            if (c->nw == L->lead + 1 && sh_wtext(c, L->lead)[0] == 'f')
                L->function_kw = word_is(L, w, "function");
            return 0;
        }
    }
    sh_word copy = *w;
    return add_word_slow(L, &copy);
}

static int add_word_slow(lx *L, sh_word *wp)
{
    sh_cmd *c = L->c;
    sh_arena *a = &L->cx->ar;
    sh_word w = *wp;
    int cmdpos = c->nw == L->lead;
    int marked = (w.flags & (SH_W_BRACE | SH_W_SPLIT)) != 0;
    int rw = cmdpos ? reserved(L, &w) : RW_NONE;
    if (L->pending_body >= 0 && cmdpos) {
        /* name() must be followed by a compound command: f(){f|f&} is a
         * syntax error bash refuses (the text fails closed) */
        if (rw != RW_OPEN && rw != RW_IF && rw != RW_COND && rw != RW_CASE &&
            !word_is(L, &w, "for") && !word_is(L, &w, "select"))
            return -1;
        if (rw != RW_OPEN)
            L->pending_body = -1;       /* f() if ..., f() [[ .. ]]: the body is not followed */
    }
    /* compound syntax whose words are not a simple command */
    if (rw == RW_COND) {
        a->ttop = w.off;
        L->lead = -1;                   /* [[ ... ]] ends the command position */
        return read_cond(L);
    }
    if (rw == RW_CASE) {
        a->ttop = w.off;
        end_cmd(L, SEP_SEQ);            /* `! case`, `if case`: the words before are done */
        return read_case(L);
    }
    if (rw == RW_ESAC && L->case_depth > 0) {
        a->ttop = w.off;
        end_cmd(L, SEP_SEQ);
        L->case_depth--;
        L->lead = -1;
        return 0;
    }
    int nw0 = c->nw;
    if (!marked) {
        if (append_word_rw(L, &w, rw) < 0)
            return -1;
    } else if (c->nw == L->lead + L->nassign && looks_assignment(L, &w)) {
        sh_word_literal(a->text, &w);   /* X={a,b} X=$IFS: no expansion in an assignment */
        if (append_word(L, &w) < 0)
            return -1;
    } else if (sh_word_expand(L->cx, &w, append_word, L) < 0) {
        return -1;
    }
    if (c->nw != nw0 + 1)
        return 0;                       /* expanded: not one of the forms below */
    /* name=( ... ) array assignment */
    if (L->p < L->n && L->s[L->p] == '(' && w.len > 1 && !(w.flags & SH_W_QUOTED) &&
        sh_wtext(c, c->nw - 1)[w.len - 1] == '=') {
        const char *t = sh_wtext(c, c->nw - 1);
        int append = w.len > 2 && t[w.len - 2] == '+';
        L->p++;
        return read_array(L, t, w.len - 1 - (size_t)append, append);
    }
    if (c->nw == L->lead + 1 && L->lead >= 0 && sh_wtext(c, L->lead)[0] == 'f')
        L->function_kw = word_is(L, &c->w[L->lead], "function");
    /* `function NAME` */
    if (L->function_kw && c->nw == L->lead + 2) {
        L->function_kw = 0;
        define_function(L, sh_wtext(c, c->nw - 1));
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

/* '(' in a list: a subshell, ((arithmetic)), for ((...)), name() or
 * coproc NAME ( ... ). 0, or -1 when it cannot be read. */
static int open_paren(lx *L, int piped_in)
{
    sh_cmd *c = L->c;
    const char *s = L->s;
    size_t n = L->n;
    char nx = L->p + 1 < n ? s[L->p + 1] : '\0';
    if (c->nw != L->lead) {
        if (c->nw == 0)
            return -1;                  /* `[[ x ]] (`, `((1)) (` */
        const sh_word *last = &c->w[c->nw - 1];
        if (nx == '(' && (word_is(L, last, "for") || word_is(L, last, "select"))) {
            size_t end = arith_end(L, L->p + 2, 2, 0);   /* for (( init; test; step )) */
            if (!end)
                return -1;
            return arith_subs(L, L->p + 2, end - 2) < 0 ? -1 : (L->p = end, 0);
        }
        if (L->coproc_at >= 0 && c->nw == L->coproc_at + 2) {
            c->nw--;                    /* coproc NAME ( ... ) */
            L->cx->ar.wtop--;
        } else if (L->lead >= 0 && c->nw == L->lead + 1 && !(last->flags & SH_W_QUOTED)) {
            size_t q = L->p + 1;
            while (q < n && (s[q] == ' ' || s[q] == '\t'))
                q++;
            if (q >= n || s[q] != ')')
                return -1;
            define_function(L, sh_wtext(c, c->nw - 1));    /* name() */
            L->p = q + 1;
            cmd_reset(L, 0);
            return 0;
        } else {
            return -1;
        }
    }
    if (nx == '(') {
        size_t end = arith_end(L, L->p + 2, 2, 1);
        if (end) {                      /* (( arithmetic )) */
            L->lead = -1;
            return arith_subs(L, L->p + 2, end - 2) < 0 ? -1 : (L->p = end, 0);
        }
    }
    size_t q = L->p + 1;
    sh_ctx *cx = L->cx;
    int body = L->pending_body, prev_func = cx->cur_func, prev_level = cx->body_fork_level;
    L->pending_body = -1;
    if (body >= 0) {                    /* f() ( ... ): the body runs in a subshell */
        cx->cur_func = body;
        cx->body_fork_level = cx->fork_level;
    }
    cx->fork_level++;
    int rc = parse_list(cx, s, n, &q, ')', piped_in, L->via);
    cx->fork_level--;
    cx->cur_func = prev_func;
    cx->body_fork_level = prev_level;
    if (rc < 0)
        return -1;
    L->p = q;
    L->lead = -1;
    L->closed_group = (int)cx->ar.nedge;  /* ( ... ) & : nothing left to mark, edges inside forked */
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
    L.lead = 0;
    L.nassign = 0;
    L.function_kw = 0;
    L.coproc_at = -1;
    L.pending_body = -1;
    L.closed_group = -1;
    L.ngroup = 0;
    L.case_depth = 0;
    cmd.src = s;
    cmd.src_len = n;
    cmd.text = ar->text;
    cmd.w = ar->w + save_w;
    cmd.r = ar->r + save_r;
    cmd.pipe_text = NULL;
    cmd.pipe_text_len = -1;
    cmd_reset(&L, piped_in);
    int rc = 0;
    for (;;) {
        while (L.p < n && s[L.p] == ' ')
            L.p++;                      /* the usual one blank between words */
        if (L.p < n && (s[L.p] == '\t' || s[L.p] == '\\'))
            skip_blanks(&L);
        if (L.p >= n) {
            if (term || L.case_depth > 0)
                rc = -1;
            else
                end_cmd(&L, SEP_END);
            break;
        }
        char ch = s[L.p];
        if (byte_class[(unsigned char)ch] != 1 && ch != '#' && !(ch >= '0' && ch <= '9')) {
            /* a word (most tokens): none of the operators below starts so */
            if (add_word(&L) < 0) {
                rc = -1;
                goto out;
            }
            continue;
        }
        char nx = L.p + 1 < n ? s[L.p + 1] : '\0';
        if (ch == ')' && term == ')') {
            L.p++;
            if (L.case_depth > 0)
                rc = -1;                /* $( case ... ) without esac */
            else
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
                if (L.case_depth == 0) {
                    rc = -1;            /* ;; outside case */
                    goto out;
                }
                L.p += 2;               /* ;; ;& ;;& end an arm */
                if (nx == ';' && L.p < n && s[L.p] == '&')
                    L.p++;
                end_cmd(&L, SEP_SEQ);
                if (read_case_patterns(&L) < 0) {
                    rc = -1;
                    goto out;
                }
                continue;
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
            if (open_paren(&L, cmd.piped_in) < 0) {
                rc = -1;
                goto out;
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
    while (L.ngroup > 0)
        group_close(&L);                /* unbalanced { in this list */
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

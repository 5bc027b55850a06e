/* loops.c - loops that fork without end (the fork-bomb class without a
 * function): `while :; do bash & done`, `for ((;;)); do sh -c x & done`,
 * `until false; do sleep 9 & done`. The loop words reach the rules as the
 * leading reserved words of a command (while/until/for ... do ... done);
 * this keeps a stack of open loops across the commands of one decision and
 * says whether each surely never ends, may never end, or ends.
 *
 * critical.fork_bomb when a command inside a loop is backgrounded (&) and
 * the loop surely never ends (any program: each pass leaves one more
 * process), or when the loop may never end (a condition the model cannot
 * read) and what is backgrounded is a shell, an interpreter or the script
 * itself ($0, $BASH, $SHELL). A loop over words, `while read`, or a test of
 * a counter ends: backgrounding in it is ordinary parallel work.
 *
 * State lives in sh_ctx (loop_depth, loop_bits); not thread-safe beyond it. */
#include "core/shell/internal.h"

#include <string.h>

enum { LOOP_ENDS = 0, LOOP_MAY = 1, LOOP_FOREVER = 2 };

static int blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n';
}

/* A nonzero integer literal (1, 42) or nothing: an arithmetic condition
 * that is always true. t[0,n) is trimmed first. */
static int arith_true(const char *t, size_t n, int empty_is_true)
{
    while (n && blank(*t))
        t++, n--;
    while (n && blank(t[n - 1]))
        n--;
    if (n == 0)
        return empty_is_true;
    int nonzero = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return -1;
        nonzero |= t[i] != '0';
    }
    return nonzero;
}

/* The raw (( ... )) right after word k, or -1: *a and *len its inside. */
static int raw_arith(const sh_cmd *c, int k, const char **a, size_t *len)
{
    size_t p = c->w[k].raw_off + c->w[k].raw_len;
    while (p < c->src_len && blank(c->src[p]))
        p++;
    if (p + 2 > c->src_len || c->src[p] != '(' || c->src[p + 1] != '(')
        return -1;
    p += 2;
    size_t q = p;
    int depth = 0;
    for (; q + 1 < c->src_len; q++) {
        char ch = c->src[q];
        if (ch == '(')
            depth++;
        else if (ch == ')' && depth > 0)
            depth--;
        else if (ch == ')' && c->src[q + 1] == ')')
            break;
    }
    if (q + 1 >= c->src_len)
        return -1;
    *a = c->src + p;
    *len = q - p;
    return 0;
}

static int W_is_last(const sh_cmd *c, int j)
{
    return j + 1 == c->nw;
}

/* while/until at word k: how the condition words after it end. */
static int cond_kind(const sh_cmd *c, int k, int until)
{
    int neg = until, j = k + 1;
    while (j < c->nw && sh_weq(c, j, "!")) {
        neg = !neg;
        j++;
    }
    if (j >= c->nw) {
        /* nothing visible: (( ... )) or [[ ... ]] the lexer consumed */
        const char *a;
        size_t n;
        if (raw_arith(c, j - 1, &a, &n) == 0) {
            int t = arith_true(a, n, 0);
            if (t < 0)
                return LOOP_MAY;
            return (t != 0) != neg ? LOOP_FOREVER : LOOP_ENDS;
        }
        return LOOP_MAY;
    }
    const char *w = sh_wtext(c, j);
    if (c->w[j].flags & SH_W_OPAQUE)
        return LOOP_MAY;
    const char *base = strrchr(w, '/');
    base = base ? base + 1 : w;
    int truth = -1;
    if (strcmp(base, ":") == 0 || strcmp(base, "true") == 0)
        truth = 1;
    else if (strcmp(base, "false") == 0)
        truth = 0;
    else if (strcmp(w, "[") == 0 && j + 2 < c->nw && sh_weq(c, j + 2, "]") && c->w[j + 1].len > 0 &&
             sh_word_is_literal(c, j + 1))
        truth = 1;                      /* [ 1 ], [ x ]: a non-empty string */
    else if (strcmp(w, "test") == 0 && j + 1 < c->nw && c->w[j + 1].len > 0 && sh_word_is_literal(c, j + 1) &&
             W_is_last(c, j + 1))
        truth = 1;
    if (truth < 0)
        return LOOP_ENDS;               /* a real condition: read, a counter test, a command */
    return (truth != 0) != neg ? LOOP_FOREVER : LOOP_ENDS;
}

/* for at word k: `for (( init; test; step ))` with an empty or constant
 * test never ends; `for NAME in ...` ends. */
static int for_kind(const sh_cmd *c, int k)
{
    if (k + 1 < c->nw)
        return LOOP_ENDS;
    const char *a;
    size_t n;
    if (raw_arith(c, k, &a, &n) < 0)
        return LOOP_ENDS;
    const char *s1 = memchr(a, ';', n);
    if (!s1)
        return LOOP_MAY;
    size_t rest = n - (size_t)(s1 + 1 - a);
    const char *s2 = memchr(s1 + 1, ';', rest);
    if (!s2)
        return LOOP_MAY;
    int t = arith_true(s1 + 1, (size_t)(s2 - s1 - 1), 1);
    return t < 0 ? LOOP_ENDS : t ? LOOP_FOREVER : LOOP_ENDS;
}

static void push(sh_ctx *cx, int kind)
{
    if (cx->loop_depth < 32) {
        cx->loop_bits[0] &= ~(1u << cx->loop_depth);
        cx->loop_bits[1] &= ~(1u << cx->loop_depth);
        if (kind == LOOP_FOREVER)
            cx->loop_bits[0] |= 1u << cx->loop_depth;
        if (kind == LOOP_MAY)
            cx->loop_bits[1] |= 1u << cx->loop_depth;
    }
    cx->loop_depth++;
}

/* The worst kind of the open loops. */
static int worst(const sh_ctx *cx)
{
    int d = cx->loop_depth < 32 ? cx->loop_depth : 32;
    uint32_t mask = d == 32 ? 0xffffffffu : (1u << d) - 1;
    if (cx->loop_bits[0] & mask)
        return LOOP_FOREVER;
    if ((cx->loop_bits[1] & mask) || cx->loop_depth > 32)
        return LOOP_MAY;
    return LOOP_ENDS;
}

/* A program that starts the same kind of process again: a shell, an
 * interpreter, the script itself. */
static int respawns(const sh_cmd *c, int j)
{
    const char *t = sh_wtext(c, j);
    size_t n = c->w[j].len;
    if (n >= 2 && t[0] == SH_MARK)
        return 1;                       /* $0, $BASH, $SHELL, any expansion */
    const char *base = memrchr(t, '/', n);
    base = base ? base + 1 : t;
    const sh_program *p = sh_program_lookup(base, n - (size_t)(base - t));
    return p && (p->cls == SH_P_SHELL || p->cls == SH_P_INTERP || p->cls == SH_P_WRAPPER);
}

/* What a leading word does to the loop stack. */
enum { LW_OTHER, LW_COND, LW_FOR, LW_DONE, LW_LEAD };

/* The word's loop role, NUL-terminated comparison as bash's words are
 * (a word may hold a NUL from $'\0'). One look at the first byte rejects
 * most program names: this runs on every simple command. */
static int loop_word(const char *w)
{
    switch (w[0]) {
    case '!': return w[1] == '\0' ? LW_LEAD : LW_OTHER;
    case '{': return w[1] == '\0' ? LW_LEAD : LW_OTHER;
    case 'w': return sh_streq(w, "while") ? LW_COND : LW_OTHER;
    case 'u': return sh_streq(w, "until") ? LW_COND : LW_OTHER;
    case 'f': return sh_streq(w, "for") ? LW_FOR : LW_OTHER;
    case 's': return sh_streq(w, "select") ? LW_FOR : LW_OTHER;
    case 'd':
        return sh_streq(w, "done") ? LW_DONE : sh_streq(w, "do") ? LW_LEAD : LW_OTHER;
    case 't': return sh_streq(w, "then") || sh_streq(w, "time") ? LW_LEAD : LW_OTHER;
    case 'e': return sh_streq(w, "else") ? LW_LEAD : LW_OTHER;
    default: return LW_OTHER;
    }
}

void sh_loop_command(sh_ctx *cx, const sh_cmd *c, const char *via)
{
    int k = 0;
    for (; k < c->nw && !(c->w[k].flags & SH_W_QUOTED); k++) {
        const char *w = sh_wtext(c, k);
        int role = loop_word(w);
        if (role == LW_COND) {
            push(cx, cond_kind(c, k, w[0] == 'u'));
        } else if (role == LW_FOR) {
            push(cx, w[0] == 'f' ? for_kind(c, k) : LOOP_ENDS);
            return;                     /* the header's words are data */
        } else if (role == LW_DONE) {
            if (cx->loop_depth > 0)
                cx->loop_depth--;
        } else if (role != LW_LEAD) {
            break;
        }
    }
    if (cx->loop_depth == 0 || !c->background)
        return;
    int kind = worst(cx);
    /* `done &` inside a loop: a whole loop goes to the background each pass;
     * `( ... ) &`, `do ( ... ) &` (only reserved words): a subshell or
     * group, a fork of this shell */
    if (kind == LOOP_FOREVER || (kind == LOOP_MAY && (k >= c->nw || respawns(c, k))))
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.fork_bomb", "a loop that ",
                   kind == LOOP_FOREVER ? "never ends starts a new background process on every pass"
                                        : "may never end starts a shell in the background on every pass",
                   NULL, via);
}

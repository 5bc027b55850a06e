/* words.c - what one word of the command line becomes before it runs
 * (issue #10 §2): brace expansion ({rm,-rf,~} is three words, ma{i,}n is
 * main and man, /dev/sd{a..c} three disks) and field splitting at the
 * split points the lexer marked (unquoted $IFS: rm${IFS}-rf${IFS}~ is
 * rm -rf ~). The lexer leaves markers in the normalized text
 * (internal.h, SH_K_BRACE_*, SH_K_SPLIT); nothing here reaches the
 * rules with a marker left.
 *
 * Bounds: a word expands to at most SH_MAX_BRACE_WORDS words of
 * SH_MAX_BRACE_TEXT bytes in all and looks at SH_MAX_BRACE_GROUPS braces;
 * past that it stays one word flagged SH_W_BRACE, which the rules treat
 * like a glob (it may name anything under its literal prefix). Linear in
 * the word: each level of recursion consumes a group, at most
 * SH_MAX_BRACE_GROUPS levels, each output bounded.
 */
#include "core/shell/internal.h"

#include <stdio.h>
#include <string.h>

static int is_marker(const char *t, size_t i, size_t n, char kind)
{
    return t[i] == SH_MARK && i + 1 < n && t[i + 1] == kind;
}

void sh_word_literal(char *text, sh_word *w)
{
    char *t = text + w->off;
    size_t k = 0;
    for (size_t i = 0; i < w->len; i++) {
        if (t[i] == SH_MARK && i + 1 < w->len) {
            char kind = t[i + 1];
            if (kind == SH_K_BRACE_OPEN || kind == SH_K_BRACE_COMMA || kind == SH_K_BRACE_CLOSE) {
                t[k++] = kind;
                i++;
                continue;
            }
            if (kind == SH_K_SPLIT) {
                t[k++] = ' ';
                i++;
                continue;
            }
            t[k++] = t[i++];            /* another marker: both bytes */
        }
        t[k++] = t[i];
    }
    t[k] = '\0';
    w->len = (uint32_t)k;
    w->flags &= (uint16_t)~SH_W_SPLIT;
}

/* ---- brace expansion ------------------------------------------------------ */

typedef struct {
    sh_ctx *cx;
    char out[SH_MAX_BRACE_TEXT];    /* the words made so far, each NUL-terminated */
    size_t len;
    int words;
    int fail;                       /* a bound was passed */
    int expanded;                   /* some group was expanded */
} bx;

/* The marker closing the group opened at a (index of its MARK), or 0 when
 * it has none; *commas counts the commas at its level. */
static size_t group_close(const char *t, size_t n, size_t a, int *commas)
{
    int depth = 0;
    *commas = 0;
    for (size_t i = a + 2; i + 1 < n; i++) {
        if (t[i] != SH_MARK)
            continue;
        char k = t[i + 1];
        if (k == SH_K_BRACE_OPEN)
            depth++;
        else if (k == SH_K_BRACE_CLOSE && depth-- == 0)
            return i;
        else if (k == SH_K_BRACE_COMMA && depth == 0)
            (*commas)++;
        i++;
    }
    return 0;
}

/* {A..B} or {A..B..STEP} with integers or single letters. Returns the
 * number of items (0 when it is not a sequence); item i is written by
 * seq_item. */
typedef struct {
    long from, to, step;
    int letters, width;
} seq;

static int parse_long(const char *s, size_t n, long *v, int *width)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == n || n - i > 9)
        return -1;
    *width = s[i] == '0' && n - i > 1 ? (int)n : 0;
    long x = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = neg ? -x : x;
    return 0;
}

static long seq_parse(const char *t, size_t n, seq *q)
{
    const char *d1 = memmem(t, n, "..", 2);
    if (!d1 || memchr(t, SH_MARK, n))
        return 0;
    const char *b = d1 + 2;
    const char *d2 = memmem(b, n - (size_t)(b - t), "..", 2);
    size_t la = (size_t)(d1 - t), lb = d2 ? (size_t)(d2 - b) : n - (size_t)(b - t);
    int w1 = 0, w2 = 0, ws = 0;
    q->step = 1;
    if (d2 && parse_long(d2 + 2, n - (size_t)(d2 + 2 - t), &q->step, &ws) < 0)
        return 0;
    if (q->step == 0)
        q->step = 1;
    if (q->step < 0)
        q->step = -q->step;
    q->letters = la == 1 && lb == 1 && !(t[0] >= '0' && t[0] <= '9') && !(b[0] >= '0' && b[0] <= '9');
    if (q->letters) {
        q->from = (unsigned char)t[0];
        q->to = (unsigned char)b[0];
        q->width = 0;
    } else if (parse_long(t, la, &q->from, &w1) < 0 || parse_long(b, lb, &q->to, &w2) < 0) {
        return 0;
    } else {
        q->width = w1 > w2 ? w1 : w2;
    }
    long span = q->from <= q->to ? q->to - q->from : q->from - q->to;
    return span / q->step + 1;
}

static size_t seq_item(const seq *q, long i, char *buf, size_t cap)
{
    long v = q->from <= q->to ? q->from + i * q->step : q->from - i * q->step;
    if (q->letters) {
        buf[0] = (char)v;
        return 1;
    }
    int k = snprintf(buf, cap, "%0*ld", q->width, v);
    return k > 0 ? (size_t)k : 0;
}

/* One finished word: the remaining brace markers are literal; a leading ~
 * (brace expansion comes before tilde expansion) is the home directory. */
static void emit_word(bx *o, const char *t, size_t n)
{
    if (o->fail)
        return;
    if (o->words >= SH_MAX_BRACE_WORDS || o->len + n + 3 > sizeof o->out) {
        o->fail = 1;
        return;
    }
    char *d = o->out + o->len;
    size_t k = 0, i = 0;
    if (n > 0 && t[0] == '~' && (n == 1 || t[1] == '/')) {
        d[k++] = SH_MARK;
        d[k++] = SH_K_HOME;
        i = 1;
    }
    for (; i < n; i++) {
        if (t[i] == SH_MARK && i + 1 < n &&
            (t[i + 1] == SH_K_BRACE_OPEN || t[i + 1] == SH_K_BRACE_COMMA ||
             t[i + 1] == SH_K_BRACE_CLOSE)) {
            d[k++] = t[++i];
            continue;
        }
        d[k++] = t[i];
    }
    d[k++] = '\0';
    o->len += k;
    o->words++;
}

static void expand(bx *o, const char *t, size_t n, int depth);

/* pre + mid + post into scratch, then expanded further. */
static void expand_with(bx *o, const char *pre, size_t np, const char *mid, size_t nm,
                        const char *post, size_t nq, int depth)
{
    uint32_t mark;
    char *buf = sh_scratch(o->cx, np + nm + nq + 1, &mark);
    if (!buf) {
        o->fail = 1;
        return;
    }
    memcpy(buf, pre, np);
    memcpy(buf + np, mid, nm);
    memcpy(buf + np + nm, post, nq);
    expand(o, buf, np + nm + nq, depth + 1);
    sh_scratch_release(o->cx, mark);
}

/* bash: the leftmost group with a comma at its level (or a sequence) is
 * expanded, then each result again. */
static void expand(bx *o, const char *t, size_t n, int depth)
{
    SH_STEP(o->cx, n);
    if (o->fail)
        return;
    if (depth > SH_MAX_BRACE_GROUPS) {
        o->fail = 1;
        return;
    }
    int tried = 0;
    for (size_t a = 0; a + 1 < n; a++) {
        if (t[a] != SH_MARK)
            continue;
        if (t[a + 1] != SH_K_BRACE_OPEN) {
            a++;
            continue;
        }
        if (++tried > SH_MAX_BRACE_GROUPS) {
            o->fail = 1;                /* each try scans on: bounded */
            return;
        }
        int commas;
        size_t b = group_close(t, n, a, &commas);
        if (!b)
            break;                      /* unmatched: the rest is literal */
        const char *in = t + a + 2, *post = t + b + 2;
        size_t nin = b - a - 2, npost = n - b - 2;
        if (commas) {
            o->expanded = 1;
            size_t s0 = 0;
            int d = 0;
            for (size_t i = 0; i <= nin && !o->fail; i++) {
                if (i < nin && in[i] == SH_MARK && i + 1 < nin) {
                    char k = in[i + 1];
                    if (k == SH_K_BRACE_OPEN)
                        d++;
                    else if (k == SH_K_BRACE_CLOSE)
                        d--;
                    else if (k == SH_K_BRACE_COMMA && d == 0) {
                        expand_with(o, t, a, in + s0, i - s0, post, npost, depth);
                        s0 = i + 2;
                    }
                    i++;
                    continue;
                }
                if (i == nin)
                    expand_with(o, t, a, in + s0, nin - s0, post, npost, depth);
            }
            return;
        }
        seq q;
        long count = seq_parse(in, nin, &q);
        if (count > 0) {
            if (count > SH_MAX_BRACE_WORDS) {
                o->fail = 1;
                return;
            }
            o->expanded = 1;
            for (long i = 0; i < count && !o->fail; i++) {
                char item[32];
                size_t ni = seq_item(&q, i, item, sizeof item);
                expand_with(o, t, a, item, ni, post, npost, depth);
            }
            return;
        }
        /* {x} or {}: literal, look on after it */
    }
    emit_word(o, t, n);
}

/* ---- field splitting ------------------------------------------------------- */

/* Splits the NUL-terminated text at off (length n) at SH_K_SPLIT markers,
 * emitting each non-empty field (an empty word only when it was quoted). */
static int split_emit(char *text, const sh_word *proto, uint32_t off, uint32_t n,
                      sh_emit_fn emit, void *ctx)
{
    sh_word f = *proto;
    f.flags &= (uint16_t)~(SH_W_SPLIT | SH_W_BRACE);
    if (!(proto->flags & SH_W_SPLIT) || !memchr(text + off, SH_MARK, n)) {
        f.off = off;
        f.len = n;
        if (n == 0 && !(proto->flags & SH_W_QUOTED) && (proto->flags & SH_W_SPLIT))
            return 0;
        return emit(ctx, &f);
    }
    uint32_t start = off, end = off + n;
    for (uint32_t i = off; i <= end; i++) {
        int cut = i == end || is_marker(text, i, end, SH_K_SPLIT);
        if (!cut) {
            if (text[i] == SH_MARK && i + 1 < end)
                i++;
            continue;
        }
        if (i > start) {
            text[i] = '\0';
            f.off = start;
            f.len = i - start;
            f.flags = proto->flags & (uint16_t)~(SH_W_SPLIT | SH_W_BRACE);
            if (start > off && text[start] == '~' && (f.len == 1 || text[start + 1] == '/')) {
                /* a field split off an expansion that starts with ~: bash
                 * would not expand it (./~), but it reads as the home
                 * directory and is treated as one */
                text[start - 1] = SH_MARK;
                text[start] = SH_K_HOME;
                f.off = start - 1;
                f.len++;
                f.flags |= SH_W_EXP;
            }
            int rc = emit(ctx, &f);
            if (rc < 0)
                return rc;
        }
        start = i + 2;
        i++;
    }
    return 0;
}

int sh_word_expand(sh_ctx *cx, sh_word *w, sh_emit_fn emit, void *ctx)
{
    sh_arena *a = &cx->ar;
    if (!(w->flags & SH_W_BRACE))
        return split_emit(a->text, w, w->off, w->len, emit, ctx);
    bx local;
    bx *o = &local;
    o->cx = cx;
    o->len = 0;
    o->words = 0;
    o->fail = 0;
    o->expanded = 0;
    /* the scratch above the word is free: the word is the newest text */
    expand(o, a->text + w->off, w->len, 0);
    if (o->fail || o->words == 0 || (size_t)w->off + o->len + 2 > a->tcap) {
        sh_word_literal(a->text, w);
        w->flags |= SH_W_BRACE;         /* unexpanded: a pattern for the rules */
        return emit(ctx, w);
    }
    if (!o->expanded) {
        /* nothing to expand ({}, {x}, a lone {): a literal word */
        sh_word_literal(a->text, w);
        w->flags &= (uint16_t)~SH_W_BRACE;
        return split_emit(a->text, w, w->off, w->len, emit, ctx);
    }
    memcpy(a->text + w->off, o->out, o->len);
    a->ttop = w->off + (uint32_t)o->len;
    uint32_t off = w->off;
    for (int i = 0; i < o->words; i++) {
        uint32_t n = (uint32_t)strlen(a->text + off);
        sh_word f = *w;
        f.flags &= (uint16_t)~SH_W_BRACE;
        if (n >= 2 && a->text[off] == SH_MARK && a->text[off + 1] == SH_K_HOME)
            f.flags |= SH_W_EXP;
        int rc = split_emit(a->text, &f, off, n, emit, ctx);
        if (rc < 0)
            return rc;
        off += n + 1;
    }
    return 0;
}

/* ---- what echo and printf write ------------------------------------------- */

typedef struct {
    char *out;
    size_t k, cap;
    int fail;
} pbuf;

static void pb_put(pbuf *b, char ch)
{
    if (b->k >= b->cap)
        b->fail = 1;
    else
        b->out[b->k++] = ch;
}

static int octal(char ch)
{
    return ch >= '0' && ch <= '7';
}

/* The backslash escape at s[0] = '\\' (echo -e, printf %b and formats);
 * returns the bytes consumed; *stop on \c (no more output). */
static size_t put_escape(pbuf *b, const char *s, size_t n, int *stop)
{
    static const char from[] = "abefnrtv\\\"'?", to[] = "\a\b\033\f\n\r\t\v\\\"'?";
    if (n < 2) {
        pb_put(b, '\\');
        return 1;
    }
    char e = s[1];
    const char *hit = strchr(from, e);
    if (e && hit) {
        pb_put(b, to[hit - from]);
        return 2;
    }
    if (e == 'c') {
        *stop = 1;
        return 2;
    }
    if (e == 'x') {
        unsigned v = 0;
        size_t i = 2;
        for (; i < n && i < 4; i++) {
            char h = s[i];
            int d = h >= '0' && h <= '9' ? h - '0' : (h | 32) >= 'a' && (h | 32) <= 'f' ? (h | 32) - 'a' + 10 : -1;
            if (d < 0)
                break;
            v = v * 16 + (unsigned)d;
        }
        if (i == 2) {
            pb_put(b, '\\');
            return 1;
        }
        pb_put(b, (char)v);
        return i;
    }
    if (e == '0' || octal(e)) {
        size_t i = e == '0' ? 2 : 1, max = e == '0' ? 5 : 4;
        unsigned v = 0;
        for (; i < n && i < max && octal(s[i]); i++)
            v = v * 8 + (unsigned)(s[i] - '0');
        pb_put(b, (char)(v & 0xFF));
        return i;
    }
    pb_put(b, '\\');
    pb_put(b, e);
    return 2;
}

static void put_text(pbuf *b, const char *s, size_t n, int escapes, int *stop)
{
    for (size_t i = 0; i < n && !*stop && !b->fail;) {
        if (escapes && s[i] == '\\') {
            i += put_escape(b, s + i, n - i, stop);
            continue;
        }
        pb_put(b, s[i++]);
    }
}

long sh_printed_text(const sh_cmd *c, int i, int end, char *out, size_t cap)
{
    pbuf b = { out, 0, cap, 0 };
    int stop = 0;
    for (int j = i + 1; j < end; j++)
        if (c->w[j].flags & (SH_W_OPAQUE | SH_W_GLOB | SH_W_BRACE) || memchr(sh_wtext(c, j), SH_MARK, c->w[j].len))
            return -1;
    const char *prog = sh_wtext(c, i);
    if (strcmp(prog, "echo") == 0) {
        int escapes = 0, j = i + 1;
        for (; j < end; j++) {              /* -n -e -E and clusters of them */
            const char *t = sh_wtext(c, j);
            if (t[0] != '-' || !t[1] || strspn(t + 1, "neE") != strlen(t + 1))
                break;
            for (const char *o = t + 1; *o; o++)
                escapes = *o == 'e' ? 1 : *o == 'E' ? 0 : escapes;
        }
        for (int first = 1; j < end && !stop; j++, first = 0) {
            if (!first)
                pb_put(&b, ' ');
            put_text(&b, sh_wtext(c, j), c->w[j].len, escapes, &stop);
        }
        return b.fail ? -1 : (long)b.k;
    }
    if (strcmp(prog, "printf") != 0 || i + 1 >= end)
        return -1;
    int f = i + 1;
    if (sh_weq(c, f, "--"))
        f++;
    if (f >= end || sh_wtext(c, f)[0] == '-')
        return -1;                          /* printf -v NAME: writes no output */
    const char *fmt = sh_wtext(c, f);
    size_t fn = c->w[f].len;
    int arg = f + 1;
    /* the format is used again while arguments remain (at least once) */
    do {
        int used = 0;
        for (size_t q = 0; q < fn && !stop && !b.fail;) {
            if (fmt[q] == '\\') {
                q += put_escape(&b, fmt + q, fn - q, &stop);
                continue;
            }
            if (fmt[q] != '%') {
                pb_put(&b, fmt[q++]);
                continue;
            }
            q++;
            while (q < fn && strchr("-+ #0123456789.", fmt[q]))
                q++;                        /* flags, width, precision: ignored */
            char conv = q < fn ? fmt[q++] : '\0';
            if (conv == '%') {
                pb_put(&b, '%');
                continue;
            }
            if (!strchr("sbdiuc", conv) || !conv)
                return -1;                  /* %x %f %q ...: not followed */
            const char *a = arg < end ? sh_wtext(c, arg) : "";
            size_t an = arg < end ? c->w[arg].len : 0;
            if (arg < end)
                arg++;
            used = 1;
            if (conv == 'c')
                an = an > 0 ? 1 : 0;
            put_text(&b, a, an, conv == 'b', &stop);
        }
        if (!used)
            break;
    } while (arg < end && !stop && !b.fail);
    return b.fail ? -1 : (long)b.k;
}

/* gate_json.c - a small validating JSON reader for the gate's hot path.
 *
 * The gate needs a handful of top-level fields of a tool call's arguments
 * (command, _riskLevel, name, source, force, branch) and of a batch line
 * (tool, args, level). This reader validates the whole text as JSON (RFC
 * 8259: structure, strings, escapes, numbers, literals; depth <= 64) and
 * records where those fields are, without allocating or building a tree.
 * Keys are compared after unescaping, so "comm\u0061nd" is "command".
 * A field of interest given twice marks the object as ambiguous (the gate
 * fails closed on it).
 */
#include "core/gate_internal.h"

#include <string.h>

typedef struct {
    const char *s;
    size_t n, p;
    int depth;
} jr;

static void ws(jr *r)
{
    while (r->p < r->n && (r->s[r->p] == ' ' || r->s[r->p] == '\t' ||
                           r->s[r->p] == '\n' || r->s[r->p] == '\r'))
        r->p++;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* At '"'. */
static int str(jr *r, ga_val *v)
{
    size_t p = r->p + 1;
    int esc = 0;
    for (;;) {
        /* fast path: plain bytes */
        while (p < r->n && r->s[p] != '"' && r->s[p] != '\\' && (unsigned char)r->s[p] >= 0x20)
            p++;
        if (p >= r->n)
            return -1;
        char c = r->s[p];
        if (c == '"')
            break;
        if (c != '\\')
            return -1;                  /* raw control character */
        esc = 1;
        if (p + 1 >= r->n)
            return -1;
        char e = r->s[p + 1];
        if (e == 'u') {
            unsigned u;
            if (p + 6 > r->n || hex4(r->s + p + 2, &u) < 0)
                return -1;
            p += 6;
        } else if (strchr("\"\\/bfnrt", e) && e) {
            p += 2;
        } else {
            return -1;
        }
    }
    if (v) {
        v->type = GA_STRING;
        v->p = r->s + r->p + 1;
        v->n = p - r->p - 1;
        v->esc = esc;
    }
    r->p = p + 1;
    return 0;
}

static int num(jr *r, ga_val *v)
{
    size_t p = r->p, start = p;
    int truthy = 0;
    if (p < r->n && r->s[p] == '-')
        p++;
    if (p >= r->n)
        return -1;
    if (r->s[p] == '0') {
        p++;
    } else if (r->s[p] >= '1' && r->s[p] <= '9') {
        truthy = 1;
        while (p < r->n && r->s[p] >= '0' && r->s[p] <= '9')
            p++;
    } else {
        return -1;
    }
    if (p < r->n && r->s[p] == '.') {
        p++;
        if (p >= r->n || r->s[p] < '0' || r->s[p] > '9')
            return -1;
        while (p < r->n && r->s[p] >= '0' && r->s[p] <= '9')
            truthy |= r->s[p++] != '0';
    }
    if (p < r->n && (r->s[p] == 'e' || r->s[p] == 'E')) {
        p++;
        if (p < r->n && (r->s[p] == '+' || r->s[p] == '-'))
            p++;
        if (p >= r->n || r->s[p] < '0' || r->s[p] > '9')
            return -1;
        while (p < r->n && r->s[p] >= '0' && r->s[p] <= '9')
            p++;
    }
    if (v) {
        v->type = GA_NUMBER;
        v->p = r->s + start;
        v->n = p - start;
        v->esc = truthy;
    }
    r->p = p;
    return 0;
}

static int lit(jr *r, const char *word, ga_type t, ga_val *v)
{
    size_t k = strlen(word);
    if (r->n - r->p < k || memcmp(r->s + r->p, word, k) != 0)
        return -1;
    if (v) {
        v->type = t;
        v->p = r->s + r->p;
        v->n = k;
    }
    r->p += k;
    return 0;
}

typedef int (*member_fn)(void *ctx, const char *key, size_t klen, const ga_val *val);

static int value(jr *r, ga_val *v, member_fn fn, void *ctx);

static int object(jr *r, ga_val *v, member_fn fn, void *ctx)
{
    size_t start = r->p;
    if (++r->depth > 64)
        return -1;
    r->p++;
    ws(r);
    if (r->p < r->n && r->s[r->p] == '}') {
        r->p++;
    } else {
        for (;;) {
            ws(r);
            if (r->p >= r->n || r->s[r->p] != '"')
                return -1;
            ga_val key;
            if (str(r, &key) < 0)
                return -1;
            ws(r);
            if (r->p >= r->n || r->s[r->p] != ':')
                return -1;
            r->p++;
            ws(r);
            ga_val val;
            if (value(r, &val, NULL, NULL) < 0)
                return -1;
            if (fn) {
                char kb[32];
                const char *k = key.p;
                size_t kl = key.n;
                if (key.esc) {
                    kl = ga_decode(&key, kb, sizeof kb);
                    k = kl < sizeof kb ? kb : "";
                    if (kl >= sizeof kb)
                        kl = 0;
                }
                if (fn(ctx, k, kl, &val) < 0)
                    return -1;
            }
            ws(r);
            if (r->p < r->n && r->s[r->p] == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->n && r->s[r->p] == '}') {
                r->p++;
                break;
            }
            return -1;
        }
    }
    r->depth--;
    if (v) {
        v->type = GA_OBJECT;
        v->p = r->s + start;
        v->n = r->p - start;
    }
    return 0;
}

static int array(jr *r, ga_val *v)
{
    size_t start = r->p;
    if (++r->depth > 64)
        return -1;
    r->p++;
    ws(r);
    if (r->p < r->n && r->s[r->p] == ']') {
        r->p++;
    } else {
        for (;;) {
            ws(r);
            if (value(r, NULL, NULL, NULL) < 0)
                return -1;
            ws(r);
            if (r->p < r->n && r->s[r->p] == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->n && r->s[r->p] == ']') {
                r->p++;
                break;
            }
            return -1;
        }
    }
    r->depth--;
    if (v) {
        v->type = GA_ARRAY;
        v->p = r->s + start;
        v->n = r->p - start;
    }
    return 0;
}

static int value(jr *r, ga_val *v, member_fn fn, void *ctx)
{
    if (r->p >= r->n)
        return -1;
    switch (r->s[r->p]) {
    case '{': return object(r, v, fn, ctx);
    case '[': return array(r, v);
    case '"': return str(r, v);
    case 't': return lit(r, "true", GA_TRUE, v);
    case 'f': return lit(r, "false", GA_FALSE, v);
    case 'n': return lit(r, "null", GA_NULL, v);
    default: return num(r, v);
    }
}

static void utf8(char *buf, size_t cap, size_t *k, unsigned long cp)
{
    char tmp[4];
    size_t n;
    if (cp < 0x80) { tmp[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { tmp[0] = (char)(0xC0 | (cp >> 6)); tmp[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        tmp[0] = (char)(0xE0 | (cp >> 12)); tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        tmp[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        tmp[0] = (char)(0xF0 | (cp >> 18)); tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); tmp[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
    }
    for (size_t i = 0; i < n; i++, (*k)++)
        if (*k < cap)
            buf[*k] = tmp[i];
}

size_t ga_decode(const ga_val *v, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++) {
        char c = v->p[i];
        if (c != '\\') {
            if (k < cap)
                buf[k] = c;
            k++;
            continue;
        }
        char e = v->p[++i];
        if (e == 'u') {
            unsigned u = 0, lo = 0;
            hex4(v->p + i + 1, &u);
            i += 4;
            unsigned long cp = u;
            if (u >= 0xD800 && u <= 0xDBFF && i + 6 < v->n && v->p[i + 1] == '\\' &&
                v->p[i + 2] == 'u' && hex4(v->p + i + 3, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((unsigned long)(u - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            } else if (u >= 0xD800 && u <= 0xDFFF) {
                cp = 0xFFFD;
            }
            utf8(buf, cap, &k, cp);
            continue;
        }
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *hit = strchr(from, e);
        if (k < cap)
            buf[k] = hit ? to[hit - from] : e;
        k++;
    }
    if (k < cap)
        buf[k] = '\0';
    return k;
}

static int keyis(const char *k, size_t kl, const char *lit)
{
    return strlen(lit) == kl && memcmp(k, lit, kl) == 0;
}

static int set_field(gate_args *a, ga_val *slot, const ga_val *val)
{
    if (slot->type != GA_ABSENT)
        a->dup = 1;
    *slot = *val;
    return 0;
}

static int args_member(void *ctx, const char *k, size_t kl, const ga_val *val)
{
    gate_args *a = ctx;
    if (kl == 0)
        return 0;
    switch (k[0]) {
    case 'c': if (keyis(k, kl, "command")) return set_field(a, &a->command, val); break;
    case '_': if (keyis(k, kl, "_riskLevel")) return set_field(a, &a->risk, val); break;
    case 'n': if (keyis(k, kl, "name")) return set_field(a, &a->name, val); break;
    case 's': if (keyis(k, kl, "source")) return set_field(a, &a->source, val); break;
    case 'f': if (keyis(k, kl, "force")) return set_field(a, &a->force, val); break;
    case 'b': if (keyis(k, kl, "branch")) return set_field(a, &a->branch, val); break;
    default: break;
    }
    return 0;
}

void gate_args_empty(gate_args *a)
{
    memset(a, 0, sizeof *a);
}

int gate_args_parse(gate_args *a, const char *s, size_t n)
{
    gate_args_empty(a);
    jr r = { s, n, 0, 0 };
    ws(&r);
    if (r.p >= n || s[r.p] != '{')
        return -1;
    if (object(&r, NULL, args_member, a) < 0)
        return -1;
    ws(&r);
    return r.p == n ? 0 : -1;
}

/* {"tool":..., "args":{...}, "level":...} in one pass: the args object is
 * read with args_member as it is validated, not parsed twice. */
int gate_line_parse(ga_val *tool, gate_args *a, ga_val *level, int *dup, const char *s, size_t n)
{
    jr r = { s, n, 0, 1 };
    ga_val t = { 0 }, lv = { 0 }, args = { 0 };
    int d = 0;
    gate_args_empty(a);
    ws(&r);
    if (r.p >= n || s[r.p] != '{')
        return -1;
    r.p++;
    ws(&r);
    if (r.p < n && s[r.p] == '}') {
        r.p++;
    } else {
        for (;;) {
            ws(&r);
            ga_val key, val;
            if (r.p >= n || s[r.p] != '"' || str(&r, &key) < 0)
                return -1;
            char kb[16];
            const char *k = key.p;
            size_t kl = key.n;
            if (key.esc) {
                kl = ga_decode(&key, kb, sizeof kb);
                k = kb;
                if (kl >= sizeof kb)
                    kl = 0;
            }
            ws(&r);
            if (r.p >= n || s[r.p] != ':')
                return -1;
            r.p++;
            ws(&r);
            int is_args = keyis(k, kl, "args");
            if (is_args && r.p < n && s[r.p] == '{') {
                if (args.type != GA_ABSENT)
                    d = 1;
                gate_args_empty(a);
                if (object(&r, &val, args_member, a) < 0)
                    return -1;
            } else if (value(&r, &val, NULL, NULL) < 0) {
                return -1;
            }
            ga_val *slot = keyis(k, kl, "tool") ? &t : is_args ? &args
                         : keyis(k, kl, "level") ? &lv : NULL;
            if (slot) {
                if (slot->type != GA_ABSENT)
                    d = 1;
                *slot = val;
            }
            ws(&r);
            if (r.p < n && s[r.p] == ',') {
                r.p++;
                continue;
            }
            if (r.p < n && s[r.p] == '}') {
                r.p++;
                break;
            }
            return -1;
        }
    }
    ws(&r);
    if (r.p != n)
        return -1;
    if (args.type != GA_ABSENT && args.type != GA_OBJECT)
        return -2;
    *tool = t;
    *level = lv;
    *dup = d;
    return 0;
}

/* jsonschema.c - JSON Schema 2020-12 validation for tests (jsonschema.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "jsonschema.h"

#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEPTH_MAX = 64, PTR_MAX = 512 };

typedef struct ctx {
    const json_t *root;
    char *why;
    size_t cap;
    int quiet;        /* inside anyOf/oneOf/not: failures are tries, not reports */
} ctx;

/* The instance location, as a JSON pointer built while descending. */
typedef struct loc {
    const struct loc *up;
    const char *key;  /* or NULL for an index */
    size_t index;
} loc;

static void loc_text(char *buf, size_t cap, const loc *l)
{
    const loc *chain[DEPTH_MAX * 2];
    size_t n = 0;
    for (; l && n < sizeof chain / sizeof *chain; l = l->up)
        chain[n++] = l;
    size_t k = 0;
    buf[0] = '\0';
    while (n-- && k + 2 < cap) {
        if (!chain[n]->up)
            continue;   /* the root */
        k += chain[n]->key ? (size_t)snprintf(buf + k, cap - k, "/%s", chain[n]->key)
                           : (size_t)snprintf(buf + k, cap - k, "/%zu", chain[n]->index);
        if (k >= cap)
            k = cap - 1;
    }
    if (!buf[0])
        snprintf(buf, cap, "(the body)");
}

__attribute__((format(printf, 3, 4)))
static int fail(ctx *c, const loc *l, const char *fmt, ...)
{
    if (c->quiet || !c->why || !c->cap)
        return 0;
    char where[PTR_MAX];
    loc_text(where, sizeof where, l);
    int n = snprintf(c->why, c->cap, "%s: ", where);
    if (n >= 0 && (size_t)n < c->cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why + n, c->cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    c->quiet = 1;   /* keep the first failure */
    return 0;
}

static int check(ctx *c, const json_t *schema, const json_t *inst, const loc *l, int depth);

/* ---- types and values -------------------------------------------------------- */

static int is_type(const json_t *v, const char *type)
{
    if (!strcmp(type, "object"))
        return json_is_object(v);
    if (!strcmp(type, "array"))
        return json_is_array(v);
    if (!strcmp(type, "string"))
        return json_is_string(v);
    if (!strcmp(type, "number"))
        return json_is_number(v);
    if (!strcmp(type, "integer"))
        return json_is_integer(v) ||
               (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v));
    if (!strcmp(type, "boolean"))
        return json_is_boolean(v);
    if (!strcmp(type, "null"))
        return json_is_null(v);
    return 0;
}

static const char *type_name(const json_t *v)
{
    static const char *const names[] = { "object", "array", "string", "integer", "number",
                                         "boolean", "boolean", "null" };
    return names[json_typeof(v)];
}

/* JSON equality with 1 == 1.0, as the standard asks. */
static int same(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    return json_equal(a, b);
}

static size_t code_points(const char *s, size_t n)
{
    size_t cp = 0;
    for (size_t i = 0; i < n; i++)
        cp += ((unsigned char)s[i] & 0xc0) != 0x80;
    return cp;
}

static int matches(const char *pattern, const char *s, size_t n, int *bad)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &err,
                                   &off, NULL);
    if (!re) {
        *bad = 1;
        return 0;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc >= 0;
}

/* ---- keyword groups ---------------------------------------------------------- */

static int check_type(ctx *c, const json_t *t, const json_t *inst, const loc *l)
{
    if (json_is_string(t))
        return is_type(inst, json_string_value(t)) ||
               fail(c, l, "is %s, the schema wants %s", type_name(inst), json_string_value(t));
    size_t i;
    const json_t *one;
    json_array_foreach(t, i, one)
        if (json_is_string(one) && is_type(inst, json_string_value(one)))
            return 1;
    return fail(c, l, "is %s, not one of the types the schema allows", type_name(inst));
}

static int check_values(ctx *c, const json_t *s, const json_t *inst, const loc *l)
{
    const json_t *k;
    if ((k = json_object_get(s, "const")) && !same(k, inst))
        return fail(c, l, "is not the constant the schema wants");
    if ((k = json_object_get(s, "enum"))) {
        size_t i;
        const json_t *e;
        int found = 0;
        json_array_foreach(k, i, e)
            found |= same(e, inst);
        if (!found) {
            char *text = json_dumps(inst, JSON_ENCODE_ANY | JSON_COMPACT);
            int r = fail(c, l, "%.80s is not in the enum", text ? text : "?");
            free(text);
            return r;
        }
    }
    return 1;
}

static int check_string(ctx *c, const json_t *s, const json_t *inst, const loc *l)
{
    if (!json_is_string(inst))
        return 1;
    const char *v = json_string_value(inst);
    size_t n = json_string_length(inst), cp = code_points(v, n);
    const json_t *k;
    if ((k = json_object_get(s, "minLength")) && cp < (size_t)json_integer_value(k))
        return fail(c, l, "is %zu characters, under minLength %lld", cp,
                    (long long)json_integer_value(k));
    if ((k = json_object_get(s, "maxLength")) && cp > (size_t)json_integer_value(k))
        return fail(c, l, "is %zu characters, over maxLength %lld", cp,
                    (long long)json_integer_value(k));
    if ((k = json_object_get(s, "pattern"))) {
        int bad = 0;
        if (!matches(json_string_value(k), v, n, &bad))
            return fail(c, l, bad ? "the schema's pattern %s does not compile"
                                  : "does not match the pattern %s", json_string_value(k));
    }
    return 1;
}

static int check_number(ctx *c, const json_t *s, const json_t *inst, const loc *l)
{
    if (!json_is_number(inst))
        return 1;
    double v = json_number_value(inst);
    const json_t *k;
    if ((k = json_object_get(s, "minimum")) && v < json_number_value(k))
        return fail(c, l, "%g is under the minimum %g", v, json_number_value(k));
    if ((k = json_object_get(s, "maximum")) && v > json_number_value(k))
        return fail(c, l, "%g is over the maximum %g", v, json_number_value(k));
    if ((k = json_object_get(s, "exclusiveMinimum")) && v <= json_number_value(k))
        return fail(c, l, "%g is not above %g", v, json_number_value(k));
    if ((k = json_object_get(s, "exclusiveMaximum")) && v >= json_number_value(k))
        return fail(c, l, "%g is not below %g", v, json_number_value(k));
    if ((k = json_object_get(s, "multipleOf")) && json_number_value(k) > 0) {
        double q = v / json_number_value(k);
        if (fabs(q - round(q)) > 1e-9)
            return fail(c, l, "%g is not a multiple of %g", v, json_number_value(k));
    }
    return 1;
}

/* Is name covered by properties or patternProperties? */
static int declared(const json_t *s, const char *name, size_t len)
{
    if (json_object_getn(json_object_get(s, "properties"), name, len))
        return 1;
    const char *pat;
    const json_t *sub;
    json_object_foreach((json_t *)json_object_get(s, "patternProperties"), pat, sub) {
        int bad = 0;
        if (matches(pat, name, len, &bad))
            return 1;
    }
    return 0;
}

static int check_object(ctx *c, const json_t *s, const json_t *inst, const loc *l, int depth)
{
    if (!json_is_object(inst))
        return 1;
    const json_t *k;
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(s, "required"), i, e)
        if (!json_object_get(inst, json_string_value(e)))
            return fail(c, l, "lacks the required property \"%s\"", json_string_value(e));
    if ((k = json_object_get(s, "minProperties")) &&
        json_object_size(inst) < (size_t)json_integer_value(k))
        return fail(c, l, "has fewer than %lld properties", (long long)json_integer_value(k));
    if ((k = json_object_get(s, "maxProperties")) &&
        json_object_size(inst) > (size_t)json_integer_value(k))
        return fail(c, l, "has more than %lld properties", (long long)json_integer_value(k));
    const char *name;
    const json_t *dep;
    json_object_foreach((json_t *)json_object_get(s, "dependentRequired"), name, dep) {
        if (!json_object_get(inst, name))
            continue;
        json_array_foreach(dep, i, e)
            if (!json_object_get(inst, json_string_value(e)))
                return fail(c, l, "has \"%s\" but not \"%s\"", name, json_string_value(e));
    }
    const json_t *props = json_object_get(s, "properties");
    const json_t *pprops = json_object_get(s, "patternProperties");
    const json_t *extra = json_object_get(s, "additionalProperties");
    const json_t *names = json_object_get(s, "propertyNames");
    const json_t *v;
    json_object_foreach((json_t *)inst, name, v) {
        loc sub = { l, name, 0 };
        size_t len = strlen(name);
        if (names) {
            json_t *key = json_stringn(name, len);
            int ok = check(c, names, key, &sub, depth + 1);
            json_decref(key);
            if (!ok)
                return 0;
        }
        const json_t *ps = json_object_get(props, name);
        if (ps && !check(c, ps, v, &sub, depth + 1))
            return 0;
        const char *pat;
        const json_t *psub;
        json_object_foreach((json_t *)pprops, pat, psub) {
            int bad = 0;
            if (matches(pat, name, len, &bad) && !check(c, psub, v, &sub, depth + 1))
                return 0;
        }
        if (extra && !declared(s, name, len)) {
            if (json_is_false(extra))
                return fail(c, &sub, "is not a property the schema allows");
            if (!check(c, extra, v, &sub, depth + 1))
                return 0;
        }
    }
    return 1;
}

static int check_array(ctx *c, const json_t *s, const json_t *inst, const loc *l, int depth)
{
    if (!json_is_array(inst))
        return 1;
    size_t n = json_array_size(inst), i;
    const json_t *k, *e;
    if ((k = json_object_get(s, "minItems")) && n < (size_t)json_integer_value(k))
        return fail(c, l, "has %zu items, under minItems %lld", n, (long long)json_integer_value(k));
    if ((k = json_object_get(s, "maxItems")) && n > (size_t)json_integer_value(k))
        return fail(c, l, "has %zu items, over maxItems %lld", n, (long long)json_integer_value(k));
    if (json_is_true(json_object_get(s, "uniqueItems")))
        for (i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (same(json_array_get(inst, i), json_array_get(inst, j)))
                    return fail(c, l, "items %zu and %zu are equal (uniqueItems)", i, j);
    const json_t *prefix = json_object_get(s, "prefixItems");
    size_t np = json_array_size(prefix);
    const json_t *items = json_object_get(s, "items");
    json_array_foreach(inst, i, e) {
        loc sub = { l, NULL, i };
        const json_t *si = i < np ? json_array_get(prefix, i) : items;
        if (si && !check(c, si, e, &sub, depth + 1))
            return 0;
    }
    if ((k = json_object_get(s, "contains"))) {
        int quiet = c->quiet, found = 0;
        c->quiet = 1;
        json_array_foreach(inst, i, e) {
            loc sub = { l, NULL, i };
            found |= check(c, k, e, &sub, depth + 1);
        }
        c->quiet = quiet;
        if (!found)
            return fail(c, l, "has no item that the contains schema accepts");
    }
    return 1;
}

/* allOf / anyOf / oneOf / not / if-then-else */
static int check_logic(ctx *c, const json_t *s, const json_t *inst, const loc *l, int depth)
{
    size_t i;
    const json_t *sub;
    json_array_foreach(json_object_get(s, "allOf"), i, sub)
        if (!check(c, sub, inst, l, depth + 1))
            return 0;
    int quiet = c->quiet;
    const json_t *any = json_object_get(s, "anyOf");
    if (any) {
        int ok = 0;
        c->quiet = 1;
        json_array_foreach(any, i, sub)
            ok |= check(c, sub, inst, l, depth + 1);
        c->quiet = quiet;
        if (!ok)
            return fail(c, l, "matches none of anyOf's %zu schemas", json_array_size(any));
    }
    const json_t *one = json_object_get(s, "oneOf");
    if (one) {
        size_t ok = 0;
        c->quiet = 1;
        json_array_foreach(one, i, sub)
            ok += (size_t)check(c, sub, inst, l, depth + 1);
        c->quiet = quiet;
        if (ok != 1)
            return fail(c, l, "matches %zu of oneOf's %zu schemas (exactly one must match)", ok,
                        json_array_size(one));
    }
    const json_t *not = json_object_get(s, "not");
    if (not) {
        c->quiet = 1;
        int ok = check(c, not, inst, l, depth + 1);
        c->quiet = quiet;
        if (ok)
            return fail(c, l, "matches the schema under not");
    }
    const json_t *cond = json_object_get(s, "if");
    if (cond) {
        c->quiet = 1;
        int ok = check(c, cond, inst, l, depth + 1);
        c->quiet = quiet;
        const json_t *branch = json_object_get(s, ok ? "then" : "else");
        if (branch && !check(c, branch, inst, l, depth + 1))
            return 0;
    }
    return 1;
}

/* ---- one schema ------------------------------------------------------------ */

const json_t *wgt_schema_pointer(const json_t *root, const char *ref)
{
    if (!ref || ref[0] != '#')
        return NULL;
    const json_t *v = root;
    const char *p = ref + 1;
    while (v && *p == '/') {
        p++;
        char token[256];
        size_t k = 0;
        for (; *p && *p != '/' && k + 1 < sizeof token; p++) {
            if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
                token[k++] = p[1] == '0' ? '~' : '/';
                p++;
            } else {
                token[k++] = *p;
            }
        }
        token[k] = '\0';
        if (json_is_object(v)) {
            v = json_object_get(v, token);
        } else if (json_is_array(v)) {
            char *end;
            unsigned long idx = strtoul(token, &end, 10);
            v = *end ? NULL : json_array_get(v, idx);
        } else {
            v = NULL;
        }
    }
    return *p ? NULL : v;
}

static const char *const UNSUPPORTED[] = {
    "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef",
    "dependentSchemas", "nullable",
};

static int check(ctx *c, const json_t *schema, const json_t *inst, const loc *l, int depth)
{
    if (depth > DEPTH_MAX)
        return fail(c, l, "the schema nests (or refers) deeper than %d levels", DEPTH_MAX);
    if (json_is_true(schema))
        return 1;
    if (json_is_false(schema))
        return fail(c, l, "the schema is false: nothing is allowed here");
    if (!json_is_object(schema))
        return fail(c, l, "the schema is not an object or a boolean");
    for (size_t i = 0; i < sizeof UNSUPPORTED / sizeof *UNSUPPORTED; i++)
        if (json_object_get(schema, UNSUPPORTED[i]))
            return fail(c, l, "the schema uses %s, which this validator does not check",
                        UNSUPPORTED[i]);
    const json_t *ref = json_object_get(schema, "$ref");
    if (ref) {
        const json_t *target = wgt_schema_pointer(c->root, json_string_value(ref));
        if (!target)
            return fail(c, l, "$ref %s does not resolve in the document",
                        json_string_value(ref) ? json_string_value(ref) : "(not a string)");
        if (!check(c, target, inst, l, depth + 1))
            return 0;
    }
    const json_t *type = json_object_get(schema, "type");
    if (type && !check_type(c, type, inst, l))
        return 0;
    return check_values(c, schema, inst, l) && check_string(c, schema, inst, l) &&
           check_number(c, schema, inst, l) && check_object(c, schema, inst, l, depth) &&
           check_array(c, schema, inst, l, depth) && check_logic(c, schema, inst, l, depth);
}

int wgt_schema_valid(const json_t *root, const json_t *schema, const json_t *instance,
                     char *why, size_t cap)
{
    ctx c = { root, why, cap, 0 };
    if (why && cap)
        why[0] = '\0';
    loc top = { NULL, NULL, 0 };
    return check(&c, schema, instance, &top, 0);
}

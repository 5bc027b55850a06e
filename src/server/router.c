/* router.c - the route table: flattening the areas' rows, matching a method
 * and path with ":param" segments, method names and the Allow list.
 * Pure except for the allocation of the flattened table. */
#include "server/server_int.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    wg_http_method m;
    const char *name;
} methods[] = {
    { WG_HTTP_GET, "GET" },       { WG_HTTP_POST, "POST" },     { WG_HTTP_PUT, "PUT" },
    { WG_HTTP_PATCH, "PATCH" },   { WG_HTTP_DELETE, "DELETE" },
};
enum { N_METHODS = sizeof methods / sizeof methods[0] };

wg_http_method wg_http__method_parse(const char *s)
{
    for (int i = 0; i < N_METHODS; i++)
        if (strcmp(methods[i].name, s) == 0)
            return methods[i].m;
    return 0;
}

const char *wg_http__method_name(wg_http_method m)
{
    for (int i = 0; i < N_METHODS; i++)
        if (methods[i].m == m)
            return methods[i].name;
    return "?";
}

void wg_http__allow_list(char *buf, size_t cap, unsigned mask)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < N_METHODS; i++) {
        if (!(mask & methods[i].m))
            continue;
        int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", methods[i].name);
        if (n < 0 || (size_t)n >= cap - used)
            return;
        used += (size_t)n;
    }
}

/* A pattern is "/seg/seg/:param"; no empty segments, at most
 * WG_ROUTE_MAX_PARAMS parameters. */
static int pattern_ok(const char *p)
{
    if (p[0] != '/')
        return 0;
    if (p[1] == '\0')
        return 1;
    int params = 0;
    for (const char *s = p; *s; s++) {
        if (*s == '/' && (s[1] == '/' || s[1] == '\0'))
            return 0;
        if (*s == '/' && s[1] == ':') {
            if (s[2] == '/' || s[2] == '\0')
                return 0;
            params++;
        }
    }
    return params <= WG_ROUTE_MAX_PARAMS;
}

int wg_route__table_build(wg_route_table *t)
{
    size_t n = 0;
    for (size_t a = 0; wg_server__areas[a]; a++)
        n += wg_server__areas[a]->n_routes;
    wg_route_entry *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t a = 0; wg_server__areas[a]; a++) {
        const wg_route_area *area = wg_server__areas[a];
        for (size_t i = 0; i < area->n_routes; i++) {
            const wg_http_route *r = &area->routes[i];
            if (!r->fn || !pattern_ok(r->path) || !wg_http__method_parse(wg_http__method_name(r->method))) {
                free(rows);
                return wg_error_set(WG_EINVAL, "area %s: malformed route %s", area->name, r->path);
            }
            for (size_t j = 0; j < k; j++) {
                if (rows[j].route->method == r->method && strcmp(rows[j].route->path, r->path) == 0) {
                    free(rows);
                    return wg_error_set(WG_EINVAL, "route %s %s defined twice",
                                        wg_http__method_name(r->method), r->path);
                }
            }
            rows[k].route = r;
            rows[k].area = a;
            k++;
        }
    }
    t->rows = rows;
    t->n = k;
    return 0;
}

void wg_route__table_free(wg_route_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}

/* Compares one pattern with the path; on a match copies parameter values
 * into scratch and records them in m. */
static int match_one(wg_route_match *m, const char *pat, const char *path, char *scratch)
{
    size_t np = 0;
    char *w = scratch;
    const char *names[WG_ROUTE_MAX_PARAMS];
    const char *values[WG_ROUTE_MAX_PARAMS];
    while (*pat && *path) {
        if (*pat != '/' || *path != '/')
            return 0;
        pat++;
        path++;
        size_t pl = strcspn(pat, "/");
        size_t sl = strcspn(path, "/");
        if (*pat == ':') {
            if (sl == 0)
                return 0;
            names[np] = pat + 1;
            memcpy(w, path, sl);
            w[sl] = '\0';
            values[np++] = w;
            w += sl + 1;
        } else if (pl != sl || memcmp(pat, path, sl) != 0) {
            return 0;
        }
        pat += pl;
        path += sl;
    }
    if (*pat || *path)
        return 0;
    m->n_params = np;
    for (size_t i = 0; i < np; i++) {
        m->param_name[i] = names[i];
        m->param_value[i] = values[i];
    }
    return 1;
}

void wg_route__match(wg_route_match *m, const wg_route_table *t, wg_http_method method,
                     const char *path, char *scratch)
{
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < t->n; i++) {
        const wg_http_route *r = t->rows[i].route;
        wg_route_match tmp;
        memset(&tmp, 0, sizeof tmp);
        if (!match_one(&tmp, r->path, path, scratch))
            continue;
        m->allow |= r->method;
        if (r->method == method && !m->entry) {
            m->entry = &t->rows[i];
            m->n_params = tmp.n_params;
            memcpy(m->param_name, tmp.param_name, sizeof tmp.param_name);
            memcpy(m->param_value, tmp.param_value, sizeof tmp.param_value);
            return;
        }
    }
}

/* UTF-8 validity (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
static int utf8_ok(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s;
        int n;
        unsigned min;
        if (c < 0x80) { s++; continue; }
        else if ((c & 0xE0) == 0xC0) { n = 1; c &= 0x1F; min = 0x80; }
        else if ((c & 0xF0) == 0xE0) { n = 2; c &= 0x0F; min = 0x800; }
        else if ((c & 0xF8) == 0xF0) { n = 3; c &= 0x07; min = 0x10000; }
        else return 0;
        for (int i = 1; i <= n; i++) {
            if ((s[i] & 0xC0) != 0x80)
                return 0;
            c = (c << 6) | (s[i] & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            return 0;
        s += n + 1;
    }
    return 1;
}

int wg_route__param_ok(const char *v)
{
    if (!v || !*v || strcmp(v, ".") == 0 || strcmp(v, "..") == 0)
        return 0;
    for (const unsigned char *s = (const unsigned char *)v; *s; s++)
        if (*s < 0x20 || *s == 0x7F || *s == '/' || *s == '\\')
            return 0;
    return utf8_ok((const unsigned char *)v);
}

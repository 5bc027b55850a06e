/* rest.c - the one declarative REST executor on libcurl (spec 8, issues 7
 * and 15).
 *
 * Every REST connector is a table (src/connect/specs/<service>.c); this file
 * turns a row plus the caller's inputs into HTTP exchanges and the
 * exchanges into a ConnectorResult. Inputs are untrusted (they come from an
 * LLM): they are encoded per position, never spliced into a string, and
 * dot segments are refused so a path cannot climb to another endpoint
 * (reference 13 item 11). Redirects are not followed and next-page links
 * are followed only under the base URL, so the credential is only ever
 * sent to the configured service, and that URL's host passes the upstream
 * policy (upstream.h: checked after resolution, the connection pinned to
 * the checked addresses) before any header is built. Pagination,
 * Retry-After and the OAuth2 retry after a 401 are described in rest.h.
 */
#include "connect/rest.h"
#include "core/sbuf.h"
#include "connect/upstream.h"
#include "waggle/error.h"

#include <curl/curl.h>
#include <sodium.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum {
    RESPONSE_CAP = WG_REST_RESPONSE_CAP,   /* bytes kept from any upstream body */
    DEFAULT_TIMEOUT_S = 10,
    HEALTH_TIMEOUT_S = 5,
};

static const char *const method_names[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };

void wg_rest_response_clear(wg_rest_response *r)
{
    json_decref(r->json);
    free(r->text);
    free(r->retry_after);
    free(r->message_id);
    free(r->content_type);
    free(r->location);
    free(r->api_result);
    memset(r, 0, sizeof *r);
}

/* ---- encoding ----------------------------------------------------------- */

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

static void encode(wg_sbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c)) {
            wg_sbuf__put(b, (const char *)&c, 1);
        } else {
            char e[3] = { '%', hex[c >> 4], hex[c & 15] };
            wg_sbuf__put(b, e, 3);
        }
    }
}

static int check_segment(const char *s, size_t n)
{
    if (n == 0)
        return wg_error_set(WG_EINVAL, "empty path segment");
    if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return wg_error_set(WG_EINVAL, "path segment '%.*s' is not allowed", (int)n, s);
    return 0;
}

int wg_rest_encode_segment(char **out, const char *s)
{
    int rc = check_segment(s, strlen(s));
    if (rc < 0)
        return rc;
    wg_sbuf b = { 0 };
    encode(&b, s, strlen(s));
    if (b.oom) {
        free(b.p);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    *out = b.p;
    return 0;
}

/* The string form of a scalar input; NULL for objects/arrays/null. */
static char *scalar_text(const json_t *v)
{
    char *s = NULL;
    switch (json_typeof(v)) {
    case JSON_STRING: return strdup(json_string_value(v));
    case JSON_INTEGER:
        if (asprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0) return NULL;
        return s;
    case JSON_REAL:
        if (asprintf(&s, "%.17g", json_real_value(v)) < 0) return NULL;
        return s;
    case JSON_TRUE: return strdup("true");
    case JSON_FALSE: return strdup("false");
    default: return NULL;
    }
}

/* Appends a path built from a template; marks used inputs in `used`. */
static int build_path(wg_sbuf *b, const char *tmpl, const json_t *params, json_t *used)
{
    const char *p = tmpl;
    while (*p) {
        const char *open = strchr(p, '{');
        if (!open) {
            wg_sbuf__puts(b, p);
            break;
        }
        wg_sbuf__put(b, p, (size_t)(open - p));
        const char *close = strchr(open, '}');
        if (!close)
            return wg_error_set(WG_EINTERNAL, "bad path template %s", tmpl);
        int multi = open[1] == '+';
        const char *name = open + 1 + multi;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(close - name), name);
        const json_t *v = json_object_get(params, key);
        char *text = v ? scalar_text(v) : NULL;
        if (!text)
            return wg_error_set(WG_EINVAL, "Missing required parameter: %s (a string)", key);
        json_object_set_new(used, key, json_true());
        int rc = 0;
        if (!multi) {
            rc = check_segment(text, strlen(text));
            if (rc == 0)
                encode(b, text, strlen(text));
        } else {
            /* a file path: every segment checked and encoded on its own */
            const char *s = text;
            for (int first = 1; rc == 0; first = 0) {
                const char *slash = strchr(s, '/');
                size_t n = slash ? (size_t)(slash - s) : strlen(s);
                rc = check_segment(s, n);
                if (rc == 0) {
                    if (!first)
                        wg_sbuf__put(b, "/", 1);
                    encode(b, s, n);
                }
                if (!slash)
                    break;
                s = slash + 1;
            }
        }
        free(text);
        if (rc < 0) {
            char why[256];
            snprintf(why, sizeof why, "%s", wg_error_last());
            return wg_error_set(WG_EINVAL, "Invalid value for %s: %s", key, why);
        }
        p = close + 1;
    }
    return 0;
}

static void query_pair(wg_sbuf *b, int *first, const char *k, const char *v)
{
    wg_sbuf__put(b, *first ? "?" : "&", 1);
    *first = 0;
    encode(b, k, strlen(k));
    wg_sbuf__put(b, "=", 1);
    encode(b, v, strlen(v));
}

static void query_value(wg_sbuf *b, int *first, const char *k, const json_t *v)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
            query_value(b, first, k, e);
        return;
    }
    char *text = scalar_text(v);
    if (!text && json_is_object(v))
        text = json_dumps(v, JSON_COMPACT);
    if (text)
        query_pair(b, first, k, text);
    free(text);
}

static int build_query(wg_sbuf *b, const char *spec, const json_t *params, json_t *used, int *first)
{
    if (!spec)
        return 0;
    if (strcmp(spec, "*") == 0) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)params, k, v)
            if (!json_object_get(used, k) && !json_is_null(v))
                query_value(b, first, k, v);
        return 0;
    }
    const char *p = spec;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        /* "key", "key=default", "key:input" (the query key differs from the input) */
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        char *eq = strchr(item, '=');
        if (eq)
            *eq++ = 0;
        char *input = strchr(item, ':');
        if (input)
            *input++ = 0;
        else
            input = item;
        const json_t *v = json_object_get(params, input);
        if (v && !json_is_null(v))
            query_value(b, first, item, v);
        else if (eq)
            query_pair(b, first, item, eq);
        json_object_set_new(used, input, json_true());
        p += n;
    }
    return 0;
}

/* ---- templates ------------------------------------------------------------ */

/* Returns the filled value (new), or NULL with *drop set when absent. */
static json_t *fill(const json_t *t, const json_t *params, int *drop)
{
    *drop = 0;
    if (json_is_string(t)) {
        const char *s = json_string_value(t);
        if (s[0] != '$' || s[1] == '$')
            return json_string(s[0] == '$' ? s + 1 : s);
        char name[64];
        const char *eq = strchr(s, '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq ? eq - s - 1 : (long)strlen(s) - 1), s + 1);
        const json_t *v = json_object_get(params, name);
        if (v && !json_is_null(v))
            return json_deep_copy(v);
        if (eq)
            return json_loads(eq + 1, JSON_DECODE_ANY, NULL);
        *drop = 1;
        return NULL;
    }
    if (json_is_object(t)) {
        /* {"$if":"name", …}: the whole object exists only with that input */
        const char *cond = json_string_value(json_object_get(t, "$if"));
        const json_t *cv = cond ? json_object_get(params, cond) : NULL;
        if (cond && (!cv || json_is_null(cv))) {
            *drop = 1;
            return NULL;
        }
        json_t *o = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)t, k, v) {
            if (strcmp(k, "$if") == 0)
                continue;
            int d;
            json_t *f = fill(v, params, &d);
            if (f)
                json_object_set_new(o, k, f);
        }
        return o;
    }
    if (json_is_array(t)) {
        json_t *a = json_array();
        size_t i;
        json_t *v;
        json_array_foreach(t, i, v) {
            int d;
            json_t *f = fill(v, params, &d);
            if (f)
                json_array_append_new(a, f);
        }
        return a;
    }
    return json_deep_copy(t);
}

int wg_rest_fill(json_t **out, const char *tmpl, const json_t *params)
{
    json_error_t e;
    json_t *t = json_loads(tmpl, JSON_DECODE_ANY, &e);
    if (!t)
        return wg_error_set(WG_EINTERNAL, "bad template: %s", e.text);
    int drop;
    json_t *f = fill(t, params, &drop);
    json_decref(t);
    if (!f)
        f = json_null();
    *out = f;
    return 0;
}

/* ---- the exchange ------------------------------------------------------- */

typedef struct {
    wg_sbuf body;
    int too_big;
    char *retry_after;
    char *message_id;
    char *content_type;
    char *location;
    char *api_result;
} sink;

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->body.len + len > RESPONSE_CAP) {
        s->too_big = 1;
        return 0;       /* aborts the transfer */
    }
    wg_sbuf__put(&s->body, data, len);
    return s->body.oom ? 0 : len;
}

/* The value of header `name` in one raw header line, or NULL (new). */
static char *header_value(const char *line, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (len <= n || strncasecmp(line, name, n) || line[n] != ':')
        return NULL;
    const char *v = line + n + 1;
    size_t vl = len - n - 1;
    while (vl && (*v == ' ' || *v == '\t'))
        v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
        vl--;
    return strndup(v, vl);
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    static const struct { const char *name; size_t off; } kept[] = {
        { "Retry-After", offsetof(sink, retry_after) },
        { "X-Message-Id", offsetof(sink, message_id) },
        { "Content-Type", offsetof(sink, content_type) },
        { "Location", offsetof(sink, location) },
        { "Dropbox-API-Result", offsetof(sink, api_result) },
    };
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        char *v = header_value(data, len, kept[i].name);
        if (v) {
            char **slot = (char **)((char *)s + kept[i].off);
            free(*slot);
            *slot = v;
            break;
        }
    }
    return len;
}

static int has_crlf(const char *s)
{
    return s && strpbrk(s, "\r\n") != NULL;
}

/* ---- base URLs ------------------------------------------------------------ */

/* Length of "scheme://authority" at the start of url (0 when not a URL). */
static size_t origin_len(const char *url)
{
    const char *p = strstr(url, "://");
    if (!p || p == url)
        return 0;
    p += 3;
    return (size_t)(p - url) + strcspn(p, "/?#");
}

/* 1 when u is a bare origin "http(s)://host[:port]" (one trailing '/'
 * allowed): no path, query, fragment, userinfo, spaces or controls. */
static int bare_origin(const char *u)
{
    size_t ol = u ? origin_len(u) : 0;
    if (!ol || (strncmp(u, "https://", 8) && strncmp(u, "http://", 7)))
        return 0;
    if (u[ol] && strcmp(u + ol, "/"))
        return 0;
    for (const unsigned char *p = (const unsigned char *)u; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f || *p == '@' || *p == '\\')
            return 0;
    size_t scheme = u[4] == ':' ? strlen("http://") : strlen("https://");
    return ol > scheme;     /* a host is there */
}

/* The base URL a request goes to (new in *out): the row's named base or the
 * default, with the connector's base_url override applied. */
static int effective_base(char **out, const wg_rest_ctx *ctx, const char *name)
{
    const wg_rest_spec *rest = ctx->rest;
    const wg_connector_spec *spec = ctx->call->spec;
    const char *def = rest->default_base;
    int relative = 0;      /* a named base that is a path under the stored base */
    if (name) {
        def = NULL;
        for (const wg_rest_base *b = rest->bases; b && b->name; b++)
            if (strcmp(b->name, name) == 0)
                def = b->url;
        if (!def)
            return wg_error_set(WG_EINTERNAL, "%s: no base named %s", spec->id, name);
        relative = def[0] == '/';
    }
    const wg_connector_creds *c = ctx->call->creds;
    const char *ov = c && c->base_url && *c->base_url ? c->base_url : NULL;
    int rc;
    /* a stored base URL of a connector that is not self-hostable counts only
     * when the operator stored it (docs/security.md 2.2) */
    if (ov && !spec->self_hostable && c->base_url_by != WG_PRINCIPAL_OPERATOR) {
        *out = NULL;
        return wg_error_set(WG_EDENIED, "%s: the stored base URL was not set by the operator, "
                                        "and only the operator may set one for this connector "
                                        "(waggle connectors connect %s --base-url URL)",
                            spec->name, spec->id);
    }
    const char *suffix = rest->base_suffix ? rest->base_suffix : "";
    int from_extra = 0;
    if (!ov && rest->base_from_extra && c && c->extra && *c->extra) {
        /* the instance the token endpoint named (Salesforce instance_url) */
        if (!bare_origin(c->extra)) {
            *out = NULL;
            return wg_error_set(WG_EDENIED, "%s: the stored %s is not a bare https://host "
                                            "address; sign in again", spec->name,
                                spec->extra_key ? spec->extra_key : "instance URL");
        }
        ov = c->extra;
        from_extra = 1;
    }
    if (ov) {
        size_t n = strlen(ov);
        while (n && ov[n - 1] == '/')
            n--;
        const char *tail = relative ? def
                         : rest->override_origin && def && !from_extra ? def + origin_len(def)
                         : suffix;
        rc = asprintf(out, "%.*s%s", (int)n, ov, tail);
    } else if (def && !relative) {
        rc = asprintf(out, "%s", def);
    } else {
        *out = NULL;
        return wg_error_set(WG_EINVAL, "%s needs a base URL (connector:%s:base_url)",
                            spec->name, spec->id);
    }
    if (rc < 0) {
        *out = NULL;
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    return 0;
}

/* A dot segment between '/' boundaries, literal or percent-encoded. */
static int dot_segment(const char *s, size_t n)
{
    size_t dots = 0, i = 0;
    while (i < n) {
        if (s[i] == '.') {
            dots++;
            i++;
        } else if (i + 3 <= n && s[i] == '%' && s[i + 1] == '2' && (s[i + 2] | 0x20) == 'e') {
            dots++;
            i += 3;
        } else {
            return 0;
        }
    }
    return dots == 1 || dots == 2;
}

int wg_rest_link_ok(char **out, const char *base, const char *link)
{
    *out = NULL;
    if (!base || !link || !*link)
        return wg_error_set(WG_EINVAL, "no next-page link");
    size_t ll = strlen(link);
    if (ll > WG_REST_LINK_MAX)
        return wg_error_set(WG_EINVAL, "next-page link longer than %d bytes", WG_REST_LINK_MAX);
    for (const unsigned char *p = (const unsigned char *)link; *p; p++)
        if (*p <= 0x20 || *p == 0x7f || *p == '#' || *p == '\\')
            return wg_error_set(WG_EINVAL, "next-page link has a forbidden character");
    char *abs = NULL;
    if (link[0] == '/') {
        if (link[1] == '/')
            return wg_error_set(WG_EINVAL, "next-page link is protocol-relative");
        size_t ol = origin_len(base);
        if (!ol || asprintf(&abs, "%.*s%s", (int)ol, base, link) < 0)
            return wg_error_set(WG_EINVAL, "next-page link cannot be resolved");
    } else if (!(abs = strdup(link))) {
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/')
        bl--;
    /* under the base: same origin and path prefix, at a boundary (the origin
     * compare is case-insensitive only for scheme and host) */
    size_t ol = origin_len(base);
    int ok = ol && strlen(abs) >= bl && strncasecmp(abs, base, ol) == 0 &&
             strncmp(abs + ol, base + ol, bl - ol) == 0 &&
             (abs[bl] == 0 || abs[bl] == '/' || abs[bl] == '?');
    if (ok && origin_len(abs) != ol)
        ok = 0;     /* "https://host.evil" under "https://host" */
    /* no dot segment anywhere in the path (curl would squash it, and the
     * server may decode %2e): a link cannot climb out of the prefix */
    const char *path = abs + (ok ? ol : 0);      /* abs may be shorter than ol when !ok */
    size_t pl = ok ? strcspn(path, "?") : 0;
    for (size_t i = 0; ok && i < pl;) {
        size_t seg = strcspn(path + i, "/");
        if (seg > pl - i)
            seg = pl - i;
        if (seg && dot_segment(path + i, seg))
            ok = 0;
        i += seg + 1;
    }
    /* nor an encoded slash or backslash a server might turn into one */
    for (size_t i = 0; ok && i + 2 < pl; i++)
        if (path[i] == '%' && ((path[i + 1] == '2' && (path[i + 2] | 0x20) == 'f') ||
                               (path[i + 1] == '5' && (path[i + 2] | 0x20) == 'c')))
            ok = 0;
    if (!ok) {
        free(abs);
        return wg_error_set(WG_EDENIED, "next-page link is not under the service's base URL");
    }
    *out = abs;
    return 0;
}

/* ---- headers -------------------------------------------------------------- */

static int token_chars_ok(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return 0;
    }
    return 1;
}

/* KEY_TOKEN: the "Authorization: OAuth ..." line (new in *line), from the
 * key in creds->extra or a "KEY:TOKEN" credential. WG_EINVAL when the key
 * is missing or either part has a character that could end the quotes. */
static int key_token_line(char **line, const wg_rest_ctx *ctx)
{
    const wg_connector_creds *c = ctx->call->creds;
    const char *tok = c && c->token ? c->token : "";
    const char *key = c ? c->extra : NULL;
    size_t kl = key ? strlen(key) : 0;
    const char *colon = strchr(tok, ':');
    if (!key && colon) {
        key = tok;
        kl = (size_t)(colon - tok);
        tok = colon + 1;
    }
    const char *id = ctx->call->spec->id;
    if (!key)
        return wg_error_set(WG_EINVAL, "%s needs its API key as well as the token (waggle "
                                       "connectors connect %s --set %s=KEY, or connect with "
                                       "KEY:TOKEN)", ctx->call->spec->name, id,
                            ctx->call->spec->extra_key ? ctx->call->spec->extra_key : "api_key");
    if (!token_chars_ok(key, kl) || !token_chars_ok(tok, strlen(tok)))
        return wg_error_set(WG_EINVAL, "the stored %s API key or token has characters a key "
                                       "never has; reconnect", ctx->call->spec->name);
    if (asprintf(line, "Authorization: OAuth oauth_consumer_key=\"%.*s\", oauth_token=\"%s\"",
                 (int)kl, key, tok) < 0) {
        *line = NULL;
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    return 0;
}

/* How this call's credential is sent (rest.h oauth_bearer). */
static wg_rest_auth auth_of(const wg_rest_ctx *ctx)
{
    const wg_connector_creds *c = ctx->call->creds;
    return ctx->rest->oauth_bearer && c && c->refreshable ? WG_REST_AUTH_BEARER : ctx->rest->auth;
}

static struct curl_slist *auth_headers(const wg_rest_ctx *ctx, struct curl_slist *h, int *err)
{
    const wg_connector_creds *c = ctx->call->creds;
    const char *tok = c && c->token ? c->token : "";
    char *line = NULL;
    int rc = 0;
    switch (auth_of(ctx)) {
    case WG_REST_AUTH_BEARER: rc = asprintf(&line, "Authorization: Bearer %s", tok); break;
    case WG_REST_AUTH_RAW: rc = asprintf(&line, "Authorization: %s", tok); break;
    case WG_REST_AUTH_BOT: rc = asprintf(&line, "Authorization: Bot %s", tok); break;
    case WG_REST_AUTH_HEADER: rc = asprintf(&line, "%s: %s", ctx->rest->auth_name, tok); break;
    case WG_REST_AUTH_BASIC_EMAIL: {
        char *pair = NULL;
        if (asprintf(&pair, "%s:%s", c && c->email ? c->email : "", tok) < 0) {
            *err = WG_ENOMEM;
            return h;
        }
        size_t pl = strlen(pair), el = sodium_base64_encoded_len(pl, sodium_base64_VARIANT_ORIGINAL);
        char *b64 = malloc(el);
        if (b64) {
            sodium_bin2base64(b64, el, (const unsigned char *)pair, pl, sodium_base64_VARIANT_ORIGINAL);
            rc = asprintf(&line, "Authorization: Basic %s", b64);
        }
        sodium_memzero(pair, pl);
        free(pair);
        free(b64);
        if (!b64)
            rc = -1;
        break;
    }
    case WG_REST_AUTH_QUERY: return h;
    case WG_REST_AUTH_KEY_TOKEN:
        if (key_token_line(&line, ctx) < 0) {
            *err = WG_EINVAL;
            return h;
        }
        break;
    }
    if (rc < 0) {
        *err = WG_ENOMEM;
        return h;
    }
    struct curl_slist *n = curl_slist_append(h, line);
    sodium_memzero(line, strlen(line));
    free(line);
    if (!n)
        *err = WG_ENOMEM;
    return n ? n : h;
}

/* curl_slist_append that keeps the list and records a failure in *err. */
static struct curl_slist *append_line(struct curl_slist *h, const char *line, int *err)
{
    struct curl_slist *n = curl_slist_append(h, line);
    if (!n) {
        *err = WG_ENOMEM;
        return h;
    }
    return n;
}

static int lines_set(const char *const *lines, const char *name)
{
    for (size_t i = 0; lines && lines[i]; i++)
        if (strncasecmp(lines[i], name, strlen(name)) == 0)
            return 1;
    return 0;
}

static int build_url(wg_sbuf *url, const wg_rest_ctx *ctx, const wg_rest_req *req)
{
    int first;
    int rc = 0;
    if (req->url) {
        wg_sbuf__puts(url, req->url);
        first = strchr(req->url, '?') == NULL;
    } else {
        char *base = NULL;
        if ((rc = effective_base(&base, ctx, req->base)) < 0)
            return rc;
        json_t *used = json_object();
        wg_sbuf__puts(url, base);
        free(base);
        const json_t *params = req->params ? req->params : used;
        rc = used ? build_path(url, req->path, params, used)
                  : wg_error_set(WG_ENOMEM, "out of memory");
        first = strchr(req->path, '?') == NULL;
        if (rc == 0)
            rc = build_query(url, req->query, params, used, &first);
        json_decref(used);
    }
    if (rc == 0 && auth_of(ctx) == WG_REST_AUTH_QUERY && !req->no_auth) {
        const wg_connector_creds *c = ctx->call->creds;
        query_pair(url, &first, ctx->rest->auth_name, c && c->token ? c->token : "");
    }
    if (rc == 0 && url->oom)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    return rc;
}

/* One attempt: builds the URL and headers from the current credential. */
static int send_once(wg_rest_response *r, const wg_rest_ctx *ctx, const wg_rest_req *req)
{
    const wg_connector_creds *c = ctx->call->creds;
    if (c && (has_crlf(c->token) || has_crlf(c->email)))
        return wg_error_set(WG_EINVAL, "the stored credential contains a line break; reconnect");
    for (size_t i = 0; req->headers && req->headers[i]; i++)
        if (has_crlf(req->headers[i]))
            return wg_error_set(WG_EINVAL, "a header value may not contain a line break");
    if (has_crlf(req->content_type))
        return wg_error_set(WG_EINVAL, "a content type may not contain a line break");
    wg_sbuf url = { 0 };
    int rc = build_url(&url, ctx, req);
    if (rc < 0) {
        if (url.p)
            sodium_memzero(url.p, url.len);
        free(url.p);
        return rc;
    }
    CURL *curl = curl_easy_init();
    struct curl_slist *h = NULL;
    char *payload = req->body ? json_dumps(req->body, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    const char *data = payload ? payload : req->raw;
    size_t data_len = payload ? strlen(payload) : req->raw_len;
    char *ct_line = NULL;
    sink s = { 0 };
    wg_upstream_pin pin = { 0 };
    int err = 0;
    if (!curl || (req->body && !payload)) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    /* before any header is built: a refused upstream never sees a credential */
    if ((rc = wg_upstream_curl(&pin, curl, url.p, WG_UPSTREAM_HTTP, ctx->call->upstream)) < 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", wg_error_last());
        rc = wg_error_set(rc, "%s: %s", ctx->rest->error_prefix, why);
        goto done;
    }
    if (!req->no_auth)
        h = auth_headers(ctx, h, &err);
    for (size_t i = 0; ctx->rest->headers && ctx->rest->headers[i]; i++)
        h = append_line(h, ctx->rest->headers[i], &err);
    for (size_t i = 0; req->headers && req->headers[i]; i++)
        h = append_line(h, req->headers[i], &err);
    if (data && !lines_set(ctx->rest->headers, "Content-Type:") &&
        !lines_set(req->headers, "Content-Type:")) {
        const char *ct = req->content_type ? req->content_type
                       : payload ? "application/json" : "application/octet-stream";
        if (asprintf(&ct_line, "Content-Type: %s", ct) < 0) {
            ct_line = NULL;
            err = WG_ENOMEM;
        } else {
            h = append_line(h, ct_line, &err);
        }
    }
    h = append_line(h, "Expect:", &err);
    if (err == WG_EINVAL) {
        rc = WG_EINVAL;         /* key_token_line said why */
        goto done;
    }
    if (err) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method_names[req->method]);
    if (data) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, data);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)data_len);
    } else if (req->method == WG_REST_GET) {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "Waggle/1.0");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT,
                     (long)(req->timeout_s > 0 ? req->timeout_s : DEFAULT_TIMEOUT_S));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &s);
    CURLcode cc = curl_easy_perform(curl);
    if (s.too_big) {
        rc = wg_error_set(WG_EUPSTREAM, "%s response larger than %d bytes",
                          ctx->rest->error_prefix, RESPONSE_CAP);
    } else if (pin.guard_refused) {
        rc = wg_error_set(WG_EDENIED, "%s: connection refused by the upstream policy (an "
                                      "address that was not checked)", ctx->rest->error_prefix);
    } else if (cc == CURLE_OPERATION_TIMEDOUT) {
        rc = wg_error_set(WG_ETIMEOUT, "%s request timed out", ctx->rest->error_prefix);
    } else if (cc != CURLE_OK || s.body.oom) {
        /* curl's message names the host, never the token or the query */
        rc = wg_error_set(WG_EIO, "%s request failed: %s", ctx->rest->error_prefix,
                          curl_easy_strerror(cc));
    } else {
        memset(r, 0, sizeof *r);
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
        r->text = s.body.p ? s.body.p : strdup("");
        r->len = s.body.len;
        r->json = r->len ? json_loadb(r->text, r->len, 0, NULL) : NULL;
        r->retry_after = s.retry_after;
        r->message_id = s.message_id;
        r->content_type = s.content_type;
        r->location = s.location;
        r->api_result = s.api_result;
        s.body.p = NULL;
        s.retry_after = s.message_id = s.content_type = s.location = s.api_result = NULL;
    }
done:
    if (url.p)
        sodium_memzero(url.p, url.len);   /* may hold a query credential */
    free(url.p);
    free(payload);
    free(ct_line);
    free(s.body.p);
    free(s.retry_after);
    free(s.message_id);
    free(s.content_type);
    free(s.location);
    free(s.api_result);
    curl_slist_free_all(h);
    curl_easy_cleanup(curl);
    wg_upstream_pin_clear(&pin);
    return rc;
}

int wg_rest_send(wg_rest_response *r, const wg_rest_ctx *ctx, const wg_rest_req *req)
{
    memset(r, 0, sizeof *r);
    int rc = send_once(r, ctx, req);
    const wg_connector_call *call = ctx->call;
    /* 401: the access token was refused; one fresh token, one more try */
    if (rc == 0 && r->status == 401 && !req->no_auth && call->reauth && call->reauth(call->reauth_ctx) == 0) {
        wg_rest_response_clear(r);
        rc = send_once(r, ctx, req);
    }
    return rc;
}

int wg_rest_call(wg_rest_response *r, const wg_rest_ctx *ctx, wg_rest_method m,
                 const char *path, const json_t *params, const char *query_spec,
                 const json_t *body, int timeout_s)
{
    wg_rest_req req = { .method = m, .path = path, .params = params, .query = query_spec,
                        .body = body, .timeout_s = timeout_s,
                        .base = ctx->action ? ctx->action->base : NULL };
    return wg_rest_send(r, ctx, &req);
}

/* ---- results ------------------------------------------------------------- */

json_t *wg_rest_call_failure(const wg_rest_ctx *ctx, int rc)
{
    (void)ctx;
    json_t *r = wg_connector_fail("%s", wg_error_last());
    if (r && rc == WG_ETIMEOUT)
        json_object_set_new(r, "retryable", json_true());
    return r;
}

long wg_rest_retry_after(const char *v, long long now_s)
{
    if (!v || !*v || strlen(v) > 64)
        return -1;
    if (strspn(v, "0123456789") == strlen(v)) {
        if (strlen(v) > 9)
            return -1;      /* more than 31 years: not a real answer */
        return strtol(v, NULL, 10);
    }
    time_t t = curl_getdate(v, NULL);
    if (t == (time_t)-1)
        return -1;
    return (long long)t > now_s ? (long)((long long)t - now_s) : 0;
}

static json_t *graphql_errors(const wg_rest_ctx *ctx, const json_t *errs)
{
    wg_sbuf b = { 0 };
    size_t i;
    json_t *e;
    json_array_foreach(errs, i, e) {
        if (i)
            wg_sbuf__puts(&b, "; ");
        const char *m = json_string_value(json_object_get(e, "message"));
        wg_sbuf__puts(&b, m ? m : "unknown error");
    }
    json_t *r = wg_connector_fail("%s GraphQL: %s", ctx->call->spec->name, b.p ? b.p : "");
    free(b.p);
    return r;
}

/* Google answers quota exhaustion with 403 and a reason such as
 * rateLimitExceeded or userRateLimitExceeded (Calendar, Drive, Gmail). */
static int rate_limited(const wg_rest_response *r)
{
    if (r->status == 429 || r->status >= 500)
        return 1;
    return r->status == 403 && r->text && strstr(r->text, "ateLimitExceeded");
}

/* data for RESP_CONTENT: the body as text, or base64 when it is not UTF-8. */
static json_t *content_data(const wg_rest_response *r)
{
    json_t *s = json_stringn(r->text ? r->text : "", r->len);
    if (s)
        return json_pack("{s:o}", "content", s);
    size_t el = sodium_base64_encoded_len(r->len, sodium_base64_VARIANT_ORIGINAL);
    char *b64 = malloc(el);
    if (!b64)
        return NULL;
    sodium_bin2base64(b64, el, (const unsigned char *)r->text, r->len,
                      sodium_base64_VARIANT_ORIGINAL);
    json_t *d = json_pack("{s:s,s:s}", "content", b64, "encoding", "base64");
    free(b64);
    return d;
}

int wg_rest_result(json_t **out, const wg_rest_ctx *ctx, wg_rest_response *r, wg_rest_resp mode)
{
    json_t *res = NULL;
    if (r->status < 200 || r->status > 299) {
        /* the token as sent, and as it looks percent-encoded in a URL */
        const char *tok = ctx->call->creds ? ctx->call->creds->token : NULL;
        wg_sbuf enc = { 0 };
        if (tok)
            encode(&enc, tok, strlen(tok));
        const char *secrets[] = { tok, enc.p, NULL };
        char *msg = NULL;
        int rc = wg_connector_safe_error(&msg, ctx->rest->error_prefix, r->status, r->text, r->len,
                                         secrets);
        if (enc.p)
            sodium_memzero(enc.p, enc.len);
        free(enc.p);
        if (rc < 0)
            return WG_ENOMEM;
        res = wg_connector_fail("%s", msg);
        free(msg);
        if (res) {
            json_object_set_new(res, "status", json_integer(r->status));
            if (rate_limited(r))
                json_object_set_new(res, "retryable", json_true());
            long ra = wg_rest_retry_after(r->retry_after, (long long)time(NULL));
            if (ra >= 0)
                json_object_set_new(res, "retryAfter", json_integer(ra));
        }
    } else if (mode == WG_REST_RESP_CONTENT) {
        res = wg_connector_ok(content_data(r));
    } else if (mode == WG_REST_RESP_SLACK && r->json &&
               json_is_false(json_object_get(r->json, "ok"))) {
        const char *e = json_string_value(json_object_get(r->json, "error"));
        res = e ? wg_connector_fail("%s", e)
                : wg_connector_fail("Slack API error: %s", ctx->action ? ctx->action->name : "");
    } else if (mode == WG_REST_RESP_GRAPHQL && r->json &&
               json_array_size(json_object_get(r->json, "errors")) > 0) {
        res = graphql_errors(ctx, json_object_get(r->json, "errors"));
    } else if (mode == WG_REST_RESP_GRAPHQL && r->json) {
        res = wg_connector_ok(json_incref(json_object_get(r->json, "data")));
    } else if (r->json) {
        res = wg_connector_ok(json_incref(r->json));
    } else {
        res = wg_connector_ok(r->len ? json_stringn(r->text, r->len) : json_object());
    }
    if (!res)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = res;
    return 0;
}

/* ---- JSON paths ------------------------------------------------------------ */

json_t *wg_rest_json_at(const json_t *v, const char *path)
{
    if (!path || !*path)
        return NULL;
    const char *p = path;
    json_t *cur = (json_t *)v;
    while (cur && *p) {
        size_t n = strcspn(p, "/");
        char key[128];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = 0;
        cur = json_object_get(cur, key);
        p += n;
        if (*p == '/')
            p++;
    }
    return cur;
}

/* The first segment of a path ("paging" of "paging/next/after"). */
static void first_key(char *key, size_t cap, const char *path)
{
    snprintf(key, cap, "%.*s", (int)strcspn(path, "/"), path);
}

/* ---- the generic operations ---------------------------------------------- */

static const wg_rest_action *find_rest_action(const wg_rest_spec *rest, const char *name)
{
    for (size_t i = 0; i < rest->n_actions; i++)
        if (strcmp(rest->actions[i].name, name) == 0)
            return &rest->actions[i];
    return NULL;
}

static int build_body(json_t **out, const wg_rest_action *a, const json_t *params)
{
    *out = NULL;
    switch (a->body) {
    case WG_REST_BODY_NONE:
    case WG_REST_BODY_RAW:
        return 0;
    case WG_REST_BODY_TEMPLATE:
        return wg_rest_fill(out, a->body_template, params);
    case WG_REST_BODY_GRAPHQL: {
        json_t *vars = NULL;
        int rc = wg_rest_fill(&vars, a->vars_template ? a->vars_template : "{}", params);
        if (rc < 0)
            return rc;
        *out = json_pack("{s:s,s:o}", "query", a->body_template, "variables", vars);
        return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
    }
    case WG_REST_BODY_PARAMS: {
        /* every input not consumed by the path or the query */
        json_t *b = json_deep_copy(params);
        for (const char *p = a->path; (p = strchr(p, '{')); p++) {
            const char *name = p + 1 + (p[1] == '+');
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)strcspn(name, "}"), name);
            json_object_del(b, key);
        }
        for (const char *p = a->query; p && *p;) {
            size_t n = strcspn(p, " =");
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)n, p);
            if (strchr(key, ':'))
                memmove(key, strchr(key, ':') + 1, strlen(strchr(key, ':')));
            json_object_del(b, key);
            p += strcspn(p, " ");
            while (*p == ' ')
                p++;
        }
        *out = b;
        return 0;
    }
    }
    return 0;
}

/* Sends the row once with params (a page of it). */
static int send_row(wg_rest_response *r, const wg_rest_ctx *ctx, const json_t *params)
{
    const wg_rest_action *a = ctx->action;
    json_t *body = NULL;
    int rc = build_body(&body, a, params);
    if (rc < 0)
        return rc;
    wg_rest_req req = { .method = a->method, .path = a->path, .base = a->base, .params = params,
                        .query = a->query, .body = body, .content_type = a->content_type,
                        .headers = a->headers, .timeout_s = a->timeout_s };
    if (a->body == WG_REST_BODY_RAW) {
        const json_t *raw = json_object_get(params, a->body_template);
        if (!json_is_string(raw))
            return wg_error_set(WG_EINVAL, "Missing required parameter: %s (a string)",
                                a->body_template);
        req.raw = json_string_value(raw);
        req.raw_len = json_string_length(raw);
        if (a->content_type && a->content_type[0] == '$') {
            /* the content type comes from an input the prepare hook computed */
            req.content_type = json_string_value(json_object_get(params, a->content_type + 1));
            if (!req.content_type)
                return wg_error_set(WG_EINTERNAL, "%s: no content type", a->name);
        }
    }
    rc = wg_rest_send(r, ctx, &req);
    json_decref(body);
    return rc;
}

/* The next page's request for a response `last`; 1 when there is one, 0
 * when the pages ended, < 0 on a refused continuation (message set). */
static int next_page(wg_rest_response *r, const wg_rest_ctx *ctx, const json_t *params,
                     const json_t *last)
{
    const wg_rest_paging *pg = &ctx->action->page;
    json_t *next = wg_rest_json_at(last, pg->next);
    if (!next || json_is_null(next) || (json_is_string(next) && !*json_string_value(next)))
        return 0;
    if (pg->more && !json_is_true(wg_rest_json_at(last, pg->more)))
        return 0;
    int rc;
    switch (pg->kind) {
    case WG_REST_PAGE_TOKEN: {
        if (!json_is_string(next) && !json_is_integer(next))
            return 0;
        json_t *np = json_deep_copy(params);
        if (!np || json_object_set(np, pg->param, next) < 0) {
            json_decref(np);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
        rc = send_row(r, ctx, np);
        json_decref(np);
        break;
    }
    case WG_REST_PAGE_LINK: {
        char *base = NULL, *url = NULL;
        if (!json_is_string(next))
            return 0;
        if ((rc = effective_base(&base, ctx, ctx->action->base)) < 0)
            return rc;
        rc = wg_rest_link_ok(&url, base, json_string_value(next));
        free(base);
        if (rc < 0)
            return rc;
        wg_rest_req req = { .method = WG_REST_GET, .url = url, .headers = ctx->action->headers,
                            .timeout_s = ctx->action->timeout_s };
        rc = wg_rest_send(r, ctx, &req);
        free(url);
        break;
    }
    case WG_REST_PAGE_CURSOR: {
        json_t *body = json_pack("{s:O}", "cursor", next);
        if (!body)
            return wg_error_set(WG_ENOMEM, "out of memory");
        wg_rest_req req = { .method = WG_REST_POST, .path = pg->path, .base = ctx->action->base,
                            .params = params, .body = body, .headers = ctx->action->headers,
                            .timeout_s = ctx->action->timeout_s };
        rc = wg_rest_send(r, ctx, &req);
        json_decref(body);
        break;
    }
    default:
        return 0;
    }
    return rc < 0 ? rc : 1;
}

/* maxPages from the inputs (removed from them). Returns 0 and *pages, or
 * WG_EINVAL outside 1..WG_REST_PAGES_MAX. */
static int take_max_pages(int *pages, json_t *params)
{
    *pages = WG_REST_PAGES_DEFAULT;
    json_t *v = json_object_get(params, "maxPages");
    if (!v || json_is_null(v)) {
        json_object_del(params, "maxPages");
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 1 ||
        json_integer_value(v) > WG_REST_PAGES_MAX)
        return wg_error_set(WG_EINVAL, "maxPages must be an integer from 1 to %d",
                            WG_REST_PAGES_MAX);
    *pages = (int)json_integer_value(v);
    json_object_del(params, "maxPages");
    return 0;
}

/* Follows pages after the first (in *acc, an object) and merges them. The
 * result is a ConnectorResult in *out: the merged data, "pages" and, when
 * the bound stopped us, "morePages". */
static int follow_pages(json_t **out, const wg_rest_ctx *ctx, const json_t *params,
                        json_t *acc, size_t total, int max_pages)
{
    const wg_rest_paging *pg = &ctx->action->page;
    json_t *items = wg_rest_json_at(acc, pg->items);
    json_t *last = json_incref(acc);
    int fetched = 1, more = 0, rc = 0;
    while (json_is_array(items)) {
        wg_rest_response r = { 0 };
        if (fetched >= max_pages) {
            /* is there a next page we are not fetching? */
            json_t *next = wg_rest_json_at(last, pg->next);
            more = next && !json_is_null(next) &&
                   !(json_is_string(next) && !*json_string_value(next)) &&
                   (!pg->more || json_is_true(wg_rest_json_at(last, pg->more)));
            break;
        }
        rc = next_page(&r, ctx, params, last);
        if (rc <= 0)
            break;
        total += r.len;
        if (r.status < 200 || r.status > 299 || !json_is_object(r.json)) {
            json_decref(last);
            json_decref(acc);
            rc = wg_rest_result(out, ctx, &r, ctx->action->response);
            if (rc == 0 && json_is_true(json_object_get(*out, "success"))) {
                json_decref(*out);
                *out = wg_connector_fail("%s: page %d is not a JSON object",
                                         ctx->rest->error_prefix, fetched + 1);
            }
            wg_rest_response_clear(&r);
            return *out ? 0 : WG_ENOMEM;
        }
        if (total > RESPONSE_CAP) {
            wg_rest_response_clear(&r);
            json_decref(last);
            json_decref(acc);
            *out = wg_connector_fail("%s responses larger than %d bytes in total",
                                     ctx->rest->error_prefix, RESPONSE_CAP);
            return *out ? 0 : WG_ENOMEM;
        }
        json_array_extend(items, wg_rest_json_at(r.json, pg->items));
        json_decref(last);
        last = json_incref(r.json);
        fetched++;
        wg_rest_response_clear(&r);
    }
    if (rc < 0) {
        /* a refused continuation: keep what we have, say why we stopped */
        json_t *res = wg_connector_ok(json_incref(acc));
        if (res) {
            json_object_set_new(res, "pages", json_integer(fetched));
            json_object_set_new(res, "morePages", json_true());
            json_object_set_new(res, "pagingStopped", json_string(wg_error_last()));
        }
        json_decref(last);
        json_decref(acc);
        *out = res;
        return res ? 0 : WG_ENOMEM;
    }
    /* the continuation (and "more" flag) of the last page fetched */
    const char *paths[] = { pg->next, pg->more };
    for (size_t i = 0; i < 2 && last != acc; i++) {
        if (!paths[i])
            continue;
        char key[128];
        first_key(key, sizeof key, paths[i]);
        json_t *v = json_object_get(last, key);
        if (v)
            json_object_set(acc, key, v);
        else
            json_object_del(acc, key);
    }
    json_decref(last);
    json_t *res = wg_connector_ok(acc);
    if (res) {
        json_object_set_new(res, "pages", json_integer(fetched));
        if (more)
            json_object_set_new(res, "morePages", json_true());
    }
    *out = res;
    return res ? 0 : WG_ENOMEM;
}

int wg_rest_run(json_t **out, const wg_rest_ctx *ctx, const json_t *params_in)
{
    const wg_rest_action *a = ctx->action;
    json_t *params = params_in ? json_deep_copy(params_in) : json_object();
    int pages = 1;
    if (!params)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = take_max_pages(&pages, params);
    if (rc == 0 && a->prepare) {
        json_t *prepared = NULL;
        rc = a->prepare(&prepared, ctx, params);
        json_decref(params);
        params = prepared;
    }
    if (rc < 0) {
        json_decref(params);
        *out = wg_connector_fail("%s", wg_error_last());
        return *out ? 0 : WG_ENOMEM;
    }
    wg_rest_response r = { 0 };
    rc = send_row(&r, ctx, params);
    if (rc < 0) {
        json_decref(params);
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    if (a->page.kind != WG_REST_PAGE_NONE && r.status >= 200 && r.status <= 299 &&
        json_is_object(r.json)) {
        json_t *acc = json_deep_copy(r.json);
        size_t total = r.len;
        wg_rest_response_clear(&r);
        rc = acc ? follow_pages(out, ctx, params, acc, total, pages)
                 : wg_error_set(WG_ENOMEM, "out of memory");
        json_decref(params);
        return rc;
    }
    rc = wg_rest_result(out, ctx, &r, a->response);
    if (rc == 0 && a->result_template && json_is_true(json_object_get(*out, "success"))) {
        json_t *data = NULL;
        if (wg_rest_fill(&data, a->result_template, params) == 0) {
            if (a->response == WG_REST_RESP_CONTENT && json_is_object(data))
                json_object_update(json_object_get(*out, "data"), data);
            else
                json_object_set(*out, "data", data);
        }
        json_decref(data);
    }
    wg_rest_response_clear(&r);
    json_decref(params);
    return rc;
}

int wg_rest_quote(char **out, const char *text, size_t max, char quote, const char *special,
                  char esc)
{
    size_t n = strlen(text);
    if (n > max)
        return wg_error_set(WG_EINVAL, "text longer than %zu bytes", max);
    char *o = malloc(2 * n + 3), *w = o;
    if (!o)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *w++ = quote;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c == 0x7f) {
            free(o);
            return wg_error_set(WG_EINVAL, "text may not contain control characters");
        }
        if (strchr(special, c))
            *w++ = esc ? esc : (char)c;
        *w++ = (char)c;
    }
    *w++ = quote;
    *w = 0;
    *out = o;
    return 0;
}

int wg_rest_mime_ok(const char *m)
{
    size_t n = m ? strlen(m) : 0, slash = 0;
    if (!n || n > 127)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = m[i];
        if (c == '/') {
            if (slash++ || !i || i == n - 1)
                return 0;
        } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     strchr("!#$&-^_.+", c))) {
            return 0;
        }
    }
    return slash == 1;
}

int wg_rest_run_path(json_t **out, const wg_rest_ctx *ctx, const json_t *params,
                     const char *path)
{
    wg_rest_action alt = *ctx->action;
    alt.path = path;
    alt.custom = NULL;
    wg_rest_ctx c2 = { ctx->call, ctx->rest, &alt };
    return wg_rest_run(out, &c2, params);
}

static int rest_execute(json_t **out, const wg_connector_call *call,
                        const wg_connector_action *action, const json_t *params)
{
    const wg_rest_spec *rest = call->spec->impl;
    const wg_rest_action *a = find_rest_action(rest, action->name);
    wg_rest_ctx ctx = { call, rest, a };
    if (!a) {
        *out = wg_connector_fail("Unknown action: %s", action->name);
        return *out ? 0 : WG_ENOMEM;
    }
    if (a->custom)
        return a->custom(out, &ctx, params);
    return wg_rest_run(out, &ctx, params);
}

static int rest_health(char **error, const wg_connector_call *call)
{
    const wg_rest_spec *rest = call->spec->impl;
    wg_rest_ctx ctx = { call, rest, NULL };
    json_t *body = rest->health_body ? json_loads(rest->health_body, 0, NULL) : NULL;
    json_t *params = json_object();
    wg_rest_response r = { 0 };
    wg_rest_req req = { .method = rest->health_method, .path = rest->health_path,
                        .base = rest->health_base, .params = params, .body = body,
                        .timeout_s = HEALTH_TIMEOUT_S };
    int rc = wg_rest_send(&r, &ctx, &req);
    json_decref(body);
    json_decref(params);
    if (rc < 0) {
        *error = strdup(wg_error_last());
        return rc;
    }
    json_t *res = NULL;
    rc = wg_rest_result(&res, &ctx, &r, rest->health_response);
    wg_rest_response_clear(&r);
    if (rc < 0)
        return rc;
    if (!json_is_true(json_object_get(res, "success"))) {
        const char *e = json_string_value(json_object_get(res, "error"));
        *error = strdup(e ? e : "health check failed");
        json_decref(res);
        return WG_EUPSTREAM;
    }
    json_decref(res);
    return 0;
}

const wg_connector_ops wg_rest_ops = { .execute = rest_execute, .health = rest_health };

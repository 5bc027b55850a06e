/* rest.c - the one declarative REST executor on libcurl (spec 8, issue 7).
 *
 * Every REST connector is a table (src/connect/specs/<service>.c); this file
 * turns a row plus the caller's inputs into one HTTP exchange and the
 * exchange into a ConnectorResult. Inputs are untrusted (they come from an
 * LLM): they are encoded per position, never spliced into a string, and
 * dot segments are refused so a path cannot climb to another endpoint
 * (reference 13 item 11). Redirects are not followed, so the credential is
 * only ever sent to the configured base URL, and that URL's host passes the
 * upstream policy (upstream.h: checked after resolution, the connection
 * pinned to the checked addresses) before any header is built.
 */
#include "connect/rest.h"
#include "connect/upstream.h"
#include "waggle/error.h"

#include <curl/curl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    RESPONSE_CAP = 10 * 1024 * 1024,   /* bytes kept from any upstream body */
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
    memset(r, 0, sizeof *r);
}

/* ---- growing buffer ----------------------------------------------------- */

typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* ---- encoding ----------------------------------------------------------- */

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

static void encode(buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c)) {
            put(b, (const char *)&c, 1);
        } else {
            char e[3] = { '%', hex[c >> 4], hex[c & 15] };
            put(b, e, 3);
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
    buf b = { 0 };
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
static int build_path(buf *b, const char *tmpl, const json_t *params, json_t *used)
{
    const char *p = tmpl;
    while (*p) {
        const char *open = strchr(p, '{');
        if (!open) {
            puts_(b, p);
            break;
        }
        put(b, p, (size_t)(open - p));
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
                        put(b, "/", 1);
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

static void query_pair(buf *b, int *first, const char *k, const char *v)
{
    put(b, *first ? "?" : "&", 1);
    *first = 0;
    encode(b, k, strlen(k));
    put(b, "=", 1);
    encode(b, v, strlen(v));
}

static void query_value(buf *b, int *first, const char *k, const json_t *v)
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

static int build_query(buf *b, const char *spec, const json_t *params, json_t *used, int *first)
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
    buf body;
    int too_big;
    char *retry_after;
    char *message_id;
} sink;

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->body.len + len > RESPONSE_CAP) {
        s->too_big = 1;
        return 0;       /* aborts the transfer */
    }
    put(&s->body, data, len);
    return s->body.oom ? 0 : len;
}

static char *header_value(const char *line, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (len <= n + 1 || strncasecmp(line, name, n) || line[n] != ':')
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
    char *v;
    if ((v = header_value(data, len, "Retry-After"))) {
        free(s->retry_after);
        s->retry_after = v;
    } else if ((v = header_value(data, len, "X-Message-Id"))) {
        free(s->message_id);
        s->message_id = v;
    }
    return len;
}

static int has_crlf(const char *s)
{
    return s && strpbrk(s, "\r\n") != NULL;
}

/* The stored base URL when one applies, else the spec's. A stored base
 * URL of a connector that is not self-hostable counts only when the
 * operator stored it (docs/security.md 2.2): otherwise *refused is set. */
static const char *base_url(const wg_rest_ctx *ctx, char **owned, int *refused)
{
    const wg_connector_creds *c = ctx->call->creds;
    *owned = NULL;
    *refused = 0;
    if (c && c->base_url && *c->base_url && !ctx->call->spec->self_hostable &&
        c->base_url_by != WG_PRINCIPAL_OPERATOR) {
        *refused = 1;
        return NULL;
    }
    if (c && c->base_url && *c->base_url) {
        size_t n = strlen(c->base_url);
        while (n && c->base_url[n - 1] == '/')
            n--;
        if (asprintf(owned, "%.*s%s", (int)n, c->base_url,
                     ctx->rest->base_suffix ? ctx->rest->base_suffix : "") < 0)
            return NULL;
        return *owned;
    }
    return ctx->rest->default_base;
}

static struct curl_slist *auth_headers(const wg_rest_ctx *ctx, struct curl_slist *h, int *err)
{
    const wg_connector_creds *c = ctx->call->creds;
    const char *tok = c && c->token ? c->token : "";
    char *line = NULL;
    int rc = 0;
    switch (ctx->rest->auth) {
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

static int build_url(buf *url, const wg_rest_ctx *ctx, const char *path,
                     const json_t *params, const char *query_spec)
{
    char *owned;
    int refused;
    const char *base = base_url(ctx, &owned, &refused);
    if (refused)
        return wg_error_set(WG_EDENIED, "%s: the stored base URL was not set by the operator, "
                                        "and only the operator may set one for this connector "
                                        "(waggle connectors connect %s --base-url URL)",
                            ctx->call->spec->name, ctx->call->spec->id);
    if (!base) {
        free(owned);
        return wg_error_set(WG_EINVAL, "%s needs a base URL (connector:%s:base_url)",
                            ctx->call->spec->name, ctx->call->spec->id);
    }
    json_t *used = json_object();
    puts_(url, base);
    free(owned);
    int rc = build_path(url, path, params, used);
    int first = strchr(path, '?') == NULL;
    if (rc == 0)
        rc = build_query(url, query_spec, params, used, &first);
    if (rc == 0 && ctx->rest->auth == WG_REST_AUTH_QUERY) {
        const wg_connector_creds *c = ctx->call->creds;
        query_pair(url, &first, ctx->rest->auth_name, c && c->token ? c->token : "");
    }
    json_decref(used);
    if (rc == 0 && url->oom)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    return rc;
}

static int spec_sets(const wg_rest_spec *rest, const char *name)
{
    for (size_t i = 0; rest->headers && rest->headers[i]; i++)
        if (strncasecmp(rest->headers[i], name, strlen(name)) == 0)
            return 1;
    return 0;
}

int wg_rest_call(wg_rest_response *r, const wg_rest_ctx *ctx, wg_rest_method m,
                 const char *path, const json_t *params, const char *query_spec,
                 const json_t *body, int timeout_s)
{
    const wg_connector_creds *c = ctx->call->creds;
    if (c && (has_crlf(c->token) || has_crlf(c->email)))
        return wg_error_set(WG_EINVAL, "the stored credential contains a line break; reconnect");
    buf url = { 0 };
    int rc = build_url(&url, ctx, path, params, query_spec);
    if (rc < 0) {
        free(url.p);
        return rc;
    }
    CURL *curl = curl_easy_init();
    struct curl_slist *h = NULL;
    char *payload = body ? json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    sink s = { 0 };
    wg_upstream_pin pin = { 0 };
    int err = 0;
    if (!curl || (body && !payload)) {
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
    h = auth_headers(ctx, h, &err);
    for (size_t i = 0; ctx->rest->headers && ctx->rest->headers[i]; i++)
        h = curl_slist_append(h, ctx->rest->headers[i]);
    if (payload && !spec_sets(ctx->rest, "Content-Type:"))
        h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    if (err || !h) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method_names[m]);
    if (payload) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(payload));
    } else if (m == WG_REST_GET) {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "Waggle/1.0");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)(timeout_s > 0 ? timeout_s : DEFAULT_TIMEOUT_S));
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
        s.body.p = NULL;
        s.retry_after = s.message_id = NULL;
    }
done:
    if (url.p)
        sodium_memzero(url.p, url.len);   /* may hold a query credential */
    free(url.p);
    free(payload);
    free(s.body.p);
    free(s.retry_after);
    free(s.message_id);
    curl_slist_free_all(h);
    curl_easy_cleanup(curl);
    wg_upstream_pin_clear(&pin);
    return rc;
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

static json_t *graphql_errors(const wg_rest_ctx *ctx, const json_t *errs)
{
    buf b = { 0 };
    size_t i;
    json_t *e;
    json_array_foreach(errs, i, e) {
        if (i)
            puts_(&b, "; ");
        const char *m = json_string_value(json_object_get(e, "message"));
        puts_(&b, m ? m : "unknown error");
    }
    json_t *r = wg_connector_fail("%s GraphQL: %s", ctx->call->spec->name, b.p ? b.p : "");
    free(b.p);
    return r;
}

int wg_rest_result(json_t **out, const wg_rest_ctx *ctx, wg_rest_response *r, wg_rest_resp mode)
{
    json_t *res = NULL;
    if (r->status < 200 || r->status > 299) {
        /* the token as sent, and as it looks percent-encoded in a URL */
        const char *tok = ctx->call->creds ? ctx->call->creds->token : NULL;
        buf enc = { 0 };
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
            if (r->status == 429 || r->status >= 500)
                json_object_set_new(res, "retryable", json_true());
            if (r->retry_after && strlen(r->retry_after) < 64 &&
                strspn(r->retry_after, "0123456789") == strlen(r->retry_after))
                json_object_set_new(res, "retryAfter", json_integer(atoll(r->retry_after)));
        }
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
    json_t *body = NULL;
    int rc = build_body(&body, a, params);
    if (rc < 0) {
        *out = wg_connector_fail("%s", wg_error_last());
        return *out ? 0 : WG_ENOMEM;
    }
    wg_rest_response r = { 0 };
    rc = wg_rest_call(&r, &ctx, a->method, a->path, params, a->query, body, a->timeout_s);
    json_decref(body);
    if (rc < 0) {
        *out = wg_rest_call_failure(&ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    rc = wg_rest_result(out, &ctx, &r, a->response);
    if (rc == 0 && a->result_template && json_is_true(json_object_get(*out, "success"))) {
        json_t *data = NULL;
        if (wg_rest_fill(&data, a->result_template, params) == 0)
            json_object_set_new(*out, "data", data);
    }
    wg_rest_response_clear(&r);
    return rc;
}

static int rest_health(char **error, const wg_connector_call *call)
{
    const wg_rest_spec *rest = call->spec->impl;
    wg_rest_ctx ctx = { call, rest, NULL };
    json_t *body = rest->health_body ? json_loads(rest->health_body, 0, NULL) : NULL;
    json_t *params = json_object();
    wg_rest_response r = { 0 };
    int rc = wg_rest_call(&r, &ctx, rest->health_method, rest->health_path, params, NULL, body,
                          HEALTH_TIMEOUT_S);
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

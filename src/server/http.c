/* http.c - libmicrohttpd glue: one request's life from its request line to
 * the access log line. The order of checks is the contract in route.h.
 *
 * Keep-alive: libmicrohttpd 0.9.75 answers "Connection: close" when a
 * response is queued on the very first callback of a request, so the first
 * callback only checks the head and decides; the response is queued on a
 * later one (measured 71k vs 12k req/s). A refusal decided from the head
 * (path, header size, body size) is answered after the body was read and
 * thrown away (up to WG_SERVER_DRAIN_MAX), so an ordinary client that sends
 * its whole body before reading gets the JSON answer instead of a reset.
 * Ambiguous framing (two Content-Length, an unknown Transfer-Encoding) is
 * answered at once and the connection closed: its body has no safe end.
 *
 * Connections: watch.c limits them per client address (trusted proxies
 * exempt) and closes those that take too long to send a request;
 * libmicrohttpd's own limit, below RLIMIT_NOFILE, bounds them all. */
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

#include "server/metrics.h"
#include "server/server_int.h"
#include "server/session.h"
#include "server/web.h"
#include "server/sse.h"
#include "server/tiering.h"
#include "server/watch.h"
#include "waggle/error.h"

#include <sys/resource.h>
#include <strings.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

enum {
    LOG_PATH_MAX = 200,
    REQUEST_ID_MAX = 64,         /* a client's X-Request-Id longer than this is replaced */
    URL_MAX = 8192,              /* decoded path: 414 past it */
    QUERY_VALUES_MAX = 32,       /* query values checked for echoes; more fails closed */
    FD_RESERVE = 64,             /* descriptors kept for the store, upstreams, files */
    FD_RESERVE_PER_THREAD = 4,   /* each worker's epoll and wake-up descriptors */
    CONNECTIONS_MIN = 16,
    DEFAULT_CONNECTIONS = 1000,
    DEFAULT_PER_IP = 64,
    DEFAULT_DEADLINE_S = 30
};

/* A refusal decided from the request head. */
typedef struct {
    int status;
    const char *code, *msg;      /* static strings */
} refusal;

typedef struct {
    unsigned long long t0;       /* µs, monotonic, at the request line */
    char method[8];
    char path[LOG_PATH_MAX + 1];  /* sanitized copy for the log */
    char *body;
    size_t len, cap;
    int begun;                   /* the first access callback ran */
    int nul_in_target;           /* the raw request target holds %00 */
    int counted;                 /* counted in srv->in_flight */
    refusal refuse;              /* status 0: none; else answered after the body */
    size_t discarded;            /* body bytes thrown away */
    int queued;
    int status;
    char request_id[REQUEST_ID_MAX + 1];  /* echoed as X-Request-Id, logged */
    size_t route_row;            /* the matched row of srv->table, or SIZE_MAX */
} req_state;

static const refusal too_large = { 413, "PAYLOAD_TOO_LARGE", "request body is larger than 1 MiB" };

static unsigned long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/* Copies what may safely appear in a log line: printable ASCII except the
 * quote and backslash; the rest becomes '?'. */
static void log_safe_copy(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < cap; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c > 0x20 && c < 0x7F && c != '"' && c != '\\') ? (char)c : '?';
    }
    dst[i] = '\0';
}

void wg_server__logf(const wg_server_ctx *ctx, const char *fmt, ...)
{
    if (!ctx || !ctx->log)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_ud, line);
}

/* ---- request accessors (route.h) ------------------------------------------ */

const char *wg_req_param(const wg_req *req, const char *name)
{
    for (size_t i = 0; i < req->n_params; i++)
        if (strcmp(req->param_name[i], name) == 0)
            return req->param_value[i];
    return NULL;
}

const char *wg_req_query(const wg_req *req, const char *name)
{
    if (!req->conn)
        return NULL;
    return MHD_lookup_connection_value((struct MHD_Connection *)req->conn,
                                       MHD_GET_ARGUMENT_KIND, name);
}

const char *wg_req_header(const wg_req *req, const char *name)
{
    if (!req->conn)
        return NULL;
    return MHD_lookup_connection_value((struct MHD_Connection *)req->conn, MHD_HEADER_KIND,
                                       name);
}

const char *wg_req_cookie(const wg_req *req, const char *name)
{
    if (!req->conn)
        return NULL;
    return MHD_lookup_connection_value((struct MHD_Connection *)req->conn, MHD_COOKIE_KIND,
                                       name);
}

void *wg_server__area_state(const wg_server_ctx *ctx, const char *area)
{
    const wg_server *srv = ctx->priv;
    for (size_t a = 0; a < srv->n_areas; a++)
        if (strcmp(wg_server__areas[a]->name, area) == 0)
            return srv->area_state[a];
    return NULL;
}

/* ---- sending --------------------------------------------------------------- */

static void add_cors(struct MHD_Response *r, const wg_server *srv, struct MHD_Connection *c)
{
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    MHD_add_response_header(r, "Vary", "Origin");
    if (!wg_guard__origin_ok(srv, origin))
        return;
    MHD_add_response_header(r, "Access-Control-Allow-Origin", origin);
    /* the MCP transport's headers too (routes_mcp.c), so a browser client of an
     * allowed origin can keep its session */
    MHD_add_response_header(r, "Access-Control-Allow-Headers",
                            "Authorization, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, "
                            "Last-Event-ID");
    MHD_add_response_header(r, "Access-Control-Expose-Headers", "Mcp-Session-Id");
    MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE");
    MHD_add_response_header(r, "Access-Control-Max-Age", "600");
}

/* Every answer names its request (docs/server.md, "Logs"), so a client's
 * report can be found in the log. */
static void add_request_id(struct MHD_Response *r, const req_state *st)
{
    if (st->request_id[0])
        MHD_add_response_header(r, "X-Request-Id", st->request_id);
}

/* The client's X-Request-Id when it is 1..64 of [A-Za-z0-9._:-] (a proxy's
 * id, so one request reads the same in both logs); else 16 random hex. */
static void set_request_id(req_state *st, struct MHD_Connection *c)
{
    const char *given = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Request-Id");
    size_t n = given ? strlen(given) : 0;
    int ok = n > 0 && n <= REQUEST_ID_MAX &&
             strspn(given, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") == n;
    if (ok) {
        memcpy(st->request_id, given, n + 1);
        return;
    }
    unsigned char raw[8];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(st->request_id, sizeof st->request_id, raw, sizeof raw);
}

static void *conn_watch(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

/* A server-sent event stream: a content reader that suspends the
 * connection instead of blocking (sse.c). The stream is owned by the
 * response from here on. */
static enum MHD_Result send_stream(struct MHD_Connection *c, wg_server *srv, req_state *st,
                                   wg_res *res)
{
    wg_sse *stream = res->stream;
    res->stream = NULL;
    wg_sse__attach(stream, c);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
                                                               wg_sse__read, stream,
                                                               wg_sse__release);
    if (!r) {
        wg_sse__release(stream);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream; charset=utf-8");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    for (int i = 0; i < res->n_headers; i++)
        MHD_add_response_header(r, res->header_name[i], res->header_value[i]);
    add_cors(r, srv, c);
    add_request_id(r, st);
    st->status = 200;
    st->queued = 1;
    enum MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_res(struct MHD_Connection *c, wg_server *srv, req_state *st,
                                wg_res *res)
{
    wg_watch__answering(srv->watch, conn_watch(c));
    if (res->stream)
        return send_stream(c, srv, st, res);
    char *buf = NULL;
    size_t len = 0;
    const char *ctype = "application/json; charset=utf-8";
    if (res->json) {
        buf = json_dumps(res->json, JSON_COMPACT);
        if (!buf) {
            res->status = 500;
            buf = strdup("{\"error\":\"INTERNAL_ERROR\",\"message\":\"cannot encode response\"}");
        }
        len = buf ? strlen(buf) : 0;
    } else if (res->text) {
        buf = res->text;
        len = res->text_len;
        res->text = NULL;
        ctype = res->content_type ? res->content_type : "text/plain; charset=utf-8";
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(len, buf ? buf : (char *)"",
        buf ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(buf);
        return MHD_NO;
    }
    if (len || res->json)
        MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    for (int i = 0; i < res->n_headers; i++)
        MHD_add_response_header(r, res->header_name[i], res->header_value[i]);
    add_cors(r, srv, c);
    add_request_id(r, st);
    st->status = res->status;
    st->queued = 1;
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)res->status, r);
    MHD_destroy_response(r);
    return ok;
}

/* 1 when the service runs on a shared store that cannot be reached now. */
static int store_down(wg_server *srv)
{
    wg_store *store = srv->ctx.store;
    if (!store || !wg_store_is_shared(store))
        return 0;
    if (wg_store_ping(store) == 0)
        return 0;
    wg_error_clear();
    return 1;
}

static enum MHD_Result send_error(struct MHD_Connection *c, wg_server *srv, req_state *st,
                                  int status, const char *code, const char *msg)
{
    wg_res res = { 0 };
    wg_res_error(&res, status, code, "%s", msg);
    if (status == 401)
        wg_res_header(&res, "WWW-Authenticate", "Bearer");
    enum MHD_Result ok = send_res(c, srv, st, &res);
    wg_res_clear(&res);
    return ok;
}

typedef struct {
    unsigned n;
    const char *values[QUERY_VALUES_MAX];
    int overflow;
} query_values;

static enum MHD_Result collect_query(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    (void)kind;
    query_values *q = cls;
    for (int i = 0; i < 2; i++) {
        const char *v = i ? value : key;
        if (!v || !*v || (!i && wg_echo__is_field_name(v)))
            continue;
        if (q->n == QUERY_VALUES_MAX) {
            q->overflow = 1;
            return MHD_NO;
        }
        q->values[q->n++] = v;
    }
    return MHD_YES;
}

/* Error messages never quote the request (echo.c). */
static void scrub_echo(wg_res *res, struct MHD_Connection *c, const wg_req *req)
{
    if (!res->formatted || res->status < 400)
        return;
    query_values q = { 0 };
    for (size_t i = 0; i < req->n_params; i++)
        q.values[q.n++] = req->param_value[i];
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_query, &q);
    wg_echo_sources src = { q.values, q.n, req->body, q.overflow };
    wg_echo__scrub(res, &src);
}

/* ---- the checks ------------------------------------------------------------- */

static int is_api_path(const char *url)
{
    return strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0;
}

/* The bearer token when an Authorization header is sent (programs; never
 * mixed with a cookie), else the dashboard's session cookie: 1 (the API
 * token's rights, never the admin's) with *via_cookie set. */
static int authenticate(struct MHD_Connection *c, wg_server *srv, int *via_cookie)
{
    const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (authz)
        return wg_guard__bearer(srv, authz);
    const char *sid = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, WG_SESSION_COOKIE);
    if (!sid || wg_session__check(NULL, srv->ctx.store, sid, wg_session__now_ms()) < 0) {
        wg_error_clear();
        return 0;
    }
    *via_cookie = 1;
    return 1;
}

/* Origin must name this service; a browser that says the request is not
 * same-origin (Sec-Fetch-Site) is believed too. */
static int cookie_origin_ok(struct MHD_Connection *c)
{
    const char *site = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site");
    if (site && strcmp(site, "same-origin") != 0)
        return 0;
    return wg_guard__same_origin(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"),
                                 MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"));
}

/* An embedded dashboard file (web.h): its type, the CSP and the other
 * browser-hardening headers, an ETag and 304 on a match. */
static enum MHD_Result send_asset(struct MHD_Connection *c, wg_server *srv, req_state *st,
                                  const wg_web_asset *a)
{
    wg_watch__answering(srv->watch, conn_watch(c));
    const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
    int fresh = inm && strcmp(inm, a->etag) == 0;
    struct MHD_Response *r = MHD_create_response_from_buffer(fresh ? 0 : a->len,
                                                             (void *)a->data,
                                                             MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    if (!fresh)
        MHD_add_response_header(r, "Content-Type", wg_web__content_type(a->path));
    MHD_add_response_header(r, "ETag", a->etag);
    MHD_add_response_header(r, "Cache-Control", WG_WEB_CACHE_CONTROL);
    MHD_add_response_header(r, "Content-Security-Policy", WG_WEB_CSP);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Cross-Origin-Opener-Policy", "same-origin");
    MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
    add_request_id(r, st);
    unsigned status = fresh ? 304 : 200;
    st->status = (int)status;
    st->queued = 1;
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result preflight(struct MHD_Connection *c, wg_server *srv, req_state *st)
{
    wg_res res = { 0 };
    wg_res_text(&res, 204, NULL, NULL, 0);
    enum MHD_Result ok = send_res(c, srv, st, &res);
    wg_res_clear(&res);
    return ok;
}

static enum MHD_Result dispatch(struct MHD_Connection *c, wg_server *srv, req_state *st,
                                const char *url, const char *method_s)
{
    if (!wg_guard__host_ok(srv, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
        return send_error(c, srv, st, 403, "HOST_NOT_ALLOWED",
                          "the Host header does not name this service");
    if (strcmp(method_s, "OPTIONS") == 0)
        return preflight(c, srv, st);

    wg_http_method method = wg_http__method_parse(method_s);
    if (!is_api_path(url) && (method == WG_HTTP_GET || strcmp(method_s, "HEAD") == 0)) {
        const wg_web_asset *asset = wg_web__find(url);
        if (asset)
            return send_asset(c, srv, st, asset);
    }
    int via_cookie = 0;
    int token = is_api_path(url) ? authenticate(c, srv, &via_cookie) : 0;
    size_t ulen = strlen(url);
    char stack_scratch[512];
    char *scratch = ulen < sizeof stack_scratch ? stack_scratch : malloc(ulen + 1);
    if (!scratch)
        return MHD_NO;
    wg_route_match m;
    wg_route__match(&m, &srv->table, method, url, scratch);
    enum MHD_Result ok;
    /* 401 before 404/405 on /api/: an unauthenticated client learns nothing
     * of the route table, except the rows that need no token. */
    if (is_api_path(url) && !token && !(m.entry && (m.entry->route->flags & WG_ROUTE_PUBLIC))) {
        ok = send_error(c, srv, st, 401, "UNAUTHORIZED",
                        "missing or wrong bearer token (see DATA_DIR/api-token), or no "
                        "dashboard session (run `waggle dashboard`)");
        goto out;
    }
    /* CSRF: a browser session changes state only from this service's own
     * pages. SameSite=Strict keeps the cookie from other sites, but another
     * port of the same host is the same site; Origin tells them apart. */
    if (via_cookie && method != WG_HTTP_GET && !cookie_origin_ok(c)) {
        ok = send_error(c, srv, st, 403, "ORIGIN_NOT_ALLOWED",
                        "a dashboard session may change state only from the dashboard's own "
                        "pages (the Origin header must name this service)");
        goto out;
    }
    if (!m.entry) {
        if (m.allow) {
            wg_res res = { 0 };
            char allow[64];
            wg_http__allow_list(allow, sizeof allow, m.allow);
            wg_res_error(&res, 405, "METHOD_NOT_ALLOWED", "use %s for this route", allow);
            wg_res_header(&res, "Allow", allow);
            ok = send_res(c, srv, st, &res);
            wg_res_clear(&res);
        } else {
            ok = send_error(c, srv, st, 404, "NOT_FOUND", "no such route");
        }
        goto out;
    }
    const wg_http_route *route = m.entry->route;
    st->route_row = (size_t)(m.entry - srv->table.rows);
    /* A route outside /api/ that needs a token takes the bearer only: the
     * session cookie is for the dashboard's /api/ calls, whose Origin was
     * checked above. */
    if (!(route->flags & WG_ROUTE_PUBLIC) && !token) {
        token = wg_guard__bearer(srv, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                                  "Authorization"));
        if (!token) {
            ok = send_error(c, srv, st, 401, "UNAUTHORIZED",
                            "missing or wrong bearer token (see DATA_DIR/api-token)");
            goto out;
        }
    }
    if ((route->flags & WG_ROUTE_ADMIN) && token != 2) {
        ok = send_error(c, srv, st, 403, "ADMIN_REQUIRED",
                        "this route needs the admin token (DATA_DIR/admin-token)");
        goto out;
    }
    for (size_t i = 0; i < m.n_params; i++) {
        if (!wg_route__param_ok(m.param_value[i])) {
            wg_res res = { 0 };
            char msg[96];
            snprintf(msg, sizeof msg, "path parameter %.*s is not a valid name",
                     (int)strcspn(m.param_name[i], "/"), m.param_name[i]);
            wg_res_json(&res, 400, json_pack("{s:s,s:s}", "error", "INVALID_PARAM",
                                             "message", msg));
            ok = send_res(c, srv, st, &res);
            wg_res_clear(&res);
            goto out;
        }
    }

    /* Replicas: while the shared store is unreachable every route that
     * needs it would fail half way; answer 503 at once, and recover on the
     * first request after it is back (wg_store_ping reconnects). */
    if (store_down(srv)) {
        ok = send_error(c, srv, st, 503, "UNAVAILABLE",
                        "the shared store (PostgreSQL) is unreachable; retry shortly");
        goto out;
    }
    wg_res res = { 0 };
    if (route->min_tier != WG_ROUTE_FREE &&
        wg_tiering__check(&res, &srv->ctx, route->min_tier) != 0) {
        ok = send_res(c, srv, st, &res);
        wg_res_clear(&res);
        goto out;
    }

    char param_names[WG_ROUTE_MAX_PARAMS][32];
    wg_req req = { 0 };
    req.method = method;
    req.path = url;
    req.n_params = m.n_params;
    for (size_t i = 0; i < m.n_params; i++) {
        size_t n = strcspn(m.param_name[i], "/");
        if (n >= sizeof param_names[i])
            n = sizeof param_names[i] - 1;
        memcpy(param_names[i], m.param_name[i], n);
        param_names[i][n] = '\0';
        req.param_name[i] = param_names[i];
        req.param_value[i] = m.param_value[i];
    }
    req.raw_body = st->body ? st->body : "";
    req.raw_len = st->len;
    req.ctx = &srv->ctx;
    req.area_state = srv->area_state[m.entry->area];
    req.conn = c;
    if (!(route->flags & WG_ROUTE_RAW_BODY)) {
        json_error_t jerr;
        if (st->len == 0 || method == WG_HTTP_GET) {
            req.body = json_object();
        } else {
            req.body = json_loadb(st->body, st->len, JSON_REJECT_DUPLICATES, &jerr);
            if (!req.body || !json_is_object(req.body)) {
                const char *why = req.body ? "the request body must be a JSON object"
                                           : "the request body is not valid JSON";
                json_decref(req.body);
                wg_res_error(&res, 400, "INVALID_JSON", "%s", why);
                ok = send_res(c, srv, st, &res);
                wg_res_clear(&res);
                goto out;
            }
        }
    }

    wg_error_clear();
    int rc = route->fn(&res, &req);
    if (rc < 0 && res.status == 0)
        wg_res__from_error(&res, rc, &srv->ctx);
    else if (res.status == 0)
        wg_res_error(&res, 500, "INTERNAL_ERROR", "the handler gave no answer");
    if (res.status == 500 && store_down(srv)) {
        /* the store went away during the handler: say so, not "internal" */
        wg_res_clear(&res);
        memset(&res, 0, sizeof res);
        wg_res_error(&res, 503, "UNAVAILABLE",
                     "the shared store (PostgreSQL) is unreachable; retry shortly");
    }
    scrub_echo(&res, c, &req);
    json_decref(req.body);
    ok = send_res(c, srv, st, &res);
    wg_res_clear(&res);
out:
    if (scratch != stack_scratch)
        free(scratch);
    return ok;
}

/* ---- the request head ------------------------------------------------------- */

typedef struct {
    unsigned fields, content_length, transfer_encoding;
    const char *te;
} head_count;

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void)kind;
    head_count *h = cls;
    h->fields++;
    if (strcasecmp(key, "Content-Length") == 0)
        h->content_length++;
    if (strcasecmp(key, "Transfer-Encoding") == 0) {
        h->transfer_encoding++;
        h->te = value;
    }
    return MHD_YES;
}

/* "%00" decodes to a NUL that would cut the path (or a query value) short:
 * /api/connectors/obsidian/connect%00junk must not reach connect. */
static int has_encoded_nul(const char *uri)
{
    for (const char *p = uri; (p = strchr(p, '%')) != NULL; p++)
        if (p[1] == '0' && p[2] == '0')
            return 1;
    return 0;
}

/* Framing that has no single reading (RFC 9112 6.1, 6.3): answered at once,
 * and the connection closed, because the body's end is unknown. */
static const refusal *framing_refusal(const head_count *h)
{
    static const refusal two_te = { 400, "INVALID_REQUEST",
                                    "more than one Transfer-Encoding header" };
    static const refusal bad_te = { 400, "INVALID_REQUEST",
                                    "Transfer-Encoding must be chunked" };
    static const refusal te_cl = { 400, "INVALID_REQUEST",
                                   "Transfer-Encoding and Content-Length together" };
    static const refusal two_cl = { 400, "INVALID_REQUEST",
                                    "more than one Content-Length header" };
    if (h->transfer_encoding > 1)
        return &two_te;
    if (h->transfer_encoding && (!h->te || strcasecmp(h->te, "chunked") != 0))
        return &bad_te;
    if (h->transfer_encoding && h->content_length)
        return &te_cl;
    if (h->content_length > 1)
        return &two_cl;
    return NULL;
}

/* The refusals a well-framed head can earn, in route.h's order. */
static const refusal *head_refusal(struct MHD_Connection *c, const req_state *st,
                                   const head_count *h, const char *url)
{
    static const refusal long_url = { 414, "URI_TOO_LONG", "the request path is too long" };
    static const refusal big_head = { 431, "HEADERS_TOO_LARGE",
                                      "the request headers are larger than 16 KiB or more than 100" };
    static const refusal nul = { 400, "INVALID_PARAM",
                                 "the request path or query holds an encoded NUL (%00)" };
    const union MHD_ConnectionInfo *hs =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (strlen(url) > URL_MAX)
        return &long_url;
    if ((hs && hs->header_size > WG_SERVER_HEAD_MAX) || h->fields > WG_SERVER_HEADER_FIELDS_MAX)
        return &big_head;
    if (st->nul_in_target)
        return &nul;
    return NULL;
}

static int expects_continue(struct MHD_Connection *c)
{
    const char *e = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Expect");
    return e && strcasecmp(e, "100-continue") == 0;
}

/* ---- libmicrohttpd callbacks ------------------------------------------------ */

/* Called with the raw request target (before %-decoding) as soon as the
 * request line is in; what it returns is the request's state. */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
    wg_server *srv = cls;
    wg_watch__request_line(srv->watch, conn_watch(c));
    req_state *st = calloc(1, sizeof *st);
    if (st) {
        st->t0 = now_us();
        st->nul_in_target = has_encoded_nul(uri);
        st->route_row = SIZE_MAX;
    }
    return st;
}

/* The head is complete: decide what to do with the body. */
static enum MHD_Result on_head(struct MHD_Connection *c, wg_server *srv, req_state *st,
                               const char *url, const char *method)
{
    st->begun = 1;
    set_request_id(st, c);
    log_safe_copy(st->method, sizeof st->method, method);
    log_safe_copy(st->path, sizeof st->path, url);
    atomic_fetch_add(&srv->in_flight, 1);
    st->counted = 1;
    head_count h = { 0 };
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &h);
    const refusal *r = framing_refusal(&h);
    if (r)
        return send_error(c, srv, st, r->status, r->code, r->msg);
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    unsigned long long declared = cl ? strtoull(cl, NULL, 10) : 0;
    r = head_refusal(c, st, &h, url);
    if (!r && declared > WG_SERVER_BODY_MAX)
        r = &too_large;
    if (!r)
        return MHD_YES;    /* never queue here otherwise: see the file comment */
    /* A client that waits for "100 Continue" need not send the body at all,
     * and one past the drain bound is not worth reading: answer now (the
     * connection closes). Otherwise read the body, then answer. */
    int body = declared > 0 || h.transfer_encoding;
    if (body && (expects_continue(c) || declared > WG_SERVER_DRAIN_MAX))
        return send_error(c, srv, st, r->status, r->code, r->msg);
    st->refuse = *r;
    return MHD_YES;
}

static enum MHD_Result on_body(req_state *st, const char *upload, size_t n)
{
    if (!st->refuse.status && st->len + n > WG_SERVER_BODY_MAX) {
        st->refuse = too_large;
        st->discarded = st->len;
        free(st->body);
        st->body = NULL;
        st->len = st->cap = 0;
    }
    if (st->refuse.status) {
        /* past the drain bound the client gets a closed connection */
        st->discarded += n;
        return st->discarded > WG_SERVER_DRAIN_MAX ? MHD_NO : MHD_YES;
    }
    if (st->len + n + 1 > st->cap) {
        size_t cap = st->cap ? st->cap : 4096;
        while (cap < st->len + n + 1)
            cap *= 2;
        char *b = realloc(st->body, cap);
        if (!b)
            return MHD_NO;
        st->body = b;
        st->cap = cap;
    }
    memcpy(st->body + st->len, upload, n);
    st->len += n;
    st->body[st->len] = '\0';
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    wg_server *srv = cls;
    req_state *st = *con_cls;
    if (!st)               /* on_request_line ran out of memory */
        return MHD_NO;
    if (!st->begun)
        return on_head(c, srv, st, url, method);
    if (st->queued) {      /* answered early; drop the rest */
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        return on_body(st, upload, n);
    }
    if (st->refuse.status)
        return send_error(c, srv, st, st->refuse.status, st->refuse.code, st->refuse.msg);
    return dispatch(c, srv, st, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    wg_server *srv = cls;
    wg_watch__answered(srv->watch, conn_watch(c));
    req_state *st = *con_cls;
    if (!st)
        return;
    if (st->queued)
        wg_metrics__request(wg_metrics__of(&srv->ctx), st->route_row, st->method, st->status,
                            now_us() - st->t0);
    if (srv->log && st->queued)
        wg_server__logf(&srv->ctx, "access method=%s path=%s status=%d us=%llu request_id=%s%s",
                        st->method, st->path, st->status, now_us() - st->t0, st->request_id,
                        why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " aborted=1");
    if (st->counted)
        atomic_fetch_sub(&srv->in_flight, 1);
    free(st->body);
    free(st);
    *con_cls = NULL;
}

static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
    wg_server *srv = cls;
    if (atomic_load(&srv->stopping))
        return MHD_NO;
    return wg_watch__admit(srv->watch, addr, len) ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode what)
{
    wg_server *srv = cls;
    if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
        wg_watch__closed(srv->watch, *socket_ctx);
        *socket_ctx = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *ad =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ad ? ad->client_addr : NULL;
    socklen_t len = !sa ? 0 : sa->sa_family == AF_INET6 ? (socklen_t)sizeof(struct sockaddr_in6)
                                                        : (socklen_t)sizeof(struct sockaddr_in);
    *socket_ctx = wg_watch__opened(srv->watch, fd ? fd->connect_fd : -1, sa, len);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    wg_server *srv = cls;
    if (!srv->log)
        return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    wg_server__logf(&srv->ctx, "mhd %s", line);
}

/* The global connection limit: what was asked (or DEFAULT_CONNECTIONS), and
 * never so close to RLIMIT_NOFILE that the store, the upstream connections
 * and the workers run out of descriptors. */
static int connection_limit(unsigned *out, unsigned asked, unsigned threads)
{
    struct rlimit rl;
    unsigned long long room = ~0ull, nofile = 0;
    unsigned long long reserve = FD_RESERVE + (unsigned long long)FD_RESERVE_PER_THREAD * threads;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        nofile = (unsigned long long)rl.rlim_cur;
        room = nofile > reserve ? nofile - reserve : 0;
    }
    if (asked && asked < threads)
        return wg_error_set(WG_EINVAL, "the connection limit %u is below the %u worker threads",
                            asked, threads);
    if (asked > room)
        return wg_error_set(WG_EINVAL,
                            "the connection limit %u is above what RLIMIT_NOFILE %llu allows "
                            "(%llu, keeping %llu descriptors for the service): raise ulimit -n "
                            "or lower the limit", asked, nofile, room, reserve);
    unsigned n = asked ? asked : room < DEFAULT_CONNECTIONS ? (unsigned)room : DEFAULT_CONNECTIONS;
    if (!asked && n < CONNECTIONS_MIN)
        return wg_error_set(WG_EINVAL,
                            "RLIMIT_NOFILE %llu leaves room for fewer than %d connections: "
                            "raise ulimit -n", nofile, CONNECTIONS_MIN);
    *out = n;
    return 0;
}

static int start_watch(wg_server *srv, const wg_http_limits *lim, unsigned connections,
                       unsigned *per_ip, unsigned *deadline_s)
{
    *per_ip = lim->per_ip ? lim->per_ip
            : connections < DEFAULT_PER_IP ? connections : DEFAULT_PER_IP;
    if (*per_ip > connections)
        return wg_error_set(WG_EINVAL, "the per-address limit %u is above the connection limit %u",
                            *per_ip, connections);
    *deadline_s = lim->deadline_s ? lim->deadline_s : DEFAULT_DEADLINE_S;
    wg_watch_options wo = { 0 };
    wo.per_ip = *per_ip;
    wo.request_deadline_ms = *deadline_s * 1000;
    wo.gap_ms = (lim->timeout_s + *deadline_s) * 1000;
    wo.max_connections = connections;
    wo.trusted = lim->trusted;
    wo.log = srv->log;
    wo.log_ud = srv->log_ud;
    int rc = wg_watch__new(&srv->watch, &wo);
    if (rc == 0 && (rc = wg_watch__start(srv->watch)) < 0) {
        wg_watch__free(srv->watch);
        srv->watch = NULL;
    }
    return rc;
}

int wg_http__start(wg_server *srv, const char *host, unsigned port, const wg_http_limits *lim)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *sa;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons((unsigned short)port);
        sa = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons((unsigned short)port);
        sa = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        return wg_error_set(WG_EINVAL, "listen address %s is not an IP address", host);
    }
    unsigned connections = 0, per_ip = 0, deadline_s = 0;
    int rc = connection_limit(&connections, lim->max_connections, lim->threads);
    if (rc < 0 || (rc = start_watch(srv, lim, connections, &per_ip, &deadline_s)) < 0)
        return rc;
    struct MHD_Daemon *d = MHD_start_daemon(flags, (unsigned short)port, on_accept, srv,
        on_request, srv,
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv,
        MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_THREAD_POOL_SIZE, lim->threads,
        MHD_OPTION_CONNECTION_TIMEOUT, lim->timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)WG_SERVER_CONN_MEMORY,
        MHD_OPTION_CONNECTION_LIMIT, connections,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 512u,
        MHD_OPTION_URI_LOG_CALLBACK, on_request_line, srv,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_END);
    if (!d) {
        wg_watch__free(srv->watch);
        srv->watch = NULL;
        return wg_error_set(WG_EIO, "cannot listen on %s port %u (in use, or not permitted)",
                            host, port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : port;
    srv->mhd = d;
    wg_server__logf(&srv->ctx, "limits connections=%u per_address=%u request_deadline_s=%u "
                    "idle_timeout_s=%u trusted_proxies=%zu", connections, per_ip, deadline_s,
                    lim->timeout_s, lim->n_trusted);
    return 0;
}

void wg_http__stop(wg_server *srv)
{
    struct MHD_Daemon *d = srv->mhd;
    if (!d)
        return;
    /* Event streams end first and their connections are resumed: stopping
     * libmicrohttpd with a suspended connection is undefined. */
    wg_sse__hub_close(srv->sse);
    /* Stop accepting, then give requests in flight up to 10 s to finish
     * before connections are closed. The watchdog goes last: it may act on
     * any connection until libmicrohttpd has closed them all.
     * New connections are refused by on_accept rather than by
     * MHD_quiesce_daemon: with a thread pool on epoll, libmicrohttpd 0.9.75's
     * quiesce races its own workers over removing the listen socket from
     * their epoll sets and aborts the process ("Failed to remove listen FD
     * from epoll set", seen in CI under ASan). */
    atomic_store(&srv->stopping, 1);
    for (int i = 0; i < 1000 && atomic_load(&srv->in_flight) > 0; i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d);
    srv->mhd = NULL;
    wg_watch__free(srv->watch);
    srv->watch = NULL;
}

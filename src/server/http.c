/* http.c - libmicrohttpd glue: one request's life from the first callback to
 * the access log line. The order of checks is the contract in route.h.
 *
 * Keep-alive: libmicrohttpd 0.9.75 answers "Connection: close" when a
 * response is queued on the very first callback of a request, so the first
 * callback only allocates the per-request state; the response is queued on
 * a later one (measured 71k vs 12k req/s). */
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

#include "server/server_int.h"
#include "server/sse.h"
#include "server/tiering.h"
#include "waggle/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LOG_PATH_MAX = 200, URL_MAX = 8192 };

typedef struct {
    unsigned long long t0;       /* µs, monotonic */
    char method[8];
    char path[LOG_PATH_MAX + 1];  /* sanitized copy for the log */
    char *body;
    size_t len, cap;
    int too_large;
    size_t discarded;
    int queued;
    int status;
} req_state;

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

void wg_server_logf(const wg_server_ctx *ctx, const char *fmt, ...)
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

void *wg_server_area_state(const wg_server_ctx *ctx, const char *area)
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
    MHD_add_response_header(r, "Access-Control-Allow-Headers", "Authorization, Content-Type");
    MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE");
    MHD_add_response_header(r, "Access-Control-Max-Age", "600");
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
    add_cors(r, srv, c);
    st->status = 200;
    st->queued = 1;
    enum MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_res(struct MHD_Connection *c, wg_server *srv, req_state *st,
                                wg_res *res)
{
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
    st->status = res->status;
    st->queued = 1;
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)res->status, r);
    MHD_destroy_response(r);
    return ok;
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

/* ---- the checks ------------------------------------------------------------- */

static int is_api_path(const char *url)
{
    return strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0;
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
    if (st->too_large)
        return send_error(c, srv, st, 413, "PAYLOAD_TOO_LARGE",
                          "request body is larger than 1 MiB");
    if (!wg_guard__host_ok(srv, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
        return send_error(c, srv, st, 403, "HOST_NOT_ALLOWED",
                          "the Host header does not name this service");
    if (strcmp(method_s, "OPTIONS") == 0)
        return preflight(c, srv, st);
    if (strlen(url) > URL_MAX)
        return send_error(c, srv, st, 414, "URI_TOO_LONG", "the request path is too long");

    int token = 0;
    if (is_api_path(url)) {
        token = wg_guard__bearer(srv, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                                  "Authorization"));
        if (!token)
            return send_error(c, srv, st, 401, "UNAUTHORIZED",
                              "missing or wrong bearer token (see DATA_DIR/api-token)");
    }

    wg_http_method method = wg_http__method_parse(method_s);
    size_t ulen = strlen(url);
    char stack_scratch[512];
    char *scratch = ulen < sizeof stack_scratch ? stack_scratch : malloc(ulen + 1);
    if (!scratch)
        return MHD_NO;
    wg_route_match m;
    wg_route__match(&m, &srv->table, method, url, scratch);
    enum MHD_Result ok;
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
    json_decref(req.body);
    ok = send_res(c, srv, st, &res);
    wg_res_clear(&res);
out:
    if (scratch != stack_scratch)
        free(scratch);
    return ok;
}

/* ---- libmicrohttpd callbacks ------------------------------------------------ */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    wg_server *srv = cls;
    req_state *st = *con_cls;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st)
            return MHD_NO;
        st->t0 = now_us();
        log_safe_copy(st->method, sizeof st->method, method);
        log_safe_copy(st->path, sizeof st->path, url);
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > WG_SERVER_BODY_MAX)
            st->too_large = 1;
        atomic_fetch_add(&srv->in_flight, 1);
        *con_cls = st;
        /* A declared body over the limit is refused before "100 Continue"
         * and before reading it; closing the connection is what we want. */
        if (st->too_large)
            return send_error(c, srv, st, 413, "PAYLOAD_TOO_LARGE",
                              "request body is larger than 1 MiB");
        return MHD_YES;    /* never queue here otherwise: see the file comment */
    }
    if (st->queued) {      /* answered early (413); drop the rest */
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (!st->too_large && st->len + n > WG_SERVER_BODY_MAX) {
            st->too_large = 1;
            free(st->body);
            st->body = NULL;
            st->len = 0;
        }
        /* libmicrohttpd cannot queue a response in the middle of a body, so
         * an oversized chunked body is discarded and answered 413 at its
         * end; past 16 MiB the connection is simply closed. */
        if (st->too_large) {
            st->discarded += n;
            return st->discarded > 16u * WG_SERVER_BODY_MAX ? MHD_NO : MHD_YES;
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
    return dispatch(c, srv, st, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    (void)c;
    wg_server *srv = cls;
    req_state *st = *con_cls;
    if (!st)
        return;
    if (srv->log && st->queued)
        wg_server_logf(&srv->ctx, "access method=%s path=%s status=%d us=%llu%s", st->method,
                       st->path, st->status, now_us() - st->t0,
                       why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " aborted=1");
    free(st->body);
    free(st);
    *con_cls = NULL;
    atomic_fetch_sub(&srv->in_flight, 1);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    wg_server *srv = cls;
    if (!srv->log)
        return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    wg_server_logf(&srv->ctx, "mhd %s", line);
}

int wg_http__start(wg_server *srv, const char *host, unsigned port, unsigned threads,
                   unsigned timeout_s)
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
    struct MHD_Daemon *d = MHD_start_daemon(flags, (unsigned short)port, NULL, NULL,
        on_request, srv,
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv,
        MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16 * 1024,
        MHD_OPTION_CONNECTION_LIMIT, 1000u,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 512u,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_END);
    if (!d)
        return wg_error_set(WG_EIO, "cannot listen on %s port %u (in use, or not permitted)",
                            host, port);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : port;
    srv->mhd = d;
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
     * before connections are closed. */
    MHD_quiesce_daemon(d);
    for (int i = 0; i < 1000 && atomic_load(&srv->in_flight) > 0; i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d);
    srv->mhd = NULL;
}

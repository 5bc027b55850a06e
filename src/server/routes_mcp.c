/* routes_mcp.c - /mcp: the MCP session (src/mcp/session.h) over MCP's
 * Streamable HTTP transport (MCP 2025-11-25 "Transports"), bearer-token
 * protected like every route but /healthz.
 *
 *   POST /mcp    one JSON-RPC message. initialize (without Mcp-Session-Id)
 *                makes a session and answers with its Mcp-Session-Id; every
 *                other message needs that header (400 without, 404 for an
 *                unknown or ended session). A response or notification is
 *                202 with no body. A request is answered with
 *                application/json when the answer is ready at once (ping,
 *                tools/list, ...), else with a text/event-stream that
 *                carries the call's progress, the elicitation/create it
 *                asks and finally its response.
 *   GET /mcp     the session's own event stream (list_changed); one at a time
 *   DELETE /mcp  ends the session (its running calls finish first)
 *
 * Security (the transport's note): an Origin header that is neither one of
 * the operator's --cors-origin values nor this service's own origin is 403;
 * an MCP-Protocol-Version header naming a revision this server does not
 * speak is 400 (any revision it speaks is accepted, as the transport says:
 * "invalid or unsupported"); the client must accept application/json and text/event-stream
 * (406). The Host check (DNS rebinding) ran before.
 *
 * Nothing here blocks a pool thread: a stream with nothing to send suspends
 * its connection (sse.c), and the calls run on the session's own threads.
 * Sessions: at most WG_MCP_HTTP_SESSIONS; when full, the longest-idle one
 * idle for WG_MCP_HTTP_IDLE_MS with no call running is ended, else 503. An
 * ended session is freed on a thread of its own (its calls may still run). */
#include "mcp/jsonrpc.h"
#include "mcp/session.h"
#include "server/route.h"
#include "server/server_int.h"
#include "server/sse.h"
#include "waggle/error.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WG_MCP_HTTP_SESSIONS = 64, SID_LEN = 32 };
#define WG_MCP_HTTP_IDLE_MS (10 * 60 * 1000LL)

static const char *const protocols[] = { "2025-11-25", "2025-06-18", "2025-03-26" };

/* Where the messages of one client request go. */
typedef struct route {
    json_t *id;
    wg_sse *stream;          /* our reference */
    int sync;                /* the POST handler is still inside wg_mcp__session_handle */
    int done;                /* its response was sent */
    int wrote;               /* messages already on the stream */
    char *captured;          /* sync and nothing else written: the response itself */
    struct route *next;
} route;

typedef struct area area;

typedef struct hsession {
    char id[SID_LEN + 1];
    area *a;
    wg_mcp_session *mcp;
    pthread_mutex_t mu;      /* routes, get */
    route *routes;
    wg_sse *get;             /* GET /mcp stream (our reference) or NULL */
    /* under the area's lock */
    int refs;                /* the map's and each handler's */
    int64_t used_ms;
    struct hsession *next;
} hsession;

struct area {
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* a destroy thread ended */
    hsession *head;
    size_t n;
    size_t destroying;       /* sessions being freed: fini waits for them */
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- outgoing messages ---------------------------------------------------------- */

static void route_free(route *r)
{
    json_decref(r->id);
    if (r->stream)
        wg_sse__unref(r->stream);
    free(r->captured);
    free(r);
}

static void unlink_route(hsession *h, route *r)
{
    for (route **p = &h->routes; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            return;
        }
}

/* wg_mcp_send_fn: never blocks (the streams buffer). */
static void hs_send(void *ud, const json_t *related, int final, const char *line, size_t len)
{
    hsession *h = ud;
    pthread_mutex_lock(&h->mu);
    route *r = NULL;
    for (route *p = related ? h->routes : NULL; p && !r; p = p->next)
        if (!p->done && json_equal(p->id, related))
            r = p;
    if (r) {
        if (final && r->sync && !r->wrote) {
            r->captured = strndup(line, len);
        } else {
            wg_sse__push(r->stream, "message", line, final);
            r->wrote++;
        }
        if (final) {
            r->done = 1;
            if (!r->sync) {
                unlink_route(h, r);
                route_free(r);
            }
        }
    } else if (h->get && !final) {
        /* unrelated, or its request's stream is gone: the session's own stream */
        wg_sse__push(h->get, "message", line, 0);
    }
    pthread_mutex_unlock(&h->mu);
}

/* ---- sessions ---------------------------------------------------------------------- */

static void *destroy_thread(void *arg)
{
    hsession *h = arg;
    wg_mcp__session_free(h->mcp);   /* waits for running calls */
    pthread_mutex_lock(&h->mu);
    while (h->routes) {
        route *r = h->routes;
        h->routes = r->next;
        wg_sse__push(r->stream, NULL, NULL, 1);
        route_free(r);
    }
    if (h->get) {
        wg_sse__push(h->get, NULL, NULL, 1);
        wg_sse__unref(h->get);
    }
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_destroy(&h->mu);
    area *a = h->a;
    free(h);
    pthread_mutex_lock(&a->mu);
    a->destroying--;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

static void destroy(hsession *h, int wait)
{
    area *a = h->a;
    pthread_mutex_lock(&a->mu);
    a->destroying++;
    pthread_mutex_unlock(&a->mu);
    pthread_t t;
    if (!wait && pthread_create(&t, NULL, destroy_thread, h) == 0) {
        pthread_detach(t);
        return;
    }
    destroy_thread(h);
}

static void release(area *a, hsession *h)
{
    pthread_mutex_lock(&a->mu);
    int last = --h->refs == 0;
    pthread_mutex_unlock(&a->mu);
    if (last)
        destroy(h, 0);
}

/* Takes h out of the map (the map's reference goes). Caller holds a->mu. */
static int unmap_locked(area *a, hsession *h)
{
    for (hsession **p = &a->head; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            a->n--;
            return --h->refs == 0;
        }
    return 0;
}

static hsession *find(area *a, const char *sid)
{
    if (!sid || strlen(sid) != SID_LEN)
        return NULL;
    pthread_mutex_lock(&a->mu);
    hsession *h = a->head;
    while (h && sodium_memcmp(h->id, sid, SID_LEN) != 0)
        h = h->next;
    if (h) {
        h->refs++;
        h->used_ms = mono_ms();
    }
    pthread_mutex_unlock(&a->mu);
    return h;
}

/* Room for one more: the longest-idle session without a running call goes. */
static int make_room_locked(area *a, hsession **evicted)
{
    *evicted = NULL;
    if (a->n < WG_MCP_HTTP_SESSIONS)
        return 0;
    hsession *old = NULL;
    int64_t now = mono_ms();
    for (hsession *h = a->head; h; h = h->next)
        if (now - h->used_ms >= WG_MCP_HTTP_IDLE_MS && h->refs == 1 &&
            wg_mcp__session_running(h->mcp) == 0 && (!old || h->used_ms < old->used_ms))
            old = h;
    if (!old)
        return -1;
    if (unmap_locked(a, old))
        *evicted = old;
    return 0;
}

static int create(hsession **out, area *a, wg_engine *engine)
{
    hsession *h = calloc(1, sizeof *h);
    if (!h)
        return wg_error_set(WG_ENOMEM, "out of memory");
    unsigned char raw[SID_LEN / 2];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(h->id, sizeof h->id, raw, sizeof raw);
    pthread_mutex_init(&h->mu, NULL);
    h->a = a;
    wg_mcp_options o = WG_MCP_OPTIONS_INIT;
    o.engine = engine;
    o.actor = "mcp";
    o.send = hs_send;
    o.send_ud = h;
    int rc = wg_mcp__session_new(&h->mcp, &o);
    if (rc < 0) {
        pthread_mutex_destroy(&h->mu);
        free(h);
        return rc;
    }
    hsession *evicted = NULL;
    pthread_mutex_lock(&a->mu);
    if (make_room_locked(a, &evicted) < 0) {
        pthread_mutex_unlock(&a->mu);
        destroy(h, 0);
        return wg_error_set(WG_EBUSY, "too many MCP sessions are open (at most %d)",
                            WG_MCP_HTTP_SESSIONS);
    }
    h->refs = 2;             /* the map's and the caller's */
    h->used_ms = mono_ms();
    h->next = a->head;
    a->head = h;
    a->n++;
    pthread_mutex_unlock(&a->mu);
    if (evicted)
        destroy(evicted, 0);
    *out = h;
    return 0;
}

/* ---- the checks -------------------------------------------------------------------- */

static int rpc_status(wg_res *res, int status, int code, const char *why)
{
    return wg_res_json(res, status, wg_rpc__error(NULL, code, why, NULL));
}

/* No Origin (not a browser), one the operator listed, or this service's own
 * (a page it served, on a Host the DNS-rebinding check already accepted). */
static int origin_ok(const wg_req *req)
{
    const char *origin = wg_req_header(req, "Origin");
    return !origin || wg_guard__origin_ok(req->ctx->priv, origin) ||
           wg_guard__same_origin(origin, wg_req_header(req, "Host"));
}

static int accepts(const wg_req *req, const char *type)
{
    const char *a = wg_req_header(req, "Accept");
    return a && (strstr(a, type) || strstr(a, "*/*"));
}

/* 0, or an answer already in *res. */
static int common_checks(wg_res *res, const wg_req *req)
{
    if (!origin_ok(req))
        return rpc_status(res, 403, WG_RPC_INVALID_REQUEST, "this Origin may not use /mcp"), -1;
    const char *pv = wg_req_header(req, "MCP-Protocol-Version");
    if (pv) {
        size_t i = 0, n = sizeof protocols / sizeof *protocols;
        while (i < n && strcmp(protocols[i], pv) != 0)
            i++;
        if (i == n)
            return rpc_status(res, 400, WG_RPC_INVALID_REQUEST,
                              "unsupported MCP-Protocol-Version"), -1;
    }
    return 0;
}

static int session_of(hsession **out, wg_res *res, const wg_req *req, area *a)
{
    const char *sid = wg_req_header(req, "Mcp-Session-Id");
    if (!sid)
        return rpc_status(res, 400, WG_RPC_INVALID_REQUEST,
                          "Mcp-Session-Id header required (initialize first)"), -1;
    if (!(*out = find(a, sid)))
        return rpc_status(res, 404, WG_RPC_INVALID_REQUEST,
                          "no such MCP session (it ended): initialize again"), -1;
    return 0;
}

/* ---- POST /mcp ---------------------------------------------------------------------- */

static int answer_request(wg_res *res, const wg_req *req, hsession *h, const wg_rpc_msg *m)
{
    wg_sse *s = NULL;
    int rc = wg_sse__open_plain(&s, req->ctx->sse);
    if (rc < 0)
        return rpc_status(res, 503, WG_RPC_INTERNAL_ERROR, wg_error_last());
    route *r = calloc(1, sizeof *r);
    if (!r) {
        wg_sse__release(s);
        wg_sse__unref(s);
        return rpc_status(res, 500, WG_RPC_INTERNAL_ERROR, "out of memory");
    }
    r->id = json_deep_copy(m->id);
    r->stream = s;
    r->sync = 1;
    pthread_mutex_lock(&h->mu);
    r->next = h->routes;
    h->routes = r;
    pthread_mutex_unlock(&h->mu);

    wg_mcp__session_handle(h->mcp, req->raw_body, req->raw_len);

    pthread_mutex_lock(&h->mu);
    r->sync = 0;
    char *captured = r->captured;
    r->captured = NULL;
    if (r->done) {
        unlink_route(h, r);
        route_free(r);       /* drops our stream reference */
    }
    pthread_mutex_unlock(&h->mu);
    if (captured) {
        wg_sse__release(s);  /* never sent: the response's reference */
        return wg_res_text(res, 200, WG_CONTENT_JSON, captured, strlen(captured));
    }
    res->status = 200;
    res->stream = s;
    return 0;
}

static int mcp_post(wg_res *res, const wg_req *req)
{
    area *a = req->area_state;
    if (common_checks(res, req) < 0)
        return 0;
    if (!accepts(req, "application/json") || !accepts(req, "text/event-stream"))
        return rpc_status(res, 406, WG_RPC_INVALID_REQUEST,
                          "Accept must list application/json and text/event-stream");
    wg_rpc_msg m;
    wg_rpc__parse(&m, req->raw_body, req->raw_len);
    if (m.kind == WG_RPC_INVALID) {
        /* an HTTP error answers without an id (the transport's rule), so
         * nothing of the request is echoed (route.h) */
        wg_res_json(res, 400, wg_rpc__error(NULL, m.code, m.why, NULL));
        wg_rpc__msg_clear(&m);
        return 0;
    }
    hsession *h = NULL;
    int fresh = m.kind == WG_RPC_REQUEST && strcmp(m.method, "initialize") == 0 &&
                !wg_req_header(req, "Mcp-Session-Id");
    int rc = 0;
    if (fresh) {
        if ((rc = create(&h, a, req->ctx->engine)) < 0) {
            wg_rpc__msg_clear(&m);
            return rpc_status(res, rc == WG_EBUSY ? 503 : 500, WG_RPC_INTERNAL_ERROR,
                              wg_error_last());
        }
    } else if (session_of(&h, res, req, a) < 0) {
        wg_rpc__msg_clear(&m);
        return 0;
    }
    if (m.kind == WG_RPC_REQUEST) {
        answer_request(res, req, h, &m);
        if (fresh && wg_mcp__session_initialized(h->mcp)) {
            wg_res_header(res, "Mcp-Session-Id", h->id);
        } else if (fresh) {
            /* a refused initialize leaves no session behind */
            pthread_mutex_lock(&a->mu);
            unmap_locked(a, h);
            pthread_mutex_unlock(&a->mu);
        }
    } else {
        wg_mcp__session_handle(h->mcp, req->raw_body, req->raw_len);
        wg_res_text(res, 202, NULL, NULL, 0);
    }
    wg_rpc__msg_clear(&m);
    release(a, h);
    return 0;
}

/* ---- GET and DELETE /mcp --------------------------------------------------------- */

static int mcp_get(wg_res *res, const wg_req *req)
{
    area *a = req->area_state;
    hsession *h = NULL;
    if (common_checks(res, req) < 0 || session_of(&h, res, req, a) < 0)
        return 0;
    if (!accepts(req, "text/event-stream")) {
        release(a, h);
        return rpc_status(res, 406, WG_RPC_INVALID_REQUEST, "Accept must list text/event-stream");
    }
    wg_sse *s = NULL;
    pthread_mutex_lock(&h->mu);
    int busy = h->get && !wg_sse__gone(h->get);
    int rc = busy ? 0 : wg_sse__open_plain(&s, req->ctx->sse);
    if (!busy && rc == 0) {
        if (h->get)
            wg_sse__unref(h->get);
        h->get = s;
    }
    pthread_mutex_unlock(&h->mu);
    release(a, h);
    if (busy)
        return rpc_status(res, 409, WG_RPC_INVALID_REQUEST,
                          "this session already has its event stream open");
    if (rc < 0)
        return rpc_status(res, 503, WG_RPC_INTERNAL_ERROR, wg_error_last());
    res->status = 200;
    res->stream = s;
    return 0;
}

static int mcp_delete(wg_res *res, const wg_req *req)
{
    area *a = req->area_state;
    hsession *h = NULL;
    if (common_checks(res, req) < 0 || session_of(&h, res, req, a) < 0)
        return 0;
    pthread_mutex_lock(&a->mu);
    int last = unmap_locked(a, h);
    pthread_mutex_unlock(&a->mu);
    if (last)
        destroy(h, 0);
    else
        release(a, h);
    return wg_res_text(res, 204, NULL, NULL, 0);
}

/* ---- the area ------------------------------------------------------------------------ */

static int init(void **state, wg_server_ctx *ctx)
{
    (void)ctx;
    area *a = calloc(1, sizeof *a);
    if (!a)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    *state = a;
    return 0;
}

/* At stop: every session ends here (its calls finish; waits for a person
 * are given up, the approvals stay pending). */
static void fini(void *state)
{
    area *a = state;
    pthread_mutex_lock(&a->mu);
    hsession *h = a->head;
    a->head = NULL;
    a->n = 0;
    pthread_mutex_unlock(&a->mu);
    while (h) {
        hsession *next = h->next;
        wg_mcp__session_close(h->mcp);
        pthread_mutex_lock(&a->mu);
        int last = --h->refs == 0;
        pthread_mutex_unlock(&a->mu);
        if (last)
            destroy(h, 1);
        h = next;
    }
    pthread_mutex_lock(&a->mu);
    while (a->destroying)
        pthread_cond_wait(&a->cv, &a->mu);
    pthread_mutex_unlock(&a->mu);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/mcp", mcp_post, WG_ROUTE_FREE, WG_ROUTE_RAW_BODY },
    { WG_HTTP_GET, "/mcp", mcp_get, WG_ROUTE_FREE, 0 },
    { WG_HTTP_DELETE, "/mcp", mcp_delete, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_mcp = {
    "mcp", routes, sizeof routes / sizeof routes[0], init, fini,
};

/* sse.c - server-sent events (spec 7.5 step events on the wire):
 *   POST /api/tools/execute with Accept: text/event-stream   one call's steps
 *   GET  /api/events                                          every call's steps
 *
 * A stream is a buffer of framed events ("event: <name>\ndata: <json>\n\n")
 * that libmicrohttpd drains through a content-reader callback. The reader
 * never blocks a pool thread: with nothing to send it suspends the
 * connection (MHD_suspend_connection from the reader, the documented
 * pattern) and returns 0; whoever appends - the call's own executor, the
 * engine's event bus on any thread, the hub's ticker - resumes it.
 *
 * The hub's ticker thread (one per server) keeps streams honest: an idle
 * stream gets a ": heartbeat" comment every heartbeat_ms, which is also how
 * a client that went away is found (a suspended connection cannot notice:
 * the write after resuming fails, libmicrohttpd closes the connection and
 * the response's free callback releases the stream); a call waiting for an
 * approval ends when the approval's time passes (wg_engine_sweep writes the
 * approval_denied row and publishes the expiry); and an approval answered
 * by another process (the store says so, the local bus cannot) ends the
 * stream with what the store knows.
 *
 * Lifetime: a stream is owned by references under the hub's lock - one for
 * the response (dropped by the free callback), one per ticker pass. The bus
 * subscription is dropped first (after wg_engine_unsubscribe returns its
 * callback cannot run), so the last reference frees safely.
 *
 * Bounds: WG_SSE_STREAMS_MAX streams per server (503 past it), a stream's
 * unsent bytes WG_SSE_BUFFER_MAX (a reader that falls further behind gets
 * a final STREAM_OVERFLOW error and the stream ends). */
#include "server/sse.h"
#include "waggle/error.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    WG_SSE_STREAMS_MAX = 128,          /* the default and the most a server allows */
    WG_SSE_BUFFER_MAX = 1024 * 1024,
    OVERFLOW_RESERVE = 256,            /* room kept for the overflow notice */
    DEFAULT_HEARTBEAT_MS = 15000,
};

struct wg_sse {
    pthread_mutex_t mu;        /* the fields below to `hub` */
    char *buf;
    size_t len, off, cap;
    int finished;              /* nothing more will be appended: end after draining */
    int suspended;             /* the reader suspended the connection */
    int closed;                /* the response was released: never resume */
    void *conn;                /* struct MHD_Connection * */
    int64_t last_ms;           /* last append or send (heartbeat clock) */
    int64_t last_poll_ms;      /* last look at the store */
    unsigned long seq;         /* "id:" of the next event */
    int all;                   /* GET /api/events: every event */
    const void *origin;        /* our own call's ctx: bus copies of its events are skipped */
    char approval_id[WG_ENGINE_APPROVAL_ID_MAX];   /* waiting for this one */
    char tool[WG_ENGINE_TOOL_MAX];
    int64_t expires_ms;
    /* under the hub's lock */
    int refs;
    uint64_t token;            /* bus subscription, 0 = none */
    wg_sse_hub *hub;
    struct wg_sse *next;
};

struct wg_sse_hub {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t ticker;
    int started, stopping;
    wg_sse *head;
    size_t n, max;
    unsigned heartbeat_ms;
    wg_engine *engine;
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the buffer (caller holds s->mu) -------------------------------------------- */

static void wake(wg_sse *s)
{
    if (s->suspended && !s->closed && s->conn) {
        s->suspended = 0;
        MHD_resume_connection((struct MHD_Connection *)s->conn);
    }
}

static int reserve(wg_sse *s, size_t n)
{
    if (s->off && s->off == s->len)
        s->off = s->len = 0;
    if (s->len + n <= s->cap)
        return 0;
    if (s->off) {   /* slide the unsent bytes to the front first */
        memmove(s->buf, s->buf + s->off, s->len - s->off);
        s->len -= s->off;
        s->off = 0;
        if (s->len + n <= s->cap)
            return 0;
    }
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->len + n)
        cap *= 2;
    char *b = realloc(s->buf, cap);
    if (!b)
        return -1;
    s->buf = b;
    s->cap = cap;
    return 0;
}

static void put(wg_sse *s, const char *text, size_t n)
{
    if (reserve(s, n) == 0) {
        memcpy(s->buf + s->len, text, n);
        s->len += n;
    }
}

/* Frames one event; past the buffer bound the stream ends with a notice. */
static void frame(wg_sse *s, const char *name, const char *json)
{
    if (s->finished || s->closed)
        return;
    char head[96];
    int hn = snprintf(head, sizeof head, "id: %lu\nevent: %s\ndata: ", s->seq++, name);
    size_t n = (size_t)hn + strlen(json) + 2;
    if (s->len - s->off + n + OVERFLOW_RESERVE > WG_SSE_BUFFER_MAX) {
        static const char notice[] = "event: error\ndata: {\"error\":\"STREAM_OVERFLOW\","
                                     "\"message\":\"the client fell too far behind\"}\n\n";
        put(s, notice, sizeof notice - 1);
        s->finished = 1;
    } else {
        put(s, head, (size_t)hn);
        put(s, json, strlen(json));
        put(s, "\n\n", 2);
    }
    s->last_ms = mono_ms();
    wake(s);
}

static void frame_json(wg_sse *s, const char *name, const json_t *data)
{
    char *text = json_dumps(data, JSON_COMPACT);
    if (text)
        frame(s, name, text);
    free(text);
}

/* An execute stream ends with its call's result or error. */
static int ends_call(const wg_engine_event *ev)
{
    return ev->kind == WG_ENGINE_EVENT_RESULT || ev->kind == WG_ENGINE_EVENT_ERROR;
}

/* The call's own events, on the handler's thread. */
static void on_own(void *ud, const wg_engine_event *ev)
{
    wg_sse *s = ud;
    pthread_mutex_lock(&s->mu);
    if (ev->kind == WG_ENGINE_EVENT_APPROVAL_REQUIRED && ev->approval_id) {
        snprintf(s->approval_id, sizeof s->approval_id, "%s", ev->approval_id);
        int64_t ttl = 0;
        const char *when = json_string_value(json_object_get(ev->data, "expiresAt"));
        int64_t at = 0;
        if (when && wg_time_parse_iso(&at, when) == 0)
            ttl = at - wg_time_now_ms();
        s->expires_ms = mono_ms() + (ttl > 0 ? ttl : 0);
    }
    frame_json(s, ev->name, ev->data);
    pthread_mutex_unlock(&s->mu);
}

/* The bus, on any thread, under the engine's event lock: quick, no calls
 * into the engine. */
static void on_bus(void *ud, const wg_engine_event *ev)
{
    wg_sse *s = ud;
    pthread_mutex_lock(&s->mu);
    if (s->all) {
        frame_json(s, ev->name, ev->data);
    } else if (ev->origin != s->origin && ev->approval_id && s->approval_id[0] &&
               strcmp(ev->approval_id, s->approval_id) == 0) {
        frame_json(s, ev->name, ev->data);
        if (ends_call(ev))
            s->finished = 1, wake(s);
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- the hub ------------------------------------------------------------------------ */

static void stream_free(wg_sse *s)
{
    pthread_mutex_destroy(&s->mu);
    free(s->buf);
    free(s);
}

/* Links s into the hub's list, unless the server is stopping or the hub
 * is full. Returns 0 or WG_EUNSUPPORTED (s is then not linked). */
static int hub_add(wg_sse_hub *hub, wg_sse *s)
{
    pthread_mutex_lock(&hub->mu);
    int rc = 0;
    if (hub->stopping)
        rc = wg_error_set(WG_EUNSUPPORTED, "the server is stopping");
    else if (hub->n >= hub->max)
        rc = wg_error_set(WG_EUNSUPPORTED, "too many event streams are open (at most %zu)",
                          hub->max);
    if (rc == 0) {
        s->next = hub->head;
        hub->head = s;
        hub->n++;
    }
    pthread_mutex_unlock(&hub->mu);
    return rc;
}

/* Drops one reference; caller holds hub->mu. */
static void unref_locked(wg_sse *s)
{
    if (--s->refs == 0)
        stream_free(s);
}

static int make_stream(wg_sse **out, wg_sse_hub *hub, int all)
{
    wg_sse *s = calloc(1, sizeof *s);
    if (!s)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    s->all = all;
    s->origin = s;
    s->last_ms = s->last_poll_ms = mono_ms();
    s->hub = hub;
    s->refs = 1;   /* the response's */
    int rc = hub_add(hub, s);
    if (rc < 0) {
        stream_free(s);
        return rc;
    }
    rc = wg_engine_subscribe(&s->token, hub->engine, on_bus, s);
    if (rc < 0) {
        s->token = 0;
        wg_sse__release(s);
        return rc;
    }
    /* SSE: a client's EventSource retries after 3 s; the comment opens the stream */
    pthread_mutex_lock(&s->mu);
    static const char hello[] = "retry: 3000\n: waggle event stream\n\n";
    put(s, hello, sizeof hello - 1);
    pthread_mutex_unlock(&s->mu);
    *out = s;
    return 0;
}

void wg_sse__attach(wg_sse *s, void *connection)
{
    pthread_mutex_lock(&s->mu);
    s->conn = connection;
    pthread_mutex_unlock(&s->mu);
}

void wg_sse__release(void *stream)
{
    wg_sse *s = stream;
    wg_sse_hub *hub = s->hub;
    pthread_mutex_lock(&s->mu);
    s->closed = 1;
    s->conn = NULL;
    pthread_mutex_unlock(&s->mu);
    if (s->token)
        wg_engine_unsubscribe(hub->engine, s->token);   /* after this, on_bus never runs */
    pthread_mutex_lock(&hub->mu);
    for (wg_sse **pp = &hub->head; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            hub->n--;
            break;
        }
    }
    unref_locked(s);
    pthread_cond_broadcast(&hub->cv);
    pthread_mutex_unlock(&hub->mu);
}

ssize_t wg_sse__read(void *stream, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    wg_sse *s = stream;
    pthread_mutex_lock(&s->mu);
    ssize_t n;
    if (s->len > s->off) {
        size_t k = s->len - s->off < max ? s->len - s->off : max;
        memcpy(buf, s->buf + s->off, k);
        s->off += k;
        s->last_ms = mono_ms();
        n = (ssize_t)k;
    } else if (s->finished || s->closed) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        /* nothing to send: park the connection until someone appends */
        s->suspended = 1;
        MHD_suspend_connection((struct MHD_Connection *)s->conn);
        n = 0;
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* One look at a stream waiting for an approval: expiry and answers from
 * other processes. Runs on the ticker thread, outside every lock. */
static void check_waiting(wg_sse_hub *hub, wg_sse *s, int64_t now)
{
    char id[WG_ENGINE_APPROVAL_ID_MAX], tool[WG_ENGINE_TOOL_MAX];
    int64_t expires, last_poll;
    pthread_mutex_lock(&s->mu);
    int waiting = !s->all && !s->finished && !s->closed && s->approval_id[0];
    snprintf(id, sizeof id, "%s", s->approval_id);
    snprintf(tool, sizeof tool, "%s", s->tool);
    expires = s->expires_ms;
    last_poll = s->last_poll_ms;
    pthread_mutex_unlock(&s->mu);
    if (!waiting)
        return;
    if (now >= expires) {
        wg_engine_sweep(hub->engine);   /* row + events on the bus, which end this stream */
    } else if (now - last_poll < (int64_t)hub->heartbeat_ms) {
        return;
    }
    char *state = NULL;
    if (wg_engine_approval_state(&state, hub->engine, id) < 0)
        state = strdup("closed");       /* forgotten: nothing more will come */
    pthread_mutex_lock(&s->mu);
    s->last_poll_ms = now;
    if (state && strcmp(state, "pending") != 0 && !s->finished) {
        /* answered by another process (or an expiry the bus did not carry here) */
        json_t *d = json_pack("{s:s,s:s,s:s}", "tool", tool, "approvalId", id, "state", state);
        if (d && strcmp(state, "granted") == 0) {
            json_object_set_new(d, "result", json_null());
            json_object_set_new(d, "ranElsewhere", json_true());
            frame_json(s, "result", d);
        } else if (d) {
            json_object_set_new(d, "error", json_string(strcmp(state, "denied") == 0
                                                        ? "APPROVAL_DENIED" : "APPROVAL_EXPIRED"));
            json_object_set_new(d, "message", json_string("the approval was answered elsewhere"));
            frame_json(s, "error", d);
        }
        json_decref(d);
        s->finished = 1;
        wake(s);
    }
    pthread_mutex_unlock(&s->mu);
    free(state);
}

static void *tick(void *arg)
{
    wg_sse_hub *hub = arg;
    unsigned period = hub->heartbeat_ms / 2;
    if (period < 50)
        period = 50;
    if (period > 1000)
        period = 1000;
    pthread_mutex_lock(&hub->mu);
    while (!hub->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(period % 1000) * 1000000L;
        until.tv_sec += period / 1000 + until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&hub->cv, &hub->mu, &until);
        if (hub->stopping)
            break;
        wg_sse *held[WG_SSE_STREAMS_MAX];
        size_t n = 0;
        for (wg_sse *s = hub->head; s && n < WG_SSE_STREAMS_MAX; s = s->next) {
            s->refs++;
            held[n++] = s;
        }
        pthread_mutex_unlock(&hub->mu);
        int64_t now = mono_ms();
        for (size_t i = 0; i < n; i++) {
            wg_sse *s = held[i];
            pthread_mutex_lock(&s->mu);
            if (!s->finished && !s->closed && now - s->last_ms >= (int64_t)hub->heartbeat_ms) {
                static const char beat[] = ": heartbeat\n\n";
                put(s, beat, sizeof beat - 1);
                s->last_ms = now;
                wake(s);
            }
            pthread_mutex_unlock(&s->mu);
            check_waiting(hub, s, now);
        }
        pthread_mutex_lock(&hub->mu);
        for (size_t i = 0; i < n; i++)
            unref_locked(held[i]);
    }
    pthread_mutex_unlock(&hub->mu);
    return NULL;
}

size_t wg_sse__count(wg_sse_hub *hub)
{
    pthread_mutex_lock(&hub->mu);
    size_t n = hub->n;
    pthread_mutex_unlock(&hub->mu);
    return n;
}

int wg_sse__hub_start(wg_sse_hub **out, wg_engine *engine, unsigned heartbeat_ms,
                      unsigned max_streams)
{
    wg_sse_hub *hub = calloc(1, sizeof *hub);
    if (!hub)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&hub->mu, NULL);
    pthread_cond_init(&hub->cv, NULL);
    hub->engine = engine;
    hub->heartbeat_ms = heartbeat_ms ? heartbeat_ms : DEFAULT_HEARTBEAT_MS;
    hub->max = max_streams && max_streams < WG_SSE_STREAMS_MAX ? max_streams : WG_SSE_STREAMS_MAX;
    if (pthread_create(&hub->ticker, NULL, tick, hub) != 0) {
        wg_sse__hub_free(hub);
        return wg_error_set(WG_EINTERNAL, "cannot start the event-stream thread");
    }
    hub->started = 1;
    *out = hub;
    return 0;
}

void wg_sse__hub_close(wg_sse_hub *hub)
{
    if (!hub)
        return;
    pthread_mutex_lock(&hub->mu);
    hub->stopping = 1;
    pthread_cond_broadcast(&hub->cv);
    /* every stream ends and its connection is resumed: libmicrohttpd must
     * not be stopped with a suspended connection */
    for (wg_sse *s = hub->head; s; s = s->next) {
        pthread_mutex_lock(&s->mu);
        s->finished = 1;
        wake(s);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&hub->mu);
    if (hub->started) {
        pthread_join(hub->ticker, NULL);
        hub->started = 0;
    }
}

void wg_sse__hub_free(wg_sse_hub *hub)
{
    if (!hub)
        return;
    wg_sse__hub_close(hub);
    pthread_cond_destroy(&hub->cv);
    pthread_mutex_destroy(&hub->mu);
    free(hub);
}

/* ---- streams of another protocol (MCP's Streamable HTTP, routes_mcp.c) ----------- */

int wg_sse__open_plain(wg_sse **out, wg_sse_hub *hub)
{
    wg_sse *s = calloc(1, sizeof *s);
    if (!s)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    s->origin = s;
    s->last_ms = s->last_poll_ms = mono_ms();
    s->hub = hub;
    s->refs = 2;   /* the response's and the owner's */
    int rc = hub_add(hub, s);
    if (rc < 0) {
        stream_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int wg_sse__push(wg_sse *s, const char *event, const char *data, int finish)
{
    pthread_mutex_lock(&s->mu);
    int ok = !s->finished && !s->closed;
    if (ok && event)
        frame(s, event, data);
    if (finish) {
        s->finished = 1;
        wake(s);
    }
    pthread_mutex_unlock(&s->mu);
    return ok ? 0 : -1;
}

int wg_sse__gone(wg_sse *s)
{
    pthread_mutex_lock(&s->mu);
    int gone = s->closed || s->finished;
    pthread_mutex_unlock(&s->mu);
    return gone;
}

void wg_sse__unref(wg_sse *s)
{
    wg_sse_hub *hub = s->hub;
    pthread_mutex_lock(&hub->mu);
    unref_locked(s);
    pthread_mutex_unlock(&hub->mu);
}

/* ---- the routes' halves -------------------------------------------------------------- */

static int begin_stream(wg_res *res, wg_sse *s)
{
    res->status = 200;
    res->stream = s;
    return 0;
}

static wg_sse_hub *hub_of(const wg_req *req)
{
    return req->ctx->sse;
}

int wg_sse__execute(wg_res *res, const wg_req *req)
{
    wg_engine_call call;
    wg_autonomy_request autonomy;
    if (wg_tools__parse_call(&call, &autonomy, res, req) < 0)
        return 0;
    wg_sse *s = NULL;
    int rc = make_stream(&s, hub_of(req), 0);
    if (rc == WG_EUNSUPPORTED)
        return wg_res_error(res, 503, "UNAVAILABLE", "%s", wg_error_last());
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&s->mu);
    snprintf(s->tool, sizeof s->tool, "%s", call.tool);
    pthread_mutex_unlock(&s->mu);
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.on_event = on_own;
    ctx.event_ud = s;
    /* The bus tags events with the ctx that made them: ours are skipped
     * there because on_own already framed them. */
    pthread_mutex_lock(&s->mu);
    s->origin = &ctx;
    pthread_mutex_unlock(&s->mu);
    wg_engine_outcome o;
    rc = wg_engine_execute(req->ctx->engine, &call, &autonomy, &ctx, &o);
    pthread_mutex_lock(&s->mu);
    s->origin = s;   /* &ctx dies with this frame; nothing else carries s */
    if (rc < 0) {
        static const struct { int rc; const char *code; } codes[] = {
            { WG_ENOTFOUND, "NOT_FOUND" }, { WG_EBUSY, "TOO_MANY_PENDING" },
            { WG_EINVAL, "INVALID_REQUEST" },
        };
        const char *code = "INTERNAL_ERROR";
        for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
            if (codes[i].rc == rc)
                code = codes[i].code;
        json_t *d = json_pack("{s:s,s:s,s:s}", "tool", call.tool, "error", code, "message",
                              strcmp(code, "INTERNAL_ERROR") ? wg_error_last()
                                                              : "the call failed (see the log)");
        frame_json(s, "error", d);
        json_decref(d);
        if (!strcmp(code, "INTERNAL_ERROR"))
            wg_server__logf(req->ctx, "error tools/execute (stream): %s", wg_error_last());
    }
    if (rc < 0 || o.status != WG_ENGINE_PENDING)
        s->finished = 1;
    pthread_mutex_unlock(&s->mu);
    if (rc == 0)
        wg_engine_outcome_clear(&o);
    return begin_stream(res, s);
}

int wg_sse__events(wg_res *res, const wg_req *req)
{
    wg_sse *s = NULL;
    int rc = make_stream(&s, hub_of(req), 1);
    if (rc == WG_EUNSUPPORTED)
        return wg_res_error(res, 503, "UNAVAILABLE", "%s", wg_error_last());
    if (rc < 0)
        return rc;
    return begin_stream(res, s);
}

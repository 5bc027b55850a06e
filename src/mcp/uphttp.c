/* mcp/uphttp.c - Streamable HTTP to one remote upstream MCP server
 * (mcp/uphttp.h). One blocking curl transfer per message, on the calling
 * thread; idle handles are kept for connection reuse. */
#include "mcp/uphttp.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mcp/clock.h"
#include "mcp/sse.h"
#include "waggle/error.h"

#define IDLE_MAX 4
#define LISTEN_RETRY_MIN_MS 1000
#define LISTEN_RETRY_MAX_MS 30000
#define RESUME_MAX 8              /* GETs that resume one POST's stream */
#define CTYPE_MAX 128
#define PROTO_MAX 32

struct wg_uphttp {
    char name[WG_GW_NAME_MAX + 1];
    char *url;
    wg_gw_pair *pairs;
    size_t npairs;
    size_t body_max;
    wg_uphttp_hooks hooks;

    pthread_mutex_t mu;          /* everything below */
    pthread_cond_t cv;
    struct curl_slist *conf;     /* "Name: value" of the configured headers (secrets inside) */
    char session[WG_UPHTTP_SESSION_MAX + 1];
    char proto[PROTO_MAX];
    int closing;
    char why[160];               /* the first reason this session went down, "" */
    unsigned inflight;
    CURL *idle[IDLE_MAX];
    size_t nidle;
    pthread_t listener;          /* the GET stream's thread */
    int listening;               /* it was started and is not joined yet */
    curl_socket_t listen_fd;     /* the GET stream's socket, or CURL_SOCKET_BAD */
};

/* One transfer's state, written by curl's callbacks. */
typedef struct {
    wg_uphttp *h;
    json_int_t id;               /* the awaited response; -1 for none */
    long status;
    char ctype[CTYPE_MAX];
    char session[WG_UPHTTP_SESSION_MAX + 1];
    int session_bad;
    enum { BODY_UNKNOWN, BODY_JSON, BODY_SSE, BODY_OTHER } kind;
    char *body;
    size_t len, cap;
    wg_sse sse;
    int sse_ready;
    wg_rpc_msg resp;
    int got;                     /* resp holds the response */
    char broken[160];            /* the stream broke the protocol: the session is down */
    int oom;
} xfer;

/* ---- small helpers ------------------------------------------------------ */

static void wipe_list(struct curl_slist *l)
{
    for (struct curl_slist *p = l; p; p = p->next)
        if (p->data)
            explicit_bzero(p->data, strlen(p->data));
    curl_slist_free_all(l);
}

/* RFC 9110 5.6.2 token characters: a header name. */
static int tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A field value: visible ASCII, obs-text, space and tab; no CR, LF, NUL
 * or other control byte (header injection). */
static int value_ok(const char *v)
{
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return 0;
    }
    return 1;
}

static int session_ok(const char *s, size_t n)
{
    if (!n || n > WG_UPHTTP_SESSION_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return 0;
    return 1;
}

static int proto_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || n >= PROTO_MAX)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || *s == '-'))
            return 0;
    return 1;
}

/* ---- curl callbacks ----------------------------------------------------- */

static size_t on_header(char *buf, size_t size, size_t nitems, void *ud)
{
    xfer *x = ud;
    size_t n = size * nitems;
    size_t len = n;
    while (len && (buf[len - 1] == '\r' || buf[len - 1] == '\n'))
        len--;
    if (len >= 5 && !strncmp(buf, "HTTP/", 5)) {
        /* a new response (after a 1xx): forget the previous one's fields */
        x->ctype[0] = x->session[0] = '\0';
        x->session_bad = 0;
        return n;
    }
    const char *colon = memchr(buf, ':', len);
    if (!colon)
        return n;
    size_t kl = (size_t)(colon - buf);
    const char *v = colon + 1;
    size_t vl = (size_t)(buf + len - v);
    while (vl && (*v == ' ' || *v == '\t')) {
        v++;
        vl--;
    }
    while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
        vl--;
    if (kl == 12 && !strncasecmp(buf, "content-type", 12)) {
        snprintf(x->ctype, sizeof x->ctype, "%.*s", (int)(vl < CTYPE_MAX ? vl : CTYPE_MAX - 1), v);
    } else if (kl == 14 && !strncasecmp(buf, "mcp-session-id", 14)) {
        if (session_ok(v, vl)) {
            memcpy(x->session, v, vl);
            x->session[vl] = '\0';
        } else {
            x->session_bad = 1;
        }
    }
    return n;
}

static void take_message(xfer *x, wg_rpc_msg *m)
{
    if (!x->got && m->kind == WG_RPC_RESPONSE && x->id >= 0 && json_is_integer(m->id) &&
        json_integer_value(m->id) == x->id) {
        x->resp = *m;
        x->got = 1;
        memset(m, 0, sizeof *m);
        return;
    }
    if (x->h->hooks.message)
        x->h->hooks.message(x->h->hooks.ud, m);
    wg_rpc__msg_clear(m);
}

static int on_event(void *ud, const char *type, const char *data, size_t len, const char *id)
{
    (void)id;
    xfer *x = ud;
    if (strcmp(type, "message") || !len)
        return 0;                /* MCP sends JSON-RPC in "message" events; empty data primes resumption */
    wg_rpc_msg m;
    wg_rpc__parse(&m, data, len);
    take_message(x, &m);
    return x->got;               /* the response read: the stream is done for us */
}

static int body_kind(const char *ctype)
{
    if (!strncasecmp(ctype, "application/json", 16) && (!ctype[16] || ctype[16] == ';' || ctype[16] == ' '))
        return BODY_JSON;
    if (!strncasecmp(ctype, "text/event-stream", 17) && (!ctype[17] || ctype[17] == ';' || ctype[17] == ' '))
        return BODY_SSE;
    return BODY_OTHER;
}

static size_t on_body(char *buf, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (x->kind == BODY_UNKNOWN) {
        x->kind = body_kind(x->ctype);
        if (x->kind == BODY_SSE) {
            if (wg_mcp__sse_init(&x->sse, x->h->body_max) < 0) {
                x->oom = 1;
                return 0;
            }
            x->sse_ready = 1;
        }
    }
    if (x->kind == BODY_OTHER)
        return n;                /* not read: judged by its status and type afterwards */
    if (x->kind == BODY_SSE) {
        int rc = wg_mcp__sse_feed(&x->sse, buf, n, on_event, x);
        if (rc < 0) {
            snprintf(x->broken, sizeof x->broken, "%.150s", wg_error_last());
            return 0;
        }
        return rc ? 0 : n;       /* stop the transfer once the response is in */
    }
    if (x->len + n > x->h->body_max) {
        snprintf(x->broken, sizeof x->broken, "sent a message over %zu bytes (protocol broken)",
                 x->h->body_max);
        return 0;
    }
    if (x->len + n > x->cap) {
        size_t nc = x->cap ? x->cap : 16384;
        while (nc < x->len + n)
            nc *= 2;
        if (nc > x->h->body_max)
            nc = x->h->body_max;
        char *nb = realloc(x->body, nc);
        if (!nb) {
            x->oom = 1;
            return 0;
        }
        x->body = nb;
        x->cap = nc;
    }
    memcpy(x->body + x->len, buf, n);
    x->len += n;
    return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    wg_uphttp *h = ud;
    pthread_mutex_lock(&h->mu);
    int stop = h->closing;
    pthread_mutex_unlock(&h->mu);
    return stop;
}

/* ---- transfers ---------------------------------------------------------- */

/* Takes a handle for one transfer and counts it in flight (fails when the
 * session is closing). */
static int begin(wg_uphttp *h, CURL **out, int closing_ok)
{
    pthread_mutex_lock(&h->mu);
    if (h->closing && !closing_ok) {
        pthread_mutex_unlock(&h->mu);
        return wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s is not running", h->name);
    }
    CURL *c = h->nidle ? h->idle[--h->nidle] : NULL;
    h->inflight++;
    pthread_mutex_unlock(&h->mu);
    if (c)
        curl_easy_reset(c);
    else if (!(c = curl_easy_init())) {
        pthread_mutex_lock(&h->mu);
        h->inflight--;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    }
    *out = c;
    return 0;
}

static void end(wg_uphttp *h, CURL *c, int keep)
{
    pthread_mutex_lock(&h->mu);
    if (keep && !h->closing && h->nidle < IDLE_MAX) {
        h->idle[h->nidle++] = c;
        c = NULL;
    }
    h->inflight--;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (c)
        curl_easy_cleanup(c);
}

/* The request headers: the transport's own, then (linked, not copied) the
 * configured ones. Unlink with unlink_headers before freeing. NULL: out of
 * memory. */
static struct curl_slist *headers(wg_uphttp *h, const char *accept, int body, struct curl_slist **tail)
{
    char sess[WG_UPHTTP_SESSION_MAX + 32], proto[PROTO_MAX + 32];
    pthread_mutex_lock(&h->mu);
    snprintf(sess, sizeof sess, "%s%s", h->session[0] ? "Mcp-Session-Id: " : "", h->session);
    snprintf(proto, sizeof proto, "%s%s", h->proto[0] ? "MCP-Protocol-Version: " : "", h->proto);
    struct curl_slist *conf = h->conf;
    pthread_mutex_unlock(&h->mu);
    const char *lines[] = { accept, body ? "Content-Type: application/json" : NULL, sess[0] ? sess : NULL,
                            proto[0] ? proto : NULL, "Expect:" };
    struct curl_slist *l = NULL, *t = NULL;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        if (!lines[i])
            continue;
        struct curl_slist *nl = curl_slist_append(l, lines[i]);
        if (!nl) {
            curl_slist_free_all(l);
            return NULL;
        }
        l = nl;
    }
    for (t = l; t->next; t = t->next)
        ;
    t->next = conf;              /* read-only while transfers run: close waits for them */
    *tail = t;
    return l;
}

static void unlink_headers(struct curl_slist *l, struct curl_slist *tail)
{
    if (tail)
        tail->next = NULL;
    curl_slist_free_all(l);
}

/* timeout_ms <= 0: no limit on the whole transfer (the GET stream), only
 * on the connection. */
static void common_opts(wg_uphttp *h, CURL *c, long timeout_ms)
{
    long connect_ms = timeout_ms > 0 && timeout_ms < WG_UPHTTP_CONNECT_MS ? timeout_ms : WG_UPHTTP_CONNECT_MS;
    curl_easy_setopt(c, CURLOPT_URL, h->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");          /* no proxy from the environment */
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect_ms > 0 ? connect_ms : 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 0L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "waggle-gateway/1");
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, h);
}

/* POSTs msg; x gets what came back. Returns the curl code. */
static CURLcode post(wg_uphttp *h, CURL *c, const json_t *msg, long timeout_ms, xfer *x, int *oom)
{
    size_t len = 0;
    char *body = wg_rpc__dump(msg, &len);
    struct curl_slist *tail = NULL;
    struct curl_slist *l = body ? headers(h, "Accept: application/json, text/event-stream", 1, &tail) : NULL;
    if (!l) {
        free(body);
        *oom = 1;
        return CURLE_OUT_OF_MEMORY;
    }
    common_opts(h, c, timeout_ms);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, l);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
    CURLcode cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x->status);
    unlink_headers(l, tail);
    free(body);
    return cc;
}

static void xfer_clear(xfer *x)
{
    free(x->body);
    if (x->sse_ready)
        wg_mcp__sse_clear(&x->sse);
    if (x->got)
        wg_rpc__msg_clear(&x->resp);
}

static int went_down(wg_uphttp *h, const char *why)
{
    pthread_mutex_lock(&h->mu);
    if (!h->why[0])
        snprintf(h->why, sizeof h->why, "%s", why);
    pthread_mutex_unlock(&h->mu);
    if (h->hooks.down)
        h->hooks.down(h->hooks.ud, why);
    return wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s went down: %.150s", h->name, why);
}

static int closing(wg_uphttp *h)
{
    pthread_mutex_lock(&h->mu);
    int c = h->closing;
    pthread_mutex_unlock(&h->mu);
    return c;
}

/* What a transfer that brought no response means (see uphttp.h). sent_session:
 * the request carried a session id. */
static int judge(wg_uphttp *h, CURL *c, CURLcode cc, const xfer *x, int sent_session, const char *what,
                 long timeout_ms)
{
    char why[160];
    if (x->oom)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    if (cc == CURLE_ABORTED_BY_CALLBACK || (cc != CURLE_OK && closing(h))) {
        /* cut short by the teardown: say why the session ended (another
         * transfer saw it first), or that the gateway is stopping */
        pthread_mutex_lock(&h->mu);
        snprintf(why, sizeof why, "%s", h->why[0] ? h->why : "stopped");
        pthread_mutex_unlock(&h->mu);
        return wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s went down: %s", h->name, why);
    }
    if (x->broken[0])
        return went_down(h, x->broken);
    if (cc == CURLE_OPERATION_TIMEDOUT) {
        long sent = 0;   /* the request went out: connected (a reused connection has no connect time) */
        curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &sent);
        if (sent > 0)
            return WG_ETIMEOUT;
        snprintf(why, sizeof why, "cannot connect within %ld ms", timeout_ms < WG_UPHTTP_CONNECT_MS
                 ? timeout_ms : (long)WG_UPHTTP_CONNECT_MS);
        return went_down(h, why);
    }
    if (cc != CURLE_OK) {
        /* curl's text for the code: no URL, no header */
        snprintf(why, sizeof why, "%s", curl_easy_strerror(cc));
        return went_down(h, why);
    }
    if (x->status == 404 && sent_session)
        return went_down(h, "the session expired (HTTP 404)");
    if (x->status >= 500) {
        snprintf(why, sizeof why, "answered HTTP %ld", x->status);
        return went_down(h, why);
    }
    if (x->status >= 300 && x->status < 400)
        return wg_error_set(WG_EUPSTREAM, "gateway: upstream %s answered %s with HTTP %ld, a redirect, which "
                            "the gateway does not follow: configure the final URL", h->name, what, x->status);
    if (x->status < 200 || x->status >= 300)
        return wg_error_set(WG_EUPSTREAM, "gateway: upstream %s answered %s with HTTP %ld", h->name, what,
                            x->status);
    if (x->kind == BODY_OTHER || (x->kind == BODY_UNKNOWN && x->ctype[0] && body_kind(x->ctype) == BODY_OTHER)) {
        char ct[64];
        wg_mcp__up_sanitize(ct, sizeof ct, x->ctype);
        return wg_error_set(WG_EUPSTREAM, "gateway: upstream %s answered %s with content type %s", h->name, what,
                            ct);
    }
    return wg_error_set(WG_EUPSTREAM, "gateway: upstream %s answered %s without its response%s", h->name, what,
                        x->kind == BODY_SSE ? " (the event stream ended first)" : "");
}

static int wait_closing(wg_uphttp *h, long ms);

/* MCP 2025-11-25: a server may end a POST's stream before the response once
 * it sent an event id (it then expects the client to come back); the client
 * resumes with GET and Last-Event-ID after the stream's retry. On c, into x
 * (the awaited id kept, the rest of the answer forgotten). Returns the curl
 * code of the last GET, or of the POST when nothing was resumed. */
static CURLcode resume(wg_uphttp *h, CURL *c, xfer *x, CURLcode cc, long deadline)
{
    for (int n = 0; n < RESUME_MAX && cc == CURLE_OK && !x->got && x->status == 200 && x->kind == BODY_SSE &&
                    !x->broken[0] && x->sse_ready && session_ok(x->sse.last_id, strlen(x->sse.last_id));
         n++) {
        long left = deadline - wg_mcp__now_ms();
        long wait = x->sse.retry_ms > 0 ? x->sse.retry_ms : 0;
        if (wait >= left)
            return CURLE_OPERATION_TIMEDOUT;
        if (wait && wait_closing(h, wait))
            return CURLE_ABORTED_BY_CALLBACK;
        char line[WG_SSE_ID_MAX + 32];
        snprintf(line, sizeof line, "Last-Event-ID: %s", x->sse.last_id);
        wg_mcp__sse_clear(&x->sse);
        x->sse_ready = 0;
        x->kind = BODY_UNKNOWN;
        x->status = 0;
        struct curl_slist *tail = NULL;
        struct curl_slist *l = headers(h, "Accept: text/event-stream", 0, &tail);
        struct curl_slist *first = l ? curl_slist_append(NULL, line) : NULL;
        if (!first) {
            curl_slist_free_all(l);
            x->oom = 1;
            return CURLE_OUT_OF_MEMORY;
        }
        first->next = l;
        curl_easy_reset(c);
        common_opts(h, c, deadline - wg_mcp__now_ms());
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, first);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
        cc = curl_easy_perform(c);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x->status);
        unlink_headers(first, tail);
    }
    return cc;
}

int wg_mcp__uphttp_request(wg_uphttp *h, json_int_t id, const char *method, json_t *params, long timeout_ms,
                           json_t **result)
{
    long deadline = wg_mcp__now_ms() + timeout_ms;
    json_t *req = wg_rpc__request(id, method, params);
    if (!req)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    CURL *c = NULL;
    int rc = begin(h, &c, 0);
    if (rc) {
        json_decref(req);
        return rc;
    }
    int is_init = !strcmp(method, "initialize");
    pthread_mutex_lock(&h->mu);
    int sent_session = h->session[0] != '\0';
    pthread_mutex_unlock(&h->mu);
    xfer x = { .h = h, .id = id };
    CURLcode cc = post(h, c, req, timeout_ms, &x, &x.oom);
    json_decref(req);
    cc = resume(h, c, &x, cc, deadline);
    if (!x.got && x.kind == BODY_JSON && !x.broken[0] && x.len) {
        wg_rpc_msg m;
        wg_rpc__parse(&m, x.body, x.len);
        take_message(&x, &m);
    }
    /* a 5xx or a forgotten session breaks the session even when its body is
     * a well-formed JSON-RPC error for this request */
    int fatal = cc == CURLE_OK && (x.status >= 500 || (x.status == 404 && sent_session));
    if (!x.got || fatal) {
        rc = judge(h, c, cc, &x, sent_session, method, timeout_ms);
    } else if (x.resp.error) {
        char msg[160];
        wg_mcp__up_sanitize(msg, sizeof msg, json_string_value(json_object_get(x.resp.error, "message")));
        rc = wg_error_set(WG_EUPSTREAM, "gateway: upstream %s answered error %lld: %.80s", h->name,
                          (long long)json_integer_value(json_object_get(x.resp.error, "code")), msg);
    } else if (is_init && x.session_bad) {
        rc = wg_error_set(WG_EUPSTREAM, "gateway: upstream %s sent an invalid Mcp-Session-Id", h->name);
    } else {
        if (is_init) {
            const char *v = json_string_value(json_object_get(x.resp.result, "protocolVersion"));
            pthread_mutex_lock(&h->mu);
            snprintf(h->session, sizeof h->session, "%s", x.session);
            snprintf(h->proto, sizeof h->proto, "%s", proto_ok(v) ? v : "");
            pthread_mutex_unlock(&h->mu);
        }
        *result = json_incref((json_t *)x.resp.result);
    }
    /* a transfer cut short (the response read mid-stream) leaves its
     * connection unusable: curl knows and closes it */
    end(h, c, 1);
    xfer_clear(&x);
    return rc;
}

int wg_mcp__uphttp_send(wg_uphttp *h, const json_t *msg, long timeout_ms)
{
    CURL *c = NULL;
    int rc = begin(h, &c, 0);
    if (rc)
        return rc;
    pthread_mutex_lock(&h->mu);
    int sent_session = h->session[0] != '\0';
    pthread_mutex_unlock(&h->mu);
    xfer x = { .h = h, .id = -1 };
    CURLcode cc = post(h, c, msg, timeout_ms, &x, &x.oom);
    const char *what = json_string_value(json_object_get(msg, "method"));
    if (cc == CURLE_OK && !x.oom && !x.broken[0] && x.status >= 200 && x.status < 300)
        rc = 0;
    else
        rc = judge(h, c, cc, &x, sent_session, what ? what : "a response", timeout_ms);
    if (rc == WG_ETIMEOUT)
        rc = wg_error_set(WG_ETIMEOUT, "gateway: upstream %s did not take a message within %ld ms", h->name,
                          timeout_ms);
    end(h, c, 1);
    xfer_clear(&x);
    return rc;
}

/* ---- the GET stream ----------------------------------------------------- */

/* The GET stream's socket is tracked so close can shut it down at once (an
 * idle stream would otherwise notice only at curl's next progress call,
 * about a second later). Closing goes through here under the lock, so the
 * number is never shut down after it was closed and reused. */
static curl_socket_t listen_open(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
    wg_uphttp *h = ud;
    (void)purpose;
    curl_socket_t fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
    pthread_mutex_lock(&h->mu);
    if (fd != CURL_SOCKET_BAD)
        h->listen_fd = fd;
    pthread_mutex_unlock(&h->mu);
    return fd;
}

static int listen_close(void *ud, curl_socket_t fd)
{
    wg_uphttp *h = ud;
    pthread_mutex_lock(&h->mu);
    if (h->listen_fd == fd)
        h->listen_fd = CURL_SOCKET_BAD;
    int rc = close(fd);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* Waits up to ms or until the session closes. 1 when it closes. */
static int wait_closing(wg_uphttp *h, long ms)
{
    struct timespec ts;
    wg_mcp__deadline(&ts, ms);
    pthread_mutex_lock(&h->mu);
    while (!h->closing && pthread_cond_timedwait(&h->cv, &h->mu, &ts) == 0)
        ;
    int c = h->closing;
    pthread_mutex_unlock(&h->mu);
    return c;
}

/* MCP 2025-11-25: the client MAY GET the endpoint for a stream of the
 * server's own messages (list_changed, pings); the server answers it with
 * text/event-stream or 405. Its messages go to the message hook. A 405 or
 * another 4xx ends listening for this session (tools are then listed again
 * on the supervisor's timer); a 404 for the session, or a server that can
 * no longer be connected to, breaks it; an ended or cut stream, or a 5xx, is
 * tried again after retry (the server's "retry" field, else 1 s doubling to
 * 30 s) with Last-Event-ID. */
static void *listen_main(void *arg)
{
    wg_uphttp *h = arg;
    char last_id[WG_SSE_ID_MAX + 1] = "";
    long wait_ms = LISTEN_RETRY_MIN_MS;
    for (;;) {
        CURL *c = NULL;
        if (begin(h, &c, 0))
            break;
        struct curl_slist *tail = NULL;
        struct curl_slist *l = headers(h, "Accept: text/event-stream", 0, &tail);
        char resume[WG_SSE_ID_MAX + 32];
        if (l && last_id[0]) {
            snprintf(resume, sizeof resume, "Last-Event-ID: %s", last_id);
            struct curl_slist *nl = curl_slist_append(NULL, resume);
            if (nl) {
                /* first in the list: the linked configured headers stay last */
                nl->next = l;
                l = nl;
            }
        }
        if (!l) {
            end(h, c, 0);
            break;
        }
        pthread_mutex_lock(&h->mu);
        int sent_session = h->session[0] != '\0';
        pthread_mutex_unlock(&h->mu);
        xfer x = { .h = h, .id = -1 };
        common_opts(h, c, 0);
        curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, listen_open);
        curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, h);
        curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, listen_close);
        curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, h);
        curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);   /* a socket of its own: listen_open sees it */
        curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, l);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
        CURLcode cc = curl_easy_perform(c);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x.status);
        unlink_headers(l, tail);
        long retry = -1;
        if (x.sse_ready) {
            /* resume after the last event seen, when its id is safe to send back */
            if (session_ok(x.sse.last_id, strlen(x.sse.last_id)))
                snprintf(last_id, sizeof last_id, "%s", x.sse.last_id);
            retry = x.sse.retry_ms;
        }
        int stop = 0;
        if (cc == CURLE_ABORTED_BY_CALLBACK || closing(h)) {
            stop = 1;
        } else if (x.broken[0]) {
            (void)went_down(h, x.broken);
            stop = 1;
        } else if (cc == CURLE_OK && x.status == 404 && sent_session) {
            (void)went_down(h, "the session expired (HTTP 404)");
            stop = 1;
        } else if (cc == CURLE_OK && x.status >= 300 && x.status < 500) {
            stop = 1;            /* 405: no GET stream here; others: not one we can use */
        } else if (cc == CURLE_OK && x.status == 200 && x.kind != BODY_SSE) {
            stop = 1;
        } else if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST) {
            /* the stream broke and the server is not there any more: say so
             * now rather than at the next call */
            (void)went_down(h, curl_easy_strerror(cc));
            stop = 1;
        }
        int got_events = x.sse_ready && x.sse.events > 0;
        end(h, c, 0);
        xfer_clear(&x);
        if (stop)
            break;
        if (got_events)
            wait_ms = LISTEN_RETRY_MIN_MS;
        long w = retry >= 0 ? (retry < 100 ? 100 : retry > LISTEN_RETRY_MAX_MS ? LISTEN_RETRY_MAX_MS : retry)
                            : wait_ms;
        if (wait_closing(h, w))
            break;
        if (retry < 0)
            wait_ms = wait_ms * 2 > LISTEN_RETRY_MAX_MS ? LISTEN_RETRY_MAX_MS : wait_ms * 2;
    }
    return NULL;
}

int wg_mcp__uphttp_listen(wg_uphttp *h)
{
    pthread_mutex_lock(&h->mu);
    int busy = h->listening || h->closing;
    pthread_mutex_unlock(&h->mu);
    if (busy)
        return 0;
    if (pthread_create(&h->listener, NULL, listen_main, h) != 0)
        return wg_error_set(WG_ENOMEM, "gateway: upstream %s: no thread for the GET stream", h->name);
    pthread_mutex_lock(&h->mu);
    h->listening = 1;
    pthread_mutex_unlock(&h->mu);
    return 0;
}

/* ---- the session -------------------------------------------------------- */

int wg_mcp__uphttp_open(wg_uphttp *h, wg_up_resolve_fn resolve, void *resolve_ud)
{
    struct curl_slist *l = NULL;
    int rc = 0;
    for (size_t i = 0; !rc && i < h->npairs; i++) {
        const wg_gw_pair *p = &h->pairs[i];
        char *secret = NULL;
        const char *v = p->value;
        if (p->from_vault) {
            if (!resolve)
                rc = wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s: header %s needs the vault, which is "
                                  "not open", h->name, p->key);
            else if (resolve(resolve_ud, p->value, &secret) || !secret)
                rc = wg_error_set(WG_ENOTFOUND, "gateway: upstream %s: header %s: the vault secret it names "
                                  "cannot be read", h->name, p->key);
            v = secret;
        }
        if (!rc && (strlen(v) > WG_UPHTTP_HEADER_MAX || !value_ok(v)))
            rc = wg_error_set(WG_EINVAL, "gateway: upstream %s: header %s: the value has a control character "
                              "or is over %d bytes", h->name, p->key, WG_UPHTTP_HEADER_MAX);
        if (!rc) {
            size_t n = strlen(p->key) + strlen(v) + 3;
            char *line = malloc(n);
            struct curl_slist *nl = NULL;
            if (line) {
                snprintf(line, n, "%s: %s", p->key, v);
                nl = curl_slist_append(l, line);
                explicit_bzero(line, n);
                free(line);
            }
            if (!nl)
                rc = wg_error_set(WG_ENOMEM, "gateway: out of memory");
            else
                l = nl;
        }
        if (secret) {
            explicit_bzero(secret, strlen(secret));
            free(secret);
        }
    }
    if (rc) {
        wipe_list(l);
        return rc;
    }
    pthread_mutex_lock(&h->mu);
    struct curl_slist *old = h->conf;
    h->conf = l;
    h->session[0] = h->proto[0] = h->why[0] = '\0';
    h->closing = 0;
    pthread_mutex_unlock(&h->mu);
    wipe_list(old);
    return 0;
}

void wg_mcp__uphttp_abort(wg_uphttp *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->closing = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

void wg_mcp__uphttp_close(wg_uphttp *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->closing = 1;
    pthread_cond_broadcast(&h->cv);
    if (h->listen_fd != CURL_SOCKET_BAD)
        shutdown(h->listen_fd, SHUT_RDWR);
    int listening = h->listening;
    h->listening = 0;
    pthread_mutex_unlock(&h->mu);
    if (listening)
        pthread_join(h->listener, NULL);
    pthread_mutex_lock(&h->mu);
    while (h->inflight)
        pthread_cond_wait(&h->cv, &h->mu);
    int had_session = h->session[0] != '\0';
    pthread_mutex_unlock(&h->mu);
    CURL *c = NULL;
    if (had_session && begin(h, &c, 1) == 0) {
        /* MCP: a client that no longer needs the session SHOULD delete it
         * (a 405 means the server does not allow that; either way we are done) */
        struct curl_slist *tail = NULL;
        struct curl_slist *l = headers(h, "Accept: application/json, text/event-stream", 0, &tail);
        if (l) {
            xfer x = { .h = h, .id = -1, .kind = BODY_OTHER };
            common_opts(h, c, WG_UPHTTP_CLOSE_MS);
            curl_easy_setopt(c, CURLOPT_NOPROGRESS, 1L);   /* closing is set: this one must run */
            curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
            curl_easy_setopt(c, CURLOPT_HTTPHEADER, l);
            curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
            curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
            curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
            curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
            (void)curl_easy_perform(c);
            unlink_headers(l, tail);
            xfer_clear(&x);
        }
        end(h, c, 0);
    }
    pthread_mutex_lock(&h->mu);
    struct curl_slist *conf = h->conf;
    h->conf = NULL;
    h->session[0] = h->proto[0] = '\0';
    CURL *idle[IDLE_MAX];
    size_t nidle = h->nidle;
    memcpy(idle, h->idle, sizeof idle);
    h->nidle = 0;
    pthread_mutex_unlock(&h->mu);
    wipe_list(conf);
    for (size_t i = 0; i < nidle; i++)
        curl_easy_cleanup(idle[i]);
}

/* ---- lifecycle ---------------------------------------------------------- */

void wg_mcp__uphttp_free(wg_uphttp *h)
{
    if (!h)
        return;
    wg_mcp__uphttp_close(h);
    free(h->url);
    for (size_t i = 0; i < h->npairs; i++) {
        free(h->pairs[i].key);
        free(h->pairs[i].value);
    }
    free(h->pairs);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
}

int wg_mcp__uphttp_new(wg_uphttp **out, const wg_gw_server *s, size_t body_max, const wg_uphttp_hooks *hooks)
{
    if (!out || !s || !s->url || !body_max)
        return wg_error_set(WG_EINVAL, "gateway: an http upstream needs a url server");
    if (strncasecmp(s->url, "http://", 7) && strncasecmp(s->url, "https://", 8))
        return wg_error_set(WG_EINVAL, "gateway: upstream %s: the url must be http or https", s->name);
    for (size_t i = 0; i < s->npairs; i++) {
        const char *k = s->pairs[i].key;
        size_t j = 0;
        for (; k[j] && tchar((unsigned char)k[j]); j++)
            ;
        if (!j || k[j])
            return wg_error_set(WG_EINVAL, "gateway: upstream %s: a header name must be an HTTP token", s->name);
    }
    wg_uphttp *h = calloc(1, sizeof *h);
    if (!h)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    pthread_mutex_init(&h->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cv, &ca);
    pthread_condattr_destroy(&ca);
    snprintf(h->name, sizeof h->name, "%s", s->name);
    h->body_max = body_max;
    h->closing = 1;              /* until open */
    h->listen_fd = CURL_SOCKET_BAD;
    if (hooks)
        h->hooks = *hooks;
    int ok = (h->url = strdup(s->url)) && (h->pairs = calloc(s->npairs + 1, sizeof *h->pairs));
    for (size_t i = 0; ok && i < s->npairs; i++) {
        h->pairs[i].from_vault = s->pairs[i].from_vault;
        ok = (h->pairs[i].key = strdup(s->pairs[i].key)) && (h->pairs[i].value = strdup(s->pairs[i].value));
        h->npairs = i + 1;
    }
    if (!ok) {
        wg_mcp__uphttp_free(h);
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    }
    *out = h;
    return 0;
}

/* mcp_http_fixture.c - the misbehaving Streamable HTTP MCP server of
 * mcp_http_fixture.h, on libmicrohttpd (one thread per connection, so a
 * hanging answer blocks only its own client). Written from MCP 2025-11-25
 * "Transports" (Streamable HTTP) and the HTML standard's event stream
 * format; it checks what the client sends and records the first violation. */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "mcp_http_fixture.h"

enum { BODY_MAX = 1 << 20, LOG_MAX = 512, SESSIONS_MAX = 64, HUGE_BYTES = 2 << 20 };

struct wgt_mcphttp {
    struct MHD_Daemon *d;
    char url[64];
    pthread_mutex_t mu;
    pthread_cond_t cv;         /* an event for a GET stream, or stopping */
    int stopping;
    char pend[1024];           /* SSE text waiting for the GET stream of pend_session */
    char pend_session[32];
    long n_get, n_resumed;
    char polled[256];          /* the response "poll" owes, sent on a GET with Last-Event-ID: poll-1 */
    long n_init, n_list, n_call, n_delete, n_pong, n_cancelled, n_elsewhere, n_404;
    long serial;
    char live[SESSIONS_MAX][32];
    int extra_tool;
    char problem[256];
    wgt_mcphttp_req log[LOG_MAX];
    size_t nlog;
};

typedef struct {
    char uri[512];
    char *body;
    size_t len;
    int too_big;
    int started;            /* the headers' call has been answered */
} conn;

static void problem(wgt_mcphttp *s, const char *what)
{
    pthread_mutex_lock(&s->mu);
    if (!s->problem[0])
        snprintf(s->problem, sizeof s->problem, "%s", what);
    pthread_mutex_unlock(&s->mu);
}

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    conn *k = calloc(1, sizeof *k);
    if (k)
        snprintf(k->uri, sizeof k->uri, "%s", uri);
    return k;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)c;
    (void)t;
    conn *k = *con_cls;
    if (k) {
        free(k->body);
        free(k);
    }
    *con_cls = NULL;
}

static const char *hdr(struct MHD_Connection *c, const char *name)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    return v ? v : "";
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *ctype, const char *body,
                             size_t len, const char *session, const char *location)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (ctype)
        MHD_add_response_header(r, "Content-Type", ctype);
    if (session)
        MHD_add_response_header(r, "Mcp-Session-Id", session);
    if (location)
        MHD_add_response_header(r, "Location", location);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned status, json_t *msg, const char *session)
{
    char *t = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    enum MHD_Result ret = reply(c, status, "application/json", t, strlen(t), session, NULL);
    free(t);
    return ret;
}

static json_t *result_msg(json_t *id, json_t *result)
{
    return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result);
}

static json_t *text_result(const char *text)
{
    return json_pack("{s:[{s:s,s:s}]}", "content", "type", "text", "text", text);
}

static json_t *tools_list(wgt_mcphttp *s)
{
    static const char *const names[] = { "echo", "sse_echo", "ping_me", "change", "change_later", "big", "bigsse",
                                         "badsse", "hang", "expire", "fail500", "fail500rpc", "redirect", "poll" };
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        json_t *t = json_pack("{s:s,s:{s:s}}", "name", names[i], "inputSchema", "type", "object");
        if (!strcmp(names[i], "echo"))
            json_object_set_new(t, "annotations", json_pack("{s:b}", "readOnlyHint", 1));
        json_array_append_new(a, t);
    }
    pthread_mutex_lock(&s->mu);
    int extra = s->extra_tool;
    pthread_mutex_unlock(&s->mu);
    if (extra)
        json_array_append_new(a, json_pack("{s:s,s:{s:s}}", "name", "extra", "inputSchema", "type", "object"));
    return json_pack("{s:o}", "tools", a);
}

static int session_live(wgt_mcphttp *s, const char *id, int forget)
{
    int found = 0;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < SESSIONS_MAX; i++)
        if (s->live[i][0] && !strcmp(s->live[i], id)) {
            found = 1;
            if (forget)
                s->live[i][0] = '\0';
        }
    pthread_mutex_unlock(&s->mu);
    return found;
}

static void record(wgt_mcphttp *s, struct MHD_Connection *c, const char *method, const char *path,
                   const char *rpc)
{
    pthread_mutex_lock(&s->mu);
    if (s->nlog < LOG_MAX) {
        wgt_mcphttp_req *r = &s->log[s->nlog++];
        snprintf(r->method, sizeof r->method, "%s", method);
        snprintf(r->path, sizeof r->path, "%s", path);
        snprintf(r->rpc, sizeof r->rpc, "%s", rpc);
        snprintf(r->session, sizeof r->session, "%s", hdr(c, "Mcp-Session-Id"));
        snprintf(r->proto, sizeof r->proto, "%s", hdr(c, "MCP-Protocol-Version"));
        snprintf(r->accept, sizeof r->accept, "%s", hdr(c, "Accept"));
        snprintf(r->ctype, sizeof r->ctype, "%s", hdr(c, "Content-Type"));
        snprintf(r->auth, sizeof r->auth, "%s", hdr(c, "Authorization"));
        snprintf(r->team, sizeof r->team, "%s", hdr(c, "X-Team"));
    }
    pthread_mutex_unlock(&s->mu);
}

static void bump(wgt_mcphttp *s, long *n)
{
    pthread_mutex_lock(&s->mu);
    (*n)++;
    pthread_mutex_unlock(&s->mu);
}

/* An SSE body: parts concatenated. */
static enum MHD_Result reply_sse(struct MHD_Connection *c, const char *text)
{
    return reply(c, 200, "text/event-stream", text, strlen(text), NULL, NULL);
}

static enum MHD_Result call(wgt_mcphttp *s, struct MHD_Connection *c, json_t *id, const json_t *params)
{
    const char *tool = json_string_value(json_object_get(params, "name"));
    const json_t *args = json_object_get(params, "arguments");
    json_int_t nid = json_integer_value(id);
    char buf[2048];
    if (!tool)
        tool = "";
    if (!strcmp(tool, "echo")) {
        const char *t = json_string_value(json_object_get(args, "text"));
        return reply_json(c, 200, result_msg(id, text_result(t ? t : "")), NULL);
    }
    if (!strcmp(tool, "sse_echo")) {
        const char *t = json_string_value(json_object_get(args, "text"));
        snprintf(buf, sizeof buf,
                 ": a comment the client skips\r\n"
                 "id: prime-1\r\ndata:\r\n\r\n"
                 "event: message\r\nid: ev-2\r\n"
                 "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
                 "{\"progressToken\":1,\"progress\":1}}\r\n\r\n"
                 "retry: 100\r\n"
                 "data: {\"jsonrpc\":\"2.0\",\"id\":%lld,\r\n"
                 "data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s via sse\"}]}}\r\n\r\n",
                 (long long)nid, t ? t : "");
        return reply_sse(c, buf);
    }
    if (!strcmp(tool, "ping_me")) {
        snprintf(buf, sizeof buf,
                 "data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n"
                 "data: {\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"content\":[{\"type\":\"text\","
                 "\"text\":\"pong\"}]}}\n\n", (long long)nid);
        return reply_sse(c, buf);
    }
    if (!strcmp(tool, "change")) {
        pthread_mutex_lock(&s->mu);
        s->extra_tool = 1;
        pthread_mutex_unlock(&s->mu);
        snprintf(buf, sizeof buf,
                 "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
                 "data: {\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"content\":[]}}\n\n", (long long)nid);
        return reply_sse(c, buf);
    }
    if (!strcmp(tool, "poll")) {
        /* 2025-11-25 polling: an event id (and a retry) primes the stream,
         * which then ends without the response */
        pthread_mutex_lock(&s->mu);
        snprintf(s->polled, sizeof s->polled, "id: poll-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":"
                 "{\"content\":[{\"type\":\"text\",\"text\":\"polled\"}]}}\n\n", (long long)nid);
        pthread_mutex_unlock(&s->mu);
        return reply_sse(c, "id: poll-1\nretry: 50\ndata:\n\n");
    }
    if (!strcmp(tool, "change_later")) {
        pthread_mutex_lock(&s->mu);
        s->extra_tool = 1;
        snprintf(s->pend, sizeof s->pend, "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
                 "\"notifications/tools/list_changed\"}\n\n");
        snprintf(s->pend_session, sizeof s->pend_session, "%s", hdr(c, "Mcp-Session-Id"));
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        return reply_json(c, 200, result_msg(id, text_result("later")), NULL);
    }
    if (!strcmp(tool, "big") || !strcmp(tool, "bigsse")) {
        int sse = !strcmp(tool, "bigsse");
        char *b = malloc(HUGE_BYTES + 64);
        size_t off = (size_t)sprintf(b, sse ? "data: \"" : "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":\"",
                                     (long long)nid);
        memset(b + off, 'x', HUGE_BYTES);
        off += HUGE_BYTES;
        off += (size_t)sprintf(b + off, sse ? "\"\n\n" : "\"}");
        enum MHD_Result ret = reply(c, 200, sse ? "text/event-stream" : "application/json", b, off, NULL, NULL);
        free(b);
        return ret;
    }
    if (!strcmp(tool, "badsse")) {
        return reply_sse(c, "data: this is not JSON\n\n"
                            "event: other\ndata: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n\n"
                            "a line without a colon\n\n"
                            "data: {\"jsonrpc\":\"2.0\",\"id\":\n"
                            "data: \"not closed\"\n\n"
                            ":only a comment, then the stream ends\n");
    }
    if (!strcmp(tool, "hang")) {
        for (int i = 0; i < 400; i++) {
            pthread_mutex_lock(&s->mu);
            int stop = s->stopping;
            pthread_mutex_unlock(&s->mu);
            if (stop)
                break;
            nanosleep(&(struct timespec){ 0, 50 * 1000000L }, NULL);
        }
        return MHD_NO;   /* close without an answer */
    }
    if (!strcmp(tool, "expire")) {
        session_live(s, hdr(c, "Mcp-Session-Id"), 1);
        bump(s, &s->n_404);
        return reply(c, 404, "text/plain", "gone", 4, NULL, NULL);
    }
    if (!strcmp(tool, "fail500"))
        return reply(c, 500, "text/plain", "boom", 4, NULL, NULL);
    if (!strcmp(tool, "fail500rpc"))   /* a 500 whose body is a JSON-RPC error for the call */
        return reply_json(c, 500, json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id, "error",
                                            "code", -32603, "message", "Internal server error"), NULL);
    if (!strcmp(tool, "redirect")) {
        char loc[96];
        snprintf(loc, sizeof loc, "%.*s/elsewhere", (int)(strlen(s->url) - 4), s->url);
        return reply(c, 307, "text/plain", "moved", 5, NULL, loc);
    }
    return reply_json(c, 200, json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id, "error", "code",
                                        -32602, "message", "unknown tool"), NULL);
}

typedef struct {
    wgt_mcphttp *s;
    char session[32];
    int opened;
} stream;

/* The GET stream: blocks (its own thread) until an event for its session,
 * the end of the session, or the server's stop. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream *st = cls;
    wgt_mcphttp *s = st->s;
    if (!st->opened) {
        st->opened = 1;
        static const char hello[] = ": stream open\n\n";
        memcpy(buf, hello, sizeof hello - 1 < max ? sizeof hello - 1 : max);
        return (ssize_t)(sizeof hello - 1 < max ? sizeof hello - 1 : max);
    }
    for (;;) {
        if (!session_live(s, st->session, 0))
            return MHD_CONTENT_READER_END_OF_STREAM;
        pthread_mutex_lock(&s->mu);
        if (s->stopping) {
            pthread_mutex_unlock(&s->mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        size_t n = strlen(s->pend);
        if (n && !strcmp(s->pend_session, st->session)) {
            if (n > max)
                n = max;
            memcpy(buf, s->pend, n);
            memmove(s->pend, s->pend + n, strlen(s->pend + n) + 1);
            pthread_mutex_unlock(&s->mu);
            return (ssize_t)n;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        pthread_mutex_unlock(&s->mu);
    }
}

static enum MHD_Result get(wgt_mcphttp *s, struct MHD_Connection *c, int allowed)
{
    record(s, c, "GET", "/mcp", "");
    if (!allowed)
        return reply(c, 405, "text/plain", "no GET stream", 13, NULL, NULL);
    if (!strstr(hdr(c, "Accept"), "text/event-stream"))
        problem(s, "a GET without Accept: text/event-stream");
    if (strcmp(hdr(c, "MCP-Protocol-Version"), "2025-11-25"))
        problem(s, "a GET without MCP-Protocol-Version: 2025-11-25");
    const char *sid = hdr(c, "Mcp-Session-Id");
    if (!session_live(s, sid, 0)) {
        bump(s, &s->n_404);
        return reply(c, 404, "text/plain", "no such session", 15, NULL, NULL);
    }
    if (!strcmp(hdr(c, "Last-Event-ID"), "poll-1")) {
        char body[256];
        pthread_mutex_lock(&s->mu);
        snprintf(body, sizeof body, "%s", s->polled);
        s->polled[0] = '\0';
        s->n_resumed++;
        pthread_mutex_unlock(&s->mu);
        return reply_sse(c, body);
    }
    stream *st = calloc(1, sizeof *st);
    if (!st)
        return MHD_NO;
    st->s = s;
    snprintf(st->session, sizeof st->session, "%s", sid);
    bump(s, &s->n_get);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, stream_read, st, free);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result post(wgt_mcphttp *s, struct MHD_Connection *c, conn *k)
{
    if (!strstr(hdr(c, "Accept"), "application/json") || !strstr(hdr(c, "Accept"), "text/event-stream"))
        problem(s, "a POST without Accept: application/json, text/event-stream");
    if (strncasecmp(hdr(c, "Content-Type"), "application/json", 16))
        problem(s, "a POST without Content-Type: application/json");
    json_t *msg = k->too_big ? NULL : json_loadb(k->body ? k->body : "", k->len, 0, NULL);
    if (!json_is_object(msg)) {
        json_decref(msg);
        problem(s, "a POST whose body is not one JSON object");
        return reply(c, 400, "text/plain", "bad", 3, NULL, NULL);
    }
    const char *method = json_string_value(json_object_get(msg, "method"));
    json_t *id = json_object_get(msg, "id");
    record(s, c, "POST", "/mcp", method ? method : (id ? "response" : ""));
    enum MHD_Result ret;
    if (method && !strcmp(method, "initialize")) {
        if (hdr(c, "Mcp-Session-Id")[0])
            problem(s, "initialize with a session id");
        char sid[32];
        pthread_mutex_lock(&s->mu);
        s->n_init++;
        snprintf(sid, sizeof sid, "fx-session-%ld", ++s->serial);
        for (int i = 0; i < SESSIONS_MAX; i++)
            if (!s->live[i][0]) {
                snprintf(s->live[i], sizeof s->live[i], "%s", sid);
                break;
            }
        pthread_mutex_unlock(&s->mu);
        ret = reply_json(c, 200,
                         result_msg(id, json_pack("{s:s,s:{s:{s:b}},s:{s:s,s:s}}", "protocolVersion",
                                                  "2025-11-25", "capabilities", "tools", "listChanged", 1,
                                                  "serverInfo", "name", "fixture", "version", "1")),
                         sid);
        json_decref(msg);
        return ret;
    }
    const char *sid = hdr(c, "Mcp-Session-Id");
    if (!sid[0])
        problem(s, "a message after initialize without Mcp-Session-Id");
    if (strcmp(hdr(c, "MCP-Protocol-Version"), "2025-11-25"))
        problem(s, "a message after initialize without MCP-Protocol-Version: 2025-11-25");
    if (!session_live(s, sid, 0)) {
        bump(s, &s->n_404);
        json_decref(msg);
        return reply(c, 404, "text/plain", "no such session", 15, NULL, NULL);
    }
    if (!method) {
        if (json_is_string(id) && !strcmp(json_string_value(id), "srv-1") && json_object_get(msg, "result"))
            bump(s, &s->n_pong);
        ret = reply(c, 202, NULL, "", 0, NULL, NULL);
    } else if (!id) {
        if (!strcmp(method, "notifications/cancelled"))
            bump(s, &s->n_cancelled);
        ret = reply(c, 202, NULL, "", 0, NULL, NULL);
    } else if (!strcmp(method, "tools/list")) {
        bump(s, &s->n_list);
        ret = reply_json(c, 200, result_msg(id, tools_list(s)), NULL);
    } else if (!strcmp(method, "tools/call")) {
        bump(s, &s->n_call);
        ret = call(s, c, id, json_object_get(msg, "params"));
    } else {
        ret = reply_json(c, 200, json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id, "error",
                                           "code", -32601, "message", "no such method"), NULL);
    }
    json_decref(msg);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    wgt_mcphttp *s = cls;
    conn *k = *con_cls;
    if (!k)
        return MHD_NO;
    if (!k->started) {
        k->started = 1;     /* the headers: the body (if any) comes next */
        return MHD_YES;
    }
    if (*upload_size) {
        if (k->len + *upload_size > BODY_MAX) {
            k->too_big = 1;
        } else {
            char *nb = realloc(k->body, k->len + *upload_size + 1);
            if (!nb)
                return MHD_NO;
            k->body = nb;
            memcpy(k->body + k->len, upload, *upload_size);
            k->len += *upload_size;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (strchr(k->uri, '?'))
        problem(s, "a URL with a query string");
    if (!strcmp(url, "/elsewhere")) {
        bump(s, &s->n_elsewhere);
        record(s, c, method, url, "");
        return reply(c, 200, "text/plain", "followed", 8, NULL, NULL);
    }
    int noget = !strcmp(url, "/mcp-noget");   /* the same server without a GET stream */
    if (strcmp(url, "/mcp") && !noget)
        return reply(c, 404, "text/plain", "no", 2, NULL, NULL);
    if (!strcmp(method, "GET"))
        return get(s, c, !noget);
    if (!strcmp(method, "DELETE")) {
        record(s, c, "DELETE", url, "");
        if (!session_live(s, hdr(c, "Mcp-Session-Id"), 1))
            return reply(c, 404, "text/plain", "no such session", 15, NULL, NULL);
        bump(s, &s->n_delete);
        return reply(c, 200, NULL, "", 0, NULL, NULL);
    }
    if (!strcmp(method, "POST"))
        return post(s, c, k);
    record(s, c, method, url, "");
    return reply(c, 405, "text/plain", "no", 2, NULL, NULL);
}

wgt_mcphttp *wgt_mcphttp_start_tls(const char *cert_pem, const char *key_pem)
{
    wgt_mcphttp *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = 0 };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO;
    if (cert_pem)
        s->d = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, s, MHD_OPTION_SOCK_ADDR,
                                (struct sockaddr *)&sa, MHD_OPTION_URI_LOG_CALLBACK, uri_log, s,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_HTTPS_MEM_CERT, cert_pem,
                                MHD_OPTION_HTTPS_MEM_KEY, key_pem, MHD_OPTION_END);
    else
        s->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                                MHD_OPTION_URI_LOG_CALLBACK, uri_log, s, MHD_OPTION_NOTIFY_COMPLETED, completed, s,
                                MHD_OPTION_END);
    if (!s->d) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(s->url, sizeof s->url, "%s://127.0.0.1:%u/mcp", cert_pem ? "https" : "http",
             info ? (unsigned)info->port : 0u);
    return s;
}

wgt_mcphttp *wgt_mcphttp_start(void)
{
    return wgt_mcphttp_start_tls(NULL, NULL);
}

void wgt_mcphttp_stop(wgt_mcphttp *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    MHD_stop_daemon(s->d);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

const char *wgt_mcphttp_url(const wgt_mcphttp *s)
{
    return s->url;
}

long wgt_mcphttp_count(wgt_mcphttp *s, const char *what)
{
    const struct { const char *name; long *n; } rows[] = {
        { "initialize", &s->n_init }, { "tools/list", &s->n_list }, { "tools/call", &s->n_call },
        { "delete", &s->n_delete },   { "pong", &s->n_pong },       { "cancelled", &s->n_cancelled },
        { "elsewhere", &s->n_elsewhere }, { "404", &s->n_404 }, { "get", &s->n_get },
        { "resumed", &s->n_resumed },
    };
    long v = -1;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (!strcmp(rows[i].name, what))
            v = *rows[i].n;
    pthread_mutex_unlock(&s->mu);
    return v;
}

const char *wgt_mcphttp_problem(wgt_mcphttp *s)
{
    pthread_mutex_lock(&s->mu);
    const char *p = s->problem[0] ? s->problem : NULL;
    pthread_mutex_unlock(&s->mu);
    return p;
}

size_t wgt_mcphttp_requests(wgt_mcphttp *s, wgt_mcphttp_req *out, size_t max)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->nlog < max ? s->nlog : max;
    memcpy(out, s->log, n * sizeof *out);
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* session.c - the MCP server session (session.h): method dispatch, the
 * calls running on their own threads, requests the server sends the client
 * (elicitation) and their answers, cancellation, progress, and the
 * list_changed watcher. Decisions are the engine's: this file never looks
 * at the gate, writes an audit row or reads the data dir itself. */
#include "mcp/session.h"
#include "mcp/clock.h"
#include "mcp/elicit.h"
#include "mcp/jsonrpc.h"
#include "mcp/tools.h"
#include "waggle/error.h"
#include "waggle/version.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Protocol revisions this server speaks, newest first (MCP "Versioning"). */
static const char *const protocols[] = { "2025-11-25", "2025-06-18", "2025-03-26" };

/* MCP "Logging": the syslog severities, least severe first. */
static const char *const log_levels[] = { "debug", "info", "notice", "warning",
                                          "error", "critical", "alert", "emergency" };
enum { LOG_INFO = 1, LOG_NOTICE = 2, LOG_WARNING = 3 };

typedef struct call {
    wg_mcp_session *s;
    json_t *id;                 /* the request's id (copy) */
    json_t *progress;           /* _meta.progressToken (copy) or NULL */
    char *tool;
    json_t *args;
    int cancelled;
    unsigned long steps;        /* progress notifications sent */
    json_int_t ask_id;          /* an elicitation waiting for its answer; 0 none */
    int answered;
    json_t *ask_result, *ask_error;
    struct call *next;          /* every call of the session (running or queued) */
    struct call *qnext;         /* waiting for a thread */
} call;

struct wg_mcp_session {
    wg_mcp_options o;
    char *session_id;
    pthread_mutex_t mu;         /* everything below */
    pthread_cond_t cv;          /* a call ended, an answer came, closing */
    int initialized;
    char protocol[16];
    int elicit;                 /* the client declared form elicitation */
    int log_level;              /* logging/setLevel's index in log_levels; -1 none yet */
    int closing, closed;
    call *calls;
    size_t running;             /* threads running calls (at most o.max_calls) */
    call *qhead, *qtail;        /* calls waiting for one of them */
    size_t queued;
    json_int_t next_id;         /* of the requests we send */
    char *fingerprint;          /* the tool names last seen (watcher) */
    pthread_t watcher;
    int watching;
};

/* ---- sending --------------------------------------------------------------------- */

static void send_msg(wg_mcp_session *s, const json_t *related, int final, json_t *msg)
{
    size_t len = 0;
    char *line = wg_rpc__dump(msg, &len);
    json_decref(msg);
    if (line)
        s->o.send(s->o.send_ud, related, final, line, len);
    free(line);
}

static void send_error(wg_mcp_session *s, const json_t *id, int code, const char *why)
{
    send_msg(s, id, 1, wg_rpc__error(id, code, why, NULL));
}

/* ---- asking the person (elicitation) ----------------------------------------- */

static wg_engine_answer ask(void *ud, const wg_engine_ask *a)
{
    call *c = ud;
    wg_mcp_session *s = c->s;
    json_t *params = wg_mcp__elicit_params(a, s->protocol);
    if (!params)
        return WG_ENGINE_ASK_DEFER;
    pthread_mutex_lock(&s->mu);
    if (s->closing || c->cancelled) {
        pthread_mutex_unlock(&s->mu);
        json_decref(params);
        return WG_ENGINE_ASK_DEFER;
    }
    json_int_t id = ++s->next_id;
    c->ask_id = id;
    c->answered = 0;
    pthread_mutex_unlock(&s->mu);
    send_msg(s, c->id, 0, wg_rpc__request(id, "elicitation/create", params));

    int64_t left = a->expires_ms - wg_engine_now(s->o.engine);
    struct timespec until;
    wg_mcp__deadline(&until, left > 0 ? left : 0);
    pthread_mutex_lock(&s->mu);
    int rc = 0;
    while (!c->answered && !s->closing && !c->cancelled && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&s->cv, &s->mu, &until);
    wg_engine_answer ans = c->answered ? wg_mcp__elicit_answer(c->ask_result, c->ask_error)
                                       : WG_ENGINE_ASK_DEFER;
    int gave_up = !c->answered;
    c->ask_id = 0;
    json_decref(c->ask_result);
    json_decref(c->ask_error);
    c->ask_result = c->ask_error = NULL;
    pthread_mutex_unlock(&s->mu);
    if (gave_up)   /* tell the client to take the question down (MCP "Cancellation") */
        send_msg(s, c->id, 0, wg_rpc__notification("notifications/cancelled",
                 json_pack("{s:I,s:s}", "requestId", id, "reason",
                           "waggle stopped waiting: the approval stays pending")));
    return ans;
}

/* ---- progress ------------------------------------------------------------------- */

/* Runs under the engine's event lock: it only formats and hands the
 * message to the transport, which never blocks. */
static void on_event(void *ud, const wg_engine_event *ev)
{
    call *c = ud;
    const char *text = json_string_value(json_object_get(ev->data, "content"));
    char buf[512];
    if (!text) {
        snprintf(buf, sizeof buf, "%s: %s%s%s", ev->tool, ev->name,
                 ev->approval_id ? " " : "", ev->approval_id ? ev->approval_id : "");
        text = buf;
    }
    json_t *p = json_pack("{s:O,s:I,s:s}", "progressToken", c->progress, "progress",
                          (json_int_t)++c->steps, "message", text);
    send_msg(c->s, c->id, 0, wg_rpc__notification("notifications/progress", p));
}

/* ---- the gate's decisions as log messages ------------------------------------ */

/* After logging/setLevel, every gated call tells the client's log what the
 * gate decided and why (logger "waggle.gate"): info when it ran silently,
 * notice when it ran after an approval or a level's pre-approval, warning
 * when it waits for a person or was refused. Nothing before setLevel. */
static void log_decision(call *c, const wg_engine_outcome *out)
{
    static const char *const outcome[] = {
        [WG_ENGINE_RAN] = "ran", [WG_ENGINE_PENDING] = "pending approval",
        [WG_ENGINE_DENIED] = "denied", [WG_ENGINE_EXPIRED] = "expired",
    };
    wg_mcp_session *s = c->s;
    int level = out->status != WG_ENGINE_RAN ? LOG_WARNING
              : out->decision.needs_confirmation_base ? LOG_NOTICE : LOG_INFO;
    pthread_mutex_lock(&s->mu);
    int wanted = s->log_level >= 0 && level >= s->log_level;
    pthread_mutex_unlock(&s->mu);
    if (!wanted || (unsigned)out->status >= sizeof outcome / sizeof *outcome)
        return;
    json_t *data = json_pack("{s:s,s:s,s:s,s:s}", "tool", c->tool, "outcome",
                             outcome[out->status], "rule",
                             out->decision.rule ? out->decision.rule : "",
                             "reason", out->decision.reason);
    if (data && out->approval_id[0])
        json_object_set_new(data, "approvalId", json_string(out->approval_id));
    if (!data)
        return;
    send_msg(s, c->id, 0, wg_rpc__notification("notifications/message",
             json_pack("{s:s,s:s,s:o}", "level", log_levels[level], "logger", "waggle.gate",
                       "data", data)));
}

/* ---- tools/call on its own thread ------------------------------------------- */

static json_t *execute(call *c)
{
    wg_mcp_session *s = c->s;
    wg_autonomy_request a = WG_AUTONOMY_REQUEST_INIT;
    a.level = s->o.level;
    a.standing = 1;   /* the operator's own choice (`waggle mcp --level`) */
    if (strcmp(c->tool, WG_MCP_GATE_CHECK) == 0)
        return wg_mcp__gate_check(s->o.engine, c->args, &a);
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = c->tool;
    call.args = c->args;
    call.session_id = s->session_id;
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.actor = s->o.actor ? s->o.actor : "mcp";
    if (s->elicit) {
        ctx.ask = ask;
        ctx.ask_ud = c;
    }
    if (c->progress) {
        ctx.on_event = on_event;
        ctx.event_ud = c;
    }
    wg_engine_outcome out;
    int rc = wg_engine_execute(s->o.engine, &call, &a, &ctx, &out);
    if (rc < 0)
        return wg_mcp__tool_error("%s: %s", c->tool, wg_error_last());
    log_decision(c, &out);
    json_t *r = wg_mcp__call_result(&out);
    wg_engine_outcome_clear(&out);
    return r;
}

static void call_free(call *c)
{
    json_decref(c->id);
    json_decref(c->progress);
    json_decref(c->args);
    json_decref(c->ask_result);
    json_decref(c->ask_error);
    free(c->tool);
    free(c);
}

/* Runs c, then whatever waits in the queue, so at most max_calls threads
 * ever run a session's calls. */
static void *call_thread(void *arg)
{
    call *c = arg;
    wg_mcp_session *s = c->s;
    while (c) {
        pthread_mutex_lock(&s->mu);
        int cancelled = c->cancelled;
        pthread_mutex_unlock(&s->mu);
        json_t *r = cancelled ? NULL : execute(c);
        pthread_mutex_lock(&s->mu);
        cancelled = c->cancelled;
        pthread_mutex_unlock(&s->mu);
        /* a cancelled request gets no response (MCP "Cancellation") */
        if (!cancelled)
            send_msg(s, c->id, 1, r ? wg_rpc__result(c->id, r)
                     : wg_rpc__error(c->id, WG_RPC_INTERNAL_ERROR, "out of memory", NULL));
        else
            json_decref(r);
        pthread_mutex_lock(&s->mu);
        for (call **p = &s->calls; *p; p = &(*p)->next)
            if (*p == c) {
                *p = c->next;
                break;
            }
        call *next = s->qhead;
        if (next) {
            s->qhead = next->qnext;
            if (!s->qhead)
                s->qtail = NULL;
            s->queued--;
        } else {
            s->running--;
        }
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        call_free(c);
        c = next;
    }
    return NULL;
}

/* ---- methods ------------------------------------------------------------------------ */

typedef void (*method_fn)(wg_mcp_session *s, const wg_rpc_msg *m);

static void m_initialize(wg_mcp_session *s, const wg_rpc_msg *m)
{
    const char *want = json_string_value(json_object_get(m->params, "protocolVersion"));
    const json_t *caps = json_object_get(m->params, "capabilities");
    if (!want || (caps && !json_is_object(caps))) {
        send_error(s, m->id, WG_RPC_INVALID_PARAMS,
                   "initialize needs params.protocolVersion (a string) and capabilities (an object)");
        return;
    }
    pthread_mutex_lock(&s->mu);
    if (s->initialized) {
        pthread_mutex_unlock(&s->mu);
        send_error(s, m->id, WG_RPC_INVALID_REQUEST, "this session is already initialized");
        return;
    }
    const char *use = protocols[0];
    for (size_t i = 0; i < sizeof protocols / sizeof *protocols; i++)
        if (strcmp(protocols[i], want) == 0)
            use = protocols[i];
    snprintf(s->protocol, sizeof s->protocol, "%s", use);
    s->elicit = wg_mcp__elicit_supported(caps);
    s->initialized = 1;
    pthread_mutex_unlock(&s->mu);
    json_t *r = json_pack("{s:s,s:{s:{s:b},s:{}},s:{s:s,s:s,s:s},s:s}", "protocolVersion", use,
        "capabilities", "tools", "listChanged", 1, "logging",
        "serverInfo", "name", "waggle", "title", "waggle - gated tools for agents",
        "version", wg_version(),
        "instructions", "Every tool call passes waggle's gate. A call that needs a person's "
        "approval is asked through elicitation when the client supports it; otherwise the "
        "result is an error naming the approval id to approve (waggle approve ID). Call "
        "gate_check before running a tool of your own.");
    send_msg(s, m->id, 1, wg_rpc__result(m->id, r));
}

static void m_ping(wg_mcp_session *s, const wg_rpc_msg *m)
{
    send_msg(s, m->id, 1, wg_rpc__result(m->id, json_object()));
}

static void m_tools_list(wg_mcp_session *s, const wg_rpc_msg *m)
{
    if (json_object_get(m->params, "cursor")) {
        send_error(s, m->id, WG_RPC_INVALID_PARAMS, "unknown cursor: the tool list has one page");
        return;
    }
    json_t *tools = NULL;
    if (wg_mcp__tools_list(&tools, s->o.engine) < 0) {
        send_error(s, m->id, WG_RPC_INTERNAL_ERROR, wg_error_last());
        return;
    }
    char *fp = wg_mcp__tools_names(tools);   /* what the client now knows */
    pthread_mutex_lock(&s->mu);
    if (fp) {
        free(s->fingerprint);
        s->fingerprint = fp;
    }
    pthread_mutex_unlock(&s->mu);
    send_msg(s, m->id, 1, wg_rpc__result(m->id, json_pack("{s:o}", "tools", tools)));
}

/* A tool this session serves: the listed names (the engine decides again). */
static int known_tool(wg_mcp_session *s, const char *name)
{
    size_t len = strlen(name);
    if (!len || len >= WG_ENGINE_TOOL_MAX || strpbrk(name, "\n\r"))
        return 0;
    return wg_mcp__tools_has(s->o.engine, name);
}

static void m_tools_call(wg_mcp_session *s, const wg_rpc_msg *m)
{
    const char *name = json_string_value(json_object_get(m->params, "name"));
    const json_t *args = json_object_get(m->params, "arguments");
    const json_t *meta = json_object_get(m->params, "_meta");
    const json_t *token = json_object_get(meta, "progressToken");
    if (!name || (args && !json_is_object(args)) || (meta && !json_is_object(meta)) ||
        (token && !json_is_string(token) && !json_is_integer(token))) {
        send_error(s, m->id, WG_RPC_INVALID_PARAMS, "tools/call needs params.name (a string) and "
                   "arguments (an object); a progressToken is a string or an integer");
        return;
    }
    if (!known_tool(s, name)) {
        send_error(s, m->id, WG_RPC_INVALID_PARAMS, "unknown tool (tools/list names them)");
        return;
    }
    call *c = calloc(1, sizeof *c);
    if (!c || !(c->tool = strdup(name))) {
        free(c);
        send_error(s, m->id, WG_RPC_INTERNAL_ERROR, "out of memory");
        return;
    }
    c->s = s;
    c->id = json_deep_copy(m->id);
    c->progress = token ? json_deep_copy(token) : NULL;
    c->args = args ? json_deep_copy(args) : json_object();
    pthread_mutex_lock(&s->mu);
    int start = s->running < s->o.max_calls;
    int full = s->closing || (!start && s->queued >= WG_MCP_QUEUE_MAX);
    if (!full) {
        c->next = s->calls;
        s->calls = c;
        if (start) {
            s->running++;
        } else {                 /* a running thread takes it when it is done */
            if (s->qtail)
                s->qtail->qnext = c;
            else
                s->qhead = c;
            s->qtail = c;
            s->queued++;
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (full) {
        call_free(c);
        send_error(s, m->id, WG_RPC_SERVER_BUSY, "too many tool calls waiting in this session");
        return;
    }
    if (!start)
        return;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, call_thread, c);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pthread_mutex_lock(&s->mu);
        s->calls = c->next;      /* c is at the head: nothing ran since */
        s->running--;
        pthread_mutex_unlock(&s->mu);
        call_free(c);
        send_error(s, m->id, WG_RPC_INTERNAL_ERROR, "could not start the call");
    }
}

static void m_logging_set_level(wg_mcp_session *s, const wg_rpc_msg *m)
{
    const char *want = json_string_value(json_object_get(m->params, "level"));
    size_t n = sizeof log_levels / sizeof *log_levels, i = 0;
    while (want && i < n && strcmp(log_levels[i], want) != 0)
        i++;
    if (!want || i == n) {
        send_error(s, m->id, WG_RPC_INVALID_PARAMS, "logging/setLevel needs params.level: debug, "
                   "info, notice, warning, error, critical, alert or emergency");
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->log_level = (int)i;
    pthread_mutex_unlock(&s->mu);
    send_msg(s, m->id, 1, wg_rpc__result(m->id, json_object()));
}

static const struct {
    const char *name;
    method_fn fn;
    int before_init;             /* allowed before initialize */
} methods[] = {
    { "initialize", m_initialize, 1 },
    { "ping", m_ping, 1 },
    { "tools/list", m_tools_list, 0 },
    { "tools/call", m_tools_call, 0 },
    { "logging/setLevel", m_logging_set_level, 0 },
};

/* ---- notifications and answers from the client --------------------------- */

static void n_cancelled(wg_mcp_session *s, const wg_rpc_msg *m)
{
    const json_t *id = json_object_get(m->params, "requestId");
    if (!id)
        return;
    pthread_mutex_lock(&s->mu);
    for (call *c = s->calls; c; c = c->next)
        if (json_equal(c->id, id))
            c->cancelled = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void response(wg_mcp_session *s, const wg_rpc_msg *m)
{
    if (!json_is_integer(m->id))
        return;                  /* not one of ours: ignored */
    json_int_t id = json_integer_value(m->id);
    pthread_mutex_lock(&s->mu);
    for (call *c = s->calls; c; c = c->next)
        if (c->ask_id == id && !c->answered) {
            c->answered = 1;
            c->ask_result = json_deep_copy(m->result);
            c->ask_error = json_deep_copy(m->error);
        }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void wg_mcp__session_handle(wg_mcp_session *s, const char *frame, size_t len)
{
    wg_rpc_msg m;
    wg_rpc__parse(&m, frame, len);
    if (m.kind == WG_RPC_INVALID) {
        /* an unreadable notification is dropped; everything else is answered */
        if (!(m.code == WG_RPC_INVALID_PARAMS && !m.id))
            send_error(s, m.id, m.code, m.why);
    } else if (m.kind == WG_RPC_RESPONSE) {
        response(s, &m);
    } else if (m.kind == WG_RPC_NOTIFICATION) {
        if (strcmp(m.method, "notifications/cancelled") == 0)
            n_cancelled(s, &m);
        /* notifications/initialized and the rest need nothing from us */
    } else {
        size_t i = 0, n = sizeof methods / sizeof *methods;
        while (i < n && strcmp(methods[i].name, m.method) != 0)
            i++;
        pthread_mutex_lock(&s->mu);
        int ready = s->initialized;
        pthread_mutex_unlock(&s->mu);
        if (i == n)
            send_error(s, m.id, WG_RPC_METHOD_NOT_FOUND, "method not found");
        else if (!ready && !methods[i].before_init)
            send_error(s, m.id, WG_RPC_INVALID_REQUEST, "initialize the session first");
        else
            methods[i].fn(s, &m);
    }
    wg_rpc__msg_clear(&m);
}

void wg_mcp__session_oversized(wg_mcp_session *s)
{
    send_error(s, NULL, WG_RPC_INVALID_REQUEST, "the message is larger than the 4 MiB frame limit");
}

/* ---- list_changed ------------------------------------------------------------------ */

static void *watch_thread(void *arg)
{
    wg_mcp_session *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->closing) {
        struct timespec until;
        wg_mcp__deadline(&until, s->o.poll_ms);
        while (!s->closing && pthread_cond_timedwait(&s->cv, &s->mu, &until) != ETIMEDOUT)
            ;
        if (s->closing || !s->initialized)
            continue;
        pthread_mutex_unlock(&s->mu);
        char *fp = NULL;
        int rc = wg_mcp__tools_fingerprint(&fp, s->o.engine);
        pthread_mutex_lock(&s->mu);
        if (rc < 0)
            continue;
        int changed = s->fingerprint && strcmp(s->fingerprint, fp) != 0;
        free(s->fingerprint);
        s->fingerprint = fp;
        if (changed && !s->closing) {
            pthread_mutex_unlock(&s->mu);
            send_msg(s, NULL, 0, wg_rpc__notification("notifications/tools/list_changed", NULL));
            pthread_mutex_lock(&s->mu);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- life ---------------------------------------------------------------------------- */

int wg_mcp__session_new(wg_mcp_session **out, const wg_mcp_options *o)
{
    if (!out || !o || o->version != WG_MCP_OPTIONS_VERSION || !o->engine || !o->send)
        return wg_error_set(WG_EINVAL, "wg_mcp__session_new: needs an engine and a send function");
    wg_mcp_session *s = calloc(1, sizeof *s);
    if (!s)
        return wg_error_set(WG_ENOMEM, "out of memory");
    s->log_level = -1;
    s->o = *o;
    s->o.actor = NULL;
    if (!s->o.poll_ms)
        s->o.poll_ms = WG_MCP_DEFAULT_POLL_MS;
    if (!s->o.max_calls || s->o.max_calls > WG_MCP_CALLS_MAX)
        s->o.max_calls = WG_MCP_CALLS_MAX;
    if ((o->session_id && !(s->session_id = strdup(o->session_id))) ||
        (o->actor && !(s->o.actor = strdup(o->actor)))) {
        free(s->session_id);
        free(s);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (!o->no_watch)
        s->watching = pthread_create(&s->watcher, NULL, watch_thread, s) == 0;
    *out = s;
    return 0;
}

void wg_mcp__session_close(wg_mcp_session *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->closing = 1;
    pthread_cond_broadcast(&s->cv);
    while (s->running)
        pthread_cond_wait(&s->cv, &s->mu);
    int join = s->watching;
    s->watching = 0;
    pthread_mutex_unlock(&s->mu);
    if (join)
        pthread_join(s->watcher, NULL);
}

void wg_mcp__session_free(wg_mcp_session *s)
{
    if (!s)
        return;
    wg_mcp__session_close(s);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s->fingerprint);
    free(s->session_id);
    free((char *)s->o.actor);
    free(s);
}

int wg_mcp__session_initialized(wg_mcp_session *s)
{
    pthread_mutex_lock(&s->mu);
    int v = s->initialized;
    pthread_mutex_unlock(&s->mu);
    return v;
}

const char *wg_mcp__session_protocol(wg_mcp_session *s)
{
    return s->protocol;
}

size_t wg_mcp__session_running(wg_mcp_session *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->running + s->queued;
    pthread_mutex_unlock(&s->mu);
    return n;
}

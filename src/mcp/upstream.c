/* mcp/upstream.c - one supervised upstream MCP server (mcp/upstream.h):
 * the supervisor, the tool list and the calls, over one of two transports -
 * a child process on pipes (here) or Streamable HTTP (mcp/uphttp.c). */
#include "mcp/upstream.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "mcp/clock.h"
#include "mcp/uphttp.h"
#include "waggle/error.h"

extern char **environ;

/* The variables of waggle's own environment a child sees (the MCP SDK's
 * default environment, plus locale, temp dir and time zone). */
static const char *const BASE_ENV[] = {
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ",
};

static const char *const STATE_NAMES[] = {
    [WG_UP_STARTING] = "starting", [WG_UP_HEALTHY] = "healthy", [WG_UP_RESTARTING] = "restarting",
    [WG_UP_FAILED] = "failed",     [WG_UP_STOPPED] = "stopped",
};

#define READ_CHUNK 65536
#define HEALTHY_RESET_MS 30000
#define WRITE_SLICE_MS 100

/* A call that asked the upstream for progress: its notifications/progress
 * with this token go to fn (under mu; fn must not block or call back in). */
typedef struct watcher {
    struct watcher *next;
    json_int_t token;
    wg_up_progress_fn fn;
    void *ud;
} watcher;

typedef struct pending {
    struct pending *next;
    json_int_t id;
    int done;
    int rc;
    json_t *result;
    char err[240];
} pending;

struct wg_upstream {
    char name[WG_GW_NAME_MAX + 1];
    char *command;
    char **argv;             /* command, args..., NULL */
    wg_gw_pair *pairs;
    size_t npairs;
    long timeout_ms;
    wg_up_options o;

    pthread_mutex_t mu;      /* everything below but the fds */
    pthread_cond_t cv;
    pthread_mutex_t wmu;     /* writes to in_fd, and closing it */
    pthread_t sup;
    int sup_started;

    pid_t pid;
    int in_fd, out_fd;
    int wake[2];             /* wakes the reader at teardown */
    pthread_t reader;
    int reader_started;

    int dead;                /* the reader saw EOF, an error or a broken protocol */
    char down[160];
    int relist;
    int stop;
    json_int_t next_id;
    pending *pend;
    json_t *tools;
    wg_up_status st;

    watcher *watch;          /* calls waiting for their progress */
    json_int_t next_token;
    wg_uphttp *http;         /* a url server's transport; NULL for a command */
    int live;                /* a process runs / a session is open */
};

/* Printable ASCII only, at most n-1 bytes: upstream text is hostile. */
void wg_mcp__up_sanitize(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    for (; src && *src && k + 1 < n; src++)
        dst[k++] = ((unsigned char)*src < 0x20 || (unsigned char)*src > 0x7e) ? '?' : *src;
    dst[k] = '\0';
}

const char *wg_mcp__up_state_name(wg_up_state s)
{
    return (unsigned)s < sizeof STATE_NAMES / sizeof *STATE_NAMES ? STATE_NAMES[s] : "unknown";
}

const char *wg_mcp__up_name(const wg_upstream *u)
{
    return u ? u->name : "";
}

/* ---- writing ---------------------------------------------------------- */

/* write(2) that turns a broken pipe into EPIPE, never a SIGPIPE to the
 * process (the host may not ignore it): the signal is blocked on this thread
 * for the write and a pending one this write raised is consumed. */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t n)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigset_t pend;
    sigpending(&pend);
    int was_pending = sigismember(&pend, SIGPIPE);
    ssize_t w = write(fd, buf, n);
    int e = errno;
    if (w < 0 && e == EPIPE && !was_pending) {
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return w;
}

/* Writes one line (msg + '\n') before deadline (wg_mcp__now_ms() based). */
static int write_msg(wg_upstream *u, const json_t *msg, long deadline)
{
    size_t len = 0;
    char *s = wg_rpc__dump(msg, &len);
    if (!s)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    char *line = realloc(s, len + 1);
    if (!line) {
        free(s);
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    }
    line[len++] = '\n';
    int rc = 0;
    size_t off = 0;
    pthread_mutex_lock(&u->wmu);
    while (off < len) {
        pthread_mutex_lock(&u->mu);
        int gone = u->dead || u->stop;
        pthread_mutex_unlock(&u->mu);
        if (gone || u->in_fd < 0) {
            rc = wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s is not running", u->name);
            break;
        }
        long left = deadline - wg_mcp__now_ms();
        if (left <= 0) {
            rc = wg_error_set(WG_ETIMEOUT, "gateway: upstream %s does not read its input", u->name);
            break;
        }
        struct pollfd p = { .fd = u->in_fd, .events = POLLOUT };
        int n = poll(&p, 1, (int)(left < WRITE_SLICE_MS ? left : WRITE_SLICE_MS));
        if (n < 0 && errno != EINTR) {
            rc = wg_error_set(WG_EIO, "gateway: upstream %s: poll failed", u->name);
            break;
        }
        if (n <= 0)
            continue;
        ssize_t w = write_nosigpipe(u->in_fd, line + off, len - off);
        if (w < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            rc = wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s closed its input", u->name);
            break;
        }
        off += (size_t)w;
    }
    pthread_mutex_unlock(&u->wmu);
    free(line);
    return rc;
}

/* ---- reading ---------------------------------------------------------- */

static void mark_dead(wg_upstream *u, const char *why)
{
    pthread_mutex_lock(&u->mu);
    if (!u->dead) {
        u->dead = 1;
        snprintf(u->down, sizeof u->down, "%s", why);
    }
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
}

static void on_response(wg_upstream *u, const wg_rpc_msg *m)
{
    if (!json_is_integer(m->id))
        return;   /* we only ever send integer ids */
    json_int_t id = json_integer_value(m->id);
    pthread_mutex_lock(&u->mu);
    for (pending *p = u->pend; p; p = p->next) {
        if (p->id != id || p->done)
            continue;
        p->done = 1;
        if (m->error) {
            char msg[160];
            wg_mcp__up_sanitize(msg, sizeof msg, json_string_value(json_object_get(m->error, "message")));
            p->rc = WG_EUPSTREAM;
            snprintf(p->err, sizeof p->err, "upstream %s answered error %lld: %.80s", u->name,
                     (long long)json_integer_value(json_object_get(m->error, "code")), msg);
        } else {
            p->result = json_incref((json_t *)m->result);
        }
        pthread_cond_broadcast(&u->cv);
        break;
    }
    pthread_mutex_unlock(&u->mu);
}

static int send_msg(wg_upstream *u, const json_t *msg, long deadline);

/* notifications/progress {progressToken, progress, total?, message?}: to the
 * call that gave the token, if it still waits. Any other token, or a
 * malformed one, is dropped. The message is cut to printable ASCII. */
static void on_progress(wg_upstream *u, const json_t *params)
{
    const json_t *tok = json_object_get(params, "progressToken");
    const json_t *done = json_object_get(params, "progress");
    if (!json_is_integer(tok) || !json_is_number(done))
        return;
    const json_t *total = json_object_get(params, "total");
    char msg[161];
    wg_mcp__up_sanitize(msg, sizeof msg, json_string_value(json_object_get(params, "message")));
    pthread_mutex_lock(&u->mu);
    for (watcher *w = u->watch; w; w = w->next)
        if (w->token == json_integer_value(tok)) {
            w->fn(w->ud, json_number_value(done), json_is_number(total) ? json_number_value(total) : -1,
                  msg[0] ? msg : NULL);
            break;
        }
    pthread_mutex_unlock(&u->mu);
}

/* A message from the upstream (a line of the child, or one from an event
 * stream that is not the response its request waits for). */
static void on_msg(wg_upstream *u, const wg_rpc_msg *mp)
{
    const wg_rpc_msg m = *mp;
    if (m.kind == WG_RPC_RESPONSE) {
        on_response(u, &m);
    } else if (m.kind == WG_RPC_NOTIFICATION) {
        if (!strcmp(m.method, "notifications/tools/list_changed")) {
            pthread_mutex_lock(&u->mu);
            u->relist = 1;
            pthread_cond_broadcast(&u->cv);
            pthread_mutex_unlock(&u->mu);
        } else if (!strcmp(m.method, "notifications/progress")) {
            on_progress(u, m.params);
        }
    } else if (m.kind == WG_RPC_REQUEST) {
        /* The gateway declares no client capabilities: ping only. */
        json_t *ans = !strcmp(m.method, "ping")
                          ? wg_rpc__result(m.id, json_object())
                          : wg_rpc__error(m.id, WG_RPC_METHOD_NOT_FOUND, "method not supported by the gateway", NULL);
        if (ans)
            (void)send_msg(u, ans, wg_mcp__now_ms() + 1000);
        json_decref(ans);
    } else {
        pthread_mutex_lock(&u->mu);
        u->st.ignored++;
        pthread_mutex_unlock(&u->mu);
    }
}

static void on_line(wg_upstream *u, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    if (!len)
        return;
    wg_rpc_msg m;
    wg_rpc__parse(&m, line, len);
    on_msg(u, &m);
    wg_rpc__msg_clear(&m);
}

static void http_message(void *ud, const wg_rpc_msg *m)
{
    on_msg(ud, m);
}

static void http_down(void *ud, const char *why)
{
    mark_dead(ud, why);
}

/* One message that expects no answer, on the upstream's transport. */
static int send_msg(wg_upstream *u, const json_t *msg, long deadline)
{
    if (!u->http)
        return write_msg(u, msg, deadline);
    long left = deadline - wg_mcp__now_ms();
    return wg_mcp__uphttp_send(u->http, msg, left > 0 ? left : 1);
}

static void *reader_main(void *arg)
{
    wg_upstream *u = arg;
    size_t max = u->o.line_max;
    size_t cap = READ_CHUNK, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        mark_dead(u, "out of memory");
        return NULL;
    }
    for (;;) {
        struct pollfd p[2] = { { .fd = u->out_fd, .events = POLLIN }, { .fd = u->wake[0], .events = POLLIN } };
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            mark_dead(u, "poll failed");
            break;
        }
        if (p[1].revents) {
            mark_dead(u, "stopped");
            break;
        }
        if (!p[0].revents)
            continue;
        if (cap - len < READ_CHUNK) {
            size_t ncap = cap * 2;
            if (ncap > max + READ_CHUNK + 1)
                ncap = max + READ_CHUNK + 1;
            char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                mark_dead(u, "out of memory reading its output");
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t n = read(u->out_fd, buf + len, READ_CHUNK);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            mark_dead(u, n == 0 ? "closed its output" : "output read failed");
            break;
        }
        len += (size_t)n;
        size_t start = 0;
        for (;;) {
            char *nl = memchr(buf + start, '\n', len - start);
            if (!nl)
                break;
            on_line(u, buf + start, (size_t)(nl - (buf + start)));
            start = (size_t)(nl - buf) + 1;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
        if (len > max) {
            char why[96];
            snprintf(why, sizeof why, "sent a message over %zu bytes (protocol broken)", max);
            mark_dead(u, why);
            break;
        }
        /* Keep memory bounded to what a line needs: shrink after a big one. */
        if (cap > 4 * READ_CHUNK && len < READ_CHUNK) {
            char *nb = realloc(buf, 2 * READ_CHUNK);
            if (nb) {
                buf = nb;
                cap = 2 * READ_CHUNK;
            }
        }
    }
    free(buf);
    return NULL;
}

/* ---- requests --------------------------------------------------------- */

int wg_mcp__up_request(wg_upstream *u, const char *method, json_t *params, long timeout_ms,
                       json_t **result)
{
    if (!u || !method || !result) {
        json_decref(params);
        return wg_error_set(WG_EINVAL, "gateway: bad upstream request");
    }
    *result = NULL;
    if (timeout_ms <= 0)
        timeout_ms = u->timeout_ms;
    pending p = { 0 };
    pthread_mutex_lock(&u->mu);
    if (u->dead || u->stop || !u->live) {
        pthread_mutex_unlock(&u->mu);
        json_decref(params);
        return wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s is not running", u->name);
    }
    if (u->http) {
        /* the answer comes back on the request's own transfer: no pending entry */
        json_int_t id = ++u->next_id;
        pthread_mutex_unlock(&u->mu);
        int rc = wg_mcp__uphttp_request(u->http, id, method, params, timeout_ms, result);
        if (rc != WG_ETIMEOUT)
            return rc;
        json_t *c = wg_rpc__notification("notifications/cancelled",
                                         json_pack("{s:I,s:s}", "requestId", id, "reason", "timeout"));
        if (c)
            (void)send_msg(u, c, wg_mcp__now_ms() + 1000);
        json_decref(c);
        return wg_error_set(WG_ETIMEOUT, "gateway: upstream %s did not answer %s within %ld ms", u->name,
                            method, timeout_ms);
    }
    p.id = ++u->next_id;
    p.next = u->pend;
    u->pend = &p;
    pthread_mutex_unlock(&u->mu);

    long deadline = wg_mcp__now_ms() + timeout_ms;
    json_t *req = wg_rpc__request(p.id, method, params);
    int rc = req ? write_msg(u, req, deadline) : wg_error_set(WG_ENOMEM, "gateway: out of memory");
    json_decref(req);

    struct timespec ts;
    wg_mcp__deadline(&ts, timeout_ms);
    pthread_mutex_lock(&u->mu);
    while (!rc && !p.done && !u->dead && !u->stop &&
           pthread_cond_timedwait(&u->cv, &u->mu, &ts) != ETIMEDOUT)
        ;
    if (!rc && !p.done && (u->dead || u->stop)) {
        p.done = 1;
        p.rc = WG_EUNAVAILABLE;
        snprintf(p.err, sizeof p.err, "upstream %s went down: %.100s", u->name, u->stop ? "stopped" : u->down);
    }
    int timed_out = !rc && !p.done;
    for (pending **pp = &u->pend; *pp; pp = &(*pp)->next)
        if (*pp == &p) {
            *pp = p.next;
            break;
        }
    pthread_mutex_unlock(&u->mu);

    if (rc)
        return rc;
    if (timed_out) {
        json_t *c = wg_rpc__notification("notifications/cancelled",
                                         json_pack("{s:I,s:s}", "requestId", p.id, "reason", "timeout"));
        if (c)
            (void)send_msg(u, c, wg_mcp__now_ms() + 1000);
        json_decref(c);
        return wg_error_set(WG_ETIMEOUT, "gateway: upstream %s did not answer %s within %ld ms", u->name,
                            method, timeout_ms);
    }
    if (p.rc) {
        json_decref(p.result);
        return wg_error_set(p.rc, "gateway: %s", p.err);
    }
    *result = p.result;
    return 0;
}

int wg_mcp__up_call(wg_upstream *u, const char *name, const json_t *args, long timeout_ms,
                    json_t **result)
{
    return wg_mcp__up_call_progress(u, name, args, timeout_ms, NULL, NULL, result);
}

int wg_mcp__up_call_progress(wg_upstream *u, const char *name, const json_t *args, long timeout_ms,
                             wg_up_progress_fn progress, void *ud, json_t **result)
{
    if (!u || !name || !result || (args && !json_is_object(args)))
        return wg_error_set(WG_EINVAL, "gateway: a tool call needs a name and object arguments");
    pthread_mutex_lock(&u->mu);
    int healthy = u->st.state == WG_UP_HEALTHY;
    watcher w = { .fn = progress, .ud = ud };
    if (healthy && progress) {
        w.token = ++u->next_token;
        w.next = u->watch;
        u->watch = &w;
    }
    pthread_mutex_unlock(&u->mu);
    if (!healthy)
        return wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s is not healthy", u->name);
    json_t *params = json_pack("{s:s,s:o}", "name", name, "arguments",
                               args ? json_deep_copy(args) : json_object());
    if (params && progress)
        json_object_set_new(params, "_meta", json_pack("{s:I}", "progressToken", w.token));
    json_t *r = NULL;
    int rc = wg_mcp__up_request(u, "tools/call", params, timeout_ms, &r);
    if (progress) {
        pthread_mutex_lock(&u->mu);
        for (watcher **wp = &u->watch; *wp; wp = &(*wp)->next)
            if (*wp == &w) {
                *wp = w.next;
                break;
            }
        pthread_mutex_unlock(&u->mu);
    }
    if (rc)
        return rc;
    if (!json_is_object(r)) {
        json_decref(r);
        return wg_error_set(WG_EUPSTREAM, "gateway: upstream %s answered tools/call with a non-object", u->name);
    }
    *result = r;
    return 0;
}

/* ---- tools ------------------------------------------------------------ */

static int tool_name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || n > WG_UP_TOOL_NAME_MAX)
        return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

/* tools/list, every page. Invalid tools are left out (counted as ignored). */
static int list_tools(wg_upstream *u, json_t **out)
{
    json_t *all = json_array();
    char *cursor = NULL;
    int rc = all ? 0 : WG_ENOMEM;
    for (int page = 0; !rc; page++) {
        if (page >= WG_UP_PAGES_MAX) {
            rc = wg_error_set(WG_EUPSTREAM, "gateway: upstream %s: tools/list has more than %d pages", u->name,
                              WG_UP_PAGES_MAX);
            break;
        }
        json_t *params = cursor ? json_pack("{s:s}", "cursor", cursor) : NULL;
        json_t *r = NULL;
        rc = wg_mcp__up_request(u, "tools/list", params, u->timeout_ms, &r);
        if (rc)
            break;
        json_t *tools = json_object_get(r, "tools");
        if (!json_is_array(tools)) {
            json_decref(r);
            rc = wg_error_set(WG_EUPSTREAM, "gateway: upstream %s: tools/list without a tools array", u->name);
            break;
        }
        size_t i;
        json_t *t;
        size_t bad = 0;
        json_array_foreach(tools, i, t) {
            const char *nm = json_string_value(json_object_get(t, "name"));
            int dup = 0;
            size_t j;
            json_t *o;
            json_array_foreach(all, j, o)
                if (nm && !strcmp(json_string_value(json_object_get(o, "name")), nm))
                    dup = 1;
            if (!json_is_object(t) || !tool_name_ok(nm) || dup ||
                !json_is_object(json_object_get(t, "inputSchema"))) {
                bad++;
                continue;
            }
            if (json_array_size(all) >= WG_UP_TOOLS_MAX) {
                rc = wg_error_set(WG_EUPSTREAM, "gateway: upstream %s lists more than %d tools", u->name,
                                  WG_UP_TOOLS_MAX);
                break;
            }
            json_array_append(all, t);
        }
        pthread_mutex_lock(&u->mu);
        u->st.ignored += bad;
        pthread_mutex_unlock(&u->mu);
        free(cursor);
        cursor = NULL;
        const char *next = json_string_value(json_object_get(r, "nextCursor"));
        if (next && *next && strlen(next) <= 1024)
            cursor = strdup(next);
        json_decref(r);
        if (!cursor)
            break;
    }
    free(cursor);
    if (rc) {
        json_decref(all);
        return rc;
    }
    *out = all;
    return 0;
}

int wg_mcp__up_tools(wg_upstream *u, json_t **out)
{
    pthread_mutex_lock(&u->mu);
    *out = u->tools ? json_deep_copy(u->tools) : json_array();
    pthread_mutex_unlock(&u->mu);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "gateway: out of memory");
}

json_t *wg_mcp__up_tool(wg_upstream *u, const char *name)
{
    json_t *found = NULL;
    pthread_mutex_lock(&u->mu);
    size_t i;
    json_t *t;
    json_array_foreach(u->tools, i, t)
        if (!strcmp(json_string_value(json_object_get(t, "name")), name)) {
            found = json_deep_copy(t);
            break;
        }
    pthread_mutex_unlock(&u->mu);
    return found;
}

void wg_mcp__up_status(wg_upstream *u, wg_up_status *st)
{
    pthread_mutex_lock(&u->mu);
    *st = u->st;
    st->tools = u->st.state == WG_UP_HEALTHY && u->tools ? json_array_size(u->tools) : 0;
    pthread_mutex_unlock(&u->mu);
}

int wg_mcp__up_wait_healthy(wg_upstream *u, long ms)
{
    struct timespec ts;
    wg_mcp__deadline(&ts, ms);
    pthread_mutex_lock(&u->mu);
    while (!(u->st.state == WG_UP_HEALTHY && !u->dead) && u->st.state != WG_UP_FAILED &&
           pthread_cond_timedwait(&u->cv, &u->mu, &ts) != ETIMEDOUT)
        ;
    wg_up_state s = u->st.state == WG_UP_HEALTHY && u->dead ? WG_UP_RESTARTING : u->st.state;
    pthread_mutex_unlock(&u->mu);
    if (s == WG_UP_HEALTHY)
        return 0;
    return s == WG_UP_FAILED ? wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s failed", u->name)
                             : wg_error_set(WG_ETIMEOUT, "gateway: upstream %s is not healthy yet", u->name);
}

/* ---- the child -------------------------------------------------------- */

static void env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++) {
        explicit_bzero(env[i], strlen(env[i]));
        free(env[i]);
    }
    free(env);
}

static int env_put(char **env, size_t *n, const char *k, const char *v)
{
    size_t kl = strlen(k);
    char *s = malloc(kl + strlen(v) + 2);
    if (!s)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    sprintf(s, "%s=%s", k, v);
    for (size_t i = 0; i < *n; i++)
        if (!strncmp(env[i], k, kl) && env[i][kl] == '=') {
            explicit_bzero(env[i], strlen(env[i]));
            free(env[i]);
            env[i] = s;
            return 0;
        }
    env[(*n)++] = s;
    return 0;
}

/* The child's environment (new, wipe with env_free). */
static int env_build(wg_upstream *u, char ***out)
{
    size_t cap = sizeof BASE_ENV / sizeof *BASE_ENV + u->npairs + 1, n = 0;
    char **env = calloc(cap, sizeof *env);
    if (!env)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof BASE_ENV / sizeof *BASE_ENV; i++) {
        const char *v = getenv(BASE_ENV[i]);
        if (v)
            rc = env_put(env, &n, BASE_ENV[i], v);
    }
    for (size_t i = 0; !rc && i < u->npairs; i++) {
        const wg_gw_pair *p = &u->pairs[i];
        if (!p->from_vault) {
            rc = env_put(env, &n, p->key, p->value);
            continue;
        }
        char *secret = NULL;
        if (!u->o.resolve)
            rc = wg_error_set(WG_EUNAVAILABLE, "gateway: upstream %s: env %s needs the vault, which is not open",
                              u->name, p->key);
        else if (u->o.resolve(u->o.resolve_ud, p->value, &secret) || !secret)
            rc = wg_error_set(WG_ENOTFOUND, "gateway: upstream %s: env %s: the vault secret it names cannot be read",
                              u->name, p->key);
        else
            rc = env_put(env, &n, p->key, secret);
        if (secret) {
            explicit_bzero(secret, strlen(secret));
            free(secret);
        }
    }
    if (rc) {
        env_free(env);
        return rc;
    }
    *out = env;
    return 0;
}

/* The executable: command as is when it has a '/', else the first match on
 * the child's PATH. New. */
static char *find_exe(const char *cmd, char **env)
{
    if (strchr(cmd, '/'))
        return strdup(cmd);
    const char *path = "/usr/local/bin:/usr/bin:/bin";
    for (size_t i = 0; env[i]; i++)
        if (!strncmp(env[i], "PATH=", 5))
            path = env[i] + 5;
    size_t cl = strlen(cmd);
    for (const char *p = path;;) {
        const char *e = strchr(p, ':');
        size_t dl = e ? (size_t)(e - p) : strlen(p);
        char *full = malloc(dl + cl + 2);
        if (!full)
            return NULL;
        snprintf(full, dl + cl + 2, "%.*s/%s", (int)dl, dl ? p : ".", cmd);
        if (dl && access(full, X_OK) == 0)
            return full;
        free(full);
        if (!e)
            return NULL;
        p = e + 1;
    }
}

static int spawn(wg_upstream *u)
{
    char **env = NULL;
    int rc = env_build(u, &env);
    if (rc)
        return rc;
    char *exe = find_exe(u->command, env);
    if (!exe) {
        env_free(env);
        return wg_error_set(WG_ENOTFOUND, "gateway: upstream %s: command %.80s not found on PATH", u->name,
                            u->command);
    }
    int in[2] = { -1, -1 }, out[2] = { -1, -1 }, ep[2] = { -1, -1 };
    int errfd = u->o.stderr_fd >= 0 ? u->o.stderr_fd : open("/dev/null", O_WRONLY | O_CLOEXEC);
    struct rlimit rl;
    long maxfd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;
    if (maxfd > 65536)
        maxfd = 65536;
    pid_t pid = -1;
    if (errfd < 0 || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
        rc = wg_error_set(WG_EIO, "gateway: upstream %s: cannot make pipes", u->name);
    } else if ((pid = fork()) < 0) {
        rc = wg_error_set(WG_EIO, "gateway: upstream %s: fork failed", u->name);
    } else if (pid == 0) {
        /* The child: async-signal-safe calls only. */
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(errfd, 2) < 0)
            _exit(127);
#ifdef SYS_close_range
        if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0)
#endif
            for (long fd = 3; fd < maxfd; fd++)
                if (fd != ep[1])
                    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
        fcntl(ep[1], F_SETFD, FD_CLOEXEC);
        execve(exe, u->argv, env);
        int e = errno;
        ssize_t w = write(ep[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    env_free(env);
    if (u->o.stderr_fd < 0 && errfd >= 0)
        close(errfd);
    if (in[0] >= 0)
        close(in[0]);
    if (out[1] >= 0)
        close(out[1]);
    if (ep[1] >= 0)
        close(ep[1]);
    if (!rc) {
        setpgid(pid, pid);   /* also from here: no race with the child's own */
        int e = 0;
        ssize_t r;
        while ((r = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
            ;
        if (r > 0) {
            waitpid(pid, NULL, 0);
            rc = wg_error_set(WG_EIO, "gateway: upstream %s: cannot run %.80s: %s", u->name, u->command,
                              strerror(e));
        }
    }
    if (ep[0] >= 0)
        close(ep[0]);
    free(exe);
    if (rc) {
        if (in[1] >= 0)
            close(in[1]);
        if (out[0] >= 0)
            close(out[0]);
        return rc;
    }
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
    pthread_mutex_lock(&u->wmu);
    u->in_fd = in[1];
    pthread_mutex_unlock(&u->wmu);
    pthread_mutex_lock(&u->mu);
    u->pid = pid;
    u->live = 1;
    u->out_fd = out[0];
    u->dead = 0;
    u->down[0] = '\0';
    u->relist = 0;
    pthread_mutex_unlock(&u->mu);
    if (pthread_create(&u->reader, NULL, reader_main, u) != 0) {
        mark_dead(u, "cannot start the reader thread");
        return wg_error_set(WG_ENOMEM, "gateway: upstream %s: no reader thread", u->name);
    }
    u->reader_started = 1;
    return 0;
}

/* A url server's start: a new session (the handshake opens it). */
static int open_session(wg_upstream *u)
{
    int rc = wg_mcp__uphttp_open(u->http, u->o.resolve, u->o.resolve_ud);
    if (rc)
        return rc;
    pthread_mutex_lock(&u->mu);
    u->live = 1;
    u->dead = 0;
    u->down[0] = '\0';
    u->relist = 0;
    if (u->stop)   /* wg_mcp__up_free's abort may have come before the open */
        wg_mcp__uphttp_abort(u->http);
    pthread_mutex_unlock(&u->mu);
    return 0;
}

/* Waits up to ms for the child to exit without reaping it. 1 when it did. */
static int exited_within(pid_t pid, long ms)
{
    long end = wg_mcp__now_ms() + ms;
    for (;;) {
        siginfo_t si = { 0 };
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return 1;
        if (wg_mcp__now_ms() >= end)
            return 0;
        struct timespec t = { 0, 10 * 1000000L };
        nanosleep(&t, NULL);
    }
}

/* Stops the child (stdin closed, SIGTERM, SIGKILL to its group), joins the
 * reader, fails every pending call with why. */
static void teardown(wg_upstream *u, long grace_ms, const char *why, char *reason, size_t rsz)
{
    pthread_mutex_lock(&u->mu);
    pid_t pid = u->pid;
    if (!u->dead) {
        u->dead = 1;
        snprintf(u->down, sizeof u->down, "%s", why);
    }
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
    pthread_mutex_lock(&u->wmu);
    if (u->in_fd >= 0)
        close(u->in_fd);
    u->in_fd = -1;
    pthread_mutex_unlock(&u->wmu);
    /* a url server: abort transfers in flight, DELETE the session, wipe the headers */
    wg_mcp__uphttp_close(u->http);
    char status[64] = "";
    if (pid > 0) {
        if (!exited_within(pid, grace_ms)) {
            kill(-pid, SIGTERM);
            if (!exited_within(pid, grace_ms))
                kill(-pid, SIGKILL);
        }
        kill(-pid, SIGKILL);   /* what is left of the group (the leader is not reaped yet) */
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        if (WIFEXITED(ws))
            snprintf(status, sizeof status, " (exit status %d)", WEXITSTATUS(ws));
        else if (WIFSIGNALED(ws))
            snprintf(status, sizeof status, " (signal %d)", WTERMSIG(ws));
    }
    if (u->reader_started) {
        ssize_t w = write(u->wake[1], "x", 1);
        (void)w;
        pthread_join(u->reader, NULL);
        u->reader_started = 0;
        char c[16];
        while (read(u->wake[0], c, sizeof c) > 0)
            ;
    }
    pthread_mutex_lock(&u->mu);
    if (u->out_fd >= 0)
        close(u->out_fd);
    u->out_fd = -1;
    u->pid = 0;
    u->live = 0;
    snprintf(reason, rsz, "upstream %s went down: %.100s%s", u->name, u->down, status);
    for (pending *p = u->pend; p; p = p->next)
        if (!p->done) {
            p->done = 1;
            p->rc = WG_EUNAVAILABLE;
            snprintf(p->err, sizeof p->err, "%s", reason);
        }
    json_decref(u->tools);
    u->tools = NULL;
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
}

static void set_state(wg_upstream *u, wg_up_state s, const char *err)
{
    pthread_mutex_lock(&u->mu);
    u->st.state = s;
    if (err)
        wg_mcp__up_sanitize(u->st.last_error, sizeof u->st.last_error, err);
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
}

__attribute__((format(printf, 2, 3)))
static void note(wg_upstream *u, const char *fmt, ...)
{
    if (!u->o.note)
        return;
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    u->o.note(u->o.note_ud, u, line);
}

/* err for the log line into out: sanitized, without what the line says
 * already ("gateway: ", "upstream NAME ", "went down: "). Returns out. */
static const char *log_reason(const wg_upstream *u, const char *err, char *out, size_t cap)
{
    wg_mcp__up_sanitize(out, cap, err);
    const char *r = out;
    size_t n = strlen(u->name);
    if (!strncmp(r, "gateway: ", 9))
        r += 9;
    if (!strncmp(r, "upstream ", 9) && !strncmp(r + 9, u->name, n) && r[9 + n] == ' ')
        r += 10 + n;
    if (!strncmp(r, "went down: ", 11))
        r += 11;
    return r;
}

static void changed(wg_upstream *u)
{
    if (u->o.changed)
        u->o.changed(u->o.changed_ud, u);
}

static int handshake(wg_upstream *u)
{
    json_t *params = json_pack("{s:s,s:{},s:{s:s,s:s}}", "protocolVersion", WG_UP_PROTOCOL, "capabilities",
                               "clientInfo", "name", "waggle-gateway", "version", "1");
    json_t *r = NULL;
    int rc = wg_mcp__up_request(u, "initialize", params, u->timeout_ms, &r);
    if (rc)
        return rc;
    int ok = json_is_string(json_object_get(r, "protocolVersion")) &&
             json_is_object(json_object_get(r, "capabilities"));
    json_decref(r);
    if (!ok)
        return wg_error_set(WG_EUPSTREAM, "gateway: upstream %s: initialize answered without protocolVersion "
                            "and capabilities", u->name);
    json_t *n = wg_rpc__notification("notifications/initialized", NULL);
    rc = n ? send_msg(u, n, wg_mcp__now_ms() + u->timeout_ms) : WG_ENOMEM;
    json_decref(n);
    if (rc)
        return rc;
    json_t *tools = NULL;
    if ((rc = list_tools(u, &tools)))
        return rc;
    pthread_mutex_lock(&u->mu);
    json_decref(u->tools);
    u->tools = tools;
    pthread_mutex_unlock(&u->mu);
    /* without it, list_changed arrives only inside our POSTs' streams and the
     * supervisor's timer lists again: not a reason to fail the start */
    if (u->http)
        (void)wg_mcp__uphttp_listen(u->http);
    return 0;
}

static void *supervisor_main(void *arg)
{
    wg_upstream *u = arg;
    long backoff = u->o.backoff_min_ms;
    int fails = 0;
    for (int first = 1;; first = 0) {
        pthread_mutex_lock(&u->mu);
        int stop = u->stop;
        if (!first && !stop)
            u->st.restarts++;
        pthread_mutex_unlock(&u->mu);
        if (stop)
            break;
        set_state(u, WG_UP_STARTING, NULL);
        int rc = u->http ? open_session(u) : spawn(u);
        if (!rc)
            rc = handshake(u);
        if (!rc) {
            long since = wg_mcp__now_ms();
            fails = 0;
            set_state(u, WG_UP_HEALTHY, NULL);   /* last_error stays: the last trouble */
            pthread_mutex_lock(&u->mu);
            size_t ntools = json_array_size(u->tools);
            pthread_mutex_unlock(&u->mu);
            note(u, "healthy, %zu tools", ntools);
            changed(u);
            pthread_mutex_lock(&u->mu);
            while (!u->stop && !u->dead) {
                if (u->relist) {
                    u->relist = 0;
                    pthread_mutex_unlock(&u->mu);
                    json_t *tools = NULL;
                    int lr = list_tools(u, &tools);
                    pthread_mutex_lock(&u->mu);
                    if (!lr) {
                        json_decref(u->tools);
                        u->tools = tools;
                        pthread_mutex_unlock(&u->mu);
                        changed(u);
                        pthread_mutex_lock(&u->mu);
                    } else {
                        wg_mcp__up_sanitize(u->st.last_error, sizeof u->st.last_error, wg_error_last());
                    }
                    continue;
                }
                if (!u->http) {
                    pthread_cond_wait(&u->cv, &u->mu);
                    continue;
                }
                /* no GET stream: list again now and then (a list_changed seen
                 * in a POST's stream lists at once); it also notices a dead
                 * server between calls */
                struct timespec ts;
                wg_mcp__deadline(&ts, u->o.relist_ms);
                while (!u->stop && !u->dead && !u->relist &&
                       pthread_cond_timedwait(&u->cv, &u->mu, &ts) != ETIMEDOUT)
                    ;
                if (!u->stop && !u->dead)
                    u->relist = 1;
            }
            char why[160];
            snprintf(why, sizeof why, "%s", u->stop ? "stopped" : u->down);
            pthread_mutex_unlock(&u->mu);
            if (wg_mcp__now_ms() - since >= HEALTHY_RESET_MS)
                backoff = u->o.backoff_min_ms;
            char err[200];
            teardown(u, 200, why, err, sizeof err);
            set_state(u, WG_UP_RESTARTING, u->stop ? NULL : err);
            char clean[200];
            if (!u->stop)
                note(u, "went down: %s; next start in %ld ms", log_reason(u, err, clean, sizeof clean), backoff);
            changed(u);
        } else {
            fails++;
            char err[200];
            snprintf(err, sizeof err, "%s", wg_error_last());
            char ignored[200];
            teardown(u, 200, "the start failed", ignored, sizeof ignored);
            set_state(u, WG_UP_RESTARTING, err);
            char clean[200];
            const char *why = log_reason(u, err, clean, sizeof clean);
            if (fails >= WG_UP_GIVEUP)
                note(u, "start %d failed: %s; gave up (%d starts in a row failed)", fails, why, fails);
            else if (!u->stop)
                note(u, "start %d failed: %s; next start in %ld ms", fails, why, backoff);
        }
        if (fails >= WG_UP_GIVEUP) {
            set_state(u, WG_UP_FAILED, NULL);
            break;
        }
        struct timespec ts;
        wg_mcp__deadline(&ts, backoff);
        pthread_mutex_lock(&u->mu);
        while (!u->stop && pthread_cond_timedwait(&u->cv, &u->mu, &ts) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&u->mu);
        backoff = backoff * 2 > u->o.backoff_max_ms ? u->o.backoff_max_ms : backoff * 2;
    }
    return NULL;
}

/* ---- lifecycle -------------------------------------------------------- */

static void up_destroy(wg_upstream *u)
{
    free(u->command);
    for (size_t i = 0; u->argv && u->argv[i]; i++)
        free(u->argv[i]);
    free(u->argv);
    for (size_t i = 0; i < u->npairs; i++) {
        free(u->pairs[i].key);
        free(u->pairs[i].value);
    }
    free(u->pairs);
    wg_mcp__uphttp_free(u->http);
    if (u->wake[0] >= 0)
        close(u->wake[0]);
    if (u->wake[1] >= 0)
        close(u->wake[1]);
    json_decref(u->tools);
    pthread_mutex_destroy(&u->mu);
    pthread_mutex_destroy(&u->wmu);
    pthread_cond_destroy(&u->cv);
    free(u);
}

int wg_mcp__up_start(wg_upstream **out, const wg_up_options *o)
{
    if (!out || !o || !o->server || !o->server->command == !o->server->url)
        return wg_error_set(WG_EINVAL, "gateway: an upstream needs a command or a url server");
    const wg_gw_server *s = o->server;
    wg_upstream *u = calloc(1, sizeof *u);
    if (!u)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    u->in_fd = u->out_fd = u->wake[0] = u->wake[1] = -1;
    pthread_mutex_init(&u->mu, NULL);
    pthread_mutex_init(&u->wmu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&u->cv, &ca);
    pthread_condattr_destroy(&ca);
    snprintf(u->name, sizeof u->name, "%s", s->name);
    u->o = *o;
    u->o.server = NULL;
    if (!u->o.line_max)
        u->o.line_max = WG_MCP_FRAME_MAX;
    if (u->o.backoff_min_ms <= 0)
        u->o.backoff_min_ms = WG_UP_BACKOFF_MIN_MS;
    if (u->o.backoff_max_ms <= 0)
        u->o.backoff_max_ms = WG_UP_BACKOFF_MAX_MS;
    if (u->o.relist_ms <= 0)
        u->o.relist_ms = WG_UP_RELIST_MS;
    u->timeout_ms = s->timeout_ms > 0 ? s->timeout_ms : WG_GW_TIMEOUT_MS;
    if (s->url) {
        wg_uphttp_hooks hk = { .message = http_message, .down = http_down, .ud = u };
        int rc = wg_mcp__uphttp_new(&u->http, s, u->o.line_max, &hk);
        if (rc) {
            up_destroy(u);
            return rc;
        }
        goto run;
    }
    int ok = (u->command = strdup(s->command)) && (u->argv = calloc(s->nargs + 2, sizeof *u->argv)) &&
             (u->argv[0] = strdup(s->command)) && (u->pairs = calloc(s->npairs + 1, sizeof *u->pairs)) &&
             pipe2(u->wake, O_CLOEXEC | O_NONBLOCK) == 0;
    for (size_t i = 0; ok && i < s->nargs; i++)
        ok = (u->argv[i + 1] = strdup(s->args[i])) != NULL;
    for (size_t i = 0; ok && i < s->npairs; i++) {
        u->pairs[i].from_vault = s->pairs[i].from_vault;
        ok = (u->pairs[i].key = strdup(s->pairs[i].key)) && (u->pairs[i].value = strdup(s->pairs[i].value));
        u->npairs = i + 1;
    }
    if (!ok) {
        up_destroy(u);
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    }
run:
    u->st.state = WG_UP_STARTING;
    if (pthread_create(&u->sup, NULL, supervisor_main, u) != 0) {
        up_destroy(u);
        return wg_error_set(WG_ENOMEM, "gateway: cannot start the supervisor thread");
    }
    u->sup_started = 1;
    *out = u;
    return 0;
}

void wg_mcp__up_free(wg_upstream *u)
{
    if (!u)
        return;
    pthread_mutex_lock(&u->mu);
    u->stop = 1;
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
    wg_mcp__uphttp_abort(u->http);   /* a handshake in flight ends now, not at its timeout */
    if (u->sup_started)
        pthread_join(u->sup, NULL);
    u->st.state = WG_UP_STOPPED;
    up_destroy(u);
}

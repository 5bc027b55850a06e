/* feed.c - notifications between replicas on one PostgreSQL (waggle/store.h
 * "notifications"): NOTIFY through the store's own connection, and a
 * listener thread with a connection of its own that LISTENs and hands
 * each payload to a callback. The listener never blocks the store: it
 * waits on its socket with a half-second poll so that stop is prompt, and
 * it reconnects (LISTEN again) every half second while the server is
 * away. What was sent while it was away is not replayed: the events are
 * advisory (a live view); the state they describe is in the store. */
#include "store/store_int.h"
#include "waggle/error.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { POLL_MS = 500, CHANNEL_MAX = 63 };

struct wg_store_feed {
    pthread_t thread;
    char *conninfo;
    char channel[CHANNEL_MAX + 1];
    wg_store_feed_fn fn;
    void *ud;
    int stop;                  /* atomic */
    int listening;             /* atomic */
};

static int channel_ok(const char *c)
{
    size_t n = c ? strlen(c) : 0;
    if (n < 1 || n > CHANNEL_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= '0' && c[i] <= '9') || c[i] == '_'))
            return 0;
    return 1;
}

int wg_store_notify(wg_store *st, const char *channel, const char *payload)
{
    if (!st || !payload)
        return wg_error_set(WG_EINVAL, "wg_store_notify: NULL argument");
    if (!channel_ok(channel))
        return wg_error_set(WG_EINVAL, "a channel is 1..%d of [a-z0-9_]", CHANNEL_MAX);
    if (strlen(payload) > WG_STORE_NOTIFY_MAX)
        return wg_error_set(WG_EINVAL, "a notification is at most %d bytes", WG_STORE_NOTIFY_MAX);
    if (strcmp(wg_store_backend_name(st), "postgres") != 0)
        return wg_error_set(WG_EUNSUPPORTED, "notifications need the PostgreSQL back end");
    wg_store_value p[2] = { WG_SV_TEXT(channel), WG_SV_TEXT(payload) };
    return wg_store_exec(st, "SELECT pg_notify(?, ?)", p, 2, NULL, NULL);
}

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static int stopping(wg_store_feed *f)
{
    return __atomic_load_n(&f->stop, __ATOMIC_ACQUIRE);
}

static PGconn *connect_listen(wg_store_feed *f)
{
    PGconn *c = PQconnectdb(f->conninfo);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeProcessor(c, quiet, NULL);
    char q[96];
    snprintf(q, sizeof q, "LISTEN %s", f->channel);   /* channel_ok: no quoting needed */
    PGresult *r = PQexec(c, q);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Waits up to POLL_MS for the socket; 0 on timeout or data, -1 when lost. */
static int drain(wg_store_feed *f, PGconn *c)
{
    struct pollfd p = { PQsocket(c), POLLIN, 0 };
    if (p.fd < 0)
        return -1;
    int n = poll(&p, 1, POLL_MS);
    if (n < 0)
        return 0;   /* EINTR */
    if (n > 0 && !PQconsumeInput(c))
        return -1;
    PGnotify *nt;
    while ((nt = PQnotifies(c)) != NULL) {
        if (!stopping(f))
            f->fn(f->ud, nt->extra ? nt->extra : "");
        PQfreemem(nt);
    }
    return PQstatus(c) == CONNECTION_OK ? 0 : -1;
}

static void *run(void *arg)
{
    wg_store_feed *f = arg;
    PGconn *c = NULL;
    while (!stopping(f)) {
        if (!c && !(c = connect_listen(f))) {
            usleep(POLL_MS * 1000);
            continue;
        }
        __atomic_store_n(&f->listening, 1, __ATOMIC_RELEASE);
        if (drain(f, c) < 0) {
            __atomic_store_n(&f->listening, 0, __ATOMIC_RELEASE);
            PQfinish(c);
            c = NULL;
        }
    }
    __atomic_store_n(&f->listening, 0, __ATOMIC_RELEASE);
    PQfinish(c);
    return NULL;
}

int wg_store_feed_start(wg_store_feed **out, wg_store *st, const char *channel,
                        wg_store_feed_fn fn, void *ud)
{
    if (!out || !st || !fn)
        return wg_error_set(WG_EINVAL, "wg_store_feed_start: NULL argument");
    if (!channel_ok(channel))
        return wg_error_set(WG_EINVAL, "a channel is 1..%d of [a-z0-9_]", CHANNEL_MAX);
    if (strcmp(wg_store_backend_name(st), "postgres") != 0)
        return wg_error_set(WG_EUNSUPPORTED, "a feed needs the PostgreSQL back end");
    /* LISTEN needs a session of its own: behind PgBouncer in transaction
     * mode the operator points this one connection straight at PostgreSQL. */
    const char *direct = getenv("WAGGLE_DATABASE_LISTEN_URL");
    wg_store_feed *f = calloc(1, sizeof *f);
    if (!f || !(f->conninfo = strdup(direct && *direct ? direct : wg_store__target(st)))) {
        free(f);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    snprintf(f->channel, sizeof f->channel, "%s", channel);
    f->fn = fn;
    f->ud = ud;
    if (pthread_create(&f->thread, NULL, run, f) != 0) {
        free(f->conninfo);
        free(f);
        return wg_error_set(WG_ENOMEM, "cannot start the feed thread");
    }
    *out = f;
    return 0;
}

int wg_store_feed_listening(wg_store_feed *f)
{
    return f && __atomic_load_n(&f->listening, __ATOMIC_ACQUIRE);
}

void wg_store_feed_stop(wg_store_feed *f)
{
    if (!f)
        return;
    __atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
    pthread_join(f->thread, NULL);
    memset(f->conninfo, 0, strlen(f->conninfo));
    free(f->conninfo);
    free(f);
}

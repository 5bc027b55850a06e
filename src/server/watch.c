/* watch.c - the connection watchdog of waggled (watch.h; issue 11 section 4).
 *
 * libmicrohttpd's connection timeout restarts with every byte received, so
 * a client that sends one header line every few seconds holds a connection
 * for as long as it likes (slowloris). This file keeps its own table of the
 * open connections and
 *   - gives a request an absolute deadline: request_deadline_ms from its
 *     request line (from the accept, for a connection's first request) to
 *     its last body byte; a keep-alive connection may wait gap_ms between
 *     an answer and the next request line;
 *   - allows at most per_ip open connections per client address (IPv6: per
 *     /64, which one subscriber usually holds), except from the operator's
 *     trusted proxies (HAProxy in front of replicas connects from one
 *     address for everyone).
 * A thread wakes at the earliest deadline (at least every TICK_MAX_MS) and
 * shuts overdue sockets down with shutdown(2), never close(2):
 * libmicrohttpd owns the descriptor, sees the end of the stream on its own
 * thread and closes the connection there. libmicrohttpd calls the closed
 * hook before it closes the descriptor, and the socket is only shut down
 * while its entry is in the table (under the mutex), so a descriptor number
 * that was reused is never touched.
 *
 * Costs: admit/opened/closed are O(1) (a SipHash-keyed table of addresses,
 * so a client cannot pick colliding addresses); the thread's pass is linear
 * in the open connections, which the global limit bounds.
 * Thread-safety: every function may be called from any thread. */
#include "server/watch.h"
#include "waggle/error.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TICK_MIN_MS = 10, TICK_MAX_MS = 250, BUCKETS_MIN = 64, BUCKETS_MAX = 1 << 20 };

/* An address: family 4 or 6 (IPv4-mapped IPv6 counts as 4), bytes in
 * network order; family 0 for what is not IP (never limited apart). */
typedef struct {
    int fam;
    unsigned char b[16];
} ip_addr;

typedef struct {
    ip_addr a;
    unsigned bits;
} ip_prefix;

/* How many connections one address (v4) or /64 (v6) has open. */
typedef struct ip_node {
    unsigned char key[9];         /* family byte + 4 or 8 address bytes */
    size_t key_len;
    unsigned count;
    struct ip_node *next;
} ip_node;

typedef enum { PHASE_RECEIVING, PHASE_ANSWERING, PHASE_GAP } conn_phase;

typedef struct conn {
    int fd;
    ip_node *node;                /* NULL for trusted proxies */
    conn_phase phase;
    long long deadline_ms;        /* monotonic; unused while answering */
    int shut;
    struct conn *prev, *next;
} conn;

struct wg_watch {
    unsigned per_ip;
    long long request_deadline_ms, gap_ms;
    ip_prefix trusted[WG_WATCH_TRUSTED_MAX];
    size_t n_trusted;
    void (*log)(void *ud, const char *line);
    void *log_ud;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int running, stop;
    ip_node **buckets;
    size_t mask;
    unsigned char hkey[crypto_shorthash_KEYBYTES];
    conn *head;
    size_t open;
    unsigned long long refused, overdue;
    unsigned long long refused_logged, overdue_logged;
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- addresses ------------------------------------------------------------ */

static void ip_from_sa(ip_addr *out, const struct sockaddr *sa, socklen_t len)
{
    memset(out, 0, sizeof *out);
    if (sa && sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        out->fam = 4;
        memcpy(out->b, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a6)) {
            out->fam = 4;
            memcpy(out->b, a6->s6_addr + 12, 4);
        } else {
            out->fam = 6;
            memcpy(out->b, a6->s6_addr, 16);
        }
    }
}

/* "10.0.0.5", "10.0.0.0/24", "::1", "fd00::/8", "::ffff:10.0.0.5". */
static int prefix_parse(ip_prefix *out, const char *s)
{
    char buf[INET6_ADDRSTRLEN + 8];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n + 1);
    char *slash = strchr(buf, '/');
    long bits = -1;
    if (slash) {
        *slash = '\0';
        const char *d = slash + 1;
        if (!*d || strlen(d) > 3 || strspn(d, "0123456789") != strlen(d))
            return -1;
        bits = atol(d);
    }
    memset(out, 0, sizeof *out);
    struct in6_addr a6;
    if (inet_pton(AF_INET, buf, out->a.b) == 1) {
        out->a.fam = 4;
    } else if (inet_pton(AF_INET6, buf, &a6) == 1) {
        if (IN6_IS_ADDR_V4MAPPED(&a6)) {
            out->a.fam = 4;
            memcpy(out->a.b, a6.s6_addr + 12, 4);
            if (bits >= 96)
                bits -= 96;
            else if (bits >= 0)
                return -1;
        } else {
            out->a.fam = 6;
            memcpy(out->a.b, a6.s6_addr, 16);
        }
    } else {
        return -1;
    }
    long max = out->a.fam == 4 ? 32 : 128;
    if (bits > max)
        return -1;
    out->bits = (unsigned)(bits < 0 ? max : bits);
    return 0;
}

static int prefix_has(const ip_prefix *p, const ip_addr *a)
{
    if (p->a.fam != a->fam)
        return 0;
    unsigned full = p->bits / 8, rest = p->bits % 8;
    if (memcmp(p->a.b, a->b, full) != 0)
        return 0;
    if (rest == 0)
        return 1;
    unsigned char mask = (unsigned char)(0xFF << (8 - rest));
    return (p->a.b[full] & mask) == (a->b[full] & mask);
}

static int is_trusted(const wg_watch *w, const ip_addr *a)
{
    for (size_t i = 0; i < w->n_trusted; i++)
        if (prefix_has(&w->trusted[i], a))
            return 1;
    return 0;
}

/* The counting key: a v4 address, or the /64 of a v6 one. */
static size_t key_of(unsigned char key[9], const ip_addr *a)
{
    key[0] = (unsigned char)a->fam;
    size_t n = a->fam == 4 ? 4 : a->fam == 6 ? 8 : 0;
    memcpy(key + 1, a->b, n);
    return n + 1;
}

/* ---- the address table (under mu) ---------------------------------------- */

static size_t bucket_of(const wg_watch *w, const unsigned char *key, size_t len)
{
    unsigned char h[crypto_shorthash_BYTES];
    crypto_shorthash(h, key, len, w->hkey);
    uint64_t v;
    memcpy(&v, h, sizeof v);
    return (size_t)v & w->mask;
}

static ip_node **node_slot(wg_watch *w, const unsigned char *key, size_t len)
{
    ip_node **p = &w->buckets[bucket_of(w, key, len)];
    while (*p && ((*p)->key_len != len || memcmp((*p)->key, key, len) != 0))
        p = &(*p)->next;
    return p;
}

/* ---- lifecycle -------------------------------------------------------------- */

int wg_watch__new(wg_watch **out, const wg_watch_options *opt)
{
    if (!opt || opt->per_ip == 0 || opt->request_deadline_ms == 0 || opt->gap_ms == 0)
        return wg_error_set(WG_EINVAL, "watchdog: the limits must be above zero");
    wg_watch *w = calloc(1, sizeof *w);
    if (!w)
        return wg_error_set(WG_ENOMEM, "out of memory");
    w->per_ip = opt->per_ip;
    w->request_deadline_ms = opt->request_deadline_ms;
    w->gap_ms = opt->gap_ms;
    w->log = opt->log;
    w->log_ud = opt->log_ud;
    for (const char *const *t = opt->trusted; t && *t; t++) {
        if (w->n_trusted == WG_WATCH_TRUSTED_MAX) {
            free(w);
            return wg_error_set(WG_EINVAL, "more than %d trusted proxies", WG_WATCH_TRUSTED_MAX);
        }
        if (prefix_parse(&w->trusted[w->n_trusted], *t) < 0) {
            wg_error_set(WG_EINVAL, "trusted proxy '%.64s' is not an IP address or ADDR/BITS", *t);
            free(w);
            return WG_EINVAL;
        }
        w->n_trusted++;
    }
    size_t want = opt->max_connections * 2, n = BUCKETS_MIN;
    while (n < want && n < BUCKETS_MAX)
        n *= 2;
    w->buckets = calloc(n, sizeof *w->buckets);
    if (!w->buckets) {
        free(w);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    w->mask = n - 1;
    crypto_shorthash_keygen(w->hkey);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->mu, NULL);
    *out = w;
    return 0;
}

static void logf_counts(wg_watch *w, unsigned long long refused, unsigned long long overdue)
{
    if (!w->log || (!refused && !overdue))
        return;
    char line[160];
    snprintf(line, sizeof line,
             "watch refused=%llu (per-address limit %u) overdue=%llu (closed past a deadline)",
             refused, w->per_ip, overdue);
    w->log(w->log_ud, line);
}

static void *run(void *arg)
{
    wg_watch *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        long long now = now_ms(), next = now + TICK_MAX_MS;
        for (conn *c = w->head; c; c = c->next) {
            if (c->shut || c->phase == PHASE_ANSWERING)
                continue;
            if (c->deadline_ms <= now) {
                shutdown(c->fd, SHUT_RDWR);
                c->shut = 1;
                w->overdue++;
            } else if (c->deadline_ms < next) {
                next = c->deadline_ms;
            }
        }
        unsigned long long refused = w->refused - w->refused_logged;
        unsigned long long overdue = w->overdue - w->overdue_logged;
        w->refused_logged = w->refused;
        w->overdue_logged = w->overdue;
        if (refused || overdue) {
            pthread_mutex_unlock(&w->mu);
            logf_counts(w, refused, overdue);
            pthread_mutex_lock(&w->mu);
        }
        if (next < now + TICK_MIN_MS)
            next = now + TICK_MIN_MS;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long long wait = next - now;
        ts.tv_sec += wait / 1000;
        ts.tv_nsec += (wait % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if (!w->stop)
            pthread_cond_timedwait(&w->cv, &w->mu, &ts);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int wg_watch__start(wg_watch *w)
{
    if (pthread_create(&w->thread, NULL, run, w) != 0)
        return wg_error_set(WG_EIO, "cannot start the connection watchdog thread");
    w->running = 1;
    return 0;
}

void wg_watch__free(wg_watch *w)
{
    if (!w)
        return;
    if (w->running) {
        pthread_mutex_lock(&w->mu);
        w->stop = 1;
        pthread_cond_signal(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    while (w->head) {
        conn *c = w->head;
        w->head = c->next;
        free(c);
    }
    for (size_t i = 0; i <= w->mask; i++) {
        while (w->buckets[i]) {
            ip_node *n = w->buckets[i];
            w->buckets[i] = n->next;
            free(n);
        }
    }
    free(w->buckets);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    sodium_memzero(w->hkey, sizeof w->hkey);
    free(w);
}

/* ---- hooks -------------------------------------------------------------------- */

int wg_watch__admit(wg_watch *w, const struct sockaddr *sa, socklen_t len)
{
    ip_addr a;
    ip_from_sa(&a, sa, len);
    if (is_trusted(w, &a))
        return 1;
    unsigned char key[9];
    size_t kl = key_of(key, &a);
    pthread_mutex_lock(&w->mu);
    ip_node *n = *node_slot(w, key, kl);
    int ok = !n || n->count < w->per_ip;
    if (!ok)
        w->refused++;
    pthread_mutex_unlock(&w->mu);
    return ok;
}

void *wg_watch__opened(wg_watch *w, int fd, const struct sockaddr *sa, socklen_t len)
{
    ip_addr a;
    ip_from_sa(&a, sa, len);
    int trusted = is_trusted(w, &a);
    conn *c = calloc(1, sizeof *c);
    ip_node *fresh = trusted ? NULL : calloc(1, sizeof *fresh);
    if (!c || (!trusted && !fresh)) {
        free(c);
        free(fresh);
        shutdown(fd, SHUT_RDWR);      /* untracked would mean unlimited */
        return NULL;
    }
    c->fd = fd;
    c->phase = PHASE_RECEIVING;
    pthread_mutex_lock(&w->mu);
    c->deadline_ms = now_ms() + w->request_deadline_ms;
    if (!trusted) {
        unsigned char key[9];
        size_t kl = key_of(key, &a);
        ip_node **slot = node_slot(w, key, kl);
        if (!*slot) {
            memcpy(fresh->key, key, kl);
            fresh->key_len = kl;
            *slot = fresh;
            fresh = NULL;
        }
        c->node = *slot;
        if (++c->node->count > w->per_ip) {    /* two accepts raced past admit */
            shutdown(fd, SHUT_RDWR);
            c->shut = 1;
            w->refused++;
        }
    }
    c->next = w->head;
    if (w->head)
        w->head->prev = c;
    w->head = c;
    w->open++;
    pthread_mutex_unlock(&w->mu);
    free(fresh);
    return c;
}

void wg_watch__closed(wg_watch *w, void *p)
{
    conn *c = p;
    if (!c)
        return;
    pthread_mutex_lock(&w->mu);
    if (c->prev)
        c->prev->next = c->next;
    else
        w->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    w->open--;
    ip_node *drop = NULL;
    if (c->node && --c->node->count == 0) {
        ip_node **slot = node_slot(w, c->node->key, c->node->key_len);
        drop = *slot;
        *slot = drop->next;
    }
    pthread_mutex_unlock(&w->mu);
    free(drop);
    free(c);
}

static void set_phase(wg_watch *w, conn *c, conn_phase ph, long long span_ms, int keep_receiving)
{
    if (!c)
        return;
    pthread_mutex_lock(&w->mu);
    if (!(keep_receiving && c->phase == PHASE_RECEIVING)) {
        c->phase = ph;
        c->deadline_ms = now_ms() + span_ms;
    }
    pthread_mutex_unlock(&w->mu);
}

void wg_watch__request_line(wg_watch *w, void *p)
{
    /* The first request of a connection keeps the deadline of its accept. */
    set_phase(w, p, PHASE_RECEIVING, w->request_deadline_ms, 1);
}

void wg_watch__answering(wg_watch *w, void *p)
{
    set_phase(w, p, PHASE_ANSWERING, 0, 0);
}

void wg_watch__answered(wg_watch *w, void *p)
{
    set_phase(w, p, PHASE_GAP, w->gap_ms, 0);
}

void wg_watch__stats(wg_watch_stats *out, wg_watch *w)
{
    pthread_mutex_lock(&w->mu);
    out->open = w->open;
    out->refused = w->refused;
    out->overdue = w->overdue;
    pthread_mutex_unlock(&w->mu);
}

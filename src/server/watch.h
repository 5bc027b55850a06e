/* watch.h - the connection watchdog of waggled (watch.c): per-address
 * connection limits with trusted proxies exempt, and absolute deadlines for
 * receiving a request. Internal to src/server; http.c wires it into
 * libmicrohttpd's hooks. Knows sockets, not HTTP. */
#ifndef WAGGLE_SERVER_WATCH_H
#define WAGGLE_SERVER_WATCH_H

#include <stddef.h>
#include <sys/socket.h>

typedef struct wg_watch wg_watch;

typedef struct wg_watch_options {
    unsigned per_ip;                /* open connections per client address (IPv6: per /64); > 0 */
    unsigned request_deadline_ms;   /* request line (or accept) to last body byte; > 0 */
    unsigned gap_ms;                /* an answer to the next request line (keep-alive); > 0 */
    size_t max_connections;         /* the global limit; sizes the address table */
    const char *const *trusted;     /* "ADDR" or "ADDR/BITS" exempt from per_ip;
                                       NULL-terminated, may be NULL */
    void (*log)(void *ud, const char *line);   /* may be NULL; called on the watchdog thread */
    void *log_ud;
} wg_watch_options;

/* Maximum number of trusted proxy entries. */
enum { WG_WATCH_TRUSTED_MAX = 64 };

/* *out is new (free with wg_watch__free); the thread is not started yet.
 * Returns 0, WG_EINVAL (a zero bound, a trusted entry that is not an IP
 * address or prefix, more than WG_WATCH_TRUSTED_MAX entries; the message
 * names the entry, which is the operator's own), WG_ENOMEM. */
int wg_watch__new(wg_watch **out, const wg_watch_options *opt);

/* Starts the thread that shuts overdue sockets down. Returns 0 or WG_EIO. */
int wg_watch__start(wg_watch *w);

/* Stops the thread and frees everything. Call after the HTTP daemon has
 * stopped (every connection closed). NULL is a no-op. */
void wg_watch__free(wg_watch *w);

/* Accept policy: 1 when a connection from sa may be accepted now (a
 * trusted proxy, or fewer than per_ip open from its address), else 0. */
int wg_watch__admit(wg_watch *w, const struct sockaddr *sa, socklen_t len);

/* A connection was accepted on fd. Returns the handle to pass to the hooks
 * below (NULL if out of memory: then the socket is shut down at once). Over
 * the per-address limit (two accepts raced) the socket is shut down too. */
void *wg_watch__opened(wg_watch *w, int fd, const struct sockaddr *sa, socklen_t len);
/* The connection is closing; its descriptor is still open. conn may be NULL. */
void wg_watch__closed(wg_watch *w, void *conn);

/* Request phases. conn may be NULL (a no-op). */
void wg_watch__request_line(wg_watch *w, void *conn);   /* a request line arrived */
void wg_watch__answering(wg_watch *w, void *conn);      /* received; no deadline now */
void wg_watch__answered(wg_watch *w, void *conn);       /* done; the keep-alive gap starts */

/* Counters since start (for logs and tests). */
typedef struct wg_watch_stats {
    size_t open;                    /* connections in the table now */
    unsigned long long refused;     /* over the per-address limit */
    unsigned long long overdue;     /* shut down past a deadline */
} wg_watch_stats;
void wg_watch__stats(wg_watch_stats *out, wg_watch *w);

#endif

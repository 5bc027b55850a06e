/* waggle/server.h - waggled, the HTTP/JSON service (spec 7.5, 8.5, 10, 11).
 *
 * An embeddable server: wg_server_start binds, starts worker threads
 * (libmicrohttpd, epoll, a thread pool sized to the cores, HTTP/1.1
 * keep-alive) and returns at once; wg_server_stop drains in-flight requests
 * and frees everything. Routes are tables in src/server/routes_*.c (see
 * src/server/route.h). Every /api/ route needs `Authorization: Bearer
 * <token>`; the Host header must name the listen address, localhost,
 * 127.0.0.1, [::1] or a configured name (DNS-rebinding defence).
 *
 * Thread-safety: one server is driven from one thread (start, port, stop);
 * several servers may run in one process (tests do).
 */
#ifndef WAGGLE_SERVER_H
#define WAGGLE_SERVER_H

#include "waggle/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_server wg_server;

/* Called with one complete log line (no trailing newline): the start-up
 * line, access lines "access method=GET path=/api/tier status=200 us=153",
 * and errors. Runs on worker threads; must be thread-safe. */
typedef void (*wg_server_log_fn)(void *ud, const char *line);

#define WG_SERVER_OPTIONS_VERSION 1

typedef struct wg_server_options {
    unsigned int version;        /* WG_SERVER_OPTIONS_VERSION */
    const char *data_dir;        /* required: an existing directory (wg_datadir_open) */
    const char *listen;          /* "HOST:PORT", "[::1]:PORT", ":PORT" or "PORT";
                                    NULL -> "127.0.0.1:3333". Port 0 = ephemeral. */
    const char *api_token;       /* NULL -> DATA_DIR/api-token (created 0600 on first start) */
    const char *const *allowed_hosts;  /* extra Host names (NULL-terminated) or NULL */
    const char *const *cors_origins;   /* exact origins allowed by CORS, or NULL (none) */
    unsigned threads;            /* worker threads; 0 -> number of cores */
    unsigned timeout_s;          /* idle connection timeout (no byte for this
                                    long); 0 -> 30 */
    long long autonomy_cap_ms;   /* how far ahead autonomy.expiresAt may be; 0 -> 8 h;
                                    negative is WG_EINVAL (never unlimited) */
    unsigned approval_ttl_s;     /* how long a call waits for POST /api/approval/:id
                                    before it counts as denied; 0 -> 300 (5 min) */
    const char *max_autonomy;    /* the highest level an app may request: "normal",
                                    "trusted" or "yolo"; NULL -> yolo (spec 7.3) */
    const char *const *never_autopass;  /* tools that always ask (NULL-terminated; a
                                    trailing '*' is a prefix), or NULL */
    unsigned sse_heartbeat_ms;   /* an idle event stream's comment line; 0 -> 15 000 */
    unsigned sse_max_streams;    /* event streams open at once; 0 -> 128 (also the most) */
    int demo;                    /* register the demo connectors */
    int allow_private_upstreams; /* connectors may reach loopback/private/link-local
                                    addresses (docs/security.md 3.2); never the default */
    int allow_http_upstreams;    /* connectors may use plain http:// (and SMTP without TLS) */
    const char *const *obsidian_roots;  /* directories an Obsidian vault connected with the
                                    API token may be or lie under (NULL-terminated) or
                                    NULL; /, the data dir and its parents are refused */
    int allow_privileged_db_roles; /* the postgres connector may use a privileged role */
    /* Hostile clients (docs/security.md section 7). */
    unsigned max_connections;    /* open connections in all; 0 -> 1000, less when
                                    RLIMIT_NOFILE leaves less room. Above the room
                                    RLIMIT_NOFILE leaves: WG_EINVAL */
    unsigned max_connections_per_ip;   /* per client address (IPv6: per /64);
                                    0 -> 64 (at most max_connections) */
    unsigned request_deadline_s; /* from a request line to its last body byte,
                                    however steadily bytes trickle in; 0 -> 30 */
    const char *const *trusted_proxies;  /* "ADDR" or "ADDR/BITS" exempt from the
                                    per-address limit (a load balancer), NULL-
                                    terminated, or NULL; at most 64 */
    wg_server_log_fn log;        /* may be NULL (silent) */
    void *log_ud;
    /* An MCP gateway file (the mcpServers format, docs/mcp.md "Gateway") or
     * NULL: its stdio servers are started and supervised by the service,
     * their tools are the engine's <server>__<tool> (GET /api/tools, POST
     * /api/tools/execute, /mcp, approvals through POST /api/approval/:id),
     * and GET /api/capabilities/status reports each one's true state. An
     * invalid file fails the start (WG_EINVAL). */
    const char *gateway;
} wg_server_options;

#define WG_SERVER_OPTIONS_INIT { .version = WG_SERVER_OPTIONS_VERSION }

/* Starts serving. *out is new: stop and free it with wg_server_stop.
 * Returns 0, WG_EINVAL (options of another version, bad listen address,
 * missing data_dir, a connection limit RLIMIT_NOFILE cannot hold, a trusted
 * proxy that is not an address), WG_EIO (cannot bind, token file),
 * WG_ENOMEM, or what an area's init returned. */
WG_EXTERN int wg_server_start(wg_server **out, const wg_server_options *opt);

/* The bound port (useful with port 0). */
WG_EXTERN unsigned wg_server_port(const wg_server *srv);

/* The API token in use. Borrowed; valid while the server lives. */
WG_EXTERN const char *wg_server_token(const wg_server *srv);

/* A one-time dashboard login token (docs/server.md, "The dashboard"): 64
 * hex characters, valid for 10 minutes, used up by the first
 * POST /api/dashboard/login on any waggled sharing st (only its hash is
 * stored). *token is new (free()). Returns 0, WG_EBUSY (16 unused tokens
 * are live), WG_ESTORE, WG_ENOMEM, WG_EINVAL. Thread-safe as st. */
struct wg_store;
WG_EXTERN int wg_server_login_token(char **token, struct wg_store *st);

/* The same as a link to this server's dashboard:
 * "http://HOST:PORT/login#t=TOKEN" (the token in the fragment, so no
 * request line, log or Referer carries it); HOST is 127.0.0.1 (or [::1])
 * when the server listens on every address. *url is new (free()). */
WG_EXTERN int wg_server_login_url(char **url, wg_server *srv);

/* Stops accepting, lets requests in flight finish (up to 10 s), closes the
 * store and frees the server. NULL is a no-op. */
WG_EXTERN void wg_server_stop(wg_server *srv);

#ifdef __cplusplus
}
#endif
#endif

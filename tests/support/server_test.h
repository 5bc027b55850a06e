/* server_test.h - start a real waggled in-process on 127.0.0.1 (ephemeral
 * port, fresh data dir) and talk to it with libcurl. For every contract test,
 * the connector suites included:
 *
 *     wgt_server s;
 *     wgt_server_start(&s, NULL);                 // aborts the test on failure
 *     wgt_http_res r;
 *     wgt_http(&r, &s, "GET", "/api/tier", NULL);  // with the API token
 *     cr_assert_eq(r.status, 200);
 *     cr_assert(json_is_object(r.json));
 *     wgt_http_res_free(&r);
 *     wgt_server_stop(&s);                        // also removes the data dir
 */
#ifndef WAGGLE_SERVER_TEST_H
#define WAGGLE_SERVER_TEST_H

#include <jansson.h>

#include "waggle/server.h"

typedef struct wgt_server {
    wg_server *srv;
    char *dir;              /* the data dir (a fresh temp dir unless given) */
    char base[64];          /* "http://127.0.0.1:PORT" */
    unsigned port;
    char token[128];        /* API token */
    char admin[128];        /* admin token (DATA_DIR/admin-token) */
} wgt_server;

typedef struct wgt_server_config {
    const char *data_dir;             /* NULL: a fresh temp dir */
    const char *const *files;         /* pairs {"name","content",...,NULL} written first */
    const char *const *cors_origins;
    const char *const *allowed_hosts;
    unsigned timeout_s;               /* 0: 30 */
    int demo;
    unsigned approval_ttl_s;          /* 0: the server's default (300) */
    const char *max_autonomy;         /* NULL: yolo */
    const char *const *never_autopass;
    unsigned sse_heartbeat_ms;        /* 0: the server's default */
    unsigned sse_max_streams;         /* 0: the server's default */
    unsigned threads;                 /* 0: 2 */
    int allow_private_upstreams;      /* loopback replay upstreams need both */
    int allow_http_upstreams;
    const char *const *obsidian_roots;  /* --obsidian-root DIR... */
    unsigned max_connections;         /* 0: the server's default */
    unsigned max_connections_per_ip;  /* 0: the server's default (64) */
    unsigned request_deadline_s;      /* 0: the server's default (30) */
    const char *const *trusted_proxies;
    const char *listen;               /* NULL: "127.0.0.1:0" */
    wg_server_log_fn log;             /* NULL: silent */
    void *log_ud;
} wgt_server_config;

/* Starts the server; cfg may be NULL. Aborts the test if it cannot. */
void wgt_server_start(wgt_server *s, const wgt_server_config *cfg);
/* Stops it and removes the temp data dir it made. */
void wgt_server_stop(wgt_server *s);

typedef struct wgt_http_res {
    long status;            /* 0 when the request failed at the transport */
    char *body;             /* NUL-terminated */
    size_t len;
    json_t *json;           /* parsed body or NULL */
    char *headers;          /* raw response headers */
} wgt_http_res;

enum { WGT_AUTH_NONE = 0, WGT_AUTH_API = 1, WGT_AUTH_ADMIN = 2 };

/* method + path (with query) + body (NULL: none), API token. */
void wgt_http(wgt_http_res *r, const wgt_server *s, const char *method, const char *path,
              const char *body);
/* The same with a choice of token and extra headers ("Name: value",
 * NULL-terminated; may be NULL). A "Host:" entry replaces curl's. */
void wgt_http_ex(wgt_http_res *r, const wgt_server *s, const char *method, const char *path,
                 const char *body, size_t body_len, int auth, const char *const *headers);
/* A response header's value (case-insensitive name), new string or NULL. */
char *wgt_http_header(const wgt_http_res *r, const char *name);
void wgt_http_res_free(wgt_http_res *r);

/* Writes DATA_DIR/config.json (tier etc.). */
void wgt_server_config_json(const wgt_server *s, const char *json);

#endif

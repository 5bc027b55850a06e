/* route.h - how a file of HTTP routes plugs into waggled (src/server).
 *
 * ADDING ROUTES (for every area, e.g. connectors):
 *   1. Write src/server/routes_<area>.c. It defines exactly one symbol
 *          const wg_route_area wg_routes_<area> = { ... };
 *      cmake/server.cmake globs src/server/routes_*.c and generates the area
 *      list from the file names, so a new file is a new area: no other edit.
 *   2. Each row of the area's wg_http_route[] is one method + path pattern. A
 *      segment ":name" is a path parameter (read it with wg_req_param).
 *      Parameters are checked before the handler runs: non-empty, valid
 *      UTF-8, no '/', '\\', NUL or control bytes, not "." or ".." (else 400
 *      INVALID_PARAM), so handlers may use them as names, never as paths
 *      without their own confinement.
 *   3. Add every route to data/openapi.json (paths -> "/api/x/{id}" spelled
 *      with braces, one operation per method). The contract test
 *      tests/contract/openapi.c fails if the route table and the document
 *      differ.
 *
 * WHAT THE FRAMEWORK DOES BEFORE A HANDLER RUNS (in this order):
 *   framing (two Content-Length, a Transfer-Encoding other than chunked, or
 *   both: 400 INVALID_REQUEST, connection closed), path over 8 KiB (414
 *   URI_TOO_LONG), head over 16 KiB or 100 fields (431 HEADERS_TOO_LARGE),
 *   %00 in the path or query (400 INVALID_PARAM), body limit 1 MiB (413
 *   PAYLOAD_TOO_LARGE); these are answered once the body was read (and
 *   thrown away, up to 8 MiB). Then the Host check (403
 *   HOST_NOT_ALLOWED), OPTIONS preflight (204),
 *   the dashboard's files for GET/HEAD outside /api/ (web.h), auth for
 *   every /api/ path except WG_ROUTE_PUBLIC rows (401 UNAUTHORIZED; the API
 *   token or the admin token as a bearer, else the dashboard's session
 *   cookie with the API token's rights), for a cookie on any method but GET
 *   an Origin naming this service (403 ORIGIN_NOT_ALLOWED, CSRF), routing
 *   (404 NOT_FOUND / 405 with Allow), WG_ROUTE_ADMIN rows need the admin token (403 ADMIN_REQUIRED),
 *   path parameter check (400 INVALID_PARAM), tier check from the row's
 *   min_tier (403 TIER_INSUFFICIENT, the spec's exact body), JSON body parse
 *   (400 INVALID_JSON; the body must be an object; an empty body is {}).
 *
 * HANDLERS run on the server's worker threads, many at once: anything they
 * share must be thread-safe (the handles in wg_server_ctx are). A handler
 * fills *res with one of the wg_res_* helpers and returns 0, or returns a
 * negative WG_E* code with the message set (wg_error_set): the framework
 * then answers {"error":CODE,"message":wg_error_last()} with the status
 *   WG_EINVAL 400 INVALID_REQUEST, WG_ENOTFOUND 404 NOT_FOUND,
 *   WG_EEXISTS 409 CONFLICT, WG_EDENIED 403 FORBIDDEN, WG_EAUTH 401,
 *   WG_EUNSUPPORTED 503 UNAVAILABLE, WG_EUPSTREAM 502 UPSTREAM_ERROR,
 *   WG_ETIMEOUT 504, WG_EBUSY 429; anything else 500 INTERNAL_ERROR with a
 *   generic message (the real one goes to the log only, never to the
 *   client, so a secret in a low-level message cannot leak).
 *
 * ERROR MESSAGES NEVER QUOTE THE REQUEST: write them without path
 *   parameters, query or body values ("no plugin by that name"). As a
 *   backstop, a message set through wg_res_error (or from wg_error_last())
 *   that contains one of them is replaced by a fixed text for its status
 *   (echo.c); bodies built with wg_res_json are sent as they are.
 *
 * Area state: an area may have init/fini. init runs once at start-up, in
 * area-name order, and may keep a pointer in *state; other areas can find it
 * with wg_server__area_state(ctx, "<area>") (e.g. the connector registry for
 * GET /api/tools). Return a negative WG_E* from init to refuse to start.
 */
#ifndef WAGGLE_SERVER_ROUTE_H
#define WAGGLE_SERVER_ROUTE_H

#include <jansson.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WG_HTTP_GET    = 1 << 0,
    WG_HTTP_POST   = 1 << 1,
    WG_HTTP_PUT    = 1 << 2,
    WG_HTTP_PATCH  = 1 << 3,
    WG_HTTP_DELETE = 1 << 4
} wg_http_method;

/* The minimum plan a route needs (spec 10). Kept separate from the store's
 * tier enum so the route tables do not depend on the store's header. */
typedef enum {
    WG_ROUTE_FREE = 0,
    WG_ROUTE_PRO = 1,
    WG_ROUTE_TEAMS = 2,
    WG_ROUTE_ENTERPRISE = 3
} wg_route_tier;

/* Row flags. */
enum {
    WG_ROUTE_PUBLIC = 1 << 0,   /* no token needed (/healthz, the dashboard's login) */
    WG_ROUTE_ADMIN  = 1 << 1,   /* the bearer must be DATA_DIR/admin-token */
    WG_ROUTE_RAW_BODY = 1 << 2  /* do not parse the body as JSON */
};

enum { WG_ROUTE_MAX_PARAMS = 4 };

/* The Content-Type of every JSON answer (for wg_res_text of ready JSON). */
#define WG_CONTENT_JSON "application/json; charset=utf-8"

typedef struct wg_server_ctx wg_server_ctx;   /* service-wide handles, below */

typedef struct wg_req {
    wg_http_method method;
    const char *path;                   /* decoded, without the query */
    size_t n_params;
    const char *param_name[WG_ROUTE_MAX_PARAMS];   /* without the ':' */
    const char *param_value[WG_ROUTE_MAX_PARAMS];
    json_t *body;                       /* parsed object ({} when empty); borrowed */
    const char *raw_body;               /* the bytes as received, NUL-terminated */
    size_t raw_len;
    wg_server_ctx *ctx;
    void *area_state;                   /* what this area's init stored */
    void *conn;                         /* internal (struct MHD_Connection *) */
} wg_req;

typedef struct wg_res {
    int status;                         /* 0 until a helper sets it */
    json_t *json;                       /* owned; dumped compact */
    char *text;                         /* owned; used when json is NULL */
    size_t text_len;
    const char *content_type;           /* static string, for text */
    int n_headers;
    const char *header_name[4];         /* static strings */
    char *header_value[4];              /* owned */
    struct wg_sse *stream;              /* owned: a server-sent event stream (sse.h) */
    int formatted;                      /* internal: the message came from wg_res_error,
                                           so the framework checks it for echoes */
} wg_res;

typedef int (*wg_route_fn)(wg_res *res, const wg_req *req);

typedef struct wg_http_route {
    wg_http_method method;
    const char *path;                   /* "/api/connectors/:id/health" */
    wg_route_fn fn;
    wg_route_tier min_tier;
    unsigned flags;
} wg_http_route;

typedef struct wg_route_area {
    const char *name;                   /* "connectors" */
    const wg_http_route *routes;
    size_t n_routes;
    int (*init)(void **state, wg_server_ctx *ctx);   /* may be NULL */
    void (*fini)(void *state);                       /* may be NULL */
} wg_route_area;

/* ---- service-wide context ------------------------------------------------ */

/* Borrowed by handlers; lives as long as the server. The handles belong
 * to the server's engine (waggle/engine.h), which opens them all before any
 * area's init runs and frees them after every area's fini; areas use them,
 * never free them. Decisions (the gate, autonomy, approvals, audit rows)
 * are the engine's: a handler calls wg_engine_* and formats the answer. */
struct wg_server_ctx {
    const char *data_dir;               /* absolute or as given; never NULL */
    int demo;                           /* --demo: demo connectors are registered */
    /* The engine: tool execution, approvals, the gate, audited operations. */
    struct wg_engine *engine;
    /* The connector registry (waggle/connector.h), built-ins registered
     * (demo ones with --demo). Never NULL. */
    struct wg_registry *registry;
    /* The store (waggle/store.h), the encrypted vault over it
     * (waggle/vault.h) and the audit log (waggle/audit.h), for reading.
     * Never NULL. */
    struct wg_store *store;
    struct wg_vault *vault_db;
    struct wg_audit *audit;
    /* The same vault as the registry's seam (connector.h wg_connect_vault):
     * connector:<id> credentials, kvark:connection, team:server. */
    const struct wg_connect_vault *vault;
    /* The trust model (waggle/trust.h), compiled once. Never NULL. */
    const struct wg_trust *trust;
    /* The starter skill pack (waggle/skills.h), loaded once. Never NULL. */
    const struct wg_skillset *starter;
    /* The MCP server catalog (waggle/catalog.h), with DATA_DIR/catalog.json
     * overlaid when valid. Never NULL. */
    const struct wg_catalog *catalog;
    long long autonomy_cap_ms;          /* the engine's cap, for answers that show it */
    /* The MCP gateway (mcp/gateway.h) when the service was given a gateway
     * file, else NULL: its servers are providers of the engine. */
    struct wg_gateway *gateway;
    struct wg_sse_hub *sse;             /* the server's event streams (sse.h) */
    void (*log)(void *log_ud, const char *line);   /* may be NULL */
    void *log_ud;
    void *priv;                         /* the server's own state (http.c) */
};

/* Edits DATA_DIR/config.json under the server's config lock: loads it (or
 * {}), calls edit(cfg, arg), writes it back atomically (0600). Other fields
 * are kept. Returns 0, WG_EIO, WG_ENOMEM. */
int wg_server__config_edit(const wg_server_ctx *ctx, void (*edit)(json_t *cfg, const void *arg),
                           const void *arg);

/* The state pointer the named area's init stored, or NULL. */
void *wg_server__area_state(const wg_server_ctx *ctx, const char *area);

/* Writes one line to the server's log (no newline needed). Never put a
 * request body, token or credential in it. */
void wg_server__logf(const wg_server_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- request accessors ---------------------------------------------------- */

/* The value of path parameter `name` (without ':'), or NULL. */
const char *wg_req_param(const wg_req *req, const char *name);
/* A decoded query argument (?q=...), or NULL when absent. */
const char *wg_req_query(const wg_req *req, const char *name);
/* A request header (case-insensitive name), or NULL. */
const char *wg_req_header(const wg_req *req, const char *name);
/* A cookie the request sent, or NULL. */
const char *wg_req_cookie(const wg_req *req, const char *name);
/* 1 when the request carries the admin token (the operator over HTTP,
 * docs/security.md section 1), 0 for the API token. */
int wg_req_is_admin(const wg_req *req);

/* Body field readers. Each returns 0 and writes *out (absent optional fields
 * leave *out untouched), or -1 after answering 400
 *   {"error":"INVALID_FIELD","field":"<name>","message":"<name> must be a string"}
 * (or "... is required") into *res; the handler then just returns 0. */
int wg_body_string(wg_res *res, const wg_req *req, const char *field, int required,
                   const char **out);
int wg_body_bool(wg_res *res, const wg_req *req, const char *field, int required, int *out);
int wg_body_int(wg_res *res, const wg_req *req, const char *field, int required,
                long long *out);
int wg_body_object(wg_res *res, const wg_req *req, const char *field, int required,
                   json_t **out);      /* borrowed */
int wg_body_array(wg_res *res, const wg_req *req, const char *field, int required,
                  json_t **out);       /* borrowed */

/* ---- response helpers (each returns 0) ----------------------------------- */

/* Steals `body` (may be the result of json_pack; NULL means out of memory
 * and becomes 500). */
int wg_res_json(wg_res *res, int status, json_t *body);
/* {"error":code,"message":<formatted>} */
int wg_res_error(wg_res *res, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Steals `text` (malloc'd, len bytes); content_type is a static string. */
int wg_res_text(wg_res *res, int status, const char *content_type, char *text, size_t len);
/* Adds a response header (name static, value copied). At most 4. */
int wg_res_header(wg_res *res, const char *name, const char *value);

/* Frees what a response holds (the framework calls it). */
void wg_res_clear(wg_res *res);

#ifdef __cplusplus
}
#endif
#endif

/* waggle/kvark.h - the KVARK enterprise client and its four agent tools
 * (spec 9; reference 2).
 *
 * KVARK is the enterprise retrieval and governance service. waggle talks to
 * it with one configuration, the vault value kvark:connection:
 *   {"baseUrl":"https://kvark.corp:8000","identifier":"me@corp","password":"…",
 *    "timeoutMs"?: number}
 * and offers the agent kvark_search, kvark_feedback, kvark_ask_document and
 * kvark_action. The engine registers those four exactly when the
 * configuration is valid and the effective tier is TEAMS, ENTERPRISE or an
 * active TRIAL (ARCHITECTURE.md Decisions; wg_engine_kvark_status), and
 * kvark_action is a governed write the gate always asks for (elevated).
 *
 * The client logs in with identifier/password for a bearer token
 * (POST /api/auth/login), keeps it in memory for that configuration only,
 * logs in again once on a 401, and retries 429 and 5xx answers (never 501)
 * a bounded number of times, waiting what Retry-After says (capped). Every
 * request goes through the upstream policy (docs/security.md 3.2): an
 * on-premises KVARK on a private address needs the operator's
 * --allow-private-upstreams (and --allow-http-upstreams for plain http).
 *
 * Failures fall in the five kinds of spec 9 (wg_kvark_error_kind); the tools
 * turn each into the friendly degradation text the agent reads, never an
 * upstream body unfiltered, a token or the password.
 *
 * Thread-safety: a wg_kvark may be shared by any number of threads; the
 * token cache is locked inside, and one login runs at a time. Everything
 * else here is reentrant. Returned json_t are new (json_decref).
 */
#ifndef WAGGLE_KVARK_H
#define WAGGLE_KVARK_H

#include <stddef.h>
#include <jansson.h>

#include "waggle/connector.h"
#include "waggle/export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WG_KVARK_CONNECTION_MAX = 16384,      /* bytes of the kvark:connection value */
    WG_KVARK_FIELD_MAX = 2048,            /* bytes of baseUrl, identifier, password */
    WG_KVARK_TIMEOUT_DEFAULT_MS = 30000,  /* reference 2.3 */
    WG_KVARK_TIMEOUT_MAX_MS = 300000,
    WG_KVARK_QUERY_MAX = 4096,            /* search query, question, reason: bytes */
    WG_KVARK_ID_MAX = 128,                /* document id (ask), entity id and types */
    WG_KVARK_PAYLOAD_MAX = 65536,         /* kvark_action payload, compact JSON bytes */
    WG_KVARK_LIMIT_DEFAULT = 10,          /* kvark_search limit (spec 9) */
    WG_KVARK_LIMIT_MAX = 100,
    WG_KVARK_SNIPPET_MAX = 200,           /* longer snippets are cut to 197 + "..." */
    WG_KVARK_RETRIES_DEFAULT = 2,         /* extra attempts after a 429 or 5xx */
    WG_KVARK_RETRIES_MAX = 5,
    WG_KVARK_BACKOFF_CAP_MS = 10000       /* the longest wait between attempts */
};

/* ---- the configuration (kvark:connection) --------------------------------- */

typedef struct wg_kvark_config {
    char *base_url;     /* http(s)://host[:port][/path], trailing '/' removed */
    char *identifier;
    char *password;
    long timeout_ms;    /* WG_KVARK_TIMEOUT_DEFAULT_MS when absent or not a number */
} wg_kvark_config;

/* Parses a kvark:connection value (len bytes, need not be NUL-terminated).
 * The reference's rules (2.1) - a JSON object whose baseUrl, identifier and
 * password are non-empty strings; a timeoutMs that is not a number is
 * ignored - plus this project's: at most WG_KVARK_CONNECTION_MAX bytes,
 * fields at most WG_KVARK_FIELD_MAX bytes without control characters,
 * baseUrl an http:// or https:// URL without user info, query or fragment
 * (checked by the upstream policy's base URL rule, addresses at call time),
 * every trailing '/' removed (the original's login URL kept one:
 * "…//api/auth/login"), a numeric timeoutMs a whole number in
 * 1..WG_KVARK_TIMEOUT_MAX_MS. On success *out owns its strings (clear it
 * with wg_kvark_config_clear). Returns 0, or WG_EINVAL with a message that
 * names the field, never its value; *out is then zeroed. */
WG_EXTERN int wg_kvark_config_parse(wg_kvark_config *out, const char *text, size_t len);
/* Frees the strings (the password is wiped first) and zeroes *c. NULL ok. */
WG_EXTERN void wg_kvark_config_clear(wg_kvark_config *c);

/* ---- errors (spec 9: "errors map by err.name") ------------------------------ */

typedef enum {
    WG_KVARK_ERR_NONE = 0,
    WG_KVARK_ERR_UNAVAILABLE,       /* unreachable, timed out, refused by the upstream policy */
    WG_KVARK_ERR_AUTH,              /* login refused, or a 401 after a fresh login */
    WG_KVARK_ERR_NOT_IMPLEMENTED,   /* 501 */
    WG_KVARK_ERR_NOT_FOUND,         /* 404 */
    WG_KVARK_ERR_SERVER             /* 403, 429 after the retries, other 4xx and 5xx */
} wg_kvark_error_kind;

/* "KvarkUnavailableError", "KvarkAuthError", "KvarkNotImplementedError",
 * "KvarkNotFoundError", "KvarkServerError"; "" for NONE. Static. */
WG_EXTERN const char *wg_kvark_error_name(wg_kvark_error_kind kind);

typedef struct wg_kvark_error {
    wg_kvark_error_kind kind;
    long status;                /* the HTTP status, 0 when none arrived */
    long retry_after_s;         /* from Retry-After on a 429, else -1 */
    char message[512];          /* sanitized: truncated, credentials redacted */
} wg_kvark_error;

/* The friendly degradation the agent reads for kind during op ("search",
 * "feedback", "action", "ask"), as the reference's handleKvarkError words
 * it. A SERVER error has its message folded in: *out new. Returns 0 or
 * WG_ENOMEM. */
WG_EXTERN int wg_kvark_friendly(char **out, const wg_kvark_error *err, const char *op);

/* ---- the client ----------------------------------------------------------- */

typedef struct wg_kvark wg_kvark;

#define WG_KVARK_OPTIONS_VERSION 1

typedef struct wg_kvark_options {
    unsigned int version;               /* WG_KVARK_OPTIONS_VERSION */
    wg_upstream_policy upstream;        /* the operator's; zero = strict (copied) */
    int retries;                        /* 0: WG_KVARK_RETRIES_DEFAULT; < 0: none */
    long backoff_ms;                    /* first wait without Retry-After; 0: 500 */
} wg_kvark_options;

#define WG_KVARK_OPTIONS_INIT { .version = WG_KVARK_OPTIONS_VERSION }

/* *out is new: free with wg_kvark_free. o may be NULL (strict policy).
 * Returns 0, WG_EINVAL (bad version, retries above the max), WG_ENOMEM. */
WG_EXTERN int wg_kvark_new(wg_kvark **out, const wg_kvark_options *o);
/* Wipes the cached token. NULL ok. */
WG_EXTERN void wg_kvark_free(wg_kvark *k);

/* Every call below: cfg is borrowed (from wg_kvark_config_parse); the token
 * is reused while cfg names the same KVARK and identity, and a login runs
 * first when there is none. 0 with *out the parsed response object; or a
 * negative WG_E* with *err filled (WG_EIO / WG_ETIMEOUT / WG_EDENIED:
 * UNAVAILABLE, WG_EAUTH, WG_EUNSUPPORTED: NOT_IMPLEMENTED, WG_ENOTFOUND,
 * WG_EUPSTREAM: SERVER, WG_EINVAL for refused inputs, WG_ENOMEM). */

/* POST /api/auth/login {identifier, password} (reference 2.2), keeping the
 * token. A non-2xx answer below 500, success:false or no token is AUTH;
 * 5xx is UNAVAILABLE. */
WG_EXTERN int wg_kvark_login(wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg);
/* GET /api/auth/me: the health probe; *out is the KvarkUser. */
WG_EXTERN int wg_kvark_me(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg);
/* GET /api/search?q=&limit=&offset= (limit and offset sent when > 0). */
WG_EXTERN int wg_kvark_search(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                    const char *query, int limit, int offset);
/* POST /api/feedback {feedbackType:"search_result", target:{documentId},
 * signal:{rating, label, comment?}, context:{query}}. */
WG_EXTERN int wg_kvark_feedback(json_t **out, wg_kvark_error *err, wg_kvark *k,
                      const wg_kvark_config *cfg, long long document_id, const char *query,
                      int useful, const char *comment);

/* A governed action (POST /api/actions). Borrowed strings. */
typedef struct wg_kvark_action_req {
    const char *action_type, *entity_type, *entity_id, *reason;
    const json_t *payload;              /* an object; NULL: {} */
    const char *workspace_id;           /* or NULL */
    /* governance.userApproved: 1 only when a person approved this very call;
     * approval_reference is then that approval's id (sent when non-NULL). */
    int user_approved;
    const char *approval_reference;
} wg_kvark_action_req;
WG_EXTERN int wg_kvark_action(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                    const wg_kvark_action_req *a);
/* POST /api/chat/ask {document_id, question} (KVARK answers 501 today). */
WG_EXTERN int wg_kvark_ask(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                 const char *document_id, const char *question);

/* parseSearchResults (spec 9): a search response's results as
 * [{content, documentId, title, score, documentType, attribution}], the
 * attribution "[KVARK: <type>: <title>]", or "[KVARK: <title>]" when the
 * type is null. Results that are not objects, or lack a numeric
 * document_id, are skipped. *out new. Returns 0, WG_EINVAL (no results
 * array), WG_ENOMEM. */
WG_EXTERN int wg_kvark_parse_search_results(json_t **out, const json_t *response);

/* ---- the four tools ---------------------------------------------------------- */

typedef struct wg_kvark_tool_def {
    const char *name;
    const char *description;
    const char *parameters;             /* JSON Schema, as JSON text */
} wg_kvark_tool_def;

/* The four definitions in the reference's order: kvark_search,
 * kvark_feedback, kvark_action, kvark_ask_document. Static. */
WG_EXTERN const wg_kvark_tool_def *wg_kvark_tool_defs(size_t *n);
/* 1 when name is one of the four. */
WG_EXTERN int wg_kvark_is_tool(const char *name);

typedef struct wg_kvark_tool_env {
    wg_kvark *client;                   /* required */
    const wg_kvark_config *config;      /* required */
    const char *workspace_id;           /* or NULL: context.workspaceId of kvark_action */
    /* The id of the approval a person granted for this call, or NULL (the
     * call ran without one, e.g. auto-approved at YOLO): kvark_action sends
     * governance.userApproved:true only with one. */
    const char *approval_id;
} wg_kvark_tool_env;

/* Runs one tool with args (an object; borrowed). *out is a new
 * ConnectorResult-shaped object: {success:true, data:{text, …}} with the
 * reference's formatted text (kvark_search's data also has query, total and
 * the parseSearchResults list as results), or {success:false, error:<the
 * friendly text>, errorKind:<wg_kvark_error_name>, status?} for a KVARK
 * failure, or {success:false, error:"Invalid …"} for refused arguments
 * (nothing sent). Returns 0 whenever *out is set, WG_ENOTFOUND (not a KVARK
 * tool), WG_EINVAL (NULL env), WG_ENOMEM. */
WG_EXTERN int wg_kvark_tool_execute(json_t **out, const wg_kvark_tool_env *env, const char *tool,
                          const json_t *args);

#ifdef __cplusplus
}
#endif
#endif

/* rest.h - the one declarative REST executor (internal to src/connect).
 *
 * A REST connector is a wg_rest_spec: base URL, auth style, default headers,
 * and one wg_rest_action row per action saying which inputs go to the path,
 * the query and the body. Values never meet a string template: path
 * segments are percent-encoded one by one (a "." or ".." segment is
 * refused), query strings are built by encoding each pair, JSON bodies are
 * built with jansson from a JSON template, GraphQL documents are constants
 * with all values in "variables". Header values with CR/LF are refused.
 */
#ifndef WG_CONNECT_REST_H
#define WG_CONNECT_REST_H

#include "waggle/connector.h"

typedef enum { WG_REST_GET, WG_REST_POST, WG_REST_PUT, WG_REST_PATCH, WG_REST_DELETE } wg_rest_method;

typedef enum {
    WG_REST_AUTH_BEARER,       /* Authorization: Bearer <t> */
    WG_REST_AUTH_RAW,          /* Authorization: <t> */
    WG_REST_AUTH_BOT,          /* Authorization: Bot <t> */
    WG_REST_AUTH_HEADER,       /* <auth_name>: <t> */
    WG_REST_AUTH_BASIC_EMAIL,  /* Authorization: Basic base64(email:t) */
    WG_REST_AUTH_QUERY         /* ?<auth_name>=<t>; never in errors or logs */
} wg_rest_auth;

typedef enum {
    WG_REST_BODY_NONE,       /* no body */
    WG_REST_BODY_PARAMS,     /* every input not used by path or query */
    WG_REST_BODY_TEMPLATE,   /* body_template with "$name" placeholders */
    WG_REST_BODY_GRAPHQL     /* {query: body_template, variables: vars_template} */
} wg_rest_body;

typedef enum {
    WG_REST_RESP_JSON,       /* 2xx -> data = parsed body (or text) */
    WG_REST_RESP_SLACK,      /* also ok:false -> error */
    WG_REST_RESP_GRAPHQL     /* errors[] -> error; data = body.data */
} wg_rest_resp;

typedef struct wg_rest_ctx wg_rest_ctx;

/* A hand-written action for flows a row cannot say (two calls, computed
 * keys). It builds requests with wg_rest_call and answers with a result. */
typedef int (*wg_rest_custom_fn)(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

typedef struct wg_rest_action {
    const char *name;
    wg_rest_method method;
    /* Path template: {name} is one encoded segment; {+name} is a '/'-separated
     * path whose segments are each encoded. */
    const char *path;
    /* Inputs sent as query pairs: space-separated "name" or "name=default";
     * "*" sends every input not used in the path. */
    const char *query;
    wg_rest_body body;
    /* JSON: a string "$name" becomes the input's value (absent: the key is
     * dropped), "$name=JSON" gives a default. For GRAPHQL: the document. */
    const char *body_template;
    const char *vars_template;      /* GRAPHQL variables template */
    wg_rest_resp response;
    int timeout_s;                  /* 0 = 10 s; transfers use 30 */
    /* After success, data = this template filled from the inputs (for APIs
     * that answer 204), instead of the response body. */
    const char *result_template;
    wg_rest_custom_fn custom;
} wg_rest_action;

typedef struct wg_rest_spec {
    const char *default_base;        /* NULL: connector:<id>:base_url is required */
    const char *base_suffix;         /* appended to a vault base URL (Jira "/rest/api/3") */
    wg_rest_auth auth;
    const char *auth_name;           /* header or query name for HEADER / QUERY */
    const char *const *headers;      /* "Name: value", NULL-terminated, may be NULL */
    const char *error_prefix;        /* "GitHub API" */
    const wg_rest_action *actions;
    size_t n_actions;
    wg_rest_method health_method;
    const char *health_path;
    const char *health_body;         /* JSON or NULL */
    wg_rest_resp health_response;
} wg_rest_spec;

/* The operations every REST spec uses. */
extern const wg_connector_ops wg_rest_ops;

/* What one HTTP exchange gave back. */
typedef struct wg_rest_response {
    long status;
    json_t *json;          /* parsed body or NULL */
    char *text;            /* raw body, NUL-terminated */
    size_t len;
    char *retry_after;     /* Retry-After header or NULL */
    char *message_id;      /* X-Message-Id header or NULL */
} wg_rest_response;

void wg_rest_response_clear(wg_rest_response *r);

struct wg_rest_ctx {
    const wg_connector_call *call;
    const wg_rest_spec *rest;
    const wg_rest_action *action;
};

/* One request: path template filled from params, query from query_spec,
 * body (borrowed, may be NULL). Returns 0 when a response arrived (any
 * status), WG_EINVAL for a refused input (message says which),
 * WG_ETIMEOUT, WG_EIO, WG_EUPSTREAM (response too large), WG_ENOMEM. */
int wg_rest_call(wg_rest_response *r, const wg_rest_ctx *ctx, wg_rest_method m,
                 const char *path, const json_t *params, const char *query_spec,
                 const json_t *body, int timeout_s);

/* The ConnectorResult for a response: 2xx -> success with mapped data,
 * else a scrubbed error with status and Retry-After surfaced. *out new. */
int wg_rest_result(json_t **out, const wg_rest_ctx *ctx, wg_rest_response *r, wg_rest_resp mode);

/* The ConnectorResult for a failed wg_rest_call (rc < 0). */
json_t *wg_rest_call_failure(const wg_rest_ctx *ctx, int rc);

/* Fills a JSON template from params (see body_template). *out new. */
int wg_rest_fill(json_t **out, const char *tmpl, const json_t *params);

/* Percent-encodes one path segment (RFC 3986 unreserved kept). Refuses
 * empty, "." and "..". *out new. Returns 0, WG_EINVAL, WG_ENOMEM. */
int wg_rest_encode_segment(char **out, const char *s);

#endif

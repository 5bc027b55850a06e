/* rest.h - the one declarative REST executor (internal to src/connect).
 *
 * A REST connector is a wg_rest_spec: base URL(s), auth style, default
 * headers, and one wg_rest_action row per action saying which inputs go to
 * the path, the query and the body. Values never meet a string template:
 * path segments are percent-encoded one by one (a "." or ".." segment is
 * refused), query strings are built by encoding each pair, JSON bodies are
 * built with jansson from a JSON template, GraphQL documents are constants
 * with all values in "variables". Header values with CR/LF are refused.
 *
 * What every connector gets from the engine (docs/connect.md "REST engine"):
 *   - pagination (wg_rest_paging): a next-page token, a next-page link or a
 *     posted cursor is followed while the response names one, up to the
 *     call's "maxPages" input (default WG_REST_PAGES_DEFAULT, at most
 *     WG_REST_PAGES_MAX) and WG_REST_RESPONSE_CAP bytes in total; the item
 *     arrays are concatenated and the last page's continuation is kept in
 *     the data, so the caller can go on;
 *   - rate limits: 429, 5xx and Google's 403 rateLimitExceeded are
 *     {success:false, status, retryable:true}, with "retryAfter" (seconds)
 *     from a Retry-After header in either form (delta-seconds or HTTP-date);
 *   - OAuth2: a 401 asks the call's reauth hook (the registry's token
 *     manager, waggle/oauth.h) for a fresh access token and the request is
 *     sent once more, never twice;
 *   - prepare hooks: a row may compute derived inputs first (a Drive `q`
 *     from plain text, an RFC 5322 message for Gmail), so escaping lives in
 *     one tested function and the rest of the row stays declarative.
 *
 * Thread-safety: everything here is reentrant; a spec is static const data.
 */
#ifndef WG_CONNECT_REST_H
#define WG_CONNECT_REST_H

#include "waggle/connector.h"

enum {
    WG_REST_PAGES_DEFAULT = 1,              /* pages fetched without maxPages */
    WG_REST_PAGES_MAX = 10,                 /* the most maxPages may ask for */
    WG_REST_RESPONSE_CAP = 10 * 1024 * 1024,/* bytes kept from one call (all pages) */
    WG_REST_LINK_MAX = 4096,                /* longest next-page link followed */
};

typedef enum { WG_REST_GET, WG_REST_POST, WG_REST_PUT, WG_REST_PATCH, WG_REST_DELETE } wg_rest_method;

typedef enum {
    WG_REST_AUTH_BEARER,       /* Authorization: Bearer <t> */
    WG_REST_AUTH_RAW,          /* Authorization: <t> */
    WG_REST_AUTH_BOT,          /* Authorization: Bot <t> */
    WG_REST_AUTH_HEADER,       /* <auth_name>: <t> */
    WG_REST_AUTH_BASIC_EMAIL,  /* Authorization: Basic base64(email:t) */
    WG_REST_AUTH_QUERY,        /* ?<auth_name>=<t>; never in errors or logs */
    /* Authorization: OAuth oauth_consumer_key="<key>", oauth_token="<t>"
     * (Trello). The key is creds->extra (spec extra_key), or the part of a
     * "KEY:TOKEN" credential before the colon; both must be letters, digits,
     * '-' or '_' (nothing can close the quotes). */
    WG_REST_AUTH_KEY_TOKEN
} wg_rest_auth;

typedef enum {
    WG_REST_BODY_NONE,       /* no body */
    WG_REST_BODY_PARAMS,     /* every input not used by path or query */
    WG_REST_BODY_TEMPLATE,   /* body_template with "$name" placeholders */
    WG_REST_BODY_GRAPHQL,    /* {query: body_template, variables: vars_template} */
    WG_REST_BODY_RAW         /* the string input named by body_template, sent as
                                is with the row's content_type (a prepare hook
                                builds it: Drive multipart, OneNote HTML) */
} wg_rest_body;

typedef enum {
    WG_REST_RESP_JSON,       /* 2xx -> data = parsed body (or text) */
    WG_REST_RESP_SLACK,      /* also ok:false -> error */
    WG_REST_RESP_GRAPHQL,    /* errors[] -> error; data = body.data */
    WG_REST_RESP_CONTENT     /* 2xx -> data = {content} (UTF-8 text), or
                                {content, encoding:"base64"} for other bytes;
                                result_template fields are added */
} wg_rest_resp;

/* How a row follows pages. Paths into the response are JSON-pointer-like,
 * '/'-separated ("paging/next/after"), so keys with dots
 * ("@odata.nextLink") need no escaping. */
typedef enum {
    WG_REST_PAGE_NONE = 0,
    /* next holds a token (string or number); the next request is the same
     * row with input `param` set to it (Google nextPageToken -> pageToken,
     * Airtable offset, HubSpot paging/next/after -> after, Asana
     * next_page/offset, Pipedrive additional_data/pagination/next_start). */
    WG_REST_PAGE_TOKEN,
    /* next holds the next page's URL, absolute or origin-relative (Graph
     * @odata.nextLink, Bitbucket next, Confluence _links/next). It is
     * followed only when it lies under the row's base URL, has no dot
     * segments and no control characters: the credential never leaves. */
    WG_REST_PAGE_LINK,
    /* next holds a cursor, POSTed as {"cursor": c} to `path` while the
     * boolean at `more` is true (Dropbox list_folder/continue). */
    WG_REST_PAGE_CURSOR
} wg_rest_page;

typedef struct wg_rest_paging {
    wg_rest_page kind;
    const char *items;    /* the array concatenated across pages ("files", "value") */
    const char *next;     /* where the continuation is ("nextPageToken", "@odata.nextLink") */
    const char *param;    /* TOKEN: the input that carries it ("pageToken") */
    const char *more;     /* optional boolean "more pages" flag ("has_more") */
    const char *path;     /* CURSOR: the continuation path ("/files/list_folder/continue") */
} wg_rest_paging;

typedef struct wg_rest_ctx wg_rest_ctx;

/* A hand-written action for flows a row cannot say (two calls, computed
 * keys). It builds requests with wg_rest_call/wg_rest_send and answers with
 * a result. */
typedef int (*wg_rest_custom_fn)(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

/* A prepare hook: *out is a new object of inputs the row then runs with
 * (usually a copy of params plus derived values). On a refused input it
 * returns WG_EINVAL with the message set; nothing is sent. */
typedef int (*wg_rest_prepare_fn)(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

typedef struct wg_rest_action {
    const char *name;
    wg_rest_method method;
    /* Path template: {name} is one encoded segment; {+name} is a '/'-separated
     * path whose segments are each encoded. */
    const char *path;
    /* Inputs sent as query pairs: space-separated "name", "name=default" or
     * "key:input" (the query key differs from the input name); "*" sends
     * every input not used in the path. */
    const char *query;
    wg_rest_body body;
    /* JSON: a string "$name" becomes the input's value (absent: the key is
     * dropped), "$name=JSON" gives a default. For GRAPHQL: the document.
     * For RAW: the input name holding the body. */
    const char *body_template;
    const char *vars_template;      /* GRAPHQL variables template */
    wg_rest_resp response;
    int timeout_s;                  /* 0 = 10 s; transfers use 30 */
    /* After success, data = this template filled from the inputs (for APIs
     * that answer 204), instead of the response body (CONTENT: merged). */
    const char *result_template;
    wg_rest_custom_fn custom;
    wg_rest_prepare_fn prepare;     /* computes derived inputs first, or NULL */
    const char *base;               /* an alternate base by name (wg_rest_base), or NULL */
    const char *content_type;       /* RAW bodies, or to override application/json */
    const char *const *headers;     /* extra "Name: value" lines, NULL-terminated */
    wg_rest_paging page;
} wg_rest_action;

/* A named alternate base URL (Google Docs also reaches Drive; Drive
 * uploads go to /upload/drive/v3). A url starting with '/' is a path under
 * the connector's stored base URL (Confluence's v1 search beside the v2
 * API of the same site): it then needs one. */
typedef struct wg_rest_base {
    const char *name;
    const char *url;
} wg_rest_base;

typedef struct wg_rest_spec {
    const char *default_base;        /* NULL: connector:<id>:base_url is required */
    const char *base_suffix;         /* appended to a vault base URL (Jira "/rest/api/3") */
    /* 1: without a stored base URL, the origin comes from creds->extra (the
     * spec's extra_key, kept from the token response: Salesforce
     * instance_url) followed by base_suffix. It must be a bare
     * http(s)://host[:port] (a trailing '/' allowed) and still passes the
     * upstream policy at every request. */
    int base_from_extra;
    /* 1: a credential that came from an OAuth2 sign-in (one with a refresh
     * token) is sent as Authorization: Bearer, whatever `auth` says for
     * pasted API tokens (Pipedrive: x-api-token, or Bearer after OAuth). */
    int oauth_bearer;
    /* 1: connector:<id>:base_url replaces only the scheme://host[:port] of
     * every base, keeping each base's path (replay tests and proxies of the
     * Google and Microsoft APIs); 0: it replaces default_base whole. */
    int override_origin;
    const wg_rest_base *bases;       /* alternates, ended by a {NULL} row; may be NULL */
    wg_rest_auth auth;
    const char *auth_name;           /* header or query name for HEADER / QUERY */
    const char *const *headers;      /* "Name: value", NULL-terminated, may be NULL */
    const char *error_prefix;        /* "GitHub API" */
    const wg_rest_action *actions;
    size_t n_actions;
    wg_rest_method health_method;
    const char *health_path;
    const char *health_base;         /* alternate base of the probe, or NULL */
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
    char *content_type;    /* Content-Type header or NULL */
    char *location;        /* Location header (redirects) or NULL */
    char *api_result;      /* Dropbox-API-Result header (content downloads) or NULL */
} wg_rest_response;

void wg_rest_response_clear(wg_rest_response *r);

struct wg_rest_ctx {
    const wg_connector_call *call;
    const wg_rest_spec *rest;
    const wg_rest_action *action;
};

/* One request, in full. Exactly one of path (a template relative to the
 * base) and url (an absolute URL already checked by wg_rest_link_ok) is
 * set. Borrowed throughout. */
typedef struct wg_rest_req {
    wg_rest_method method;
    const char *path;
    const char *url;
    const char *base;                /* alternate base name, or NULL */
    const json_t *params;            /* inputs for the path and query */
    const char *query;               /* query spec as in wg_rest_action */
    const json_t *body;              /* a JSON body, or NULL */
    const char *raw;                 /* or a raw body of raw_len bytes */
    size_t raw_len;
    const char *content_type;        /* of raw (default application/octet-stream),
                                        or instead of application/json */
    const char *const *headers;      /* extra lines; CR/LF in one is refused */
    int timeout_s;                   /* 0 = 10 s */
    /* 1: send no credential at all (no auth header, no query credential) to
     * url, an absolute URL outside the base: a pre-authenticated download
     * link a service redirected to (OneDrive). Still through the upstream
     * policy, still capped at WG_REST_RESPONSE_CAP. */
    int no_auth;
} wg_rest_req;

/* Sends one request. On a 401 with a reauth hook on the call, asks it once
 * for a fresh token and sends the request again. Returns 0 when a response
 * arrived (any status), WG_EINVAL for a refused input (message says which),
 * WG_ETIMEOUT, WG_EIO, WG_EUPSTREAM (response too large), WG_ENOMEM. */
int wg_rest_send(wg_rest_response *r, const wg_rest_ctx *ctx, const wg_rest_req *req);

/* The short form of wg_rest_send: path template, query spec, JSON body. */
int wg_rest_call(wg_rest_response *r, const wg_rest_ctx *ctx, wg_rest_method m,
                 const char *path, const json_t *params, const char *query_spec,
                 const json_t *body, int timeout_s);

/* Runs a declarative row with params (prepare hook, body, pagination,
 * result), as rest_execute does for rows without a custom function; custom
 * functions call it for their last step. *out is a ConnectorResult. */
int wg_rest_run(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

/* wg_rest_run with the row's path replaced by path (a collection whose
 * path depends on an optional input, such as a folder or a parent). */
int wg_rest_run_path(json_t **out, const wg_rest_ctx *ctx, const json_t *params,
                     const char *path);

/* The ConnectorResult for a response: 2xx -> success with mapped data,
 * else a scrubbed error with status, retryable and retryAfter surfaced.
 * *out new. */
int wg_rest_result(json_t **out, const wg_rest_ctx *ctx, wg_rest_response *r, wg_rest_resp mode);

/* The ConnectorResult for a failed wg_rest_call (rc < 0). */
json_t *wg_rest_call_failure(const wg_rest_ctx *ctx, int rc);

/* Fills a JSON template from params (see body_template). *out new. */
int wg_rest_fill(json_t **out, const char *tmpl, const json_t *params);

/* Percent-encodes one path segment (RFC 3986 unreserved kept). Refuses
 * empty, "." and "..". *out new. Returns 0, WG_EINVAL, WG_ENOMEM. */
int wg_rest_encode_segment(char **out, const char *s);

/* Retry-After (RFC 9110 10.2.3) as seconds from now_s: delta-seconds or an
 * HTTP-date (past dates give 0). -1 when absent or unreadable. */
long wg_rest_retry_after(const char *value, long long now_s);

/* 1 when link (absolute, or starting with "/" = relative to base's origin)
 * may be followed with the credential: it lies under base (the same
 * scheme, host, port and path prefix, at a '/' or '?' boundary), is at
 * most WG_REST_LINK_MAX bytes, has no control characters, spaces, '#',
 * backslashes or dot segments (also %2e-encoded ones) and no encoded
 * slash or backslash (%2F, %5C) in its path. *out is the
 * absolute URL (new). 0 otherwise, with the message set. */
int wg_rest_link_ok(char **out, const char *base, const char *link);

/* A string literal of a query language: quote + text + quote, each byte of
 * `special` preceded by `esc` (or doubled when esc is 0). Control
 * characters and texts over max bytes are refused (WG_EINVAL; the message
 * says which). *out new. Drive `q` uses ('\'', "\\'", '\\'), OData
 * ('\'', "'", 0), Graph $search ('"', "\"\\", '\\'). */
int wg_rest_quote(char **out, const char *text, size_t max, char quote, const char *special,
                  char esc);

/* 1 when m is a bare MIME type "type/subtype" of RFC 6838 token characters
 * (no parameters, no spaces, no line breaks), at most 127 bytes. */
int wg_rest_mime_ok(const char *m);

/* The value at a '/'-separated path in v (borrowed), or NULL. */
json_t *wg_rest_json_at(const json_t *v, const char *path);

#endif

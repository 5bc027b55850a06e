/* mcp/uphttp.h - the transport of a remote ("url") upstream MCP server:
 * the client side of MCP 2025-11-25 "Transports", Streamable HTTP, on
 * libcurl. upstream.c supervises it exactly as it supervises a child process
 * (states, backoff, tools); this file only moves messages.
 *
 * Every message is one POST to the URL with Content-Type: application/json,
 * Accept: application/json, text/event-stream, the configured headers
 * (vault values resolved by open, wiped from waggle's memory by close), and
 * after initialize the session's Mcp-Session-Id and MCP-Protocol-Version.
 * A request is answered by a JSON body or by an SSE stream (mcp/sse.h) that
 * may carry the server's notifications and requests before the response:
 * those go to the message hook; the transfer ends as soon as the response
 * is read. A stream that ends cleanly before the response, after an event
 * id, is resumed with GET and Last-Event-ID (at most RESUME_MAX times,
 * within the call's timeout). A notification or a response is answered 202. A GET stream
 * (listen) carries the server's own messages between requests.
 *
 * What breaks the session (the down hook is called with the reason, and
 * the supervisor starts a new one after its backoff): no connection, a
 * transfer error, HTTP 5xx, a 404 to a request that carried the session id
 * (the server forgot the session), a message over body_max bytes or a
 * broken event stream. What fails only the call: a timeout (after the
 * connection was made), a JSON-RPC error, a 3xx (redirects are never
 * followed), another 4xx, an answer without the response.
 *
 * Limits: http and https only, TLS verified, no proxy from the
 * environment, connect timeout min(timeout, WG_UPHTTP_CONNECT_MS), a
 * session id of 1..WG_UPHTTP_SESSION_MAX visible ASCII bytes.
 *
 * Thread-safety: request and send may run from many threads at once (one
 * curl handle each); open, listen and close are the supervisor's (never
 * concurrent with each other); abort may come from any thread. Errors: 0 or WG_E* with wg_error_last(); values of
 * headers never appear in a message. */
#ifndef WAGGLE_MCP_UPHTTP_H
#define WAGGLE_MCP_UPHTTP_H

#include <jansson.h>

#include "mcp/jsonrpc.h"
#include "mcp/upstream.h"

#define WG_UPHTTP_SESSION_MAX 256
#define WG_UPHTTP_HEADER_MAX  8192    /* bytes of one configured header value */
#define WG_UPHTTP_CONNECT_MS  10000
#define WG_UPHTTP_CLOSE_MS    2000    /* the DELETE at close */

typedef struct wg_uphttp wg_uphttp;

typedef struct {
    /* A message of a stream that is not the awaited response (a
     * notification, a request, another response, or WG_RPC_INVALID). Called
     * on the requesting thread, during the transfer: no blocking beyond a
     * quick send. */
    void (*message)(void *ud, const wg_rpc_msg *m);
    /* The session broke; why is sanitized, without values. */
    void (*down)(void *ud, const char *why);
    void *ud;
} wg_uphttp_hooks;

/* *out new (free with wg_mcp__uphttp_free). s (a url server) is copied.
 * body_max bounds one message (a JSON body or one event's data). */
int wg_mcp__uphttp_new(wg_uphttp **out, const wg_gw_server *s, size_t body_max,
                       const wg_uphttp_hooks *hooks);
void wg_mcp__uphttp_free(wg_uphttp *h);

/* Readies a new session: resolves the vault headers (resolve may be NULL:
 * then a vault header fails), checks every value (no control bytes, at most
 * WG_UPHTTP_HEADER_MAX), forgets any old session id. */
int wg_mcp__uphttp_open(wg_uphttp *h, wg_up_resolve_fn resolve, void *resolve_ud);

/* Ends the session: aborts transfers in flight (they fail
 * WG_EUNAVAILABLE), waits for them, DELETEs the session when there is one,
 * wipes the resolved headers. */
void wg_mcp__uphttp_close(wg_uphttp *h);

/* Opens the session's GET stream on a thread of its own (after
 * notifications/initialized): the server's notifications and requests
 * outside any POST arrive there (message hook). A server without one (405)
 * is fine. close ends it. Returns 0 or WG_ENOMEM. */
int wg_mcp__uphttp_listen(wg_uphttp *h);

/* Makes transfers in flight and later ones fail at once (teardown starts). */
void wg_mcp__uphttp_abort(wg_uphttp *h);

/* Request id/method/params (params stolen) within timeout_ms. *result new.
 * An initialize that succeeds stores the session id and the negotiated
 * protocol version. Returns 0, WG_ETIMEOUT (no message set: the caller
 * words it), WG_EUPSTREAM, WG_EUNAVAILABLE (the session broke: down was
 * called), WG_ENOMEM. */
int wg_mcp__uphttp_request(wg_uphttp *h, json_int_t id, const char *method, json_t *params,
                           long timeout_ms, json_t **result);

/* A notification or a response within timeout_ms (any 2xx is fine). */
int wg_mcp__uphttp_send(wg_uphttp *h, const json_t *msg, long timeout_ms);

#endif

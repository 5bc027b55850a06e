/* mcp_http_fixture.h - a loopback MCP server over Streamable HTTP (MCP
 * 2025-11-25 "Transports") that misbehaves on request, for the gateway's
 * url upstream client (src/mcp/uphttp.h).
 *
 * POST /mcp: initialize answers a JSON body with a new Mcp-Session-Id
 * ("fx-session-N"); every later message must carry a live session id (else
 * 404) and MCP-Protocol-Version 2025-11-25; notifications and responses are
 * answered 202. tools/list lists the tools below (one page, JSON body).
 * tools/call by tool name:
 *   echo      a JSON body: the "text" argument back
 *   sse_echo  an SSE body: a comment, a priming event (id, empty data), a
 *             progress notification, a retry field, then the response split
 *             over two data lines, CRLF line ends; text + " via sse"
 *   ping_me   an SSE body with a ping request from the server first; the
 *             answer the client POSTs is counted ("pong")
 *   change    an SSE body with notifications/tools/list_changed first; the
 *             list gains a tool "extra"
 *   poll      an SSE body with only an event id (poll-1) and a retry of
 *             50 ms, then the end: the response comes on a GET with
 *             Last-Event-ID: poll-1 ("resumed")
 *   change_later  a JSON body; the list gains "extra" and the list_changed
 *             goes out on the session's GET stream
 *   big       a JSON body of 2 MiB
 *   bigsse    an SSE body whose one line is 2 MiB
 *   badsse    an SSE body of garbage events that ends without a response
 *   hang      no answer until the server stops (or 20 s)
 *   expire    forgets the session: 404 to this and every later use of it
 *   fail500   HTTP 500
 *   fail500rpc  HTTP 500 with a JSON-RPC error for the call as its body
 *   redirect  HTTP 307 to /elsewhere (a hit there is counted: "elsewhere")
 * GET /mcp with a live session opens the session's event stream ("get"): a
 * comment, then what change_later queues; it ends with the session.
 * /mcp-noget is the same server answering GET with 405.
 * DELETE /mcp with a live session ends it ("delete"). Every protocol
 * violation of the client is recorded (wgt_mcphttp_problem): a missing or
 * wrong Accept / Content-Type, a later message without the session id or
 * the protocol version, a query string in the URL.
 * One thread per connection; state behind a mutex. */
#ifndef WGT_MCP_HTTP_FIXTURE_H
#define WGT_MCP_HTTP_FIXTURE_H

#include <stddef.h>

typedef struct wgt_mcphttp wgt_mcphttp;

typedef struct {
    char method[8];
    char path[64];
    char rpc[64];           /* the JSON-RPC method, "response" or "" */
    char session[128];
    char proto[32];
    char accept[96];
    char ctype[64];
    char auth[128];         /* Authorization */
    char team[64];          /* X-Team */
} wgt_mcphttp_req;

/* NULL on failure. */
wgt_mcphttp *wgt_mcphttp_start(void);
/* The same over TLS with the given PEM certificate and key (the URL is
 * then https). NULL on failure. */
wgt_mcphttp *wgt_mcphttp_start_tls(const char *cert_pem, const char *key_pem);
void wgt_mcphttp_stop(wgt_mcphttp *s);
/* "http(s)://127.0.0.1:<port>/mcp" (borrowed). */
const char *wgt_mcphttp_url(const wgt_mcphttp *s);

/* Counters: "initialize", "tools/list", "tools/call", "delete", "pong",
 * "cancelled", "elsewhere", "404", "get", "resumed". */
long wgt_mcphttp_count(wgt_mcphttp *s, const char *what);
/* The first protocol violation, or NULL (borrowed until stop). */
const char *wgt_mcphttp_problem(wgt_mcphttp *s);
/* Copies of up to max requests received so far, oldest first; the count. */
size_t wgt_mcphttp_requests(wgt_mcphttp *s, wgt_mcphttp_req *out, size_t max);

#endif

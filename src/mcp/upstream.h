/* mcp/upstream.h - the gateway's client of one upstream MCP server (issue
 * 14 §2), MCP 2025-11-25 "Transports", client side: either a supervised
 * child process spoken to in newline-delimited JSON-RPC ("command"), or a
 * remote server over Streamable HTTP ("url", mcp/uphttp.h: a "process" is
 * then a session, its start is initialize, a broken connection, HTTP 5xx,
 * a 404 for the session or a broken event stream is a crash, and a stop
 * DELETEs the session). Supervision, states, backoff and the tool list are
 * the same for both.
 *
 * Lifecycle (one supervisor thread per upstream, one reader thread per
 * child process):
 *   STARTING    the command is spawned in its own process group with
 *               stdin/stdout pipes; initialize {protocolVersion, capabilities,
 *               clientInfo} is sent and answered, notifications/initialized
 *               follows, tools/list is read page by page (nextCursor, at most
 *               WG_UP_PAGES_MAX pages and WG_UP_TOOLS_MAX tools)
 *   HEALTHY     calls are served; notifications/tools/list_changed makes the
 *               supervisor list again; a ping from the upstream is answered,
 *               any other request from it gets -32601
 *   RESTARTING  the child exited, crashed, broke the protocol (a line over
 *               line_max bytes) or failed to start: every pending call fails
 *               at once with the reason, the process group is killed, and the
 *               next start waits 0.5 s doubling to 30 s (back to 0.5 s after
 *               30 s of health)
 *   FAILED      WG_UP_GIVEUP starts in a row never became healthy: no more
 *               tries (last_error says why)
 * A url server's list_changed arrives in a POST's stream or on the
 * session's GET stream (mcp/uphttp.h); a server without a GET stream (405)
 * is listed again every relist_ms while healthy, and so is every url
 * server, which also notices one that went away between calls.
 * The changed callback fires (from the supervisor thread) whenever the tool
 * list a caller would see changes: the upstream became healthy, listed again,
 * or went down. It must not block or call back into the upstream.
 *
 * The child's environment: PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
 * LC_ALL, TMPDIR, TZ from waggle's own (never anything else, so no WAGGLE_*
 * secret leaks), then the configured env; a "vault:NAME" value is resolved
 * through resolve just before the spawn, lives only in the child's
 * environment block and is wiped from waggle's memory right after. No value
 * is ever put in an error or a log. A url server's headers follow the same
 * rule: resolved at each start, kept (in curl's header list) for that
 * session only, wiped at its end.
 *
 * Hostile upstream: a line longer than line_max is never held in memory
 * (skipped, then the child is restarted: the protocol is broken), a line that
 * is not JSON (jansson bounds the nesting) or not JSON-RPC is ignored and
 * counted, responses to unknown ids are dropped, error messages are cut to
 * printable ASCII. A call that gets no answer fails after its timeout (and
 * notifications/cancelled is sent). Writes to a child that stopped reading
 * fail at the call's deadline, never block forever.
 *
 * Thread-safety: every function may be called from any thread, at once.
 * Errors: 0 or WG_E* with wg_error_last(). */
#ifndef WAGGLE_MCP_UPSTREAM_H
#define WAGGLE_MCP_UPSTREAM_H

#include <stddef.h>
#include <jansson.h>

#include "mcp/gwconfig.h"

#define WG_UP_PROTOCOL    "2025-11-25"
#define WG_UP_PAGES_MAX   64
#define WG_UP_TOOLS_MAX   1024
#define WG_UP_TOOL_NAME_MAX 128
#define WG_UP_GIVEUP      10
#define WG_UP_BACKOFF_MIN_MS 500
#define WG_UP_BACKOFF_MAX_MS 30000
#define WG_UP_RELIST_MS   60000    /* url servers: tools/list while healthy */

typedef struct wg_upstream wg_upstream;

typedef enum {
    WG_UP_STARTING = 0,
    WG_UP_HEALTHY,
    WG_UP_RESTARTING,
    WG_UP_FAILED,
    WG_UP_STOPPED,
} wg_up_state;

/* Resolves the vault secret name into *value (new, NUL-terminated; the
 * upstream wipes and frees it). Returns 0 or WG_E*. */
typedef int (*wg_up_resolve_fn)(void *ud, const char *name, char **value);
typedef void (*wg_up_changed_fn)(void *ud, wg_upstream *u);
/* One line for the operator's log: the upstream became healthy, went down,
 * failed a start or gave up (the next start's delay included). From the
 * supervisor thread; the text holds no secret (errors are sanitized). */
typedef void (*wg_up_note_fn)(void *ud, wg_upstream *u, const char *line);

typedef struct {
    const wg_gw_server *server;   /* copied; a command or a url server */
    wg_up_resolve_fn resolve;     /* NULL: a vault reference fails the start */
    void *resolve_ud;
    wg_up_changed_fn changed;     /* may be NULL */
    void *changed_ud;
    size_t line_max;              /* 0: WG_MCP_FRAME_MAX (a url server: one body or event) */
    long backoff_min_ms;          /* 0: WG_UP_BACKOFF_MIN_MS */
    long backoff_max_ms;          /* 0: WG_UP_BACKOFF_MAX_MS */
    int stderr_fd;                /* the child's stderr; -1: /dev/null */
    long relist_ms;               /* url servers; 0: WG_UP_RELIST_MS */
    wg_up_note_fn note;           /* may be NULL */
    void *note_ud;
} wg_up_options;

typedef struct {
    wg_up_state state;
    unsigned restarts;            /* starts after the first */
    size_t tools;                 /* tools listed (0 unless HEALTHY) */
    size_t ignored;               /* lines ignored: not JSON / not JSON-RPC */
    char last_error[200];         /* "" when none */
} wg_up_status;

/* Starts the supervisor (the first spawn happens on its thread: this does
 * not block). *out new: free with wg_mcp__up_free. */
int wg_mcp__up_start(wg_upstream **out, const wg_up_options *o);

/* Stops: closes the child's stdin, SIGTERM then SIGKILL to its process
 * group (a url server: aborts its transfers, DELETEs the session within
 * WG_UPHTTP_CLOSE_MS), fails pending calls, joins the threads, frees.
 * NULL is fine. */
void wg_mcp__up_free(wg_upstream *u);

/* Waits up to ms for HEALTHY or FAILED. Returns 0 when healthy,
 * WG_EUNAVAILABLE (failed) or WG_ETIMEOUT. */
int wg_mcp__up_wait_healthy(wg_upstream *u, long ms);

/* The server name (borrowed, lives as u). */
const char *wg_mcp__up_name(const wg_upstream *u);
void wg_mcp__up_status(wg_upstream *u, wg_up_status *st);
const char *wg_mcp__up_state_name(wg_up_state s);

/* A copy of the listed tools (an array of the upstream's tool objects,
 * each with a valid "name" and an object "inputSchema"). *out new; an empty
 * array when not healthy. */
int wg_mcp__up_tools(wg_upstream *u, json_t **out);
/* The tool object named name (new copy), or NULL. */
json_t *wg_mcp__up_tool(wg_upstream *u, const char *name);

/* tools/call name with args (an object or NULL), waiting at most timeout_ms
 * (0: the server's timeoutMs). *result new: the upstream's CallToolResult
 * (an object). Returns 0, WG_EUNAVAILABLE (not healthy, or it went down
 * during the call), WG_ETIMEOUT, WG_EUPSTREAM (a JSON-RPC error or a result
 * that is not an object; the message is sanitized). */
int wg_mcp__up_call(wg_upstream *u, const char *name, const json_t *args, long timeout_ms,
                    json_t **result);

/* As wg_mcp__up_call, asking the upstream for progress: the call carries
 * _meta.progressToken (a number unique to this upstream), and each
 * notifications/progress with it calls progress(ud, done, total or -1,
 * message or NULL; printable ASCII, at most 160 bytes) from the reader
 * thread, under the upstream's lock, until this returns: progress must not
 * block or call into the upstream. progress NULL: no token is sent. */
typedef void (*wg_up_progress_fn)(void *ud, double done, double total, const char *message);
int wg_mcp__up_call_progress(wg_upstream *u, const char *name, const json_t *args, long timeout_ms,
                             wg_up_progress_fn progress, void *ud, json_t **result);

/* Any request (the supervisor's handshake and lists use it). *result new. */
int wg_mcp__up_request(wg_upstream *u, const char *method, json_t *params, long timeout_ms,
                       json_t **result);

/* Printable ASCII of src (NULL: "") into dst, at most n-1 bytes, for
 * upstream text in messages. */
void wg_mcp__up_sanitize(char *dst, size_t n, const char *src);

#endif

/* mcp/session.h - one MCP session: the server side of MCP 2025-11-25 over
 * any transport (stdio.c, the server's /mcp route), a thin face over the
 * engine (waggle/engine.h).
 *
 *   initialize            protocol version negotiated (2025-11-25, 2025-06-18,
 *                         2025-03-26; anything else is answered with 2025-11-25),
 *                         capabilities {tools: {listChanged: true}}
 *   ping                  {}
 *   tools/list            tools.h (no pagination: a cursor is -32602)
 *   tools/call            on one of at most max_calls threads (more wait in a
 *                         queue of WG_MCP_QUEUE_MAX; past it -32000): gate_check, or
 *                         wg_engine_execute. When the gate asks and the client
 *                         declared form elicitation, elicitation/create asks
 *                         the person (elicit.h); otherwise the answer is
 *                         isError with the approval id. Progress: a call with
 *                         _meta.progressToken gets notifications/progress for
 *                         each of its engine events. notifications/cancelled
 *                         drops the answer and stops a wait for the person.
 *   notifications/tools/list_changed   when the tool list changes (a
 *                         connector connected or disconnected, from any
 *                         process on the data dir: the store is looked at
 *                         every poll_ms)
 * Every other request method is -32601; malformed frames get -32700,
 * -32600 or -32602 (jsonrpc.h).
 *
 * The transport hands in one frame at a time (wg_mcp__session_handle, from
 * one thread) and receives every outgoing message through send, which may
 * be called from any of the session's threads, must not block and must not
 * call back into the session.
 *
 * Ownership: the engine is borrowed and must outlive the session.
 * Errors: 0 or WG_E* with wg_error_last(). */
#ifndef WAGGLE_MCP_SESSION_H
#define WAGGLE_MCP_SESSION_H

#include <stddef.h>
#include <jansson.h>
#include "waggle/engine.h"

typedef struct wg_mcp_session wg_mcp_session;

/* One outgoing message: line (len bytes, no newline) is a complete
 * JSON-RPC message. related is the id of the client request it belongs to
 * (its response, its progress, an elicitation it asks) or NULL; final is
 * non-zero for the response that ends that request. Borrowed for the call. */
typedef void (*wg_mcp_send_fn)(void *ud, const json_t *related, int final, const char *line,
                               size_t len);

#define WG_MCP_OPTIONS_VERSION 1
#define WG_MCP_CALLS_MAX 64              /* the most calls a session runs at once */
#define WG_MCP_QUEUE_MAX 1024            /* calls waiting for one of those threads */
#define WG_MCP_DEFAULT_POLL_MS 2000u

typedef struct wg_mcp_options {
    unsigned int version;        /* WG_MCP_OPTIONS_VERSION */
    wg_engine *engine;           /* borrowed; required */
    wg_autonomy level;           /* the operator's standing level for this face */
    const char *actor;           /* audit actor of the calls; NULL: "mcp" */
    const char *session_id;      /* audit rows and events; NULL: none (copied) */
    unsigned poll_ms;            /* list_changed: 0 = 2 s; the watcher is off when send is NULL */
    size_t max_calls;            /* 0 or more than WG_MCP_CALLS_MAX: WG_MCP_CALLS_MAX */
    int no_watch;                /* no list_changed watcher thread */
    wg_mcp_send_fn send;         /* required */
    void *send_ud;
} wg_mcp_options;

#define WG_MCP_OPTIONS_INIT { .version = WG_MCP_OPTIONS_VERSION, .level = WG_AUTONOMY_NORMAL }

/* *out new: free with wg_mcp__session_free. Returns 0, WG_EINVAL, WG_ENOMEM. */
int wg_mcp__session_new(wg_mcp_session **out, const wg_mcp_options *o);

/* Handles one frame (len bytes; at most WG_MCP_FRAME_MAX are read). Never
 * blocks on a tool: tools/call answers later, from its own thread. */
void wg_mcp__session_handle(wg_mcp_session *s, const char *frame, size_t len);

/* Answers one frame that never reached handle because it was too large. */
void wg_mcp__session_oversized(wg_mcp_session *s);

/* The client can send no more (EOF, gone): waits for the person are given
 * up (the approvals stay pending), running calls finish and still answer,
 * the watcher stops. Blocks until no call runs. Idempotent. */
void wg_mcp__session_close(wg_mcp_session *s);

/* Closes (as above) and frees. NULL is fine. */
void wg_mcp__session_free(wg_mcp_session *s);

/* 1 once initialize was answered. */
int wg_mcp__session_initialized(wg_mcp_session *s);
/* The negotiated protocol version ("" before initialize). Borrowed. */
const char *wg_mcp__session_protocol(wg_mcp_session *s);
/* How many tools/call requests are running or waiting to run now. */
size_t wg_mcp__session_running(wg_mcp_session *s);

#endif

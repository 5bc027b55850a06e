/* mcp/gateway.h - the MCP gateway (issue 14 §2): every server of a
 * gateway file (gwconfig.h) becomes a tool provider of the engine
 * (waggle/engine.h "tool providers"), so its tools are <server>__<tool> and
 * every call of them goes through wg_engine_execute - the gate, approvals,
 * the audit log - like any other tool. Nothing here decides whether a call
 * runs: classify hands the engine a verdict (gwclass.h: annotations, then
 * the verbs of the name; a shell-like argument for the bash gate), and run
 * is called by the engine only after it decided.
 *
 * stdio servers ("command") and remote servers ("url", Streamable HTTP) are
 * started and supervised by upstream.h (restart with backoff, timeouts).
 * A "vault:NAME" env or header value is read from the engine's vault (an
 * audited vault_read, actor "mcp-gateway") when the child or the session
 * starts.
 *
 * Thread-safety: the provider callbacks and wg_mcp__gateway_status may be
 * called from any thread. Order of teardown: close the face (no more
 * calls), wg_mcp__gateway_free (a restarting child may still read the
 * vault until then), then wg_engine_free.
 * Errors: 0 or WG_E* with wg_error_last(). */
#ifndef WAGGLE_MCP_GATEWAY_H
#define WAGGLE_MCP_GATEWAY_H

#include <jansson.h>

#include "mcp/gwconfig.h"
#include "waggle/engine.h"

typedef struct wg_gateway wg_gateway;

/* A callback for "the tool list of some upstream changed" (from an
 * upstream's supervisor thread: quick, no blocking). */
typedef void (*wg_gateway_changed_fn)(void *ud);
/* One line for the operator's log about server (healthy, went down, a
 * start failed, gave up): from a supervisor thread, quick, no secret. */
typedef void (*wg_gateway_log_fn)(void *ud, const char *server, const char *line);

typedef struct {
    wg_gateway_changed_fn changed;   /* may be NULL */
    void *changed_ud;
    int stderr_fd;                   /* the children's stderr; -1: /dev/null */
    long backoff_min_ms, backoff_max_ms;   /* 0: upstream.h defaults */
    wg_gateway_log_fn log;           /* may be NULL */
    void *log_ud;
} wg_gateway_options;

/* Starts every server of cfg (without waiting for them) and adds one
 * provider per server to e (prefix = the server name). cfg is copied.
 * Returns 0; WG_EINVAL when a server name cannot be a prefix (it contains
 * "__" or ends in '_') or the engine refuses a provider; WG_E* otherwise.
 * On failure nothing stays running, but providers already added to e stay
 * added: free the engine too. */
int wg_mcp__gateway_start(wg_gateway **out, wg_engine *e, const wg_gw_config *cfg,
                          const wg_gateway_options *o);

/* Waits up to ms in all for every server to be healthy or failed. */
void wg_mcp__gateway_wait(wg_gateway *g, long ms);

/* [{name, transport ("stdio"|"http"), state ("starting", "healthy",
 * "restarting", "failed", "stopped"), healthy, tools,
 * restarts, lastError?}] in the configuration's order. New (NULL: out of
 * memory). */
json_t *wg_mcp__gateway_status(wg_gateway *g);

/* Stops every child and ends every session (upstream.h), frees. NULL is fine. */
void wg_mcp__gateway_free(wg_gateway *g);

#endif

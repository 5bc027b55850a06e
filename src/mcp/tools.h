/* mcp/tools.h - waggle's tools as MCP tools (MCP 2025-11-25 "Tools"):
 * the list tools/list answers, and the CallToolResult of a call.
 *
 * The tools: gate_check (the gate's decision with rule and reason, for an
 * agent that runs its own tools - bash, write_file - and asks first), the
 * agent tools of spec 4 (find_connector, list_connector_categories,
 * acquire_capability, install_capability) and one connector_<id>_<action>
 * tool per action of every connected connector, and under `waggle mcp
 * --gateway` the <server>__<tool> tools of the upstreams (gateway.h; their
 * annotations are passed on, their content is passed through). Every call but gate_check
 * runs through wg_engine_execute (the session does that); gate_check
 * through wg_engine_check. Nothing here consults the gate on its own.
 *
 * Thread-safety: as the engine (any thread). */
#ifndef WAGGLE_MCP_TOOLS_H
#define WAGGLE_MCP_TOOLS_H

#include <jansson.h>
#include "waggle/engine.h"

#define WG_MCP_GATE_CHECK "gate_check"

/* The tools/list "tools" array: {name, title?, description, inputSchema,
 * annotations?} each. *out new. Returns 0 or WG_E* (the registry). */
int wg_mcp__tools_list(json_t **out, wg_engine *e);

/* The tool names of that list joined by newlines: what list_changed
 * compares. *out new (free()). */
int wg_mcp__tools_fingerprint(char **out, wg_engine *e);
/* 1 when name is on the list tools/list would give now (without building
 * it: one store read for a connector tool). */
int wg_mcp__tools_has(wg_engine *e, const char *name);
/* The same for a list already made (NULL when out of memory). New. */
char *wg_mcp__tools_names(const json_t *tools);

/* The CallToolResult of a finished wg_engine_execute:
 *   RAN       content = the result's data (or error) as JSON text,
 *             structuredContent = the result, isError = !success
 *   PENDING   isError, with the approval id and how to approve it
 *             (`waggle approve ID`, POST /api/approval/ID) and until when
 *   DENIED, EXPIRED   isError: nothing ran, and why
 * New, or NULL on allocation failure. */
json_t *wg_mcp__call_result(const wg_engine_outcome *out);

/* gate_check {tool, args?}: the decision (wg_engine_decision_json) at the
 * session's autonomy, audited like POST /api/gate/check. A CallToolResult
 * (isError when the arguments are wrong). New. */
json_t *wg_mcp__gate_check(wg_engine *e, const json_t *args, const wg_autonomy_request *a);

/* A CallToolResult with isError and one text item. New. */
json_t *wg_mcp__tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/* mcp/elicit.h - a pending approval asked of the person through MCP
 * elicitation (MCP 2025-11-25 "Elicitation", form mode): the
 * elicitation/create request, and what its answer means for the engine.
 *   accept with approve = true   -> WG_ENGINE_ASK_APPROVE (the call runs)
 *   accept with approve = false  -> WG_ENGINE_ASK_DENY
 *   decline                      -> WG_ENGINE_ASK_DENY (nothing runs)
 *   cancel, an error, no answer  -> WG_ENGINE_ASK_DEFER (nothing runs; the
 *                                   approval waits for `waggle approve ID`)
 * Anything else - an unknown action, content that is not an object - is a
 * denial: an answer that cannot be read never runs a call. Pure. */
#ifndef WAGGLE_MCP_ELICIT_H
#define WAGGLE_MCP_ELICIT_H

#include <jansson.h>
#include "waggle/engine.h"

/* True when the client's initialize capabilities declare form-mode
 * elicitation ("elicitation": {} counts as form, per the revision). */
int wg_mcp__elicit_supported(const json_t *client_capabilities);

/* The params of elicitation/create for approval a: a message naming the
 * tool, the approval class, rule and reason, and a one-field boolean form
 * "approve". "mode":"form" is sent for protocol 2025-11-25 only (older
 * revisions have no mode). New, or NULL. */
json_t *wg_mcp__elicit_params(const wg_engine_ask *a, const char *protocol);

/* The engine's answer for an elicitation response (result or error; both
 * NULL: none came). */
wg_engine_answer wg_mcp__elicit_answer(const json_t *result, const json_t *error);

#endif

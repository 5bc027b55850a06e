/* decide.h - one coding agent's tool call -> allow | ask | deny (issue #14 §3).
 *
 * The agent's tool is mapped through its alias table (names.h): shell
 * commands go to the gate's shell model, file writes are judged by where
 * they land (inside the project = the gate's write_file/edit_file; outside
 * it, a credential file, or a file that runs code later), reads by whether
 * they name a credential file, fetches by their host, MCP tools by their
 * verb through the gate's connector rules. A tool found nowhere is unknown:
 * ask (or allow, if the operator says so). A never-autopass call is deny at
 * every level unless the operator chose ask.
 *
 * Pure: no I/O except realpath(3) on the project dir and on a written
 * file's parent (so a symlink out of the project counts as outside); no
 * allocation beyond jansson reads. Safe from any thread with its own out.
 */
#ifndef WAGGLE_HOOK_DECIDE_H
#define WAGGLE_HOOK_DECIDE_H

#include <jansson.h>

#include "hook/names.h"
#include "waggle/gate.h"
#include "waggle/types.h"

typedef enum { WG_HOOK_ALLOW, WG_HOOK_ASK, WG_HOOK_DENY } wg_hook_outcome;

typedef struct {
    wg_agent agent;
    wg_autonomy level;
    int unknown_allow;      /* --unknown-tools allow (default: ask) */
    int critical_ask;       /* --never-autopass ask (default: deny) */
} wg_hook_policy;

#define WG_HOOK_POLICY_INIT { WG_AGENT_ANY, WG_AUTONOMY_NORMAL, 0, 0 }

typedef struct {
    wg_gate_decision d;     /* level, needs_confirmation, critical, class, rule, reason */
    wg_hook_outcome outcome;
    int unknown;            /* the tool was found in no table */
} wg_hook_verdict;

/* Decides tool(input) for policy. input is the call's arguments (a JSON
 * object; NULL = {}), mcp_context Gemini CLI's optional MCP metadata (may be
 * NULL), cwd the project directory (absolute; NULL or "" = unknown: every
 * write counts as outside the project). gate may carry the engine's hooks or
 * none. Fills *out. Returns 0, or WG_EINVAL for a NULL/empty tool or a bad
 * level (message in wg_error_last()). */
int wg_hook_decide(wg_hook_verdict *out, const wg_gate *gate, const wg_hook_policy *policy,
                   const char *tool, const json_t *input, const json_t *mcp_context,
                   const char *cwd);

/* Turns a "tool.not_gated" decision for a tool no table knows into the
 * unknown-tool answer (asks at Normal and Trusted, rule tool.unknown); other
 * decisions are left alone. Returns 1 when it changed d. */
int wg_hook_mark_unknown(wg_gate_decision *d, const char *tool);

/* The outcome of a finished decision under policy. */
wg_hook_outcome wg_hook_outcome_of(const wg_gate_decision *d, const wg_hook_policy *policy);
const char *wg_hook_outcome_name(wg_hook_outcome o);   /* "allow" | "ask" | "deny" */

#endif

/* protocol.h - the coding agents' hook wire formats (issue #14 §3).
 *
 *   Claude Code  PreToolUse: stdin {session_id, transcript_path, cwd,
 *                permission_mode, hook_event_name, tool_name, tool_input,
 *                tool_use_id}; stdout {"hookSpecificOutput":{"hookEventName":
 *                "PreToolUse","permissionDecision":"allow|ask|deny",
 *                "permissionDecisionReason":...}}, exit 0.
 *   Codex CLI    PreToolUse: the same input (tool_name "Bash" with {command},
 *                "apply_patch" with {command: patch}, mcp__server__tool);
 *                only "deny" (with a reason) is honoured: allow is answered
 *                with no output, ask with deny (or no output: --ask-as defer).
 *   Gemini CLI   BeforeTool: stdin {session_id, transcript_path, cwd,
 *                hook_event_name, timestamp, tool_name, tool_input,
 *                mcp_context}; stdout {"decision":"allow|ask|deny","reason":
 *                ...,"systemMessage":...}, exit 0.
 * Malformed input (not one JSON object, a duplicate key, no tool_name, a
 * tool_input that is not an object, the wrong event, more than
 * WG_HOOK_INPUT_MAX bytes) is denied with exit 2 and the reason on stderr,
 * which all three agents read as "block". docs/hooks.md has the details.
 */
#ifndef WAGGLE_HOOK_PROTOCOL_H
#define WAGGLE_HOOK_PROTOCOL_H

#include <stddef.h>

#include "hook/decide.h"

enum {
    WG_HOOK_INPUT_MAX = 16 << 20,   /* bytes of hook input; more is denied */
    WG_HOOK_TOOL_NAME_MAX = 256,    /* bytes of tool_name, NUL excluded */
};

typedef struct {
    wg_hook_policy policy;
    int allow_defer;    /* --allow-as defer: "allow" is answered with no decision */
    int ask_defer;      /* Codex --ask-as defer: "ask" is answered with no decision */
} wg_hook_options;

typedef struct {
    int exit_code;          /* 0, or 2 for malformed input */
    char *out;              /* stdout text, new (free()), or NULL: print nothing */
    char err[512];          /* stderr text, "" for none */
    int decided;            /* v is filled */
    wg_hook_verdict v;
} wg_hook_reply;

/* Answers one hook input (n bytes). Fills *r (clear with wg_hook_reply_clear).
 * Never fails: an input it cannot read is a deny with exit 2; out of memory
 * is a deny with exit 2 too. */
void wg_hook_respond(wg_hook_reply *r, const wg_gate *gate, const wg_hook_options *o,
                     const char *in, size_t n);
void wg_hook_reply_clear(wg_hook_reply *r);

#endif

/* names.h - what a coding agent's tool names mean to waggle (issue #14 §4).
 *
 * Claude Code calls its shell "Bash", Gemini CLI "run_shell_command", Codex
 * "Bash" too; the gate knows "bash". One table per agent maps each documented
 * name to a kind (how its arguments are read) and the gate tool it stands
 * for; MCP tools are recognised by each agent's naming pattern. A name found
 * nowhere is unknown: the hook and CLI faces ask for it by default
 * (--unknown-tools), the library and HTTP keep the spec's rule (not gated).
 *
 * Pure tables, no allocation; safe from any thread.
 */
#ifndef WAGGLE_HOOK_NAMES_H
#define WAGGLE_HOOK_NAMES_H

#include <stddef.h>

typedef enum {
    WG_AGENT_ANY = 0,       /* every agent's names (the CLI face) */
    WG_AGENT_CLAUDE_CODE,
    WG_AGENT_CODEX,
    WG_AGENT_GEMINI,
} wg_agent;

typedef enum {
    WG_TOOLKIND_GATE,       /* a gate tool as it is (write_file, git_push, ...) */
    WG_TOOLKIND_BASH,       /* a shell command in args.command */
    WG_TOOLKIND_WRITE,      /* writes the file(s) named by path_key */
    WG_TOOLKIND_PATCH,      /* Codex apply_patch: files named inside the patch text */
    WG_TOOLKIND_READ,       /* reads the file(s) named by path_key */
    WG_TOOLKIND_SEARCH,     /* reads every file below path_key (default: the working dir) */
    WG_TOOLKIND_FETCH,      /* fetches URLs (args.url, or URLs inside path_key's text) */
    WG_TOOLKIND_READ_ONLY,  /* changes nothing and reads no file by name */
    WG_TOOLKIND_MCP,        /* an MCP server's tool */
} wg_tool_kind;

typedef struct {
    wg_agent agent;
    const char *name;       /* as the agent sends it (case matters) */
    wg_tool_kind kind;
    const char *gate_tool;  /* the gate's name for it (GATE, BASH, WRITE), else NULL */
    const char *path_key;   /* WRITE/READ/FETCH: the argument holding the path or text */
} wg_tool_alias;

/* The row for name as agent sends it, or NULL. WG_AGENT_ANY searches every
 * agent's table (first match in the order Claude Code, Codex, Gemini CLI). */
const wg_tool_alias *wg_hook_alias_find(wg_agent agent, const char *name);

/* 1 when name is one of waggle's own tools that the gate leaves ungated on
 * purpose (spec 6 READONLY_TOOLS, the spec 3.2 native tools, the spec 4
 * capability tools): known, not unknown. */
int wg_hook_tool_is_known_ungated(const char *name);

/* An MCP tool name split into server and tool. Claude Code and Codex use
 * "mcp__<server>__<tool>"; Gemini CLI "mcp_<server>_<tool>" (ambiguous: the
 * server is taken up to the next '_' unless the hook input's mcp_context
 * names it). Returns 1 and fills server/tool (NUL-terminated, truncation
 * refused: returns 0), or 0 when name is not an MCP name. */
int wg_hook_mcp_split(wg_agent agent, const char *name, char *server, size_t server_cap,
                      char *tool, size_t tool_cap);

/* "claude-code" | "codex" | "gemini" -> agent; returns 0 or -1. */
int wg_hook_agent_parse(wg_agent *out, const char *s);
const char *wg_hook_agent_name(wg_agent agent);

#endif

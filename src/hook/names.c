/* names.c - the agents' tool names (names.h). Sources: Claude Code's hooks
 * reference (tool_input fields per tool), Codex's hook payloads
 * (codex-rs/hooks: "Bash" with {command}, "apply_patch" with {command: the
 * patch}, MCP tools as mcp__server__tool), Gemini CLI's tool names
 * (packages/core/src/tools/definitions/base-declarations.ts). docs/hooks.md
 * lists them. */
#include "hook/names.h"

#include <string.h>
#include <strings.h>

#define CC WG_AGENT_CLAUDE_CODE
#define CX WG_AGENT_CODEX
#define GM WG_AGENT_GEMINI

static const wg_tool_alias aliases[] = {
    /* Claude Code */
    { CC, "Bash",          WG_TOOLKIND_BASH,      "bash",       "command" },
    { CC, "Write",         WG_TOOLKIND_WRITE,     "write_file", "file_path" },
    { CC, "Edit",          WG_TOOLKIND_WRITE,     "edit_file",  "file_path" },
    { CC, "MultiEdit",     WG_TOOLKIND_WRITE,     "edit_file",  "file_path" },
    { CC, "NotebookEdit",  WG_TOOLKIND_WRITE,     "edit_file",  "notebook_path" },
    { CC, "Read",          WG_TOOLKIND_READ,      NULL,         "file_path" },
    { CC, "NotebookRead",  WG_TOOLKIND_READ,      NULL,         "notebook_path" },
    { CC, "WebFetch",      WG_TOOLKIND_FETCH,     NULL,         "url" },
    { CC, "WebSearch",     WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { CC, "Glob",          WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { CC, "Grep",          WG_TOOLKIND_SEARCH,    NULL,         "path" },
    { CC, "LS",            WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { CC, "TodoWrite",     WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { CC, "Task",          WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { CC, "ExitPlanMode",  WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { CC, "BashOutput",    WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { CC, "AskUserQuestion", WG_TOOLKIND_READ_ONLY, NULL,       NULL },
    /* Codex CLI */
    { CX, "Bash",          WG_TOOLKIND_BASH,      "bash",       "command" },
    { CX, "apply_patch",   WG_TOOLKIND_PATCH,     "edit_file",  "command" },
    /* Gemini CLI */
    { GM, "run_shell_command", WG_TOOLKIND_BASH,  "bash",       "command" },
    { GM, "write_file",    WG_TOOLKIND_WRITE,     "write_file", "file_path" },
    { GM, "replace",       WG_TOOLKIND_WRITE,     "edit_file",  "file_path" },
    { GM, "read_file",     WG_TOOLKIND_READ,      NULL,         "file_path" },
    { GM, "read_many_files", WG_TOOLKIND_READ,    NULL,         "include" },
    { GM, "web_fetch",     WG_TOOLKIND_FETCH,     NULL,         "prompt" },
    { GM, "google_web_search", WG_TOOLKIND_READ_ONLY, NULL,     NULL },
    { GM, "list_directory", WG_TOOLKIND_READ_ONLY, NULL,        NULL },
    { GM, "glob",          WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { GM, "grep_search",   WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { GM, "write_todos",   WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { GM, "ask_user",      WG_TOOLKIND_READ_ONLY, NULL,         NULL },
    { GM, "enter_plan_mode", WG_TOOLKIND_READ_ONLY, NULL,       NULL },
    { GM, "exit_plan_mode", WG_TOOLKIND_READ_ONLY, NULL,        NULL },
    { GM, "get_internal_docs", WG_TOOLKIND_READ_ONLY, NULL,     NULL },
};

/* Tools of waggle's own that the gate leaves ungated on purpose: spec 6
 * READONLY_TOOLS, the native tools of spec 3.2 (NATIVE_TOOL_HINTS) and the
 * capability tools of spec 4. Known, so never "unknown". */
static const char *const read_only_tools[] = {
    "read_file", "search_files", "search_content", "git_status", "git_diff", "git_log",
    "web_search", "web_fetch", "show_plan", "search_memory", "get_identity", "get_awareness",
    "query_knowledge", "query_audit", "list_skills", "search_skills", "list_connectors",
    "list_harnesses", "save_memory", "create_plan", "spawn_agent", "create_skill",
    "find_connector", "list_connector_categories", "acquire_capability", "gate_check",
};

#define COUNT(a) (sizeof (a) / sizeof *(a))

/* The exact name first; then, for the kinds that are gated (shell, write,
 * patch, read, search, fetch), the name in any case (`bash`, `WRITE`): a
 * spelling the agent does not use must not make a shell tool unknown, and
 * must never make an unknown tool read-only. */
const wg_tool_alias *wg_hook_alias_find(wg_agent agent, const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < COUNT(aliases); i++)
        if ((agent == WG_AGENT_ANY || aliases[i].agent == agent) &&
            strcmp(aliases[i].name, name) == 0)
            return &aliases[i];
    for (size_t i = 0; i < COUNT(aliases); i++)
        if ((agent == WG_AGENT_ANY || aliases[i].agent == agent) &&
            aliases[i].kind != WG_TOOLKIND_READ_ONLY && strcasecmp(aliases[i].name, name) == 0)
            return &aliases[i];
    return NULL;
}

int wg_hook_tool_is_known_ungated(const char *name)
{
    for (size_t i = 0; name && i < COUNT(read_only_tools); i++)
        if (strcmp(read_only_tools[i], name) == 0)
            return 1;
    return 0;
}

static int copy_part(char *dst, size_t cap, const char *s, size_t n)
{
    if (n == 0 || n >= cap)
        return 0;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 1;
}

int wg_hook_mcp_split(wg_agent agent, const char *name, char *server, size_t server_cap,
                      char *tool, size_t tool_cap)
{
    if (!name)
        return 0;
    const char *sep = agent == WG_AGENT_GEMINI ? "_" : "__";
    size_t sl = strlen(sep);
    if (strncmp(name, "mcp", 3) != 0 || strncmp(name + 3, sep, sl) != 0)
        return 0;
    const char *s = name + 3 + sl;
    const char *end = strstr(s, sep);
    if (!end)
        return 0;
    return copy_part(server, server_cap, s, (size_t)(end - s)) &&
           copy_part(tool, tool_cap, end + sl, strlen(end + sl));
}

static const struct { wg_agent agent; const char *name; } agent_names[] = {
    { WG_AGENT_CLAUDE_CODE, "claude-code" },
    { WG_AGENT_CODEX, "codex" },
    { WG_AGENT_GEMINI, "gemini" },
};

int wg_hook_agent_parse(wg_agent *out, const char *s)
{
    for (size_t i = 0; s && i < COUNT(agent_names); i++)
        if (strcmp(agent_names[i].name, s) == 0) {
            *out = agent_names[i].agent;
            return 0;
        }
    return -1;
}

const char *wg_hook_agent_name(wg_agent agent)
{
    for (size_t i = 0; i < COUNT(agent_names); i++)
        if (agent_names[i].agent == agent)
            return agent_names[i].name;
    return "any";
}

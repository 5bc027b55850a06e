/* decide.c - a coding agent's tool call, decided (decide.h). Every kind of
 * tool ends in one wg_gate_decision: the gate's own (bash, write_file inside
 * the project, connector rules for MCP tools) or one made here by the same
 * autonomy rule (docs/hooks.md lists the rule ids). When a call touches
 * several files the worst answer wins. */
#include "hook/decide.h"
#include "hook/paths.h"
#include "waggle/shell.h"
#include "waggle/error.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

enum {
    PATCH_FILES_MAX = 1024,     /* files named in one apply_patch; more: asks */
    READ_PATHS_MAX = 256,       /* paths in one read_many_files; more: asks */
    URLS_MAX = 64,              /* URLs scanned in one web_fetch prompt */
    MCP_NAME_MAX = 128,
};

/* a b c, cut to fit the reason (a path may be long) */
static void set_reason(wg_gate_decision *d, const char *a, const char *b, const char *c)
{
    size_t k = 0, cap = sizeof d->reason;
    const char *parts[3] = { a, b, c };
    for (int i = 0; i < 3; i++)
        for (const char *s = parts[i]; s && *s && k + 1 < cap; s++)
            d->reason[k++] = *s;
    d->reason[k] = '\0';
}

/* A decision made here: the gate's autonomy rule (spec 7.3) applied to it.
 * trusted_passes: whether Trusted pre-approves it (like write_file). */
static void made(wg_gate_decision *d, wg_autonomy level, int base, int critical,
                 wg_approval_class cls, int trusted_passes, const char *rule)
{
    d->level = level;
    d->needs_confirmation_base = base;
    d->critical = critical;
    d->approval_class = cls;
    d->rule = rule;
    int need;
    if (!base)
        need = 0;
    else if (level == WG_AUTONOMY_NORMAL || critical)
        need = 1;
    else if (level == WG_AUTONOMY_YOLO)
        need = 0;
    else
        need = !trusted_passes;
    d->needs_confirmation = need;
    d->auto_approved = base && !need;
}

static int rank(const wg_gate_decision *d)
{
    return d->critical * 8 + d->needs_confirmation * 4 + d->needs_confirmation_base * 2 +
           (d->approval_class != WG_APPROVAL_STANDARD);
}

static void keep_worse(wg_gate_decision *acc, const wg_gate_decision *d, int *first)
{
    if (*first || rank(d) > rank(acc))
        *acc = *d;
    *first = 0;
}

int wg_hook_mark_unknown(wg_gate_decision *d, const char *tool)
{
    if (!d->rule || strcmp(d->rule, "tool.not_gated") != 0 || wg_hook_tool_is_known_ungated(tool))
        return 0;
    made(d, d->level, 1, 0, WG_APPROVAL_STANDARD, 0, "tool.unknown");
    set_reason(d, "waggle has never heard of the tool ", tool,
               ": it needs a person's look (--unknown-tools allow lets it pass)");
    return 1;
}

wg_hook_outcome wg_hook_outcome_of(const wg_gate_decision *d, const wg_hook_policy *p)
{
    if (!d->needs_confirmation)
        return WG_HOOK_ALLOW;
    return d->critical && !p->critical_ask ? WG_HOOK_DENY : WG_HOOK_ASK;
}

const char *wg_hook_outcome_name(wg_hook_outcome o)
{
    return o == WG_HOOK_ALLOW ? "allow" : o == WG_HOOK_ASK ? "ask" : "deny";
}

/* ---- bash -------------------------------------------------------------------------- */

static int gate_bash(wg_gate_decision *d, const wg_gate *g, const json_t *cmd, wg_autonomy level)
{
    if (!json_is_string(cmd))
        return wg_gate_check_json(d, g, "bash", NULL, level);   /* bash.args_malformed */
    return wg_gate_check_bash(d, g, json_string_value(cmd), json_string_length(cmd), level);
}

/* ---- files ------------------------------------------------------------------------- */

typedef struct {
    char project[WG_HOOK_PATH_MAX + 1];
    int has_project;
} project_dir;

static void project_open(project_dir *p, const char *cwd)
{
    char real[PATH_MAX];
    p->has_project = 0;
    if (!cwd || cwd[0] != '/')
        return;
    size_t n = strlen(cwd);
    if (realpath(cwd, real) && strlen(real) <= WG_HOOK_PATH_MAX) {
        strcpy(p->project, real);
        p->has_project = 1;
    } else if (n <= WG_HOOK_PATH_MAX &&
               wg_hook_path_resolve(p->project, sizeof p->project, NULL, cwd, n) == 0) {
        p->has_project = 1;
    }
}

/* The rule of a write the core guards (wg_shell_guarded_path): the same
 * tables as the bash gate's, for every face. */
static const char *guarded_rule(wg_guarded_kind kind)
{
    return kind == WG_GUARDED_SYSTEM ? "hook.write_system_file" : "hook.write_runs_code";
}

/* One written file. */
static void write_one(wg_gate_decision *d, const wg_gate *g, const project_dir *pd,
                      const char *gate_tool, const char *path, size_t n, wg_autonomy level)
{
    char abs[WG_HOOK_PATH_MAX + 1];
    if (wg_hook_path_resolve(abs, sizeof abs, pd->has_project ? pd->project : NULL, path, n) < 0) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.path_unreadable");
        set_reason(d, "the path cannot be told (empty, relative without a project dir, a NUL "
                   "byte, or longer than 4096 bytes)", NULL, NULL);
        return;
    }
    int inside = pd->has_project && wg_hook_path_inside(abs, pd->project);
    wg_guarded_kind kind;
    const char *what;
    if ((what = wg_shell_guarded_path(abs, strlen(abs), &kind))) {
        made(d, level, 1, 1, WG_APPROVAL_CRITICAL, 0, guarded_rule(kind));
        set_reason(d, "the write changes ", what, kind == WG_GUARDED_SYSTEM
                   ? ": the system itself (log-in, boot, disks), never without a look"
                   : ": code would run later without a look");
    } else if ((what = wg_hook_path_secret(abs))) {
        made(d, level, 1, !inside, inside ? WG_APPROVAL_ELEVATED : WG_APPROVAL_CRITICAL, 0,
             inside ? "hook.write_secret_in_project" : "hook.write_secret");
        set_reason(d, "the write changes ", what, inside ? " in the project" : " outside the project");
    } else if (!inside) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.write_outside_project");
        set_reason(d, "the write lands outside the project", pd->has_project ? " dir " : "",
                   pd->has_project ? pd->project : " (no project dir was given)");
    } else {
        wg_gate_check(d, g, gate_tool, NULL, 0, level);   /* tool.always_confirm */
        set_reason(d, gate_tool, " inside the project: asks at normal, trusted pre-approves", NULL);
    }
}

static void decide_write(wg_gate_decision *d, const wg_gate *g, const project_dir *pd,
                         const wg_tool_alias *a, const json_t *in, wg_autonomy level)
{
    const json_t *p = json_object_get(in, a->path_key);
    if (!json_is_string(p)) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.path_unreadable");
        set_reason(d, "the call has no \"", a->path_key, "\" string: the gate cannot see where it writes");
        return;
    }
    write_one(d, g, pd, a->gate_tool, json_string_value(p), json_string_length(p), level);
}

/* Codex apply_patch: "*** Add File: P", "*** Update File: P", "*** Delete
 * File: P", "*** Move to: P" lines name every file the patch touches. */
static void decide_patch(wg_gate_decision *d, const wg_gate *g, const project_dir *pd,
                         const json_t *in, wg_autonomy level)
{
    static const char *const heads[] = { "*** Add File: ", "*** Update File: ",
                                         "*** Delete File: ", "*** Move to: " };
    const json_t *cmd = json_object_get(in, "command");
    if (!json_is_string(cmd)) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.patch_unparsed");
        set_reason(d, "apply_patch has no \"command\" string: the gate cannot see what it changes",
                   NULL, NULL);
        return;
    }
    const char *s = json_string_value(cmd), *end = s + json_string_length(cmd);
    int first = 1;
    size_t files = 0;
    for (const char *line = s; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
            size_t hl = strlen(heads[h]);
            if ((size_t)(le - line) <= hl || memcmp(line, heads[h], hl) != 0)
                continue;
            size_t pn = (size_t)(le - line) - hl;
            while (pn && (line[hl + pn - 1] == '\r' || line[hl + pn - 1] == ' '))
                pn--;
            if (++files > PATCH_FILES_MAX) {
                made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.patch_too_many_files");
                set_reason(d, "the patch names more than 1024 files", NULL, NULL);
                return;
            }
            wg_gate_decision one;
            write_one(&one, g, pd, "edit_file", line + hl, pn, level);
            keep_worse(d, &one, &first);
        }
        line = nl ? nl + 1 : end;
    }
    if (first) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.patch_unparsed");
        set_reason(d, "the patch names no file the gate can read", NULL, NULL);
    }
}

static void read_one(wg_gate_decision *d, const project_dir *pd, const char *path, size_t n,
                     wg_autonomy level)
{
    char abs[WG_HOOK_PATH_MAX + 1];
    const char *what = NULL;
    if (wg_hook_path_resolve(abs, sizeof abs, pd->has_project ? pd->project : NULL, path, n) == 0)
        what = wg_hook_path_secret(abs);
    else if (n && n <= WG_HOOK_PATH_MAX && !memchr(path, '\0', n)) {
        char tmp[WG_HOOK_PATH_MAX + 1];     /* a glob or relative name: check as written */
        memcpy(tmp, path, n);
        tmp[n] = '\0';
        what = wg_hook_path_secret(tmp);
    }
    if (what) {
        /* like bash.reads_secret: risky, Trusted pre-approves */
        made(d, level, 1, 0, WG_APPROVAL_STANDARD, 1, "hook.reads_secret");
        set_reason(d, "the read puts ", what, " into the model's context");
    } else {
        made(d, level, 0, 0, WG_APPROVAL_STANDARD, 0, "hook.read");
        set_reason(d, "reading a file changes nothing", NULL, NULL);
    }
}

static void decide_read(wg_gate_decision *d, const project_dir *pd, const wg_tool_alias *a,
                        const json_t *in, wg_autonomy level)
{
    const json_t *p = json_object_get(in, a->path_key);
    if (json_is_string(p)) {
        read_one(d, pd, json_string_value(p), json_string_length(p), level);
        return;
    }
    if (json_is_array(p) && json_array_size(p) <= READ_PATHS_MAX) {
        int first = 1;
        size_t i;
        const json_t *v;
        json_array_foreach(p, i, v) {
            wg_gate_decision one;
            if (json_is_string(v))
                read_one(&one, pd, json_string_value(v), json_string_length(v), level);
            else
                made(&one, level, 1, 0, WG_APPROVAL_STANDARD, 1, "hook.path_unreadable");
            keep_worse(d, &one, &first);
        }
        if (!first)
            return;
    }
    made(d, level, 1, 0, WG_APPROVAL_STANDARD, 1, "hook.path_unreadable");
    set_reason(d, "the call's \"", a->path_key, "\" is not a path the gate can read");
}

/* A recursive search (Claude Code's Grep): every file below the path is read.
 * No path: the working directory, as the agent's own tool does. */
static void decide_search(wg_gate_decision *d, const project_dir *pd, const wg_tool_alias *a,
                          const json_t *in, const char *cwd, wg_autonomy level)
{
    const json_t *p = json_object_get(in, a->path_key);
    const char *path = json_is_string(p) ? json_string_value(p) : cwd;
    size_t n = json_is_string(p) ? json_string_length(p) : (cwd ? strlen(cwd) : 0);
    char abs[WG_HOOK_PATH_MAX + 1];
    if (p && !json_is_string(p)) {
        made(d, level, 1, 0, WG_APPROVAL_STANDARD, 1, "hook.path_unreadable");
        set_reason(d, "the call's \"", a->path_key, "\" is not a path the gate can read");
        return;
    }
    if (!path || wg_hook_path_resolve(abs, sizeof abs, pd->has_project ? pd->project : NULL,
                                      path, n) < 0) {
        made(d, level, 1, 0, WG_APPROVAL_STANDARD, 1, "hook.path_unreadable");
        set_reason(d, "the search's directory cannot be told (empty, relative without a project "
                   "dir, a NUL byte, or too long)", NULL, NULL);
        return;
    }
    const char *what = wg_hook_path_secret(abs);
    if (!what && wg_hook_path_holds_secrets(abs))
        what = "every credential file below it";
    if (what) {
        /* like bash.reads_secret for grep -r: risky, Trusted pre-approves */
        made(d, level, 1, 0, WG_APPROVAL_STANDARD, 1, "hook.reads_secret");
        snprintf(d->reason, sizeof d->reason, "the search of %.120s reads %s into the model's "
                 "context", abs, what);
        return;
    }
    made(d, level, 0, 0, WG_APPROVAL_STANDARD, 0, "hook.read");
    set_reason(d, "searching files changes nothing", NULL, NULL);
}

/* ---- fetch ------------------------------------------------------------------------- */

static void fetch_verdict(wg_gate_decision *d, const char *risk, wg_autonomy level)
{
    if (risk) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.fetch_private");
        set_reason(d, "the fetch goes to ", risk, " (it can reach services the internet cannot)");
    } else {
        made(d, level, 0, 0, WG_APPROVAL_STANDARD, 0, "hook.fetch");
        set_reason(d, "fetching a public http(s) URL", NULL, NULL);
    }
}

static void decide_fetch(wg_gate_decision *d, const wg_tool_alias *a, const json_t *in,
                         wg_autonomy level)
{
    const json_t *p = json_object_get(in, a->path_key);
    if (!json_is_string(p)) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "hook.fetch_unreadable");
        set_reason(d, "the call has no \"", a->path_key, "\" string");
        return;
    }
    const char *s = json_string_value(p);
    size_t n = json_string_length(p);
    if (strcmp(a->path_key, "url") == 0) {
        fetch_verdict(d, wg_hook_url_risk(s, n), level);
        return;
    }
    /* Gemini CLI's web_fetch: URLs inside a prompt; the worst one decides */
    const char *risk = NULL;
    size_t urls = 0;
    for (const char *q = s; (q = strstr(q, "://")) && urls < URLS_MAX; q += 3) {
        const char *st = q;
        while (st > s && isalpha((unsigned char)st[-1]))
            st--;
        const char *e = q + 3;
        while (e < s + n && !isspace((unsigned char)*e) && *e != '"' && *e != '\'' && *e != '>' &&
               *e != ')')
            e++;
        urls++;
        const char *r = wg_hook_url_risk(st, (size_t)(e - st));
        if (r && !risk)
            risk = r;
    }
    fetch_verdict(d, risk, level);
}

/* ---- MCP ----------------------------------------------------------------------------- */

/* Verbs that change something, beyond the gate's own connector write verbs. */
static const char *const mcp_write_verbs[] = {
    "write", "edit", "move", "rename", "copy", "mkdir", "upload", "insert", "upsert", "drop",
    "truncate", "kill", "terminate", "restart", "deploy", "publish", "commit", "push", "merge",
    "apply", "install", "uninstall", "modify", "patch", "archive", "close", "approve", "reject",
    "assign", "invite", "revoke", "grant", "transfer", "pay", "charge", "refund", "submit",
    "reply", "comment", "save", "store", "import", "sync", "reset", "clear", "purge", "destroy",
    "disable", "enable", "start", "stop", "cancel", "navigate", "click", "type", "fill",
    "press", "select", "drag", "hover", "upload", "evaluate", "eval", "create", "update",
    "delete", "send", "post", "remove", "add", "set", "put", "run", "exec", "execute",
};
/* Verbs that only read (the first word of the action). */
static const char *const mcp_read_verbs[] = {
    "get", "list", "read", "search", "find", "fetch", "query", "describe", "show", "view",
    "lookup", "browse", "count", "check", "status", "info", "inspect", "retrieve", "explain",
    "diff", "log", "logs", "summarize", "resolve", "stat", "tree", "echo", "ping", "version",
};
/* Words that mark a tool that runs shell commands. */
static const char *const mcp_shell_words[] = {
    "bash", "shell", "sh", "terminal", "exec", "execute", "command", "cmd", "run",
};

static int word_in(const char *w, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && memcmp(list[i], w, n) == 0)
            return 1;
    return 0;
}

#define WORD_IN(w, n, list) word_in((w), (n), (list), sizeof (list) / sizeof *(list))

/* camelCase, kebab-case, dots and spaces -> snake_case, lower case. */
static int normalize(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        int sep = c == '-' || c == '.' || c == ' ' || c == '_' || c == '/';
        if (isupper(c) && i > 0 && islower((unsigned char)s[i - 1]) && k + 1 < cap)
            out[k++] = '_';
        if (k + 1 >= cap)
            return -1;
        out[k++] = sep ? '_' : (char)tolower(c);
    }
    out[k] = '\0';
    return k ? 0 : -1;
}

static const json_t *shell_arg(const json_t *in)
{
    static const char *const keys[] = { "command", "cmd", "script" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *v = json_object_get(in, keys[i]);
        if (v)
            return v;
    }
    return NULL;
}

/* One path argument of a write-verb MCP tool: 1 (and the decision made)
 * when it names a file that runs code later or the system itself, as the
 * agent's own Write tool would decide it (never-autopass). */
typedef struct {
    wg_gate_decision *d;
    const project_dir *pd;
    wg_autonomy level;
} mcp_target;

static int mcp_write_target(void *ud, const char *key, const char *path, size_t n)
{
    (void)key;
    mcp_target *t = ud;
    char abs[WG_HOOK_PATH_MAX + 1];
    wg_guarded_kind kind;
    /* resolved against the project (symlinks followed), or, relative with
     * no project dir, the text alone */
    const char *what = wg_hook_path_resolve(abs, sizeof abs, t->pd->has_project ? t->pd->project : NULL,
                                            path, n) < 0
                           ? wg_shell_guarded_path(path, n, &kind)
                           : wg_shell_guarded_path(abs, strlen(abs), &kind);
    if (!what)
        return 0;
    made(t->d, t->level, 1, 1, WG_APPROVAL_CRITICAL, 0, guarded_rule(kind));
    set_reason(t->d, "the MCP tool writes to ", what, ": never without a look");
    return 1;
}

static void decide_mcp(wg_gate_decision *d, const wg_gate *g, const char *server,
                       const char *tool, const json_t *in, const char *cwd, wg_autonomy level,
                       int *unknown)
{
    char srv[MCP_NAME_MAX], act[MCP_NAME_MAX], name[2 * MCP_NAME_MAX + 16];
    if (normalize(srv, sizeof srv, server) < 0 || normalize(act, sizeof act, tool) < 0) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "mcp.name_unreadable");
        set_reason(d, "the MCP tool's name is empty or longer than 127 bytes", NULL, NULL);
        return;
    }
    int shellish = 0, writes = 0;
    size_t first_len = strcspn(act, "_");
    for (const char *w = act; *w;) {
        size_t n = strcspn(w, "_");
        shellish |= WORD_IN(w, n, mcp_shell_words);
        writes |= WORD_IN(w, n, mcp_write_verbs);
        w += n;
        if (*w == '_')
            w++;
    }
    const json_t *cmd = shell_arg(in);
    if (shellish && json_is_string(cmd)) {
        gate_bash(d, g, cmd, level);
        return;
    }
    if (writes && json_is_object(in)) {
        project_dir pd;
        project_open(&pd, cwd);
        mcp_target t = { d, &pd, level };
        if (wg_shell_each_path_arg(in, mcp_write_target, &t))
            return;
    }
    snprintf(name, sizeof name, "connector_%s_%s", srv, act);
    wg_gate_check(d, g, name, NULL, 0, level);
    if (d->needs_confirmation_base)
        return;                                  /* connector.high_risk_action / write_verb */
    if (shellish || writes) {
        made(d, level, 1, 0, WG_APPROVAL_ELEVATED, 0, "mcp.write_verb");
        set_reason(d, "the MCP tool ", tool, " changes something (by its name)");
    } else if (WORD_IN(act, first_len, mcp_read_verbs)) {
        made(d, level, 0, 0, WG_APPROVAL_STANDARD, 0, "mcp.read_verb");
        set_reason(d, "the MCP tool ", tool, " only reads (by its name)");
    } else {
        made(d, level, 1, 0, WG_APPROVAL_STANDARD, 0, "mcp.unknown_action");
        set_reason(d, "the MCP tool ", tool, "'s name says neither read nor write");
        *unknown = 1;
    }
}

/* ---- the decision -------------------------------------------------------------------- */

/* A tool waggle does not know asks (tool.unknown); when it carries a shell
 * command (`command`, `cmd`, `script`) that command is also decided, and a
 * never-autopass one makes the call critical: a renamed or new shell tool
 * must not pass `sudo reboot` at YOLO. */
static void unknown_tool(wg_gate_decision *d, const wg_gate *g, const char *tool,
                         const json_t *in, wg_autonomy level)
{
    const json_t *cmd = shell_arg(in);
    if (json_is_string(cmd)) {
        gate_bash(d, g, cmd, level);
        if (d->critical)
            return;
        memset(d, 0, sizeof *d);        /* otherwise decided as unknown, below */
    }
    d->rule = "tool.not_gated";
    d->level = level;
    wg_hook_mark_unknown(d, tool);
}

int wg_hook_decide(wg_hook_verdict *out, const wg_gate *gate, const wg_hook_policy *p,
                   const char *tool, const json_t *input, const json_t *mcp_context,
                   const char *cwd)
{
    if (!out || !gate || !p || !tool || !*tool)
        return wg_error_set(WG_EINVAL, "wg_hook_decide: NULL argument or empty tool name");
    if (p->level < WG_AUTONOMY_NORMAL || p->level > WG_AUTONOMY_YOLO)
        return wg_error_set(WG_EINVAL, "wg_hook_decide: unknown autonomy level %d", (int)p->level);
    if (input && !json_is_object(input))
        return wg_error_set(WG_EINVAL, "the tool input is not a JSON object");
    wg_gate_decision *d = &out->d;
    memset(out, 0, sizeof *out);
    wg_autonomy level = p->level;
    const wg_tool_alias *a = wg_hook_alias_find(p->agent, tool);
    char server[MCP_NAME_MAX], mtool[MCP_NAME_MAX];
    project_dir pd;
    int rc = 0;
    if (a) {
        switch (a->kind) {
        case WG_TOOLKIND_GATE:
            rc = wg_gate_check_json(d, gate, a->gate_tool, input, level);
            break;
        case WG_TOOLKIND_BASH:
            rc = gate_bash(d, gate, json_object_get(input, "command"), level);
            break;
        case WG_TOOLKIND_WRITE:
            project_open(&pd, cwd);
            decide_write(d, gate, &pd, a, input, level);
            break;
        case WG_TOOLKIND_PATCH:
            project_open(&pd, cwd);
            decide_patch(d, gate, &pd, input, level);
            break;
        case WG_TOOLKIND_READ:
            project_open(&pd, cwd);
            decide_read(d, &pd, a, input, level);
            break;
        case WG_TOOLKIND_SEARCH:
            project_open(&pd, cwd);
            decide_search(d, &pd, a, input, cwd, level);
            break;
        case WG_TOOLKIND_FETCH:
            decide_fetch(d, a, input, level);
            break;
        case WG_TOOLKIND_READ_ONLY:
            made(d, level, 0, 0, WG_APPROVAL_STANDARD, 0, "hook.read_only");
            set_reason(d, tool, " changes nothing", NULL);
            break;
        case WG_TOOLKIND_MCP:
            break;
        }
    } else if (json_is_object(mcp_context) &&
               json_is_string(json_object_get(mcp_context, "server_name")) &&
               json_is_string(json_object_get(mcp_context, "tool_name"))) {
        decide_mcp(d, gate, json_string_value(json_object_get(mcp_context, "server_name")),
                   json_string_value(json_object_get(mcp_context, "tool_name")), input, cwd, level,
                   &out->unknown);
    } else if (wg_hook_mcp_split(p->agent, tool, server, sizeof server, mtool, sizeof mtool)) {
        decide_mcp(d, gate, server, mtool, input, cwd, level, &out->unknown);
    } else if (p->agent == WG_AGENT_ANY) {
        rc = wg_gate_check_json(d, gate, tool, input, level);   /* a gate tool by its own name */
        if (rc == 0 && d->rule && strcmp(d->rule, "tool.not_gated") == 0 &&
            !wg_hook_tool_is_known_ungated(tool)) {
            unknown_tool(d, gate, tool, input, level);
            out->unknown = !d->critical;
        }
    } else {
        unknown_tool(d, gate, tool, input, level);
        out->unknown = !d->critical;
    }
    if (rc < 0)
        return rc;
    if (out->unknown && p->unknown_allow && !d->critical) {
        made(d, level, 0, 0, WG_APPROVAL_STANDARD, 0, "tool.unknown_allowed");
        set_reason(d, "the operator lets tools waggle does not know pass (--unknown-tools allow)",
                   NULL, NULL);
    }
    out->outcome = wg_hook_outcome_of(d, p);
    return 0;
}

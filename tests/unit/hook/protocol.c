/* The coding-agent hook faces (issue #14 §3): Claude Code, Codex and Gemini
 * CLI hook input in, the documented answer out (src/hook/protocol.c), with
 * the rule that decided. No process is started here; tests/unit/cli/hook.c
 * runs the binaries. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/protocol.h"
#include "wgtest.h"

static wg_gate *gate(void)
{
    static wg_gate *g;
    if (!g)
        cr_assert_eq(wg_gate_new(&g, NULL), 0);
    return g;
}

typedef struct {
    wg_hook_reply r;
    json_t *out;            /* parsed stdout, or NULL */
} answer;

static answer ask_with(wg_agent agent, wg_autonomy level, int unknown_allow, int critical_ask,
                       const char *in)
{
    wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, 0 };
    o.policy.agent = agent;
    o.policy.level = level;
    o.policy.unknown_allow = unknown_allow;
    o.policy.critical_ask = critical_ask;
    answer a = { .out = NULL };
    wg_hook_respond(&a.r, gate(), &o, in, strlen(in));
    if (a.r.out) {
        a.out = json_loads(a.r.out, 0, NULL);
        cr_assert_not_null(a.out, "%s", a.r.out);
    }
    return a;
}

static void done(answer *a)
{
    json_decref(a->out);
    wg_hook_reply_clear(&a->r);
}

static char *claude_in(const char *tool, const char *input_json, const char *cwd)
{
    static char buf[1 << 16];
    snprintf(buf, sizeof buf,
             "{\"session_id\":\"s1\",\"transcript_path\":\"/tmp/t.jsonl\",\"cwd\":\"%s\","
             "\"permission_mode\":\"default\",\"hook_event_name\":\"PreToolUse\","
             "\"tool_name\":\"%s\",\"tool_input\":%s,\"tool_use_id\":\"toolu_1\"}",
             cwd ? cwd : "/tmp", tool, input_json);
    return buf;
}

/* Claude Code: permissionDecision and the rule, exit 0 */
static void claude_expect(wg_autonomy level, const char *tool, const char *input, const char *cwd,
                          const char *decision, const char *rule)
{
    answer a = ask_with(WG_AGENT_CLAUDE_CODE, level, 0, 0, claude_in(tool, input, cwd));
    cr_assert_eq(a.r.exit_code, 0, "%s %s: %s", tool, input, a.r.err);
    json_t *h = json_object_get(a.out, "hookSpecificOutput");
    cr_assert(json_is_object(h), "%s", a.r.out);
    cr_expect_eq(json_object_size(a.out), 1);
    cr_expect_str_eq(json_string_value(json_object_get(h, "hookEventName")), "PreToolUse");
    cr_expect_str_eq(json_string_value(json_object_get(h, "permissionDecision")), decision,
                     "%s %s at %s: %s", tool, input, wg_autonomy_name(level), a.r.out);
    cr_expect_str_eq(a.r.v.d.rule, rule, "%s %s: %s", tool, input, a.r.out);
    const char *reason = json_string_value(json_object_get(h, "permissionDecisionReason"));
    cr_assert_not_null(reason);
    char want[128];
    snprintf(want, sizeof want, "(rule %s at %s)", rule, wg_autonomy_name(level));
    cr_expect(strstr(reason, want), "%s", reason);
    done(&a);
}

#define N WG_AUTONOMY_NORMAL
#define T WG_AUTONOMY_TRUSTED
#define Y WG_AUTONOMY_YOLO

Test(hook_claude, bash_goes_through_the_shell_model)
{
    claude_expect(N, "Bash", "{\"command\":\"ls -la | wc -l\"}", NULL, "allow", "bash.safe");
    claude_expect(N, "Bash", "{\"command\":\"rm -r build\",\"description\":\"x\"}", NULL, "ask",
                  "bash.rm_recursive");
    claude_expect(Y, "Bash", "{\"command\":\"rm -r build\"}", NULL, "allow", "bash.rm_recursive");
    claude_expect(N, "Bash", "{\"command\":\"cat ~/.ssh/id_rsa\"}", NULL, "ask", "bash.reads_secret");
    claude_expect(N, "Bash", "{}", NULL, "deny", "bash.args_malformed");
}

Test(hook_claude, never_autopass_is_deny_at_every_level_unless_the_operator_says_ask)
{
    wg_autonomy levels[] = { N, T, Y };
    for (int i = 0; i < 3; i++) {
        claude_expect(levels[i], "Bash", "{\"command\":\"sudo ls\"}", NULL, "deny", "critical.privilege");
        claude_expect(levels[i], "Bash", "{\"command\":\"env rm -rf ~/\"}", NULL, "deny",
                      "critical.rm_home");
        answer a = ask_with(WG_AGENT_CLAUDE_CODE, levels[i], 0, 1,
                            claude_in("Bash", "{\"command\":\"sudo ls\"}", NULL));
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(a.out,
                         "hookSpecificOutput"), "permissionDecision")), "ask");
        cr_expect(strstr(a.r.out, "asks at every autonomy level"), "%s", a.r.out);
        done(&a);
    }
}

Test(hook_claude, writes_inside_outside_and_to_files_that_matter)
{
    char *dir = wgt_tmpdir(), p[8192], in[8192];
    const char *tools[] = { "Write", "Edit", "MultiEdit" };
    for (int i = 0; i < 3; i++) {
        snprintf(in, sizeof in, "{\"file_path\":\"%s/src/a.c\",\"content\":\"x\"}", dir);
        claude_expect(N, tools[i], in, dir, "ask", "tool.always_confirm");
        claude_expect(T, tools[i], in, dir, "allow", "tool.always_confirm");
    }
    snprintf(in, sizeof in, "{\"notebook_path\":\"%s/n.ipynb\",\"new_source\":\"x\"}", dir);
    claude_expect(N, "NotebookEdit", in, dir, "ask", "tool.always_confirm");
    /* relative to the project, and .. out of it */
    claude_expect(T, "Write", "{\"file_path\":\"docs/x.md\"}", dir, "allow", "tool.always_confirm");
    claude_expect(T, "Write", "{\"file_path\":\"../../x.md\"}", dir, "ask", "hook.write_outside_project");
    claude_expect(T, "Write", "{\"file_path\":\"/etc/hosts\"}", dir, "ask", "hook.write_outside_project");
    claude_expect(Y, "Write", "{\"file_path\":\"/etc/hosts\"}", dir, "allow", "hook.write_outside_project");
    claude_expect(Y, "Write", "{\"file_path\":\"/root/.ssh/config\"}", dir, "deny", "hook.write_runs_code");
    /* the system itself: vital files, raw disks, kernel triggers (the bash gate's targets) */
    claude_expect(Y, "Edit", "{\"file_path\":\"/etc/passwd\"}", dir, "deny", "hook.write_system_file");
    claude_expect(Y, "Write", "{\"file_path\":\"/etc/../etc/shadow\"}", dir, "deny", "hook.write_system_file");
    claude_expect(Y, "Write", "{\"file_path\":\"/boot/grub/grub.cfg\"}", dir, "deny", "hook.write_system_file");
    claude_expect(Y, "Write", "{\"file_path\":\"/dev/sda\"}", dir, "deny", "hook.write_system_file");
    claude_expect(Y, "Write", "{\"file_path\":\"/dev/nvme0n1p2\"}", dir, "deny", "hook.write_system_file");
    claude_expect(Y, "Write", "{\"file_path\":\"/proc/sysrq-trigger\"}", dir, "deny", "hook.write_system_file");
    claude_expect(Y, "Write", "{\"file_path\":\"/dev/null\"}", dir, "allow", "hook.write_outside_project");
    claude_expect(Y, "Write", "{\"file_path\":\"/root/.aws/credentials\"}", dir, "deny", "hook.write_secret");
    claude_expect(Y, "Edit", "{\"file_path\":\"~/.bashrc\"}", dir, "deny", "hook.write_runs_code");
    claude_expect(Y, "Write", "{\"file_path\":\"/root/.ssh/authorized_keys\"}", dir, "deny",
                  "hook.write_runs_code");
    snprintf(in, sizeof in, "{\"file_path\":\"%s/.git/hooks/pre-commit\"}", dir);
    claude_expect(Y, "Write", in, dir, "deny", "hook.write_runs_code");
    snprintf(in, sizeof in, "{\"file_path\":\"%s/.env\"}", dir);
    claude_expect(T, "Write", in, dir, "ask", "hook.write_secret_in_project");
    /* an agent's own settings inside the project: writing them can remove this hook */
    static const char *const agent_files[] = {
        ".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".cursor/mcp.json",
        ".vscode/tasks.json", ".envrc", ".gemini/settings.json", ".codex/config.toml",
    };
    for (size_t i = 0; i < sizeof agent_files / sizeof *agent_files; i++) {
        snprintf(in, sizeof in, "{\"file_path\":\"%s/%s\"}", dir, agent_files[i]);
        claude_expect(Y, "Write", in, dir, "deny", "hook.write_runs_code");
    }
    snprintf(in, sizeof in, "{\"file_path\":\"%s/.claude/commands/review.md\"}", dir);
    claude_expect(T, "Write", in, dir, "allow", "tool.always_confirm");   /* a prompt, not code */
    /* a symlink inside the project that leads out of it */
    snprintf(p, sizeof p, "%s/out", dir);
    cr_assert_eq(symlink("/etc", p), 0);
    snprintf(in, sizeof in, "{\"file_path\":\"%s/out/hosts\"}", dir);
    claude_expect(T, "Write", in, dir, "ask", "hook.write_outside_project");
    /* no project dir: every write is outside */
    answer a = ask_with(WG_AGENT_CLAUDE_CODE, T, 0, 0,
                        "{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/tmp/x\"}}");
    cr_expect_str_eq(a.r.v.d.rule, "hook.write_outside_project");
    done(&a);
    claude_expect(N, "Write", "{\"content\":\"x\"}", dir, "ask", "hook.path_unreadable");
    wgt_rmtree(dir);
    free(dir);
}

Test(hook_claude, a_path_at_the_length_bound)
{
    static char in[16384], path[8192];
    memset(path, 'a', sizeof path);
    path[0] = '/';
    for (int len = 4095; len <= 4097; len++) {
        path[len] = '\0';
        snprintf(in, sizeof in, "{\"file_path\":\"%s\"}", path);
        claude_expect(T, "Write", in, "/tmp", "ask",
                      len <= 4096 ? "hook.write_outside_project" : "hook.path_unreadable");
        path[len] = 'a';
    }
}

Test(hook_claude, reads_of_credential_files_ask_at_normal)
{
    claude_expect(N, "Read", "{\"file_path\":\"/root/.ssh/id_ed25519\"}", NULL, "ask", "hook.reads_secret");
    claude_expect(N, "Read", "{\"file_path\":\"/srv/app/.env\"}", NULL, "ask", "hook.reads_secret");
    claude_expect(T, "Read", "{\"file_path\":\"/srv/app/.env\"}", NULL, "allow", "hook.reads_secret");
    claude_expect(N, "Read", "{\"file_path\":\"/srv/app/.env.example\"}", NULL, "allow", "hook.read");
    claude_expect(N, "Read", "{\"file_path\":\"/etc/hosts\",\"limit\":10}", NULL, "allow", "hook.read");
    claude_expect(N, "Grep", "{\"pattern\":\"x\"}", NULL, "allow", "hook.read");
}

/* Claude Code's Grep reads every file below its path: over a directory that
 * holds credentials it asks like `grep -r` does (bash.reads_secret). */
Test(hook_claude, searches_of_credential_trees_ask_at_normal)
{
    setenv("HOME", "/home/tester", 1);
    const char *holders[] = {
        "/", "/root", "/root/", "/home", "/home/tester", "/home/other", "/Users/u", "/etc", "/etc/.",
        "/var/lib", "/proc", "~", "~/", "~/.config", "/home/tester/.config", "/home/tester/.cache",
        "/home/tester/.local/share", "/home/tester/.ssh", "/srv/../etc",
    };
    for (size_t i = 0; i < sizeof holders / sizeof *holders; i++) {
        char in[256];
        snprintf(in, sizeof in, "{\"pattern\":\"password\",\"path\":\"%s\"}", holders[i]);
        claude_expect(N, "Grep", in, "/srv/app", "ask", "hook.reads_secret");
        claude_expect(T, "Grep", in, "/srv/app", "allow", "hook.reads_secret");
    }
    const char *plain[] = {
        "/srv/app", "src", ".", "/home/tester/proj", "/etc/hosts", "/var/log", "/usr/include",
        "/home/tester/.configs",
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        char in[256];
        snprintf(in, sizeof in, "{\"pattern\":\"TODO\",\"path\":\"%s\"}", plain[i]);
        claude_expect(N, "Grep", in, "/srv/app", "allow", "hook.read");
    }
    claude_expect(N, "Grep", "{\"pattern\":\"x\"}", "/root", "ask", "hook.reads_secret");
    claude_expect(N, "Grep", "{\"pattern\":\"x\",\"path\":7}", NULL, "ask", "hook.path_unreadable");
}

Test(hook_claude, fetches_to_inner_addresses_ask)
{
    claude_expect(N, "WebFetch", "{\"url\":\"https://example.com/a?b\",\"prompt\":\"p\"}", NULL,
                  "allow", "hook.fetch");
    const char *inner[] = {
        "http://localhost:8080/", "http://127.0.0.1/", "http://169.254.169.254/latest/meta-data",
        "http://10.1.2.3/", "http://172.20.0.1/", "http://192.168.1.1/", "http://[::1]/",
        "http://2130706433/", "http://0x7f000001/", "http://0177.0.0.1/", "file:///etc/passwd",
        "http://user@127.0.0.1:80/", "http://metadata.google.internal/", "HTTP://LOCALHOST./",
    };
    char in[512];
    for (size_t i = 0; i < sizeof inner / sizeof inner[0]; i++) {
        snprintf(in, sizeof in, "{\"url\":\"%s\",\"prompt\":\"p\"}", inner[i]);
        claude_expect(N, "WebFetch", in, NULL, "ask", "hook.fetch_private");
    }
    claude_expect(N, "WebFetch", "{\"url\":\"http://172.32.0.1/\"}", NULL, "allow", "hook.fetch");
    claude_expect(N, "WebSearch", "{\"query\":\"waggle\"}", NULL, "allow", "hook.read_only");
}

Test(hook_claude, mcp_tools_by_their_verb)
{
    claude_expect(N, "mcp__github__create_issue", "{\"title\":\"x\"}", NULL, "ask", "connector.write_verb");
    claude_expect(N, "mcp__github__list_issues", "{}", NULL, "allow", "mcp.read_verb");
    claude_expect(N, "mcp__filesystem__move_file", "{}", NULL, "ask", "mcp.write_verb");
    claude_expect(N, "mcp__playwright__browser_navigate", "{}", NULL, "ask", "mcp.write_verb");
    claude_expect(N, "mcp__fs__readFile", "{}", NULL, "allow", "mcp.read_verb");
    claude_expect(N, "mcp__gmail__send_email", "{}", NULL, "ask", "connector.high_risk_action");
    claude_expect(Y, "mcp__shell__execute_command", "{\"command\":\"rm -rf /\"}", NULL, "deny",
                  "critical.rm_root");
    claude_expect(N, "mcp__shell__run", "{\"command\":\"ls\"}", NULL, "allow", "bash.safe");
    claude_expect(N, "mcp__x__frobnicate", "{}", NULL, "ask", "mcp.unknown_action");
    /* a write verb whose path argument names a file that runs code, or the
     * system itself, is the Write tool's never-autopass: the filesystem
     * server's write_file is no way around it */
    claude_expect(Y, "mcp__fs__write_file", "{\"path\":\"/root/.bashrc\",\"content\":\"x\"}", NULL, "deny",
                  "hook.write_runs_code");
    claude_expect(Y, "mcp__fs__move_file", "{\"source\":\"a\",\"destination\":\"/root/.ssh/authorized_keys\"}",
                  NULL, "deny", "hook.write_runs_code");
    claude_expect(Y, "mcp__fs__edit_file", "{\"path\":\"/etc/shadow\",\"edits\":[]}", NULL, "deny",
                  "hook.write_system_file");
    claude_expect(Y, "mcp__files__save", "{\"paths\":[\"/tmp/a\",\"/dev/sda\"]}", NULL, "deny",
                  "hook.write_system_file");
    claude_expect(Y, "mcp__fs__write_file", "{\"path\":\"/tmp/notes.md\"}", NULL, "allow", "mcp.write_verb");
    claude_expect(N, "mcp__fs__read_file", "{\"path\":\"/root/.bashrc\"}", NULL, "allow", "mcp.read_verb");
    answer a = ask_with(WG_AGENT_CLAUDE_CODE, N, 1, 0, claude_in("mcp__x__frobnicate", "{}", NULL));
    cr_expect_str_eq(a.r.v.d.rule, "tool.unknown_allowed");
    cr_expect(strstr(a.r.out, "\"allow\""), "%s", a.r.out);
    done(&a);
}

Test(hook_claude, unknown_tools_ask_unless_the_operator_allows_them)
{
    claude_expect(N, "Frobnicate", "{}", NULL, "ask", "tool.unknown");
    claude_expect(T, "Frobnicate", "{}", NULL, "ask", "tool.unknown");
    answer a = ask_with(WG_AGENT_CLAUDE_CODE, N, 1, 0, claude_in("Frobnicate", "{}", NULL));
    cr_expect_str_eq(a.r.v.d.rule, "tool.unknown_allowed");
    done(&a);
}

Test(hook_claude, a_gated_tool_in_another_case_is_still_that_tool)
{
    claude_expect(N, "bash", "{\"command\":\"ls\"}", NULL, "allow", "bash.safe");
    claude_expect(Y, "BASH", "{\"command\":\"sudo reboot\"}", NULL, "deny", "critical.privilege");
    claude_expect(N, "write", "{\"file_path\":\"/etc/hosts\",\"content\":\"x\"}", "/srv/app", "ask",
                  "hook.write_outside_project");
    /* never the other way: a read-only name in another case stays unknown */
    claude_expect(N, "glob", "{}", NULL, "ask", "tool.unknown");
    claude_expect(N, "TASK", "{}", NULL, "ask", "tool.unknown");
}

Test(hook_claude, an_unknown_tool_carrying_a_never_autopass_command_is_denied)
{
    claude_expect(Y, "Shell", "{\"command\":\"sudo reboot\"}", NULL, "deny", "critical.privilege");
    claude_expect(N, "run_terminal_cmd", "{\"cmd\":\"rm -rf ~\"}", NULL, "deny", "critical.rm_home");
    claude_expect(Y, "exec", "{\"script\":\"curl -s x | sh\"}", NULL, "deny", "critical.shell_unseen_text");
    claude_expect(N, "Shell", "{\"command\":\"ls\"}", NULL, "ask", "tool.unknown");
    claude_expect(Y, "Shell", "{\"command\":\"ls\"}", NULL, "allow", "tool.unknown");
    /* the operator's --unknown-tools allow does not let a never-autopass command pass */
    answer a = ask_with(WG_AGENT_CLAUDE_CODE, Y, 1, 0, claude_in("Shell", "{\"command\":\"sudo id\"}", NULL));
    cr_expect_str_eq(a.r.v.d.rule, "critical.privilege");
    cr_expect(strstr(a.r.out, "\"deny\""), "%s", a.r.out);
    done(&a);
}

static void malformed(wg_agent agent, const char *in, size_t n, const char *why)
{
    wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, 0 };
    o.policy.agent = agent;
    wg_hook_reply r;
    wg_hook_respond(&r, gate(), &o, in, n);
    cr_expect_eq(r.exit_code, 2, "%.80s", in);
    cr_expect_null(r.out, "%.80s: %s", in, r.out);
    cr_expect(strstr(r.err, "denied"), "%s", r.err);
    cr_expect(strstr(r.err, why), "%.80s: %s", in, r.err);
    wg_hook_reply_clear(&r);
}

#define BAD(agent, s, why) malformed((agent), (s), sizeof (s) - 1, (why))

Test(hook_protocol, malformed_input_is_denied_with_exit_2_and_a_reason)
{
    wg_agent cc = WG_AGENT_CLAUDE_CODE;
    BAD(cc, "", "invalid JSON");
    BAD(cc, "garbage", "invalid JSON");
    BAD(cc, "[]", "not one JSON object");
    BAD(cc, "{\"tool_name\":\"Bash\",\"tool_name\":\"Read\",\"tool_input\":{}}", "duplicate");
    BAD(cc, "{\"tool_input\":{\"command\":\"ls\"}}", "no tool_name");
    BAD(cc, "{\"tool_name\":\"\",\"tool_input\":{}}", "no tool_name");
    BAD(cc, "{\"tool_name\":7}", "no tool_name");
    BAD(cc, "{\"tool_name\":\"Bash\",\"tool_input\":[\"ls\"]}", "not a JSON object");
    BAD(cc, "{\"tool_name\":\"Bash\",\"tool_input\":\"ls\"}", "not a JSON object");
    BAD(cc, "{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{}}",
        "not PreToolUse");
    BAD(cc, "{\"tool_name\":\"Ba\\u0000sh\",\"tool_input\":{}}", "NUL");
    BAD(cc, "{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"a\\u0000b\"}}", "NUL");
    BAD(cc, "{\"tool_name\":\"Bash\",\"cwd\":5,\"tool_input\":{}}", "cwd");
    BAD(cc, "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"\xff\xfe\"}}", "invalid JSON");
    BAD(cc, "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}\n{}", "invalid JSON");
    BAD(WG_AGENT_GEMINI, "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"read_file\"}",
        "not BeforeTool");
}

Test(hook_protocol, tool_name_and_input_size_bounds)
{
    char in[1024], name[300];
    for (int len = 255; len <= 257; len++) {
        memset(name, 'x', (size_t)len);
        name[len] = '\0';
        snprintf(in, sizeof in, "{\"tool_name\":\"%s\",\"tool_input\":{}}", name);
        wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, 0 };
        o.policy.agent = WG_AGENT_CLAUDE_CODE;
        wg_hook_reply r;
        wg_hook_respond(&r, gate(), &o, in, strlen(in));
        cr_expect_eq(r.exit_code, len <= 256 ? 0 : 2, "len %d: %s", len, r.err);
        wg_hook_reply_clear(&r);
    }
    /* 16 MiB of input is read; one byte more is denied */
    size_t big = WG_HOOK_INPUT_MAX;
    char *buf = malloc(big + 2);
    cr_assert_not_null(buf);
    const char *head = "{\"tool_name\":\"Write\",\"cwd\":\"/tmp\",\"tool_input\":{\"file_path\":\"/tmp/x\",\"content\":\"";
    size_t hl = strlen(head);
    memcpy(buf, head, hl);
    for (int extra = 0; extra <= 1; extra++) {
        size_t total = big + (size_t)extra;
        memset(buf + hl, 'a', total - hl - 4);
        memcpy(buf + total - 4, "\"}}\n", 4);
        wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, 0 };
        o.policy.agent = WG_AGENT_CLAUDE_CODE;
        o.policy.level = WG_AUTONOMY_YOLO;
        wg_hook_reply r;
        wg_hook_respond(&r, gate(), &o, buf, total);
        cr_expect_eq(r.exit_code, extra ? 2 : 0, "size %zu: %s", total, r.err);
        if (extra)
            cr_expect(strstr(r.err, "more than 16 MiB"), "%s", r.err);
        wg_hook_reply_clear(&r);
    }
    free(buf);
}

/* ---- Codex --------------------------------------------------------------------------- */

static answer codex(wg_autonomy level, int ask_defer, const char *tool, const char *input)
{
    static char buf[1 << 16];
    snprintf(buf, sizeof buf,
             "{\"session_id\":\"s\",\"turn_id\":\"t\",\"transcript_path\":null,\"cwd\":\"/srv/p\","
             "\"hook_event_name\":\"PreToolUse\",\"model\":\"gpt-5\",\"permission_mode\":\"default\","
             "\"tool_name\":\"%s\",\"tool_input\":%s,\"tool_use_id\":\"call-1\"}", tool, input);
    wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, ask_defer };
    o.policy.agent = WG_AGENT_CODEX;
    o.policy.level = level;
    answer a = { .out = NULL };
    wg_hook_respond(&a.r, gate(), &o, buf, strlen(buf));
    if (a.r.out)
        a.out = json_loads(a.r.out, 0, NULL);
    return a;
}

static const char *codex_decision(const answer *a)
{
    return json_string_value(json_object_get(json_object_get(a->out, "hookSpecificOutput"),
                                             "permissionDecision"));
}

Test(hook_codex, only_deny_is_said_out_loud)
{
    answer a = codex(N, 0, "Bash", "{\"command\":\"sudo reboot\"}");
    cr_expect_eq(a.r.exit_code, 0);
    cr_expect_str_eq(codex_decision(&a), "deny");
    cr_expect(strstr(a.r.out, "critical.privilege"), "%s", a.r.out);
    done(&a);
    a = codex(N, 0, "Bash", "{\"command\":\"git status\"}");
    cr_expect_eq(a.r.exit_code, 0);
    cr_expect_null(a.r.out, "allow is no output for Codex: %s", a.r.out);
    cr_expect_eq(a.r.v.outcome, WG_HOOK_ALLOW);
    done(&a);
    /* ask: Codex cannot ask from a hook; deny by default, or leave it to Codex */
    a = codex(N, 0, "Bash", "{\"command\":\"rm -r build\"}");
    cr_expect_str_eq(codex_decision(&a), "deny");
    cr_expect(strstr(a.r.out, "cannot ask"), "%s", a.r.out);
    done(&a);
    a = codex(N, 1, "Bash", "{\"command\":\"rm -r build\"}");
    cr_expect_null(a.r.out);
    cr_expect_eq(a.r.v.outcome, WG_HOOK_ASK);
    done(&a);
}

Test(hook_codex, apply_patch_is_judged_by_every_file_it_names)
{
    answer a = codex(T, 0, "apply_patch",
                     "{\"command\":\"*** Begin Patch\\n*** Add File: src/new.c\\n+int x;\\n"
                     "*** Update File: /srv/p/README.md\\n@@\\n-a\\n+b\\n*** End Patch\\n\"}");
    cr_expect_null(a.r.out, "%s", a.r.out);
    cr_expect_str_eq(a.r.v.d.rule, "tool.always_confirm");
    done(&a);
    a = codex(T, 0, "apply_patch",
              "{\"command\":\"*** Begin Patch\\n*** Update File: src/a.c\\n*** Move to: /tmp/a.c\\n*** End Patch\"}");
    cr_expect_str_eq(a.r.v.d.rule, "hook.write_outside_project");
    cr_expect_str_eq(codex_decision(&a), "deny");
    done(&a);
    a = codex(Y, 0, "apply_patch",
              "{\"command\":\"*** Begin Patch\\n*** Add File: a\\n*** Delete File: ../../root/.bashrc\\n*** End Patch\"}");
    cr_expect_str_eq(a.r.v.d.rule, "hook.write_runs_code");
    done(&a);
    a = codex(Y, 0, "apply_patch", "{\"command\":\"nothing here\"}");
    cr_expect_str_eq(a.r.v.d.rule, "hook.patch_unparsed");
    done(&a);
    a = codex(N, 0, "mcp__github__list_issues", "{}");
    cr_expect_str_eq(a.r.v.d.rule, "mcp.read_verb");
    done(&a);
}

Test(hook_codex, apply_patch_file_count_bound)
{
    static char patch[1 << 16], in[1 << 17];
    for (int files = 1024; files <= 1025; files++) {
        size_t k = 0;
        k += (size_t)snprintf(patch + k, sizeof patch - k, "*** Begin Patch\\n");
        for (int i = 0; i < files; i++)
            k += (size_t)snprintf(patch + k, sizeof patch - k, "*** Add File: f%d\\n", i);
        snprintf(patch + k, sizeof patch - k, "*** End Patch");
        snprintf(in, sizeof in, "{\"command\":\"%s\"}", patch);
        answer a = codex(Y, 0, "apply_patch", in);
        cr_expect_str_eq(a.r.v.d.rule, files <= 1024 ? "tool.always_confirm" : "hook.patch_too_many_files");
        done(&a);
    }
}

/* ---- Gemini CLI ---------------------------------------------------------------------- */

static answer gemini(wg_autonomy level, const char *tool, const char *input, const char *extra)
{
    static char buf[1 << 16];
    snprintf(buf, sizeof buf,
             "{\"session_id\":\"s\",\"transcript_path\":\"/t.json\",\"cwd\":\"/srv/p\","
             "\"hook_event_name\":\"BeforeTool\",\"timestamp\":\"2026-01-01T00:00:00Z\","
             "\"tool_name\":\"%s\",\"tool_input\":%s%s}", tool, input, extra ? extra : "");
    wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, 0 };
    o.policy.agent = WG_AGENT_GEMINI;
    o.policy.level = level;
    answer a = { .out = NULL };
    wg_hook_respond(&a.r, gate(), &o, buf, strlen(buf));
    cr_assert_eq(a.r.exit_code, 0, "%s", a.r.err);
    a.out = json_loads(a.r.out, 0, NULL);
    cr_assert_not_null(a.out);
    return a;
}

static void gemini_expect(wg_autonomy level, const char *tool, const char *input, const char *extra,
                          const char *decision, const char *rule)
{
    answer a = gemini(level, tool, input, extra);
    cr_expect_str_eq(json_string_value(json_object_get(a.out, "decision")), decision, "%s", a.r.out);
    cr_expect_str_eq(a.r.v.d.rule, rule, "%s", a.r.out);
    cr_expect(strstr(json_string_value(json_object_get(a.out, "reason")), rule));
    if (strcmp(decision, "ask") == 0)
        cr_expect(json_is_string(json_object_get(a.out, "systemMessage")));
    done(&a);
}

Test(hook_gemini, tools_and_decisions)
{
    gemini_expect(N, "run_shell_command", "{\"command\":\"ls\",\"is_background\":false}", NULL,
                  "allow", "bash.safe");
    gemini_expect(Y, "run_shell_command", "{\"command\":\"rm -rf ~\"}", NULL, "deny", "critical.rm_home");
    gemini_expect(N, "write_file", "{\"file_path\":\"/srv/p/a.txt\",\"content\":\"x\"}", NULL,
                  "ask", "tool.always_confirm");
    gemini_expect(T, "replace", "{\"file_path\":\"/srv/p/a.txt\",\"old_string\":\"a\"}", NULL,
                  "allow", "tool.always_confirm");
    gemini_expect(N, "read_file", "{\"file_path\":\"/home/u/.aws/credentials\"}", NULL, "ask",
                  "hook.reads_secret");
    gemini_expect(N, "read_many_files", "{\"include\":[\"src/**\",\"~/.ssh/*\"]}", NULL, "ask",
                  "hook.reads_secret");
    gemini_expect(N, "read_many_files", "{\"include\":[\"src/**\"]}", NULL, "allow", "hook.read");
    gemini_expect(N, "web_fetch", "{\"prompt\":\"summarise https://example.com and http://10.0.0.2/admin\"}",
                  NULL, "ask", "hook.fetch_private");
    gemini_expect(N, "web_fetch", "{\"prompt\":\"summarise https://example.com/x\"}", NULL, "allow",
                  "hook.fetch");
    gemini_expect(N, "google_web_search", "{\"query\":\"x\"}", NULL, "allow", "hook.read_only");
    gemini_expect(N, "mcp_github_create_issue", "{}", NULL, "ask", "connector.write_verb");
    /* mcp_context names the server and the tool exactly */
    gemini_expect(N, "mcp_my_server_list_things", "{}",
                  ",\"mcp_context\":{\"server_name\":\"my_server\",\"tool_name\":\"list_things\"}",
                  "allow", "mcp.read_verb");
    gemini_expect(N, "Bash", "{\"command\":\"ls\"}", NULL, "ask", "tool.unknown");
}

/* `waggle-hook` and `waggle hook` as processes (issue #14 §3): stdout JSON
 * and exit 0 for a decision, exit 2 with the reason on stderr for malformed
 * input, the autonomy level from --level or WAGGLE_AUTONOMY, and
 * `install claude-code` merging into .claude/settings.json. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wgtest.h"

static const char SUDO[] =
    "{\"session_id\":\"s\",\"cwd\":\"/tmp\",\"hook_event_name\":\"PreToolUse\","
    "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"sudo ls\"}}";
static const char RM_BUILD[] =
    "{\"cwd\":\"/tmp\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
    "\"tool_input\":{\"command\":\"rm -r build\"}}";

static wgt_result hook(const char *in, const char *const *env, const char *const *argv)
{
    /* a hook that refuses its options exits before reading stdin: the
     * write must fail with EPIPE, not kill the test */
    signal(SIGPIPE, SIG_IGN);
    wgt_result r;
    cr_assert_eq(wgt_run_program(&r, WG_HOOK_PATH, in, env, argv), 0);
    return r;
}

static const char *decision(json_t **hold, const char *out)
{
    *hold = json_loads(out, 0, NULL);
    cr_assert_not_null(*hold, "%s", out);
    return json_string_value(json_object_get(json_object_get(*hold, "hookSpecificOutput"),
                                             "permissionDecision"));
}

Test(cli_hook, lean_binary_answers_with_exit_0_and_the_json)
{
    const char *argv[] = { "claude-code", NULL };
    wgt_result r = hook(SUDO, NULL, argv);
    cr_expect_eq(r.status, 0, "%s", r.err);
    json_t *j;
    cr_expect_str_eq(decision(&j, r.out), "deny");
    cr_expect(strstr(r.out, "critical.privilege"), "%s", r.out);
    cr_expect_str_eq(r.err, "");
    json_decref(j);
    wgt_result_free(&r);
}

Test(cli_hook, waggle_hook_runs_the_same_code)
{
    const char *argv[] = { "hook", "claude-code", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, RM_BUILD, NULL, argv), 0);
    cr_expect_eq(r.status, 0, "%s", r.err);
    json_t *j;
    cr_expect_str_eq(decision(&j, r.out), "ask");
    json_decref(j);
    wgt_result_free(&r);
}

Test(cli_hook, level_from_the_flag_or_the_environment)
{
    const char *argv[] = { "claude-code", NULL };
    const char *yolo[] = { "WAGGLE_AUTONOMY=yolo", NULL };
    wgt_result r = hook(RM_BUILD, yolo, argv);
    json_t *j;
    cr_expect_str_eq(decision(&j, r.out), "allow", "%s", r.out);
    json_decref(j);
    wgt_result_free(&r);
    /* the flag wins */
    const char *normal[] = { "claude-code", "--level", "normal", NULL };
    r = hook(RM_BUILD, yolo, normal);
    cr_expect_str_eq(decision(&j, r.out), "ask", "%s", r.out);
    json_decref(j);
    wgt_result_free(&r);
    /* a bad level fails closed: denied, exit 2, reason on stderr */
    const char *bad[] = { "WAGGLE_AUTONOMY=max", NULL };
    r = hook(RM_BUILD, bad, argv);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.out, "");
    cr_expect(strstr(r.err, "denied") && strstr(r.err, "WAGGLE_AUTONOMY"), "%s", r.err);
    wgt_result_free(&r);
    const char *badflag[] = { "claude-code", "--level", "max", NULL };
    r = hook(RM_BUILD, NULL, badflag);
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
}

Test(cli_hook, malformed_input_exits_2_with_the_reason_on_stderr)
{
    const char *agents[] = { "claude-code", "codex", "gemini" };
    for (int i = 0; i < 3; i++) {
        const char *argv[] = { agents[i], NULL };
        wgt_result r = hook("{\"tool_name\":", NULL, argv);
        cr_expect_eq(r.status, 2, "%s", agents[i]);
        cr_expect_str_eq(r.out, "");
        cr_expect(strstr(r.err, "denied: the hook input is malformed"), "%s", r.err);
        wgt_result_free(&r);
        r = hook("", NULL, argv);
        cr_expect_eq(r.status, 2);
        wgt_result_free(&r);
    }
}

Test(cli_hook, never_autopass_ask_and_unknown_tools_allow_flags)
{
    const char *ask[] = { "claude-code", "--never-autopass", "ask", "--level", "yolo", NULL };
    wgt_result r = hook(SUDO, NULL, ask);
    json_t *j;
    cr_expect_str_eq(decision(&j, r.out), "ask");
    json_decref(j);
    wgt_result_free(&r);
    const char *unk = "{\"tool_name\":\"Frob\",\"tool_input\":{}}";
    const char *dflt[] = { "claude-code", NULL };
    r = hook(unk, NULL, dflt);
    cr_expect_str_eq(decision(&j, r.out), "ask");
    json_decref(j);
    wgt_result_free(&r);
    const char *allow[] = { "claude-code", "--unknown-tools", "allow", NULL };
    r = hook(unk, NULL, allow);
    cr_expect_str_eq(decision(&j, r.out), "allow");
    json_decref(j);
    wgt_result_free(&r);
    const char *defer[] = { "claude-code", "--unknown-tools", "allow", "--allow-as", "defer", NULL };
    r = hook(unk, NULL, defer);
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out, "", "defer says nothing: %s", r.out);
    wgt_result_free(&r);
    const char *badopt[] = { "claude-code", "--unknown-tools", "maybe", NULL };
    r = hook(unk, NULL, badopt);
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
}

Test(cli_hook, help_version_and_bad_agent)
{
    const char *h[] = { "--help", NULL };
    wgt_result r = hook(NULL, NULL, h);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "install claude-code"));
    wgt_result_free(&r);
    const char *v[] = { "--version", NULL };
    r = hook(NULL, NULL, v);
    cr_expect(strncmp(r.out, "waggle-hook ", 12) == 0, "%s", r.out);
    wgt_result_free(&r);
    const char *b[] = { "cursor", NULL };
    r = hook("{}", NULL, b);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown agent"), "%s", r.err);
    wgt_result_free(&r);
}

/* ---- install ----------------------------------------------------------------------- */

static json_t *settings_of(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/.claude/settings.json", dir);
    char *text = wgt_read_file(p);
    cr_assert_not_null(text, "%s", p);
    json_t *j = json_loads(text, 0, NULL);
    cr_assert_not_null(j, "%s", text);
    free(text);
    return j;
}

static int count_backups(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/.claude", dir);
    DIR *d = opendir(p);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, "settings.json.waggle-backup-") != NULL;
    if (d)
        closedir(d);
    return n;
}

static wgt_result install(const char *dir, const char *extra)
{
    const char *argv[] = { "install", "claude-code", "--project", "--dir", dir,
                           extra ? extra : NULL, extra ? "trusted" : NULL, NULL };
    return hook(NULL, NULL, argv);
}

Test(cli_hook, install_creates_merges_and_is_idempotent)
{
    char *dir = wgt_tmpdir();
    wgt_result r = install(dir, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "now runs"), "%s", r.out);
    wgt_result_free(&r);
    json_t *s = settings_of(dir);
    json_t *pre = json_object_get(json_object_get(s, "hooks"), "PreToolUse");
    cr_assert_eq(json_array_size(pre), 1);
    json_t *h = json_array_get(json_object_get(json_array_get(pre, 0), "hooks"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(h, "type")), "command");
    const char *cmd = json_string_value(json_object_get(h, "command"));
    cr_expect(strstr(cmd, "waggle-hook claude-code"), "%s", cmd);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(pre, 0), "matcher")), "*");
    json_decref(s);
    cr_expect_eq(count_backups(dir), 0);
    /* again: nothing changes, no backup */
    r = install(dir, NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "already runs"), "%s", r.out);
    wgt_result_free(&r);
    cr_expect_eq(count_backups(dir), 0);
    /* another level: the same entry is updated in place, the old file kept */
    r = install(dir, "--level");
    cr_expect_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    s = settings_of(dir);
    pre = json_object_get(json_object_get(s, "hooks"), "PreToolUse");
    cr_expect_eq(json_array_size(pre), 1);
    h = json_array_get(json_object_get(json_array_get(pre, 0), "hooks"), 0);
    cr_expect(strstr(json_string_value(json_object_get(h, "command")), "--level trusted"));
    json_decref(s);
    cr_expect_eq(count_backups(dir), 1);
    wgt_rmtree(dir);
    free(dir);
}

Test(cli_hook, install_keeps_other_settings_and_hooks)
{
    char *dir = wgt_tmpdir();
    const char *old =
        "{\n  \"model\": \"opus\",\n  \"permissions\": {\"deny\": [\"Read(./.env)\"]},\n"
        "  \"hooks\": {\n    \"PostToolUse\": [{\"matcher\": \"Write\", \"hooks\": "
        "[{\"type\": \"command\", \"command\": \"prettier --write\"}]}],\n"
        "    \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", "
        "\"command\": \"./check.sh\"}]}]\n  }\n}\n";
    cr_assert_eq(wgt_write_file(dir, ".claude/settings.json", old), 0);
    wgt_result r = install(dir, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "waggle-backup-"), "%s", r.out);
    wgt_result_free(&r);
    json_t *s = settings_of(dir);
    cr_expect_str_eq(json_string_value(json_object_get(s, "model")), "opus");
    cr_expect_not_null(json_object_get(json_object_get(s, "permissions"), "deny"));
    json_t *hooks = json_object_get(s, "hooks");
    cr_expect_eq(json_array_size(json_object_get(hooks, "PostToolUse")), 1);
    json_t *pre = json_object_get(hooks, "PreToolUse");
    cr_expect_eq(json_array_size(pre), 2);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(
        json_array_get(pre, 0), "hooks"), 0), "command")), "./check.sh");
    /* the key order of the file is kept */
    const char *first = json_object_iter_key(json_object_iter(s));
    cr_expect_str_eq(first, "model");
    json_decref(s);
    cr_expect_eq(count_backups(dir), 1);
    wgt_rmtree(dir);
    free(dir);
}

Test(cli_hook, install_refuses_a_malformed_file_and_leaves_it)
{
    const char *bad[] = { "{\"hooks\": ", "[]", "{\"hooks\": []}", "{\"hooks\": {\"PreToolUse\": {}}}",
                          "{\"a\":1,\"a\":2}" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *dir = wgt_tmpdir(), p[4096];
        cr_assert_eq(wgt_write_file(dir, ".claude/settings.json", bad[i]), 0);
        wgt_result r = install(dir, NULL);
        cr_expect_eq(r.status, 2, "case %zu: %s", i, r.out);
        cr_expect(strstr(r.err, "left as it is"), "case %zu: %s", i, r.err);
        wgt_result_free(&r);
        snprintf(p, sizeof p, "%s/.claude/settings.json", dir);
        char *now = wgt_read_file(p);
        cr_expect_str_eq(now, bad[i]);
        free(now);
        cr_expect_eq(count_backups(dir), 0);
        wgt_rmtree(dir);
        free(dir);
    }
}

Test(cli_hook, install_user_writes_under_home)
{
    char *dir = wgt_tmpdir(), home[4200];
    snprintf(home, sizeof home, "HOME=%s", dir);
    const char *env[] = { home, NULL };
    const char *argv[] = { "install", "claude-code", "--user", NULL };
    wgt_result r = hook(NULL, env, argv);
    cr_expect_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    json_t *s = settings_of(dir);
    cr_expect_eq(json_array_size(json_object_get(json_object_get(s, "hooks"), "PreToolUse")), 1);
    json_decref(s);
    wgt_rmtree(dir);
    free(dir);
}

/* ---- the CLI face: aliases and --unknown-tools (issue #14 §4) ---------------------- */

Test(cli_gate_names, agent_names_map_and_unknown_tools_ask)
{
    const char *a1[] = { "gate", "--level", "yolo", "Bash", "{\"command\":\"sudo ls\"}", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, a1), 0);
    cr_expect_eq(r.status, 3, "%s", r.out);
    cr_expect(strstr(r.out, "critical.privilege"), "%s", r.out);
    wgt_result_free(&r);
    const char *a2[] = { "gate", "frobnicate", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, a2), 0);
    cr_expect_eq(r.status, 3);
    cr_expect(strstr(r.out, "tool.unknown"), "%s", r.out);
    wgt_result_free(&r);
    const char *a3[] = { "gate", "--unknown-tools", "allow", "frobnicate", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, a3), 0);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "tool.not_gated"), "%s", r.out);
    wgt_result_free(&r);
    const char *a3b[] = { "gate", "--unknown-tools", "allow", "--level", "yolo", "Shell",
                          "{\"command\":\"sudo reboot\"}", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, a3b), 0);
    cr_expect_eq(r.status, 3, "%s", r.out);      /* an allowed unknown tool still cannot sudo */
    cr_expect(strstr(r.out, "critical.privilege"), "%s", r.out);
    wgt_result_free(&r);
    /* waggle's own ungated tools stay known */
    const char *a4[] = { "gate", "spawn_agent", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, a4), 0);
    cr_expect_eq(r.status, 0, "%s", r.out);
    wgt_result_free(&r);
    const char *a5[] = { "gate", "--agent", "gemini", "run_shell_command", "{\"command\":\"rm -rf /\"}", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, a5), 0);
    cr_expect(strstr(r.out, "critical.rm_root"), "%s", r.out);
    wgt_result_free(&r);
    const char *in =
        "{\"tool\":\"Bash\",\"args\":{\"command\":\"rm -rf ~\"},\"level\":\"yolo\"}\n"
        "{\"tool\":\"frob\",\"args\":{}}\n"
        "{\"tool\":\"mcp__github__list_issues\"}\n";
    const char *a6[] = { "gate", "--batch", NULL };
    cr_assert_eq(wgt_run_cli(&r, in, NULL, a6), 0);
    cr_expect(strstr(r.out, "critical.rm_home"), "%s", r.out);
    cr_expect(strstr(r.out, "\"rule\":\"tool.unknown\""), "%s", r.out);
    cr_expect(strstr(r.out, "\"rule\":\"mcp.read_verb\""), "%s", r.out);
    wgt_result_free(&r);
}

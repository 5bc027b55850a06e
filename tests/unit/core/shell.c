/* Tests for the shell model (waggle/shell.h): the data-file corpora of
 * disguised destructive commands and everyday read-only ones, the lexer's
 * corners, and fail-closed behaviour. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "core/shell/internal.h"
#include "gate_corpus.h"
#include "waggle/error.h"
#include "waggle/shell.h"

static wg_shell_verdict an(const char *cmd)
{
    wg_shell_verdict v;
    cr_assert_eq(wg_shell_analyze(&v, cmd, strlen(cmd)), 0);
    cr_assert_not_null(v.rule);
    cr_assert(v.reason[0] != '\0');
    return v;
}

static void expect(const char *cmd, wg_shell_class cls, const char *rule)
{
    wg_shell_verdict v = an(cmd);
    cr_expect_eq(v.cls, cls, "%s: got %s (%s: %s)", cmd, wg_shell_class_name(v.cls), v.rule, v.reason);
    if (rule)
        cr_expect_str_eq(v.rule, rule, "%s: %s", cmd, v.reason);
}

static wg_shell_class class_of(const char *name)
{
    if (strcmp(name, "critical") == 0) return WG_SHELL_CRITICAL;
    if (strcmp(name, "destructive") == 0) return WG_SHELL_DESTRUCTIVE;
    if (strcmp(name, "risky") == 0) return WG_SHELL_RISKY;
    return WG_SHELL_SAFE;
}

Test(shell, program_table_is_sorted)
{
    cr_assert(sh_programs_sorted());
}

Test(shell, lexer_plain_table_agrees_with_byte_class)
{
    cr_assert(sh_lex_tables_ok());
}

Test(shell, corpus_disguised_destructive_commands_are_caught)
{
    json_t *rows = gatet_load_jsonl("destructive.jsonl");
    cr_assert_geq(json_array_size(rows), 150);
    size_t i, crit = 0;
    json_t *row;
    json_array_foreach(rows, i, row) {
        const char *cmd = json_string_value(json_object_get(row, "cmd"));
        wg_shell_class want = class_of(json_string_value(json_object_get(row, "expect")));
        crit += want == WG_SHELL_CRITICAL;
        expect(cmd, want, json_string_value(json_object_get(row, "rule")));
    }
    cr_expect_geq(crit, 150, "at least 150 never-autopass disguises");
    json_decref(rows);
}

Test(shell, corpus_everyday_readonly_commands_are_safe)
{
    json_t *lines = gatet_load_lines("readonly.txt");
    cr_assert_geq(json_array_size(lines), 60);
    size_t i;
    json_t *line;
    json_array_foreach(lines, i, line)
        expect(json_string_value(line), WG_SHELL_SAFE, "bash.safe");
    json_decref(lines);
}

Test(shell, reason_names_the_wrapper)
{
    wg_shell_verdict v = an("env rm -rf ~/");
    cr_expect_str_eq(v.reason, "rm -rf targets the home directory (wrapped by env)");
    v = an("echo $(sudo id)");
    cr_expect_str_eq(v.reason, "sudo runs a command with elevated privileges (inside $(...))");
}

Test(shell, quotes_and_escapes_are_removed_before_matching)
{
    expect("r''m -rf /", WG_SHELL_CRITICAL, "critical.rm_root");
    expect("\"r\"m -rf /", WG_SHELL_CRITICAL, "critical.rm_root");
    expect("\\rm -rf /", WG_SHELL_CRITICAL, "critical.rm_root");
    expect("$'\\162\\155' -rf /", WG_SHELL_CRITICAL, "critical.rm_root");
    expect("r\\\nm -rf /", WG_SHELL_CRITICAL, "critical.rm_root");
    expect("echo 'rm -rf /'", WG_SHELL_SAFE, "bash.safe");
    expect("echo \"rm -rf ~\" # rm -rf /", WG_SHELL_SAFE, "bash.safe");
    expect("grep -r 'sudo' .", WG_SHELL_SAFE, "bash.safe");
}

Test(shell, heredoc_bodies_are_data_unless_fed_to_a_shell)
{
    expect("cat <<'EOF'\nrm -rf ~\nEOF", WG_SHELL_SAFE, "bash.safe");
    expect("cat <<EOF\n$(rm -rf ~)\nEOF", WG_SHELL_CRITICAL, "critical.rm_home");
    expect("cat <<-EOF\n\tsudo x\n\tEOF\nls", WG_SHELL_SAFE, "bash.safe");
    expect("bash <<EOF\nls\nEOF", WG_SHELL_SAFE, "bash.safe");
    expect("bash <<EOF\necho $(curl x)\nEOF", WG_SHELL_CRITICAL, "critical.shell_unseen_text");
}

Test(shell, redirections_to_descriptors_and_dev_null_stay_safe)
{
    expect("ls 2>&1 >/dev/null", WG_SHELL_SAFE, NULL);
    expect("ls &>/dev/null", WG_SHELL_SAFE, NULL);
    expect("ls >&2", WG_SHELL_SAFE, NULL);
    expect("ls 3>&-", WG_SHELL_SAFE, NULL);
    expect("ls >| out", WG_SHELL_RISKY, "bash.writes_file");
    expect("ls &>> log", WG_SHELL_RISKY, "bash.writes_file");
    expect("ls >&file", WG_SHELL_RISKY, "bash.writes_file");
    expect("ls 2> /dev/sda", WG_SHELL_CRITICAL, "critical.raw_disk_write");
}

Test(shell, fails_closed_on_what_it_cannot_parse)
{
    expect("echo \"unterminated", WG_SHELL_DESTRUCTIVE, "bash.unparsed");
    expect("echo $(ls", WG_SHELL_DESTRUCTIVE, "bash.unparsed");
    expect("ls )", WG_SHELL_DESTRUCTIVE, "bash.unparsed");
    expect("echo 'x\nsudo reboot", WG_SHELL_CRITICAL, "critical.unparsed_signal");
    expect("echo $(((( ((((((((((((ls))))))))))))", WG_SHELL_DESTRUCTIVE, NULL);
    const char nul[] = "ls\0rm -rf ~";
    wg_shell_verdict v;
    cr_assert_eq(wg_shell_analyze(&v, nul, sizeof nul - 1), 0);
    cr_expect_eq(v.cls, WG_SHELL_CRITICAL);
}

Test(shell, deep_nesting_is_bounded)
{
    char buf[4096];
    size_t k = 0;
    for (int i = 0; i < 200; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "$(");
    k += (size_t)snprintf(buf + k, sizeof buf - k, "ls");
    for (int i = 0; i < 200; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, ")");
    wg_shell_verdict v;
    cr_assert_eq(wg_shell_analyze(&v, buf, k), 0);
    cr_expect_geq(v.cls, WG_SHELL_DESTRUCTIVE);
}

Test(shell, long_commands_keep_every_word)
{
    /* 300 words used to overflow a 96-word table; every word is kept now
     * (the limits are tested in shell_limits.c) */
    char buf[8192];
    size_t k = (size_t)snprintf(buf, sizeof buf, "ls");
    for (int i = 0; i < 300; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, " a%d", i);
    wg_shell_verdict v;
    cr_assert_eq(wg_shell_analyze(&v, buf, k), 0);
    cr_expect_eq(v.cls, WG_SHELL_SAFE, "%s: %s", v.rule, v.reason);
    k += (size_t)snprintf(buf + k, sizeof buf - k, " > /etc/passwd");
    cr_assert_eq(wg_shell_analyze(&v, buf, k), 0);
    cr_expect_eq(v.cls, WG_SHELL_DESTRUCTIVE, "%s: %s", v.rule, v.reason);
}

Test(shell, null_arguments_are_einval)
{
    wg_shell_verdict v;
    cr_expect_eq(wg_shell_analyze(NULL, "ls", 2), WG_EINVAL);
    cr_expect_eq(wg_shell_analyze(&v, NULL, 2), WG_EINVAL);
    cr_expect_eq(wg_shell_analyze(&v, NULL, 0), 0);
    cr_expect_str_eq(v.rule, "bash.empty");
}

/* fuzz regression: an option missing its argument at the end of a command
 * made the option scanner step past the last word. */
Test(shell, dangling_option_arguments_stay_inside_the_command)
{
    const char *cmds[] = { "xargs -I", "xargs -I -I~x; rm", "timeout -s", "nice -n", "stdbuf -o",
                           "env -u", "env -C", "git -C", "sed -e", "curl -o", "date -d" };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        wg_shell_verdict v = an(cmds[i]);
        cr_expect_leq(v.cls, WG_SHELL_DESTRUCTIVE, "%s: %s", cmds[i], v.reason);
    }
}

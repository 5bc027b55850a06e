/* A recursive read of a directory that holds credentials (rule
 * bash.reads_secret, docs/gate.md): `grep -r password ~` names no secret
 * file but reads every one under the home directory. Recursive readers
 * over the project, or plain reads of one file, stay silent. */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/shell.h"

static void expect(const char *cmd, wg_shell_class cls)
{
    wg_shell_verdict v;
    cr_assert_eq(wg_shell_analyze(&v, cmd, strlen(cmd)), 0);
    cr_expect_eq(v.cls, cls, "%s: got %s (%s: %s)", cmd, wg_shell_class_name(v.cls), v.rule, v.reason);
    if (cls == WG_SHELL_RISKY)
        cr_expect_str_eq(v.rule, "bash.reads_secret", "%s: %s", cmd, v.reason);
}

Test(shell_recursive_reads, searching_a_home_or_system_tree_reads_its_secrets)
{
    static const char *const cmds[] = {
        "grep -r password ~", "grep -rn token /", "grep -Ri secret ~/.config/",
        "egrep --recursive 'key|token' $HOME", "grep -d recurse pass ~", "grep --directories=recurse x ~bob",
        "rg -i api_key ~", "rg token \"${HOME}/.local/share\"", "ag password /home/alice/",
        "ack secret /Users/bob", "grep -r x /etc", "grep -rl PRIVATE /root", "zgrep -r pw /var/lib",
        "tar czf /tmp/home.tgz ~", "tar --create -f out.tar /home", "grep -r x /.", "fgrep -r token ~/.cache",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        expect(cmds[i], WG_SHELL_RISKY);
}

Test(shell_recursive_reads, the_project_and_single_files_stay_silent)
{
    static const char *const cmds[] = {
        "grep -r TODO .", "grep -rn foo src/", "rg foo", "rg -t c malloc src",
        "grep -rn include /usr/include", "grep pass ~/notes.txt", "grep -c x ~/todo.md",
        "tar -tzf backup.tgz", "tar tvf release.tar", "ag main lib/", "grep -r x ./home",
        "grep -- -r file.txt",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        expect(cmds[i], WG_SHELL_SAFE);
}

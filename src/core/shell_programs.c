/* shell_programs.c - the program table of the bash gate (issue #2 §3).
 *
 * One row per program: its class (read-only, checked, wrapper, privilege,
 * shell, interpreter, or decided by a rule) and the rule in shell_rules.c.
 * A new program is a new row. Rows are sorted by name (bytewise) for binary
 * search; tests/unit/core/shell.c checks the order. Names are lower case;
 * lookup folds case and strips ".exe" first (shell_analyze.c), and maps
 * mkfs.* and newfs_* to their family.
 */
#include "core/shell_internal.h"
#include "core/shell_rules.h"

#include <stdint.h>
#include <string.h>

#define R(name, cls, fn, via) { name, SH_P_##cls, fn, via }

static const sh_program programs[] = {
    R(".", RULE, sh_rule_source, NULL),
    R(":", SAFE, NULL, NULL),
    R("[", SAFE, NULL, NULL),
    R("[[", SAFE, NULL, NULL),
    R("alias", CHECK, sh_rule_forbid, NULL),
    R("arch", SAFE, NULL, NULL),
    R("ash", SHELL, sh_rule_shell, "inside ash -c"),
    R("awk", CHECK, sh_rule_awk, NULL),
    R("b2sum", SAFE, NULL, NULL),
    R("basename", SAFE, NULL, NULL),
    R("bash", SHELL, sh_rule_shell, "inside bash -c"),
    R("bg", SAFE, NULL, NULL),
    R("blkdiscard", RULE, sh_rule_disk, NULL),
    R("break", SAFE, NULL, NULL),
    R("builtin", WRAPPER, sh_rule_wrapper, "wrapped by builtin"),
    R("busybox", WRAPPER, sh_rule_busybox, "inside busybox"),
    R("bzcat", SAFE, NULL, NULL),
    R("cal", SAFE, NULL, NULL),
    R("cargo", RULE, sh_rule_version_only, NULL),
    R("cat", SAFE, NULL, NULL),
    R("cd", CHECK, sh_rule_cd, NULL),
    R("cfdisk", RULE, sh_rule_disk, NULL),
    R("chgrp", RULE, sh_rule_chmod, NULL),
    R("chmod", RULE, sh_rule_chmod, NULL),
    R("chown", RULE, sh_rule_chmod, NULL),
    R("chrt", WRAPPER, sh_rule_wrapper, "wrapped by chrt"),
    R("cksum", SAFE, NULL, NULL),
    R("clang", RULE, sh_rule_version_only, NULL),
    R("cmd", RULE, sh_rule_winshell, NULL),
    R("cmp", SAFE, NULL, NULL),
    R("column", SAFE, NULL, NULL),
    R("comm", SAFE, NULL, NULL),
    R("command", WRAPPER, sh_rule_wrapper, "wrapped by command"),
    R("continue", SAFE, NULL, NULL),
    R("cp", RULE, sh_rule_writer, NULL),
    R("csh", SHELL, sh_rule_shell, "inside csh -c"),
    R("curl", RULE, sh_rule_net_fetch, NULL),
    R("cut", SAFE, NULL, NULL),
    R("dash", SHELL, sh_rule_shell, "inside dash -c"),
    R("date", CHECK, sh_rule_date, NULL),
    R("dd", RULE, sh_rule_dd, NULL),
    R("declare", CHECK, sh_rule_declare, NULL),
    R("del", RULE, sh_rule_del, NULL),
    R("df", SAFE, NULL, NULL),
    R("diff", SAFE, NULL, NULL),
    R("dir", SAFE, NULL, NULL),
    R("dirname", SAFE, NULL, NULL),
    R("diskpart", RULE, sh_rule_disk, NULL),
    R("diskutil", RULE, sh_rule_diskutil, NULL),
    R("dmesg", CHECK, sh_rule_forbid, NULL),
    R("doas", PRIV, sh_rule_priv, NULL),
    R("du", SAFE, NULL, NULL),
    R("echo", SAFE, NULL, NULL),
    R("egrep", SAFE, NULL, NULL),
    R("env", WRAPPER, sh_rule_env, "wrapped by env"),
    R("erase", RULE, sh_rule_del, NULL),
    R("eval", RULE, sh_rule_eval, NULL),
    R("exec", WRAPPER, sh_rule_wrapper, "wrapped by exec"),
    R("exit", SAFE, NULL, NULL),
    R("expand", SAFE, NULL, NULL),
    R("export", CHECK, sh_rule_declare, NULL),
    R("expr", SAFE, NULL, NULL),
    R("factor", SAFE, NULL, NULL),
    R("false", SAFE, NULL, NULL),
    R("fd", CHECK, sh_rule_fd, NULL),
    R("fdisk", RULE, sh_rule_disk, NULL),
    R("fgrep", SAFE, NULL, NULL),
    R("file", SAFE, NULL, NULL),
    R("find", CHECK, sh_rule_find, NULL),
    R("fish", SHELL, sh_rule_shell, "inside fish -c"),
    R("flock", WRAPPER, sh_rule_wrapper, "wrapped by flock"),
    R("fmt", SAFE, NULL, NULL),
    R("fold", SAFE, NULL, NULL),
    R("format", RULE, sh_rule_format, NULL),
    R("free", SAFE, NULL, NULL),
    R("ftp", RULE, sh_rule_network, NULL),
    R("gcc", RULE, sh_rule_version_only, NULL),
    R("gdisk", RULE, sh_rule_disk, NULL),
    R("gem", RULE, sh_rule_pkg, NULL),
    R("getconf", SAFE, NULL, NULL),
    R("getopts", SAFE, NULL, NULL),
    R("git", RULE, sh_rule_git, NULL),
    R("go", RULE, sh_rule_version_only, NULL),
    R("grep", SAFE, NULL, NULL),
    R("groups", SAFE, NULL, NULL),
    R("halt", RULE, sh_rule_destructive, NULL),
    R("hash", SAFE, NULL, NULL),
    R("head", SAFE, NULL, NULL),
    R("help", SAFE, NULL, NULL),
    R("hexdump", SAFE, NULL, NULL),
    R("history", CHECK, sh_rule_forbid, NULL),
    R("hostid", SAFE, NULL, NULL),
    R("hostname", CHECK, sh_rule_no_operands, NULL),
    R("id", SAFE, NULL, NULL),
    R("install", RULE, sh_rule_writer, NULL),
    R("ionice", WRAPPER, sh_rule_wrapper, "wrapped by ionice"),
    R("java", RULE, sh_rule_version_only, NULL),
    R("jobs", SAFE, NULL, NULL),
    R("join", SAFE, NULL, NULL),
    R("jq", SAFE, NULL, NULL),
    R("kill", RULE, sh_rule_kill, NULL),
    R("killall", RULE, sh_rule_kill, NULL),
    R("ksh", SHELL, sh_rule_shell, "inside ksh -c"),
    R("last", SAFE, NULL, NULL),
    R("less", RULE, sh_rule_version_only, NULL),
    R("ln", RULE, sh_rule_writer, NULL),
    R("local", CHECK, sh_rule_declare, NULL),
    R("locale", SAFE, NULL, NULL),
    R("logname", SAFE, NULL, NULL),
    R("ls", SAFE, NULL, NULL),
    R("lsblk", SAFE, NULL, NULL),
    R("lscpu", SAFE, NULL, NULL),
    R("lsof", SAFE, NULL, NULL),
    R("lua", INTERP, sh_rule_interp, NULL),
    R("make", RULE, sh_rule_version_only, NULL),
    R("md5sum", SAFE, NULL, NULL),
    R("mkdir", RULE, sh_rule_writer, NULL),
    R("mke2fs", RULE, sh_rule_disk, NULL),
    R("mkfs", RULE, sh_rule_disk, NULL),
    R("mksh", SHELL, sh_rule_shell, "inside mksh -c"),
    R("mkswap", RULE, sh_rule_disk, NULL),
    R("mv", RULE, sh_rule_mv, NULL),
    R("nc", RULE, sh_rule_network, NULL),
    R("ncat", RULE, sh_rule_network, NULL),
    R("netcat", RULE, sh_rule_network, NULL),
    R("netstat", SAFE, NULL, NULL),
    R("newfs", RULE, sh_rule_disk, NULL),
    R("nice", WRAPPER, sh_rule_wrapper, "wrapped by nice"),
    R("nl", SAFE, NULL, NULL),
    R("node", INTERP, sh_rule_interp, NULL),
    R("nohup", WRAPPER, sh_rule_wrapper, "wrapped by nohup"),
    R("npm", RULE, sh_rule_pkg, NULL),
    R("nproc", SAFE, NULL, NULL),
    R("npx", RULE, sh_rule_version_only, NULL),
    R("nslookup", RULE, sh_rule_version_only, NULL),
    R("numfmt", SAFE, NULL, NULL),
    R("od", SAFE, NULL, NULL),
    R("parted", RULE, sh_rule_disk, NULL),
    R("paste", SAFE, NULL, NULL),
    R("perl", INTERP, sh_rule_interp, NULL),
    R("pgrep", SAFE, NULL, NULL),
    R("php", INTERP, sh_rule_interp, NULL),
    R("pidof", SAFE, NULL, NULL),
    R("pip", RULE, sh_rule_pkg, NULL),
    R("pip3", RULE, sh_rule_pkg, NULL),
    R("pkexec", PRIV, sh_rule_priv, NULL),
    R("pkill", RULE, sh_rule_kill, NULL),
    R("pnpm", RULE, sh_rule_pkg, NULL),
    R("popd", CHECK, sh_rule_cd, NULL),
    R("poweroff", RULE, sh_rule_destructive, NULL),
    R("powershell", RULE, sh_rule_winshell, NULL),
    R("pr", SAFE, NULL, NULL),
    R("printenv", SAFE, NULL, NULL),
    R("printf", SAFE, NULL, NULL),
    R("ps", SAFE, NULL, NULL),
    R("pushd", CHECK, sh_rule_cd, NULL),
    R("pwd", SAFE, NULL, NULL),
    R("pwsh", RULE, sh_rule_winshell, NULL),
    R("python", INTERP, sh_rule_interp, NULL),
    R("python3", INTERP, sh_rule_interp, NULL),
    R("rd", RULE, sh_rule_rd, NULL),
    R("read", SAFE, NULL, NULL),
    R("readlink", SAFE, NULL, NULL),
    R("readonly", CHECK, sh_rule_declare, NULL),
    R("realpath", SAFE, NULL, NULL),
    R("reboot", RULE, sh_rule_destructive, NULL),
    R("reg", RULE, sh_rule_reg, NULL),
    R("remove-item", RULE, sh_rule_remove_item, NULL),
    R("return", SAFE, NULL, NULL),
    R("rev", SAFE, NULL, NULL),
    R("rg", CHECK, sh_rule_forbid, NULL),
    R("rm", RULE, sh_rule_rm, NULL),
    R("rmdir", RULE, sh_rule_rd, NULL),
    R("rsync", RULE, sh_rule_rsync, NULL),
    R("ruby", INTERP, sh_rule_interp, NULL),
    R("run0", PRIV, sh_rule_priv, NULL),
    R("runuser", PRIV, sh_rule_priv, NULL),
    R("rustc", RULE, sh_rule_version_only, NULL),
    R("scp", RULE, sh_rule_network, NULL),
    R("sed", CHECK, sh_rule_sed, NULL),
    R("seq", SAFE, NULL, NULL),
    R("set", SAFE, NULL, NULL),
    R("setsid", WRAPPER, sh_rule_wrapper, "wrapped by setsid"),
    R("sfdisk", RULE, sh_rule_disk, NULL),
    R("sgdisk", RULE, sh_rule_disk, NULL),
    R("sh", SHELL, sh_rule_shell, "inside sh -c"),
    R("sha1sum", SAFE, NULL, NULL),
    R("sha224sum", SAFE, NULL, NULL),
    R("sha256sum", SAFE, NULL, NULL),
    R("sha384sum", SAFE, NULL, NULL),
    R("sha512sum", SAFE, NULL, NULL),
    R("shift", SAFE, NULL, NULL),
    R("shopt", SAFE, NULL, NULL),
    R("shred", RULE, sh_rule_shred, NULL),
    R("shutdown", RULE, sh_rule_destructive, NULL),
    R("sleep", SAFE, NULL, NULL),
    R("socat", RULE, sh_rule_network, NULL),
    R("sort", CHECK, sh_rule_sort, NULL),
    R("source", RULE, sh_rule_source, NULL),
    R("ss", SAFE, NULL, NULL),
    R("ssh", RULE, sh_rule_network, NULL),
    R("stat", SAFE, NULL, NULL),
    R("stdbuf", WRAPPER, sh_rule_wrapper, "wrapped by stdbuf"),
    R("strings", SAFE, NULL, NULL),
    R("su", PRIV, sh_rule_priv, NULL),
    R("sudo", PRIV, sh_rule_priv, NULL),
    R("sum", SAFE, NULL, NULL),
    R("tac", SAFE, NULL, NULL),
    R("tail", SAFE, NULL, NULL),
    R("taskset", WRAPPER, sh_rule_wrapper, "wrapped by taskset"),
    R("tcsh", SHELL, sh_rule_shell, "inside tcsh -c"),
    R("tee", RULE, sh_rule_writer, NULL),
    R("telnet", RULE, sh_rule_network, NULL),
    R("test", SAFE, NULL, NULL),
    R("time", WRAPPER, sh_rule_wrapper, "wrapped by time"),
    R("timeout", WRAPPER, sh_rule_wrapper, "wrapped by timeout"),
    R("touch", RULE, sh_rule_writer, NULL),
    R("tr", SAFE, NULL, NULL),
    R("trap", RULE, sh_rule_trap, NULL),
    R("tree", CHECK, sh_rule_forbid, NULL),
    R("true", SAFE, NULL, NULL),
    R("truncate", RULE, sh_rule_writer, NULL),
    R("tty", SAFE, NULL, NULL),
    R("type", SAFE, NULL, NULL),
    R("typeset", CHECK, sh_rule_declare, NULL),
    R("uname", SAFE, NULL, NULL),
    R("unbuffer", WRAPPER, sh_rule_wrapper, "wrapped by unbuffer"),
    R("unexpand", SAFE, NULL, NULL),
    R("uniq", CHECK, sh_rule_uniq, NULL),
    R("unlink", RULE, sh_rule_writer, NULL),
    R("unset", SAFE, NULL, NULL),
    R("uptime", SAFE, NULL, NULL),
    R("users", SAFE, NULL, NULL),
    R("vdir", SAFE, NULL, NULL),
    R("w", SAFE, NULL, NULL),
    R("wait", SAFE, NULL, NULL),
    R("watch", WRAPPER, sh_rule_wrapper, "inside watch"),
    R("wc", SAFE, NULL, NULL),
    R("wget", RULE, sh_rule_net_fetch, NULL),
    R("whereis", SAFE, NULL, NULL),
    R("which", SAFE, NULL, NULL),
    R("who", SAFE, NULL, NULL),
    R("whoami", SAFE, NULL, NULL),
    R("wipefs", RULE, sh_rule_disk, NULL),
    R("xargs", WRAPPER, sh_rule_xargs, "via xargs"),
    R("xxd", CHECK, sh_rule_forbid, NULL),
    R("xzcat", SAFE, NULL, NULL),
    R("yarn", RULE, sh_rule_pkg, NULL),
    R("yes", SAFE, NULL, NULL),
    R("zcat", SAFE, NULL, NULL),
    R("zsh", SHELL, sh_rule_shell, "inside zsh -c"),
};

enum { N_PROGRAMS = sizeof programs / sizeof programs[0] };

/* [first byte] = { first row, one past the last row } of the rows starting
 * with that byte (generated with the table; sh_programs_sorted checks it). */
static const struct { uint16_t lo, hi; } first_byte[128] = {
    ['.'] = { 0, 1 },
    [':'] = { 1, 2 },
    ['['] = { 2, 4 },
    ['a'] = { 4, 8 },
    ['b'] = { 8, 17 },
    ['c'] = { 17, 38 },
    ['d'] = { 38, 52 },
    ['e'] = { 52, 62 },
    ['f'] = { 62, 76 },
    ['g'] = { 76, 85 },
    ['h'] = { 85, 93 },
    ['i'] = { 93, 96 },
    ['j'] = { 96, 100 },
    ['k'] = { 100, 103 },
    ['l'] = { 103, 114 },
    ['m'] = { 114, 122 },
    ['n'] = { 122, 136 },
    ['o'] = { 136, 137 },
    ['p'] = { 137, 160 },
    ['r'] = { 160, 178 },
    ['s'] = { 178, 207 },
    ['t'] = { 207, 225 },
    ['u'] = { 225, 233 },
    ['v'] = { 233, 234 },
    ['w'] = { 234, 244 },
    ['x'] = { 244, 247 },
    ['y'] = { 247, 249 },
    ['z'] = { 249, 251 },
};

/* a[0..an) against the NUL-terminated b, bytewise like strcmp. */
static int cmp(const char *a, size_t an, const char *b)
{
    size_t i = 0;
    for (; i < an && b[i]; i++)
        if (a[i] != b[i])
            return (unsigned char)a[i] - (unsigned char)b[i];
    if (i == an)
        return b[i] ? -1 : 0;
    return 1;
}

const sh_program *sh_program_find(const char *name, size_t n)
{
    if (n > 4 && memcmp(name, "mkfs", 4) == 0 && name[4] == '.')
        n = 4;
    else if (n > 5 && memcmp(name, "newfs", 5) == 0 && name[5] == '_')
        n = 5;
    if (n == 0 || (unsigned char)name[0] >= 128)
        return NULL;
    size_t lo = first_byte[(unsigned char)name[0]].lo, hi = first_byte[(unsigned char)name[0]].hi;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = cmp(name, n, programs[mid].name);
        if (c == 0)
            return &programs[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

int sh_programs_sorted(void)
{
    for (size_t i = 1; i < N_PROGRAMS; i++)
        if (strcmp(programs[i - 1].name, programs[i].name) >= 0)
            return 0;
    for (size_t i = 0; i < N_PROGRAMS; i++)
        if (sh_program_find(programs[i].name, strlen(programs[i].name)) != &programs[i])
            return 0;
    return 1;
}

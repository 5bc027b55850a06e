/* shell_guarded.c - wg_shell_guarded_path and wg_shell_path_key
 * (include/waggle/shell.h): the paths no tool writes without a person,
 * told from a tool argument's text (the MCP gateway's upstream tools). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/shell.h"

static wg_guarded_kind kind_of(const char *path)
{
    wg_guarded_kind k = (wg_guarded_kind)99;
    const char *what = wg_shell_guarded_path(path, strlen(path), &k);
    cr_expect((what != NULL) == (k != WG_GUARDED_NONE), "%s: %s / %d", path, what ? what : "NULL", (int)k);
    return k;
}

Test(shell_guarded, files_that_run_code_in_every_spelling)
{
    static const char *const paths[] = {
        "/root/.bashrc", "~/.bashrc", ".bashrc", "~/.ssh/authorized_keys", "/home/u/.ssh/config",
        ".git/hooks/pre-commit", "repo/.git/config", "/etc/cron.d/job", "~/.config/systemd/user/x.service",
        ".claude/settings.json", "proj/.mcp.json", "/etc//sudoers", "/tmp/../root/.profile",
        "a/./b/../.zshrc",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        cr_expect_eq(kind_of(paths[i]), WG_GUARDED_RUNS_CODE, "%s", paths[i]);
}

Test(shell_guarded, the_system_itself_when_the_path_can_reach_it)
{
    static const char *const paths[] = {
        "/etc/passwd", "/etc/../etc/shadow", "//etc/group", "/boot/vmlinuz", "/dev/sda", "/dev/nvme0n1p1",
        "/proc/sysrq-trigger", "/sys/power/state", "../../../../../../../etc/passwd", "x/../../etc/fstab",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        cr_expect_eq(kind_of(paths[i]), WG_GUARDED_SYSTEM, "%s", paths[i]);
}

Test(shell_guarded, ordinary_files_and_data_that_looks_like_the_system)
{
    static const char *const paths[] = {
        "notes.md", "/tmp/out.txt", "src/app.ts", "etc/passwd", "fixtures/dev/sda", "~/etc/passwd",
        "docs/bashrc.md", "/home/u/project/README.md", "/dev/null", "a/../b/etc/passwd", "/etc/hosts",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        cr_expect_eq(kind_of(paths[i]), WG_GUARDED_NONE, "%s", paths[i]);
}

Test(shell_guarded, hostile_input_is_never_guarded_by_accident_nor_a_crash)
{
    cr_expect_null(wg_shell_guarded_path(NULL, 0, NULL));
    cr_expect_null(wg_shell_guarded_path("", 0, NULL));
    cr_expect_null(wg_shell_guarded_path("/etc/passwd\0x", 13, NULL));   /* a NUL: not a path */
    static char big[8192];
    memset(big, 'a', sizeof big - 1);
    cr_expect_null(wg_shell_guarded_path(big, strlen(big), NULL));
    /* 4096 bytes of "../" then the target: bounded, still read */
    static char climb[4200];
    size_t k = 0;
    while (k + 3 < 4000) {
        memcpy(climb + k, "../", 3);
        k += 3;
    }
    memcpy(climb + k, "etc/shadow", 11);
    cr_expect_eq(kind_of(climb), WG_GUARDED_SYSTEM);
}

Test(shell_guarded, path_keys)
{
    static const char *const yes[] = { "path", "file_path", "filePath", "destination", "paths", "target" };
    static const char *const no[] = { "content", "source", "command", "url", "", "PATH" };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        cr_expect(wg_shell_path_key(yes[i]), "%s", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        cr_expect(!wg_shell_path_key(no[i]), "%s", no[i]);
    cr_expect(!wg_shell_path_key(NULL));
}

static int collect(void *ud, const char *key, const char *path, size_t n)
{
    char *buf = ud;                     /* 512 bytes; what does not fit is dropped */
    size_t k = strlen(buf);
    if (k < 511)
        snprintf(buf + k, 512 - k, "%s=%.*s;", key, (int)n, path);
    return strcmp(path, "stop") == 0 ? 7 : 0;
}

Test(shell_guarded, each_path_argument_in_order_arrays_included)
{
    char buf[512] = "";
    json_t *a = json_loads("{\"content\":\"/etc/passwd\",\"path\":\"a\",\"paths\":[\"b\",3,\"c\"],"
                           "\"destination\":{\"x\":1},\"file\":\"stop\",\"to\":\"never\"}", 0, NULL);
    cr_assert_not_null(a);
    cr_expect_eq(wg_shell_each_path_arg(a, collect, buf), 7);
    cr_expect_str_eq(buf, "path=a;paths=b;paths=c;file=stop;");
    json_decref(a);
    json_t *arr = json_loads("[\"/etc/passwd\"]", 0, NULL);
    cr_expect_eq(wg_shell_each_path_arg(arr, collect, buf), 0);    /* not an object */
    cr_expect_eq(wg_shell_each_path_arg(NULL, collect, buf), 0);
    json_decref(arr);
    /* a huge array: only the first WG_SHELL_PATHS_PER_KEY are read */
    json_t *big = json_object(), *list = json_array();
    for (int i = 0; i < 10000; i++)
        json_array_append_new(list, json_string(i == 9000 ? "stop" : "x"));
    json_object_set_new(big, "paths", list);
    buf[0] = '\0';
    cr_expect_eq(wg_shell_each_path_arg(big, collect, buf), 0);     /* "stop" is item 9000 */
    json_decref(big);
}

/* Tests for the CLI frame: help, version, unknown commands, exit codes. */
#include <criterion/criterion.h>
#include <string.h>

#include "wgtest.h"

Test(cli, help_lists_every_command_and_exits_0)
{
    wgt_result r;
    const char *argv[] = { "--help", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "gate") && strstr(r.out, "serve"));
    wgt_result_free(&r);
}

Test(cli, unknown_command_exits_2)
{
    wgt_result r;
    const char *argv[] = { "frobnicate", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "unknown command 'frobnicate'"));
    wgt_result_free(&r);
}

Test(cli, version_prints_version)
{
    wgt_result r;
    const char *argv[] = { "--version", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert_eq(r.status, 0);
    cr_assert(strncmp(r.out, "waggle ", 7) == 0);
    wgt_result_free(&r);
}

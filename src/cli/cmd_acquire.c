/* cmd_acquire.c - `waggle acquire`. PLACEHOLDER: replaced by the issue that builds it. */
#include "cli.h"

int cmd_acquire(int argc, char **argv, const wg_cli *cli)
{
    (void)argc;
    (void)cli;
    return wg_cli_fail(argv[0], "not built yet");
}

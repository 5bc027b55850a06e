/* cmd_pool.c - `waggle pool`. PLACEHOLDER: replaced by the issue that builds it. */
#include "cli.h"

int cmd_pool(int argc, char **argv, const wg_cli *cli)
{
    (void)argc;
    (void)cli;
    return wg_cli_fail(argv[0], "not built yet");
}

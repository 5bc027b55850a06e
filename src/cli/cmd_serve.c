/* cmd_serve.c - `waggle serve`. PLACEHOLDER: replaced by the issue that builds it. */
#include "cli.h"

int cmd_serve(int argc, char **argv, const wg_cli *cli)
{
    (void)argc;
    (void)cli;
    return wg_cli_fail(argv[0], "not built yet");
}

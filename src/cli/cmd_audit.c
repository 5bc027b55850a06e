/* cmd_audit.c - `waggle audit`. PLACEHOLDER: replaced by the issue that builds it. */
#include "cli.h"

int cmd_audit(int argc, char **argv, const wg_cli *cli)
{
    (void)argc;
    (void)cli;
    return wg_cli_fail(argv[0], "not built yet");
}

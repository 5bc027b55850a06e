/* cmd_hook.c - `waggle hook`: the coding-agent hook faces (issue #14 §3).
 * The same code as the lean `waggle-hook` binary (src/hook/cli.c), which is
 * what a hook should run: this one pays for loading the whole CLI. */
#include "cli.h"
#include "hook/cli.h"

int cmd_hook(int argc, char **argv, const wg_cli *cli)
{
    (void)cli;
    return wg_hook_main(argc, argv);
}

/* main.c - the lean `waggle-hook` binary (issue #14 §3): the hook faces
 * linked with the gate and the shell model only, against jansson and libc,
 * so one tool call costs one small process start (docs/hooks.md has the
 * measured figure). `waggle hook ...` runs the same code. */
#include "hook/cli.h"

int main(int argc, char **argv)
{
    return wg_hook_main(argc, argv);
}

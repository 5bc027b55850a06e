/* cli.h - the command line of the hook faces, shared by the lean
 * `waggle-hook` binary (src/hook/bin/main.c) and `waggle hook` (cmd_hook.c):
 *
 *   waggle-hook claude-code|codex|gemini [--level L] [--unknown-tools ask|allow]
 *               [--never-autopass deny|ask] [--allow-as allow|defer]
 *               [--ask-as deny|defer]            < hook input JSON
 *   waggle-hook install claude-code [--project|--user] [--dir D] [--command CMD]
 *               [--level L]
 *
 * It reads no data dir, store or catalog: one gate without hooks decides.
 */
#ifndef WAGGLE_HOOK_CLI_H
#define WAGGLE_HOOK_CLI_H

/* argv[0] is "hook" (or the program's name); returns the exit status. */
int wg_hook_main(int argc, char **argv);

#endif

/* paths.h - where a coding agent's file write or fetch lands (issue #14 §3).
 *
 * Lexical normalisation of a path against the project dir, then realpath(3)
 * of its longest existing ancestor so a symlink inside the project that
 * points out of it counts as outside; the tables of files that hold
 * credentials (the shell model's, core/shell_secrets.c) or run code later
 * (shell start-up files, git hooks and config, cron, systemd units, sudoers);
 * and the host of a URL (loopback, private, link-local and metadata hosts).
 * No allocation; thread-safe.
 */
#ifndef WAGGLE_HOOK_PATHS_H
#define WAGGLE_HOOK_PATHS_H

#include <stddef.h>

enum { WG_HOOK_PATH_MAX = 4096 };

/* The absolute, normalised form of path (n bytes, not NUL-terminated; may be
 * relative to cwd, or start with "~/" for $HOME) into out (cap bytes),
 * symlinks of the existing part resolved. Returns 0, or -1 when it cannot be
 * told: a NUL byte, relative with no cwd, longer than WG_HOOK_PATH_MAX. */
int wg_hook_path_resolve(char *out, size_t cap, const char *cwd, const char *path, size_t n);

/* 1 when abs (resolved) is project (resolved) or below it. */
int wg_hook_path_inside(const char *abs, const char *project);

/* 1 when abs (resolved) is a directory that holds credentials below it:
 * "/", a home directory ($HOME, /root, /home/NAME, /Users/NAME), $HOME's
 * .config, .local or .cache, /etc, /var/lib, /proc (the bash gate's table,
 * core/shell/secrets.c). A recursive search of it reads them all. */
int wg_hook_path_holds_secrets(const char *abs);

/* What credential abs names ("an SSH key or config"), or NULL. */
const char *wg_hook_path_secret(const char *abs);

/* Files that run code later or are the system itself: the core's
 * wg_shell_guarded_path (include/waggle/shell.h), one table for every face. */

/* Why fetching url (n bytes) needs a look ("a loopback or private
 * address"), or NULL for an http(s) URL to a public host name. */
const char *wg_hook_url_risk(const char *url, size_t n);

#endif

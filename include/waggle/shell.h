/* waggle/shell.h - what a bash command would do, from a real POSIX-shell model.
 *
 * wg_shell_analyze lexes a command the way bash would (quotes, escapes, $'..',
 * ${..}, $(..), backticks, here-docs, here-strings, comments, continuations,
 * redirections), splits it into simple commands at every separator, follows
 * the commands hidden inside substitutions, `sh -c`, eval, xargs, find -exec
 * and exec wrappers (env, nice, timeout, ...), and classifies every part from
 * program tables. The worst part decides. Compound syntax (case, ((..)),
 * [[..]], for ((..)), coproc, functions) is parsed, and words are rewritten
 * the way bash does before it runs them: brace expansion, $IFS splitting,
 * literal variables (X=sudo; $X), aliases and hash -p; a function that
 * reaches itself through a fork is a fork bomb. What cannot be resolved in
 * command position is treated as the worst it could be (CRITICAL).
 *
 * Classes are ordered; gating is monotone in them (docs/gate.md):
 *   SAFE         every part is a known read-only program with safe arguments
 *                and no output redirection: runs silently at every level.
 *   RISKY        an ordinary action (unknown program, writes a project file,
 *                network read): confirm at Normal; Trusted and YOLO auto-pass.
 *   DESTRUCTIVE  deletes, overwrites outside the project, exfiltrates, pushes,
 *                or cannot be parsed: confirm at Normal and Trusted.
 *   CRITICAL     never auto-passes at any level (spec 7.4, widened: recursive
 *                delete of / ~ $HOME /-star or a system directory however spelled,
 *                privilege escalation, disk formatting, raw disk writes, drive
 *                roots and the registry on Windows, fork bombs, force-push or
 *                delete of main/master/production, a shell fed text it cannot
 *                see).
 *
 * Pure: no I/O, no globals. Linear time in len. Commands up to 1 KiB are
 * analysed in stack scratch (about 36 KiB) with no heap; a longer command
 * takes one heap block sized from its length (about 25 bytes per input
 * byte, freed before return). Input beyond the model's limits
 * (WG_SHELL_MAX_COMMAND bytes, nesting, words per command, commands per
 * decision; docs/gate.md "Limits") is classified fail-closed, never an
 * error: DESTRUCTIVE (bash.too_complex), CRITICAL when the text shows a
 * never-autopass signal anywhere. Thread-safe: reentrant.
 */
#ifndef WAGGLE_SHELL_H
#define WAGGLE_SHELL_H

#include "waggle/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WG_SHELL_SAFE = 0,
    WG_SHELL_RISKY = 1,
    WG_SHELL_DESTRUCTIVE = 2,
    WG_SHELL_CRITICAL = 3
} wg_shell_class;

#define WG_SHELL_REASON_MAX 200

/* The longest command the model parses (bytes). A longer one is not parsed:
 * it needs confirmation, and never auto-passes when it shows a
 * never-autopass signal anywhere. */
#define WG_SHELL_MAX_COMMAND 262144

typedef struct wg_shell_verdict {
    wg_shell_class cls;
    /* Stable rule id, e.g. "critical.rm_home" (static string; docs/gate.md
     * lists them all). */
    const char *rule;
    /* One sentence a person can read, e.g. "rm -rf targets the home
     * directory (wrapped by env)". NUL-terminated, truncated to fit. */
    char reason[WG_SHELL_REASON_MAX];
} wg_shell_verdict;

/* Classifies the command text cmd[0..len) (need not be NUL-terminated; a NUL
 * byte inside is treated as unparseable). Fills *out. Returns 0, or WG_EINVAL
 * when out is NULL or cmd is NULL with len > 0. */
WG_EXTERN int wg_shell_analyze(wg_shell_verdict *out, const char *cmd, size_t len);

/* "safe" | "risky" | "destructive" | "critical". Static string. */
WG_EXTERN const char *wg_shell_class_name(wg_shell_class c);

typedef enum {
    WG_GUARDED_NONE = 0,
    WG_GUARDED_RUNS_CODE,     /* a file some program runs later: a shell start-up file,
                               * a git hook, cron, SSH, a coding agent's settings */
    WG_GUARDED_SYSTEM,        /* the system itself: a vital file (/etc/passwd, /boot/...),
                               * a raw disk, a kernel trigger (/proc/sysrq-trigger) */
} wg_guarded_kind;

/* Why writing path[0..n) must never pass without a person, from its text
 * alone (no file system access; "..", "." and "//" are resolved in the text):
 * a static description ("a shell start-up file", "the account database")
 * and *kind (may be NULL), or NULL and WG_GUARDED_NONE. path is what a tool
 * argument holds: absolute, "~/...", or relative to a directory the caller
 * cannot see (matched as if under some directory: ".git/hooks/x" and
 * ".bashrc" count; "etc/passwd" counts only when ".." climbs out of where it
 * starts). NULL, empty, a NUL byte or over 4096 bytes: NULL. The same
 * tables as the bash gate's and the hook's write rules. Pure, thread-safe. */
WG_EXTERN const char *wg_shell_guarded_path(const char *path, size_t n, wg_guarded_kind *kind);

/* 1 when a tool argument named key holds a path it writes to (or an array
 * of them: "paths", "files"): path, file_path, filePath, file, filename,
 * destination, dest, target, to, output, ...; else 0. NULL: 0. */
WG_EXTERN int wg_shell_path_key(const char *key);

/* Calls fn(ud, key, path, n) for each path a tool's arguments hold under a
 * path key (wg_shell_path_key): a string, or the strings of an array (the
 * first WG_SHELL_PATHS_PER_KEY), in the object's order, until fn returns
 * non-zero; returns that value, or 0. args is a json_t * object (void *
 * keeps jansson out of this header); anything else: 0. */
#define WG_SHELL_PATHS_PER_KEY 256
typedef int (*wg_shell_path_fn)(void *ud, const char *key, const char *path, size_t n);
WG_EXTERN int wg_shell_each_path_arg(const void *args, wg_shell_path_fn fn, void *ud);

#ifdef __cplusplus
}
#endif
#endif

/* settings.h - `waggle hook install claude-code`: waggle's PreToolUse entry in
 * Claude Code's settings.json (issue #14 §3).
 *
 * The entry is {"matcher":"*","hooks":[{"type":"command","command":CMD,
 * "timeout":10}]} in hooks.PreToolUse. Merging keeps every other key, hook
 * and matcher group as it was (order included); it is idempotent (an entry
 * whose command runs "waggle-hook claude-code" or "waggle hook claude-code"
 * is updated in place, never added twice). A file that is not a JSON object,
 * or whose "hooks" / "hooks.PreToolUse" has the wrong type, is refused and
 * left untouched. Not thread-safe on one path (it renames a file).
 */
#ifndef WAGGLE_HOOK_SETTINGS_H
#define WAGGLE_HOOK_SETTINGS_H

#include <stddef.h>
#include <jansson.h>

enum { WG_HOOK_SETTINGS_MAX = 4 << 20 };   /* bytes of settings.json read */

/* Merges the entry for command into settings (an object, changed in place).
 * Returns 1 when it changed something, 0 when the entry was already there,
 * WG_EINVAL when settings has the wrong shape (message in wg_error_last()). */
int wg_hook_settings_merge(json_t *settings, const char *command);

/* Reads path (missing: {}), merges, and when that changed something copies
 * the old file to backup (path + ".waggle-backup-<UTC time>", its name into
 * backup_out when not NULL; "" when there was no old file) and writes the new
 * one atomically (temporary file, fsync, rename), creating the folder.
 * *changed (may be NULL) says whether it wrote. Returns 0, WG_EINVAL
 * (malformed file: nothing written), WG_EIO. */
int wg_hook_settings_install(const char *path, const char *command, int *changed,
                             char *backup_out, size_t backup_cap);

#endif

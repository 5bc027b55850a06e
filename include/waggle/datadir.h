/* waggle/datadir.h - where waggle keeps its state.
 *
 * The data dir is chosen as: the explicit path given by the caller (the CLI's
 * --data-dir), else $WAGGLE_DATA_DIR, else $HOME/.waggle. It is created with
 * mode 0700 when missing, and tightened when it exists (wg_datadir_secure).
 * Layout (documented in README and docs/store.md); every file is 0600 and
 * every folder 0700:
 *   config.json      tier and settings (+ config.json.lock)
 *   waggle.db        the SQLite store (vault, audit, pool, settings; + -wal, -shm)
 *   vault.key        32 random bytes (absent when a passphrase is used)
 *   api-token        the service's bearer token
 *   admin-token      the token that may change the tier
 *   audit-witness    the sealed audit head this data dir has seen
 *   cost-events.jsonl, catalog.json
 *   skills/          active skills (<name>.md)
 *   plugins/<name>/  plugin.json per plugin
 *   personas/, marketplace/
 */
#ifndef WAGGLE_DATADIR_H
#define WAGGLE_DATADIR_H

#include "waggle/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Resolves the data dir path without touching the file system.
 * explicit_dir may be NULL. *out is new (free with free()).
 * Returns 0, WG_EINVAL when neither the argument, $WAGGLE_DATA_DIR nor $HOME
 * gives a path, WG_ENOMEM. */
WG_EXTERN int wg_datadir_resolve(char **out, const char *explicit_dir);

/* Resolves as above, creates the directory (0700, parents as needed) and
 * secures it (wg_datadir_secure). Returns 0, WG_EINVAL, WG_EDENIED, WG_EIO
 * (with the OS reason), WG_ENOMEM. */
WG_EXTERN int wg_datadir_open(char **out, const char *explicit_dir);

/* Limits of the tightening pass: folders deeper than this under the data
 * dir, or folders with more entries, are an error (fail closed) rather
 * than a silent partial pass. */
#define WG_DATADIR_SCAN_DEPTH 4
#define WG_DATADIR_SCAN_MAX 10000

/* Tightens an existing data dir: it must be a directory owned by the user
 * running waggle (WG_EDENIED otherwise: another user could replace its
 * files); its mode becomes 0700. The files waggle keeps there (the layout
 * above) become 0600 and its folders (skills/, plugins/, personas/,
 * marketplace/) 0700, with everything inside them, up to
 * WG_DATADIR_SCAN_DEPTH levels and WG_DATADIR_SCAN_MAX entries per folder
 * (WG_EINVAL past either). Other names are left alone (the data dir may
 * be shared with other things), symlinks are never followed, files of
 * other users are skipped. The token files are not repaired: their reader
 * refuses them when others could read them (waggle/token.h). Not
 * thread-safe with concurrent writers of the same files' modes. */
WG_EXTERN int wg_datadir_secure(const char *dir);

/* Joins the data dir and a relative name: "<dir>/<name>". *out is new.
 * Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_datadir_path(char **out, const char *dir, const char *name);

#ifdef __cplusplus
}
#endif
#endif

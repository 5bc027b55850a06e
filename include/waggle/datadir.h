/* waggle/datadir.h - where waggle keeps its state.
 *
 * The data dir is chosen as: the explicit path given by the caller (the CLI's
 * --data-dir), else $WAGGLE_DATA_DIR, else $HOME/.waggle. It is created with
 * mode 0700 when missing. Layout (documented in README):
 *   config.json      tier and settings
 *   waggle.db        the SQLite store (vault, audit, pool, settings)
 *   vault.key        32 random bytes, 0600 (absent when a passphrase is used)
 *   api-token        the service's bearer token, 0600
 *   admin-token      the token that may change the tier, 0600
 *   skills/          active skills (<name>.md)
 *   plugins/<name>/  plugin.json per plugin
 *   marketplace/     local marketplace packs
 */
#ifndef WAGGLE_DATADIR_H
#define WAGGLE_DATADIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Resolves the data dir path without touching the file system.
 * explicit_dir may be NULL. *out is new (free with free()).
 * Returns 0, WG_EINVAL when neither the argument, $WAGGLE_DATA_DIR nor $HOME
 * gives a path, WG_ENOMEM. */
int wg_datadir_resolve(char **out, const char *explicit_dir);

/* Resolves as above and creates the directory (0700, parents as needed).
 * Returns 0, WG_EINVAL, WG_EIO (with the OS reason), WG_ENOMEM. */
int wg_datadir_open(char **out, const char *explicit_dir);

/* Joins the data dir and a relative name: "<dir>/<name>". *out is new.
 * Returns 0 or WG_ENOMEM. */
int wg_datadir_path(char **out, const char *dir, const char *name);

#ifdef __cplusplus
}
#endif
#endif

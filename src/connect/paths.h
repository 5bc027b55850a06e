/* paths.h - confinement helpers for connectors that touch local files
 * (internal to src/connect; docs/security.md 2.1). Pure string decisions on
 * paths that are already resolved (realpath): no I/O. */
#ifndef WG_CONNECT_PATHS_H
#define WG_CONNECT_PATHS_H

/* 1 when p is root itself or lies under it ("<root>/…"; the separator
 * matters: /home/u/vault-secrets is not inside /home/u/vault). Correct for
 * the root "/" too. Both resolved, without a trailing '/' (except "/"). */
int wg_paths__inside(const char *root, const char *p);

/* Why the resolved directory dir may never be a connector's root, or NULL
 * when it may: "/" itself, the data dir, a directory inside it, or one of
 * its parents (a root above the data dir reaches its secrets). data_dir is
 * resolved, or NULL when unknown. The reason is a static string. */
const char *wg_paths__forbidden_root(const char *dir, const char *data_dir);

#endif

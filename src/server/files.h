/* files.h - small file helpers for the service's own data files under the
 * data dir (personas, marketplace packs): whole-file read, atomic write,
 * safe names. Internal to src/server. */
#ifndef WAGGLE_SERVER_FILES_H
#define WAGGLE_SERVER_FILES_H

#include <stddef.h>

/* Reads a regular file of at most max bytes; *out is new and NUL-terminated.
 * Returns 0, WG_ENOTFOUND, WG_EIO (too big, not regular), WG_ENOMEM. */
int wg_files__read(char **out, size_t *len, const char *path, size_t max);

/* Writes via a temp file + rename (mode 0600), creating the parent folder
 * (0700). Returns 0, WG_EIO, WG_ENOMEM. */
int wg_files__write_atomic(const char *path, const char *data, size_t len);

/* 1 when s is a safe single path component: [A-Za-z0-9._-], 1..64 chars,
 * not starting with '.'. Everything the service turns into a file name
 * passes this first. */
int wg_files__name_ok(const char *s);

/* "<a>/<b>/<c>" (c may be NULL); new string or NULL. */
char *wg_files__join(const char *a, const char *b, const char *c);

#endif

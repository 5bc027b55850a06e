/* files.h - small file helpers for files under the data dir (skills,
 * plugin manifests, personas, marketplace packs): whole-file read that never
 * follows a symlink, atomic write, safe names. Internal to libwaggle (the
 * store layer and the layers above it). */
#ifndef WAGGLE_STORE_FILES_H
#define WAGGLE_STORE_FILES_H

#include <stddef.h>
#include <sys/stat.h>

/* Reads a regular file of at most max bytes; *out is new and NUL-terminated
 * (len may be NULL). Never follows a symlink in the last component.
 * Returns 0; WG_ENOTFOUND (absent); WG_EDENIED (present but unusable: a
 * symlink, not a regular file, or larger than max); WG_EIO (cannot open or
 * read); WG_ENOMEM. *out is untouched on failure. */
int wg_files__read(char **out, size_t *len, const char *path, size_t max);

/* Writes via a temp file + rename (mode 0600), creating every missing
 * parent folder (0700; existing ones keep their mode). Returns 0, WG_EIO,
 * WG_ENOMEM. */
int wg_files__write_atomic(const char *path, const char *data, size_t len);

/* Opens path with flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC (created
 * 0600 with O_CREAT) only when it is a regular file owned by the user
 * running waggle: never through a symlink, never blocking on a FIFO. *st
 * (optional) receives its fstat, for the caller's mode rule. what names
 * the file in messages ("token file"). Returns the fd; WG_ENOTFOUND
 * (absent; no message set); WG_EDENIED (a symlink, not a regular file,
 * another user's); WG_EIO. */
int wg_files__open_ours(const char *path, int flags, const char *what, struct stat *st);

/* Appends to path, creating it 0600; refuses (WG_EDENIED) a symlink, a
 * FIFO or anything but a regular file of ours, and makes a file others
 * could read private. Returns 0, WG_EDENIED, WG_EIO. */
int wg_files__append(const char *path, const char *data, size_t len);

/* Opens path (created 0600; same checks as wg_files__append) and takes
 * flock(LOCK_EX) on it. Returns the fd (release with wg_files__unlock) or
 * WG_EDENIED / WG_EIO. */
int wg_files__lock(const char *path);
void wg_files__unlock(int fd);

/* 1 when s is a safe single path component: [A-Za-z0-9._-], 1..64 chars,
 * not starting with '.'. Everything the service turns into a file name
 * passes this first. */
int wg_files__name_ok(const char *s);

/* "<a>/<b>/<c>" (c may be NULL); new string or NULL. */
char *wg_files__join(const char *a, const char *b, const char *c);

#endif

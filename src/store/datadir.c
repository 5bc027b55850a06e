/* datadir.c - resolving, creating and tightening the data dir
 * (waggle/datadir.h). No global state; reads the environment only. */
#include "waggle/datadir.h"
#include "waggle/audit.h"
#include "waggle/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wg_datadir_path(char **out, const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    snprintf(p, n, "%s/%s", dir, name);
    *out = p;
    return 0;
}

int wg_datadir_resolve(char **out, const char *explicit_dir)
{
    const char *dir = explicit_dir;
    if (!dir || !*dir)
        dir = getenv("WAGGLE_DATA_DIR");
    if (dir && *dir) {
        char *p = strdup(dir);
        if (!p)
            return wg_error_set(WG_ENOMEM, "out of memory");
        *out = p;
        return 0;
    }
    const char *home = getenv("HOME");
    if (!home || !*home)
        return wg_error_set(WG_EINVAL,
            "no data dir: pass --data-dir, or set WAGGLE_DATA_DIR or HOME");
    return wg_datadir_path(out, home, ".waggle");
}

/* mkdir -p with mode 0700 for every component we create. */
static int make_dirs(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (char *s = p + 1; ; s++) {
        if (*s == '/' || *s == '\0') {
            char saved = *s;
            *s = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST) {
                int rc = wg_error_set(WG_EIO, "cannot create %s: %s", p, strerror(errno));
                free(p);
                return rc;
            }
            *s = saved;
            if (saved == '\0')
                break;
        }
    }
    free(p);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return wg_error_set(WG_EIO, "data dir %s is not a directory", path);
    return 0;
}

/* ---- tightening ------------------------------------------------------------ */

/* What waggle keeps directly in the data dir. The token files are not
 * here on purpose: a token others could read is refused by its reader,
 * not quietly repaired (waggle/token.h). */
static const char *const private_files[] = {
    "config.json", "config.json.lock", "waggle.db", "waggle.db-wal", "waggle.db-shm",
    "vault.key", WG_AUDIT_WITNESS_FILE, "cost-events.jsonl", "catalog.json",
};
static const char *const private_dirs[] = { "skills", "plugins", "personas", "marketplace" };

static int tighten_at(int dfd, const char *name, int depth, const char *path);

/* Every entry of the folder fd (path for messages), one level deeper. */
static int tighten_folder(int fd, int depth, const char *path)
{
    if (depth > WG_DATADIR_SCAN_DEPTH)
        return wg_error_set(WG_EINVAL, "%s is more than %d folders deep in the data dir; "
                            "waggle does not tighten it", path, WG_DATADIR_SCAN_DEPTH);
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return wg_error_set(WG_EIO, "cannot list %s: %s", path, strerror(errno));
    }
    int rc = 0;
    size_t n = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (++n > WG_DATADIR_SCAN_MAX) {
            rc = wg_error_set(WG_EINVAL, "%s has more than %d entries; waggle does not tighten "
                              "it", path, WG_DATADIR_SCAN_MAX);
            break;
        }
        rc = tighten_at(dirfd(d), e->d_name, depth, path);
    }
    closedir(d);
    return rc;
}

/* Makes one entry private: files 0600, folders 0700 and their contents.
 * Symlinks, other kinds of files and other users' entries are left as
 * they are; a missing entry is fine. */
static int tighten_at(int dfd, const char *name, int depth, const char *parent)
{
    struct stat sb;
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : wg_error_set(WG_EIO, "cannot examine %s/%s: %s", parent,
                                                  name, strerror(errno));
    if ((!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) || sb.st_uid != geteuid())
        return 0;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                    (S_ISDIR(sb.st_mode) ? O_DIRECTORY : 0));
    if (fd < 0)
        return errno == ENOENT || errno == ELOOP ? 0
             : wg_error_set(WG_EIO, "cannot open %s/%s: %s", parent, name, strerror(errno));
    int rc = 0;
    if (fstat(fd, &sb) == 0 && sb.st_uid == geteuid()) {   /* the entry we opened */
        mode_t want = S_ISDIR(sb.st_mode) ? 0700 : 0600;
        if ((sb.st_mode & 077) && fchmod(fd, want) != 0)
            rc = wg_error_set(WG_EIO, "cannot make %s/%s private: %s", parent, name,
                              strerror(errno));
        if (rc == 0 && S_ISDIR(sb.st_mode)) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", parent, name);
            rc = tighten_folder(fd, depth + 1, path);
        }
    }
    close(fd);
    return rc;
}

int wg_datadir_secure(const char *dir)
{
    if (!dir || !*dir)
        return wg_error_set(WG_EINVAL, "wg_datadir_secure: no data dir");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return wg_error_set(WG_EIO, "cannot open the data dir %s: %s", dir, strerror(errno));
    struct stat sb;
    int rc = 0;
    if (fstat(fd, &sb) != 0)
        rc = wg_error_set(WG_EIO, "cannot examine the data dir %s: %s", dir, strerror(errno));
    else if (sb.st_uid != geteuid())
        rc = wg_error_set(WG_EDENIED, "the data dir %s belongs to uid %ld, not to the user "
                          "running waggle (uid %ld): that user could replace its keys and "
                          "tokens. Use a data dir of your own", dir, (long)sb.st_uid,
                          (long)geteuid());
    else if ((sb.st_mode & 077) && fchmod(fd, 0700) != 0)
        rc = wg_error_set(WG_EIO, "cannot make the data dir %s private: %s", dir, strerror(errno));
    for (size_t i = 0; rc == 0 && i < sizeof private_files / sizeof *private_files; i++)
        rc = tighten_at(fd, private_files[i], 0, dir);
    for (size_t i = 0; rc == 0 && i < sizeof private_dirs / sizeof *private_dirs; i++)
        rc = tighten_at(fd, private_dirs[i], 0, dir);
    close(fd);
    return rc;
}

int wg_datadir_open(char **out, const char *explicit_dir)
{
    char *dir = NULL;
    int rc = wg_datadir_resolve(&dir, explicit_dir);
    if (rc < 0)
        return rc;
    if ((rc = make_dirs(dir)) < 0 || (rc = wg_datadir_secure(dir)) < 0) {
        free(dir);
        return rc;
    }
    *out = dir;
    return 0;
}

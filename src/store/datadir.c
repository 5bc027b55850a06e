/* datadir.c - resolving and creating the data dir (waggle/datadir.h).
 * No global state; reads the environment only. */
#include "waggle/datadir.h"
#include "waggle/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int wg_datadir_open(char **out, const char *explicit_dir)
{
    char *dir = NULL;
    int rc = wg_datadir_resolve(&dir, explicit_dir);
    if (rc < 0)
        return rc;
    if ((rc = make_dirs(dir)) < 0) {
        free(dir);
        return rc;
    }
    *out = dir;
    return 0;
}

/* files.c - file helpers for the service's data files (files.h). */
#include "store/files.h"
#include "waggle/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wg_files__read(char **out, size_t *len, const char *path, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? wg_error_set(WG_ENOTFOUND, "not found")
             : errno == ELOOP  ? wg_error_set(WG_EDENIED, "data file is a symbolic link")
                               : wg_error_set(WG_EIO, "cannot open a data file");
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        close(fd);
        return wg_error_set(WG_EDENIED, "data file is not a regular file or is too large");
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *out = buf;
    if (len)
        *len = got;
    return 0;
}

/* mkdir -p for the folders above path's last component, each new one 0700;
 * existing ones are left as they are. One pass over the path. */
static void make_parents(char *dir)
{
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(dir, 0700);
        *p = '/';
    }
    mkdir(dir, 0700);
}

int wg_files__write_atomic(const char *path, const char *data, size_t len)
{
    char *dir = strdup(path);
    if (!dir)
        return wg_error_set(WG_ENOMEM, "out of memory");
    make_parents(dir);
    free(dir);
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return wg_error_set(WG_ENOMEM, "out of memory");
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return wg_error_set(WG_EIO, "cannot write a data file: %s", strerror(errno));
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int ok = done == len && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        free(tmp);
        return wg_error_set(WG_EIO, "cannot write a data file");
    }
    free(tmp);
    return 0;
}

int wg_files__name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 64 || s[0] == '.')
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

char *wg_files__join(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + (c ? strlen(c) : 0) + 3;
    char *p = malloc(n);
    if (!p)
        return NULL;
    if (c)
        snprintf(p, n, "%s/%s/%s", a, b, c);
    else
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

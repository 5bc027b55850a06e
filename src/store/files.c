/* files.c - file helpers for the data dir's files (files.h): every file
 * is created 0600, never opened through a symlink or blocking on a FIFO. */
#include "store/files.h"
#include "waggle/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int wg_files__read(char **out, size_t *len, const char *path, size_t max)
{
    /* O_NONBLOCK: a FIFO planted under the name must not hang the reader
     * (it is then refused as not a regular file). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
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

static int write_all(int fd, const char *data, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
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
    int fd = mkstemp(tmp);   /* O_EXCL, mode 0600: never an existing file or a symlink */
    if (fd < 0) {
        free(tmp);
        return wg_error_set(WG_EIO, "cannot write a data file: %s", strerror(errno));
    }
    int ok = fchmod(fd, 0600) == 0 && write_all(fd, data, len) == 0 && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        free(tmp);
        return wg_error_set(WG_EIO, "cannot write a data file");
    }
    free(tmp);
    return 0;
}

int wg_files__open_ours(const char *path, int flags, const char *what, struct stat *out)
{
    int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == ENOENT)
            return WG_ENOTFOUND;
        if (errno == ELOOP)
            return wg_error_set(WG_EDENIED, "%s %s is a symbolic link; put the file itself there "
                                "(mode 0600)", what, path);
        if (errno == ENXIO)
            return wg_error_set(WG_EDENIED, "%s %s is not a regular file (a FIFO)", what, path);
        return wg_error_set(WG_EIO, "cannot open %s %s: %s", what, path, strerror(errno));
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0)
        rc = wg_error_set(WG_EIO, "cannot examine %s %s: %s", what, path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = wg_error_set(WG_EDENIED, "%s %s is not a regular file", what, path);
    else if (st.st_uid != geteuid())
        rc = wg_error_set(WG_EDENIED, "%s %s belongs to uid %ld, not to the user running waggle "
                          "(uid %ld): another user could have written it", what, path,
                          (long)st.st_uid, (long)geteuid());
    if (rc < 0) {
        close(fd);
        return rc;
    }
    if (out)
        *out = st;
    return fd;
}

/* A data file to write: created 0600, and made private when others could
 * read it. */
static int open_private(const char *path, int flags)
{
    struct stat st = { 0 };   /* set on success; gcc cannot see that fd < 0 otherwise */
    int fd = wg_files__open_ours(path, flags | O_CREAT, "data file", &st);
    if (fd < 0)
        return fd == WG_ENOTFOUND ? wg_error_set(WG_EIO, "cannot create data file %s", path) : fd;
    if ((st.st_mode & 077) && fchmod(fd, 0600) != 0) {
        close(fd);
        return wg_error_set(WG_EIO, "cannot make data file %s private: %s", path, strerror(errno));
    }
    return fd;
}

int wg_files__append(const char *path, const char *data, size_t len)
{
    int fd = open_private(path, O_WRONLY | O_APPEND);
    if (fd < 0)
        return fd;
    int ok = write_all(fd, data, len) == 0;
    ok = close(fd) == 0 && ok;
    return ok ? 0 : wg_error_set(WG_EIO, "cannot append to a data file");
}

int wg_files__lock(const char *path)
{
    int fd = open_private(path, O_RDWR);
    if (fd < 0)
        return fd;
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        close(fd);
        return wg_error_set(WG_EIO, "cannot lock a data file: %s", strerror(errno));
    }
    return fd;
}

void wg_files__unlock(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
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

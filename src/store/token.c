/* token.c - bearer tokens in data-dir files (waggle/token.h): 256 random
 * bits as hex, created 0600 with O_EXCL so racing creators agree, compared
 * in constant time. */
#include "waggle/token.h"
#include "waggle/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TOKEN 1024

int wg_token_read(char **out, const char *path)
{
    if (!out || !path)
        return wg_error_set(WG_EINVAL, "wg_token_read: NULL argument");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? wg_error_set(WG_ENOTFOUND, "no token file %s", path)
                               : wg_error_set(WG_EIO, "cannot read %s: %s", path, strerror(errno));
    char buf[MAX_TOKEN + 2];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n < 0)
        return wg_error_set(WG_EIO, "cannot read %s", path);
    size_t len = (size_t)n;
    if (len > MAX_TOKEN) {
        sodium_memzero(buf, sizeof buf);
        return wg_error_set(WG_EINVAL, "token file %s is too long", path);
    }
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
        len--;
    if (!len)
        return wg_error_set(WG_EINVAL, "token file %s is empty", path);
    char *t = malloc(len + 1);
    if (!t) {
        sodium_memzero(buf, sizeof buf);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    memcpy(t, buf, len);
    t[len] = '\0';
    sodium_memzero(buf, sizeof buf);
    *out = t;
    return 0;
}

int wg_token_load_or_create(char **out, const char *path)
{
    if (sodium_init() < 0)
        return wg_error_set(WG_EINTERNAL, "libsodium failed to initialise");
    int rc = wg_token_read(out, path);
    if (rc != WG_ENOTFOUND)
        return rc;
    wg_error_clear();
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST) {
            /* Another process won the race; give it a moment to finish. */
            for (int i = 0; i < 50; i++) {
                if ((rc = wg_token_read(out, path)) != WG_EINVAL)
                    return rc;
                usleep(10000);
            }
            return rc;
        }
        return wg_error_set(WG_EIO, "cannot create %s: %s", path, strerror(errno));
    }
    unsigned char raw[32];
    char hex[WG_TOKEN_HEX_LEN + 2];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(hex, WG_TOKEN_HEX_LEN + 1, raw, sizeof raw);
    sodium_memzero(raw, sizeof raw);
    hex[WG_TOKEN_HEX_LEN] = '\n';
    int ok = write(fd, hex, WG_TOKEN_HEX_LEN + 1) == WG_TOKEN_HEX_LEN + 1 && fsync(fd) == 0;
    close(fd);
    if (!ok) {
        unlink(path);
        sodium_memzero(hex, sizeof hex);
        return wg_error_set(WG_EIO, "cannot write %s", path);
    }
    hex[WG_TOKEN_HEX_LEN] = '\0';
    char *t = strdup(hex);
    sodium_memzero(hex, sizeof hex);
    if (!t)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = t;
    return 0;
}

int wg_token_equal(const char *given, const char *expected)
{
    if (!given || !expected)
        return 0;
    size_t el = strlen(expected), gl = strnlen(given, el + 1);
    if (!el)
        return 0;
    /* Compare el bytes whatever the given length, so timing depends only on
     * the expected token; a length mismatch still fails. */
    unsigned char pad[MAX_TOKEN];
    if (el > sizeof pad)
        return 0;
    memset(pad, 0, sizeof pad);
    memcpy(pad, given, gl < el ? gl : el);
    int same = sodium_memcmp(pad, expected, el) == 0;
    sodium_memzero(pad, sizeof pad);
    return same && gl == el;
}

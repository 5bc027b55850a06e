/* token.c - bearer tokens in data-dir files (waggle/token.h): 256 random
 * bits as hex, created 0600 with O_EXCL so racing creators agree, read only
 * from a private regular file of ours, checked for strength, compared in
 * constant time. */
#include "store/files.h"
#include "waggle/token.h"
#include "waggle/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TOKEN WG_TOKEN_MAX_LEN

/* Character classes a token may use; the pool is the sum of the sizes of
 * the classes present. */
enum { C_LOWER = 1, C_UPPER = 2, C_DIGIT = 4, C_OTHER = 8 };

/* floor(1000 * log2(pool size)) for each set of classes (index = mask):
 * lower 26, upper 26, digits 10, other printable ASCII 32. */
static const unsigned milli_bits[16] = {
    0, 4700, 4700, 5700, 3321, 5169, 5169, 5954,
    5000, 5857, 5857, 6392, 5392, 6087, 6087, 6554,
};

static int class_of(unsigned char c)
{
    return c >= 'a' && c <= 'z' ? C_LOWER : c >= 'A' && c <= 'Z' ? C_UPPER
         : c >= '0' && c <= '9' ? C_DIGIT : C_OTHER;
}

int wg_token_check(const char *token, const char *origin)
{
    if (!origin)
        origin = "the token";
    size_t len = token ? strnlen(token, MAX_TOKEN + 1) : 0;
    if (len < WG_TOKEN_MIN_LEN || len > MAX_TOKEN)
        return wg_error_set(WG_EINVAL, "%s is %s: %zu characters, %d to %d needed "
                            "(make one with: openssl rand -hex 32)", origin,
                            len < WG_TOKEN_MIN_LEN ? "too short" : "too long", len,
                            WG_TOKEN_MIN_LEN, MAX_TOKEN);
    unsigned char seen[128] = { 0 };
    int mask = 0;
    size_t distinct = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)token[i];
        if (c <= 0x20 || c >= 0x7f)
            return wg_error_set(WG_EINVAL, "%s has a space, control or non-ASCII character "
                                "at position %zu", origin, i + 1);
        distinct += !seen[c];
        seen[c] = 1;
        mask |= class_of(c);
    }
    unsigned long long bits = (unsigned long long)len * milli_bits[mask] / 1000;
    if (distinct < WG_TOKEN_MIN_DISTINCT || bits < WG_TOKEN_MIN_BITS)
        return wg_error_set(WG_EINVAL, "%s is too weak: %zu different characters and about "
                            "%llu bits (at least %d and %d needed; make one with: openssl rand "
                            "-hex 32)", origin, distinct, bits, WG_TOKEN_MIN_DISTINCT,
                            WG_TOKEN_MIN_BITS);
    return 0;
}

/* Opens a token file for reading only when it is safe to trust: see
 * token.h. Returns the fd or a negative WG_E*. */
static int open_token(const char *path)
{
    struct stat sb;
    int fd = wg_files__open_ours(path, O_RDONLY, "token file", &sb);
    if (fd == WG_ENOTFOUND)
        return wg_error_set(WG_ENOTFOUND, "no token file %s", path);
    if (fd >= 0 && (sb.st_mode & 077)) {
        close(fd);
        return wg_error_set(WG_EDENIED, "token file %s is accessible to group or others (mode "
                            "%04o): treat the token as leaked. Delete the file and waggle makes "
                            "a new one (mode 0600) on the next start; clients then need the new "
                            "token", path, (unsigned)(sb.st_mode & 07777));
    }
    return fd;
}

int wg_token_read(char **out, const char *path)
{
    if (!out || !path)
        return wg_error_set(WG_EINVAL, "wg_token_read: NULL argument");
    int fd = open_token(path);
    if (fd < 0)
        return fd;
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
    char what[4200];
    snprintf(what, sizeof what, "the token in %s", path);
    int rc = wg_token_check(t, what);
    if (rc < 0) {
        sodium_memzero(t, len);
        free(t);
        return rc;
    }
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

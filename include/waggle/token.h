/* waggle/token.h - bearer tokens kept in files of the data dir
 * (DATA_DIR/api-token, DATA_DIR/admin-token).
 *
 * A token is 256 random bits (libsodium randombytes) written as 64 lower-
 * case hex chars, in a file created with mode 0600 (O_EXCL, so two processes
 * racing to create it agree on one token). Comparison is constant-time.
 * Thread-safe; no global state. Errors: WG_EIO, WG_EINVAL, WG_ENOMEM.
 */
#ifndef WAGGLE_TOKEN_H
#define WAGGLE_TOKEN_H

#ifdef __cplusplus
extern "C" {
#endif

#define WG_TOKEN_HEX_LEN 64

/* Reads the token at path, creating it first when missing. *out is new
 * (free(); it is a secret: wipe it). */
int wg_token_load_or_create(char **out, const char *path);

/* Reads an existing token (trailing newline/space stripped). WG_ENOTFOUND
 * when missing, WG_EINVAL when empty or longer than 1024 bytes. */
int wg_token_read(char **out, const char *path);

/* 1 when a and b are equal (constant time in the length of the expected
 * token b), 0 otherwise; NULL never matches. */
int wg_token_equal(const char *given, const char *expected);

#ifdef __cplusplus
}
#endif
#endif

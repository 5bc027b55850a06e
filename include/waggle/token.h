/* waggle/token.h - bearer tokens kept in files of the data dir
 * (DATA_DIR/api-token, DATA_DIR/admin-token).
 *
 * A token is 256 random bits (libsodium randombytes) written as 64 lower-
 * case hex chars, in a file created with mode 0600 (O_EXCL, so two processes
 * racing to create it agree on one token). Comparison is constant-time.
 *
 * A token file is trusted only when it is a regular file (never followed
 * through a symlink, never a FIFO that would block the reader), owned by
 * the user running waggle, and neither group- nor world-accessible: a
 * token others could read is treated as leaked and refused, not repaired.
 * Every token, from a file or from the environment, must pass
 * wg_token_check.
 *
 * Thread-safe; no global state. Errors: WG_EIO, WG_EINVAL, WG_EDENIED,
 * WG_ENOMEM.
 */
#ifndef WAGGLE_TOKEN_H
#define WAGGLE_TOKEN_H

#include "waggle/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WG_TOKEN_HEX_LEN 64
#define WG_TOKEN_MIN_LEN 32        /* characters */
#define WG_TOKEN_MAX_LEN 1024
#define WG_TOKEN_MIN_DISTINCT 10   /* different characters */
#define WG_TOKEN_MIN_BITS 128      /* estimated strength, see wg_token_check */

/* 0 when token is strong enough to guard the service: WG_TOKEN_MIN_LEN to
 * WG_TOKEN_MAX_LEN printable ASCII characters without spaces, at least
 * WG_TOKEN_MIN_DISTINCT different ones, and an estimated strength of at
 * least WG_TOKEN_MIN_BITS bits = length x log2(the size of the character
 * classes it uses: lower case 26, upper case 26, digits 10, others 32).
 * The generated tokens (64 hex chars, ~330 bits) always pass; so does
 * `openssl rand -hex 16` (32 hex chars). Otherwise WG_EINVAL with a
 * message naming origin (a file path or "WAGGLE_API_TOKEN") and the rule
 * that failed -- never the token. */
WG_EXTERN int wg_token_check(const char *token, const char *origin);

/* Reads the token at path, creating it first when missing. *out is new
 * (free(); it is a secret: wipe it). */
WG_EXTERN int wg_token_load_or_create(char **out, const char *path);

/* Reads an existing token (trailing newline/space stripped). WG_ENOTFOUND
 * when missing; WG_EDENIED when the file is a symlink, not a regular file,
 * owned by another user, or accessible to group or others (the message
 * says what to do); WG_EINVAL when empty, longer than WG_TOKEN_MAX_LEN or
 * weak (wg_token_check). */
WG_EXTERN int wg_token_read(char **out, const char *path);

/* 1 when a and b are equal (constant time in the length of the expected
 * token b), 0 otherwise; NULL never matches. */
WG_EXTERN int wg_token_equal(const char *given, const char *expected);

#ifdef __cplusplus
}
#endif
#endif

/* waggle/error.h - error codes and the per-thread last error message.
 *
 * Every fallible libwaggle call returns int: 0 on success, a negative WG_E*
 * code on failure, and leaves a human-readable message that
 * wg_error_last() returns on the same thread. Out-parameters are untouched
 * on failure.
 */
#ifndef WAGGLE_ERROR_H
#define WAGGLE_ERROR_H

#include "waggle/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WG_OK          =   0,
    WG_EINVAL      =  -1,  /* bad argument or malformed input */
    WG_ENOMEM      =  -2,  /* allocation failed */
    WG_ENOTFOUND   =  -3,  /* no such name, file, row, route */
    WG_EIO         =  -4,  /* file system or socket failure */
    WG_EEXISTS     =  -5,  /* already there (install, trial, collision) */
    WG_ECRYPTO     =  -6,  /* wrong key, tampered or moved ciphertext */
    WG_ESTORE      =  -7,  /* the store (SQLite/PostgreSQL) failed */
    WG_EDENIED     =  -8,  /* refused by policy (gate, confinement, read-only) */
    WG_ETIER       =  -9,  /* the plan does not include it */
    WG_EUPSTREAM   = -10,  /* an upstream service answered with an error */
    WG_ETIMEOUT    = -11,  /* a deadline passed */
    WG_EUNSUPPORTED= -12,  /* not available in this build or configuration */
    WG_EBUSY       = -13,  /* locked or rate-limited; retry later */
    WG_EAUTH       = -14,  /* missing or wrong credentials */
    WG_EINTERNAL   = -15,  /* a bug: an invariant did not hold */
    WG_EUNAVAILABLE= -16   /* the shared store (or a service it needs) is unreachable; retry */
} wg_error_code;

/* The message of the last failed call on this thread; "" when none.
 * Borrowed: valid until the next libwaggle call on this thread. */
WG_EXTERN const char *wg_error_last(void);

/* The code of the last failed call on this thread (WG_OK when none). */
WG_EXTERN int wg_error_last_code(void);

/* Stable lower-case name of a code, e.g. "einval". Never NULL. */
WG_EXTERN const char *wg_error_name(int code);

/* Records code and a printf-style message as this thread's last error and
 * returns code, so callers can write `return wg_error_set(WG_EINVAL, ...)`. */
WG_EXTERN int wg_error_set(int code, const char *fmt, ...)
              __attribute__((format(printf, 2, 3)));

/* Clears this thread's last error. */
WG_EXTERN void wg_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif

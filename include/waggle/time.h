/* waggle/time.h - the one time module: ISO-8601 timestamps, epoch
 * milliseconds, an injectable clock, and the credential-expiry rule.
 *
 * Every module that reads a date uses wg_time_parse_iso, so a date means
 * the same thing to the vault, the registry, tiers and the autonomy
 * resolver. The grammar is RFC 3339 with two relaxations ISO-8601 allows:
 *   YYYY-MM-DD                                   (midnight UTC)
 *   YYYY-MM-DD('T'|'t')HH:MM[:SS[.F]][ZONE]      F = 1..9 digits
 *   ZONE = 'Z' | 'z' | ('+'|'-')HH:MM            (none = UTC)
 * Fields are range-checked (month 1-12, the day within its month with leap
 * years, hour 0-23, minute and second 0-59, offset hours 0-23); a leap
 * second (:60), 24:00, basic format (20240101), a space separator and any
 * trailing byte are WG_EINVAL. Fractions beyond milliseconds are truncated
 * (toward the past). Years are 0000-9999.
 *
 * Pure and reentrant except wg_time_now_ms, which reads the real clock.
 */
#ifndef WAGGLE_TIME_H
#define WAGGLE_TIME_H

#include "waggle/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes a formatted timestamp needs, NUL included ("2026-01-02T03:04:05.678Z"). */
#define WG_TIME_ISO_MAX 32

/* The epoch-ms range the parser produces and epoch-ms inputs must be in:
 * 0000-01-01T00:00:00.000Z .. 9999-12-31T23:59:59.999Z. */
#define WG_TIME_MS_MIN (-62167219200000LL)
#define WG_TIME_MS_MAX 253402300799999LL

/* A clock: ms since the epoch. Tests inject one; NULL `now` is the real
 * clock. The function must be thread-safe when the owner is shared. */
typedef int64_t (*wg_clock_fn)(void *ctx);
typedef struct wg_clock {
    wg_clock_fn now;
    void *ctx;
} wg_clock;

/* clock->now(clock->ctx), or the real clock when clock or clock->now is NULL. */
WG_EXTERN int64_t wg_clock_now(const wg_clock *clock);

/* The real clock (CLOCK_REALTIME), ms since the epoch. */
WG_EXTERN int64_t wg_time_now_ms(void);

/* Parses a NUL-terminated timestamp (grammar above) into *ms. Returns 0, or
 * WG_EINVAL with a message naming what is wrong (*ms untouched). */
WG_EXTERN int wg_time_parse_iso(int64_t *ms, const char *iso);

/* The same over len bytes (a JSON string may hold a NUL: it is an error). */
WG_EXTERN int wg_time_parse_isob(int64_t *ms, const char *s, size_t len);

/* Writes "YYYY-MM-DDTHH:MM:SS.mmmZ" (UTC) for ms, clamped to the range above. */
WG_EXTERN void wg_time_format_iso(char buf[WG_TIME_ISO_MAX], int64_t ms);

/* 1 when ms is within WG_TIME_MS_MIN..WG_TIME_MS_MAX. */
WG_EXTERN int wg_time_ms_valid(int64_t ms);

/* The one credential-expiry rule (vault, registry, connector health):
 * 0 when expires_at is NULL or "" (no expiry); 1 when it is unparseable
 * (fail closed) or at or before now_ms; 0 otherwise. Never sets an error. */
WG_EXTERN int wg_time_credential_expired(const char *expires_at, int64_t now_ms);

#ifdef __cplusplus
}
#endif
#endif

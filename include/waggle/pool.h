/* waggle/pool.h - the credential pool: round-robin API-key rotation with
 * cooldowns (spec §13; reference §6).
 *
 * Behaviour (the original's, exactly):
 *   - entries in insertion order; a duplicate name is ignored, duplicate
 *     keys are allowed (operations on a key hit its first entry);
 *   - get_key first recovers expired cooldowns (now >= cooldownUntil ->
 *     active, lastError cleared), then scans from the round-robin index for
 *     the first active entry and advances the index past it;
 *   - report_error: errorCount++, lastError = msg or "HTTP <status>";
 *     401 -> disabled for good; 402 -> cooldown payment_cooldown_ms (24 h);
 *     429 -> rate_limit_cooldown_ms (1 h); anything else -> other_cooldown_ms
 *     (5 min); returns whether any key is still available; an unknown key
 *     changes nothing;
 *   - has_available: some entry active or with an expired cooldown (no
 *     mutation).
 * Beyond the original:
 *   - Retry-After: when the caller passes retry_after_ms >= 0 with a non-401
 *     status, the cooldown is now + retry_after_ms (capped at
 *     WG_POOL_RETRY_AFTER_MAX_MS) instead of the policy default;
 *   - with a store, the state (status, cooldownUntil, lastError, counts,
 *     the round-robin position) lives in the store's pool tables, keyed by
 *     provider and entry name, and every operation is one write transaction,
 *     so all processes sharing the data dir see the same cooldowns. Key
 *     values are never stored there (they come from the vault);
 *   - the clock is injectable (tests).
 *
 * Thread-safety: every operation on a wg_pool takes its mutex; one pool may
 * be shared by threads. Key pointers returned are borrowed and stay valid
 * for the pool's life (entries are never removed).
 *
 * Errors: WG_EINVAL, WG_ENOMEM, WG_ESTORE, WG_EBUSY, WG_ENOTFOUND.
 */
#ifndef WAGGLE_POOL_H
#define WAGGLE_POOL_H

#include "waggle/export.h"

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "waggle/store.h"
#include "waggle/time.h"
#include "waggle/vault.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_pool wg_pool;

#define WG_POOL_RATE_LIMIT_COOLDOWN_MS  3600000LL   /* 429: 1 h */
#define WG_POOL_PAYMENT_COOLDOWN_MS     86400000LL  /* 402: 24 h */
#define WG_POOL_OTHER_COOLDOWN_MS       300000LL    /* others: 5 min */
#define WG_POOL_RETRY_AFTER_MAX_MS      86400000LL  /* Retry-After cap: 24 h */
#define WG_POOL_DEFAULT_MAX_KEYS        10

/* ms since the epoch (the time module's clock function, waggle/time.h). */
typedef wg_clock_fn wg_pool_clock;

#define WG_POOL_OPTIONS_VERSION 1

typedef struct wg_pool_options {
    unsigned int version;            /* WG_POOL_OPTIONS_VERSION */
    int64_t rate_limit_cooldown_ms;  /* 0 = default */
    int64_t payment_cooldown_ms;     /* 0 = default */
    int64_t other_cooldown_ms;       /* 0 = default */
    wg_pool_clock now;               /* NULL = real clock */
    void *now_ctx;
} wg_pool_options;

#define WG_POOL_OPTIONS_INIT { .version = WG_POOL_OPTIONS_VERSION }

/* A new empty pool for provider (copied). st may be NULL (state in memory
 * only) and is borrowed. opts may be NULL (the defaults). *out is new:
 * wg_pool_free. Returns 0, WG_EINVAL (opts of another version), WG_ENOMEM. */
WG_EXTERN int wg_pool_new(wg_pool **out, const char *provider, wg_store *st,
                          const wg_pool_options *opts);

/* Wipes the keys and frees. NULL is a no-op. */
WG_EXTERN void wg_pool_free(wg_pool *p);

/* Adds an entry (both strings copied). A duplicate name is ignored and
 * still returns 0. */
WG_EXTERN int wg_pool_add(wg_pool *p, const char *name, const char *key);

/* loadCredentialPool: vault entry `provider` if present, then provider-2 ..
 * provider-<max_keys>, stopping at the first absent one (a missing primary
 * does not stop it). max_keys <= 0 means 10. */
WG_EXTERN int wg_pool_load(wg_pool **out, wg_vault *v, const char *provider, int max_keys,
                           wg_store *st, const wg_pool_options *opts);

/* getKey: *key / *name (either may be NULL) borrowed. Returns 0, or
 * WG_ENOTFOUND when the pool is empty or no key is available (the message
 * says which), or a store error. */
WG_EXTERN int wg_pool_get_key(wg_pool *p, const char **key, const char **name);

/* reportError. retry_after_ms < 0 = none. *available (may be NULL)
 * receives hasAvailableKeys() after the update. An unknown key is not an
 * error: nothing changes. msg may be NULL. */
WG_EXTERN int wg_pool_report_error(wg_pool *p, const char *key, int status,
                                   const char *msg, int64_t retry_after_ms, int *available);

/* reportSuccess: successCount++ of the first entry with that key. */
WG_EXTERN int wg_pool_report_success(wg_pool *p, const char *key);

/* hasAvailableKeys into *available. */
WG_EXTERN int wg_pool_has_available(wg_pool *p, int *available);

/* getStatus (recovers expired cooldowns first): PoolStatus JSON
 * {provider, totalKeys, activeKeys, cooldownKeys, disabledKeys,
 *  entries:[{name,status,cooldownUntil,lastError,successCount,errorCount}]}
 * with cooldownUntil ms or null. No key values. *out new. */
WG_EXTERN int wg_pool_status(json_t **out, wg_pool *p);

/* The name of the first entry with key, or NULL. Borrowed. */
WG_EXTERN const char *wg_pool_name_for_key(wg_pool *p, const char *key);
/* The key of the entry called name, or NULL. Borrowed. */
WG_EXTERN const char *wg_pool_key_for_name(wg_pool *p, const char *name);

WG_EXTERN size_t wg_pool_size(const wg_pool *p);
WG_EXTERN const char *wg_pool_provider(const wg_pool *p);

/* extractStatusCode over what the caller knows of an error. */
typedef struct wg_pool_error_info {
    int has_status;          /* err.status is a number */
    long status;
    int has_status_code;     /* err.statusCode is a number */
    long status_code;
    const char *message;     /* err.message when err is an Error, else NULL */
} wg_pool_error_info;

/* status if has_status (0 included), else status_code, else the first
 * whole-word 401|402|429|500|502|503 in message; -1 when none (null). */
WG_EXTERN int wg_pool_extract_status_code(const wg_pool_error_info *e);

#ifdef __cplusplus
}
#endif
#endif

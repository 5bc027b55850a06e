/* waggle/autonomy.h - the one autonomy resolver (spec 7.3, 7.5).
 *
 * A caller asks for a level (normal, trusted, yolo); the operator decides
 * how far that request may go. Every face (HTTP, CLI, MCP, hooks) resolves
 * through wg_autonomy_resolve, so they agree by construction:
 *   1. normal is always normal                          rule autonomy.normal
 *   2. an operator's standing choice (the CLI's --level) applies without an
 *      expiry                                           rule autonomy.standing
 *   3. otherwise an elevated level applies only while expiresAt is present
 *                                                       rule autonomy.no_expiry
 *      and in the future                                rule autonomy.expired
 *      and at most policy->cap_ms ahead of now          rule autonomy.beyond_cap
 *      (each of these falls back to normal)
 *   4. the result never exceeds policy->max_level: the operator's cap on the
 *      level an app may request (`waggle serve --max-autonomy trusted`)
 *                                                       rule autonomy.max_level
 *   5. otherwise the requested level applies            rule autonomy.applied
 * Pure: the clock is a parameter. Reentrant.
 */
#ifndef WAGGLE_AUTONOMY_H
#define WAGGLE_AUTONOMY_H

#include "waggle/export.h"

#include <stdint.h>
#include <jansson.h>

#include "waggle/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WG_AUTONOMY_REQUEST_VERSION 1
#define WG_AUTONOMY_POLICY_VERSION 1
/* How far ahead expiresAt may be by default: 8 hours (ARCHITECTURE decisions). */
#define WG_AUTONOMY_DEFAULT_CAP_MS (8LL * 3600 * 1000)
#define WG_AUTONOMY_REASON_MAX 160

/* What a caller asked for. */
typedef struct wg_autonomy_request {
    unsigned int version;    /* WG_AUTONOMY_REQUEST_VERSION */
    wg_autonomy level;       /* requested */
    int has_expires;         /* expiresAt was given */
    int64_t expires_ms;      /* ms since the epoch, when has_expires */
    int standing;            /* the operator's own choice: no expiry needed */
} wg_autonomy_request;

#define WG_AUTONOMY_REQUEST_INIT { WG_AUTONOMY_REQUEST_VERSION, WG_AUTONOMY_NORMAL, 0, 0, 0 }

/* What the operator allows. */
typedef struct wg_autonomy_policy {
    unsigned int version;    /* WG_AUTONOMY_POLICY_VERSION */
    int64_t cap_ms;          /* > 0: the furthest expiresAt may be ahead; <= 0 is an error */
    wg_autonomy max_level;   /* the highest level any request may get */
} wg_autonomy_policy;

#define WG_AUTONOMY_POLICY_INIT \
    { WG_AUTONOMY_POLICY_VERSION, WG_AUTONOMY_DEFAULT_CAP_MS, WG_AUTONOMY_YOLO }

typedef struct wg_autonomy_resolution {
    wg_autonomy requested;
    wg_autonomy applied;
    int has_expires;
    int64_t expires_ms;
    const char *rule;                     /* static, see above */
    char reason[WG_AUTONOMY_REASON_MAX];  /* why applied != requested; "" otherwise */
} wg_autonomy_resolution;

/* Decides the level that applies at now_ms. Fills *out. Returns 0, or
 * WG_EINVAL for a NULL argument, an unknown level, a policy with
 * cap_ms <= 0 (a cap is never "unlimited") or an unknown struct version. */
WG_EXTERN int wg_autonomy_resolve(wg_autonomy_resolution *out, const wg_autonomy_request *req,
                                  const wg_autonomy_policy *policy, int64_t now_ms);

/* Parses the request-body form of spec 7.5 into *out (never standing):
 *   absent (NULL) or null      -> normal
 *   {level?, expiresAt?}       -> level (default normal); expiresAt is ms
 *                                 since the epoch (an integer, or a real
 *                                 rounded down) or an ISO-8601 string with
 *                                 an offset; null means absent
 * Returns 0, or WG_EINVAL with *field set to the offending JSON path
 * ("autonomy", "autonomy.level", "autonomy.expiresAt"; static) and the
 * message in wg_error_last(). field may be NULL. */
WG_EXTERN int wg_autonomy_request_from_json(wg_autonomy_request *out, const json_t *autonomy,
                                            const char **field);

/* {"requested","applied","expiresAt" (ms or null),"rule","reason" (or null)}. New. */
WG_EXTERN json_t *wg_autonomy_resolution_json(const wg_autonomy_resolution *r);

#ifdef __cplusplus
}
#endif
#endif

/* waggle/tier.h - subscription tiers (spec §10; reference §8.3).
 *
 * Part 1, pure decisions (src/core/tier.c; no I/O, clock passed in):
 * parsing with the legacy names, ordering, the TRIAL rules, requireTier's
 * 403 fields, and the capability table as data.
 *   - TRIAL lasts WG_TIER_TRIAL_DAYS (15) days from trialStartedAt and while
 *     active satisfies every tier; afterwards the effective tier is FREE.
 *   - A missing, unreadable or unknown tier is FREE.
 *   - A trialStartedAt that is missing, unparseable or in the future makes
 *     the trial invalid: effective FREE, trialExpired true, 0 days left
 *     (the original let a future date give a never-ending trial, §13.19).
 *
 * Part 2, config.json in the data dir (src/store/config.c): reading the
 * tier status (never fails: anything wrong reads as FREE), setting the tier
 * and starting the trial (atomic rewrite, mode 0600, other keys kept), each
 * change appended to the audit log as event "tier_changed".
 *
 * Thread-safety: part 1 is reentrant. Part 2 writes files; concurrent
 * writers of one data dir are serialised with an advisory lock on
 * DATA_DIR/config.json.lock.
 */
#ifndef WAGGLE_TIER_H
#define WAGGLE_TIER_H

#include "waggle/export.h"

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "waggle/time.h"   /* wg_time_*: the tier rules read dates with it */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WG_TIER_FREE = 0,
    WG_TIER_PRO,
    WG_TIER_TEAMS,
    WG_TIER_ENTERPRISE,
    WG_TIER_TRIAL
} wg_tier;

#define WG_TIER_COUNT 5
#define WG_TIER_TRIAL_DAYS 15
#define WG_TIER_UPGRADE_URL "https://waggle-os.ai/upgrade"

/* "FREE", "PRO", "TEAMS", "ENTERPRISE", "TRIAL"; "FREE" for out-of-range. */
WG_EXTERN const char *wg_tier_name(wg_tier t);

/* parseTier: exact upper-cased match against the five names first, then the
 * legacy names lower-cased (solo->FREE, basic->PRO, business->TEAMS,
 * enterprise->ENTERPRISE, trial->TRIAL). No trimming: " PRO" is invalid.
 * Returns 0, or WG_EINVAL (NULL, empty, unknown) leaving *out untouched. */
WG_EXTERN int wg_tier_parse(wg_tier *out, const char *raw);

/* Rank: FREE 0, PRO 1, TEAMS 2, ENTERPRISE 3, TRIAL 3. */
WG_EXTERN int wg_tier_rank(wg_tier t);

/* 1 when actual ranks at or above required. Callers pass the EFFECTIVE
 * tier (an expired TRIAL has already decayed to FREE). */
WG_EXTERN int wg_tier_satisfies(wg_tier actual, wg_tier required);

/* The evaluated tier of a config. */
typedef struct wg_tier_status {
    wg_tier tier;               /* the configured tier (FREE when none) */
    int has_tier;               /* config named a valid tier */
    wg_tier effective;          /* what gates use */
    int has_trial_start;        /* trialStartedAt present (even if invalid) */
    int64_t trial_started_ms;   /* valid only when trial_start_valid */
    int trial_start_valid;      /* parseable and not in the future */
    int trial_days_remaining;   /* max(0, ceil(15 - elapsed days)); 0 if invalid */
    int trial_expired;          /* no valid start, or elapsed > 15 days */
    char trial_started_at[64];  /* as configured (truncated), "" when none */
} wg_tier_status;

/* Evaluates raw_tier / trial_started_at (either may be NULL) at now_ms. */
WG_EXTERN void wg_tier_evaluate(wg_tier_status *out, const char *raw_tier,
                                const char *trial_started_at, int64_t now_ms);

/* requireTier: the 403 body fields when `effective` does not satisfy
 * `required`. */
typedef struct wg_tier_denial {
    int status;                 /* 403 */
    const char *error;          /* "TIER_INSUFFICIENT" */
    char message[96];           /* "This feature requires the PRO tier. You are on FREE." */
    const char *required;       /* tier name */
    const char *actual;         /* effective tier name */
    const char *upgrade_url;    /* WG_TIER_UPGRADE_URL */
} wg_tier_denial;

/* Returns 0 when allowed (out untouched), WG_ETIER with *out filled (and
 * the message set as the last error) when not. out may be NULL. */
WG_EXTERN int wg_tier_require(wg_tier_denial *out, wg_tier effective, wg_tier required);

/* {"error","message","required","actual","upgradeUrl"} in that order. New. */
WG_EXTERN json_t *wg_tier_denial_json(const wg_tier_denial *d);

/* The capability table: what each tier includes (data, one row per tier).
 * Limits are -1 for unlimited. */
typedef struct wg_tier_capabilities {
    wg_tier tier;
    int connector_limit;        /* FREE 5 (reference §8.3) */
    int workspace_limit;
    int personas;               /* custom personas (POST /api/personas) */
    int marketplace_install;    /* install/publish marketplace packs */
    int cost_by_workspace;
    int cloud_sync;
    int admin;                  /* admin overview, audit export */
    int team;                   /* team connect */
    int governance;             /* team governance permissions */
    int kvark;                  /* KVARK enterprise tools and packs */
} wg_tier_capabilities;

/* The row for t (TRIAL has ENTERPRISE's rights). Never NULL. */
WG_EXTERN const wg_tier_capabilities *wg_tier_capabilities_of(wg_tier t);

/* {"connectorLimit", "workspaceLimit", "features":{...}} for t. New. */
WG_EXTERN json_t *wg_tier_capabilities_json(wg_tier t);

/* Feature gates as data: feature name -> minimum tier. */
typedef struct wg_tier_feature {
    const char *feature;        /* "personas", "marketplace_install", ... */
    wg_tier min;
} wg_tier_feature;

/* The table; *n receives its length. */
WG_EXTERN const wg_tier_feature *wg_tier_features(size_t *n);
/* Minimum tier of a feature. WG_ENOTFOUND when unknown. */
WG_EXTERN int wg_tier_feature_min(wg_tier *out, const char *feature);

/* ---- part 2: DATA_DIR/config.json (src/store/config.c) ----------------- */

struct wg_audit;

/* Reads config.json fields `tier` and `trialStartedAt` and evaluates them
 * at now_ms (0 = real clock). Never fails: missing or broken files read as
 * FREE. */
WG_EXTERN void wg_tier_read(wg_tier_status *out, const char *data_dir, int64_t now_ms);

/* Writes `tier` (other keys kept). audit may be NULL; when given, appends
 * tier_changed {from, to} with actor. Returns 0, WG_EIO, WG_ENOMEM, or the
 * audit's error (the tier is already written then). */
WG_EXTERN int wg_tier_set(const char *data_dir, wg_tier tier, struct wg_audit *audit,
                          const char *actor);

/* Sets tier TRIAL and trialStartedAt = now_ms (0 = real clock). Refuses
 * with WG_EEXISTS when trialStartedAt is already set (one trial only). */
WG_EXTERN int wg_tier_start_trial(const char *data_dir, int64_t now_ms,
                                  struct wg_audit *audit, const char *actor);

/* {tier, effectiveTier, trialStartedAt (null when none), trialDaysRemaining,
 * trialExpired}. New. */
WG_EXTERN json_t *wg_tier_status_json(const wg_tier_status *s);

#ifdef __cplusplus
}
#endif
#endif

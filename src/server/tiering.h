/* tiering.h - the tier check the router runs for rows with a min_tier
 * (spec 10): reads the effective tier (TRIAL decays to FREE) and answers the
 * spec's exact 403 TIER_INSUFFICIENT body. Internal to src/server. */
#ifndef WAGGLE_SERVER_TIERING_H
#define WAGGLE_SERVER_TIERING_H

#include "server/route.h"

/* 0 when the effective tier satisfies `min`; otherwise fills *res with
 * 403 {"error":"TIER_INSUFFICIENT","message":"This feature requires the
 * <required> tier. You are on <actual>.","required":..,"actual":..,
 * "upgradeUrl":"https://waggle-os.ai/upgrade"} and returns 1. */
int wg_tiering__check(wg_res *res, const wg_server_ctx *ctx, wg_route_tier min);

typedef struct {
    int tier;                      /* wg_tier configured (FREE when none) */
    int effective_tier;            /* wg_tier after the trial rules */
    char raw[16];                  /* parsed tier name, "FREE" when none */
    int has_tier;                  /* config.json named a valid tier */
    wg_route_tier effective;       /* TRIAL active -> ENTERPRISE rank */
    const char *effective_name;    /* "TRIAL" while active; expired -> "FREE" */
    char trial_started_at[64];     /* "" when absent */
    int trial_days_remaining;
    int trial_expired;
    int trial_active;
} wg_tier_info;

/* Reads the tier through the engine (DATA_DIR/config.json, or the shared
 * store). *info is always filled (FREE when unreadable); returns 0, or the
 * shared store's error (WG_EUNAVAILABLE: answer 503). */
int wg_tiering__read(wg_tier_info *info, const wg_server_ctx *ctx);

/* The real clock, ms since the epoch. */
long long wg_tiering__now_ms(void);

/* "FREE", "PRO", "TEAMS", "ENTERPRISE". */
const char *wg_tiering__name(wg_route_tier t);

#endif

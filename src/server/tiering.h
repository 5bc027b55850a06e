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

/* "FREE", "PRO", "TEAMS", "ENTERPRISE". */
const char *wg_tiering__name(wg_route_tier t);

#endif

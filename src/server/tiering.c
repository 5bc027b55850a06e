/* tiering.c - route tier gating (spec 10, reference 8.3) over the store's
 * tier module (waggle/tier.h): the effective tier comes from config.json
 * (TRIAL decays to FREE after 15 days, a future trialStartedAt is invalid,
 * anything unreadable is FREE) and the 403 body is requireTier's. */
#include "server/tiering.h"
#include "server/server_int.h"
#include "waggle/engine.h"
#include "waggle/tier.h"

#include <stdio.h>
#include <string.h>

static const wg_tier route_tiers[] = { WG_TIER_FREE, WG_TIER_PRO, WG_TIER_TEAMS,
                                       WG_TIER_ENTERPRISE };

const char *wg_tiering__name(wg_route_tier t)
{
    return (t >= WG_ROUTE_FREE && t <= WG_ROUTE_ENTERPRISE) ? wg_tier_name(route_tiers[t]) : "FREE";
}

long long wg_tiering__now_ms(void)
{
    return (long long)wg_time_now_ms();
}

int wg_tiering__read(wg_tier_info *info, const wg_server_ctx *ctx)
{
    wg_tier_status st;
    int rc = wg_engine_tier_get(&st, ctx->engine);
    memset(info, 0, sizeof *info);
    snprintf(info->raw, sizeof info->raw, "%s", wg_tier_name(st.tier));
    info->has_tier = st.has_tier;
    info->tier = st.tier;
    info->effective_tier = st.effective;
    info->effective = (wg_route_tier)wg_tier_rank(st.effective);
    info->effective_name = wg_tier_name(st.effective);
    snprintf(info->trial_started_at, sizeof info->trial_started_at, "%s", st.trial_started_at);
    info->trial_days_remaining = st.trial_days_remaining;
    info->trial_expired = st.trial_expired;
    info->trial_active = st.effective == WG_TIER_TRIAL;
    return rc;
}

int wg_tiering__check(wg_res *res, const wg_server_ctx *ctx, wg_route_tier min)
{
    wg_tier_info info;
    int rc = wg_tiering__read(&info, ctx);
    if (rc < 0) {
        /* A shared store that cannot be read is 503, never a plan's 403. */
        wg_res__from_error(res, rc, ctx);
        return 1;
    }
    wg_tier_denial d;
    if (min < WG_ROUTE_FREE || min > WG_ROUTE_ENTERPRISE ||
        wg_tier_require(&d, info.effective_tier, route_tiers[min]) == 0)
        return 0;
    wg_res_json(res, d.status, wg_tier_denial_json(&d));
    return 1;
}

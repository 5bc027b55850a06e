/* routes_tier.c - the plan (spec 10, reference 8.3).
 *   GET   /api/tier               {tier, rawTier, trialStartedAt, trialDaysRemaining,
 *                                  trialExpired, capabilities, limits, ...}
 *   PATCH /api/tier {tier}        admin token only (reference 13 item 19: the
 *                                  ordinary API token cannot raise its own plan)
 *   POST  /api/tier/start-trial   once per data dir; 409 TRIAL_ALREADY_STARTED
 * Reading, writing and the trial rules are the store's tier module
 * (waggle/tier.h); every change is audited as tier_changed. */
#include "server/route.h"
#include "waggle/engine.h"
#include "server/tiering.h"
#include "waggle/error.h"
#include "waggle/tier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *tier_body(const wg_server_ctx *ctx, int *rc)
{
    wg_tier_info info;
    *rc = wg_tiering__read(&info, ctx);
    if (*rc < 0)
        return NULL;
    json_t *caps = wg_tier_capabilities_json((wg_tier)info.effective_tier);
    return json_pack("{s:s,s:o,s:o,s:i,s:b,s:b,s:o,s:O}",
                     "tier", info.effective_name,
                     "rawTier", info.has_tier ? json_string(info.raw) : json_null(),
                     "trialStartedAt", *info.trial_started_at ? json_string(info.trial_started_at)
                                                              : json_null(),
                     "trialDaysRemaining", info.trial_days_remaining,
                     "trialExpired", info.trial_expired,
                     "trialActive", info.trial_active,
                     "capabilities", caps, "limits", caps);
}

static int get_tier(wg_res *res, const wg_req *req)
{
    int rc = 0;
    json_t *body = tier_body(req->ctx, &rc);
    return rc < 0 ? rc : wg_res_json(res, 200, body);
}

static int patch_tier(wg_res *res, const wg_req *req)
{
    const char *raw = NULL;
    if (wg_body_string(res, req, "tier", 1, &raw) < 0)
        return 0;
    wg_tier tier;
    if (wg_tier_parse(&tier, raw) < 0)
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_TIER", "field",
            "tier", "message", "Invalid tier. Must be one of: TRIAL, FREE, PRO, TEAMS, ENTERPRISE"));
    int rc = wg_engine_tier_set(req->ctx->engine, tier, "api-admin");
    if (rc < 0)
        return rc;
    json_t *body = tier_body(req->ctx, &rc);
    return rc < 0 ? rc : wg_res_json(res, 200, body);
}

static int start_trial(wg_res *res, const wg_req *req)
{
    int rc = wg_engine_trial_start(req->ctx->engine, "api");
    if (rc == WG_EEXISTS) {
        json_t *body = tier_body(req->ctx, &rc);
        if (rc < 0)
            return rc;
        json_object_set_new(body, "error", json_string("TRIAL_ALREADY_STARTED"));
        json_object_set_new(body, "message",
                            json_string("A trial was already started for this installation."));
        return wg_res_json(res, 409, body);
    }
    if (rc < 0)
        return rc;
    json_t *body = tier_body(req->ctx, &rc);
    return rc < 0 ? rc : wg_res_json(res, 200, body);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,   "/api/tier",             get_tier,    WG_ROUTE_FREE, 0 },
    { WG_HTTP_PATCH, "/api/tier",             patch_tier,  WG_ROUTE_FREE, WG_ROUTE_ADMIN },
    { WG_HTTP_POST,  "/api/tier/start-trial", start_trial, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_tier = {
    "tier", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

/* routes_tier.c - the plan (spec 10, reference 8.3).
 *   GET   /api/tier               {tier, rawTier, trialStartedAt, trialDaysRemaining,
 *                                  trialExpired, capabilities, limits, ...}
 *   PATCH /api/tier {tier}        admin token only (reference 13 item 19: the
 *                                  ordinary API token cannot raise its own plan)
 *   POST  /api/tier/start-trial   once per data dir; 409 TRIAL_ALREADY_STARTED
 * config.json keeps every other field it has; writes are atomic and
 * serialized by a mutex. */
#include "server/route.h"
#include "server/server_int.h"
#include "server/tiering.h"
#include "waggle/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct {
    pthread_mutex_t lock;
} tier_state;

static const char *const tier_names[] = { "TRIAL", "FREE", "PRO", "TEAMS", "ENTERPRISE" };

/* Features the plan unlocks: each is the minimum tier of a gated route
 * (spec 10) so the list cannot drift from the route table. */
static const struct {
    const char *feature;
    wg_route_tier min;
} features[] = {
    { "marketplaceInstall", WG_ROUTE_PRO },   { "marketplacePublish", WG_ROUTE_PRO },
    { "customPersonas", WG_ROUTE_PRO },       { "costByWorkspace", WG_ROUTE_TEAMS },
    { "cloudSync", WG_ROUTE_TEAMS },          { "adminOverview", WG_ROUTE_TEAMS },
    { "auditExport", WG_ROUTE_TEAMS },        { "teamConnect", WG_ROUTE_TEAMS },
    { "teamGovernance", WG_ROUTE_ENTERPRISE }, { "enterprisePacks", WG_ROUTE_ENTERPRISE },
    { "kvark", WG_ROUTE_ENTERPRISE },
};

static json_t *tier_body(const wg_server_ctx *ctx)
{
    wg_tier_info info;
    wg_tiering__read(&info, ctx);
    json_t *caps = json_object();
    json_t *feat = json_object();
    for (size_t i = 0; i < sizeof features / sizeof *features; i++) {
        json_object_set_new(caps, features[i].feature, json_boolean(info.effective >= features[i].min));
        json_object_set_new(feat, features[i].feature, json_boolean(info.effective >= features[i].min));
    }
    /* reference 8.3: connectorLimit FREE = 5; the other plans are unlimited (null). */
    json_t *limit = info.effective == WG_ROUTE_FREE ? json_integer(5) : json_null();
    json_object_set(caps, "connectorLimit", limit);
    return json_pack("{s:s,s:o,s:o,s:i,s:b,s:b,s:o,s:{s:o,s:o}}",
                     "tier", info.effective_name,
                     "rawTier", info.has_tier ? json_string(info.raw) : json_null(),
                     "trialStartedAt", *info.trial_started_at ? json_string(info.trial_started_at)
                                                              : json_null(),
                     "trialDaysRemaining", info.trial_days_remaining,
                     "trialExpired", info.trial_expired,
                     "trialActive", info.trial_active,
                     "capabilities", caps,
                     "limits", "connectorLimit", limit, "features", feat);
}

static int get_tier(wg_res *res, const wg_req *req)
{
    return wg_res_json(res, 200, tier_body(req->ctx));
}

/* Exact, case-insensitive TIERS names only for writes. */
static const char *canonical_tier(const char *s)
{
    for (size_t i = 0; i < sizeof tier_names / sizeof *tier_names; i++)
        if (strcasecmp(s, tier_names[i]) == 0)
            return tier_names[i];
    return NULL;
}

static void set_tier(json_t *cfg, const void *arg)
{
    json_object_set_new(cfg, "tier", json_string(arg));
}

static int patch_tier(wg_res *res, const wg_req *req)
{
    tier_state *st = req->area_state;
    const char *tier = NULL;
    if (wg_body_string(res, req, "tier", 1, &tier) < 0)
        return 0;
    const char *canon = canonical_tier(tier);
    if (!canon)
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_TIER", "field",
            "tier", "message", "Invalid tier. Must be one of: TRIAL, FREE, PRO, TEAMS, ENTERPRISE"));
    pthread_mutex_lock(&st->lock);
    int rc = wg_server_config_edit(req->ctx, set_tier, canon);
    pthread_mutex_unlock(&st->lock);
    if (rc < 0)
        return rc;
    wg_server_logf(req->ctx, "tier_changed tier=%s", canon);
    return wg_res_json(res, 200, tier_body(req->ctx));
}

static void set_trial(json_t *cfg, const void *arg)
{
    json_object_set_new(cfg, "tier", json_string("TRIAL"));
    json_object_set_new(cfg, "trialStartedAt", json_string(arg));
}

static int start_trial(wg_res *res, const wg_req *req)
{
    tier_state *st = req->area_state;
    pthread_mutex_lock(&st->lock);
    wg_tier_info info;
    wg_tiering__read(&info, req->ctx);
    if (*info.trial_started_at) {
        pthread_mutex_unlock(&st->lock);
        json_t *body = tier_body(req->ctx);
        json_object_set_new(body, "error", json_string("TRIAL_ALREADY_STARTED"));
        json_object_set_new(body, "message",
                            json_string("A trial was already started for this installation."));
        return wg_res_json(res, 409, body);
    }
    char now[32];
    long long ms = wg_tiering__now_ms();
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t n = strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(now + n, sizeof now - n, ".%03lldZ", ms % 1000);
    int rc = wg_server_config_edit(req->ctx, set_trial, now);
    pthread_mutex_unlock(&st->lock);
    if (rc < 0)
        return rc;
    wg_server_logf(req->ctx, "tier_changed tier=TRIAL trial_started=1");
    return wg_res_json(res, 200, tier_body(req->ctx));
}

static int init(void **state, wg_server_ctx *ctx)
{
    (void)ctx;
    tier_state *st = calloc(1, sizeof *st);
    if (!st)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&st->lock, NULL);
    *state = st;
    return 0;
}

static void fini(void *state)
{
    tier_state *st = state;
    if (!st)
        return;
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,   "/api/tier",             get_tier,    WG_ROUTE_FREE, 0 },
    { WG_HTTP_PATCH, "/api/tier",             patch_tier,  WG_ROUTE_FREE, WG_ROUTE_ADMIN },
    { WG_HTTP_POST,  "/api/tier/start-trial", start_trial, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_tier = {
    "tier", routes, sizeof routes / sizeof routes[0], init, fini,
};

/* tier.c - subscription tier decisions (spec §10; reference §8.3, §12.8):
 * parseTier with the legacy names, ranks, the TRIAL rules, requireTier's
 * 403 fields and the capability table. Pure: no I/O, the clock is an
 * argument. A trialStartedAt in the future is invalid (FREE) instead of the
 * original's endless trial (§13.19). */
#include "waggle/tier.h"
#include "waggle/error.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define DAY_MS 86400000LL

typedef struct tier_row {
    wg_tier tier;
    const char *name;
    int rank;
} tier_row;

static const tier_row tiers[WG_TIER_COUNT] = {
    { WG_TIER_FREE,       "FREE",       0 },
    { WG_TIER_PRO,        "PRO",        1 },
    { WG_TIER_TEAMS,      "TEAMS",      2 },
    { WG_TIER_ENTERPRISE, "ENTERPRISE", 3 },
    { WG_TIER_TRIAL,      "TRIAL",      3 },
};

/* Legacy plan names, matched lower-cased (reference §8.3). */
static const struct { const char *legacy; wg_tier tier; } legacy[] = {
    { "solo",       WG_TIER_FREE },
    { "basic",      WG_TIER_PRO },
    { "business",   WG_TIER_TEAMS },
    { "enterprise", WG_TIER_ENTERPRISE },
    { "trial",      WG_TIER_TRIAL },
};

const char *wg_tier_name(wg_tier t)
{
    return (unsigned)t < WG_TIER_COUNT ? tiers[t].name : "FREE";
}

int wg_tier_rank(wg_tier t)
{
    return (unsigned)t < WG_TIER_COUNT ? tiers[t].rank : 0;
}

int wg_tier_satisfies(wg_tier actual, wg_tier required)
{
    return wg_tier_rank(actual) >= wg_tier_rank(required);
}

int wg_tier_parse(wg_tier *out, const char *raw)
{
    char up[16], low[16];
    size_t n = raw ? strlen(raw) : 0;
    if (!n || n >= sizeof up)
        return wg_error_set(WG_EINVAL, "unknown tier");
    for (size_t i = 0; i <= n; i++) {
        up[i] = (char)toupper((unsigned char)raw[i]);
        low[i] = (char)tolower((unsigned char)raw[i]);
    }
    for (size_t i = 0; i < WG_TIER_COUNT; i++) {
        if (!strcmp(up, tiers[i].name)) {
            *out = tiers[i].tier;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof legacy / sizeof *legacy; i++) {
        if (!strcmp(low, legacy[i].legacy)) {
            *out = legacy[i].tier;
            return 0;
        }
    }
    return wg_error_set(WG_EINVAL, "unknown tier %.32s (one of TRIAL, FREE, PRO, TEAMS, ENTERPRISE)", raw);
}

void wg_tier_evaluate(wg_tier_status *out, const char *raw_tier,
                      const char *trial_started_at, int64_t now_ms)
{
    memset(out, 0, sizeof *out);
    out->tier = WG_TIER_FREE;
    wg_tier t;
    if (raw_tier && wg_tier_parse(&t, raw_tier) == 0) {
        out->tier = t;
        out->has_tier = 1;
    }
    wg_error_clear();
    out->trial_expired = 1;
    if (trial_started_at && *trial_started_at) {
        out->has_trial_start = 1;
        snprintf(out->trial_started_at, sizeof out->trial_started_at, "%s", trial_started_at);
        int64_t start = 0;
        if (wg_time_parse_iso(&start, trial_started_at) == 0 && start <= now_ms) {
            int64_t elapsed = now_ms - start;
            out->trial_start_valid = 1;
            out->trial_started_ms = start;
            out->trial_expired = elapsed > WG_TIER_TRIAL_DAYS * DAY_MS;
            /* max(0, ceil(15 - elapsed days)) in integer ms arithmetic */
            int64_t left = WG_TIER_TRIAL_DAYS * DAY_MS - elapsed;
            out->trial_days_remaining = left > 0 ? (int)((left + DAY_MS - 1) / DAY_MS) : 0;
        }
        wg_error_clear();
    }
    out->effective = out->tier;
    if (out->tier == WG_TIER_TRIAL && out->trial_expired)
        out->effective = WG_TIER_FREE;
}

int wg_tier_require(wg_tier_denial *out, wg_tier effective, wg_tier required)
{
    if (wg_tier_satisfies(effective, required))
        return 0;
    wg_tier_denial d = {
        .status = 403,
        .error = "TIER_INSUFFICIENT",
        .required = wg_tier_name(required),
        .actual = wg_tier_name(effective),
        .upgrade_url = WG_TIER_UPGRADE_URL,
    };
    snprintf(d.message, sizeof d.message, "This feature requires the %s tier. You are on %s.",
             d.required, d.actual);
    if (out)
        *out = d;
    return wg_error_set(WG_ETIER, "%s", d.message);
}

json_t *wg_tier_denial_json(const wg_tier_denial *d)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s}", "error", d->error, "message", d->message,
                     "required", d->required, "actual", d->actual, "upgradeUrl", d->upgrade_url);
}

/* ---- the capability table ---------------------------------------------- */

/* connectorLimit FREE = 5 is the original's (reference §8.3); the other
 * limits are this project's, and the feature flags mirror the minimum tiers
 * of the spec's gated routes (§10). TRIAL has ENTERPRISE's rights. The KVARK
 * tools come with TEAMS (spec 9 "only TEAMS/ENTERPRISE expose KVARK";
 * ARCHITECTURE.md Decisions); the enterprise packs stay ENTERPRISE (§10). */
static const wg_tier_capabilities caps[WG_TIER_COUNT] = {
    /* tier             conn  ws  pers mkt  cost sync admin team gov kvark */
    { WG_TIER_FREE,        5,  1,  0,   0,   0,   0,   0,    0,   0,  0 },
    { WG_TIER_PRO,        -1,  5,  1,   1,   0,   0,   0,    0,   0,  0 },
    { WG_TIER_TEAMS,      -1, -1,  1,   1,   1,   1,   1,    1,   0,  1 },
    { WG_TIER_ENTERPRISE, -1, -1,  1,   1,   1,   1,   1,    1,   1,  1 },
    { WG_TIER_TRIAL,      -1, -1,  1,   1,   1,   1,   1,    1,   1,  1 },
};

const wg_tier_capabilities *wg_tier_capabilities_of(wg_tier t)
{
    return &caps[(unsigned)t < WG_TIER_COUNT ? t : WG_TIER_FREE];
}

static const wg_tier_feature features[] = {
    { "personas",             WG_TIER_PRO },
    { "marketplace_install",  WG_TIER_PRO },
    { "marketplace_publish",  WG_TIER_PRO },
    { "billing_portal",       WG_TIER_PRO },
    { "cost_by_workspace",    WG_TIER_TEAMS },
    { "cloud_sync",           WG_TIER_TEAMS },
    { "admin_overview",       WG_TIER_TEAMS },
    { "audit_export",         WG_TIER_TEAMS },
    { "team_connect",         WG_TIER_TEAMS },
    { "team_governance",      WG_TIER_ENTERPRISE },
    { "enterprise_packs",     WG_TIER_ENTERPRISE },
    { "kvark",                WG_TIER_TEAMS },   /* the tools; the packs are ENTERPRISE */
};

const wg_tier_feature *wg_tier_features(size_t *n)
{
    if (n)
        *n = sizeof features / sizeof *features;
    return features;
}

int wg_tier_feature_min(wg_tier *out, const char *feature)
{
    for (size_t i = 0; feature && i < sizeof features / sizeof *features; i++) {
        if (!strcmp(features[i].feature, feature)) {
            *out = features[i].min;
            return 0;
        }
    }
    return wg_error_set(WG_ENOTFOUND, "unknown tier feature %.64s", feature ? feature : "(null)");
}

static json_t *limit_json(int v)
{
    return v < 0 ? json_null() : json_integer(v);
}

json_t *wg_tier_capabilities_json(wg_tier t)
{
    const wg_tier_capabilities *c = wg_tier_capabilities_of(t);
    json_t *f = json_object();
    for (size_t i = 0; i < sizeof features / sizeof *features; i++)
        json_object_set_new(f, features[i].feature, json_boolean(wg_tier_satisfies(t, features[i].min)));
    return json_pack("{s:s,s:o,s:o,s:o}", "tier", wg_tier_name(t),
                     "connectorLimit", limit_json(c->connector_limit),
                     "workspaceLimit", limit_json(c->workspace_limit), "features", f);
}

json_t *wg_tier_status_json(const wg_tier_status *s)
{
    return json_pack("{s:s,s:s,s:o?,s:i,s:b}", "tier", wg_tier_name(s->tier),
                     "effectiveTier", wg_tier_name(s->effective),
                     "trialStartedAt", s->has_trial_start ? json_string(s->trial_started_at) : NULL,
                     "trialDaysRemaining", s->trial_days_remaining,
                     "trialExpired", s->trial_expired);
}

/* tiering.c - route tier gating (spec 10, reference 8.3). The effective tier
 * comes from the data dir's config.json through the store's tier module;
 * anything unreadable is FREE (spec: "Default tier when unreadable is FREE"). */
#include "server/tiering.h"
#include "server/server_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const tier_names[] = { "FREE", "PRO", "TEAMS", "ENTERPRISE" };

const char *wg_tiering__name(wg_route_tier t)
{
    return (t >= WG_ROUTE_FREE && t <= WG_ROUTE_ENTERPRISE) ? tier_names[t] : "FREE";
}

/* Reads config.json's tier and trialStartedAt. Temporary local reader until
 * the store's tier module lands; same rules (reference 8.3, ARCHITECTURE
 * decisions): unknown/unreadable -> FREE, TRIAL lasts 15 days and satisfies
 * every tier while active, a future trialStartedAt is invalid (FREE). */
static const struct {
    const char *name;
    wg_route_tier rank;
    int trial;
} tier_table[] = {
    { "FREE", WG_ROUTE_FREE, 0 },   { "PRO", WG_ROUTE_PRO, 0 },
    { "TEAMS", WG_ROUTE_TEAMS, 0 }, { "ENTERPRISE", WG_ROUTE_ENTERPRISE, 0 },
    { "TRIAL", WG_ROUTE_ENTERPRISE, 1 },
};
static const struct {
    const char *legacy, *name;
} legacy_table[] = {
    { "solo", "FREE" }, { "basic", "PRO" }, { "business", "TEAMS" },
    { "enterprise", "ENTERPRISE" }, { "trial", "TRIAL" }, { "free", "FREE" },
    { "pro", "PRO" }, { "teams", "TEAMS" },
};

static int parse_tier(const char *raw)
{
    for (size_t i = 0; i < sizeof tier_table / sizeof *tier_table; i++)
        if (strcmp(raw, tier_table[i].name) == 0)
            return (int)i;
    for (size_t i = 0; i < sizeof legacy_table / sizeof *legacy_table; i++)
        if (strcasecmp(raw, legacy_table[i].legacy) == 0)
            return parse_tier(legacy_table[i].name);
    return -1;
}

int wg_tiering__iso_ms(long long *out, const char *iso)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!rest)
        return -1;
    long long ms = 0;
    if (*rest == '.') {
        rest++;
        int digits = 0;
        while (*rest >= '0' && *rest <= '9') {
            if (digits < 3)
                ms = ms * 10 + (*rest - '0');
            digits++;
            rest++;
        }
        for (; digits < 3; digits++)
            ms *= 10;
    }
    if (*rest == 'Z')
        rest++;
    if (*rest)
        return -1;
    *out = (long long)timegm(&tm) * 1000 + ms;
    return 0;
}

long long wg_tiering__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int wg_tiering__read(wg_tier_info *info, const wg_server_ctx *ctx)
{
    memset(info, 0, sizeof *info);
    snprintf(info->raw, sizeof info->raw, "FREE");
    info->effective = WG_ROUTE_FREE;
    info->effective_name = "FREE";
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", ctx->data_dir);
    json_t *cfg = json_load_file(path, 0, NULL);
    if (!json_is_object(cfg)) {
        json_decref(cfg);
        return 0;
    }
    const char *raw = json_string_value(json_object_get(cfg, "tier"));
    const char *start = json_string_value(json_object_get(cfg, "trialStartedAt"));
    if (start)
        snprintf(info->trial_started_at, sizeof info->trial_started_at, "%s", start);
    int t = raw ? parse_tier(raw) : -1;
    if (t >= 0) {
        snprintf(info->raw, sizeof info->raw, "%s", tier_table[t].name);
        info->effective = tier_table[t].rank;
        info->effective_name = tier_table[t].name;
        info->has_tier = 1;
    }
    long long started;
    long long now = wg_tiering__now_ms();
    if (start && wg_tiering__iso_ms(&started, start) == 0 && started <= now) {
        double days = (double)(now - started) / 86400000.0;
        int left = (int)ceil(15.0 - days);
        info->trial_days_remaining = left > 0 ? left : 0;
        info->trial_expired = days > 15.0;
    } else {
        info->trial_expired = 1;
    }
    if (t >= 0 && tier_table[t].trial && info->trial_expired) {
        info->effective = WG_ROUTE_FREE;
        info->effective_name = "FREE";
    }
    info->trial_active = t >= 0 && tier_table[t].trial && !info->trial_expired;
    json_decref(cfg);
    return 0;
}

int wg_tiering__check(wg_res *res, const wg_server_ctx *ctx, wg_route_tier min)
{
    wg_tier_info info;
    wg_tiering__read(&info, ctx);
    if (info.effective >= min)
        return 0;
    const char *actual = info.effective_name;
    char msg[128];
    snprintf(msg, sizeof msg, "This feature requires the %s tier. You are on %s.",
             wg_tiering__name(min), actual);
    wg_res_json(res, 403, json_pack("{s:s,s:s,s:s,s:s,s:s}", "error", "TIER_INSUFFICIENT",
                                    "message", msg, "required", wg_tiering__name(min),
                                    "actual", actual, "upgradeUrl",
                                    "https://waggle-os.ai/upgrade"));
    return 1;
}

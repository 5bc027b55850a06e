/* tiers.c - spec 10: every gated route answers the exact 403
 * TIER_INSUFFICIENT body when the effective tier is too low, for every
 * tier (FREE, PRO, TEAMS, ENTERPRISE, TRIAL active, TRIAL expired), and
 * passes the gate when it is high enough. Plus GET/PATCH /api/tier and
 * start-trial (reference 8.3, 13 item 19). */
#include <criterion/criterion.h>

#include "server_test.h"
#include "wgtest.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static wgt_server s;

static void setup(void)
{
    wgt_server_start(&s, NULL);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(tiers, .init = setup, .fini = teardown);

/* rank: FREE 0, PRO 1, TEAMS 2, ENTERPRISE 3 */
static const struct {
    const char *method, *path;
    int min;
} gated[] = {
    { "POST", "/api/marketplace/install", 1 },
    { "POST", "/api/marketplace/publish", 1 },
    { "GET",  "/api/marketplace/enterprise-packs", 3 },
    { "POST", "/api/personas", 1 },
    { "POST", "/api/personas/generate", 1 },
    { "GET",  "/api/cost/by-workspace", 2 },
    { "POST", "/api/cloud-sync/toggle", 2 },
    { "GET",  "/api/admin/overview", 2 },
    { "POST", "/api/admin/audit-export", 2 },
    { "POST", "/api/team/connect", 2 },
    { "GET",  "/api/team/governance/permissions", 3 },
};
static const char *const names[] = { "FREE", "PRO", "TEAMS", "ENTERPRISE" };

static void iso_days_ago(char *buf, size_t cap, double days)
{
    time_t t = time(NULL) - (time_t)(days * 86400);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

/* Runs the table with config.json = cfg; `rank` is the effective rank and
 * `actual` the name a 403 must report. */
static void check_matrix(const char *cfg, int rank, const char *actual)
{
    if (cfg)
        wgt_server_config_json(&s, cfg);
    for (size_t i = 0; i < sizeof gated / sizeof *gated; i++) {
        wgt_http_res r;
        int post = strcmp(gated[i].method, "POST") == 0;
        wgt_http(&r, &s, gated[i].method, gated[i].path, post ? "{}" : NULL);
        if (rank < gated[i].min) {
            char want[512];
            snprintf(want, sizeof want,
                     "{\"error\":\"TIER_INSUFFICIENT\",\"message\":\"This feature requires the %s "
                     "tier. You are on %s.\",\"required\":\"%s\",\"actual\":\"%s\","
                     "\"upgradeUrl\":\"https://waggle-os.ai/upgrade\"}",
                     names[gated[i].min], actual, names[gated[i].min], actual);
            cr_expect_eq(r.status, 403, "%s %s on %s: %ld", gated[i].method, gated[i].path, actual, r.status);
            cr_expect_str_eq(r.body, want, "%s %s on %s", gated[i].method, gated[i].path, actual);
        } else {
            cr_expect(r.status != 403 && r.status != 404 && r.status != 405 && r.status != 0,
                      "%s %s on rank %d: %ld %s", gated[i].method, gated[i].path, rank, r.status, r.body);
        }
        wgt_http_res_free(&r);
    }
}

static void admin_patch(wgt_http_res *r, const char *body)
{
    wgt_http_ex(r, &s, "PATCH", "/api/tier", body, strlen(body), WGT_AUTH_ADMIN, NULL);
}

Test(tiers, spec_10_free_personas_post_is_exact_403_body)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/personas", "{}");
    cr_assert_eq(r.status, 403);
    cr_assert_str_eq(r.body,
        "{\"error\":\"TIER_INSUFFICIENT\",\"message\":\"This feature requires the PRO tier. "
        "You are on FREE.\",\"required\":\"PRO\",\"actual\":\"FREE\","
        "\"upgradeUrl\":\"https://waggle-os.ai/upgrade\"}");
    wgt_http_res_free(&r);
}

Test(tiers, spec_10_free_default_blocks_every_gated_route)
{
    check_matrix(NULL, 0, "FREE");
}

Test(tiers, spec_10_pro_passes_pro_routes_only)
{
    check_matrix("{\"tier\":\"PRO\"}", 1, "PRO");
}

Test(tiers, spec_10_teams_passes_teams_routes)
{
    check_matrix("{\"tier\":\"TEAMS\"}", 2, "TEAMS");
}

Test(tiers, spec_10_enterprise_passes_everything)
{
    check_matrix("{\"tier\":\"ENTERPRISE\"}", 3, "ENTERPRISE");
}

Test(tiers, trial_active_passes_everything)
{
    char cfg[256], when[64];
    iso_days_ago(when, sizeof when, 14);
    snprintf(cfg, sizeof cfg, "{\"tier\":\"TRIAL\",\"trialStartedAt\":\"%s\"}", when);
    check_matrix(cfg, 3, "TRIAL");
}

Test(tiers, trial_expired_decays_to_free)
{
    char cfg[256], when[64];
    iso_days_ago(when, sizeof when, 15.01);
    snprintf(cfg, sizeof cfg, "{\"tier\":\"TRIAL\",\"trialStartedAt\":\"%s\"}", when);
    check_matrix(cfg, 0, "FREE");
}

Test(tiers, trial_started_in_the_future_is_free)
{
    char cfg[256], when[64];
    iso_days_ago(when, sizeof when, -365);
    snprintf(cfg, sizeof cfg, "{\"tier\":\"TRIAL\",\"trialStartedAt\":\"%s\"}", when);
    check_matrix(cfg, 0, "FREE");
}

Test(tiers, unknown_or_unreadable_tier_is_free)
{
    check_matrix("{\"tier\":\"gold\"}", 0, "FREE");
    check_matrix("not json", 0, "FREE");
    check_matrix("{\"tier\":\" PRO\"}", 0, "FREE");
}

Test(tiers, legacy_tier_names_are_parsed)
{
    check_matrix("{\"tier\":\"business\"}", 2, "TEAMS");
    check_matrix("{\"tier\":\"basic\"}", 1, "PRO");
}

Test(tiers, get_tier_shape)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/tier", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "tier")), "FREE");
    cr_assert(json_is_null(json_object_get(r.json, "trialStartedAt")));
    cr_assert(json_is_integer(json_object_get(r.json, "trialDaysRemaining")));
    cr_assert(json_is_boolean(json_object_get(r.json, "trialExpired")));
    cr_assert(json_is_object(json_object_get(r.json, "capabilities")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r.json, "capabilities"),
                                                    "connectorLimit")), 5);
    wgt_http_res_free(&r);
}

Test(tiers, patch_tier_needs_admin_token)
{
    wgt_http_res r;
    wgt_http(&r, &s, "PATCH", "/api/tier", "{\"tier\":\"ENTERPRISE\"}");
    cr_assert_eq(r.status, 403);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "ADMIN_REQUIRED");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/tier", NULL);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "tier")), "FREE");
    wgt_http_res_free(&r);

    admin_patch(&r, "{\"tier\":\"teams\"}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "tier")), "TEAMS");
    wgt_http_res_free(&r);
    check_matrix(NULL, 2, "TEAMS");
}

Test(tiers, patch_tier_invalid_is_400_with_spec_message)
{
    wgt_http_res r;
    admin_patch(&r, "{\"tier\":\"GOLD\"}");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "message")),
                     "Invalid tier. Must be one of: TRIAL, FREE, PRO, TEAMS, ENTERPRISE");
    wgt_http_res_free(&r);
    admin_patch(&r, "{\"tier\":3}");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "field")), "tier");
    wgt_http_res_free(&r);
}

Test(tiers, start_trial_once_then_409)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/tier/start-trial", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "tier")), "TRIAL");
    cr_assert_eq(json_integer_value(json_object_get(r.json, "trialDaysRemaining")), 15);
    wgt_http_res_free(&r);
    check_matrix(NULL, 3, "TRIAL");
    wgt_http(&r, &s, "POST", "/api/tier/start-trial", NULL);
    cr_assert_eq(r.status, 409);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "TRIAL_ALREADY_STARTED");
    cr_assert(json_is_string(json_object_get(r.json, "trialStartedAt")));
    wgt_http_res_free(&r);
}

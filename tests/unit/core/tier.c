/* Tests for tier decisions (waggle/tier.h; spec §10, reference §8.3,
 * vectors §12.8) and config.json reading/writing. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "waggle/audit.h"
#include "waggle/error.h"
#include "waggle/store.h"
#include "waggle/tier.h"
#include "wgtest.h"

#define DAY 86400000LL

static int64_t at(const char *iso)
{
    int64_t ms = 0;
    cr_assert_eq(wg_time_parse_iso(&ms, iso), 0, "%s", iso);
    return ms;
}

Test(tier, parse_vectors_12_8)
{
    static const struct { const char *in; int ok; wg_tier want; } v[] = {
        { "free", 1, WG_TIER_FREE },     { "solo", 1, WG_TIER_FREE },
        { "basic", 1, WG_TIER_PRO },     { "Business", 1, WG_TIER_TEAMS },
        { "trial", 1, WG_TIER_TRIAL },   { "ENTERPRISE", 1, WG_TIER_ENTERPRISE },
        { "Pro", 1, WG_TIER_PRO },       { "gold", 0, 0 },
        { "", 0, 0 },                    { " PRO", 0, 0 },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        wg_tier t = (wg_tier)99;
        int rc = wg_tier_parse(&t, v[i].in);
        if (v[i].ok) {
            cr_assert_eq(rc, 0, "%s", v[i].in);
            cr_assert_eq(t, v[i].want, "%s", v[i].in);
        } else {
            cr_assert_eq(rc, WG_EINVAL, "%s", v[i].in);
            cr_assert_eq(t, (wg_tier)99, "out untouched for %s", v[i].in);
        }
    }
    wg_tier t;
    cr_assert_eq(wg_tier_parse(&t, NULL), WG_EINVAL);
}

Test(tier, satisfies_trial_ranks_as_enterprise)
{
    cr_assert(wg_tier_satisfies(WG_TIER_TRIAL, WG_TIER_ENTERPRISE));
    cr_assert_not(wg_tier_satisfies(WG_TIER_TEAMS, WG_TIER_ENTERPRISE));
    cr_assert(wg_tier_satisfies(WG_TIER_PRO, WG_TIER_FREE));
    cr_assert_not(wg_tier_satisfies(WG_TIER_FREE, WG_TIER_PRO));
}

Test(tier, trial_14_days_in_is_trial_with_1_day_left)
{
    int64_t now = at("2026-03-15T12:00:00Z");
    wg_tier_status s;
    wg_tier_evaluate(&s, "TRIAL", "2026-03-01T12:00:00Z", now);
    cr_assert_eq(s.effective, WG_TIER_TRIAL);
    cr_assert_eq(s.trial_days_remaining, 1);
    cr_assert_eq(s.trial_expired, 0);
}

Test(tier, trial_15_01_days_decays_to_free)
{
    int64_t start = at("2026-03-01T00:00:00Z");
    wg_tier_status s;
    char iso[32];
    wg_time_format_iso(iso, start);
    wg_tier_evaluate(&s, "TRIAL", iso, start + 15 * DAY + DAY / 100);
    cr_assert_eq(s.effective, WG_TIER_FREE);
    cr_assert_eq(s.trial_expired, 1);
    cr_assert_eq(s.trial_days_remaining, 0);
    wg_tier_evaluate(&s, "TRIAL", iso, start + 15 * DAY);
    cr_assert_eq(s.effective, WG_TIER_TRIAL, "exactly 15 days is still active");
}

Test(tier, trial_null_or_garbage_start_is_free)
{
    wg_tier_status s;
    wg_tier_evaluate(&s, "TRIAL", NULL, at("2026-01-01T00:00:00Z"));
    cr_assert_eq(s.effective, WG_TIER_FREE);
    cr_assert_eq(s.trial_days_remaining, 0);
    wg_tier_evaluate(&s, "TRIAL", "garbage", at("2026-01-01T00:00:00Z"));
    cr_assert_eq(s.effective, WG_TIER_FREE);
    cr_assert_eq(s.has_trial_start, 1);
    cr_assert_eq(s.trial_start_valid, 0);
}

Test(tier, trial_start_in_future_is_invalid_free)
{
    /* The original gave TRIAL with 380 days left (§12.8); §13.19 calls that
     * a defect, and ARCHITECTURE's decision is FREE. */
    wg_tier_status s;
    wg_tier_evaluate(&s, "TRIAL", "2027-01-01T00:00:00Z", at("2026-01-01T00:00:00Z"));
    cr_assert_eq(s.effective, WG_TIER_FREE);
    cr_assert_eq(s.trial_expired, 1);
    cr_assert_eq(s.trial_days_remaining, 0);
}

Test(tier, unknown_or_missing_tier_is_free)
{
    wg_tier_status s;
    wg_tier_evaluate(&s, "gold", NULL, 0);
    cr_assert_eq(s.effective, WG_TIER_FREE);
    cr_assert_eq(s.has_tier, 0);
    wg_tier_evaluate(&s, NULL, NULL, 0);
    cr_assert_eq(s.effective, WG_TIER_FREE);
    wg_tier_evaluate(&s, "basic", NULL, 0);
    cr_assert_eq(s.effective, WG_TIER_PRO);
}

Test(tier, require_pro_on_free_gives_exact_403_body)
{
    wg_tier_denial d;
    cr_assert_eq(wg_tier_require(&d, WG_TIER_FREE, WG_TIER_PRO), WG_ETIER);
    cr_assert_eq(d.status, 403);
    json_t *j = wg_tier_denial_json(&d);
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    cr_assert_str_eq(s, "{\"error\":\"TIER_INSUFFICIENT\",\"message\":\"This feature requires the PRO tier."
                        " You are on FREE.\",\"required\":\"PRO\",\"actual\":\"FREE\","
                        "\"upgradeUrl\":\"https://waggle-os.ai/upgrade\"}");
    free(s);
    json_decref(j);
    cr_assert_eq(wg_tier_require(NULL, WG_TIER_TRIAL, WG_TIER_ENTERPRISE), 0);
}

Test(tier, capability_table_is_data)
{
    cr_assert_eq(wg_tier_capabilities_of(WG_TIER_FREE)->connector_limit, 5);
    cr_assert_eq(wg_tier_capabilities_of(WG_TIER_ENTERPRISE)->kvark, 1);
    cr_assert_eq(wg_tier_capabilities_of(WG_TIER_TEAMS)->kvark, 1);
    cr_assert_eq(wg_tier_capabilities_of(WG_TIER_PRO)->kvark, 0);
    wg_tier t;
    cr_assert_eq(wg_tier_feature_min(&t, "team_connect"), 0);
    cr_assert_eq(t, WG_TIER_TEAMS);
    cr_assert_eq(wg_tier_feature_min(&t, "nope"), WG_ENOTFOUND);
    json_t *j = wg_tier_capabilities_json(WG_TIER_FREE);
    cr_assert_eq(json_integer_value(json_object_get(j, "connectorLimit")), 5);
    cr_assert(json_is_false(json_object_get(json_object_get(j, "features"), "personas")));
    json_decref(j);
}

Test(tier, iso_time_roundtrip_and_rejects)
{
    char buf[32];
    wg_time_format_iso(buf, at("2024-02-29T23:59:59.123Z"));
    cr_assert_str_eq(buf, "2024-02-29T23:59:59.123Z");
    cr_assert_eq(at("1970-01-01"), 0);
    cr_assert_eq(at("1970-01-01T01:00:00+01:00"), 0);
    int64_t ms;
    const char *bad[] = { "2023-02-29", "2024-13-01", "2024-01-01T24:00", "20240101", "2024-01-01Tx",
                          "2024-01-01T00:00:00Zjunk", "" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(wg_time_parse_iso(&ms, bad[i]), WG_EINVAL, "%s", bad[i]);
}

/* ---- config.json ---- */

Test(tier, config_missing_or_broken_reads_free)
{
    char *dir = wgt_tmpdir();
    wg_tier_status s;
    wg_tier_read(&s, dir, 0);
    cr_assert_eq(s.effective, WG_TIER_FREE);
    wgt_write_file(dir, "config.json", "{not json");
    wg_tier_read(&s, dir, 0);
    cr_assert_eq(s.effective, WG_TIER_FREE);
    wgt_write_file(dir, "config.json", "{\"tier\":\"business\",\"theme\":\"dark\"}");
    wg_tier_read(&s, dir, 0);
    cr_assert_eq(s.effective, WG_TIER_TEAMS);
    wgt_rmtree(dir);
    free(dir);
}

Test(tier, set_keeps_other_keys_and_is_audited)
{
    char *dir = wgt_tmpdir();
    wgt_write_file(dir, "config.json", "{\"tier\":\"FREE\",\"theme\":\"dark\"}");
    wg_store *st = NULL;
    wg_audit *au = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_audit_open(&au, st, NULL), 0);
    cr_assert_eq(wg_tier_set(dir, WG_TIER_PRO, au, "admin"), 0, "%s", wg_error_last());
    wg_tier_status s;
    wg_tier_read(&s, dir, 0);
    cr_assert_eq(s.effective, WG_TIER_PRO);
    char p[4200];
    snprintf(p, sizeof p, "%s/config.json", dir);
    char *text = wgt_read_file(p);
    cr_assert(strstr(text, "\"theme\": \"dark\""), "%s", text);
    free(text);
    struct stat sb;
    stat(p, &sb);
    cr_assert_eq(sb.st_mode & 0777, 0600);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, au, NULL), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(ev[0].event, "tier_changed");
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "from")), "FREE");
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "to")), "PRO");
    wg_audit_events_free(ev, n);
    wg_audit_free(au);
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

Test(tier, start_trial_once_only)
{
    char *dir = wgt_tmpdir();
    int64_t now = at("2026-05-01T00:00:00Z");
    cr_assert_eq(wg_tier_start_trial(dir, now, NULL, NULL), 0);
    wg_tier_status s;
    wg_tier_read(&s, dir, now + DAY);
    cr_assert_eq(s.effective, WG_TIER_TRIAL);
    cr_assert_eq(s.trial_days_remaining, 14);
    cr_assert_str_eq(s.trial_started_at, "2026-05-01T00:00:00.000Z");
    cr_assert_eq(wg_tier_start_trial(dir, now + DAY, NULL, NULL), WG_EEXISTS);
    cr_assert(strstr(wg_error_last(), "TRIAL_ALREADY_STARTED"));
    json_t *j = wg_tier_status_json(&s);
    cr_assert_str_eq(json_string_value(json_object_get(j, "effectiveTier")), "TRIAL");
    json_decref(j);
    wgt_rmtree(dir);
    free(dir);
}

/* Tests for the one autonomy resolver (waggle/autonomy.h, spec 7.5): the
 * level applies only with a future expiresAt within the operator's cap; a
 * cap <= 0 is an error, never "unlimited"; the operator's max level lowers
 * what an app asks for; expiresAt may be epoch ms or ISO-8601 with offsets;
 * the clock is a parameter. */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/autonomy.h"
#include "waggle/error.h"
#include "waggle/time.h"

static const int64_t NOW = 1777629600000;   /* 2026-05-01T10:00:00Z */
static const int64_t MIN = 60000;

static wg_autonomy_resolution resolve(wg_autonomy level, int has, int64_t exp, int standing,
                                      const wg_autonomy_policy *pol)
{
    wg_autonomy_request rq = WG_AUTONOMY_REQUEST_INIT;
    rq.level = level;
    rq.has_expires = has;
    rq.expires_ms = exp;
    rq.standing = standing;
    wg_autonomy_policy def = WG_AUTONOMY_POLICY_INIT;
    wg_autonomy_resolution r;
    cr_assert_eq(wg_autonomy_resolve(&r, &rq, pol ? pol : &def, NOW), 0, "%s", wg_error_last());
    return r;
}

Test(autonomy, spec_7_5_elevated_needs_a_future_expiry_within_the_cap)
{
    wg_autonomy_resolution r = resolve(WG_AUTONOMY_YOLO, 0, 0, 0, NULL);
    cr_assert_eq(r.applied, WG_AUTONOMY_NORMAL);
    cr_assert_str_eq(r.rule, "autonomy.no_expiry");
    cr_assert(strstr(r.reason, "missing"));
    r = resolve(WG_AUTONOMY_YOLO, 1, NOW - 1, 0, NULL);
    cr_assert_str_eq(r.rule, "autonomy.expired");
    r = resolve(WG_AUTONOMY_YOLO, 1, NOW, 0, NULL);
    cr_assert_str_eq(r.rule, "autonomy.expired", "expiring now is not the future");
    r = resolve(WG_AUTONOMY_TRUSTED, 1, NOW + 1, 0, NULL);
    cr_assert_eq(r.applied, WG_AUTONOMY_TRUSTED);
    cr_assert_str_eq(r.rule, "autonomy.applied");
    cr_assert_str_eq(r.reason, "");
    /* the default cap is 8 h: N-1, N, N+1 ms */
    r = resolve(WG_AUTONOMY_YOLO, 1, NOW + WG_AUTONOMY_DEFAULT_CAP_MS - 1, 0, NULL);
    cr_assert_eq(r.applied, WG_AUTONOMY_YOLO);
    r = resolve(WG_AUTONOMY_YOLO, 1, NOW + WG_AUTONOMY_DEFAULT_CAP_MS, 0, NULL);
    cr_assert_eq(r.applied, WG_AUTONOMY_YOLO);
    r = resolve(WG_AUTONOMY_YOLO, 1, NOW + WG_AUTONOMY_DEFAULT_CAP_MS + 1, 0, NULL);
    cr_assert_eq(r.applied, WG_AUTONOMY_NORMAL);
    cr_assert_str_eq(r.rule, "autonomy.beyond_cap");
}

Test(autonomy, normal_is_normal_and_standing_needs_no_expiry)
{
    wg_autonomy_resolution r = resolve(WG_AUTONOMY_NORMAL, 1, NOW + MIN, 0, NULL);
    cr_assert_eq(r.applied, WG_AUTONOMY_NORMAL);
    cr_assert_str_eq(r.rule, "autonomy.normal");
    r = resolve(WG_AUTONOMY_YOLO, 0, 0, 1, NULL);
    cr_assert_eq(r.applied, WG_AUTONOMY_YOLO);
    cr_assert_str_eq(r.rule, "autonomy.standing");
}

Test(autonomy, the_operator_max_level_lowers_the_request)
{
    wg_autonomy_policy pol = WG_AUTONOMY_POLICY_INIT;
    pol.max_level = WG_AUTONOMY_TRUSTED;
    wg_autonomy_resolution r = resolve(WG_AUTONOMY_YOLO, 1, NOW + MIN, 0, &pol);
    cr_assert_eq(r.applied, WG_AUTONOMY_TRUSTED);
    cr_assert_str_eq(r.rule, "autonomy.max_level");
    cr_assert(strstr(r.reason, "at most trusted"), "%s", r.reason);
    r = resolve(WG_AUTONOMY_TRUSTED, 1, NOW + MIN, 0, &pol);
    cr_assert_eq(r.applied, WG_AUTONOMY_TRUSTED);
    cr_assert_str_eq(r.rule, "autonomy.applied");
    r = resolve(WG_AUTONOMY_YOLO, 0, 0, 1, &pol);
    cr_assert_eq(r.applied, WG_AUTONOMY_TRUSTED, "a standing level is capped too");
    pol.max_level = WG_AUTONOMY_NORMAL;
    r = resolve(WG_AUTONOMY_TRUSTED, 1, NOW + MIN, 0, &pol);
    cr_assert_eq(r.applied, WG_AUTONOMY_NORMAL);
    /* an expired request falls to normal before the cap is looked at */
    r = resolve(WG_AUTONOMY_YOLO, 1, NOW - MIN, 0, &pol);
    cr_assert_str_eq(r.rule, "autonomy.expired");
}

Test(autonomy, a_cap_of_zero_or_less_is_an_error_not_unlimited)
{
    wg_autonomy_request rq = WG_AUTONOMY_REQUEST_INIT;
    rq.level = WG_AUTONOMY_YOLO;
    rq.has_expires = 1;
    rq.expires_ms = NOW + MIN;
    wg_autonomy_resolution r;
    memset(&r, 0x5a, sizeof r);
    wg_autonomy_policy pol = WG_AUTONOMY_POLICY_INIT;
    for (int64_t cap = -1; cap <= 0; cap++) {
        pol.cap_ms = cap;
        cr_assert_eq(wg_autonomy_resolve(&r, &rq, &pol, NOW), WG_EINVAL, "cap %lld", (long long)cap);
        cr_assert(strstr(wg_error_last(), "never unlimited"));
    }
    pol.cap_ms = 1;
    rq.expires_ms = NOW + 1;
    cr_assert_eq(wg_autonomy_resolve(&r, &rq, &pol, NOW), 0);
    cr_assert_eq(r.applied, WG_AUTONOMY_YOLO, "cap 1 ms admits 1 ms ahead");
    rq.expires_ms = NOW + 2;
    cr_assert_eq(wg_autonomy_resolve(&r, &rq, &pol, NOW), 0);
    cr_assert_eq(r.applied, WG_AUTONOMY_NORMAL);
}

Test(autonomy, bad_structs_are_errors)
{
    wg_autonomy_request rq = WG_AUTONOMY_REQUEST_INIT;
    wg_autonomy_policy pol = WG_AUTONOMY_POLICY_INIT;
    wg_autonomy_resolution r;
    cr_assert_eq(wg_autonomy_resolve(NULL, &rq, &pol, NOW), WG_EINVAL);
    cr_assert_eq(wg_autonomy_resolve(&r, NULL, &pol, NOW), WG_EINVAL);
    rq.level = (wg_autonomy)7;
    cr_assert_eq(wg_autonomy_resolve(&r, &rq, &pol, NOW), WG_EINVAL);
    rq.level = WG_AUTONOMY_NORMAL;
    rq.version = 99;
    cr_assert_eq(wg_autonomy_resolve(&r, &rq, &pol, NOW), WG_EINVAL);
}

static int from_json(wg_autonomy_request *rq, const char *text, const char **field)
{
    json_error_t e;
    json_t *v = text ? json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e) : NULL;
    cr_assert(!text || v, "bad test JSON %s", text);
    int rc = wg_autonomy_request_from_json(rq, v, field);
    json_decref(v);
    return rc;
}

Test(autonomy, json_forms_epoch_ms_and_iso_with_offsets)
{
    wg_autonomy_request rq;
    cr_assert_eq(from_json(&rq, NULL, NULL), 0);
    cr_assert_eq(rq.level, WG_AUTONOMY_NORMAL);
    cr_assert_eq(from_json(&rq, "null", NULL), 0);
    cr_assert_eq(from_json(&rq, "{\"level\":\"trusted\",\"expiresAt\":1777629600000}", NULL), 0);
    cr_assert(rq.has_expires);
    cr_assert_eq(rq.expires_ms, NOW);
    cr_assert_eq(from_json(&rq, "{\"level\":\"trusted\",\"expiresAt\":1777629600000.9}", NULL), 0);
    cr_assert_eq(rq.expires_ms, NOW, "a real is rounded down");
    cr_assert_eq(from_json(&rq, "{\"level\":\"trusted\",\"expiresAt\":\"2026-05-01T12:00:00+02:00\"}", NULL), 0);
    cr_assert_eq(rq.expires_ms, NOW, "+02:00 is honoured");
    cr_assert_eq(from_json(&rq, "{\"level\":\"trusted\",\"expiresAt\":\"2026-05-01T05:30:00.250-04:30\"}", NULL), 0);
    cr_assert_eq(rq.expires_ms, NOW + 250);
    cr_assert_eq(from_json(&rq, "{\"expiresAt\":null}", NULL), 0);
    cr_assert_eq(rq.level, WG_AUTONOMY_NORMAL);
    cr_assert_not(rq.has_expires);
    cr_assert_eq(from_json(&rq, "{\"level\":\"yolo\",\"expiresAt\":0}", NULL), 0);
    cr_assert(rq.has_expires, "0 is a time (long past), not absent");
}

Test(autonomy, json_errors_name_the_field)
{
    static const struct { const char *json, *field; } bad[] = {
        { "{\"level\":\"godmode\"}", "autonomy.level" },
        { "{\"level\":\"YOLO\"}", "autonomy.level" },
        { "{\"level\":1}", "autonomy.level" },
        { "\"godmode\"", "autonomy" },
        { "\"yolo\"", "autonomy" },
        { "[]", "autonomy" },
        { "7", "autonomy" },
        { "{\"level\":\"yolo\",\"expiresAt\":-1}", "autonomy.expiresAt" },
        { "{\"level\":\"yolo\",\"expiresAt\":253402300800000}", "autonomy.expiresAt" },
        { "{\"level\":\"yolo\",\"expiresAt\":\"tomorrow\"}", "autonomy.expiresAt" },
        { "{\"level\":\"yolo\",\"expiresAt\":\"2026-05-01T12:00:00Zjunk\"}", "autonomy.expiresAt" },
        { "{\"level\":\"yolo\",\"expiresAt\":\"2026-05-01T12:00:00+05\"}", "autonomy.expiresAt" },
        { "{\"level\":\"yolo\",\"expiresAt\":\"2026-05-01\\u0000x\"}", "autonomy.expiresAt" },
        { "{\"level\":\"yolo\",\"expiresAt\":true}", "autonomy.expiresAt" },
        { "{\"level\":\"yolo\",\"expiresAt\":{}}", "autonomy.expiresAt" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wg_autonomy_request rq;
        const char *field = NULL;
        cr_expect_eq(from_json(&rq, bad[i].json, &field), WG_EINVAL, "%s", bad[i].json);
        cr_expect_str_eq(field ? field : "(null)", bad[i].field, "%s", bad[i].json);
    }
}

Test(autonomy, resolution_json_has_the_rule_and_reason)
{
    wg_autonomy_resolution r = resolve(WG_AUTONOMY_YOLO, 0, 0, 0, NULL);
    json_t *j = wg_autonomy_resolution_json(&r);
    cr_assert_str_eq(json_string_value(json_object_get(j, "requested")), "yolo");
    cr_assert_str_eq(json_string_value(json_object_get(j, "applied")), "normal");
    cr_assert(json_is_null(json_object_get(j, "expiresAt")));
    cr_assert_str_eq(json_string_value(json_object_get(j, "rule")), "autonomy.no_expiry");
    cr_assert(json_is_string(json_object_get(j, "reason")));
    json_decref(j);
}

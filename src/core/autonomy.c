/* autonomy.c - the one autonomy resolver (waggle/autonomy.h, spec 7.5):
 * what level applies to a call, given what was asked, what the operator
 * allows and the time. Pure: no I/O, the clock is a parameter. */
#include "waggle/autonomy.h"
#include "waggle/error.h"
#include "waggle/time.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void explain(wg_autonomy_resolution *out, const char *rule, const char *fmt,
                    const char *a)
{
    out->rule = rule;
    snprintf(out->reason, sizeof out->reason, fmt, a);
}

int wg_autonomy_resolve(wg_autonomy_resolution *out, const wg_autonomy_request *req,
                        const wg_autonomy_policy *policy, int64_t now_ms)
{
    if (!out || !req || !policy)
        return wg_error_set(WG_EINVAL, "wg_autonomy_resolve: NULL argument");
    if (req->version != WG_AUTONOMY_REQUEST_VERSION || policy->version != WG_AUTONOMY_POLICY_VERSION)
        return wg_error_set(WG_EINVAL, "wg_autonomy_resolve: unknown struct version");
    if (req->level < WG_AUTONOMY_NORMAL || req->level > WG_AUTONOMY_YOLO ||
        policy->max_level < WG_AUTONOMY_NORMAL || policy->max_level > WG_AUTONOMY_YOLO)
        return wg_error_set(WG_EINVAL, "autonomy level must be normal, trusted or yolo");
    if (policy->cap_ms <= 0)
        return wg_error_set(WG_EINVAL, "the autonomy cap must be a positive number of ms, not "
                            "%lld (a cap is never unlimited)", (long long)policy->cap_ms);
    wg_autonomy_resolution r;
    memset(&r, 0, sizeof r);
    r.requested = req->level;
    r.applied = WG_AUTONOMY_NORMAL;
    r.has_expires = req->has_expires;
    r.expires_ms = req->has_expires ? req->expires_ms : 0;
    const char *name = wg_autonomy_name(req->level);
    if (req->level == WG_AUTONOMY_NORMAL) {
        r.rule = "autonomy.normal";
    } else if (!req->standing && !req->has_expires) {
        explain(&r, "autonomy.no_expiry", "autonomy.expiresAt is missing, so %s does not apply "
                "(spec 7.5); the call is decided at normal", name);
    } else if (!req->standing && req->expires_ms <= now_ms) {
        explain(&r, "autonomy.expired", "autonomy.expiresAt is in the past, so %s fell back to "
                "normal (spec 7.5)", name);
    } else if (!req->standing && req->expires_ms - now_ms > policy->cap_ms) {
        explain(&r, "autonomy.beyond_cap", "autonomy.expiresAt is further ahead than the "
                "operator allows, so %s fell back to normal", name);
    } else if (req->level > policy->max_level) {
        r.applied = policy->max_level;
        r.rule = "autonomy.max_level";
        snprintf(r.reason, sizeof r.reason, "the operator allows at most %s, so %s was lowered",
                 wg_autonomy_name(policy->max_level), name);
    } else {
        r.applied = req->level;
        r.rule = req->standing ? "autonomy.standing" : "autonomy.applied";
    }
    *out = r;
    return 0;
}

static int fail(const char **field, const char *which, const char *msg)
{
    if (field)
        *field = which;
    return wg_error_set(WG_EINVAL, "%s", msg);
}

/* expiresAt: epoch ms (integer or real) or ISO-8601 text. */
static int parse_expiry(int64_t *ms, const json_t *v, const char **field)
{
    static const char msg[] = "autonomy.expiresAt must be ms since the epoch or an ISO-8601 "
                              "timestamp (e.g. 2026-05-01T12:00:00+02:00)";
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0 || i > WG_TIME_MS_MAX)
            return fail(field, "autonomy.expiresAt", msg);
        *ms = (int64_t)i;
        return 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!isfinite(d) || d < 0 || d > (double)WG_TIME_MS_MAX)
            return fail(field, "autonomy.expiresAt", msg);
        *ms = (int64_t)floor(d);
        return 0;
    }
    if (json_is_string(v) &&
        wg_time_parse_isob(ms, json_string_value(v), json_string_length(v)) == 0)
        return 0;
    return fail(field, "autonomy.expiresAt", msg);
}

int wg_autonomy_request_from_json(wg_autonomy_request *out, const json_t *a, const char **field)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "wg_autonomy_request_from_json: NULL argument");
    wg_autonomy_request r = WG_AUTONOMY_REQUEST_INIT;
    static const char level_msg[] = "autonomy.level must be normal, trusted or yolo";
    if (!a || json_is_null(a)) {
        *out = r;
        return 0;
    }
    if (!json_is_object(a))
        return fail(field, "autonomy", "autonomy must be an object {level, expiresAt}");
    const json_t *lv = json_object_get(a, "level");
    if (lv && !json_is_null(lv) &&
        (!json_is_string(lv) || wg_autonomy_parse(&r.level, json_string_value(lv)) < 0))
        return fail(field, "autonomy.level", level_msg);
    const json_t *ex = json_object_get(a, "expiresAt");
    if (ex && !json_is_null(ex)) {
        int rc = parse_expiry(&r.expires_ms, ex, field);
        if (rc < 0)
            return rc;
        r.has_expires = 1;
    }
    *out = r;
    return 0;
}

json_t *wg_autonomy_resolution_json(const wg_autonomy_resolution *r)
{
    return json_pack("{s:s,s:s,s:o,s:s,s:o}", "requested", wg_autonomy_name(r->requested),
                     "applied", wg_autonomy_name(r->applied), "expiresAt",
                     r->has_expires ? json_integer(r->expires_ms) : json_null(), "rule", r->rule,
                     "reason", r->reason[0] ? json_string(r->reason) : json_null());
}

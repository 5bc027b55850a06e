/* routes_gate.c - POST /api/gate/check: the confirmation gate over HTTP
 * (spec 7.1-7.5).
 *   body   {tool, args?, autonomy?: {level: "normal"|"trusted"|"yolo", expiresAt?: ms}}
 *   answer the decision JSON of `waggle gate --json` {tool, level,
 *          needsConfirmation, approvalClass, critical, autoApproved, rule,
 *          reason} plus needsConfirmationBase and autonomy {requested,
 *          applied, expiresAt, reason}.
 * Spec 7.5 with the project's decision: an elevated level applies only while
 * expiresAt is present, in the future and at most autonomy_cap_ms ahead;
 * otherwise the call is decided at normal and the answer says why. An
 * auto-approval (the base gate asks, the level pre-approves) writes an
 * approval_auto audit row. */
#include "server/route.h"
#include "server/tiering.h"
#include "waggle/error.h"
#include "waggle/gate.h"

#include <stdio.h>
#include <string.h>

enum { TOOL_MAX = 256 };

static int bad(wg_res *res, const char *field, const char *msg)
{
    return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                           field, "message", msg));
}

/* Decides the level that applies; reason says why when it is not the
 * requested one. -1 after answering 400. */
static int applied_level(wg_autonomy *applied, wg_autonomy *requested, long long *expires,
                         const char **why, wg_res *res, const wg_req *req)
{
    *applied = *requested = WG_AUTONOMY_NORMAL;
    *expires = 0;
    *why = NULL;
    json_t *a = NULL;
    if (wg_body_object(res, req, "autonomy", 0, &a) < 0)
        return -1;
    if (!a)
        return 0;
    json_t *lv = json_object_get(a, "level");
    if (lv && !json_is_null(lv) &&
        (!json_is_string(lv) || wg_autonomy_parse(requested, json_string_value(lv)) < 0))
        return bad(res, "autonomy.level", "autonomy.level must be normal, trusted or yolo"), -1;
    json_t *ex = json_object_get(a, "expiresAt");
    if (ex && !json_is_null(ex)) {
        if (!json_is_number(ex) || json_number_value(ex) < 0 || json_number_value(ex) > 9e15)
            return bad(res, "autonomy.expiresAt", "autonomy.expiresAt must be a ms epoch number"), -1;
        *expires = (long long)json_number_value(ex);
    }
    if (*requested == WG_AUTONOMY_NORMAL)
        return 0;
    long long now = wg_tiering__now_ms();
    if (*expires == 0)
        *why = "autonomy.expiresAt is missing, so the elevated level does not apply (spec 7.5)";
    else if (*expires <= now)
        *why = "autonomy.expiresAt is in the past, so the level fell back to normal (spec 7.5)";
    else if (*expires - now > req->ctx->autonomy_cap_ms)
        *why = "autonomy.expiresAt is further ahead than the server allows, so the level fell back to normal";
    else
        *applied = *requested;
    return 0;
}

static int check(wg_res *res, const wg_req *req)
{
    const char *tool = NULL;
    json_t *args = NULL;
    if (wg_body_string(res, req, "tool", 1, &tool) < 0 ||
        wg_body_object(res, req, "args", 0, &args) < 0)
        return 0;
    if (!*tool || strlen(tool) > TOOL_MAX)
        return bad(res, "tool", "tool must be 1-256 characters");
    wg_autonomy applied, requested;
    long long expires;
    const char *why;
    if (applied_level(&applied, &requested, &expires, &why, res, req) < 0)
        return 0;
    wg_gate_decision d;
    int rc = wg_gate_check_json(&d, req->ctx->gate, tool, args, applied);
    if (rc < 0)
        return rc;
    if (d.auto_approved) {
        json_t *input = json_pack("{s:O?,s:s}", "args", args, "_autonomy", wg_autonomy_name(applied));
        wg_server_audit(req->ctx, "approval_auto", tool, input, "auto", d.rule);
        json_decref(input);
    }
    json_t *autonomy = json_pack("{s:s,s:s,s:o,s:o}", "requested", wg_autonomy_name(requested),
        "applied", wg_autonomy_name(applied),
        "expiresAt", expires ? json_integer(expires) : json_null(),
        "reason", why ? json_string(why) : json_null());
    return wg_res_json(res, 200, json_pack("{s:s,s:s,s:b,s:s,s:b,s:b,s:s,s:s,s:b,s:o}",
        "tool", tool, "level", wg_autonomy_name(d.level),
        "needsConfirmation", d.needs_confirmation,
        "approvalClass", wg_approval_name(d.approval_class),
        "critical", d.critical, "autoApproved", d.auto_approved,
        "rule", d.rule, "reason", d.reason,
        "needsConfirmationBase", d.needs_confirmation_base,
        "autonomy", autonomy));
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/api/gate/check", check, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_gate = {
    "gate", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

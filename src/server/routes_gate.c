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
#include "waggle/autonomy.h"
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

/* The one resolver (waggle/autonomy.h). -1 after answering 400. */
static int applied_level(wg_autonomy_resolution *out, wg_res *res, const wg_req *req)
{
    wg_autonomy_request rq;
    const char *field = "autonomy";
    if (wg_autonomy_request_from_json(&rq, json_object_get(req->body, "autonomy"), &field) < 0)
        return bad(res, field, wg_error_last()), -1;
    wg_autonomy_policy pol = WG_AUTONOMY_POLICY_INIT;
    pol.cap_ms = req->ctx->autonomy_cap_ms;
    if (wg_autonomy_resolve(out, &rq, &pol, wg_tiering__now_ms()) < 0)
        return wg_res_error(res, 500, "INTERNAL_ERROR", "the autonomy policy is invalid"), -1;
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
    wg_autonomy_resolution ar;
    if (applied_level(&ar, res, req) < 0)
        return 0;
    wg_autonomy applied = ar.applied;
    wg_gate_decision d;
    int rc = wg_gate_check_json(&d, req->ctx->gate, tool, args, applied);
    if (rc < 0)
        return rc;
    if (d.auto_approved) {
        json_t *input = json_pack("{s:O?,s:s}", "args", args, "_autonomy", wg_autonomy_name(applied));
        wg_server_audit(req->ctx, "approval_auto", tool, input, "auto", d.rule);
        json_decref(input);
    }
    json_t *autonomy = wg_autonomy_resolution_json(&ar);
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

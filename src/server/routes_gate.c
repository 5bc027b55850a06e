/* routes_gate.c - POST /api/gate/check: the confirmation gate over HTTP
 * (spec 7.1-7.5).
 *   body   {tool, args?, autonomy?: {level: "normal"|"trusted"|"yolo", expiresAt?: ms}}
 *   answer the decision JSON of `waggle gate --json` {tool, level,
 *          needsConfirmation, approvalClass, critical, autoApproved, rule,
 *          reason} plus needsConfirmationBase and autonomy {requested,
 *          applied, expiresAt, reason}.
 * A thin face over wg_engine_check (waggle/engine.h): the one autonomy
 * resolver (an elevated level applies only while expiresAt is present, in
 * the future, within the operator's cap and max level; otherwise the
 * answer's autonomy.reason says why), the gate, the operator's
 * never-autopass list, and the approval_auto audit row when a level
 * pre-approves what the base gate would ask for. */
#include "server/metrics.h"
#include "server/route.h"
#include "waggle/engine.h"
#include "waggle/error.h"

#include <stdio.h>
#include <string.h>

enum { TOOL_MAX = 256 };

static int bad(wg_res *res, const char *field, const char *msg)
{
    return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                           field, "message", msg));
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
    wg_autonomy_request rq;
    const char *field = "autonomy";
    if (wg_autonomy_request_from_json(&rq, json_object_get(req->body, "autonomy"), &field) < 0)
        return bad(res, field, wg_error_last());
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = tool;
    call.args = args;
    wg_engine_outcome o;
    int rc = wg_engine_check(req->ctx->engine, &call, &rq, 0, &o);
    if (rc == WG_EINVAL)
        return bad(res, "tool", wg_error_last());
    if (rc < 0)
        return rc;
    const wg_gate_decision *d = &o.decision;
    wg_metrics__gate(wg_metrics__of(req->ctx), d->rule, d->needs_confirmation);
    return wg_res_json(res, 200, json_pack("{s:s,s:s,s:b,s:s,s:b,s:b,s:s,s:s,s:b,s:o}",
        "tool", tool, "level", wg_autonomy_name(d->level),
        "needsConfirmation", d->needs_confirmation,
        "approvalClass", wg_approval_name(d->approval_class),
        "critical", d->critical, "autoApproved", d->auto_approved,
        "rule", d->rule, "reason", d->reason,
        "needsConfirmationBase", d->needs_confirmation_base,
        "autonomy", wg_autonomy_resolution_json(&o.autonomy)));
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/api/gate/check", check, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_gate = {
    "gate", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

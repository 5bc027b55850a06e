/* routes_tools_execute.c - running tools over HTTP (spec 4, 7, 7.5, 8.2):
 * a thin face over the engine's one gated executor (waggle/engine.h).
 *   POST /api/tools/execute {tool, args?, autonomy?, sessionId?, workspaceId?}
 *        200 {tool, result, decision, autonomy}   ran (no confirmation needed,
 *                                                 or pre-approved by a level)
 *        202 {status:"pending_approval", approvalId, tool, expiresAt, decision,
 *             autonomy}                           nothing ran: a person approves
 *        404 not a tool the engine runs; 429 TOO_MANY_PENDING (count or bytes)
 *   POST /api/approval/:id {approved: true|false}
 *        200 {approvalId, approved, result?}      approved runs the call once
 *        400 approved is not a JSON boolean ("false" is not false: reference
 *            13 item 9); 404 unknown or already answered; 410
 *            {error:"APPROVAL_EXPIRED", message, approvalId, approved:false}
 *            once the approval TTL passed: it counts as denied, never runs
 *   GET  /api/approvals[?all=true]                {approvals:[...]} waiting ones
 * With `Accept: text/event-stream`, POST /api/tools/execute streams the
 * call's step events instead (sse.c). The gate, the approvals (kept in the
 * store, so another process can answer them) and every audit row are the
 * engine's. */
#include "server/metrics.h"
#include "server/route.h"
#include "server/sse.h"
#include "waggle/engine.h"
#include "waggle/error.h"

#include <stdio.h>
#include <string.h>

static int bad_field(wg_res *res, const char *field, const char *msg)
{
    return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                           field, "message", msg));
}

int wg_tools__parse_call(wg_engine_call *call, wg_autonomy_request *autonomy, wg_res *res,
                         const wg_req *req)
{
    *call = (wg_engine_call)WG_ENGINE_CALL_INIT;
    json_t *args = NULL;
    const char *field = "autonomy";
    if (wg_body_string(res, req, "tool", 1, &call->tool) < 0 ||
        wg_body_object(res, req, "args", 0, &args) < 0 ||
        wg_body_string(res, req, "sessionId", 0, &call->session_id) < 0 ||
        wg_body_string(res, req, "workspaceId", 0, &call->workspace_id) < 0)
        return -1;
    call->args = args;
    if (wg_autonomy_request_from_json(autonomy, json_object_get(req->body, "autonomy"), &field) < 0)
        return bad_field(res, field, wg_error_last()), -1;
    return 0;
}

/* The engine's refusals as HTTP answers. */
int wg_tools__error(wg_res *res, int rc, const char *tool)
{
    (void)tool;   /* never echoed: body values stay out of error messages */
    if (rc == WG_ENOTFOUND)
        return wg_res_error(res, 404, "NOT_FOUND", "tool is not a tool this service runs");
    if (rc == WG_EBUSY)
        return wg_res_error(res, 429, "TOO_MANY_PENDING", "%s", wg_error_last());
    if (rc == WG_EINVAL)
        return wg_res_error(res, 400, "INVALID_REQUEST", "%s", wg_error_last());
    return rc;
}

static int answer(wg_res *res, const wg_req *req, const wg_engine_outcome *o)
{
    wg_metrics__gate(wg_metrics__of(req->ctx), o->decision.rule, o->decision.needs_confirmation);
    json_t *decision = wg_engine_decision_json(&o->decision);
    json_t *autonomy = wg_autonomy_resolution_json(&o->autonomy);
    if (decision)   /* GateDecision names its tool, as /api/gate/check's does */
        json_object_set_new(decision, "tool", json_string(o->tool));
    if (o->status == WG_ENGINE_RAN)
        return wg_res_json(res, 200, json_pack("{s:s,s:O,s:o,s:o}", "tool", o->tool, "result",
                                               o->result, "decision", decision, "autonomy",
                                               autonomy));
    if (o->status == WG_ENGINE_PENDING) {
        char when[WG_TIME_ISO_MAX];
        wg_time_format_iso(when, o->expires_ms);
        return wg_res_json(res, 202, json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "status",
                                               "pending_approval", "approvalId", o->approval_id,
                                               "tool", o->tool, "expiresAt", when, "decision",
                                               decision, "autonomy", autonomy));
    }
    json_decref(decision);
    json_decref(autonomy);
    return wg_res_error(res, 500, "INTERNAL_ERROR", "the call was neither run nor left pending");
}

static int execute(wg_res *res, const wg_req *req)
{
    const char *accept = wg_req_header(req, "Accept");
    if (accept && strstr(accept, "text/event-stream"))
        return wg_sse__execute(res, req);
    wg_engine_call call;
    wg_autonomy_request autonomy;
    if (wg_tools__parse_call(&call, &autonomy, res, req) < 0)
        return 0;
    wg_engine_outcome o;
    int rc = wg_engine_execute(req->ctx->engine, &call, &autonomy, NULL, &o);
    if (rc < 0)
        return wg_tools__error(res, rc, call.tool);
    rc = answer(res, req, &o);
    wg_engine_outcome_clear(&o);
    return rc;
}

static int approval(wg_res *res, const wg_req *req)
{
    const char *id = wg_req_param(req, "id");
    json_t *v = json_object_get(req->body, "approved");
    if (!json_is_boolean(v))   /* strictly true or false: "false" is not false */
        return bad_field(res, "approved", "approved must be true or false (a JSON boolean)");
    wg_engine_outcome o;
    int rc = wg_engine_approve(req->ctx->engine, id, json_is_true(v), NULL, &o);
    if (rc == WG_ENOTFOUND)
        return wg_res_error(res, 404, "NOT_FOUND", "no pending approval with this id");
    if (rc < 0)
        return rc;
    char msg[128];
    snprintf(msg, sizeof msg, "the approval expired after %lld s and counts as denied",
             (long long)(wg_engine_approval_ttl_ms(req->ctx->engine) / 1000));
    if (o.status == WG_ENGINE_EXPIRED)
        rc = wg_res_json(res, 410, json_pack("{s:s,s:s,s:s,s:b}", "error", "APPROVAL_EXPIRED",
                                             "message", msg, "approvalId", o.approval_id,
                                             "approved", 0));
    else if (o.status == WG_ENGINE_RAN)
        rc = wg_res_json(res, 200, json_pack("{s:s,s:b,s:s,s:O}", "approvalId", o.approval_id,
                                             "approved", 1, "tool", o.tool, "result", o.result));
    else
        rc = wg_res_json(res, 200, json_pack("{s:s,s:b,s:s}", "approvalId", o.approval_id,
                                             "approved", 0, "tool", o.tool));
    wg_engine_outcome_clear(&o);
    return rc;
}

static int approvals(wg_res *res, const wg_req *req)
{
    const char *all = wg_req_query(req, "all");
    wg_engine_approval *list = NULL;
    size_t n = 0;
    int rc = wg_engine_approvals(&list, &n, req->ctx->engine, all && !strcmp(all, "true"), 0);
    if (rc < 0)
        return rc;
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, wg_engine_approval_json(&list[i]));
    wg_engine_approvals_free(list, n);
    return wg_res_json(res, 200, json_pack("{s:o}", "approvals", arr));
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/api/tools/execute", execute,   WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/approval/:id",  approval,  WG_ROUTE_FREE, 0 },
    { WG_HTTP_GET,  "/api/approvals",     approvals, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_tools_execute = {
    "tools_execute", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

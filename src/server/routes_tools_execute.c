/* routes_tools_execute.c - running connector tools over HTTP, through the
 * confirmation gate (spec 7, 8.2; issue 7):
 *   POST /api/tools/execute {tool, args, autonomy?}
 *        200 {tool, result, decision}      ran (no confirmation needed, or
 *                                          pre-approved by an elevated level)
 *        202 {status:"pending_approval", approvalId, tool, expiresAt, decision}
 *                                          nothing ran: a person must approve
 *   POST /api/approval/:id {approved: true|false}
 *        200 {approvalId, approved, result?}   approved runs the call once
 *        400 approved is not a JSON boolean ("false" is not false: reference
 *            13 item 9); 404 unknown id; 410 {error:"APPROVAL_EXPIRED",
 *            message, approvalId, approved:false} once the server's approval
 *            TTL passed (ctx->approval_ttl_ms, default 5 minutes): the call
 *            counts as denied and never runs
 * Risk comes from the tool name and the registry's declared riskLevel,
 * never from the arguments (ARCHITECTURE.md Decisions). autonomy is
 * {level, expiresAt}: the level applies only while expiresAt is present, in
 * the future and no further ahead than the server's cap (spec 7.5). The
 * gate is the server's (ctx->gate, with the registry's risk hook); every
 * approval step is an audit row: approval_requested, approval_granted,
 * approval_denied, approval_auto (spec 7, reference 5.5). An expiry is an
 * approval_denied row with rule approval.expired, written when the late
 * answer arrives or, for a call nobody answered, when the entry is dropped
 * (it stays answerable with 410 for one more TTL, then it is forgotten). */
#include "server/route.h"
#include "waggle/connector.h"
#include "waggle/autonomy.h"
#include "waggle/error.h"
#include "waggle/audit.h"
#include "waggle/gate.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_PENDING = 1024 };

typedef struct pending {
    char id[33];
    char *tool;
    json_t *args;
    long long expires_ms;
    long long forget_ms;     /* after expiry it still answers 410 until then */
    struct pending *next;
} pending;

typedef struct state {
    pthread_mutex_t mu;
    pending *head;
    size_t n;
} state;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void iso_ms(char *buf, size_t n, long long ms)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + k, n - k, ".%03lldZ", ms % 1000);
}

static void pending_free(pending *p)
{
    free(p->tool);
    json_decref(p->args);
    free(p);
}

/* Unlinks the entries past their forget time onto *dead (the caller logs
 * and frees them after unlocking); caller holds the lock. */
static void sweep(state *st, long long now, pending **dead)
{
    for (pending **pp = &st->head; *pp;) {
        if ((*pp)->forget_ms <= now) {
            pending *gone = *pp;
            *pp = gone->next;
            gone->next = *dead;
            *dead = gone;
            st->n--;
        } else {
            pp = &(*pp)->next;
        }
    }
}

/* ---- autonomy ----------------------------------------------------------- */

/* The one resolver (waggle/autonomy.h). Fills *level; 0, or -1 after
 * answering 400. */
static int autonomy(wg_res *res, const wg_req *req, wg_autonomy *level)
{
    wg_autonomy_request rq;
    const char *field = "autonomy";
    if (wg_autonomy_request_from_json(&rq, json_object_get(req->body, "autonomy"), &field) < 0) {
        wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field", field,
                                        "message", wg_error_last()));
        return -1;
    }
    wg_autonomy_policy pol = WG_AUTONOMY_POLICY_INIT;
    pol.cap_ms = req->ctx->autonomy_cap_ms;
    wg_autonomy_resolution ar;
    if (wg_autonomy_resolve(&ar, &rq, &pol, now_ms()) < 0) {
        wg_res_error(res, 500, "INTERNAL_ERROR", "the autonomy policy is invalid");
        return -1;
    }
    *level = ar.applied;
    return 0;
}

static json_t *decision_json(const wg_gate_decision *d)
{
    return json_pack("{s:b,s:b,s:b,s:b,s:s,s:s,s:s,s:s}", "needsConfirmation",
                     d->needs_confirmation, "needsConfirmationBase", d->needs_confirmation_base,
                     "critical", d->critical, "autoApproved", d->auto_approved, "approvalClass",
                     wg_approval_name(d->approval_class), "level", wg_autonomy_name(d->level),
                     "rule", d->rule, "reason", d->reason);
}

/* One audit row for an approval step. Failing to write it refuses the call
 * (fail closed) when it would run; a denial is logged best-effort. */
static int audit_step(const wg_req *req, const char *event, const char *tool, const json_t *args,
                      const char *rule)
{
    if (!req->ctx->audit)
        return 0;
    wg_audit_record rec = { .event = event, .actor = "api", .tool = tool, .input = args,
                            .decision = event + strlen("approval_"), .rule = rule };
    return wg_audit_append(req->ctx->audit, &rec, NULL);
}

/* Nobody answered these in time: each is a denial (rule approval.expired). */
static void forget(const wg_req *req, pending *dead)
{
    while (dead) {
        pending *next = dead->next;
        audit_step(req, "approval_denied", dead->tool, dead->args, "approval.expired");
        pending_free(dead);
        dead = next;
    }
}

/* ---- routes ----------------------------------------------------------------- */

static int run(wg_res *res, const wg_req *req, const char *tool, const json_t *args,
               json_t *extra)
{
    json_t *result = NULL;
    int rc = wg_registry_execute(&result, req->ctx->registry, tool, args);
    if (!result) {
        json_decref(extra);
        return rc;
    }
    json_t *out = json_pack("{s:s,s:o}", "tool", tool, "result", result);
    json_object_update(out, extra);
    json_decref(extra);
    return wg_res_json(res, 200, out);
}

static int execute(wg_res *res, const wg_req *req)
{
    state *st = req->area_state;
    const char *tool = NULL;
    json_t *args = NULL;
    wg_autonomy level;
    if (wg_body_string(res, req, "tool", 1, &tool) < 0 ||
        wg_body_object(res, req, "args", 0, &args) < 0 || autonomy(res, req, &level) < 0)
        return 0;
    wg_risk_level risk;
    if (wg_registry_action_risk(&risk, req->ctx->registry, tool) < 0)
        return wg_res_error(res, 404, "NOT_FOUND", "tool is not a connector tool");
    json_t *empty = args ? NULL : json_object();
    const json_t *a = args ? args : empty;
    wg_gate_decision d;
    int rc = wg_gate_check_json(&d, req->ctx->gate, tool, a, level);
    if (rc < 0) {
        json_decref(empty);
        return rc;
    }
    if (!d.needs_confirmation && d.auto_approved &&
        (rc = audit_step(req, "approval_auto", tool, a, d.rule)) < 0) {
        json_decref(empty);
        return rc;
    }
    if (!d.needs_confirmation) {
        rc = run(res, req, tool, a, json_pack("{s:o}", "decision", decision_json(&d)));
        json_decref(empty);
        return rc;
    }
    pending *p = calloc(1, sizeof *p);
    unsigned char raw[16];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(p->id, sizeof p->id, raw, sizeof raw);
    p->tool = strdup(tool);
    p->args = json_deep_copy(a);
    p->expires_ms = now_ms() + req->ctx->approval_ttl_ms;
    p->forget_ms = p->expires_ms + req->ctx->approval_ttl_ms;
    json_decref(empty);
    pending *dead = NULL;
    pthread_mutex_lock(&st->mu);
    sweep(st, now_ms(), &dead);
    int full = st->n >= MAX_PENDING;
    if (!full) {
        p->next = st->head;
        st->head = p;
        st->n++;
    }
    pthread_mutex_unlock(&st->mu);
    forget(req, dead);
    if (full) {
        pending_free(p);
        return wg_res_error(res, 429, "TOO_MANY_PENDING", "too many calls wait for approval");
    }
    audit_step(req, "approval_requested", tool, p->args, d.rule);
    char when[40];
    iso_ms(when, sizeof when, p->expires_ms);
    wg_server_logf(req->ctx, "approval %.8s… requested for %s", p->id, tool);
    return wg_res_json(res, 202, json_pack("{s:s,s:s,s:s,s:s,s:o}", "status", "pending_approval",
                                           "approvalId", p->id, "tool", tool, "expiresAt", when,
                                           "decision", decision_json(&d)));
}

static int approval(wg_res *res, const wg_req *req)
{
    state *st = req->area_state;
    const char *id = wg_req_param(req, "id");
    json_t *v = json_object_get(req->body, "approved");
    if (!json_is_boolean(v))   /* strictly true or false: "false" is not false */
        return wg_res_error(res, 400, "INVALID_FIELD", "approved must be true or false (a JSON boolean)");
    pthread_mutex_lock(&st->mu);
    pending *found = NULL;
    int expired = 0;
    long long now = now_ms();
    for (pending **pp = &st->head; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->id, id) == 0) {
            found = *pp;
            *pp = found->next;     /* single use */
            st->n--;
            expired = found->expires_ms <= now;
            break;
        }
    }
    pthread_mutex_unlock(&st->mu);
    if (!found)
        return wg_res_error(res, 404, "NOT_FOUND", "no pending approval with this id");
    if (expired) {
        wg_server_logf(req->ctx, "approval %.8s… expired for %s", id, found->tool);
        audit_step(req, "approval_denied", found->tool, found->args, "approval.expired");
        pending_free(found);
        char msg[128];
        snprintf(msg, sizeof msg, "the approval expired after %lld s and counts as denied",
                 req->ctx->approval_ttl_ms / 1000);
        return wg_res_json(res, 410, json_pack("{s:s,s:s,s:s,s:b}", "error", "APPROVAL_EXPIRED",
                                               "message", msg, "approvalId", id, "approved", 0));
    }
    int rc;
    if (json_is_true(v)) {
        wg_server_logf(req->ctx, "approval %.8s… granted for %s", id, found->tool);
        rc = audit_step(req, "approval_granted", found->tool, found->args, NULL);
        if (rc == 0)
            rc = run(res, req, found->tool, found->args,
                     json_pack("{s:s,s:b}", "approvalId", id, "approved", 1));
    } else {
        wg_server_logf(req->ctx, "approval %.8s… denied for %s", id, found->tool);
        audit_step(req, "approval_denied", found->tool, found->args, NULL);
        rc = wg_res_json(res, 200, json_pack("{s:s,s:b}", "approvalId", id, "approved", 0));
    }
    pending_free(found);
    return rc;
}

static int init(void **out, wg_server_ctx *ctx)
{
    (void)ctx;
    state *st = calloc(1, sizeof *st);
    if (!st)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&st->mu, NULL);
    *out = st;
    return 0;
}

static void fini(void *p)
{
    state *st = p;
    if (!st)
        return;
    while (st->head) {
        pending *n = st->head->next;
        pending_free(st->head);
        st->head = n;
    }
    pthread_mutex_destroy(&st->mu);
    free(st);
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/api/tools/execute", execute,  WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/approval/:id",  approval, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_tools_execute = {
    "tools_execute", routes, sizeof routes / sizeof routes[0], init, fini,
};

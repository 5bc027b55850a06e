/* execute.c - the one gated executor (waggle/engine.h; spec 4, 7, 7.5):
 * every face runs tools only through wg_engine_execute, and answers
 * approvals only through wg_engine_approve, so the order of decisions and
 * the audit rows are the same for all of them:
 *   resolve autonomy -> gate (+ the operator's never-autopass list) ->
 *   no confirmation: [approval_auto row, step "⚡ <tool> auto-approved
 *   (<level>)"] -> run -> result
 *   confirmation:    pending approval in the store -> approval_requested
 *   row -> approval_required event -> (a person at hand may answer at once)
 *   answer:          approval_granted row, step "✔ <tool> approved", run;
 *                    or approval_denied, step "✖ <tool> denied by user";
 *                    or, past its time, approval_denied (approval.expired).
 * A row that must precede a run (approval_auto, approval_requested,
 * approval_granted) failing to be written refuses the call: fail closed. */
#include "engine/engine_int.h"
#include "waggle/catalog_tools.h"
#include "waggle/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef enum { TOOL_CONNECTOR, TOOL_CAPABILITY, TOOL_CATALOG, TOOL_KVARK, TOOL_PROVIDER } tool_kind;

/* The agent tools of spec 4 besides connectors: their definitions are the
 * tables of waggle/capability_tools.h and waggle/catalog_tools.h. */
static int native_kind(tool_kind *k, const char *tool)
{
    size_t n = 0;
    const wg_captool_def *cap = wg_captool_defs(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(cap[i].name, tool) == 0)
            return *k = TOOL_CAPABILITY, 1;
    const wg_catalogtool_def *cat = wg_catalogtool_defs(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(cat[i].name, tool) == 0)
            return *k = TOOL_CATALOG, 1;
    return 0;
}

static int find_tool(tool_kind *k, wg_engine *e, const char *tool)
{
    if (native_kind(k, tool))
        return 0;
    const char *rest = NULL;
    if (wg_engine__provider_of(e, tool, &rest)) {
        *k = TOOL_PROVIDER;   /* whether it is listed now: its classify says (decide) */
        return 0;
    }
    if (wg_kvark_is_tool(tool)) {
        /* registered only while configured on a tier that includes KVARK */
        wg_kvark_config cfg;
        int rc = wg_engine__kvark_config(&cfg, e);
        wg_kvark_config_clear(&cfg);
        if (rc == 0)
            *k = TOOL_KVARK;
        return rc;
    }
    wg_registry *reg = NULL;
    wg_risk_level risk;
    int rc = wg_engine_registry(&reg, e);
    if (rc < 0)
        return rc;
    if (wg_registry_action_risk(&risk, reg, tool) < 0)
        return wg_error_set(WG_ENOTFOUND, "'%s' is not a tool this engine runs (a connector "
                            "tool connector_<id>_<action>, or one of the agent tools)", tool);
    *k = TOOL_CONNECTOR;
    return 0;
}

static int printable(const char *s, size_t max)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (n >= max || (unsigned char)s[n] < 0x20 || s[n] == 0x7f)
            return 0;
    return n > 0;
}

static int check_call(const wg_engine_call *call)
{
    if (!call || call->version != WG_ENGINE_CALL_VERSION)
        return wg_error_set(WG_EINVAL, "wg_engine: a call (WG_ENGINE_CALL_INIT) is required");
    if (!call->tool || !printable(call->tool, WG_ENGINE_TOOL_MAX - 1))
        return wg_error_set(WG_EINVAL, "tool must be 1-%d printable bytes", WG_ENGINE_TOOL_MAX - 1);
    if (call->args && !json_is_object(call->args))
        return wg_error_set(WG_EINVAL, "args must be a JSON object");
    if ((call->workspace_id && !printable(call->workspace_id, WG_ENGINE_ID_MAX)) ||
        (call->session_id && !printable(call->session_id, WG_ENGINE_ID_MAX)))
        return wg_error_set(WG_EINVAL, "workspaceId and sessionId must be 1-%d printable bytes",
                            WG_ENGINE_ID_MAX);
    return 0;
}

/* The operator's never-autopass list wins over every level. */
static void overlay(const wg_engine *e, const char *tool, wg_gate_decision *d)
{
    if (!wg_engine__never_autopass(e, tool))
        return;
    d->critical = 1;
    d->auto_approved = 0;
    d->needs_confirmation_base = 1;
    if (!d->needs_confirmation) {
        d->needs_confirmation = 1;
        d->rule = "operator.never_autopass";
        snprintf(d->reason, sizeof d->reason, "the operator marked %.120s never-autopass: a "
                 "person approves it at every autonomy level", tool);
    }
}

static int decide(wg_engine *e, const wg_engine_call *call, const wg_autonomy_request *rq,
                  wg_engine_outcome *out)
{
    wg_autonomy_request normal = WG_AUTONOMY_REQUEST_INIT;
    int rc = wg_autonomy_resolve(&out->autonomy, rq ? rq : &normal, &e->policy, wg_engine_now(e));
    const wg_gate *gate = NULL;
    const char *rest = NULL;
    const engine_provider *p = rc == 0 ? wg_engine__provider_of(e, call->tool, &rest) : NULL;
    if (p) {
        rc = wg_engine__provider_decide(&out->decision, e, p, rest, call->args,
                                        out->autonomy.applied);
        if (rc == WG_ENOTFOUND)
            rc = wg_error_set(WG_ENOTFOUND, "'%s' is not a tool provider %s lists now",
                              call->tool, p->prefix);
    } else {
        if (rc == 0)
            rc = wg_engine_gate(&gate, e);
        if (rc == 0)
            rc = wg_gate_check_json(&out->decision, gate, call->tool, call->args,
                                    out->autonomy.applied);
    }
    if (rc == 0)
        overlay(e, call->tool, &out->decision);
    snprintf(out->tool, sizeof out->tool, "%s", call->tool);
    return rc;
}

void wg_engine_outcome_clear(wg_engine_outcome *o)
{
    if (!o)
        return;
    json_decref(o->result);
    o->result = NULL;
}

json_t *wg_engine_decision_json(const wg_gate_decision *d)
{
    return json_pack("{s:b,s:b,s:b,s:b,s:s,s:s,s:s,s:s}", "needsConfirmation",
                     d->needs_confirmation, "needsConfirmationBase", d->needs_confirmation_base,
                     "critical", d->critical, "autoApproved", d->auto_approved, "approvalClass",
                     wg_approval_name(d->approval_class), "level", wg_autonomy_name(d->level),
                     "rule", d->rule, "reason", d->reason);
}

/* ---- events -------------------------------------------------------------------- */

typedef struct call_view {
    const char *tool;
    const char *approval_id;    /* or NULL */
    const char *workspace_id, *session_id;
    const char *rule;           /* the rule that let it run (the audit row of a provider call) */
} call_view;

static json_t *event_base(const call_view *v)
{
    json_t *o = json_pack("{s:s}", "tool", v->tool);
    if (o && v->approval_id)
        json_object_set_new(o, "approvalId", json_string(v->approval_id));
    if (o && v->session_id)
        json_object_set_new(o, "sessionId", json_string(v->session_id));
    if (o && v->workspace_id)
        json_object_set_new(o, "workspaceId", json_string(v->workspace_id));
    return o;
}

static void step(wg_engine *e, const wg_engine_ctx *ctx, const call_view *v, const char *fmt,
                 const char *arg)
{
    char content[WG_ENGINE_TOOL_MAX + 64];
    snprintf(content, sizeof content, fmt, v->tool, arg);
    json_t *d = event_base(v);
    json_object_set_new(d, "content", json_string(content));
    wg_engine__emit(e, ctx, WG_ENGINE_EVENT_STEP, v->tool, v->approval_id, v->session_id, d);
    json_decref(d);
}

static void error_event(wg_engine *e, const wg_engine_ctx *ctx, const call_view *v,
                        const char *code, const char *msg)
{
    json_t *d = event_base(v);
    json_object_set_new(d, "error", json_string(code));
    json_object_set_new(d, "message", json_string(msg));
    wg_engine__emit(e, ctx, WG_ENGINE_EVENT_ERROR, v->tool, v->approval_id, v->session_id, d);
    json_decref(d);
}

void wg_engine__expired_events(wg_engine *e, const wg_engine_ctx *ctx, const char *tool,
                               const char *approval_id, const char *workspace_id,
                               const char *session_id)
{
    call_view v = { tool, approval_id, workspace_id, session_id, NULL };
    step(e, ctx, &v, "✖ %s approval expired%s", "");
    error_event(e, ctx, &v, "APPROVAL_EXPIRED", "the approval expired and counts as denied");
}

/* ---- running --------------------------------------------------------------------- */

typedef struct cap_audit {
    wg_engine *e;
    const char *actor;
    const call_view *v;
} cap_audit;

/* spec 4: the capability tools' audit events, written on every path. */
static void on_capability(void *ctx, const char *action, const char *name, const char *source,
                          const wg_trust_assessment *t)
{
    cap_audit *ca = ctx;
    char event[48];
    snprintf(event, sizeof event, "capability_%s", action);
    json_t *in = json_pack("{s:s,s:s}", "name", name, "source", source);
    if (in && t) {
        json_object_set_new(in, "riskLevel", json_string(wg_risk_name(t->risk)));
        json_object_set_new(in, "approvalClass", json_string(wg_approval_name(t->approval)));
    }
    if (in && ca->v->session_id)
        json_object_set_new(in, "session", json_string(ca->v->session_id));
    if (in && ca->v->workspace_id)
        json_object_set_new(in, "workspaceId", json_string(ca->v->workspace_id));
    wg_engine__note(ca->e, event, ca->actor, ca->v->tool, in, action, NULL);
    json_decref(in);
}

/* {success, data} from a tool's text answer ("Error: ..." is a failure). */
static json_t *text_result(char *text, int as_json)
{
    static const char err[] = "Error: ";
    json_t *r;
    if (strncmp(text, err, sizeof err - 1) == 0)
        r = json_pack("{s:b,s:s}", "success", 0, "error", text + sizeof err - 1);
    else if (as_json)
        r = json_pack("{s:b,s:o?}", "success", 1, "data", json_loads(text, 0, NULL));
    else
        r = json_pack("{s:b,s:s}", "success", 1, "data", text);
    free(text);
    return r;
}

/* A provider's progress, relayed as step events of the call. The provider
 * may call from its own threads while run_progress runs: one lock, a count
 * and a 100 ms spacing bound what reaches the bus and the MCP client. */
typedef struct progress_relay {
    wg_engine *e;
    const wg_engine_ctx *ctx;
    const call_view *v;
    pthread_mutex_t mu;
    unsigned sent;
    struct timespec last;
} progress_relay;

static void relay_progress(void *pud, double done, double total, const char *message)
{
    progress_relay *r = pud;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&r->mu);
    long long gap_ms = (long long)(now.tv_sec - r->last.tv_sec) * 1000 +
                       (now.tv_nsec - r->last.tv_nsec) / 1000000;
    if (r->sent >= WG_ENGINE_PROGRESS_MAX || (r->sent > 0 && gap_ms < 100)) {
        pthread_mutex_unlock(&r->mu);
        return;
    }
    r->sent++;
    r->last = now;
    char msg[161] = "";
    for (size_t i = 0, k = 0; message && message[i] && k + 1 < sizeof msg; i++)
        if ((unsigned char)message[i] >= 0x20 && (unsigned char)message[i] < 0x7f)
            msg[k++] = message[i], msg[k] = '\0';      /* printable ASCII only, cut */
    char content[WG_ENGINE_TOOL_MAX + 256];
    if (total > 0)
        snprintf(content, sizeof content, "… %s: %.0f of %.0f%s%s", r->v->tool, done, total,
                 msg[0] ? ": " : "", msg);
    else
        snprintf(content, sizeof content, "… %s: %.0f%s%s", r->v->tool, done, msg[0] ? ": " : "", msg);
    json_t *d = event_base(r->v);
    json_object_set_new(d, "content", json_string(content));
    json_object_set_new(d, "progress", json_real(done));
    if (total > 0)
        json_object_set_new(d, "total", json_real(total));
    wg_engine__emit(r->e, r->ctx, WG_ENGINE_EVENT_STEP, r->v->tool, r->v->approval_id,
                    r->v->session_id, d);
    json_decref(d);
    pthread_mutex_unlock(&r->mu);
}

/* A provider's tool: the provider_call row first (fail closed), then its run. */
static int run_provider(json_t **result, wg_engine *e, const wg_engine_ctx *ctx, const call_view *v,
                        const json_t *args, const char *actor)
{
    const char *rest = NULL;
    const engine_provider *p = wg_engine__provider_of(e, v->tool, &rest);
    if (!p)
        return wg_error_set(WG_ENOTFOUND, "no provider runs '%s'", v->tool);
    json_t *summary = NULL;
    int rc = wg_engine__args_summary(&summary, e, args, NULL);
    if (rc < 0)
        return rc;
    json_t *in = json_pack("{s:s,s:s,s:o}", "provider", p->prefix, "providerTool", rest,
                           "arguments", summary);
    if (in && v->approval_id)
        json_object_set_new(in, "approvalId", json_string(v->approval_id));
    if (in && v->session_id)
        json_object_set_new(in, "session", json_string(v->session_id));
    if (in && v->workspace_id)
        json_object_set_new(in, "workspaceId", json_string(v->workspace_id));
    rc = in ? wg_engine__note(e, "provider_call", actor, v->tool, in,
                              v->approval_id ? "approved" : "allowed", v->rule)
            : wg_error_set(WG_ENOMEM, "out of memory");
    json_decref(in);
    if (rc < 0)
        return wg_error_set(rc, "the audit row of %s could not be written, so it was not run",
                            v->tool);
    if (p->p.run_progress) {
        progress_relay r = { .e = e, .ctx = ctx, .v = v };
        pthread_mutex_init(&r.mu, NULL);
        rc = p->p.run_progress(p->p.ctx, rest, args, relay_progress, &r, result);
        pthread_mutex_destroy(&r.mu);
    } else {
        rc = p->p.run(p->p.ctx, rest, args, result);
    }
    if (rc < 0) {
        json_decref(*result);
        *result = NULL;
    } else if (!json_is_object(*result)) {
        json_decref(*result);
        *result = NULL;
        rc = wg_error_set(WG_EUPSTREAM, "provider %s gave no result for %s", p->prefix, rest);
    }
    return rc;
}

static int run_tool(json_t **result, wg_engine *e, const wg_engine_ctx *ctx, tool_kind kind,
                    const call_view *v, const json_t *args, const char *actor)
{
    json_t *empty = args ? NULL : json_object();
    const json_t *a = args ? args : empty;
    char *text = NULL;
    int rc = 0;
    if (kind == TOOL_PROVIDER) {
        rc = run_provider(result, e, ctx, v, a, actor);
    } else if (kind == TOOL_CONNECTOR) {
        wg_registry *reg = NULL;
        if ((rc = wg_engine_registry(&reg, e)) == 0)
            rc = wg_registry_execute(result, reg, v->tool, a);
        if (*result)
            rc = 0;
    } else if (kind == TOOL_KVARK) {
        /* v->approval_id is set only when a person granted this call */
        rc = wg_engine__kvark_run(result, e, v->tool, a, v->workspace_id, v->approval_id);
    } else if (kind == TOOL_CAPABILITY) {
        const wg_trust *t = NULL;
        const wg_skillset *s = NULL;
        cap_audit ca = { e, actor, v };
        wg_store *shared = NULL;
        if ((rc = wg_engine_trust(&t, e)) == 0 && (rc = wg_engine_starter(&s, e)) == 0 &&
            (rc = wg_engine__shared_store(&shared, e)) == 0) {
            wg_captool_env env = { .trust = t, .starter = s, .data_dir = e->data_dir,
                                   .audit = on_capability, .audit_ctx = &ca, .store = shared };
            rc = wg_captool_execute(&text, &env, v->tool, a);
        }
        if (text)
            *result = text_result(text, 0), rc = 0;
    } else {
        const wg_catalog *cat = NULL;
        if ((rc = wg_engine_catalog(&cat, e)) == 0)
            rc = wg_catalogtool_execute(&text, cat, v->tool, a);
        if (rc == 0 && text)
            *result = text_result(text, 1);
    }
    json_decref(empty);
    if (rc == 0 && !*result)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    return rc;
}

static int run(wg_engine *e, const wg_engine_ctx *ctx, tool_kind kind, const call_view *v,
               const json_t *args, wg_engine_outcome *out)
{
    json_t *result = NULL;
    int rc = run_tool(&result, e, ctx, kind, v, args, wg_engine__actor(e, ctx));
    if (rc < 0) {
        error_event(e, ctx, v, "TOOL_FAILED", wg_error_last());
        return rc;
    }
    out->status = WG_ENGINE_RAN;
    out->result = result;
    json_t *d = event_base(v);
    json_object_set(d, "result", result);
    wg_engine__emit(e, ctx, WG_ENGINE_EVENT_RESULT, v->tool, v->approval_id, v->session_id, d);
    json_decref(d);
    return 0;
}

/* ---- answers ---------------------------------------------------------------------- */

static int answer(wg_engine *e, const char *id, int approved, const wg_engine_ctx *ctx,
                  wg_engine_outcome *out)
{
    const char *actor = wg_engine__actor(e, ctx);
    engine_claim c;
    int rc = wg_engine__pending_claim(e, id, approved, actor, &c);
    if (rc < 0)
        return rc;
    tool_kind kind = TOOL_CONNECTOR;
    snprintf(out->tool, sizeof out->tool, "%s", c.tool);
    snprintf(out->approval_id, sizeof out->approval_id, "%s", id);
    out->expires_ms = c.expires_ms;
    out->status = c.status;
    call_view v = { c.tool, out->approval_id, c.workspace_id, c.session_id, c.rule };
    engine_row row = { NULL, NULL, c.tool, NULL, actor, c.level, id, c.workspace_id,
                       c.session_id, c.summary };
    if (c.status == WG_ENGINE_EXPIRED) {
        if (c.audit_expiry) {
            row.event = "approval_denied";
            row.decision = "denied";
            row.rule = "approval.expired";
            wg_engine__row(e, &row);
        }
        wg_engine__logf(e, "approval %.8s… expired for %s", id, c.tool);
        wg_engine__expired_events(e, ctx, c.tool, id, c.workspace_id, c.session_id);
    } else if (c.status == WG_ENGINE_DENIED) {
        row.event = "approval_denied";
        row.decision = "denied";
        wg_engine__row(e, &row);
        wg_engine__logf(e, "approval %.8s… denied for %s", id, c.tool);
        step(e, ctx, &v, "✖ %s denied by user%s", "");
        error_event(e, ctx, &v, "APPROVAL_DENIED", "a person denied the call; it did not run");
    } else {
        row.event = "approval_granted";
        row.decision = "granted";
        rc = wg_engine__row(e, &row);
        if (rc == 0 && (native_kind(&kind, c.tool) || (rc = find_tool(&kind, e, c.tool)) == 0)) {
            wg_engine__logf(e, "approval %.8s… granted for %s", id, c.tool);
            step(e, ctx, &v, "✔ %s approved%s", "");
            rc = run(e, ctx, kind, &v, c.args, out);
        }
        wg_engine__pending_done(e, id);
    }
    wg_engine__claim_clear(&c);
    return rc;
}

static int check_id(const char *id)
{
    if (!id || strlen(id) != WG_ENGINE_APPROVAL_ID_MAX - 1 ||
        strspn(id, "0123456789abcdef") != WG_ENGINE_APPROVAL_ID_MAX - 1)
        return wg_error_set(WG_ENOTFOUND, "no pending approval with that id");
    return 0;
}

int wg_engine_approve(wg_engine *e, const char *id, int approved, const wg_engine_ctx *ctx,
                      wg_engine_outcome *out)
{
    if (!e || !out)
        return wg_error_set(WG_EINVAL, "wg_engine_approve: NULL argument");
    int rc = check_id(id);
    if (rc < 0)
        return rc;
    char copy[WG_ENGINE_APPROVAL_ID_MAX];   /* id may point into *out */
    memcpy(copy, id, sizeof copy);
    memset(out, 0, sizeof *out);
    if (approved) {
        /* A provider's tool runs only in the process that has the provider
         * (the `waggle mcp --gateway` that asked): granting it elsewhere
         * would use up the approval and run nothing. Refuse, keep it pending. */
        char *tool = NULL;
        int shaped = wg_engine__pending_tool(&tool, e, copy) == 0 && strstr(tool, "__") &&
                     !wg_engine_is_provider_tool(e, tool);
        if (shaped) {
            rc = wg_error_set(WG_EUNSUPPORTED, "%.200s is a tool of an MCP gateway upstream: only "
                              "the process that serves it can run it, so approve it there "
                              "(through the MCP client's elicitation); it stays pending here",
                              tool);
            free(tool);
            return rc;
        }
        free(tool);
    }
    return answer(e, copy, approved, ctx, out);
}

/* ---- the executor -------------------------------------------------------------------- */

static int wait_for_person(wg_engine *e, const wg_engine_call *call, const wg_engine_ctx *ctx,
                           const char *actor, wg_engine_outcome *out)
{
    const char *level = wg_autonomy_name(out->autonomy.applied);
    json_t *summary = NULL;
    size_t bytes = 0;
    int rc = wg_engine__args_summary(&summary, e, call->args, &bytes);
    if (rc < 0)
        return rc;
    json_t *empty = call->args ? NULL : json_object();
    engine_pending p = { .tool = call->tool, .args = call->args ? call->args : empty,
                         .args_bytes = bytes, .summary = summary, .decision = &out->decision,
                         .level = level, .workspace_id = call->workspace_id,
                         .session_id = call->session_id, .actor = actor };
    rc = wg_engine__pending_create(e, &p);
    json_decref(empty);
    if (rc == 0) {
        engine_row row = { "approval_requested", "requested", call->tool, out->decision.rule,
                           actor, level, p.id, call->workspace_id, call->session_id, summary };
        if ((rc = wg_engine__row(e, &row)) < 0)
            wg_engine__pending_drop(e, p.id);   /* unaudited: it must not be answerable */
    }
    if (rc < 0) {
        json_decref(summary);
        return rc;
    }
    snprintf(out->approval_id, sizeof out->approval_id, "%s", p.id);
    out->expires_ms = p.expires_ms;
    out->status = WG_ENGINE_PENDING;
    wg_engine__logf(e, "approval %.8s… requested for %s", p.id, call->tool);

    char when[WG_TIME_ISO_MAX];
    wg_time_format_iso(when, p.expires_ms);
    call_view v = { call->tool, p.id, call->workspace_id, call->session_id, NULL };
    json_t *d = event_base(&v);
    json_object_set_new(d, "requestId", json_string(p.id));
    json_object_set_new(d, "toolName", json_string(call->tool));
    json_object_set(d, "input", summary);
    json_object_set_new(d, "approvalClass",
                        json_string(wg_approval_name(out->decision.approval_class)));
    json_object_set_new(d, "rule", json_string(out->decision.rule));
    json_object_set_new(d, "explanation", json_string(out->decision.reason));
    json_object_set_new(d, "critical", json_boolean(out->decision.critical));
    json_object_set_new(d, "expiresAt", json_string(when));
    if (call->workspace_id)
        json_object_set_new(d, "sourceWorkspaceId", json_string(call->workspace_id));
    wg_engine__emit(e, ctx, WG_ENGINE_EVENT_APPROVAL_REQUIRED, call->tool, p.id,
                    call->session_id, d);
    json_decref(d);
    json_decref(summary);

    if (!ctx || !ctx->ask)
        return 0;
    wg_engine_ask a = { p.id, call->tool, &out->decision, p.expires_ms };
    wg_engine_answer ans = ctx->ask(ctx->ask_ud, &a);
    if (ans == WG_ENGINE_ASK_DEFER)
        return 0;
    wg_gate_decision keep = out->decision;
    wg_autonomy_resolution keep_a = out->autonomy;
    rc = answer(e, p.id, ans == WG_ENGINE_ASK_APPROVE, ctx, out);
    out->decision = keep;
    out->autonomy = keep_a;
    return rc;
}

int wg_engine_execute(wg_engine *e, const wg_engine_call *call,
                      const wg_autonomy_request *autonomy, const wg_engine_ctx *ctx,
                      wg_engine_outcome *out)
{
    if (!e || !out)
        return wg_error_set(WG_EINVAL, "wg_engine_execute: NULL argument");
    memset(out, 0, sizeof *out);
    tool_kind kind;
    int rc = check_call(call);
    if (rc == 0)
        rc = find_tool(&kind, e, call->tool);
    if (rc == 0)
        rc = decide(e, call, autonomy, out);
    if (rc < 0)
        return rc;
    const char *actor = wg_engine__actor(e, ctx);
    if (out->decision.needs_confirmation)
        return wait_for_person(e, call, ctx, actor, out);
    call_view v = { call->tool, NULL, call->workspace_id, call->session_id, out->decision.rule };
    if (out->decision.auto_approved) {
        const char *level = wg_autonomy_name(out->autonomy.applied);
        json_t *summary = NULL;
        if ((rc = wg_engine__args_summary(&summary, e, call->args, NULL)) < 0)
            return rc;
        engine_row row = { "approval_auto", "auto", call->tool, out->decision.rule, actor, level,
                           NULL, call->workspace_id, call->session_id, summary };
        rc = wg_engine__row(e, &row);
        json_decref(summary);
        if (rc < 0)
            return rc;
        step(e, ctx, &v, "⚡ %s auto-approved (%s)", level);
    }
    return run(e, ctx, kind, &v, call->args, out);
}

/* ---- checking without running ------------------------------------------------------- */

int wg_engine_check(wg_engine *e, const wg_engine_call *call,
                    const wg_autonomy_request *autonomy, unsigned flags,
                    wg_engine_outcome *out)
{
    if (!e || !out)
        return wg_error_set(WG_EINVAL, "wg_engine_check: NULL argument");
    memset(out, 0, sizeof *out);
    int rc = check_call(call);
    if (rc == 0)
        rc = decide(e, call, autonomy, out);
    if (rc < 0 || !out->decision.auto_approved || (flags & WG_ENGINE_CHECK_NO_AUDIT))
        return rc;
    json_t *summary = NULL;
    if ((rc = wg_engine__args_summary(&summary, e, call->args, NULL)) < 0)
        return rc;
    const char *level = wg_autonomy_name(out->autonomy.applied);
    engine_row row = { "approval_auto", "auto", call->tool, out->decision.rule, e->actor, level,
                       NULL, call->workspace_id, call->session_id, summary };
    rc = wg_engine__row(e, &row);
    json_decref(summary);
    /* a runtime that runs its own tools (write_file, bash) asks here: its
     * auto-approval is a step on the bus like the executor's (spec 7.5) */
    call_view v = { call->tool, NULL, call->workspace_id, call->session_id, NULL };
    if (rc == 0)
        step(e, NULL, &v, "⚡ %s auto-approved (%s)", level);
    return rc;
}

int wg_engine_check_line(wg_engine *e, const char *line, size_t len, wg_autonomy default_level,
                         char *tool, size_t tool_cap, wg_gate_decision *out)
{
    if (!e || !out)
        return wg_error_set(WG_EINVAL, "wg_engine_check_line: NULL argument");
    const wg_gate *gate = NULL;
    int rc = wg_engine_gate(&gate, e);
    if (rc < 0)
        return rc;
    /* The corpus's level is the operator's standing choice, still under the
     * operator's max level (waggle/autonomy.h). */
    wg_autonomy level = default_level > e->policy.max_level ? e->policy.max_level : default_level;
    if ((rc = wg_gate_check_line(out, gate, line, len, level, tool, tool_cap)) < 0)
        return rc;
    if (out->level > e->policy.max_level)
        rc = wg_gate_check_line(out, gate, line, len, e->policy.max_level, tool, tool_cap);
    if (rc == 0)
        overlay(e, tool, out);
    return rc;
}

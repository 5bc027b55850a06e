/* gateway.c - the MCP gateway's servers as the engine's tool providers
 * (gateway.h). The mapping from gwclass.h to the engine's verdict:
 *   READ -> LOW (runs silently), WRITE -> MEDIUM, DESTRUCTIVE -> HIGH
 * (both ask at Normal and Trusted, run at YOLO), plus a shell-like argument
 * for the bash gate (never-autopass at every level when it is critical). */
#include "mcp/gateway.h"
#include "waggle/shell.h"
#include "mcp/gwclass.h"
#include "mcp/upstream.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct gw_server {
    struct wg_gateway *g;
    char name[WG_GW_NAME_MAX + 1];
    int http;                    /* a url server (Streamable HTTP) */
    wg_upstream *u;
} gw_server;

struct wg_gateway {
    wg_engine *e;
    wg_gateway_options o;
    gw_server *servers;
    size_t n;
};

static const wg_risk_level class_risk[] = {
    [WG_GW_READ] = WG_RISK_LOW, [WG_GW_WRITE] = WG_RISK_MEDIUM, [WG_GW_DESTRUCTIVE] = WG_RISK_HIGH,
};

/* ---- the provider ------------------------------------------------------------- */

static int p_list(void *ctx, json_t **out)
{
    gw_server *s = ctx;
    return wg_mcp__up_tools(s->u, out);
}

/* A tool that may write, given a path (wg_shell_path_key) to a file that
 * runs code later or to the system itself (wg_shell_guarded_path): the
 * verdict becomes never-autopass, as the same write by a shell command or
 * the agent's own Write tool would be. Returns 1 when it did. */
typedef struct {
    wg_tool_verdict *out;
    const char *server, *tool;
} guard_ctx;

static int guarded_target(void *ud, const char *key, const char *path, size_t n)
{
    guard_ctx *g = ud;
    wg_guarded_kind kind;
    const char *what = wg_shell_guarded_path(path, n, &kind);
    if (!what)
        return 0;
    g->out->risk = WG_RISK_HIGH;
    g->out->critical = 1;
    g->out->rule = kind == WG_GUARDED_SYSTEM ? "gateway.write_system_file" : "gateway.write_runs_code";
    snprintf(g->out->reason, sizeof g->out->reason, "%s__%s: its argument \"%.40s\" names %s: never "
             "without a look", g->server, g->tool, key, what);
    return 1;
}

static int p_classify(void *ctx, const char *tool, const json_t *args, wg_tool_verdict *out)
{
    gw_server *s = ctx;
    json_t *t = wg_mcp__up_tool(s->u, tool);
    if (!t) {
        wg_up_status st;
        wg_mcp__up_status(s->u, &st);
        if (st.state != WG_UP_HEALTHY)
            return wg_error_set(WG_EUNAVAILABLE, "the upstream MCP server %s is %s%s%s%s, so %s "
                                "cannot run now%s", s->name, wg_mcp__up_state_name(st.state),
                                st.last_error[0] ? " (" : "", st.last_error,
                                st.last_error[0] ? ")" : "", tool,
                                st.state == WG_UP_FAILED ? ": it gave up restarting"
                                : ": it is restarted automatically, try again shortly");
        return wg_error_set(WG_ENOTFOUND, "upstream %s lists no tool %s now", s->name, tool);
    }
    wg_gw_verdict v = wg_mcp__gw_classify(tool, json_object_get(t, "annotations"));
    json_decref(t);
    out->risk = class_risk[v.cls];
    out->rule = v.rule;
    snprintf(out->reason, sizeof out->reason, "%s__%s: %s", s->name, tool, v.reason);
    out->shell = wg_mcp__gw_shell_arg(args, &out->shell_key);
    guard_ctx gc = { out, s->name, tool };
    if (v.cls != WG_GW_READ)
        (void)wg_shell_each_path_arg(args, guarded_target, &gc);
    return 0;
}

/* The first text item of a content array, for the error field. */
static const char *first_text(const json_t *content)
{
    size_t i;
    json_t *c;
    json_array_foreach(content, i, c)
        if (json_is_string(json_object_get(c, "text")))
            return json_string_value(json_object_get(c, "text"));
    return NULL;
}

static int p_run_progress(void *ctx, const char *tool, const json_t *args, wg_tool_progress_fn progress,
                          void *pud, json_t **result)
{
    gw_server *s = ctx;
    json_t *r = NULL;
    int rc = wg_mcp__up_call_progress(s->u, tool, args, 0, progress, pud, &r);
    if (rc < 0) {
        char why[400];
        const char *m = wg_error_last();
        if (strncmp(m, "gateway: ", 9) == 0)
            m += 9;
        snprintf(why, sizeof why, "%s", m);
        wg_up_status st;
        wg_mcp__up_status(s->u, &st);
        char next[96] = "";
        if (st.state == WG_UP_FAILED)
            snprintf(next, sizeof next, " It gave up restarting (too many failed starts).");
        else if (st.state == WG_UP_HEALTHY && rc == WG_EUNAVAILABLE)
            snprintf(next, sizeof next, " It has been restarted: the call may be tried again.");
        else if (rc == WG_EUNAVAILABLE)
            snprintf(next, sizeof next, " It is %s: try again shortly.",
                     wg_mcp__up_state_name(st.state));
        return wg_error_set(rc, "the upstream MCP server %s did not complete %s: %s.%s", s->name,
                            tool, why, next);
    }
    json_t *content = json_object_get(r, "content");
    json_t *structured = json_object_get(r, "structuredContent");
    int failed = json_is_true(json_object_get(r, "isError"));
    json_t *res = json_pack("{s:b}", "success", !failed);
    if (res && failed) {
        const char *text = first_text(content);
        json_object_set_new(res, "error", json_string(text ? text : "the upstream tool failed"));
    } else if (res) {
        json_object_set(res, "data", structured ? structured : content ? content : r);
    }
    if (res && json_is_array(content))
        json_object_set(res, "content", content);
    json_decref(r);
    if (!res)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *result = res;
    return 0;
}

static int p_run(void *ctx, const char *tool, const json_t *args, json_t **result)
{
    return p_run_progress(ctx, tool, args, NULL, NULL, result);
}

/* ---- lifecycle ------------------------------------------------------------------- */

static int resolve(void *ud, const char *name, char **value)
{
    wg_gateway *g = ud;
    wg_vault_entry *v = NULL;
    int rc = wg_engine_vault_get(&v, g->e, name, "mcp-gateway");
    if (rc < 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", rc == WG_ENOTFOUND ? "not in the vault" : wg_error_last());
        return wg_error_set(rc, "vault secret %s: %s", name, why);
    }
    *value = v->value;
    v->value = NULL;     /* handed over: the upstream wipes and frees it */
    wg_vault_entry_free(v);
    return *value ? 0 : wg_error_set(WG_ENOTFOUND, "vault secret %s has no value", name);
}

static void on_changed(void *ud, wg_upstream *u)
{
    (void)u;
    wg_gateway *g = ud;
    if (g->o.changed)
        g->o.changed(g->o.changed_ud);
}

static void on_note(void *ud, wg_upstream *u, const char *line)
{
    wg_gateway *g = ud;
    if (g->o.log)
        g->o.log(g->o.log_ud, wg_mcp__up_name(u), line);
}

static int prefix_ok(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && !strstr(name, "__") && name[n - 1] != '_';
}

void wg_mcp__gateway_free(wg_gateway *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++)
        wg_mcp__up_free(g->servers[i].u);
    free(g->servers);
    free(g);
}

int wg_mcp__gateway_start(wg_gateway **out, wg_engine *e, const wg_gw_config *cfg,
                          const wg_gateway_options *o)
{
    if (!out || !e || !cfg)
        return wg_error_set(WG_EINVAL, "gateway: NULL argument");
    for (size_t i = 0; i < cfg->n; i++)
        if (!prefix_ok(cfg->servers[i].name))
            return wg_error_set(WG_EINVAL, "gateway: server name %s cannot prefix its tools "
                                "(%s__tool would be ambiguous): no \"__\", no trailing '_'",
                                cfg->servers[i].name, cfg->servers[i].name);
    wg_gateway *g = calloc(1, sizeof *g);
    if (!g || !(g->servers = calloc(cfg->n ? cfg->n : 1, sizeof *g->servers))) {
        free(g);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    g->e = e;
    if (o)
        g->o = *o;
    else
        g->o.stderr_fd = -1;
    int rc = 0;
    for (size_t i = 0; i < cfg->n && rc == 0; i++) {
        const wg_gw_server *c = &cfg->servers[i];
        gw_server *s = &g->servers[g->n++];
        s->g = g;
        snprintf(s->name, sizeof s->name, "%s", c->name);
        s->http = c->url != NULL;
        wg_up_options uo = { .server = c, .resolve = resolve, .resolve_ud = g,
                             .changed = on_changed, .changed_ud = g, .note = on_note, .note_ud = g,
                             .backoff_min_ms = g->o.backoff_min_ms,
                             .backoff_max_ms = g->o.backoff_max_ms, .stderr_fd = g->o.stderr_fd };
        if ((rc = wg_mcp__up_start(&s->u, &uo)) < 0)
            break;
        wg_tool_provider p = WG_TOOL_PROVIDER_INIT;
        p.prefix = s->name;
        p.ctx = s;
        p.list = p_list;
        p.classify = p_classify;
        p.run = p_run;
        p.run_progress = p_run_progress;   /* upstream notifications/progress reach the client */
        rc = wg_engine_add_provider(e, &p);
    }
    if (rc < 0) {
        wg_mcp__gateway_free(g);
        return rc;
    }
    *out = g;
    return 0;
}

void wg_mcp__gateway_wait(wg_gateway *g, long ms)
{
    /* the children start in parallel: one deadline for all of them */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; g && i < g->n; i++) {
        if (!g->servers[i].u)
            continue;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (spent >= ms)
            break;
        wg_mcp__up_wait_healthy(g->servers[i].u, ms - spent);
    }
}

json_t *wg_mcp__gateway_status(wg_gateway *g)
{
    json_t *a = json_array();
    for (size_t i = 0; a && g && i < g->n; i++) {
        gw_server *s = &g->servers[i];
        wg_up_status st;
        wg_mcp__up_status(s->u, &st);
        json_t *o = json_pack("{s:s,s:s,s:s,s:b,s:I,s:I}", "name", s->name, "transport",
                              s->http ? "http" : "stdio", "state", wg_mcp__up_state_name(st.state),
                              "healthy", st.state == WG_UP_HEALTHY, "tools", (json_int_t)st.tools,
                              "restarts", (json_int_t)st.restarts);
        if (o && st.last_error[0])
            json_object_set_new(o, "lastError", json_string(st.last_error));
        if (!o || json_array_append_new(a, o) < 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* routes_capabilities.c - the capability dashboard (spec 11, reference 8.2)
 * and the engine's discovery routes (spec 2, 3, 5).
 *   GET  /api/capabilities/status                 {plugins, mcpServers, skills, tools,
 *                                                  commands, hooks, workflows}
 *   POST /api/capabilities/plugins/:name/enable   {ok:true, name, state:'active'}
 *   POST /api/capabilities/plugins/:name/disable  {ok:true, name, state:'disabled'}
 *        404 unknown plugin; the state persists in the store (setting
 *        "capabilities.disabledPlugins", a JSON array of names)
 *   POST /api/capabilities/resolve {query, deps?}  {query, routes:[CapabilityRoute]}
 *   POST /api/capabilities/acquire {need, deps?}   AcquisitionProposal
 *   POST /api/trust/assess {content, type?, source?, declaredPermissions?}
 *                                                  TrustAssessment + summary
 * Without deps, routing and acquisition see the local installation
 * (native tools, DATA_DIR/skills, DATA_DIR/plugins) plus the registry's
 * connectors. */
#include "mcp/gateway.h"
#include "server/respcache.h"
#include "server/route.h"
#include "server/tiering.h"
#include "waggle/acquire.h"
#include "waggle/audit.h"
#include "waggle/capdeps.h"
#include "waggle/connector.h"
#include "waggle/error.h"
#include "waggle/plugins.h"
#include "waggle/router.h"
#include "waggle/skills.h"
#include "waggle/store.h"
#include "waggle/trust.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Slash commands of the agent (reference 8.2: at least these 13). */
static const struct {
    const char *name, *description, *usage;
} commands[] = {
    { "catchup", "Summarise what happened since you were last here", "/catchup" },
    { "now", "Show what the agent is doing right now", "/now" },
    { "research", "Research a topic and cite sources", "/research <topic>" },
    { "draft", "Draft a document or message", "/draft <what>" },
    { "decide", "Weigh options and recommend a decision", "/decide <question>" },
    { "review", "Review a document, change or plan", "/review <target>" },
    { "spawn", "Start a sub-agent with a role", "/spawn <role> <task>" },
    { "skills", "List the active skills", "/skills" },
    { "status", "Show capabilities, connectors and plan", "/status" },
    { "memory", "Search or add to memory", "/memory <query>" },
    { "plan", "Make a step-by-step plan", "/plan <goal>" },
    { "focus", "Focus the session on one workspace or task", "/focus <target>" },
    { "help", "List the commands", "/help" },
};

/* Workflow templates (reference 8.2: these 5). */
static const struct {
    const char *name, *description;
    int steps;
} workflows[] = {
    { "research-team", "A researcher gathers sources, a writer summarises, a reviewer checks citations", 3 },
    { "review-pair", "One agent drafts, a second reviews and requests changes", 2 },
    { "plan-execute", "A planner breaks the goal down, an executor carries out each step", 2 },
    { "ticket-resolve", "Read the ticket, reproduce, fix, verify, and report back", 4 },
    { "content-pipeline", "Outline, draft, edit and publish a piece of content", 4 },
};

enum { HOOKS_REGISTERED = 10 };

#define DISABLED_KEY "capabilities.disabledPlugins"

typedef struct {
    wg_respcache *cache;      /* the status answer */
    atomic_uint generation;   /* bumped by every enable/disable in this process */
} caps_state;

/* The disabled plugin names from the store (a new array; [] when unset or
 * unreadable). */
static json_t *disabled_plugins(wg_store *st)
{
    char *text = NULL;
    json_t *list = NULL;
    if (wg_store_setting_get(&text, st, DISABLED_KEY) == 0)
        list = json_loads(text, 0, NULL);
    free(text);
    if (!json_is_array(list)) {
        json_decref(list);
        list = json_array();
    }
    return list;
}

static int in_list(const json_t *list, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
            return 1;
    return 0;
}

/* What the status answer depends on: the plugins and skills folders, the
 * settings file, and the current second (a file edited in place changes
 * no folder, so an answer is reused for at most one second). */
static uint64_t status_tag(const char *data_dir, unsigned generation)
{
    static const char *const parts[] = { "plugins", "skills", "config.json" };
    long long second = wg_tiering__now_ms() / 1000;
    uint64_t h = wg_respcache__hash(0, &second, sizeof second);
    h = wg_respcache__hash(h, &generation, sizeof generation);
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", data_dir, parts[i]);
        if (stat(path, &st) != 0)
            memset(&st, 0, sizeof st);
        long long f[4] = { (long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                           (long long)st.st_mtim.tv_nsec };
        h = wg_respcache__hash(h, f, sizeof f);
    }
    return h;
}


static int status_build(json_t **out, const wg_req *req);

static int status(wg_res *res, const wg_req *req)
{
    caps_state *cs = req->area_state;
    uint64_t tag = status_tag(req->ctx->data_dir, atomic_load(&cs->generation));
    size_t len = 0;
    char *hit = wg_respcache__get(cs->cache, "status", tag, &len);
    if (hit)
        return wg_res_text(res, 200, WG_CONTENT_JSON, hit, len);
    json_t *out = NULL;
    int rc = status_build(&out, req);
    if (rc < 0)
        return rc;
    char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
    json_decref(out);
    if (!text)
        return wg_error_set(WG_ENOMEM, "out of memory");
    wg_respcache__put(cs->cache, "status", tag, text, strlen(text));
    return wg_res_text(res, 200, WG_CONTENT_JSON, text, strlen(text));
}

/* hooks.recentActivity: the last 10 audit rows as {event, timestamp,
 * cancelled (the decision was a denial), reason (the deciding rule)}. */
static json_t *recent_activity(const wg_req *req)
{
    json_t *arr = json_array();
    wg_audit_event *ev = NULL;
    size_t n = 0;
    wg_audit_query q = { 10, NULL };
    if (wg_audit_list(&ev, &n, req->ctx->audit, &q) < 0)
        return arr;
    for (size_t i = 0; i < n; i++) {
        int cancelled = ev[i].decision && (strcmp(ev[i].decision, "denied") == 0 ||
                                           strcmp(ev[i].decision, "deny") == 0);
        json_array_append_new(arr, json_pack("{s:s?,s:s?,s:b,s:s?}", "event", ev[i].event,
                              "timestamp", ev[i].ts, "cancelled", cancelled, "reason", ev[i].rule));
    }
    wg_audit_events_free(ev, n);
    return arr;
}

static int status_build(json_t **out, const wg_req *req)
{
    wg_plugin_list pl;
    int rc = wg_plugins_load_in(&pl, req->ctx->store, req->ctx->data_dir);
    if (rc < 0) {
        wg_plugin_list_free(&pl);
        return rc;
    }
    wg_skillset *active = NULL;
    if ((rc = wg_skillset_load_active_in(&active, req->ctx->store, req->ctx->data_dir)) < 0) {
        wg_plugin_list_free(&pl);
        return rc;
    }
    json_t *off = disabled_plugins(req->ctx->store);
    json_t *plugins = json_array(), *mcp = json_array(), *skills = json_array();
    size_t plugin_tools = 0;
    for (size_t i = 0; i < pl.count; i++) {
        const wg_plugin *p = &pl.items[i];
        int on = !in_list(off, p->name);
        const char *state = on ? "active" : "disabled";
        if (on)
            plugin_tools += p->n_tools;
        json_array_append_new(plugins, json_pack("{s:s,s:s,s:I,s:I}", "name", p->name, "state",
                              state, "tools", (json_int_t)p->n_tools, "skills",
                              (json_int_t)p->n_skills));
        /* No MCP runtime runs inside this service: a declared server is
         * reported with its plugin's state and assumed healthy (spec 2.2). */
        for (size_t m = 0; m < p->n_mcp_servers; m++)
            json_array_append_new(mcp, json_pack("{s:s,s:s,s:b,s:i,s:s}", "name", p->mcp_servers[m],
                                  "state", state, "healthy", 1, "tools", 0, "source", "plugin"));
    }
    /* The gateway's servers (waggle serve --gateway) run here: their true
     * state and tool count (mcp/gateway.h). */
    size_t gw_tools = 0;
    json_t *gw = req->ctx->gateway ? wg_mcp__gateway_status(req->ctx->gateway) : NULL;
    size_t gi;
    json_t *g;
    json_array_foreach(gw, gi, g) {
        gw_tools += (size_t)json_integer_value(json_object_get(g, "tools"));
        json_object_set_new(g, "source", json_string("gateway"));
        json_array_append(mcp, g);
    }
    json_decref(gw);
    for (size_t i = 0; i < wg_skillset_count(active); i++) {
        const wg_skill *s = wg_skillset_get(active, i);
        json_array_append_new(skills, json_pack("{s:s,s:I}", "name", s->name, "length",
                                                (json_int_t)s->length));
    }
    size_t native = 0;
    wg_acquire_native_tools(&native);
    json_t *cmds = json_array(), *wfs = json_array();
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        json_array_append_new(cmds, json_pack("{s:s,s:s,s:s}", "name", commands[i].name,
                              "description", commands[i].description, "usage", commands[i].usage));
    for (size_t i = 0; i < sizeof workflows / sizeof *workflows; i++)
        json_array_append_new(wfs, json_pack("{s:s,s:s,s:i}", "name", workflows[i].name,
                              "description", workflows[i].description, "steps", workflows[i].steps));
    json_decref(off);
    wg_plugin_list_free(&pl);
    wg_skillset_free(active);
    *out = json_pack(
        "{s:o,s:o,s:o,s:{s:I,s:I,s:I,s:I},s:o,s:{s:i,s:o},s:o}",
        "plugins", plugins, "mcpServers", mcp, "skills", skills,
        "tools", "count", (json_int_t)(native + plugin_tools + gw_tools), "native", (json_int_t)native,
        "plugin", (json_int_t)plugin_tools, "mcp", (json_int_t)gw_tools,
        "commands", cmds,
        "hooks", "registered", HOOKS_REGISTERED, "recentActivity", recent_activity(req),
        "workflows", wfs);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* Read-modify-write of the setting in one write transaction, so two
 * processes (or replicas) changing plugins never lose each other's change. */
static int change_plugin(wg_store *st, const char *name, int disable)
{
    int rc = wg_store_begin(st, WG_STORE_TX_WRITE);
    if (rc < 0)
        return rc;
    json_t *list = disabled_plugins(st);
    for (size_t i = json_array_size(list); i-- > 0;)
        if (json_is_string(json_array_get(list, i)) &&
            strcmp(json_string_value(json_array_get(list, i)), name) == 0)
            json_array_remove(list, i);
    if (disable)
        json_array_append_new(list, json_string(name));
    char *text = json_dumps(list, JSON_COMPACT);
    json_decref(list);
    rc = text ? wg_store_setting_set(st, DISABLED_KEY, text) : wg_error_set(WG_ENOMEM, "out of memory");
    free(text);
    if (rc < 0) {
        wg_store_rollback(st);
        return rc;
    }
    return wg_store_commit(st);
}

static int set_plugin(wg_res *res, const wg_req *req, int disable)
{
    const char *name = wg_req_param(req, "name");
    wg_plugin_list pl;
    int rc = wg_plugins_load_in(&pl, req->ctx->store, req->ctx->data_dir);
    int found = 0;
    for (size_t i = 0; rc == 0 && i < pl.count && !found; i++)
        found = strcmp(pl.items[i].name, name) == 0;
    wg_plugin_list_free(&pl);
    if (rc < 0)
        return wg_res_error(res, 400, "PLUGIN_ERROR", "%s", wg_error_last());
    if (!found)
        return wg_res_error(res, 404, "NOT_FOUND", "no plugin by that name");
    if ((rc = change_plugin(req->ctx->store, name, disable)) < 0)
        return wg_res_error(res, 400, "PLUGIN_ERROR", "the plugin state could not be saved");
    atomic_fetch_add(&((caps_state *)req->area_state)->generation, 1);
    return wg_res_json(res, 200, json_pack("{s:b,s:s,s:s}", "ok", 1, "name", name, "state",
                                           disable ? "disabled" : "active"));
}

static int enable(wg_res *res, const wg_req *req)
{
    return set_plugin(res, req, 0);
}

static int disable(wg_res *res, const wg_req *req)
{
    return set_plugin(res, req, 1);
}

/* Loads the deps: the body's "deps" object (spec CapabilityRouterDeps
 * names) or the local installation. -1 after answering 400. */
static int load_deps(wg_capdeps **out, wg_res *res, const wg_req *req)
{
    json_t *deps = NULL;
    if (wg_body_object(res, req, "deps", 0, &deps) < 0)
        return -1;
    int rc = deps ? wg_capdeps_from_json(out, deps)
                  : wg_capdeps_load_local_in(out, req->ctx->store, req->ctx->data_dir);
    if (rc < 0) {
        if (rc == WG_EINVAL)
            wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                            "deps", "message", wg_error_last()));
        else
            wg_res_error(res, 500, "INTERNAL_ERROR", "cannot read the local installation");
        return -1;
    }
    return 0;
}

/* The registry's connectors as router input (spec 2.2 step 1.5). The
 * arrays point into specs that outlive the request. */
typedef struct {
    wg_router_connector *items;
    const char **names;
    size_t n;
} conn_view;

static int connectors_view(conn_view *v, const wg_registry *reg)
{
    memset(v, 0, sizeof *v);
    size_t n = wg_registry_count(reg), total_actions = 0;
    for (size_t i = 0; i < n; i++)
        total_actions += wg_registry_at(reg, i)->n_actions;
    v->items = calloc(n ? n : 1, sizeof *v->items);
    v->names = calloc(total_actions ? total_actions : 1, sizeof *v->names);
    if (!v->items || !v->names)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const wg_connector_spec *s = wg_registry_at(reg, i);
        wg_router_connector *c = &v->items[i];
        c->id = s->id;
        c->name = s->name;
        c->service = s->service;
        c->connected = wg_registry_is_connected(reg, s->id);
        c->actions = &v->names[k];
        c->n_actions = s->n_actions;
        for (size_t a = 0; a < s->n_actions; a++)
            v->names[k++] = s->actions[a].name;
    }
    v->n = n;
    return 0;
}

static int resolve(wg_res *res, const wg_req *req)
{
    const char *query = NULL;
    if (wg_body_string(res, req, "query", 1, &query) < 0)
        return 0;
    wg_capdeps *deps = NULL;
    if (load_deps(&deps, res, req) < 0)
        return 0;
    wg_router_deps rd = *wg_capdeps_router(deps);
    conn_view cv;
    int rc = 0;
    if (!json_object_get(req->body, "deps")) {
        if ((rc = connectors_view(&cv, req->ctx->registry)) == 0) {
            rd.connectors = cv.items;
            rd.n_connectors = cv.n;
        }
    } else {
        memset(&cv, 0, sizeof cv);
    }
    wg_route_list list = { 0 };
    if (rc == 0)
        rc = wg_router_resolve(&list, &rd, query);
    json_t *routes = rc == 0 ? wg_route_list_json(&list) : NULL;
    wg_route_list_free(&list);
    free(cv.items);
    free(cv.names);
    wg_capdeps_free(deps);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:s,s:o}", "query", query, "routes", routes));
}

static int acquire(wg_res *res, const wg_req *req)
{
    const char *need = NULL;
    if (wg_body_string(res, req, "need", 1, &need) < 0)
        return 0;
    wg_capdeps *deps = NULL;
    if (load_deps(&deps, res, req) < 0)
        return 0;
    wg_acquire_input in;
    memset(&in, 0, sizeof in);
    wg_capdeps_acquire_input(&in, deps);
    in.need = need;
    in.starter = req->ctx->starter;
    in.trust = req->ctx->trust;
    wg_proposal p;
    int rc = wg_acquire_search(&p, &in);
    json_t *out = rc == 0 ? wg_proposal_json(&p) : NULL;
    wg_proposal_free(&p);
    wg_capdeps_free(deps);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, out);
}

static int assess(wg_res *res, const wg_req *req)
{
    const char *content = NULL, *type = "skill", *source = "";
    json_t *declared = NULL;
    if (wg_body_string(res, req, "content", 1, &content) < 0 ||
        wg_body_string(res, req, "type", 0, &type) < 0 ||
        wg_body_string(res, req, "source", 0, &source) < 0 ||
        wg_body_object(res, req, "declaredPermissions", 0, &declared) < 0)
        return 0;
    wg_permission_set set;
    memset(&set, 0, sizeof set);
    if (declared) {
        set.present = 1;
        const char *key;
        json_t *v;
        json_object_foreach(declared, key, v) {
            wg_permission perm;
            if (wg_permission_parse(&perm, key) < 0 || !json_is_boolean(v))
                return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD",
                    "field", "declaredPermissions", "message",
                    "declaredPermissions maps fileSystem, network, codeExecution, "
                    "externalServices, secrets, browserAutomation to booleans"));
            set.perms[perm] = json_is_true(v);
        }
    }
    wg_trust_input in = { type, source, content, declared ? &set : NULL };
    wg_trust_assessment a;
    int rc = wg_trust_assess(&a, req->ctx->trust, &in);
    if (rc < 0)
        return rc;
    json_t *out = wg_trust_assessment_json(&a);
    char *summary = NULL;
    if (out && wg_trust_format_summary(&summary, &a) == 0)
        json_object_set_new(out, "summary", json_string(summary));
    free(summary);
    return wg_res_json(res, 200, out);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,  "/api/capabilities/status",                status,  WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/capabilities/plugins/:name/enable",  enable,  WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/capabilities/plugins/:name/disable", disable, WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/capabilities/resolve",               resolve, WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/capabilities/acquire",               acquire, WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/trust/assess",                       assess,  WG_ROUTE_FREE, 0 },
};

static int init(void **state, wg_server_ctx *ctx)
{
    (void)ctx;
    caps_state *cs = calloc(1, sizeof *cs);
    if (!cs)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = wg_respcache__new(&cs->cache, 1);
    if (rc < 0) {
        free(cs);
        return rc;
    }
    *state = cs;
    return 0;
}

static void fini(void *state)
{
    caps_state *cs = state;
    if (!cs)
        return;
    wg_respcache__free(cs->cache);
    free(cs);
}

const wg_route_area wg_routes_capabilities = {
    "capabilities", routes, sizeof routes / sizeof routes[0], init, fini,
};

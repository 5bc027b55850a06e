/* capdeps.c - building router and acquisition inputs from JSON or from the
 * local installation (waggle/capdeps.h). */
#include "waggle/capdeps.h"
#include "waggle/plugins.h"
#include "waggle/skills.h"
#include "waggle/error.h"
#include "core/skills_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const DEFAULT_ROLES[] = {
    "researcher", "writer", "coder", "analyst", "reviewer", "planner",
};

struct wg_capdeps {
    json_t *root;                 /* JSON mode: strings are borrowed from it */
    wg_skillset *skills;          /* active skills */
    wg_plugin_list plugins;       /* local mode */
    const char **tools;
    wg_router_skill *rskills;
    wg_router_plugin *rplugins;
    const char ***plugin_strv;    /* per plugin: skills then mcp arrays */
    const char **mcp;
    const char **unhealthy;
    size_t n_unhealthy;
    const char **roles;          /* JSON mode */
    wg_router_connector *conns;
    size_t n_conns;                /* entries of conns / conn_actions */
    const char ***conn_actions;
    wg_market_hit *market;
    size_t n_market;
    wg_router_deps deps;
};

void wg_capdeps_free(wg_capdeps *d)
{
    if (!d)
        return;
    for (size_t i = 0; d->plugin_strv && i < 2 * d->deps.n_plugins; i++)
        free(d->plugin_strv[i]);
    for (size_t i = 0; d->conn_actions && i < d->n_conns; i++)
        free(d->conn_actions[i]);
    free(d->plugin_strv);
    free(d->conn_actions);
    free(d->tools);
    free(d->rskills);
    free(d->rplugins);
    free(d->mcp);
    free(d->unhealthy);
    free(d->roles);
    free(d->conns);
    free(d->market);
    wg_skillset_free(d->skills);
    wg_plugin_list_free(&d->plugins);
    json_decref(d->root);
    free(d);
}

void wg_capdeps_set_connectors(wg_capdeps *d, const wg_router_connector *c, size_t n)
{
    d->deps.connectors = c;
    d->deps.n_connectors = n;
}

const wg_router_deps *wg_capdeps_router(const wg_capdeps *d)
{
    return &d->deps;
}

void wg_capdeps_acquire_input(wg_acquire_input *in, const wg_capdeps *d)
{
    in->native_tools = d->deps.tool_names;
    in->n_native_tools = d->deps.n_tool_names;
    in->active = d->skills;
    in->marketplace = d->market;
    in->n_marketplace = d->n_market;
}

static int healthy(void *ctx, const char *server)
{
    const wg_capdeps *d = ctx;
    for (size_t i = 0; i < d->n_unhealthy; i++)
        if (strcmp(d->unhealthy[i], server) == 0)
            return 0;
    return 1;
}

/* ---- JSON ---------------------------------------------------------------- */

static int type_error(const char *field)
{
    return wg_error_set(WG_EINVAL, "deps: \"%s\" has the wrong type (see waggle route --help)", field);
}

/* An optional array of strings; *out is a new array of borrowed pointers. */
static int str_array(const char ***out, size_t *n, json_t *obj, const char *key)
{
    json_t *a = json_object_get(obj, key);
    *out = NULL;
    *n = 0;
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return type_error(key);
    size_t len = json_array_size(a);
    const char **v = calloc(len + 1, sizeof *v);
    if (!v)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < len; i++) {
        json_t *s = json_array_get(a, i);
        if (!json_is_string(s)) {
            free(v);
            return type_error(key);
        }
        v[i] = json_string_value(s);
    }
    *out = v;
    *n = len;
    return 0;
}

static const char *opt_str(json_t *o, const char *key, int *bad)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        *bad = 1;
        return NULL;
    }
    return json_string_value(v);
}

static int objects(json_t *root, const char *key, size_t *n)
{
    json_t *a = json_object_get(root, key);
    *n = 0;
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return type_error(key);
    *n = json_array_size(a);
    for (size_t i = 0; i < *n; i++)
        if (!json_is_object(json_array_get(a, i)))
            return type_error(key);
    return 0;
}

static int json_skills(wg_capdeps *d)
{
    size_t n;
    int rc = objects(d->root, "skills", &n);
    if (rc < 0 || (rc = wg_skillset__new(&d->skills, NULL)) < 0)
        return rc;
    if (n && !(d->rskills = calloc(n, sizeof *d->rskills)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    json_t *a = json_object_get(d->root, "skills");
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(a, i);
        int bad = 0;
        const char *name = opt_str(s, "name", &bad), *content = opt_str(s, "content", &bad);
        if (bad || !name)
            return type_error("skills[].name/content");
        d->rskills[i] = (wg_router_skill){ name, content ? content : "" };
        if ((rc = wg_skillset__add(d->skills, name, content ? content : "",
                                   content ? strlen(content) : 0)) < 0)
            return rc;
    }
    d->deps.skills = d->rskills;
    d->deps.n_skills = n;
    return 0;
}

static int json_plugins(wg_capdeps *d)
{
    size_t n;
    int rc = objects(d->root, "plugins", &n);
    if (rc < 0 || n == 0)
        return rc;
    d->rplugins = calloc(n, sizeof *d->rplugins);
    d->plugin_strv = calloc(2 * n, sizeof *d->plugin_strv);
    if (!d->rplugins || !d->plugin_strv)
        return wg_error_set(WG_ENOMEM, "out of memory");
    d->deps.plugins = d->rplugins;
    json_t *a = json_object_get(d->root, "plugins");
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(a, i);
        int bad = 0;
        wg_router_plugin *rp = &d->rplugins[i];
        rp->name = opt_str(p, "name", &bad);
        rp->description = opt_str(p, "description", &bad);
        d->deps.n_plugins = i + 1;
        if (bad || !rp->name)
            return type_error("plugins[].name/description");
        if ((rc = str_array(&d->plugin_strv[2 * i], &rp->n_skills, p, "skills")) < 0 ||
            (rc = str_array(&d->plugin_strv[2 * i + 1], &rp->n_mcp_servers, p, "mcpServers")) < 0)
            return rc;
        rp->skills = d->plugin_strv[2 * i];
        rp->mcp_servers = d->plugin_strv[2 * i + 1];
    }
    return 0;
}

static int json_connectors(wg_capdeps *d)
{
    size_t n;
    int rc = objects(d->root, "connectors", &n);
    if (rc < 0 || n == 0)
        return rc;
    d->conns = calloc(n, sizeof *d->conns);
    d->conn_actions = calloc(n, sizeof *d->conn_actions);
    if (!d->conns || !d->conn_actions)
        return wg_error_set(WG_ENOMEM, "out of memory");
    d->deps.connectors = d->conns;
    json_t *a = json_object_get(d->root, "connectors");
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(a, i);
        int bad = 0;
        wg_router_connector *rc_ = &d->conns[i];
        rc_->id = opt_str(c, "id", &bad);
        rc_->name = opt_str(c, "name", &bad);
        rc_->service = opt_str(c, "service", &bad);
        json_t *conn = json_object_get(c, "connected");
        if (conn && !json_is_boolean(conn))
            bad = 1;
        rc_->connected = json_is_true(conn);
        d->deps.n_connectors = d->n_conns = i + 1;
        if (bad || !rc_->id)
            return type_error("connectors[]");
        if ((rc = str_array(&d->conn_actions[i], &rc_->n_actions, c, "actions")) < 0)
            return rc;
        rc_->actions = d->conn_actions[i];
    }
    return 0;
}

static int json_market(wg_capdeps *d)
{
    size_t n;
    int rc = objects(d->root, "marketplace", &n);
    if (rc < 0 || n == 0)
        return rc;
    if (!(d->market = calloc(n, sizeof *d->market)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    json_t *a = json_object_get(d->root, "marketplace");
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_array_get(a, i), *score = json_object_get(m, "score");
        int bad = 0;
        d->market[i].name = opt_str(m, "name", &bad);
        d->market[i].description = opt_str(m, "description", &bad);
        if (bad || !d->market[i].name || (score && !json_is_number(score) && !json_is_null(score)))
            return type_error("marketplace[]");
        d->market[i].score = json_is_number(score) ? json_number_value(score) : -1.0;
    }
    d->n_market = n;
    return 0;
}

int wg_capdeps_from_json(wg_capdeps **out, json_t *deps)
{
    if (!json_is_object(deps))
        return wg_error_set(WG_EINVAL, "deps must be a JSON object");
    wg_capdeps *d = calloc(1, sizeof *d);
    if (!d)
        return wg_error_set(WG_ENOMEM, "out of memory");
    d->root = json_incref(deps);
    int rc;
    if ((rc = str_array(&d->tools, &d->deps.n_tool_names, deps, "toolNames")) < 0 ||
        (rc = str_array(&d->mcp, &d->deps.n_mcp_servers, deps, "mcpServers")) < 0 ||
        (rc = str_array(&d->unhealthy, &d->n_unhealthy, deps, "unhealthyMcpServers")) < 0 ||
        (rc = json_skills(d)) < 0 || (rc = json_plugins(d)) < 0 ||
        (rc = json_connectors(d)) < 0 || (rc = json_market(d)) < 0) {
        wg_capdeps_free(d);
        return rc;
    }
    if ((rc = str_array(&d->roles, &d->deps.n_subagent_roles, deps, "subAgentRoles")) < 0) {
        wg_capdeps_free(d);
        return rc;
    }
    d->deps.tool_names = d->tools;
    d->deps.mcp_servers = d->mcp;
    d->deps.subagent_roles = d->roles;
    d->deps.mcp_healthy = healthy;
    d->deps.mcp_ctx = d;
    *out = d;
    return 0;
}

/* ---- local installation -------------------------------------------------- */

int wg_capdeps_load_local(wg_capdeps **out, const char *data_dir)
{
    return wg_capdeps_load_local_in(out, NULL, data_dir);
}

int wg_capdeps_load_local_in(wg_capdeps **out, wg_store *st, const char *data_dir)
{
    wg_capdeps *d = calloc(1, sizeof *d);
    if (!d)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t n_native;
    const wg_native_tool *native = wg_acquire_native_tools(&n_native);
    int rc = 0;
    if (!(d->tools = calloc(n_native, sizeof *d->tools)))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n_native; i++)
        d->tools[i] = native[i].name;
    if (rc == 0)
        rc = wg_skillset_load_active_in(&d->skills, st, data_dir);
    if (rc == 0)
        rc = wg_plugins_load_in(&d->plugins, st, data_dir);
    size_t ns = wg_skillset_count(d->skills), np = d->plugins.count, nm = 0;
    for (size_t i = 0; rc == 0 && i < np; i++)
        nm += d->plugins.items[i].n_mcp_servers;
    if (rc == 0 && ((ns && !(d->rskills = calloc(ns, sizeof *d->rskills))) ||
                    (np && !(d->rplugins = calloc(np, sizeof *d->rplugins))) ||
                    (nm && !(d->mcp = calloc(nm, sizeof *d->mcp)))))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc < 0) {
        wg_capdeps_free(d);
        return rc;
    }
    for (size_t i = 0; i < ns; i++) {
        const wg_skill *s = wg_skillset_get(d->skills, i);
        d->rskills[i] = (wg_router_skill){ s->name, s->content };
    }
    nm = 0;
    for (size_t i = 0; i < np; i++) {
        const wg_plugin *p = &d->plugins.items[i];
        d->rplugins[i] = (wg_router_plugin){ p->name, p->description,
            (const char *const *)p->skills, p->n_skills,
            (const char *const *)p->mcp_servers, p->n_mcp_servers };
        for (size_t k = 0; k < p->n_mcp_servers; k++)
            d->mcp[nm++] = p->mcp_servers[k];
    }
    d->deps = (wg_router_deps){
        .tool_names = d->tools, .n_tool_names = n_native,
        .skills = d->rskills, .n_skills = ns,
        .plugins = d->rplugins, .n_plugins = np,
        .mcp_servers = d->mcp, .n_mcp_servers = nm,
        .subagent_roles = DEFAULT_ROLES,
        .n_subagent_roles = sizeof DEFAULT_ROLES / sizeof DEFAULT_ROLES[0],
        .mcp_healthy = healthy, .mcp_ctx = d,
    };
    *out = d;
    return 0;
}

/* router.c - CapabilityRouter.resolve (spec 2; original-facts 3.1, 12.6,
 * 13 item 25).
 *
 * Same scan order, confidences, descriptions and suggestions as the
 * original. What changed is what "matches" means: both sides are folded
 * (waggle/text.h) and compared by word, and partial matches need at least
 * WG_ROUTE_MIN_PARTIAL letters, so "" or "a" no longer match everything.
 */
#include "waggle/router.h"
#include "waggle/text.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const SOURCE_NAMES[] = {
    "native", "skill", "plugin", "mcp", "subagent", "connector", "missing",
};

const char *wg_capability_source_name(wg_capability_source s)
{
    return (unsigned)s <= WG_CAPSRC_MISSING ? SOURCE_NAMES[s] : "missing";
}

typedef struct {
    const char *role;
    const char *keywords[6];
} role_row;

/* ROLE_KEYWORDS (original-facts 3.1), complete. */
static const role_row ROLE_KEYWORDS[] = {
    { "researcher", { "research", "investigate", "find", "lookup", "search", NULL } },
    { "writer",     { "write", "draft", "compose", "author", "document", NULL } },
    { "coder",      { "code", "implement", "program", "develop", "build", NULL } },
    { "analyst",    { "analyze", "data", "statistics", "metrics", "report", NULL } },
    { "reviewer",   { "review", "audit", "check", "inspect", "evaluate", NULL } },
    { "planner",    { "plan", "strategy", "roadmap", "schedule", "organize", NULL } },
};

const char *const *wg_router_role_keywords(const char *role)
{
    for (size_t i = 0; role && i < sizeof ROLE_KEYWORDS / sizeof ROLE_KEYWORDS[0]; i++)
        if (strcasecmp(ROLE_KEYWORDS[i].role, role) == 0)
            return ROLE_KEYWORDS[i].keywords;
    return NULL;
}

void wg_route_list_free(wg_route_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].name);
        free(list->items[i].description);
        free(list->items[i].suggestion);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

/* Matching context: the folded query. */
typedef struct {
    char *q;        /* folded query */
    size_t qlen;
    wg_route_list *out;
    int rc;
} ctx;

/* Folds s and matches it against the query by word, in one direction. */
static int fold_match(ctx *c, const char *s, int query_in_s, int s_in_query)
{
    char *f = NULL;
    if (wg_text_fold(&f, s) < 0) {
        c->rc = WG_ENOMEM;
        return 0;
    }
    size_t flen = strlen(f);
    int hit = 0;
    if (query_in_s && c->qlen >= WG_ROUTE_MIN_PARTIAL)
        hit = wg_text_word_match(f, c->q);
    if (!hit && s_in_query && flen >= WG_ROUTE_MIN_PARTIAL)
        hit = wg_text_word_match(c->q, f);
    free(f);
    return hit;
}

static int either(ctx *c, const char *s)
{
    return fold_match(c, s, 1, 1);
}

static void add(ctx *c, wg_capability_source src, const char *name, double conf,
                int available, char *description, char *suggestion)
{
    if (c->rc < 0 || !description) {
        free(description);
        free(suggestion);
        c->rc = WG_ENOMEM;
        return;
    }
    wg_route *grown = realloc(c->out->items, (c->out->count + 1) * sizeof *grown);
    char *nm = strdup(name ? name : "");
    if (!grown || !nm) {
        if (grown)
            c->out->items = grown;
        free(nm);
        free(description);
        free(suggestion);
        c->rc = WG_ENOMEM;
        return;
    }
    c->out->items = grown;
    c->out->items[c->out->count++] = (wg_route){ src, nm, conf, description, available, suggestion };
}

static char *fmt(const char *f, const char *a, const char *b)
{
    char *s = NULL;
    if (asprintf(&s, f, a, b ? b : "") < 0)
        return NULL;
    return s;
}

static void scan_native(ctx *c, const wg_router_deps *d, const char *raw)
{
    for (size_t i = 0; i < d->n_tool_names; i++) {
        const char *t = d->tool_names[i];
        if (!t)
            continue;
        if (strcasecmp(t, raw) == 0)
            add(c, WG_CAPSRC_NATIVE, t, WG_ROUTE_NATIVE_EXACT, 1,
                fmt("Native tool \"%s\" (exact match)%s", t, NULL), NULL);
        else if (either(c, t))
            add(c, WG_CAPSRC_NATIVE, t, WG_ROUTE_NATIVE_PARTIAL, 1,
                fmt("Native tool \"%s\" (partial match)%s", t, NULL), NULL);
    }
}

/* Query mentions the connector's id, service or name, or one of its actions
 * with underscores read as spaces. */
static void scan_connectors(ctx *c, const wg_router_deps *d)
{
    for (size_t i = 0; i < d->n_connectors; i++) {
        const wg_router_connector *k = &d->connectors[i];
        int hit = (k->id && fold_match(c, k->id, 0, 1)) ||
                  (k->service && fold_match(c, k->service, 0, 1)) ||
                  (k->name && fold_match(c, k->name, 0, 1));
        for (size_t a = 0; !hit && a < k->n_actions; a++)
            hit = k->actions[a] && fold_match(c, k->actions[a], 0, 1);
        if (!hit)
            continue;
        const char *name = k->name ? k->name : (k->id ? k->id : "");
        char *sugg = NULL;
        if (!k->connected) {
            sugg = fmt("%s connector is available but not connected. Add your credentials "
                       "in Cockpit > Connectors to enable it.%s", name, NULL);
            if (!sugg) {
                c->rc = WG_ENOMEM;
                return;
            }
        }
        add(c, WG_CAPSRC_CONNECTOR, k->id ? k->id : name, WG_ROUTE_CONNECTOR, !!k->connected,
            fmt("Connector \"%s\" (%s)", name, k->service ? k->service : ""), sugg);
    }
}

static void scan_skills(ctx *c, const wg_router_deps *d)
{
    for (size_t i = 0; i < d->n_skills; i++) {
        const wg_router_skill *s = &d->skills[i];
        if (!s->name)
            continue;
        if (either(c, s->name))
            add(c, WG_CAPSRC_SKILL, s->name, WG_ROUTE_SKILL_NAME, 1,
                fmt("Skill \"%s\" (name match)%s", s->name, NULL), NULL);
        else if (s->content && fold_match(c, s->content, 1, 0))
            add(c, WG_CAPSRC_SKILL, s->name, WG_ROUTE_SKILL_CONTENT, 1,
                fmt("Skill \"%s\" (content match)%s", s->name, NULL), NULL);
    }
}

static void scan_plugins(ctx *c, const wg_router_deps *d)
{
    for (size_t i = 0; i < d->n_plugins; i++) {
        const wg_router_plugin *p = &d->plugins[i];
        if (!p->name)
            continue;
        int hit = p->description && fold_match(c, p->description, 1, 0);
        for (size_t k = 0; !hit && k < p->n_skills; k++)
            hit = p->skills[k] && either(c, p->skills[k]);
        if (hit)
            add(c, WG_CAPSRC_PLUGIN, p->name, WG_ROUTE_PLUGIN, 1,
                fmt("Plugin \"%s\" — %s", p->name, p->description ? p->description : ""), NULL);
    }
}

static void scan_mcp(ctx *c, const wg_router_deps *d)
{
    for (size_t i = 0; i < d->n_mcp_servers; i++) {
        const char *m = d->mcp_servers[i];
        if (!m || !either(c, m))
            continue;
        int healthy = d->mcp_healthy ? !!d->mcp_healthy(d->mcp_ctx, m) : 1;
        add(c, WG_CAPSRC_MCP, m, WG_ROUTE_MCP, healthy,
            fmt(healthy ? "MCP server \"%s\" may provide this capability%s"
                        : "MCP server \"%s\" may provide this capability (not healthy)%s",
                m, NULL), NULL);
    }
}

static void scan_roles(ctx *c, const wg_router_deps *d)
{
    for (size_t i = 0; i < d->n_subagent_roles; i++) {
        const char *role = d->subagent_roles[i];
        if (!role)
            continue;
        const char *const *kw = wg_router_role_keywords(role);
        int hit = fold_match(c, role, 0, 1);
        for (size_t k = 0; !hit && kw && kw[k]; k++)
            hit = wg_text_word_match(c->q, kw[k]);
        if (hit)
            add(c, WG_CAPSRC_SUBAGENT, role, WG_ROUTE_SUBAGENT, 1,
                fmt("Sub-agent role \"%s\" can handle this type of task%s", role, NULL), NULL);
    }
}

/* Stable: insertion sort keeps scan order among equal confidences. */
static void sort_routes(wg_route_list *l)
{
    for (size_t i = 1; i < l->count; i++) {
        wg_route r = l->items[i];
        size_t j = i;
        while (j > 0 && l->items[j - 1].confidence < r.confidence) {
            l->items[j] = l->items[j - 1];
            j--;
        }
        l->items[j] = r;
    }
}

int wg_router_resolve(wg_route_list *out, const wg_router_deps *deps, const char *query)
{
    out->items = NULL;
    out->count = 0;
    if (!deps)
        return wg_error_set(WG_EINVAL, "wg_router_resolve: NULL deps");
    const char *raw = query ? query : "";
    ctx c = { NULL, 0, out, 0 };
    if (wg_text_fold(&c.q, raw) < 0)
        return WG_ENOMEM;
    c.qlen = strlen(c.q);
    if (c.qlen > 0) {
        scan_native(&c, deps, raw);
        scan_connectors(&c, deps);
        scan_skills(&c, deps);
        scan_plugins(&c, deps);
        scan_mcp(&c, deps);
        scan_roles(&c, deps);
    }
    free(c.q);
    if (c.rc == 0 && out->count == 0) {
        char *sugg = fmt("Consider creating a skill for \"%s\", connecting a service in Cockpit "
                         "> Connectors, or searching the marketplace for a plugin.%s", raw, NULL);
        add(&c, WG_CAPSRC_MISSING, raw, WG_ROUTE_MISSING, 0,
            fmt("No capability found for \"%s\"%s", raw, NULL), sugg);
        if (!sugg)
            c.rc = WG_ENOMEM;
    }
    if (c.rc < 0) {
        wg_route_list_free(out);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    sort_routes(out);
    return 0;
}

json_t *wg_route_json(const wg_route *r)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "source", json_string(wg_capability_source_name(r->source)));
    json_object_set_new(o, "name", wg_text_json_string(r->name));
    json_object_set_new(o, "confidence", json_real(r->confidence));
    json_object_set_new(o, "description", wg_text_json_string(r->description));
    json_object_set_new(o, "available", json_boolean(r->available));
    if (r->suggestion)
        json_object_set_new(o, "suggestion", wg_text_json_string(r->suggestion));
    return o;
}

json_t *wg_route_list_json(const wg_route_list *list)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < list->count; i++)
        if (json_array_append_new(a, wg_route_json(&list->items[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

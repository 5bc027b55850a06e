/* providers.c - tool providers (waggle/engine.h "tool providers"): the
 * registration, the lookup of <prefix>__<tool>, the gate's decision for a
 * provider's tool, and the provider tools of wg_engine_tools. Running them
 * is execute.c's (the one executor): nothing here runs a tool.
 *
 * Thread-safety: providers are added before the engine is shared and only
 * read afterwards; the callbacks are the provider's to make thread-safe. */
#include "engine/engine_int.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stddef.h>
#include <string.h>

static int prefix_ok(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_';
        if (!ok || n >= WG_TOOL_PREFIX_MAX)
            return 0;
    }
    /* "a__b" as a prefix would make "a__b__t" ambiguous with provider "a" */
    return n > 0 && !strstr(s, "__") && s[n - 1] != '_';
}

int wg_engine_add_provider(wg_engine *e, const wg_tool_provider *p)
{
    if (!e || !p || (p->version != 1 && p->version != WG_TOOL_PROVIDER_VERSION))
        return wg_error_set(WG_EINVAL, "wg_engine_add_provider: a provider "
                            "(WG_TOOL_PROVIDER_INIT) is required");
    if (!p->list || !p->classify || !p->run)
        return wg_error_set(WG_EINVAL, "a tool provider needs list, classify and run");
    if (!p->prefix || !prefix_ok(p->prefix))
        return wg_error_set(WG_EINVAL, "a provider prefix is 1-%d of [A-Za-z0-9_-], without "
                            "\"__\" and not ending in '_'", WG_TOOL_PREFIX_MAX);
    for (size_t i = 0; i < e->n_providers; i++)
        if (strcmp(e->providers[i].prefix, p->prefix) == 0)
            return wg_error_set(WG_EEXISTS, "a provider with prefix '%s' is already added", p->prefix);
    if (e->n_providers >= WG_ENGINE_PROVIDERS_MAX)
        return wg_error_set(WG_EBUSY, "at most %d tool providers", WG_ENGINE_PROVIDERS_MAX);
    engine_provider *ep = &e->providers[e->n_providers];
    snprintf(ep->prefix, sizeof ep->prefix, "%s", p->prefix);
    memset(&ep->p, 0, sizeof ep->p);
    memcpy(&ep->p, p, p->version == 1 ? offsetof(wg_tool_provider, run_progress) : sizeof *p);
    ep->p.prefix = ep->prefix;
    e->n_providers++;
    return 0;
}

const engine_provider *wg_engine__provider_of(const wg_engine *e, const char *tool,
                                              const char **rest)
{
    const char *sep = strstr(tool, "__");
    if (!sep || sep == tool || !sep[2])
        return NULL;
    size_t n = (size_t)(sep - tool);
    for (size_t i = 0; i < e->n_providers; i++) {
        const engine_provider *p = &e->providers[i];
        if (strlen(p->prefix) == n && memcmp(p->prefix, tool, n) == 0) {
            *rest = sep + 2;
            return p;
        }
    }
    return NULL;
}

int wg_engine_is_provider_tool(const wg_engine *e, const char *tool)
{
    const char *rest = NULL;
    return e && tool && wg_engine__provider_of(e, tool, &rest) != NULL;
}

static void copy_reason(wg_gate_decision *d, const char *a, const char *b)
{
    size_t k = 0;
    for (const char *s = a; *s && k + 1 < sizeof d->reason; s++)
        d->reason[k++] = *s;
    for (const char *s = b ? b : ""; *s && k + 1 < sizeof d->reason; s++)
        d->reason[k++] = *s;
    d->reason[k] = '\0';
}

/* The full length of the command (a JSON string may hold NUL: the shell
 * model must see all of what the upstream would get). */
static size_t shell_len(const wg_tool_verdict *v, const json_t *args)
{
    const json_t *s = v->shell_key ? json_object_get(args, v->shell_key) : NULL;
    if (json_is_string(s) && json_string_value(s) == v->shell)
        return json_string_length(s);
    return strlen(v->shell);
}

int wg_engine__provider_decide(wg_gate_decision *d, wg_engine *e, const engine_provider *p,
                               const char *rest, const json_t *args, wg_autonomy level)
{
    if (level != WG_AUTONOMY_NORMAL && level != WG_AUTONOMY_TRUSTED && level != WG_AUTONOMY_YOLO)
        return wg_error_set(WG_EINVAL, "unknown autonomy level %d", (int)level);
    wg_tool_verdict v;
    memset(&v, 0, sizeof v);
    v.risk = WG_RISK_UNKNOWN;
    int rc = p->p.classify(p->p.ctx, rest, args, &v);
    if (rc < 0)
        return rc;
    v.reason[sizeof v.reason - 1] = '\0';
    memset(d, 0, sizeof *d);
    d->level = level;
    int base = v.risk != WG_RISK_LOW;
    d->approval_class = !base ? WG_APPROVAL_STANDARD
                      : v.risk == WG_RISK_HIGH ? WG_APPROVAL_CRITICAL : WG_APPROVAL_ELEVATED;
    d->rule = v.rule ? v.rule : base ? "provider.unclassified" : "provider.read";
    if (v.reason[0])
        copy_reason(d, v.reason, NULL);
    else
        copy_reason(d, base ? "the provider could not say this tool only reads: it asks"
                            : "the provider classifies this tool as read-only", NULL);
    if (v.critical) {
        base = 1;
        d->critical = 1;
        d->approval_class = WG_APPROVAL_CRITICAL;
    }
    if (v.shell && !v.critical) {
        /* what the upstream would run: the bash gate's model decides too */
        const wg_gate *gate = NULL;
        wg_gate_decision b;
        if ((rc = wg_engine_gate(&gate, e)) < 0 ||
            (rc = wg_gate_check_bash(&b, gate, v.shell, shell_len(&v, args), level)) < 0)
            return rc;
        if (b.needs_confirmation_base) {
            if (b.approval_class > d->approval_class)
                d->approval_class = b.approval_class;
            d->critical = b.critical;
            if (b.critical)
                d->approval_class = WG_APPROVAL_CRITICAL;
            if (b.critical || !base) {
                d->rule = b.rule;
                char lead[96];
                snprintf(lead, sizeof lead, "its argument \"%.40s\" is a shell command: ",
                         v.shell_key ? v.shell_key : "command");
                copy_reason(d, lead, b.reason);
            }
            base = 1;
        }
    }
    d->needs_confirmation_base = base;
    d->needs_confirmation = base && (level != WG_AUTONOMY_YOLO || d->critical);
    d->auto_approved = base && !d->needs_confirmation;
    return 0;
}

static int add_tools(json_t *tools, const engine_provider *p, const json_t *list)
{
    size_t i, plen = strlen(p->prefix);
    json_t *t;
    json_array_foreach(list, i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        if (!name || !*name || plen + 2 + strlen(name) >= WG_ENGINE_TOOL_MAX)
            continue;
        char full[WG_ENGINE_TOOL_MAX];
        snprintf(full, sizeof full, "%s__%s", p->prefix, name);
        const char *desc = json_string_value(json_object_get(t, "description"));
        json_t *schema = json_object_get(t, "inputSchema");
        json_t *d = json_pack("{s:s,s:s,s:o}", "name", full, "description", desc ? desc : "",
                              "parameters", json_is_object(schema) ? json_deep_copy(schema)
                                                                   : json_object());
        json_t *ann = json_object_get(t, "annotations");
        if (d && json_is_object(ann))
            json_object_set(d, "annotations", ann);
        if (!d || json_array_append_new(tools, d) < 0)
            return wg_error_set(WG_ENOMEM, "out of memory");
    }
    return 0;
}

int wg_engine__provider_tools(json_t *tools, wg_engine *e)
{
    for (size_t i = 0; i < e->n_providers; i++) {
        const engine_provider *p = &e->providers[i];
        json_t *list = NULL;
        if (p->p.list(p->p.ctx, &list) < 0 || !json_is_array(list)) {
            wg_engine__logf(e, "provider %s: its tools could not be listed (%s)", p->prefix,
                            wg_error_last());
            json_decref(list);
            continue;
        }
        int rc = add_tools(tools, p, list);
        json_decref(list);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* capability_tools.c - the acquire_capability and install_capability agent
 * tools (spec 4; original-facts 3.3). Thin: arguments are checked here and
 * the decisions come from acquire.c, skills.c and trust.c. */
#include "waggle/capability_tools.h"
#include "waggle/acquire.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const wg_captool_def DEFS[] = {
    { "acquire_capability",
      "Search for a capability you are missing: checks your built-in tools, active "
      "skills, the starter pack and the marketplace, scores each match, attaches a "
      "trust assessment and recommends one. Use it when no tool fits the task. "
      "Installing is a separate, user-approved step.",
      "{\"type\":\"object\",\"properties\":{\"need\":{\"type\":\"string\",\"minLength\":1,"
      "\"maxLength\":2000,\"description\":\"What you need to be able to do, in plain words, "
      "e.g. 'assess the risks of a project'\"}},\"required\":[\"need\"],"
      "\"additionalProperties\":false}" },
    { "install_capability",
      "Install a starter-pack skill into the active skill set and return its content. "
      "Always asks the user for approval first. Only source \"starter-pack\" can be "
      "installed this way; for marketplace, MCP or connector capabilities write the "
      "capability-request marker instead.",
      "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"pattern\":"
      "\"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$\",\"description\":\"Skill name from "
      "acquire_capability, e.g. risk-assessment\"},\"source\":{\"type\":\"string\",\"enum\":"
      "[\"starter-pack\"],\"description\":\"Where the skill comes from\"}},"
      "\"required\":[\"name\",\"source\"],\"additionalProperties\":false}" },
};

const wg_captool_def *wg_captool_defs(size_t *count)
{
    if (count)
        *count = sizeof DEFS / sizeof DEFS[0];
    return DEFS;
}

static void audit(const wg_captool_env *env, const char *action, const char *name,
                  const char *source, const wg_trust_assessment *t)
{
    if (env->audit)
        env->audit(env->audit_ctx, action, name ? name : "", source ? source : "", t);
}

static const char *arg_str(const json_t *args, const char *key)
{
    json_t *v = json_object_get(args, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int answer(char **out, const char *fmt, const char *a, const char *b)
{
    if (asprintf(out, fmt, a ? a : "", b ? b : "") < 0)
        return wg_error_set(WG_ENOMEM, "out of memory");
    return 0;
}

static int run_acquire(char **out, const wg_captool_env *env, const json_t *args)
{
    const char *need = arg_str(args, "need");
    if (!need || !need[strspn(need, " \t\r\n")])
        return answer(out, "Error: \"need\" is required — describe what capability you are "
                      "looking for.%s%s", NULL, NULL);
    size_t n_native = env->n_native_tools;
    const char **names = NULL;
    if (!env->native_tools) {
        const wg_native_tool *t = wg_acquire_native_tools(&n_native);
        if (!(names = calloc(n_native, sizeof *names)))
            return wg_error_set(WG_ENOMEM, "out of memory");
        for (size_t i = 0; i < n_native; i++)
            names[i] = t[i].name;
    }
    wg_skillset *active = NULL;
    int rc = wg_skillset_load_active_in(&active, env->store, env->data_dir);
    wg_proposal p = { 0 };
    if (rc == 0) {
        wg_acquire_input in = {
            .need = need,
            .native_tools = env->native_tools ? env->native_tools : names,
            .n_native_tools = n_native,
            .active = active, .starter = env->starter, .trust = env->trust,
        };
        rc = wg_acquire_search(&p, &in);
    }
    if (rc == 0) {
        if (p.gap_detected && p.recommendation)
            audit(env, "proposed", p.recommendation->name, p.recommendation->source,
                  &p.recommendation->trust);
        if (!(*out = strdup(p.summary)))
            rc = wg_error_set(WG_ENOMEM, "out of memory");
    }
    wg_proposal_free(&p);
    wg_skillset_free(active);
    free(names);
    return rc;
}

static int run_install(char **out, const wg_captool_env *env, const json_t *args)
{
    const char *name = arg_str(args, "name"), *source = arg_str(args, "source");
    if (!name || wg_skill_name_check(name) < 0) {
        audit(env, "rejected", name, source, NULL);
        wg_error_clear();
        return answer(out, "Error: Invalid capability name.%s%s", NULL, NULL);
    }
    char *path = NULL;
    int rc = wg_skills_install_in(&path, env->store, env->data_dir, env->starter, name, source);
    if (rc == WG_ENOMEM)
        return rc;
    if (rc < 0) {
        audit(env, rc == WG_EIO ? "failed" : "rejected", name, source, NULL);
        int arc = answer(out, "Error: %s%s", wg_error_last(), NULL);
        return arc < 0 ? arc : (rc == WG_EIO ? rc : 0);
    }
    free(path);
    const wg_skill *sk = wg_skillset_find(env->starter, name);
    wg_trust_input ti = { "skill", source, sk->content, &sk->declared };
    wg_trust_assessment a;
    char *summary = NULL;
    if ((rc = wg_trust_assess(&a, env->trust, &ti)) < 0 ||
        (rc = wg_trust_format_summary(&summary, &a)) < 0)
        return rc;
    audit(env, "installed", name, source, &a);
    rc = asprintf(out, "## Skill Installed Successfully\n\n**%s** is now an active skill. "
                  "Follow it for this task.\n\n%s\n\n---\n\n%.*s", name, summary,
                  (int)sk->length, sk->content) < 0
        ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
    free(summary);
    return rc;
}

int wg_captool_execute(char **out, const wg_captool_env *env, const char *name,
                       const json_t *args)
{
    if (!out || !env || !env->trust || !env->starter || !env->data_dir || !name)
        return wg_error_set(WG_EINVAL, "wg_captool_execute: NULL argument");
    if (!json_is_object(args))
        return answer(out, "Error: arguments must be a JSON object.%s%s", NULL, NULL);
    if (strcmp(name, "acquire_capability") == 0)
        return run_acquire(out, env, args);
    if (strcmp(name, "install_capability") == 0)
        return run_install(out, env, args);
    return wg_error_set(WG_ENOTFOUND, "no capability tool named \"%s\"", name);
}

wg_risk_level wg_captool_install_risk(const wg_captool_env *env, const json_t *args)
{
    if (!env || !json_is_object(args))
        return WG_RISK_HIGH;
    return wg_acquire_install_risk(env->trust, env->starter, arg_str(args, "name"),
                                   arg_str(args, "source"));
}

wg_risk_level wg_captool_install_risk_hook(void *ctx, const char *name, const char *source)
{
    const wg_captool_env *env = ctx;
    if (!env)
        return WG_RISK_HIGH;
    return wg_acquire_install_risk(env->trust, env->starter, name, source);
}

wg_approval_class wg_captool_install_approval(const wg_captool_env *env, const json_t *args)
{
    wg_approval_class claimed = WG_APPROVAL_STANDARD;
    wg_risk_level r;
    const char *raw = json_is_object(args) ? arg_str(args, "_riskLevel") : NULL;
    /* _riskLevel is LLM-controlled (original-facts 13 item 6): it can only
     * raise the class, never lower what the server computes. */
    if (raw && wg_risk_parse(&r, raw) == 0 && r != WG_RISK_LOW)
        claimed = wg_approval_for_risk(r);
    wg_error_clear();
    wg_approval_class computed = wg_approval_for_risk(wg_captool_install_risk(env, args));
    return claimed > computed ? claimed : computed;
}

/* ---- connectors for the router ------------------------------------------ */

void wg_captool_connectors_free(wg_router_connector *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        free((void *)c[i].actions);
    free(c);
}

int wg_captool_connectors(wg_router_connector **out, size_t *n, const wg_registry *reg)
{
    size_t count = wg_registry_count(reg);
    *out = NULL;
    *n = 0;
    if (count == 0)
        return 0;
    wg_router_connector *c = calloc(count, sizeof *c);
    if (!c)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const wg_connector_spec *sp = wg_registry_at(reg, i);
        const char **names = calloc(sp->n_actions + 1, sizeof *names);
        if (!names) {
            wg_captool_connectors_free(c, i);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
        for (size_t a = 0; a < sp->n_actions; a++)
            names[a] = sp->actions[a].name;
        c[i] = (wg_router_connector){ sp->id, sp->name, sp->service,
                                      wg_registry_is_connected(reg, sp->id), names, sp->n_actions };
    }
    *out = c;
    *n = count;
    return 0;
}

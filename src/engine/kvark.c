/* kvark.c - the engine's side of KVARK (spec 9; waggle/kvark.h): whether
 * the four tools are registered, the one client (and so the one token
 * cache) an engine keeps, and running a tool after the gate.
 *
 * The decision is made on every listing and every call, from the vault and
 * config.json as they are then: a configuration removed or made invalid, or
 * a tier that lapsed (a TRIAL past its 15 days), takes the tools away at
 * once - also from an approval granted earlier, which is checked again when
 * it runs (execute.c finds the tool anew). */
#include "engine/engine_int.h"
#include "waggle/error.h"

#include <stdio.h>
#include <string.h>

/* The configuration in the vault: 0 with *cfg, WG_ENOTFOUND when absent,
 * WG_EINVAL when present but invalid (message says why), WG_E*. */
static int load_config(wg_kvark_config *cfg, wg_engine *e)
{
    memset(cfg, 0, sizeof *cfg);
    wg_vault *v = NULL;
    int rc = wg_engine_vault(&v, e);
    if (rc < 0)
        return rc;
    wg_vault_entry *kv = NULL;
    if ((rc = wg_vault_get(&kv, v, "kvark:connection")) < 0)
        return rc == WG_ENOTFOUND ? wg_error_set(rc, "kvark:connection is not in the vault") : rc;
    rc = wg_kvark_config_parse(cfg, kv->value, kv->value_len);
    wg_vault_entry_free(kv);
    return rc;
}

static int tier_allows(wg_tier effective)
{
    wg_tier min = WG_TIER_TEAMS;
    (void)wg_tier_feature_min(&min, "kvark");
    return wg_tier_satisfies(effective, min);
}

static void decide(wg_engine_kvark_state *out, wg_engine *e, int rc)
{
    char why[sizeof out->reason];
    snprintf(why, sizeof why, "%s", wg_error_last());   /* before the tier read */
    wg_tier_status ts;
    wg_engine_tier(&ts, e);
    out->configured = rc == 0 || rc == WG_EINVAL;
    out->valid = rc == 0;
    out->effective = ts.effective;
    out->tier_allows = tier_allows(ts.effective);
    out->active = out->valid && out->tier_allows;
    if (!out->valid)
        snprintf(out->reason, sizeof out->reason, "%s", why);
    else if (!out->tier_allows)
        snprintf(out->reason, sizeof out->reason, "the KVARK tools need the TEAMS or ENTERPRISE "
                 "tier (or an active TRIAL); the effective tier is %s",
                 wg_tier_name(ts.effective));
    else
        out->reason[0] = 0;
}

int wg_engine_kvark_status(wg_engine_kvark_state *out, wg_engine *e)
{
    if (!out || !e)
        return wg_error_set(WG_EINVAL, "wg_engine_kvark_status: NULL argument");
    memset(out, 0, sizeof *out);
    wg_kvark_config cfg;
    int rc = load_config(&cfg, e);
    wg_kvark_config_clear(&cfg);
    if (rc < 0 && rc != WG_ENOTFOUND && rc != WG_EINVAL) {
        snprintf(out->reason, sizeof out->reason, "%s", wg_error_last());
        return rc;
    }
    decide(out, e, rc);
    wg_error_clear();
    return 0;
}

int wg_engine__kvark_config(wg_kvark_config *cfg, wg_engine *e)
{
    wg_engine_kvark_state st = { 0 };
    int rc = load_config(cfg, e);
    if (rc < 0 && rc != WG_ENOTFOUND && rc != WG_EINVAL)
        return rc;
    decide(&st, e, rc);
    if (st.active)
        return 0;
    wg_kvark_config_clear(cfg);
    return wg_error_set(WG_ENOTFOUND, "the KVARK tools are not registered: %s", st.reason);
}

static int client(wg_kvark **out, wg_engine *e)
{
    int rc = 0;
    pthread_mutex_lock(&e->mu);
    if (!e->kvark) {
        wg_kvark_options o = WG_KVARK_OPTIONS_INIT;
        o.upstream.allow_private = e->allow_private_upstreams;
        o.upstream.allow_http = e->allow_http_upstreams;
        o.upstream.resolver = e->resolver;
        rc = wg_kvark_new(&e->kvark, &o);
    }
    *out = e->kvark;
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int wg_engine__kvark_run(json_t **result, wg_engine *e, const char *tool, const json_t *args,
                         const char *workspace_id, const char *approval_id)
{
    wg_kvark_config cfg;
    wg_kvark *k = NULL;
    int rc = wg_engine__kvark_config(&cfg, e);
    if (rc < 0)
        return rc;
    if ((rc = client(&k, e)) == 0) {
        wg_kvark_tool_env env = { k, &cfg, workspace_id, approval_id };
        rc = wg_kvark_tool_execute(result, &env, tool, args);
    }
    wg_kvark_config_clear(&cfg);
    return rc;
}

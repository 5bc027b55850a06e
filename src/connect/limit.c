/* limit.c - the tier's connectorLimit at connect time (spec 10 capability
 * table, reference 8.3; reference 13 item 19: the original never enforced
 * it). A decision with a rule id and a reason, like the gate's; the HTTP
 * route answers the refusal with requireTier's exact 403 body and the CLI
 * prints it and exits 1. */
#include "waggle/connector.h"
#include "waggle/error.h"

#include <stdio.h>
#include <string.h>

/* Tiers a person can buy, in rank order: the "required" tier of a refusal
 * is the first of these whose limit admits one more connector. TRIAL is
 * not offered (it is a phase, not a plan). */
static const wg_tier upgrade_path[] = { WG_TIER_FREE, WG_TIER_PRO, WG_TIER_TEAMS,
                                        WG_TIER_ENTERPRISE };

static int admits(int limit, int wanted)
{
    return limit < 0 || wanted <= limit;
}

/* A non-demo connector with a stored credential (connected or expired). */
static int holds_slot(const wg_registry *reg, const wg_connector_spec *spec)
{
    char buf[80];
    return wg_registry_credential_id(reg, spec->id, buf, sizeof buf) != NULL;
}

/* Slots in use: distinct stored credentials, so one shared connection
 * (connector:google behind five Google connectors) is one slot. Linear in
 * the registered connectors times the distinct credentials seen (both
 * bounded by the registry's size). */
static int slots_used(const wg_registry *reg)
{
    enum { SEEN_MAX = 128 };
    char seen[SEEN_MAX][80];
    int n = 0, extra = 0;
    for (size_t i = 0; i < wg_registry_count(reg); i++) {
        char buf[80];
        const char *c = wg_registry_credential_id(reg, wg_registry_at(reg, i)->id, buf, sizeof buf);
        if (!c)
            continue;
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = strcmp(seen[k], c) == 0;
        if (dup)
            continue;
        if (n < SEEN_MAX)
            snprintf(seen[n++], sizeof seen[0], "%s", c);
        else
            extra++;          /* past the table: count, never under-count */
    }
    return n + extra;
}

int wg_registry_check_limit(wg_connector_limit_decision *out, const wg_registry *reg,
                            const char *id, wg_tier effective)
{
    const wg_connector_spec *spec = wg_registry_get(reg, id);
    if (!spec)
        return wg_error_set(WG_ENOTFOUND, "no connector %s", id ? id : "(null)");
    wg_connector_limit_decide(out, spec, holds_slot(reg, spec), slots_used(reg), effective);
    return 0;
}

void wg_connector_limit_decide(wg_connector_limit_decision *out, const wg_connector_spec *spec,
                               int holds, int used, wg_tier effective)
{
    const char *id = spec->id;
    memset(out, 0, sizeof *out);
    out->used = used;
    out->limit = wg_tier_capabilities_of(effective)->connector_limit;
    const char *tier = wg_tier_name(effective);

    int wanted = out->used + 1;
    char *r = out->reason;
    size_t n = sizeof out->reason;
    out->allowed = 1;
    if (spec->always_connected) {
        out->rule = "connector.limit.demo";
        snprintf(r, n, "%s is a demo connector; demo connectors do not count", id);
    } else if (holds) {
        out->rule = "connector.limit.reconnect";
        snprintf(r, n, "%s is already connected; reconnecting replaces its credential and takes "
                 "no new slot", id);
    } else if (out->limit < 0) {
        out->rule = "connector.limit.unlimited";
        snprintf(r, n, "%s would be connector %d; the %s tier has no connector limit", id, wanted,
                 tier);
    } else if (admits(out->limit, wanted)) {
        out->rule = "connector.limit.within";
        snprintf(r, n, "%s would be connector %d; the %s tier allows %d", id, wanted, tier,
                 out->limit);
    } else {
        out->allowed = 0;
        out->rule = "connector.limit.exceeded";
        snprintf(r, n, "%s would be connector %d; the %s tier allows %d (disconnect one or "
                 "upgrade)", id, wanted, tier, out->limit);
        wg_tier required = WG_TIER_ENTERPRISE;
        for (size_t i = 0; i < sizeof upgrade_path / sizeof *upgrade_path; i++)
            if (admits(wg_tier_capabilities_of(upgrade_path[i])->connector_limit, wanted)) {
                required = upgrade_path[i];
                break;
            }
        wg_tier_require(&out->denial, effective, required);
        wg_error_set(WG_ETIER, "%s", out->reason);
    }
}

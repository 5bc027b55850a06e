/* ops.c - the engine's audited operations besides tool calls: connecting
 * and disconnecting connectors (the tier's limit taken atomically in the
 * store), vault reads and changes, revealing a pooled key, tier changes
 * and audit exports. Each writes its own audit row, so no face writes one;
 * where the row guards a secret (vault_read, pool_key_revealed) it is
 * written before the secret is handed out, and its failure refuses. */
#include "engine/engine_int.h"
#include "store/config.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A slot reservation lives this long: it covers the credential write that
 * follows the limit decision (outside the transaction, which must not wait
 * on a connector's network check). */
static const int64_t RESERVE_MS = 60000;
#define RESERVE_PREFIX "connector.reserve."

/* ---- the connector limit ----------------------------------------------------- */

/* The ids with a live reservation: connects in flight in any process,
 * other than id itself. New array of new strings (free_ids). */
static int reserved_ids(char ***ids, size_t *n, wg_engine *e, wg_store *st, const char *id)
{
    wg_store_rows *res = NULL;
    int rc = wg_store_exec(st, "SELECT key, value FROM settings WHERE key LIKE '"
                           RESERVE_PREFIX "%'", NULL, 0, &res, NULL);
    if (rc < 0)
        return rc;
    size_t rows = wg_store_rows_count(res);
    *ids = calloc(rows ? rows : 1, sizeof **ids);
    *n = 0;
    if (!*ids) {
        wg_store_rows_free(res);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    int64_t now = wg_engine_now(e);
    for (size_t r = 0; r < rows; r++) {
        const char *k = wg_store_rows_text(res, r, 0);
        const char *rid = k ? k + strlen(RESERVE_PREFIX) : NULL;
        if (!rid || strcmp(rid, id) == 0 || wg_store_rows_int(res, r, 1) <= now)
            continue;
        if (((*ids)[*n] = strdup(rid)))
            (*n)++;
    }
    wg_store_rows_free(res);
    return 0;
}

static void free_ids(char **ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}

static int is_reserved(char **ids, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ids[i], id))
            return 1;
    return 0;
}

/* Slots in use, in ONE pass that reads each connector's credential once:
 * distinct stored credentials (a shared connection such as connector:google
 * is one slot), plus every reserved id whose credential that pass did not
 * see. The reservations were read BEFORE the pass, and a connect writes its
 * credential before it drops its reservation (both outside the lock this
 * decision holds), so each connect in flight is counted exactly once: its
 * credential was either seen, or its reservation was still there when read.
 * *holds: id's own credential was seen (a reconnect). */
static int count_slots(const wg_registry *reg, const char *id, char **ids, size_t n, int *holds)
{
    enum { SEEN_MAX = 128 };
    static const size_t width = 80;
    char (*seen)[80] = calloc(SEEN_MAX, width);
    int used = 0, extra = 0;
    *holds = 0;
    for (size_t i = 0; i < wg_registry_count(reg); i++) {
        const wg_connector_spec *spec = wg_registry_at(reg, i);
        char buf[80];
        const char *c = wg_registry_credential_id(reg, spec->id, buf, sizeof buf);
        if (!c) {
            extra += !spec->always_connected && is_reserved(ids, n, spec->id);
            continue;
        }
        *holds |= !strcmp(spec->id, id);
        int dup = 0;
        for (int k = 0; seen && k < used && k < SEEN_MAX && !dup; k++)
            dup = !strcmp(seen[k], c);
        if (dup)
            continue;
        if (seen && used < SEEN_MAX)
            snprintf(seen[used], width, "%s", c);
        used++;   /* past the table (or without one): counted, never under-counted */
    }
    free(seen);
    return used + extra;
}

/* The tier's limit for connecting id, decided under the store's write lock
 * (wg_engine_connect) so that no two processes take the last slot. */
static int decide_limit(wg_connector_limit_decision *out, wg_engine *e, wg_store *st,
                        const wg_registry *reg, const char *id)
{
    const wg_connector_spec *spec = wg_registry_get(reg, id);
    if (!spec)
        return wg_error_set(WG_ENOTFOUND, "Connector not found");
    wg_tier_status tier;
    wg_engine_tier(&tier, e);
    char **ids = NULL;
    size_t n = 0;
    int rc = reserved_ids(&ids, &n, e, st, id);
    if (rc < 0)
        return rc;
    int holds = 0;
    int used = count_slots(reg, id, ids, n, &holds);
    free_ids(ids, n);
    wg_connector_limit_decide(out, spec, holds, used, tier.effective);
    wg_error_clear();
    return 0;
}

int wg_engine_connect_check(wg_connector_limit_decision *out, wg_engine *e, const char *id)
{
    wg_store *st = NULL;
    wg_registry *reg = NULL;
    int rc = out && e && id ? 0 : wg_error_set(WG_EINVAL, "wg_engine_connect_check: NULL argument");
    if (rc == 0 && (rc = wg_engine_store(&st, e)) == 0 && (rc = wg_engine_registry(&reg, e)) == 0)
        rc = decide_limit(out, e, st, reg, id);
    return rc;
}

static void unreserve(wg_store *st, const char *id)
{
    char key[160];
    snprintf(key, sizeof key, RESERVE_PREFIX "%s", id);
    wg_store_value v = WG_SV_TEXT(key);
    wg_store_exec(st, "DELETE FROM settings WHERE key = ?", &v, 1, NULL, NULL);
}

int wg_engine_connect(wg_connector_limit_decision *lim, wg_engine *e, const char *id,
                      const wg_connect_request *req, const char *actor)
{
    if (!lim || !e || !id || !req)
        return wg_error_set(WG_EINVAL, "wg_engine_connect: NULL argument");
    wg_store *st = NULL;
    wg_registry *reg = NULL;
    int rc;
    if ((rc = wg_engine_store(&st, e)) < 0 || (rc = wg_engine_registry(&reg, e)) < 0)
        return rc;
    if (!wg_registry_get(reg, id))
        return wg_error_set(WG_ENOTFOUND, "Connector not found");
    /* The decision and the reservation commit together under the store's
     * write lock (SQLite BEGIN IMMEDIATE, PostgreSQL's advisory lock): two
     * processes can never both take the last slot. */
    if ((rc = wg_store_begin(st, WG_STORE_TX_WRITE)) < 0)
        return rc;
    int took = 0;
    rc = decide_limit(lim, e, st, reg, id);
    /* A new connector reserves its slot; so does a reconnect, whose stored
     * credential may be missing for a moment while it is replaced (another
     * process counting then would see a free slot that is not). */
    if (rc == 0 && lim->allowed && (strcmp(lim->rule, "connector.limit.within") == 0 ||
                                    strcmp(lim->rule, "connector.limit.reconnect") == 0)) {
        char key[160], until[32];
        snprintf(key, sizeof key, RESERVE_PREFIX "%s", id);
        snprintf(until, sizeof until, "%lld", (long long)(wg_engine_now(e) + RESERVE_MS));
        rc = wg_store_setting_set(st, key, until);
        took = rc == 0;
    }
    if (rc < 0) {
        wg_store_rollback(st);
        return rc;
    }
    if ((rc = wg_store_commit(st)) < 0)
        return rc;
    json_t *in = json_pack("{s:s,s:i,s:i}", "connectorId", id, "used", lim->used, "limit",
                           lim->limit);
    if (!lim->allowed) {
        wg_engine__note(e, "connector_refused", actor, NULL, in, "denied", lim->rule);
        json_decref(in);
        wg_engine__logf(e, "connector %s refused (%s): %s", id, lim->rule, lim->reason);
        return wg_error_set(WG_ETIER, "%s", lim->reason);
    }
    rc = wg_registry_connect(reg, id, req);
    if (took)
        unreserve(st, id);
    if (rc == 0) {
        if (req->base_url)
            json_object_set_new(in, "baseUrl", json_string(req->base_url));
        /* The credential is in the vault now; a missing row is logged,
         * never a reason to report a stored credential as not stored. */
        wg_engine__note(e, "connector_connected", actor, NULL, in, "ok", lim->rule);
        wg_engine__logf(e, "connector %s connected", id);
    }
    json_decref(in);
    return rc;
}

int wg_engine_disconnect(json_t **out, wg_engine *e, const char *id, const char *actor)
{
    wg_registry *reg = NULL;
    int rc = out && e && id ? wg_engine_registry(&reg, e)
                            : wg_error_set(WG_EINVAL, "wg_engine_disconnect: NULL argument");
    if (rc == 0)
        rc = wg_registry_disconnect(out, reg, id);
    /* An unknown id is "not found", unless it had credentials to clean (a
     * connector removed since, stale keys): those are still cleaned. */
    if (rc == 0 && !wg_registry_get(reg, id) && !json_is_true(json_object_get(*out, "disconnected")) &&
        json_integer_value(json_object_get(*out, "cleanedKeys")) == 0) {
        json_decref(*out);
        *out = NULL;
        return wg_error_set(WG_ENOTFOUND, "Connector not found");
    }
    if (rc == 0) {
        json_t *in = json_pack("{s:s,s:O}", "connectorId", id, "cleanedKeys",
                               json_object_get(*out, "cleanedKeys"));
        wg_engine__note(e, "connector_disconnected", actor, NULL, in, "ok", NULL);
        json_decref(in);
        wg_engine__logf(e, "connector %s disconnected", id);
    }
    return rc;
}

/* ---- the vault and the pool --------------------------------------------------- */

/* WG_EDENIED naming the row that could not be written and why. */
static int unaudited(const char *event)
{
    char why[200];
    snprintf(why, sizeof why, "%s", wg_error_last());
    return wg_error_set(WG_EDENIED, "its %s audit row could not be written (%s)", event, why);
}

int wg_engine_vault_get(wg_vault_entry **out, wg_engine *e, const char *name, const char *actor)
{
    wg_vault *v = NULL;
    wg_vault_entry *entry = NULL;
    int rc = out && e && name ? wg_engine_vault(&v, e)
                              : wg_error_set(WG_EINVAL, "wg_engine_vault_get: NULL argument");
    if (rc == 0)
        rc = wg_vault_get(&entry, v, name);
    if (rc < 0)
        return rc;
    json_t *in = json_pack("{s:s}", "name", name);
    rc = wg_engine__note(e, "vault_read", actor, NULL, in, "ok", NULL);
    json_decref(in);
    if (rc < 0) {
        /* fail closed: an unaudited read hands nothing out */
        wg_vault_entry_free(entry);
        return unaudited("vault_read");
    }
    *out = entry;
    return 0;
}

int wg_engine_vault_set(wg_engine *e, const char *name, const char *value, size_t len,
                        const json_t *meta, const char *actor)
{
    wg_vault *v = NULL;
    int rc = e && name ? wg_engine_vault(&v, e)
                       : wg_error_set(WG_EINVAL, "wg_engine_vault_set: NULL argument");
    if (rc == 0)
        rc = wg_vault_set(v, name, value, len, meta);
    if (rc < 0)
        return rc;
    const char *type = json_string_value(json_object_get(meta, "credentialType"));
    json_t *in = json_pack("{s:s,s:s}", "name", name, "type", type ? type : "api_key");
    wg_engine__note(e, "vault_set", actor, NULL, in, "ok", NULL);
    json_decref(in);
    return 0;
}

int wg_engine_vault_delete(json_t **deleted, wg_engine *e, const char *name, int with_subkeys,
                           const char *actor)
{
    wg_vault *v = NULL;
    int rc = e && name ? wg_engine_vault(&v, e)
                       : wg_error_set(WG_EINVAL, "wg_engine_vault_delete: NULL argument");
    if (rc < 0)
        return rc;
    json_t *names = json_array();
    if (!names)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (with_subkeys) {
        if (strncmp(name, "connector:", 10) || strchr(name + 10, ':')) {
            json_decref(names);
            return wg_error_set(WG_EINVAL, "--with-subkeys needs a name connector:<id>");
        }
        char **list = NULL;
        size_t n = 0;
        if ((rc = wg_vault_delete_connector(v, name + 10, &list, &n)) == 0) {
            for (size_t i = 0; i < n; i++) {
                json_array_append_new(names, json_string(list[i]));
                free(list[i]);
            }
            free(list);
            if (!n)
                rc = wg_error_set(WG_ENOTFOUND, "no vault entry named %s", name);
        }
    } else if ((rc = wg_vault_delete(v, name)) == 0) {
        json_array_append_new(names, json_string(name));
    }
    if (rc < 0) {
        json_decref(names);
        return rc;
    }
    json_t *in = json_pack("{s:O}", "names", names);
    wg_engine__note(e, "vault_deleted", actor, NULL, in, "ok", NULL);
    json_decref(in);
    if (deleted)
        *deleted = names;
    else
        json_decref(names);
    return 0;
}

int wg_engine_pool_next(const char **key, const char **name, wg_engine *e, const char *provider,
                        int max_keys, int reveal, const char *actor)
{
    wg_pool *p = NULL;
    const char *k = NULL, *n = NULL;
    int rc = e && provider ? wg_engine_pool(&p, e, provider, max_keys)
                           : wg_error_set(WG_EINVAL, "wg_engine_pool_next: NULL argument");
    if (rc == 0)
        rc = wg_pool_get_key(p, &k, &n);
    if (rc == 0 && reveal) {
        json_t *in = json_pack("{s:s,s:s}", "provider", provider, "name", n);
        rc = wg_engine__note(e, "pool_key_revealed", actor, NULL, in, "ok", NULL);
        json_decref(in);
        if (rc < 0)
            return unaudited("pool_key_revealed");
    }
    if (rc < 0)
        return rc;
    if (key)
        *key = reveal ? k : NULL;
    if (name)
        *name = n;
    return 0;
}

/* ---- tier and audit export --------------------------------------------------- */

int wg_engine_tier_set(wg_engine *e, wg_tier tier, const char *actor)
{
    wg_audit *a = NULL;
    int rc = e ? wg_engine_audit(&a, e) : wg_error_set(WG_EINVAL, "wg_engine_tier_set: NULL");
    wg_store *st = NULL;
    if (rc == 0)
        rc = wg_engine__shared_store(&st, e);
    return rc < 0 ? rc : wg_tier__set_in(st, e->data_dir, tier, a, actor ? actor : e->actor);
}

int wg_engine_trial_start(wg_engine *e, const char *actor)
{
    wg_audit *a = NULL;
    int rc = e ? wg_engine_audit(&a, e) : wg_error_set(WG_EINVAL, "wg_engine_trial_start: NULL");
    wg_store *st = NULL;
    if (rc == 0)
        rc = wg_engine__shared_store(&st, e);
    return rc < 0 ? rc : wg_tier__start_trial_in(st, e->data_dir, wg_engine_now(e), a,
                                                 actor ? actor : e->actor);
}

int wg_engine_audit_export(wg_audit_event **out, size_t *n, wg_engine *e,
                           const wg_audit_query *q, const char *actor)
{
    wg_audit *a = NULL;
    int rc = out && n && e ? wg_engine_audit(&a, e)
                           : wg_error_set(WG_EINVAL, "wg_engine_audit_export: NULL argument");
    if (rc == 0)
        rc = wg_audit_list(out, n, a, q);
    if (rc == 0)
        wg_engine__note(e, "audit_export", actor, NULL, NULL, "ok", NULL);
    return rc;
}

int wg_engine_audit_reanchor(wg_engine *e, const char *actor, int64_t *id)
{
    wg_audit *a = NULL;
    int rc = e ? wg_engine_audit(&a, e)
               : wg_error_set(WG_EINVAL, "wg_engine_audit_reanchor: NULL engine");
    return rc < 0 ? rc : wg_audit_reanchor(a, actor, id);
}

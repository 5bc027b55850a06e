/* replica.c - what one waggled adds when several share one PostgreSQL
 * (docs/replicas.md): the event stream of every replica on each one's
 * GET /api/events (the engine's bus forwarded as NOTIFY waggle_events, and
 * a LISTEN feed fed back with wg_engine_publish_remote), and one pair of
 * tokens for all of them (the store keeps their hashes, never the tokens;
 * a replica started with other tokens refuses to start). On SQLite none of
 * this runs: one machine, one data dir. */
#include "server/server_int.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/store.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHANNEL "waggle_events"

/* Payload: "<replica id> <event name> <JSON data>". An event too large for
 * one notification travels without its bulky fields: the live view learns
 * that it happened; the result itself is in the store or with the caller. */
static char *payload_of(const wg_server *srv, const char *name, const json_t *data)
{
    char *js = json_dumps(data, JSON_COMPACT);
    size_t need = js ? strlen(srv->replica_id) + strlen(name) + strlen(js) + 3 : 0;
    if (js && need > WG_STORE_NOTIFY_MAX) {
        free(js);
        json_t *small = json_object();
        static const char *const keep[] = { "tool", "toolName", "approvalId", "sessionId",
                                            "requestId", "content", "error" };
        for (size_t i = 0; small && i < sizeof keep / sizeof *keep; i++) {
            json_t *v = json_object_get(data, keep[i]);
            if (json_is_string(v) && strlen(json_string_value(v)) < 512)
                json_object_set(small, keep[i], v);
        }
        json_object_set_new(small, "truncated", json_true());
        js = small ? json_dumps(small, JSON_COMPACT) : NULL;
        json_decref(small);
        need = js ? strlen(srv->replica_id) + strlen(name) + strlen(js) + 3 : 0;
    }
    char *p = js ? malloc(need) : NULL;
    if (p)
        snprintf(p, need, "%s %s %s", srv->replica_id, name, js);
    free(js);
    return p;
}

static void forward(void *ctx, const char *name, const json_t *data)
{
    wg_server *srv = ctx;
    wg_store *st = srv->ctx.store;
    if (!st || !wg_store_is_shared(st))
        return;
    char *p = payload_of(srv, name, data);
    /* Best effort: with the store away the event reaches this replica's
     * own streams only (the approval itself is in the store). */
    if (!p || wg_store_notify(st, CHANNEL, p) < 0)
        wg_error_clear();
    free(p);
}

void wg_replica__bus(wg_server *srv, wg_engine_bus *bus)
{
    unsigned char id[16];
    randombytes_buf(id, sizeof id);
    sodium_bin2hex(srv->replica_id, sizeof srv->replica_id, id, sizeof id);
    bus->ctx = srv;
    bus->forward = forward;
}

static void on_notify(void *ud, const char *payload)
{
    wg_server *srv = ud;
    size_t il = strlen(srv->replica_id);
    if (strncmp(payload, srv->replica_id, il) == 0 && payload[il] == ' ')
        return;   /* our own, already delivered locally */
    const char *sp = strchr(payload, ' ');
    const char *name = sp ? sp + 1 : NULL;
    const char *sp2 = name ? strchr(name, ' ') : NULL;
    if (!sp2 || sp2 - name > 32)
        return;
    char nm[33];
    snprintf(nm, sizeof nm, "%.*s", (int)(sp2 - name), name);
    json_t *data = json_loads(sp2 + 1, JSON_REJECT_DUPLICATES, NULL);
    if (json_is_object(data) && wg_engine_publish_remote(srv->engine, nm, data) < 0)
        wg_error_clear();
    json_decref(data);
}

/* The first replica records the hash; the others must match it. */
static int token_matches(wg_store *st, const char *key, const unsigned char hash[32],
                         const char *what)
{
    char hex[65];
    sodium_bin2hex(hex, sizeof hex, hash, 32);
    wg_store_value p[2] = { WG_SV_TEXT(key), WG_SV_TEXT(hex) };
    int rc = wg_store_exec(st, "INSERT INTO settings (key, value) VALUES (?, ?)"
                           " ON CONFLICT (key) DO NOTHING", p, 2, NULL, NULL);
    char *have = NULL;
    if (rc == 0)
        rc = wg_store_setting_get(&have, st, key);
    if (rc < 0)
        return rc;
    int same = strlen(have) == 64 && sodium_memcmp(have, hex, 64) == 0;
    free(have);
    if (!same)
        return wg_error_set(WG_EAUTH, "this replica's %s differs from the one the other replicas "
                            "on this database use (the store keeps its hash, setting %s): give "
                            "every replica the same token, or delete that setting to rotate it",
                            what, key);
    return 0;
}

int wg_replica__start(wg_server *srv)
{
    wg_store *st = srv->ctx.store;
    if (!st || !wg_store_is_shared(st))
        return 0;
    int rc = token_matches(st, "token.api.blake2b", srv->api_hash,
                           "API token (WAGGLE_API_TOKEN or DATA_DIR/api-token)");
    if (rc == 0)
        rc = token_matches(st, "token.admin.blake2b", srv->admin_hash,
                           "admin token (DATA_DIR/admin-token)");
    if (rc == 0)
        rc = wg_store_feed_start(&srv->feed, st, CHANNEL, on_notify, srv);
    return rc;
}

void wg_replica__stop(wg_server *srv)
{
    wg_store_feed_stop(srv->feed);
    srv->feed = NULL;
}

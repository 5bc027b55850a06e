/* routes_connectors.c - the connector routes (spec 8.5), exact:
 *   GET  /api/connectors                 {connectors: ConnectorDefinition[]}
 *   GET  /api/connectors/:id/health      ConnectorHealth; 404 unknown id;
 *                                        502 sanitized degraded health when the probe fails
 *   POST /api/connectors/:id/connect     {connected:true, connectorId}; 400 no token/apiKey;
 *                                        404 unknown id; 503 no vault; 403
 *                                        TIER_INSUFFICIENT past the tier's connectorLimit
 *   POST /api/connectors/:id/disconnect  {disconnected, connectorId, cleanedKeys}; 503 no vault;
 *                                        404 unknown id with nothing stored under it
 * The error bodies are the original's ({error:"Connector not found"} …).
 * The work is in the registry (src/connect/registry.c); the credential goes
 * to the vault and the connector reloads from it at once (reference 13
 * item 10). Besides the spec's body fields, connect accepts baseUrl (a
 * self-hosted GitHub/GitLab/Jira site; for any other connector only with
 * the admin token), checked by the upstream policy (403 FORBIDDEN when
 * refused; docs/security.md 2.2). Connecting one connector more than
 * the effective tier's connectorLimit (FREE 5) answers requireTier's exact
 * 403 body; reconnecting and demo connectors always pass
 * (wg_registry_check_limit; reference 13 item 19). The check and the
 * connect run under one lock per server, so concurrent requests cannot both
 * take the last slot (another process on the same data dir still can). */
#include "server/route.h"
#include "server/tiering.h"
#include "waggle/connector.h"
#include "waggle/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct state {
    pthread_mutex_t connect_mu;   /* the limit check and the connect, together */
} state;

static int original_error(wg_res *res, int status, const char *msg)
{
    return wg_res_json(res, status, json_pack("{s:s}", "error", msg));
}

static int list(wg_res *res, const wg_req *req)
{
    json_t *defs = NULL;
    int rc = wg_registry_definitions(&defs, req->ctx->registry);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:o}", "connectors", defs));
}

static int health(wg_res *res, const wg_req *req)
{
    const char *id = wg_req_param(req, "id");
    json_t *h = NULL;
    int rc = wg_registry_health(&h, req->ctx->registry, id);
    if (rc == WG_ENOTFOUND)
        return original_error(res, 404, "Connector not found");
    if (rc == WG_EUPSTREAM && h)
        return wg_res_json(res, 502, h);   /* degraded, already sanitized */
    if (rc < 0) {
        json_decref(h);
        return rc;
    }
    return wg_res_json(res, 200, h);
}

static int connect(wg_res *res, const wg_req *req)
{
    const char *id = wg_req_param(req, "id");
    wg_connect_request cr = { 0 };
    json_t *scopes = NULL;
    if (!wg_registry_get(req->ctx->registry, id))
        return original_error(res, 404, "Connector not found");
    if (wg_body_string(res, req, "token", 0, &cr.token) < 0 ||
        (!cr.token && wg_body_string(res, req, "apiKey", 0, &cr.token) < 0) ||
        wg_body_string(res, req, "refreshToken", 0, &cr.refresh_token) < 0 ||
        wg_body_string(res, req, "expiresAt", 0, &cr.expires_at) < 0 ||
        wg_body_array(res, req, "scopes", 0, &scopes) < 0 ||
        wg_body_string(res, req, "email", 0, &cr.email) < 0 ||
        wg_body_string(res, req, "baseUrl", 0, &cr.base_url) < 0)
        return 0;
    if (!cr.token || !*cr.token)
        return original_error(res, 400, "token or apiKey required");
    /* the admin token is the operator (docs/security.md): it may set what
     * the app may not (a base URL for any connector) */
    cr.principal = wg_req_is_admin(req) ? WG_PRINCIPAL_OPERATOR : WG_PRINCIPAL_APP;
    if (!req->ctx->vault)
        return original_error(res, 503, "Vault not available");
    wg_tier_info tier;
    wg_tiering__read(&tier, req->ctx);
    wg_connector_limit_decision lim;
    state *st = req->area_state;
    pthread_mutex_lock(&st->connect_mu);
    int rc = wg_registry_check_limit(&lim, req->ctx->registry, id, (wg_tier)tier.effective_tier);
    if (rc == 0 && lim.allowed) {
        cr.scopes = scopes;
        rc = wg_registry_connect(req->ctx->registry, id, &cr);
    }
    pthread_mutex_unlock(&st->connect_mu);
    if (rc == 0 && !lim.allowed) {
        wg_server_logf(req->ctx, "connector %s refused (%s): %s", id, lim.rule, lim.reason);
        return wg_res_json(res, lim.denial.status, wg_tier_denial_json(&lim.denial));
    }
    if (rc == WG_EUNSUPPORTED)
        return original_error(res, 503, "Vault not available");
    if (rc < 0)
        return rc;
    wg_server_logf(req->ctx, "connector %s connected", id);
    return wg_res_json(res, 200, json_pack("{s:b,s:s}", "connected", 1, "connectorId", id));
}

static int disconnect(wg_res *res, const wg_req *req)
{
    const char *id = wg_req_param(req, "id");
    if (!req->ctx->vault)
        return original_error(res, 503, "Vault not available");
    json_t *out = NULL;
    int rc = wg_registry_disconnect(&out, req->ctx->registry, id);
    if (rc == WG_EUNSUPPORTED)
        return original_error(res, 503, "Vault not available");
    if (rc < 0)
        return rc;
    /* An unknown id answers 404 like connect, unless it had credentials
     * (a connector removed since, or stale keys): those are still cleaned. */
    if (!wg_registry_get(req->ctx->registry, id) &&
        !json_is_true(json_object_get(out, "disconnected")) &&
        json_integer_value(json_object_get(out, "cleanedKeys")) == 0) {
        json_decref(out);
        return original_error(res, 404, "Connector not found");
    }
    wg_server_logf(req->ctx, "connector %s disconnected", id);
    return wg_res_json(res, 200, out);
}

static int init(void **out, wg_server_ctx *ctx)
{
    (void)ctx;
    state *st = calloc(1, sizeof *st);
    if (!st)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&st->connect_mu, NULL);
    *out = st;
    return 0;
}

static void fini(void *p)
{
    state *st = p;
    if (!st)
        return;
    pthread_mutex_destroy(&st->connect_mu);
    free(st);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,  "/api/connectors",                list,       WG_ROUTE_FREE, 0 },
    { WG_HTTP_GET,  "/api/connectors/:id/health",     health,     WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/connectors/:id/connect",    connect,    WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/connectors/:id/disconnect", disconnect, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_connectors = {
    "connectors", routes, sizeof routes / sizeof routes[0], init, fini,
};

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
 * 403 body; reconnecting and demo connectors always pass (reference 13
 * item 19). Connect and disconnect go through the engine
 * (wg_engine_connect): the limit is taken atomically in the store, so no
 * two requests, processes or replicas take the last slot, and each writes
 * its audit row (connector_connected, connector_refused,
 * connector_disconnected; never the credential). */
#include "server/route.h"
#include "waggle/engine.h"
#include "waggle/error.h"

#include <string.h>

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
    cr.scopes = scopes;
    wg_connector_limit_decision lim;
    int rc = wg_engine_connect(&lim, req->ctx->engine, id, &cr, "api");
    if (rc == WG_ETIER)
        return wg_res_json(res, lim.denial.status, wg_tier_denial_json(&lim.denial));
    if (rc == WG_EUNSUPPORTED)
        return original_error(res, 503, "Vault not available");
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:b,s:s}", "connected", 1, "connectorId", id));
}

static int disconnect(wg_res *res, const wg_req *req)
{
    const char *id = wg_req_param(req, "id");
    if (!req->ctx->vault)
        return original_error(res, 503, "Vault not available");
    json_t *out = NULL;
    int rc = wg_engine_disconnect(&out, req->ctx->engine, id, "api");
    if (rc == WG_ENOTFOUND)   /* unknown, and no stale connector:<id>:* keys to clean */
        return original_error(res, 404, "Connector not found");
    if (rc == WG_EUNSUPPORTED)
        return original_error(res, 503, "Vault not available");
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, out);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,  "/api/connectors",                list,       WG_ROUTE_FREE, 0 },
    { WG_HTTP_GET,  "/api/connectors/:id/health",     health,     WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/connectors/:id/connect",    connect,    WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/connectors/:id/disconnect", disconnect, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_connectors = {
    "connectors", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

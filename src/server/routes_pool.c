/* routes_pool.c - GET /api/pool/:provider/status: the credential pool's
 * PoolStatus (spec 13) for a provider, loaded from the vault entries
 * provider, provider-2, ... with its cooldowns from the store (shared by
 * every process). Key values never appear. 404 when the provider has no
 * keys. */
#include "store/files.h"
#include "server/route.h"
#include "waggle/error.h"
#include "waggle/pool.h"

static int status(wg_res *res, const wg_req *req)
{
    const char *provider = wg_req_param(req, "provider");
    if (!wg_files__name_ok(provider))
        return wg_res_error(res, 400, "INVALID_PARAM",
                            "provider must be a name of letters, digits, '.', '_' or '-'");
    wg_pool *pool = NULL;
    int rc = wg_pool_load(&pool, req->ctx->vault_db, provider, WG_POOL_DEFAULT_MAX_KEYS,
                          req->ctx->store, NULL);
    if (rc < 0)
        return rc;
    if (wg_pool_size(pool) == 0) {
        wg_pool_free(pool);
        return wg_res_error(res, 404, "NOT_FOUND", "no keys for this provider in the vault");
    }
    json_t *out = NULL;
    rc = wg_pool_status(&out, pool);
    wg_pool_free(pool);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, out);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET, "/api/pool/:provider/status", status, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_pool = {
    "pool", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

/* routes_system.c - the service's own routes: GET /healthz (open, for load
 * balancers and scripts) and GET /api/openapi.json (the embedded OpenAPI 3.1
 * document, data/openapi.json). */
#include "server/route.h"
#include "waggle/error.h"
#include "waggle/version.h"

#include <stdlib.h>
#include <string.h>

extern const unsigned char wg_server__openapi_json[];
extern const size_t wg_server__openapi_len;

static int healthz(wg_res *res, const wg_req *req)
{
    (void)req;
    return wg_res_json(res, 200, json_pack("{s:s,s:s}", "status", "ok", "version",
                                           wg_version()));
}

static int openapi(wg_res *res, const wg_req *req)
{
    (void)req;
    char *copy = malloc(wg_server__openapi_len + 1);
    if (!copy)
        return wg_error_set(WG_ENOMEM, "out of memory");
    memcpy(copy, wg_server__openapi_json, wg_server__openapi_len + 1);
    return wg_res_text(res, 200, WG_CONTENT_JSON, copy, wg_server__openapi_len);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET, "/healthz",          healthz, WG_ROUTE_FREE, WG_ROUTE_PUBLIC },
    { WG_HTTP_GET, "/api/openapi.json", openapi, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_system = {
    "system", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

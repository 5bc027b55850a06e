/* routes_catalog.c - the MCP server catalog over HTTP (spec 4 find_connector
 * and list_connector_categories, spec 12).
 *   GET /api/catalog/search?q=&category=&limit=   find_connector's JSON
 *       {query, catalogSize, matchCount, matches:[...]} (or {query,
 *       matchCount:0, hint}); 400 for a missing q or an unknown category
 *   GET /api/catalog/categories                     {totalServers, ...,
 *       categories:[{category, emoji, count}]} */
#include "server/route.h"
#include "waggle/catalog.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

static int search(wg_res *res, const wg_req *req)
{
    const char *q = wg_req_query(req, "q");
    const char *category = wg_req_query(req, "category");
    const char *limit = wg_req_query(req, "limit");
    if (!q || !*q)
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                               "q", "message", "q (the search text) is required"));
    if (category && *category && wg_catalog_category_index(category) < 0)
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                           "category", "message", "category must be one of the catalog's 14 categories"));
    json_t *args = json_pack("{s:s%}", "query", q, strlen(q));
    if (!args)
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                               "q", "message", "q must be UTF-8 text"));
    if (category && *category)
        json_object_set_new(args, "category", json_string(category));
    if (limit) {
        char *end;
        long l = strtol(limit, &end, 10);
        if (*end || end == limit) {
            json_decref(args);
            return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD",
                               "field", "limit", "message", "limit must be an integer"));
        }
        json_object_set_new(args, "limit", json_integer(l));
    }
    json_t *out = NULL;
    int rc = wg_catalog_find_connector(&out, req->ctx->catalog, args);
    json_decref(args);
    if (rc < 0)
        return rc;
    int status = json_object_get(out, "error") ? 400 : 200;
    return wg_res_json(res, status, out);
}

static int categories(wg_res *res, const wg_req *req)
{
    json_t *out = NULL;
    int rc = wg_catalog_categories(&out, req->ctx->catalog);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, out);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET, "/api/catalog/search",     search,     WG_ROUTE_FREE, 0 },
    { WG_HTTP_GET, "/api/catalog/categories", categories, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_catalog = {
    "catalog", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

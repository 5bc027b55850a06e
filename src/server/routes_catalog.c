/* routes_catalog.c - the MCP server catalog over HTTP (spec 4 find_connector
 * and list_connector_categories, spec 12).
 *   GET /api/catalog/search?q=&category=&limit=   find_connector's JSON
 *       {query, catalogSize, matchCount, matches:[...]} (or {query,
 *       matchCount:0, hint}); 400 for a missing q or an unknown category
 *   GET /api/catalog/categories                     {totalServers, ...,
 *       categories:[{category, emoji, count}]} */
#include "server/respcache.h"
#include "server/route.h"
#include "waggle/catalog.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

enum { CACHE_SLOTS = 512, KEY_MAX = 1024 };


static int search(wg_res *res, const wg_req *req)
{
    const char *q = wg_req_query(req, "q");
    const char *category = wg_req_query(req, "category");
    const char *limit = wg_req_query(req, "limit");
    /* The catalog never changes while the server runs, so an answer can be
     * reused for the same query (the hot path of an agent's find_connector). */
    char key[KEY_MAX];
    int keyed = q && snprintf(key, sizeof key, "%s\x1f%s\x1f%s", q, category ? category : "",
                              limit ? limit : "") < (int)sizeof key;
    size_t len = 0;
    char *hit = keyed ? wg_respcache__get(req->area_state, key, 0, &len) : NULL;
    if (hit)
        return wg_res_text(res, 200, WG_CONTENT_JSON, hit, len);
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
    if (json_object_get(out, "error"))
        return wg_res_json(res, 400, out);
    char *text = json_dumps(out, JSON_COMPACT);
    json_decref(out);
    if (!text)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (keyed)
        wg_respcache__put(req->area_state, key, 0, text, strlen(text));
    return wg_res_text(res, 200, WG_CONTENT_JSON, text, strlen(text));
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

static int init(void **state, wg_server_ctx *ctx)
{
    (void)ctx;
    return wg_respcache__new((wg_respcache **)state, CACHE_SLOTS);
}

static void fini(void *state)
{
    wg_respcache__free(state);
}

const wg_route_area wg_routes_catalog = {
    "catalog", routes, sizeof routes / sizeof routes[0], init, fini,
};

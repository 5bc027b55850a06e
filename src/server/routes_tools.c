/* routes_tools.c - GET /api/tools: the tool definitions an LLM is given
 * ({name, description, parameters (JSON Schema)}): the native capability
 * tools (spec 4: acquire_capability, install_capability, find_connector,
 * list_connector_categories), and one connector_<id>_<action> tool per action of every
 * connected connector (spec 8.2 generateTools). Running a tool is
 * POST /api/tools/execute (routes of the connector area). */
#include "server/route.h"
#include "waggle/capability_tools.h"
#include "waggle/catalog_tools.h"
#include "waggle/connector.h"
#include "waggle/error.h"

static int list_tools(wg_res *res, const wg_req *req)
{
    json_t *tools = json_array();
    size_t n = 0;
    const wg_captool_def *defs = wg_captool_defs(&n);
    for (size_t i = 0; i < n; i++) {
        json_t *params = json_loads(defs[i].parameters, 0, NULL);
        json_array_append_new(tools, json_pack("{s:s,s:s,s:o?}", "name", defs[i].name,
                              "description", defs[i].description, "parameters", params));
    }
    const wg_catalogtool_def *cdefs = wg_catalogtool_defs(&n);
    for (size_t i = 0; i < n; i++) {
        json_t *params = json_loads(cdefs[i].parameters, 0, NULL);
        json_array_append_new(tools, json_pack("{s:s,s:s,s:o?,s:b}", "name", cdefs[i].name,
                              "description", cdefs[i].description, "parameters", params,
                              "offlineCapable", cdefs[i].offline_capable));
    }
    size_t native = json_array_size(tools);
    json_t *conn = NULL;
    int rc = wg_registry_tools(&conn, req->ctx->registry);
    if (rc < 0) {
        json_decref(tools);
        return rc;
    }
    size_t connector = json_array_size(conn);
    json_array_extend(tools, conn);
    json_decref(conn);
    return wg_res_json(res, 200, json_pack("{s:o,s:{s:I,s:I}}", "tools", tools, "counts",
                       "native", (json_int_t)native, "connector", (json_int_t)connector));
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET, "/api/tools", list_tools, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_tools = {
    "tools", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

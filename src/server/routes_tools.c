/* routes_tools.c - GET /api/tools: the tool definitions an LLM is given
 * ({name, description, parameters (JSON Schema)}), as the engine lists them
 * (wg_engine_tools): the native capability tools (spec 4), the four KVARK
 * tools while they are registered (spec 9), and one connector_<id>_<action>
 * tool per action of every connected connector (spec 8.2 generateTools),
 * and with `waggle serve --gateway` the SERVER__TOOL tools of its MCP servers.
 * Running a tool is POST /api/tools/execute (routes of the connector area). */
#include "server/route.h"
#include "waggle/engine.h"
#include "waggle/error.h"

static int list_tools(wg_res *res, const wg_req *req)
{
    json_t *tools = NULL;
    wg_engine_tool_counts c;
    int rc = wg_engine_tools(&tools, &c, req->ctx->engine, WG_ENGINE_TOOLS_ALL);
    if (rc < 0)
        return rc;
    /* the rest are the providers' (waggle serve --gateway: SERVER__TOOL) */
    size_t gateway = json_array_size(tools) - c.native - c.kvark - c.connector;
    return wg_res_json(res, 200, json_pack("{s:o,s:{s:I,s:I,s:I,s:I}}", "tools", tools, "counts",
                       "native", (json_int_t)c.native, "kvark", (json_int_t)c.kvark,
                       "connector", (json_int_t)c.connector, "gateway", (json_int_t)gateway));
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET, "/api/tools", list_tools, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_tools = {
    "tools", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

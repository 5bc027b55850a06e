/* tools.c - the one list of tools an agent is given (waggle/engine.h
 * wg_engine_tools): the native tools of spec 4, the KVARK tools of spec 9
 * while they are registered, and the connector tools of spec 8.2. Every
 * face lists tools here, so what a face shows is what wg_engine_execute
 * runs. */
#include "engine/engine_int.h"
#include "waggle/catalog_tools.h"
#include "waggle/error.h"

static int add(json_t *tools, const char *name, const char *desc, const char *params,
               int offline)
{
    json_t *p = json_loads(params, 0, NULL);
    json_t *t = json_pack("{s:s,s:s,s:o?}", "name", name, "description", desc, "parameters", p);
    if (t && offline >= 0)
        json_object_set_new(t, "offlineCapable", json_boolean(offline));
    return t && json_array_append_new(tools, t) == 0 ? 0 : -1;
}

static int natives(json_t *tools)
{
    size_t n = 0;
    int bad = 0;
    const wg_captool_def *cap = wg_captool_defs(&n);
    for (size_t i = 0; i < n; i++)
        bad |= add(tools, cap[i].name, cap[i].description, cap[i].parameters, -1);
    const wg_catalogtool_def *cat = wg_catalogtool_defs(&n);
    for (size_t i = 0; i < n; i++)
        bad |= add(tools, cat[i].name, cat[i].description, cat[i].parameters,
                   cat[i].offline_capable);
    return bad;
}

static int kvark_tools(json_t *tools, wg_engine *e)
{
    wg_engine_kvark_state st;
    int rc = wg_engine_kvark_status(&st, e);
    if (rc < 0 || !st.active)
        return rc;
    size_t n = 0;
    int bad = 0;
    const wg_kvark_tool_def *d = wg_kvark_tool_defs(&n);
    for (size_t i = 0; i < n; i++)
        bad |= add(tools, d[i].name, d[i].description, d[i].parameters, -1);
    return bad ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

int wg_engine_tools(json_t **out, wg_engine_tool_counts *counts, wg_engine *e, unsigned which)
{
    if (!out || !e)
        return wg_error_set(WG_EINVAL, "wg_engine_tools: NULL argument");
    wg_engine_tool_counts c = { 0 };
    json_t *tools = json_array();
    int rc = tools ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0 && (which & WG_ENGINE_TOOLS_NATIVE) && natives(tools))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    c.native = json_array_size(tools);
    if (rc == 0 && (which & WG_ENGINE_TOOLS_KVARK))
        rc = kvark_tools(tools, e);
    c.kvark = json_array_size(tools) - c.native;
    if (rc == 0 && (which & WG_ENGINE_TOOLS_CONNECTORS)) {
        wg_registry *reg = NULL;
        json_t *conn = NULL;
        if ((rc = wg_engine_registry(&reg, e)) == 0 && (rc = wg_registry_tools(&conn, reg)) == 0) {
            c.connector = json_array_size(conn);
            if (json_array_extend(tools, conn))
                rc = wg_error_set(WG_ENOMEM, "out of memory");
            json_decref(conn);
        }
    }
    if (rc == 0 && (which & WG_ENGINE_TOOLS_PROVIDERS))
        rc = wg_engine__provider_tools(tools, e);
    if (rc < 0) {
        json_decref(tools);
        return rc;
    }
    if (counts)
        *counts = c;
    *out = tools;
    return 0;
}

/* tools.c - waggle's tools as MCP tools (tools.h). The definitions are the
 * engine's one list (wg_engine_tools: the agent tools, the KVARK tools while
 * they are registered, the connected connectors' tools), so the list and
 * the executor can never disagree; only gate_check is defined here. */
#include "mcp/tools.h"
#include "waggle/capability_tools.h"
#include "waggle/catalog_tools.h"
#include "waggle/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char gate_check_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"tool\":{\"type\":\"string\",\"description\":\"The tool the agent wants to call: bash, "
    "write_file, edit_file, read_file, web_fetch, a connector_<id>_<action>, ...\"},"
    "\"args\":{\"type\":\"object\",\"description\":\"The call's arguments, e.g. "
    "{\\\"command\\\":\\\"rm -rf build\\\"} for bash.\"}},"
    "\"required\":[\"tool\"],\"additionalProperties\":false}";

/* The agent tools that only read (MCP tool annotations are hints to the
 * client; the gate decides regardless). */
static const char *const read_only[] = {
    WG_MCP_GATE_CHECK, "find_connector", "list_connector_categories", "acquire_capability",
};

static json_t *annotations(const char *name)
{
    for (size_t i = 0; i < sizeof read_only / sizeof *read_only; i++)
        if (strcmp(read_only[i], name) == 0)
            return json_pack("{s:b,s:b}", "readOnlyHint", 1, "openWorldHint", 0);
    if (strcmp(name, "install_capability") == 0)
        return json_pack("{s:b,s:b}", "readOnlyHint", 0, "destructiveHint", 0);
    return NULL;
}

/* An MCP inputSchema must be an object schema. */
static json_t *input_schema(json_t *params)
{
    if (!json_is_object(params)) {
        json_decref(params);
        params = json_object();
    }
    if (!json_object_get(params, "type"))
        json_object_set_new(params, "type", json_string("object"));
    return params;
}

static int add(json_t *tools, const char *name, const char *description, json_t *params,
               const json_t *given)
{
    json_t *t = json_pack("{s:s,s:s,s:o}", "name", name, "description", description ? description : "",
                          "inputSchema", input_schema(params));
    if (!t)
        return wg_error_set(WG_ENOMEM, "out of memory");
    /* a gateway upstream's own annotations are passed on as hints */
    json_t *a = json_is_object(given) ? json_deep_copy(given) : annotations(name);
    if (a)
        json_object_set_new(t, "annotations", a);
    json_array_append_new(tools, t);
    return 0;
}

int wg_mcp__tools_list(json_t **out, wg_engine *e)
{
    json_t *tools = json_array();
    int rc = add(tools, WG_MCP_GATE_CHECK,
                 "Ask waggle's gate whether a tool call needs a person's confirmation before it "
                 "runs, at this session's autonomy level. Answers {needsConfirmation, critical, "
                 "approvalClass, level, rule, reason}; rule and reason say why. Use it before "
                 "running a tool of your own (bash, write_file, ...).",
                 json_loads(gate_check_schema, 0, NULL), NULL);
    /* the engine's one list (native, KVARK while registered, connectors) */
    json_t *list = NULL;
    if (rc == 0)
        rc = wg_engine_tools(&list, NULL, e, WG_ENGINE_TOOLS_ALL);
    size_t i;
    json_t *d;
    json_array_foreach(list, i, d) {
        if (rc < 0)
            break;
        rc = add(tools, json_string_value(json_object_get(d, "name")),
                 json_string_value(json_object_get(d, "description")),
                 json_incref(json_object_get(d, "parameters")), json_object_get(d, "annotations"));
    }
    json_decref(list);
    if (rc < 0) {
        json_decref(tools);
        return rc;
    }
    *out = tools;
    return 0;
}

int wg_mcp__tools_has(wg_engine *e, const char *name)
{
    if (strcmp(name, WG_MCP_GATE_CHECK) == 0)
        return 1;
    size_t n = 0;
    const wg_captool_def *cap = wg_captool_defs(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(cap[i].name, name) == 0)
            return 1;
    const wg_catalogtool_def *cat = wg_catalogtool_defs(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(cat[i].name, name) == 0)
            return 1;
    /* <server>__<tool> of a gateway upstream: also while it restarts, so
     * the call gets a tool error saying so rather than "unknown tool" */
    if (wg_engine_is_provider_tool(e, name))
        return 1;
    /* connector_<id>_<action>: a registered action of a connected connector */
    wg_registry *reg = NULL;
    wg_risk_level risk;
    if (strncmp(name, "connector_", 10) != 0 || wg_engine_registry(&reg, e) < 0 ||
        wg_registry_action_risk(&risk, reg, name) < 0)
        return 0;
    char id[WG_ENGINE_TOOL_MAX];
    size_t len = strcspn(name + 10, "_");
    if (len >= sizeof id)
        return 0;
    memcpy(id, name + 10, len);
    id[len] = 0;
    return wg_registry_is_connected(reg, id);
}

char *wg_mcp__tools_names(const json_t *tools)
{
    size_t len = 1, i;
    json_t *t;
    json_array_foreach(tools, i, t)
        len += strlen(json_string_value(json_object_get(t, "name"))) + 1;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    json_array_foreach(tools, i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        size_t n = strlen(name);
        memcpy(p, name, n);
        p[n] = '\n';
        p += n + 1;
    }
    *p = 0;
    return s;
}

int wg_mcp__tools_fingerprint(char **out, wg_engine *e)
{
    json_t *tools = NULL;
    int rc = wg_mcp__tools_list(&tools, e);
    if (rc < 0)
        return rc;
    char *s = wg_mcp__tools_names(tools);
    json_decref(tools);
    if (!s)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = s;
    return 0;
}

static json_t *text_result(char *text, int is_error, json_t *structured)
{
    json_t *r = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text",
                          text ? text : "", "isError", is_error);
    free(text);
    if (r && json_is_object(structured))
        json_object_set_new(r, "structuredContent", structured);
    else
        json_decref(structured);
    return r;
}

json_t *wg_mcp__tool_error(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return text_result(strdup(buf), 1, NULL);
}

static json_t *ran(const wg_engine_outcome *o)
{
    const json_t *r = o->result;
    int ok = json_is_true(json_object_get(r, "success"));
    const json_t *content = json_object_get(r, "content");
    if (json_is_array(content)) {
        /* a gateway upstream's own content (text, images, resources, ...) */
        json_t *out = json_pack("{s:O,s:b}", "content", content, "isError", !ok);
        const json_t *data = json_object_get(r, "data");
        if (out && ok && json_is_object(data))
            json_object_set_new(out, "structuredContent", json_deep_copy(data));
        return out;
    }
    const json_t *body = json_object_get(r, ok ? "data" : "error");
    char *text = json_is_string(body) ? strdup(json_string_value(body))
               : json_dumps(body ? body : r, JSON_COMPACT | JSON_ENCODE_ANY);
    return text_result(text, !ok, json_deep_copy(r));
}

static json_t *not_ran(const wg_engine_outcome *o)
{
    const wg_gate_decision *d = &o->decision;
    const char *cls = wg_approval_name(d->approval_class);
    char when[WG_TIME_ISO_MAX] = "";
    if (o->approval_id[0])
        wg_time_format_iso(when, o->expires_ms);
    static const char *const state[] = { "ran", "pending", "denied", "expired" };
    json_t *sc = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b}", "status", state[o->status], "tool", o->tool,
                           "approvalClass", cls, "rule", d->rule, "reason", d->reason,
                           "critical", d->critical);
    if (sc && o->approval_id[0]) {
        json_object_set_new(sc, "approvalId", json_string(o->approval_id));
        json_object_set_new(sc, "expiresAt", json_string(when));
    }
    char buf[1536];
    if (o->status == WG_ENGINE_PENDING)
        snprintf(buf, sizeof buf,
                 "%s needs a person's approval (%s, rule %s): %s\n"
                 "Nothing ran. It waits until %s as approval %s. To run it, a person approves it "
                 "with `waggle approve %s` (or POST /api/approval/%s with {\"approved\":true}); "
                 "`waggle approve %s --deny` refuses it.",
                 o->tool, cls, d->rule, d->reason, when, o->approval_id, o->approval_id,
                 o->approval_id, o->approval_id);
    else if (o->status == WG_ENGINE_DENIED)
        snprintf(buf, sizeof buf, "%s was not run: the person asked refused it (%s, rule %s): %s",
                 o->tool, cls, d->rule, d->reason);
    else
        snprintf(buf, sizeof buf, "%s was not run: its approval %s expired before anyone "
                 "answered (rule %s)", o->tool, o->approval_id, d->rule);
    return text_result(strdup(buf), 1, sc);
}

json_t *wg_mcp__call_result(const wg_engine_outcome *out)
{
    return out->status == WG_ENGINE_RAN ? ran(out) : not_ran(out);
}

json_t *wg_mcp__gate_check(wg_engine *e, const json_t *args, const wg_autonomy_request *a)
{
    const char *tool = json_string_value(json_object_get(args, "tool"));
    const json_t *targs = json_object_get(args, "args");
    if (!tool || !*tool)
        return wg_mcp__tool_error("gate_check needs \"tool\": the name of the tool to check");
    if (targs && !json_is_object(targs))
        return wg_mcp__tool_error("gate_check: \"args\" must be an object");
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = tool;
    call.args = targs;
    wg_engine_outcome o;
    int rc = wg_engine_check(e, &call, a, 0, &o);
    if (rc < 0)
        return wg_mcp__tool_error("gate_check: %s", wg_error_last());
    json_t *d = wg_engine_decision_json(&o.decision);
    json_object_set_new(d, "tool", json_string(tool));
    wg_engine_outcome_clear(&o);
    return text_result(json_dumps(d, JSON_COMPACT), 0, d);
}

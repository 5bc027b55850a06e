/* elicit.c - approvals asked through MCP elicitation (elicit.h). The form
 * asks one boolean so that a client's "accept" alone never means yes: the
 * person must tick approve. */
#include "mcp/elicit.h"
#include "waggle/types.h"

#include <stdio.h>
#include <string.h>

int wg_mcp__elicit_supported(const json_t *caps)
{
    const json_t *el = json_object_get(caps, "elicitation");
    if (!json_is_object(el))
        return 0;
    /* 2025-11-25: {} is form mode; {"url":{}} alone is URL mode only */
    return json_object_size(el) == 0 || json_object_get(el, "form") != NULL;
}

json_t *wg_mcp__elicit_params(const wg_engine_ask *a, const char *protocol)
{
    const wg_gate_decision *d = a->decision;
    char when[WG_TIME_ISO_MAX];
    wg_time_format_iso(when, a->expires_ms);
    char msg[1024];
    snprintf(msg, sizeof msg,
             "waggle: the agent wants to run %s, which needs your approval (%s, rule %s): %s\n"
             "Approval %s, open until %s.", a->tool, wg_approval_name(d->approval_class),
             d->rule, d->reason, a->approval_id, when);
    json_t *p = json_pack("{s:s,s:{s:s,s:{s:{s:s,s:s,s:s,s:b}},s:[s]}}", "message", msg,
                          "requestedSchema", "type", "object", "properties", "approve",
                          "type", "boolean", "title", "Approve this call",
                          "description", "Run the call now (leave unticked to refuse it)",
                          "default", 0, "required", "approve");
    if (p && protocol && strcmp(protocol, "2025-11-25") >= 0)
        json_object_set_new(p, "mode", json_string("form"));
    return p;
}

wg_engine_answer wg_mcp__elicit_answer(const json_t *result, const json_t *error)
{
    if (error || !result)
        return WG_ENGINE_ASK_DEFER;
    const char *action = json_string_value(json_object_get(result, "action"));
    if (!action)
        return WG_ENGINE_ASK_DENY;
    if (strcmp(action, "cancel") == 0)
        return WG_ENGINE_ASK_DEFER;
    if (strcmp(action, "accept") != 0)
        return WG_ENGINE_ASK_DENY;          /* "decline", or anything unknown */
    const json_t *content = json_object_get(result, "content");
    return json_is_object(content) && json_is_true(json_object_get(content, "approve"))
         ? WG_ENGINE_ASK_APPROVE : WG_ENGINE_ASK_DENY;
}

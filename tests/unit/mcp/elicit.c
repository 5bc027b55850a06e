/* elicit.c - approvals through MCP elicitation (src/mcp/elicit.h; MCP
 * 2025-11-25 "Elicitation"): the capability, the request, and what each
 * answer means - only an accepted, ticked form runs a call. */
#include <criterion/criterion.h>
#include <string.h>

#include "mcp/elicit.h"

static json_t *j(const char *text)
{
    json_t *v = json_loads(text, 0, NULL);
    cr_assert_not_null(v, "%s", text);
    return v;
}

static wg_engine_answer answer(const char *result)
{
    json_t *r = j(result);
    wg_engine_answer a = wg_mcp__elicit_answer(r, NULL);
    json_decref(r);
    return a;
}

Test(elicit, form_mode_is_what_the_client_declared)
{
    static const struct { const char *caps; int form; } rows[] = {
        { "{}", 0 },
        { "{\"elicitation\":{}}", 1 },
        { "{\"elicitation\":{\"form\":{}}}", 1 },
        { "{\"elicitation\":{\"form\":{},\"url\":{}}}", 1 },
        { "{\"elicitation\":{\"url\":{}}}", 0 },
        { "{\"elicitation\":true}", 0 },
        { "{\"sampling\":{}}", 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        json_t *c = j(rows[i].caps);
        cr_expect_eq(wg_mcp__elicit_supported(c), rows[i].form, "%s", rows[i].caps);
        json_decref(c);
    }
    cr_expect_eq(wg_mcp__elicit_supported(NULL), 0);
}

Test(elicit, only_an_accepted_ticked_form_approves)
{
    cr_expect_eq(answer("{\"action\":\"accept\",\"content\":{\"approve\":true}}"), WG_ENGINE_ASK_APPROVE);
    cr_expect_eq(answer("{\"action\":\"accept\",\"content\":{\"approve\":false}}"), WG_ENGINE_ASK_DENY);
    cr_expect_eq(answer("{\"action\":\"accept\",\"content\":{\"approve\":\"true\"}}"), WG_ENGINE_ASK_DENY);
    cr_expect_eq(answer("{\"action\":\"accept\"}"), WG_ENGINE_ASK_DENY);
    cr_expect_eq(answer("{\"action\":\"accept\",\"content\":[true]}"), WG_ENGINE_ASK_DENY);
    cr_expect_eq(answer("{\"action\":\"decline\"}"), WG_ENGINE_ASK_DENY);
    cr_expect_eq(answer("{\"action\":\"DECLINE\"}"), WG_ENGINE_ASK_DENY);
    cr_expect_eq(answer("{\"action\":\"yes\",\"content\":{\"approve\":true}}"), WG_ENGINE_ASK_DENY);
    cr_expect_eq(answer("{}"), WG_ENGINE_ASK_DENY);
    /* cancel, an error or no answer: nothing runs and the approval stays pending */
    cr_expect_eq(answer("{\"action\":\"cancel\"}"), WG_ENGINE_ASK_DEFER);
    json_t *e = j("{\"code\":-32601,\"message\":\"no\"}");
    cr_expect_eq(wg_mcp__elicit_answer(NULL, e), WG_ENGINE_ASK_DEFER);
    json_decref(e);
    cr_expect_eq(wg_mcp__elicit_answer(NULL, NULL), WG_ENGINE_ASK_DEFER);
}

Test(elicit, the_request_names_tool_rule_and_approval_and_asks_one_boolean)
{
    wg_gate_decision d = { 0 };
    d.needs_confirmation = 1;
    d.approval_class = WG_APPROVAL_ELEVATED;
    d.rule = "connector.write_verb";
    snprintf(d.reason, sizeof d.reason, "%s", "sends a message");
    wg_engine_ask a = { "0123456789abcdef0123456789abcdef", "connector_slack-mock_send_slack_message",
                        &d, 1767225600000LL };
    json_t *p = wg_mcp__elicit_params(&a, "2025-11-25");
    cr_assert_not_null(p);
    const char *msg = json_string_value(json_object_get(p, "message"));
    cr_expect(strstr(msg, "connector_slack-mock_send_slack_message"));
    cr_expect(strstr(msg, "connector.write_verb"));
    cr_expect(strstr(msg, "0123456789abcdef0123456789abcdef"));
    cr_expect(strstr(msg, "2026-01-01T00:00:00.000Z"));
    cr_expect_str_eq(json_string_value(json_object_get(p, "mode")), "form");
    json_t *schema = json_object_get(p, "requestedSchema");
    cr_expect_str_eq(json_string_value(json_object_get(schema, "type")), "object");
    json_t *approve = json_object_get(json_object_get(schema, "properties"), "approve");
    cr_expect_str_eq(json_string_value(json_object_get(approve, "type")), "boolean");
    cr_expect_eq(json_object_size(json_object_get(schema, "properties")), 1);
    json_decref(p);
    /* older revisions have no "mode" */
    p = wg_mcp__elicit_params(&a, "2025-06-18");
    cr_expect_null(json_object_get(p, "mode"));
    json_decref(p);
}

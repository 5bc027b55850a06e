/* engine.c - the HTTP face over the engine (waggle/engine.h): the agent
 * tools of spec 4 run through POST /api/tools/execute (they answered 404
 * before, although GET /api/tools offers them); connect writes an audit
 * row without the credential (issue 11); the operator's --max-autonomy
 * and --never-autopass (issue 11 "Risk honesty"); GET /api/approvals. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "server_test.h"

static wgt_server s;

static const char *const key_file[] = {
    "vault.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", NULL };

static void start_with(const char *max, const char *const *never)
{
    wgt_server_config cfg = { .files = key_file, .max_autonomy = max, .never_autopass = never };
    wgt_server_start(&s, &cfg);
}

static void start_plain(void) { start_with(NULL, NULL); }
static void stop(void) { wgt_server_stop(&s); }

static long long ahead(long long ms)
{
    return (long long)time(NULL) * 1000 + ms;
}

static size_t audit_rows(const char *event)
{
    char path[160];
    snprintf(path, sizeof path, "/api/audit?event=%s&limit=100", event);
    wgt_http_res r;
    wgt_http(&r, &s, "GET", path, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    size_t n = json_array_size(json_object_get(r.json, "events"));
    wgt_http_res_free(&r);
    return n;
}

TestSuite(engine_http, .init = start_plain, .fini = stop);

Test(engine_http, spec_4_agent_tools_run_through_tools_execute)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/tools/execute", "{\"tool\":\"list_connector_categories\"}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_true(json_object_get(json_object_get(r.json, "result"), "success")));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/tools/execute",
             "{\"tool\":\"find_connector\",\"args\":{\"query\":\"postgres database\"}}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_object(json_object_get(json_object_get(r.json, "result"), "data")), "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/tools/execute",
             "{\"tool\":\"acquire_capability\",\"args\":{\"need\":\"assess the risks of a project\"}}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    cr_assert_eq(audit_rows("capability_proposed"), 1, "spec 4: the acquire audit event");
    wgt_http(&r, &s, "POST", "/api/tools/execute",
             "{\"tool\":\"install_capability\",\"args\":{\"name\":\"risk-assessment\",\"source\":\"starter-pack\"}}");
    cr_assert_eq(r.status, 202, "install always asks: %s", r.body);
    wgt_http_res_free(&r);

    wgt_http(&r, &s, "GET", "/api/approvals", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *a = json_array_get(json_object_get(r.json, "approvals"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(a, "tool")), "install_capability");
    cr_assert_str_eq(json_string_value(json_object_get(a, "state")), "pending");
    wgt_http_res_free(&r);
}

Test(engine_http, issue_11_connect_and_disconnect_write_audit_rows_without_the_token)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/notion/connect", "{\"token\":\"secret_notiontoken0123\"}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/audit?event=connector_connected", NULL);
    json_t *ev = json_array_get(json_object_get(r.json, "events"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "actor")), "api");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(ev, "input"), "connectorId")), "notion");
    cr_assert_null(strstr(r.body, "secret_notiontoken"), "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/connectors/notion/disconnect", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    cr_assert_eq(audit_rows("connector_disconnected"), 1);
}

Test(engine_http, postgres_execute_auto_runs_at_yolo_unless_the_operator_says_never)
{
    /* the spec's YOLO rule, stated truthfully: a high-risk connector action
     * auto-passes at YOLO unless the operator lists it (docs/gate.md) */
    char body[256];
    snprintf(body, sizeof body, "{\"tool\":\"connector_postgres_execute\",\"args\":{\"sql\":\"DROP TABLE t\"},"
             "\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}", ahead(60000));
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/gate/check", body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_true(json_object_get(r.json, "autoApproved")), "%s", r.body);
    wgt_http_res_free(&r);
}

TestSuite(engine_operator);

Test(engine_operator, never_autopass_keeps_asking_at_yolo)
{
    static const char *const never[] = { "connector_postgres_execute", NULL };
    start_with(NULL, never);
    char body[256];
    snprintf(body, sizeof body, "{\"tool\":\"connector_postgres_execute\",\"args\":{\"sql\":\"DROP TABLE t\"},"
             "\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}", ahead(60000));
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/gate/check", body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_true(json_object_get(r.json, "needsConfirmation")), "%s", r.body);
    cr_assert(json_is_true(json_object_get(r.json, "critical")));
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "rule")), "operator.never_autopass");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/tools/execute", body);
    cr_assert_eq(r.status, 202, "it waits for a person: %s", r.body);
    wgt_http_res_free(&r);
    cr_assert_eq(audit_rows("approval_auto"), 0);
    stop();
}

Test(engine_operator, max_autonomy_trusted_lowers_a_yolo_request)
{
    start_with("trusted", NULL);
    char body[256];
    snprintf(body, sizeof body, "{\"tool\":\"connector_github_create_issue\",\"args\":{},"
             "\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}", ahead(60000));
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/gate/check", body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *a = json_object_get(r.json, "autonomy");
    cr_assert_str_eq(json_string_value(json_object_get(a, "applied")), "trusted", "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(a, "rule")), "autonomy.max_level");
    cr_assert(json_is_true(json_object_get(r.json, "needsConfirmation")), "trusted gates writes");
    wgt_http_res_free(&r);
    stop();
}

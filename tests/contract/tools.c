/* tools.c - GET /api/tools: the capability tools always, one
 * connector_<id>_<action> tool per action of each connected connector
 * (spec 8.2 generateTools; the demo connectors are always connected), the
 * four KVARK tools only when configured on TEAMS+ (spec 9), and kvark_action
 * running only after a person approves it (spec 14). */
#include <criterion/criterion.h>

#include "connect_replay.h"
#include "server_test.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "wgtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(tools, capability_tools_without_connections)
{
    wgt_server s;
    wgt_server_start(&s, NULL);
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/tools", NULL);
    cr_assert_eq(r.status, 200);
    json_t *tools = json_object_get(r.json, "tools");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(tools, 0), "name")),
                     "acquire_capability");
    cr_assert(json_is_object(json_object_get(json_array_get(tools, 0), "parameters")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r.json, "counts"), "connector")), 0);
    int find = 0;
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
        find |= strcmp(json_string_value(json_object_get(t, "name")), "find_connector") == 0;
    cr_assert(find, "find_connector is missing: %s", r.body);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
}

Test(tools, demo_connectors_contribute_tools)
{
    wgt_server s;
    wgt_server_config cfg = { .demo = 1 };
    wgt_server_start(&s, &cfg);
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/tools", NULL);
    cr_assert_eq(r.status, 200);
    int found = 0;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(r.json, "tools"), i, t)
        found |= strncmp(json_string_value(json_object_get(t, "name")), "connector_slack-mock_", 21) == 0;
    cr_assert(found, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
}

/* spec 9: the four KVARK tools are listed exactly when kvark:connection is
 * valid and the tier includes KVARK (TEAMS, ENTERPRISE, an active TRIAL). */
static void kvark_vault(const char *dir, const char *value)
{
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    wg_engine *e = NULL;
    cr_assert_eq(wg_engine_open(&e, &o), 0, "%s", wg_error_last());
    cr_assert_eq(wg_engine_vault_set(e, "kvark:connection", value, strlen(value), NULL, "test"), 0);
    wg_engine_free(e);
}

static long kvark_count(const wgt_server *s)
{
    wgt_http_res r;
    wgt_http(&r, s, "GET", "/api/tools", NULL);
    cr_assert_eq(r.status, 200);
    long n = (long)json_integer_value(json_object_get(json_object_get(r.json, "counts"), "kvark"));
    long named = 0;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(r.json, "tools"), i, t)
        named += strncmp(json_string_value(json_object_get(t, "name")), "kvark_", 6) == 0;
    cr_assert_eq(named, n, "%s", r.body);
    wgt_http_res_free(&r);
    return n;
}

Test(tools, spec_9_kvark_tools_only_when_configured_on_enterprise)
{
    char *dir = wgt_tmpdir();
    wgt_server s;
    wgt_server_config cfg = { .data_dir = dir };
    wgt_server_start(&s, &cfg);
    wgt_server_config_json(&s, "{\"tier\":\"ENTERPRISE\"}");
    cr_assert_eq(kvark_count(&s), 0);
    kvark_vault(dir, "{\"baseUrl\":\"https://kvark.corp.example\",\"identifier\":\"me\","
                     "\"password\":\"pw\"}");
    cr_assert_eq(kvark_count(&s), 4);
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/marketplace/enterprise-packs", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(json_is_false(json_object_get(r.json, "kvarkRequired")), "%s", r.body);
    cr_assert_gt(json_integer_value(json_object_get(r.json, "total")), 0);
    wgt_http_res_free(&r);
    wgt_server_config_json(&s, "{\"tier\":\"PRO\"}");
    cr_assert_eq(kvark_count(&s), 0);
    wgt_server_config_json(&s, "{\"tier\":\"TEAMS\"}");
    cr_assert_eq(kvark_count(&s), 4);
    /* a value the original would have taken: not a configuration */
    kvark_vault(dir, "https://kvark.corp.example");
    cr_assert_eq(kvark_count(&s), 0);
    wgt_server_config_json(&s, "{\"tier\":\"ENTERPRISE\"}");
    wgt_http(&r, &s, "GET", "/api/marketplace/enterprise-packs", NULL);
    cr_assert(json_is_true(json_object_get(r.json, "kvarkRequired")), "%s", r.body);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
    wgt_rmtree(dir);
    free(dir);
}

/* spec 14: "ENTERPRISE user, KVARK configured, agent calls kvark_action ->
 * governed action runs after approval, with audit ref" - over HTTP, against
 * a loopback KVARK: nothing is sent until a person approves, then it is sent
 * once with governance.userApproved true. */
Test(tools, spec_14_kvark_action_runs_after_approval_with_its_audit_ref)
{
    wgt_replay *up = wgt_replay_start();
    cr_assert_not_null(up);
    char *dir = wgt_tmpdir();
    char v[512];
    snprintf(v, sizeof v, "{\"baseUrl\":\"%s\",\"identifier\":\"me\",\"password\":\"pw-123456\"}",
             wgt_replay_base(up));
    kvark_vault(dir, v);
    wgt_server s;
    wgt_server_config cfg = { .data_dir = dir, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1 };
    wgt_server_start(&s, &cfg);
    wgt_server_config_json(&s, "{\"tier\":\"ENTERPRISE\"}");
    json_t *none = json_array();
    wgt_replay_expect(up, none);
    json_decref(none);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/tools/execute",
             "{\"tool\":\"kvark_action\",\"args\":{\"action_type\":\"slack.post\",\"entity_type\":"
             "\"channel\",\"entity_id\":\"C01\",\"payload\":{\"text\":\"hi\"},\"reason\":\"asked\"}}");
    cr_assert_eq(r.status, 202, "%s", r.body);
    char id[64];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(r.json, "approvalId")));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r.json, "decision"),
                                                       "approvalClass")), "elevated");
    wgt_http_res_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "sent before the approval");
    char ex[2048];
    snprintf(ex, sizeof ex,
             "[{\"request\":{\"method\":\"POST\",\"uri\":\"/api/auth/login\",\"body\":{\"identifier\":"
             "\"me\",\"password\":\"pw-123456\"}},\"response\":{\"status\":200,\"body\":{\"success\":"
             "true,\"access_token\":\"tok-9\",\"token_type\":\"bearer\"}}},"
             "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/actions\",\"headers\":{\"Authorization\":"
             "\"Bearer tok-9\"},\"body\":{\"actionType\":\"slack.post\",\"target\":{\"entityType\":"
             "\"channel\",\"entityId\":\"C01\"},\"payload\":{\"text\":\"hi\"},\"governance\":"
             "{\"userApproved\":true,\"approvalReference\":\"%s\"},\"context\":{\"reason\":\"asked\"}}},"
             "\"response\":{\"status\":200,\"body\":{\"ok\":true,\"data\":{\"status\":\"queued\","
             "\"actionId\":\"a-1\",\"auditRef\":\"aud-7\"},\"error\":null}}}]", id);
    json_t *exj = json_loads(ex, 0, NULL);
    cr_assert_not_null(exj);
    wgt_replay_expect(up, exj);
    json_decref(exj);
    char path[128];
    snprintf(path, sizeof path, "/api/approval/%s", id);
    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "Audit reference: aud-7"), "%s", r.body);
    cr_assert(strstr(r.body, "queued for execution"), "%s", r.body);
    wgt_http_res_free(&r);
    const char *verdict = wgt_replay_verdict(up);
    cr_assert_null(verdict, "%s", verdict);
    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_neq(r.status, 200, "an approval runs once: %s", r.body);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
    wgt_replay_stop(up);
    wgt_rmtree(dir);
    free(dir);
}

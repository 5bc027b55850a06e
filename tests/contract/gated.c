/* gated.c - what the spec 10 gated routes do once the plan allows them
 * (ENTERPRISE here): personas, marketplace install/publish with trust,
 * enterprise packs without KVARK, cost by workspace, cloud sync, admin
 * overview, team connect (token never echoed), governance matrix. */
#include <criterion/criterion.h>

#include "server_test.h"
#include "wgtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wgt_server s;

static void setup(void)
{
    static const char *const files[] = {
        "config.json", "{\"tier\":\"ENTERPRISE\"}",
        "marketplace/ops-pack/pack.json",
        "{\"name\":\"ops-pack\",\"description\":\"Ops helpers\",\"skills\":[\"deploy-check\",\"incident-notes\"]}",
        "marketplace/ops-pack/deploy-check.md", "# Deploy check\nRun bash ./deploy.sh and curl the health URL.\n",
        "marketplace/ops-pack/incident-notes.md", "# Incident notes\nWrite a timeline of the incident.\n",
        "skills/my-style.md", "# My style\nShort sentences.\n",
        NULL,
    };
    wgt_server_config cfg = { .files = files };
    wgt_server_start(&s, &cfg);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(gated, .init = setup, .fini = teardown);

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

Test(gated, personas_create_then_listed_and_conflict)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/personas",
             "{\"name\":\"Release Captain\",\"description\":\"Ships releases\",\"tools\":[\"git_status\",\"git_log\"]}");
    cr_assert_eq(r.status, 201, "%s", r.body);
    json_t *p = json_object_get(r.json, "persona");
    cr_assert_str_eq(str(p, "id"), "release-captain");
    cr_assert(json_is_true(json_object_get(p, "custom")));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/personas", NULL);
    cr_assert_eq(r.status, 200);
    json_t *all = json_object_get(r.json, "personas");
    cr_assert_str_eq(str(json_array_get(all, json_array_size(all) - 1), "id"), "release-captain");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/personas", "{\"name\":\"release captain\",\"tools\":[]}");
    cr_assert_eq(r.status, 409);
    wgt_http_res_free(&r);
}

Test(gated, personas_create_validates_fields)
{
    static const struct { const char *body, *field; } cases[] = {
        { "{\"tools\":[]}", "name" },
        { "{\"name\":\"x\",\"tools\":\"bash\"}", "tools" },
        { "{\"name\":\"x\",\"tools\":[\"../../etc\"]}", "tools" },
        { "{\"name\":\"x\",\"tools\":[\"bash\"],\"readOnly\":true}", "tools" },
        { "{\"name\":\"x\",\"tools\":[],\"readOnly\":\"yes\"}", "readOnly" },
        { "{\"name\":\"planner\",\"tools\":[]}", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wgt_http_res r;
        wgt_http(&r, &s, "POST", "/api/personas", cases[i].body);
        if (cases[i].field) {
            cr_expect_eq(r.status, 400, "%s -> %ld", cases[i].body, r.status);
            cr_expect(strstr(str(r.json, "message"), cases[i].field) != NULL, "%s: %s", cases[i].body, r.body);
        } else {
            cr_expect_eq(r.status, 409, "built-in id: %ld", r.status);
        }
        wgt_http_res_free(&r);
    }
}

Test(gated, personas_generate_read_only_has_no_write_tools)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/personas/generate",
             "{\"description\":\"A read-only reviewer that checks code changes\"}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *p = json_object_get(r.json, "persona");
    cr_assert(json_is_true(json_object_get(p, "readOnly")));
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(p, "tools"), i, t) {
        cr_assert_str_neq(json_string_value(t), "write_file");
        cr_assert_str_neq(json_string_value(t), "bash");
    }
    cr_assert_gt(json_array_size(json_object_get(p, "tools")), 2);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/personas/generate", "{\"description\":\"write code and fix bugs\"}");
    int has_bash = 0;
    json_array_foreach(json_object_get(json_object_get(r.json, "persona"), "tools"), i, t)
        has_bash |= strcmp(json_string_value(t), "bash") == 0;
    cr_assert(has_bash);
    wgt_http_res_free(&r);
}

Test(gated, marketplace_install_copies_skills_with_trust_then_409)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/marketplace/install", "{\"name\":\"ops-pack\"}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *inst = json_object_get(r.json, "installed");
    cr_assert_eq(json_array_size(inst), 2);
    json_t *trust = json_object_get(json_array_get(inst, 0), "trust");
    cr_assert_str_eq(str(trust, "trustSource"), "third_party_unverified");
    cr_assert(json_is_true(json_object_get(json_object_get(trust, "permissions"), "codeExecution")));
    char path[4096];
    snprintf(path, sizeof path, "%s/skills/deploy-check.md", s.dir);
    char *text = wgt_read_file(path);
    cr_assert_not_null(text);
    free(text);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/marketplace/install", "{\"name\":\"ops-pack\"}");
    cr_assert_eq(r.status, 409);
    wgt_http_res_free(&r);
}

Test(gated, marketplace_install_unknown_or_traversal)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/marketplace/install", "{\"name\":\"nope\"}");
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/marketplace/install", "{\"name\":\"../skills\"}");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(str(r.json, "field"), "name");
    wgt_http_res_free(&r);
}

Test(gated, marketplace_publish_then_listed)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/marketplace/publish", "{\"name\":\"my-style\",\"description\":\"House style\"}");
    cr_assert_eq(r.status, 201, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/marketplace", NULL);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "total")), 2);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/marketplace/publish", "{\"name\":\"my-style\"}");
    cr_assert_eq(r.status, 409);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/marketplace/publish", "{\"name\":\"ghost\"}");
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
}

Test(gated, enterprise_packs_without_kvark_say_kvark_required)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/marketplace/enterprise-packs", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(json_is_true(json_object_get(r.json, "kvarkRequired")));
    cr_assert_eq(json_array_size(json_object_get(r.json, "packs")), 0);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "total")), 0);
    cr_assert_str_eq(str(r.json, "hint"),
        "Enterprise packs require a KVARK connection. Configure KVARK credentials in the vault to unlock.");
    wgt_http_res_free(&r);
}

Test(gated, cost_events_sum_by_workspace)
{
    static const char *const evs[] = {
        "{\"workspaceId\":\"a\",\"costUsd\":0.5,\"inputTokens\":100}",
        "{\"workspaceId\":\"b\",\"costUsd\":2}",
        "{\"workspaceId\":\"a\",\"costUsd\":0.25,\"outputTokens\":7}",
    };
    for (size_t i = 0; i < 3; i++) {
        wgt_http_res r;
        wgt_http(&r, &s, "POST", "/api/cost/events", evs[i]);
        cr_assert_eq(r.status, 201, "%s", r.body);
        wgt_http_res_free(&r);
    }
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/cost/by-workspace", NULL);
    cr_assert_eq(r.status, 200);
    json_t *a = json_array_get(json_object_get(r.json, "workspaces"), 0);
    cr_assert_str_eq(str(a, "workspaceId"), "a");
    cr_assert_eq(json_integer_value(json_object_get(a, "events")), 2);
    cr_assert_float_eq(json_number_value(json_object_get(a, "costUsd")), 0.75, 1e-9);
    cr_assert_eq(json_integer_value(json_object_get(a, "inputTokens")), 100);
    cr_assert_float_eq(json_number_value(json_object_get(r.json, "totalCostUsd")), 2.75, 1e-9);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/cost/events", "{\"workspaceId\":\"a\",\"costUsd\":\"1\"}");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(str(r.json, "field"), "costUsd");
    wgt_http_res_free(&r);
}

Test(gated, cloud_sync_toggle_persists)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/cloud-sync/toggle", "{\"enabled\":true}");
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(r.body, "{\"cloudSync\":{\"enabled\":true}}");
    wgt_http_res_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", s.dir);
    json_t *cfg = json_load_file(path, 0, NULL);
    cr_assert(json_is_true(json_object_get(json_object_get(cfg, "cloudSync"), "enabled")));
    cr_assert_str_eq(str(cfg, "tier"), "ENTERPRISE");   /* other settings kept */
    json_decref(cfg);
    wgt_http(&r, &s, "POST", "/api/cloud-sync/toggle", "{\"enabled\":1}");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(str(r.json, "field"), "enabled");
    wgt_http_res_free(&r);
}

Test(gated, admin_overview_counts)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/admin/overview", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_gt(json_integer_value(json_object_get(json_object_get(r.json, "connectors"), "total")), 0);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "skills")), 1);
    cr_assert(json_is_integer(json_object_get(r.json, "plugins")));
    wgt_http_res_free(&r);
}

Test(gated, team_connect_never_echoes_the_token)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/team/connect",
             "{\"serverUrl\":\"https://team.example\",\"token\":\"tok-SECRET-123\"}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_null(strstr(r.body, "tok-SECRET-123"));
    cr_assert_str_eq(r.body, "{\"connected\":true,\"serverUrl\":\"https://team.example\"}");
    wgt_http_res_free(&r);
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", s.dir);
    char *cfg = wgt_read_file(path);
    cr_assert_null(strstr(cfg, "tok-SECRET-123"));
    free(cfg);
    wgt_http(&r, &s, "POST", "/api/team/connect", "{\"serverUrl\":\"javascript:alert(1)\",\"token\":\"x\"}");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(str(r.json, "field"), "serverUrl");
    wgt_http_res_free(&r);
}

Test(gated, governance_matrix_marks_planner_read_only)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/team/governance/permissions", NULL);
    cr_assert_eq(r.status, 200);
    json_t *rows = json_object_get(r.json, "personas");
    size_t i;
    json_t *row;
    int seen = 0;
    json_array_foreach(rows, i, row) {
        if (strcmp(str(row, "id"), "planner") != 0)
            continue;
        seen = 1;
        cr_assert(json_is_true(json_object_get(row, "readOnly")));
        cr_assert(json_is_false(json_object_get(json_object_get(row, "allowed"), "install_capability")));
        cr_assert(json_is_true(json_object_get(json_object_get(row, "allowed"), "show_plan")));
    }
    cr_assert(seen);
    wgt_http_res_free(&r);
}

Test(gated, audit_export_json_and_csv)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/cloud-sync/toggle", "{\"enabled\":true}");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/team/connect", "{\"serverUrl\":\"https://t.example\",\"token\":\"=cmd|' /C calc'!A0\"}");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/admin/audit-export", "{}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(str(r.json, "format"), "json");
    cr_assert(json_is_array(json_object_get(r.json, "events")));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/admin/audit-export", "{\"format\":\"csv\"}");
    cr_assert_eq(r.status, 200);
    char *ct = wgt_http_header(&r, "Content-Type");
    cr_assert_str_eq(ct, "text/csv; charset=utf-8");
    free(ct);
    char *cd = wgt_http_header(&r, "Content-Disposition");
    cr_assert_not_null(cd);
    free(cd);
    cr_assert_eq(strncmp(r.body, "\"id\",\"ts\",\"event\"", 17), 0, "%s", r.body);
    cr_assert_null(strstr(r.body, "calc"), "the team token reached the audit export");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/admin/audit-export", "{\"format\":\"xml\"}");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(str(r.json, "field"), "format");
    wgt_http_res_free(&r);
}

Test(gated, overview_counts_audit_rows)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/admin/audit-export", "{}");   /* writes one row */
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/admin/overview", NULL);
    cr_assert_geq(json_integer_value(json_object_get(r.json, "auditEvents")), 1);
    cr_assert(json_is_integer(json_object_get(r.json, "poolKeys")));
    wgt_http_res_free(&r);
}

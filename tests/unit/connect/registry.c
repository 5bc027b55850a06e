/* registry.c - the connector registry (spec 8.2): status from the vault,
 * tool generation, risk lookup from the registry's own table, demo
 * connectors, disconnect clearing state, and failures returned as
 * {success:false} (reference 13 items 10, 17, 18). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "connect_fixture.h"

static wgt_connect f;

static void setup(void) { wgt_connect_open(&f, NULL, NULL, 1); }
static void teardown(void) { wgt_connect_close(&f); }

TestSuite(connect_registry, .init = setup, .fini = teardown);

Test(connect_registry, builtins_and_demo_ids_are_registered)
{
    static const char *const ids[] = { "github", "slack", "jira", "email", "discord", "linear",
                                       "notion", "obsidian", "gitlab", "postgres", "slack-mock",
                                       "teams-mock", "discord-mock" };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        cr_assert_not_null(wg_registry_get(f.reg, ids[i]), "%s missing", ids[i]);
    cr_assert_null(wg_registry_get(f.reg, "ms-teams-mock"));
}

Test(connect_registry, demo_connectors_are_connected_and_say_so)
{
    cr_assert(wg_registry_is_connected(f.reg, "teams-mock"));
    cr_assert(!wg_registry_is_connected(f.reg, "github"));
    wgt_connect_call(&f, "connector_slack-mock_send_slack_message", "{\"channel\":\"#x\",\"message\":\"hi\"}");
    json_t *d = json_object_get(f.last, "data");
    cr_assert(json_is_true(json_object_get(d, "demo")));
    cr_assert_str_eq(json_string_value(json_object_get(d, "message")), "[DEMO] hi");
}

Test(connect_registry, connected_lists_demo_and_credentialed_ids)
{
    wg_connect_request req = { .token = "t0ken-value-123" };
    cr_assert_eq(wg_registry_connect(f.reg, "notion", &req), 0);
    json_t *ids = NULL;
    cr_assert_eq(wg_registry_connected(&ids, f.reg), 0);
    char *s = json_dumps(ids, JSON_COMPACT);
    cr_assert_str_eq(s, "[\"notion\",\"slack-mock\",\"teams-mock\",\"discord-mock\"]");
    free(s);
    json_decref(ids);
}

Test(connect_registry, no_demo_without_the_flag)
{
    wgt_connect g;
    wgt_connect_open(&g, NULL, NULL, 0);
    cr_assert_null(wg_registry_get(g.reg, "slack-mock"));
    wgt_connect_close(&g);
}

Test(connect_registry, tools_only_for_connected_connectors)
{
    json_t *tools = NULL;
    cr_assert_eq(wg_registry_tools(&tools, f.reg), 0);
    cr_assert_eq(json_array_size(tools), 6, "only the demo tools");
    json_decref(tools);
    wg_connect_request req = { .token = "t0ken-value-123" };
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), 0);
    cr_assert_eq(wg_registry_tools(&tools, f.reg), 0);
    cr_assert_eq(json_array_size(tools), 13);
    json_t *t = json_array_get(tools, 0);
    cr_assert_str_eq(json_string_value(json_object_get(t, "name")), "connector_github_list_repos");
    cr_assert_str_eq(json_string_value(json_object_get(t, "description")),
                     "[GitHub] List repositories of the authenticated user");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(t, "parameters"), "type")), "object");
    json_decref(tools);
}

Test(connect_registry, risk_comes_from_the_table_only)
{
    wg_risk_level r;
    cr_assert_eq(wg_registry_action_risk(&r, f.reg, "connector_github_create_issue"), 0);
    cr_assert_eq(r, WG_RISK_MEDIUM);
    cr_assert_eq(wg_registry_action_risk(&r, f.reg, "connector_postgres_execute"), 0);
    cr_assert_eq(r, WG_RISK_HIGH);
    cr_assert_eq(wg_registry_action_risk(&r, f.reg, "connector_github_nope"), WG_ENOTFOUND);
    cr_assert_eq(wg_registry_action_risk(&r, f.reg, "bash"), WG_ENOTFOUND);
}

Test(connect_registry, failures_are_results_not_crashes)
{
    wgt_connect_call(&f, "connector_github_list_repos", "{}");
    cr_assert(strstr(wgt_connect_error(&f), "Not connected"));
    wg_connect_request req = { .token = "t0ken-value-123" };
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), 0);
    wgt_connect_call(&f, "connector_github_list_issues", "{\"owner\":\"a\"}");
    cr_assert_str_eq(wgt_connect_error(&f), "Missing required parameter: repo");
    wgt_connect_call(&f, "connector_github_list_issues", "{\"owner\":\"a\",\"repo\":7}");
    cr_assert_str_eq(wgt_connect_error(&f), "Parameter repo must be of type string");
    wgt_connect_call(&f, "connector_github_frobnicate", "{}");
    cr_assert_str_eq(wgt_connect_error(&f), "Unknown action: frobnicate");
    json_t *out = NULL;
    cr_assert_eq(wg_registry_execute(&out, f.reg, "connector_nope_x", json_object()), WG_ENOTFOUND);
    cr_assert(json_is_false(json_object_get(out, "success")));
    json_decref(out);
}

Test(connect_registry, expiry_past_or_unreadable_means_expired)
{
    wg_connect_request req = { .token = "t0ken-value-123", .expires_at = "2001-01-01T00:00:00Z" };
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), 0);
    cr_assert_str_eq(wg_registry_status(f.reg, "github"), "expired");
    wgt_connect_call(&f, "connector_github_list_repos", "{}");
    cr_assert(strstr(wgt_connect_error(&f), "expired"));
    /* a value that slipped into the vault unparsed counts as expired too */
    json_t *meta = json_pack("{s:s,s:s}", "credentialType", "bearer", "expiresAt", "soon-ish");
    f.vault->set(f.vault->ctx, "connector:github", "t0ken-value-123", meta);
    json_decref(meta);
    cr_assert_str_eq(wg_registry_status(f.reg, "github"), "expired");
    req.expires_at = "not a date";
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), WG_EINVAL);
    req.expires_at = "2999-01-01T00:00:00.000Z";
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), 0);
    cr_assert_str_eq(wg_registry_status(f.reg, "github"), "connected");
}

Test(connect_registry, connect_refuses_control_characters_and_bad_urls)
{
    wg_connect_request req = { .token = "abc\r\nX-Evil: 1" };
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), WG_EINVAL);
    req.token = "fine-token";
    req.base_url = "file:///etc/passwd";
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), WG_EINVAL);
    req.base_url = "https://user@evil.example";
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), WG_EINVAL);
    cr_assert_eq(wg_registry_connect(f.reg, "nope", &req), WG_ENOTFOUND);
    cr_assert_str_eq(wg_registry_status(f.reg, "github"), "disconnected");
}

Test(connect_registry, disconnect_clears_vault_and_memory)
{
    wg_connect_request req = { .token = "t0ken-value-123", .email = "me@x.com",
                               .base_url = "http://127.0.0.1:9", .refresh_token = "r" };
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), 0);
    json_t *h = NULL;
    wg_registry_health(&h, f.reg, "github");     /* probe fails: nothing listens */
    json_decref(h);
    json_t *d = NULL;
    cr_assert_eq(wg_registry_disconnect(&d, f.reg, "github"), 0);
    cr_assert(json_is_true(json_object_get(d, "disconnected")));
    cr_assert_eq(json_integer_value(json_object_get(d, "cleanedKeys")), 3);
    json_decref(d);
    cr_assert_str_eq(wg_registry_status(f.reg, "github"), "disconnected");
    cr_assert_eq(wg_registry_health(&h, f.reg, "github"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(h, "status")), "disconnected");
    json_decref(h);
    wgt_connect_call(&f, "connector_github_list_repos", "{}");
    cr_assert(strstr(wgt_connect_error(&f), "Not connected"));
}

Test(connect_registry, credential_stored_elsewhere_is_used_after_restart)
{
    /* another process (the CLI) wrote the credential: no connect() call here */
    json_t *meta = json_pack("{s:s}", "credentialType", "bearer");
    f.vault->set(f.vault->ctx, "connector:github", "t0ken-value-123", meta);
    json_decref(meta);
    cr_assert_str_eq(wg_registry_status(f.reg, "github"), "connected");
    f.vault->set(f.vault->ctx, "connector:github:base_url", "http://127.0.0.1:9", NULL);
    wgt_connect_call(&f, "connector_github_list_repos", "{}");
    cr_assert_null(strstr(wgt_connect_error(&f), "Not connected"), "%s", wgt_connect_error(&f));
}

Test(connect_registry, unknown_health_is_not_found_and_failed_probe_is_sanitized)
{
    json_t *h = NULL;
    cr_assert_eq(wg_registry_health(&h, f.reg, "nope"), WG_ENOTFOUND);
    wg_connect_request req = { .token = "secret-token-abcdef", .base_url = "http://127.0.0.1:9" };
    cr_assert_eq(wg_registry_connect(f.reg, "github", &req), 0);
    cr_assert_eq(wg_registry_health(&h, f.reg, "github"), WG_EUPSTREAM);
    cr_assert_str_eq(json_string_value(json_object_get(h, "status")), "error");
    char *dump = json_dumps(h, 0);
    cr_assert_null(strstr(dump, "secret-token"));
    free(dump);
    json_decref(h);
}

static int record(void *ctx, const json_t *entry)
{
    return json_array_append((json_t *)ctx, (json_t *)entry);
}

static int refuse(void *ctx, const json_t *entry)
{
    (void)ctx;
    (void)entry;
    return WG_ESTORE;
}

Test(connect_registry, every_execution_is_audited_and_audit_failure_stops_it)
{
    json_t *log = json_array();
    wg_connect_audit a = { WG_CONNECT_AUDIT_VERSION, log, record };
    wg_registry *reg = NULL;
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = f.vault, .audit = &a, .demo = 1 };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    json_t *args = json_pack("{s:s,s:s}", "channel", "#x", "message", "hi"), *out = NULL;
    cr_assert_eq(wg_registry_execute(&out, reg, "connector_teams-mock_send_teams_message", args), 0);
    json_decref(out);
    cr_assert_eq(wg_registry_execute(&out, reg, "connector_teams-mock_list_teams_channels", args), 0);
    json_decref(out);
    cr_assert_eq(json_array_size(log), 2);
    json_t *e = json_array_get(log, 0);
    cr_assert_str_eq(json_string_value(json_object_get(e, "actionType")),
                     "connector.teams-mock.send_teams_message");
    cr_assert(json_is_true(json_object_get(e, "requiresApproval")));
    cr_assert(json_is_false(json_object_get(json_array_get(log, 1), "requiresApproval")));
    char *dump = json_dumps(log, 0);
    cr_assert_null(strstr(dump, "hi\""), "argument values are not audited");
    free(dump);
    wg_registry_free(reg);

    wg_connect_audit bad = { WG_CONNECT_AUDIT_VERSION, NULL, refuse };
    o.audit = &bad;
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    cr_assert_eq(wg_registry_execute(&out, reg, "connector_teams-mock_send_teams_message", args), 0);
    cr_assert(strstr(json_string_value(json_object_get(out, "error")), "audit log unavailable"));
    json_decref(out);
    wg_registry_free(reg);
    json_decref(args);
    json_decref(log);
}

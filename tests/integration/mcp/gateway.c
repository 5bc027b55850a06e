/* gateway.c - the MCP gateway (src/mcp/gateway.h) as the engine's tool
 * provider, against the fixture server (tests/fixtures/mcp_upstream.c) on
 * real pipes and a real engine on a temporary data dir: the prefixed
 * listing, a read-only tool runs at normal, a write asks and runs once
 * approved, a shell-like argument goes through the bash gate, a vault: env
 * value reaches the child (and its vault_read is audited), a crash is a
 * failed call with the reason and the server comes back, a url server
 * nobody answers is reported down with the reason (tests/integration/mcp/
 * uphttp.c speaks to a live one), and a name that cannot be a prefix is
 * refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/gateway.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "wgtest.h"

static char *dir;

static void setup(void)
{
    dir = wgt_tmpdir();
    wgt_write_file(dir, "vault.key",
                   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
}

static void teardown(void)
{
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(gateway, .init = setup, .fini = teardown, .timeout = 120);

static wg_engine *engine(void)
{
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    wg_engine *e = NULL;
    cr_assert_eq(wg_engine_open(&e, &o), 0, "%s", wg_error_last());
    return e;
}

static wg_gateway *start(wg_engine *e, const char *json)
{
    wg_gw_config cfg;
    cr_assert_eq(wg_mcp__gw_config_parse(&cfg, json, strlen(json)), 0, "%s", wg_error_last());
    wg_gateway_options go = { .stderr_fd = -1, .backoff_min_ms = 10, .backoff_max_ms = 40 };
    wg_gateway *g = NULL;
    cr_assert_eq(wg_mcp__gateway_start(&g, e, &cfg, &go), 0, "%s", wg_error_last());
    wg_mcp__gw_config_free(&cfg);
    wg_mcp__gateway_wait(g, 20000);
    return g;
}

static char *fixture_config(void)
{
    char *s = malloc(4096);
    cr_assert(s);
    cr_assert(snprintf(s, 4096, "{\"mcpServers\":{\"fx\":{\"command\":\"%s\",\"env\":{\"GW_TOKEN\":"
                       "\"vault:gw-token\"}},\"far\":{\"url\":\"http://127.0.0.1:1/mcp\"}}}",
                       WG_MCP_FIXTURE) < 4096);
    return s;
}

static int exec(wg_engine *e, const char *tool, const char *args, wg_autonomy level,
                wg_engine_outcome *out)
{
    json_t *a = args ? json_loads(args, 0, NULL) : NULL;
    wg_engine_call c = WG_ENGINE_CALL_INIT;
    c.tool = tool;
    c.args = a;
    wg_autonomy_request rq = WG_AUTONOMY_REQUEST_INIT;
    rq.level = level;
    rq.standing = 1;
    int rc = wg_engine_execute(e, &c, &rq, NULL, out);
    json_decref(a);
    return rc;
}

static const char *text_of(const wg_engine_outcome *o)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(o->result, "content"), 0),
                                             "text"));
}

static void put_secret(wg_engine *e)
{
    static const char v[] = "vault-value-for-the-child";
    cr_assert_eq(wg_engine_vault_set(e, "gw-token", v, strlen(v), NULL, "test"), 0, "%s",
                 wg_error_last());
}

Test(gateway, lists_runs_and_gates)
{
    wg_engine *e = engine();
    put_secret(e);
    char *cfg = fixture_config();
    wg_gateway *g = start(e, cfg);
    free(cfg);

    json_t *tools = NULL;
    cr_assert_eq(wg_engine_tools(&tools, NULL, e, WG_ENGINE_TOOLS_PROVIDERS), 0);
    cr_expect_geq(json_array_size(tools), 10);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(tools, 0), "name")), "fx__echo");
    json_decref(tools);

    wg_engine_outcome o;
    /* echo is annotated readOnlyHint: it runs at normal */
    cr_assert_eq(exec(e, "fx__echo", "{\"text\":\"hi\"}", WG_AUTONOMY_NORMAL, &o), 0, "%s",
                 wg_error_last());
    cr_expect_eq(o.status, WG_ENGINE_RAN);
    cr_expect_str_eq(o.decision.rule, "gateway.annotation.read_only");
    cr_expect_str_eq(text_of(&o), "hi");
    wg_engine_outcome_clear(&o);

    /* add has a write verb: it asks, and runs once approved */
    cr_assert_eq(exec(e, "fx__add", "{\"a\":2,\"b\":3}", WG_AUTONOMY_NORMAL, &o), 0);
    cr_expect_eq(o.status, WG_ENGINE_PENDING);
    cr_expect_str_eq(o.decision.rule, "gateway.verb.write");
    wg_engine_outcome a;
    cr_assert_eq(wg_engine_approve(e, o.approval_id, 1, NULL, &a), 0, "%s", wg_error_last());
    cr_expect_eq(a.status, WG_ENGINE_RAN);
    cr_expect_str_eq(text_of(&a), "5");
    wg_engine_outcome_clear(&a);
    wg_engine_outcome_clear(&o);

    /* a read-only tool carrying a never-autopass command still asks at yolo */
    cr_assert_eq(exec(e, "fx__echo", "{\"command\":\"sudo rm -rf /\"}", WG_AUTONOMY_YOLO, &o), 0);
    cr_expect_eq(o.status, WG_ENGINE_PENDING);
    cr_expect(o.decision.critical);
    wg_engine_outcome_clear(&o);

    /* a tool that may write, given a path to a file that runs code or to the
     * system itself: never-autopass, nothing runs at yolo */
    static const char *const guarded[] = {
        "{\"a\":1,\"path\":\"~/.bashrc\"}", "{\"a\":1,\"destination\":\"/root/.ssh/authorized_keys\"}",
        "{\"a\":1,\"paths\":[\"ok.txt\",\".git/hooks/pre-push\"]}", "{\"a\":1,\"path\":\"/etc/../etc/passwd\"}",
        "{\"a\":1,\"file_path\":\"/dev/sda\"}",
    };
    for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
        cr_assert_eq(exec(e, "fx__add", guarded[i], WG_AUTONOMY_YOLO, &o), 0);
        cr_expect_eq(o.status, WG_ENGINE_PENDING, "%s", guarded[i]);
        cr_expect(o.decision.critical, "%s", guarded[i]);
        cr_expect(!strncmp(o.decision.rule, "gateway.write_", 14), "%s: %s", guarded[i], o.decision.rule);
        wg_engine_outcome_clear(&o);
    }
    /* an ordinary path runs at yolo; a read-only tool's path is not a write */
    cr_assert_eq(exec(e, "fx__add", "{\"a\":1,\"b\":2,\"path\":\"notes/today.md\"}", WG_AUTONOMY_YOLO, &o), 0);
    cr_expect_eq(o.status, WG_ENGINE_RAN);
    wg_engine_outcome_clear(&o);
    cr_assert_eq(exec(e, "fx__echo", "{\"text\":\"x\",\"path\":\"~/.bashrc\"}", WG_AUTONOMY_NORMAL, &o), 0);
    cr_expect_eq(o.status, WG_ENGINE_RAN);
    wg_engine_outcome_clear(&o);

    /* the env tool (unknown verb: asks) at yolo shows the vault value reached the child */
    cr_assert_eq(exec(e, "fx__env", "{\"name\":\"GW_TOKEN\"}", WG_AUTONOMY_YOLO, &o), 0);
    cr_expect_eq(o.status, WG_ENGINE_RAN);
    cr_expect_str_eq(text_of(&o), "vault-value-for-the-child");
    wg_engine_outcome_clear(&o);

    json_t *st = wg_mcp__gateway_status(g);
    cr_assert_eq(json_array_size(st), 2);
    json_t *fx = json_array_get(st, 0), *far = json_array_get(st, 1);
    cr_expect_str_eq(json_string_value(json_object_get(fx, "state")), "healthy");
    cr_expect(json_is_true(json_object_get(fx, "healthy")));
    cr_expect_geq(json_integer_value(json_object_get(fx, "tools")), 10);
    /* nothing listens on port 1: the url server is down, and says why */
    const char *far_state = json_string_value(json_object_get(far, "state"));
    cr_expect(!strcmp(far_state, "failed") || !strcmp(far_state, "restarting") ||
              !strcmp(far_state, "starting"), "%s", far_state);
    cr_expect_str_eq(json_string_value(json_object_get(far, "transport")), "http");
    cr_expect(json_is_false(json_object_get(far, "healthy")));
    cr_expect_eq(json_integer_value(json_object_get(far, "tools")), 0);
    json_decref(st);

    wg_mcp__gateway_free(g);
    wg_engine_free(e);
}

Test(gateway, a_crash_is_a_failed_call_with_the_reason_then_it_comes_back)
{
    wg_engine *e = engine();
    put_secret(e);
    char *cfg = fixture_config();
    wg_gateway *g = start(e, cfg);
    free(cfg);
    wg_engine_outcome o;
    cr_expect_eq(exec(e, "fx__crash", NULL, WG_AUTONOMY_YOLO, &o), WG_EUNAVAILABLE);
    cr_expect(strstr(wg_error_last(), "upstream MCP server fx") != NULL, "%s", wg_error_last());
    cr_expect(strstr(wg_error_last(), "went down") != NULL, "%s", wg_error_last());
    wg_engine_outcome_clear(&o);
    int rc = -1;
    for (int i = 0; i < 2000 && rc != 0; i++) {
        rc = exec(e, "fx__echo", "{\"text\":\"back\"}", WG_AUTONOMY_NORMAL, &o);
        if (rc == 0)
            break;
        cr_expect(rc == WG_EUNAVAILABLE || rc == WG_ENOTFOUND, "rc %d: %s", rc, wg_error_last());
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    }
    cr_assert_eq(rc, 0, "%s", wg_error_last());
    cr_expect_str_eq(text_of(&o), "back");
    wg_engine_outcome_clear(&o);
    json_t *st = wg_mcp__gateway_status(g);
    cr_expect_geq(json_integer_value(json_object_get(json_array_get(st, 0), "restarts")), 1);
    json_decref(st);
    wg_mcp__gateway_free(g);
    wg_engine_free(e);
}

Test(gateway, a_name_that_cannot_be_a_prefix_is_refused)
{
    wg_engine *e = engine();
    static const char cfg[] = "{\"mcpServers\":{\"a__b\":{\"command\":\"true\"}}}";
    wg_gw_config c;
    cr_assert_eq(wg_mcp__gw_config_parse(&c, cfg, strlen(cfg)), 0, "%s", wg_error_last());
    wg_gateway *g = NULL;
    cr_expect_eq(wg_mcp__gateway_start(&g, e, &c, NULL), WG_EINVAL);
    cr_expect(strstr(wg_error_last(), "a__b") != NULL);
    cr_expect_null(g);
    wg_mcp__gw_config_free(&c);
    wg_engine_free(e);
}

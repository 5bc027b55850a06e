/* Tests for CapabilityRouter.resolve (spec 2; original-facts 3.1, 12.6,
 * 13 item 25). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/capdeps.h"
#include "waggle/router.h"
#include "waggle/error.h"
#include "wgtest.h"

static wg_capdeps *D;
static json_t *J;

static void setup(void)
{
    json_error_t e;
    J = json_load_file(WG_TEST_DATA_DIR "/trust/router-deps.json", 0, &e);
    cr_assert_not_null(J, "%s", e.text);
    cr_assert_eq(wg_capdeps_from_json(&D, J), 0, "%s", wg_error_last());
}

static void teardown(void)
{
    wg_capdeps_free(D);
    json_decref(J);
}

TestSuite(router, .init = setup, .fini = teardown);

/* "source:name:confidence:available;..." */
static char *routes(const char *query)
{
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(D), query), 0);
    static char buf[2048];
    buf[0] = '\0';
    for (size_t i = 0; i < l.count; i++) {
        char one[256];
        snprintf(one, sizeof one, "%s%s:%s:%g:%d", i ? ";" : "",
                 wg_capability_source_name(l.items[i].source), l.items[i].name,
                 l.items[i].confidence, l.items[i].available);
        strcat(buf, one);
    }
    wg_route_list_free(&l);
    return buf;
}

Test(router, confidences_are_the_spec_table)
{
    cr_expect_eq(WG_ROUTE_NATIVE_EXACT, 1.0);
    cr_expect_eq(WG_ROUTE_NATIVE_PARTIAL, 0.8);
    cr_expect_eq(WG_ROUTE_CONNECTOR, 0.75);
    cr_expect_eq(WG_ROUTE_SKILL_NAME, 0.7);
    cr_expect_eq(WG_ROUTE_PLUGIN, 0.6);
    cr_expect_eq(WG_ROUTE_SKILL_CONTENT, 0.5);
    cr_expect_eq(WG_ROUTE_MCP, 0.45);
    cr_expect_eq(WG_ROUTE_SUBAGENT, 0.4);
}

Test(router, exact_native_is_case_insensitive)
{
    cr_expect_str_eq(routes("Web_Search"), "native:web_search:1:1;subagent:researcher:0.4:1");
}

Test(router, partial_native_and_role)
{
    cr_expect_str_eq(routes("search"), "native:web_search:0.8:1;subagent:researcher:0.4:1");
}

Test(router, connector_not_connected_has_suggestion)
{
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(D), "create issue on github"), 0);
    cr_assert_eq(l.count, 1);
    cr_expect_eq(l.items[0].source, WG_CAPSRC_CONNECTOR);
    cr_expect_str_eq(l.items[0].name, "github");
    cr_expect_eq(l.items[0].confidence, 0.75);
    cr_expect_eq(l.items[0].available, 0);
    cr_expect_str_eq(l.items[0].description, "Connector \"GitHub\" (github.com)");
    cr_expect_str_eq(l.items[0].suggestion, "GitHub connector is available but not connected. "
                     "Add your credentials in Cockpit > Connectors to enable it.");
    wg_route_list_free(&l);
}

Test(router, connector_actions_match_with_spaces)
{
    cr_expect_str_eq(routes("send message"), "connector:slack:0.75:1");
    cr_expect_str_eq(routes("please list repos"), "connector:github:0.75:0");
    cr_expect_str_eq(routes("github"), "connector:github:0.75:0;mcp:github-mcp:0.45:1");
}

Test(router, roles_match_words_and_keep_their_spelling)
{
    cr_expect_str_eq(routes("build a report"), "subagent:coder:0.4:1;subagent:Analyst:0.4:1");
}

Test(router, role_keywords_are_words_not_substrings)
{
    /* original: "plan" in "planet", "data" in "database" matched */
    cr_expect_str_eq(routes("planet database"), "missing:planet database:0:0");
}

Test(router, one_letter_and_empty_queries_match_nothing)
{
    /* original: "a" matched every tool, skill and plugin (13 item 25) */
    cr_expect_str_eq(routes("a"), "missing:a:0:0");
    cr_expect_str_eq(routes(""), "missing::0:0");
    cr_expect_str_eq(routes("   "), "missing:   :0:0");
    cr_expect_str_eq(routes(NULL), "missing::0:0");
}

Test(router, missing_route_has_the_spec_texts)
{
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(D), "x"), 0);
    cr_assert_eq(l.count, 1);
    cr_expect_str_eq(l.items[0].description, "No capability found for \"x\"");
    cr_expect_str_eq(l.items[0].suggestion, "Consider creating a skill for \"x\", connecting a "
                     "service in Cockpit > Connectors, or searching the marketplace for a plugin.");
    wg_route_list_free(&l);
}

Test(router, skill_name_content_plugin_and_mcp)
{
    cr_expect_str_eq(routes("risk assessment"), "skill:risk-assessment:0.7:1");
    cr_expect_str_eq(routes("likelihood"), "skill:risk-assessment:0.5:1");
    cr_expect_str_eq(routes("chart maker"), "plugin:p:0.6:1");
    cr_expect_str_eq(routes("charts"), "plugin:p:0.6:1");
}

Test(router, sorted_by_confidence_stably)
{
    /* query hits native partial (bash), skill name, plugin, and role */
    const char *q = "bash risk-assessment charts code";
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(D), q), 0);
    for (size_t i = 1; i < l.count; i++)
        cr_expect_geq(l.items[i - 1].confidence, l.items[i].confidence);
    cr_expect_str_eq(routes(q), "native:bash:0.8:1;skill:risk-assessment:0.7:1;plugin:p:0.6:1;"
                     "subagent:coder:0.4:1");
    wg_route_list_free(&l);
}

static int unhealthy(void *ctx, const char *s)
{
    (void)ctx;
    return strcmp(s, "github-mcp") != 0;
}

Test(router, mcp_health_sets_available)
{
    const char *mcp[] = { "github-mcp" };
    wg_router_deps d = { .mcp_servers = mcp, .n_mcp_servers = 1, .mcp_healthy = unhealthy };
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, &d, "github"), 0);
    cr_assert_eq(l.count, 1);
    cr_expect_eq(l.items[0].available, 0);
    cr_expect_str_eq(l.items[0].description,
                     "MCP server \"github-mcp\" may provide this capability (not healthy)");
    wg_route_list_free(&l);
}

Test(router, empty_deps_give_missing_and_null_deps_einval)
{
    wg_router_deps d = { 0 };
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, &d, "search"), 0);
    cr_expect_eq(l.count, 1);
    cr_expect_eq(l.items[0].source, WG_CAPSRC_MISSING);
    wg_route_list_free(&l);
    cr_expect_eq(wg_router_resolve(&l, NULL, "x"), WG_EINVAL);
}

Test(router, json_shape)
{
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(D), "github"), 0);
    json_t *a = wg_route_list_json(&l);
    cr_assert_eq(json_array_size(a), 2);
    json_t *r = json_array_get(a, 0);
    cr_expect_str_eq(json_string_value(json_object_get(r, "source")), "connector");
    cr_expect(json_is_string(json_object_get(r, "suggestion")));
    cr_expect_null(json_object_get(json_array_get(a, 1), "suggestion"));
    json_decref(a);
    wg_route_list_free(&l);
}

Test(router, deps_with_wrong_types_are_einval)
{
    json_t *bad = json_pack("{s:[i]}", "toolNames", 3);
    wg_capdeps *d = NULL;
    cr_expect_eq(wg_capdeps_from_json(&d, bad), WG_EINVAL);
    cr_expect_not_null(strstr(wg_error_last(), "toolNames"));
    json_decref(bad);
    bad = json_pack("{s:[{s:i}]}", "connectors", "id", 1);
    cr_expect_eq(wg_capdeps_from_json(&d, bad), WG_EINVAL);
    json_decref(bad);
}

Test(router, invalid_utf8_query_still_gives_json)
{
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(D), "\xff\xfe zzz"), 0);
    json_t *a = wg_route_list_json(&l);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "name")), "?? zzz");
    json_decref(a);
    wg_route_list_free(&l);
}

Test(router, min_partial_length_constant)
{
    cr_expect_eq(WG_ROUTE_MIN_PARTIAL, 3);
    const char *tools[] = { "ab_tool", "abc_tool" };
    wg_router_deps d = { .tool_names = tools, .n_tool_names = 2 };
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, &d, "ab"), 0);
    cr_expect_eq(l.items[0].source, WG_CAPSRC_MISSING);
    wg_route_list_free(&l);
    cr_assert_eq(wg_router_resolve(&l, &d, "abc"), 0);
    cr_assert_eq(l.count, 1);
    cr_expect_str_eq(l.items[0].name, "abc_tool");
    wg_route_list_free(&l);
    cr_assert_eq(wg_router_resolve(&l, &d, "AB_TOOL"), 0);
    cr_expect_eq(l.items[0].confidence, 1.0);
    wg_route_list_free(&l);
}

Test(router, property_equal_confidences_keep_scan_order)
{
    /* 40 tools that all match partially, in a shuffled-looking order,
     * interleaved with skills: natives first (0.8) in input order, then
     * skills (0.7) in input order. */
    const char *tools[40];
    char names[40][32];
    wg_router_skill skills[20];
    char snames[20][32];
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "%c%02d_report_tool", 'a' + (i * 7) % 26, i);
        tools[i] = names[i];
    }
    for (int i = 0; i < 20; i++) {
        snprintf(snames[i], sizeof snames[i], "report-%c%02d", 'z' - (i * 3) % 26, i);
        skills[i] = (wg_router_skill){ snames[i], "" };
    }
    wg_router_deps d = { .tool_names = tools, .n_tool_names = 40, .skills = skills, .n_skills = 20 };
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, &d, "report"), 0);
    cr_assert_eq(l.count, 60);
    for (int i = 0; i < 40; i++)
        cr_expect_str_eq(l.items[i].name, names[i]);
    for (int i = 0; i < 20; i++)
        cr_expect_str_eq(l.items[40 + i].name, snames[i]);
    wg_route_list_free(&l);
}

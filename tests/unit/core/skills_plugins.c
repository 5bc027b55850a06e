/* Tests for plugin.json loading (waggle/plugins.h) and local capability
 * deps (waggle/capdeps.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/capdeps.h"
#include "waggle/plugins.h"
#include "waggle/error.h"
#include "wgtest.h"

Test(plugins, load_skips_broken_and_unsafe)
{
    wg_plugin_list l;
    cr_assert_eq(wg_plugins_load(&l, WG_TEST_DATA_DIR "/trust"), 0, "%s", wg_error_last());
    cr_assert_eq(l.count, 1);
    cr_expect_eq(l.skipped, 2);
    const wg_plugin *p = &l.items[0];
    cr_expect_str_eq(p->name, "charts");
    cr_expect_str_eq(p->description, "Chart maker for reports");
    cr_expect_eq(p->n_skills, 2);
    cr_expect_str_eq(p->mcp_servers[0], "plotly-mcp");
    cr_expect_str_eq(p->tools[0], "charts:render");
    json_t *j = wg_plugin_json(p);
    cr_expect_eq(json_array_size(json_object_get(j, "skills")), 2);
    json_decref(j);
    wg_plugin_list_free(&l);
}

Test(plugins, missing_dir_is_empty)
{
    wg_plugin_list l;
    cr_assert_eq(wg_plugins_load(&l, "/nonexistent/wg"), 0);
    cr_expect_eq(l.count, 0);
    wg_plugin_list_free(&l);
}

Test(plugins, parse_rejects_wrong_types)
{
    wg_plugin p;
    const char *bad[] = { "[]", "{\"name\":1}", "{\"skills\":\"x\"}", "{\"tools\":[1]}", "nope" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(wg_plugin_parse(&p, bad[i], strlen(bad[i]), "d"), WG_EINVAL, "%s", bad[i]);
    cr_assert_eq(wg_plugin_parse(&p, "{}", 2, "dirname"), 0);
    cr_expect_str_eq(p.name, "dirname");
    cr_expect_str_eq(p.description, "");
    wg_plugin_clear(&p);
}

Test(plugins, local_deps_route_to_plugin_and_its_mcp)
{
    wg_capdeps *d = NULL;
    cr_assert_eq(wg_capdeps_load_local(&d, WG_TEST_DATA_DIR "/trust"), 0);
    wg_route_list l;
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(d), "pie chart"), 0);
    cr_assert_geq(l.count, 1);
    cr_expect_eq(l.items[0].source, WG_CAPSRC_PLUGIN);
    cr_expect_str_eq(l.items[0].name, "charts");
    wg_route_list_free(&l);
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(d), "plotly"), 0);
    cr_expect_eq(l.items[0].source, WG_CAPSRC_MCP);
    wg_route_list_free(&l);
    cr_assert_eq(wg_router_resolve(&l, wg_capdeps_router(d), "web_search"), 0);
    cr_expect_eq(l.items[0].confidence, 1.0);
    wg_route_list_free(&l);
    wg_capdeps_free(d);
}

/* tools.c - GET /api/tools: the capability tools always, and one
 * connector_<id>_<action> tool per action of each connected connector
 * (spec 8.2 generateTools; the demo connectors are always connected). */
#include <criterion/criterion.h>

#include "server_test.h"

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

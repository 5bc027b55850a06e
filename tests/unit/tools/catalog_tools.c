/* Tests for the find_connector / list_connector_categories tool definitions
 * and execution (waggle/catalog_tools.h, spec 4). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/catalog_tools.h"
#include "waggle/error.h"

Test(catalog_tools, both_tools_defined_offline_capable_with_valid_schema)
{
    size_t n = 0;
    const wg_catalogtool_def *d = wg_catalogtool_defs(&n);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(d[0].name, "find_connector");
    cr_assert_str_eq(d[1].name, "list_connector_categories");
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(d[i].offline_capable, 1);
        cr_assert_gt(strlen(d[i].description), 20);
        json_error_t e;
        json_t *schema = json_loads(d[i].parameters, 0, &e);
        cr_assert_not_null(schema, "%s: %s", d[i].name, e.text);
        cr_assert_str_eq(json_string_value(json_object_get(schema, "type")), "object");
        json_decref(schema);
    }
    json_t *fc = json_loads(d[0].parameters, 0, NULL);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(fc, "required"), 0)), "query");
    json_t *cats = json_object_get(json_object_get(json_object_get(fc, "properties"), "category"), "enum");
    cr_assert_eq(json_array_size(cats), WG_CATALOG_CATEGORY_COUNT);
    for (int i = 0; i < WG_CATALOG_CATEGORY_COUNT; i++)
        cr_assert_str_eq(json_string_value(json_array_get(cats, (size_t)i)), wg_catalog_category_name(i));
    json_decref(fc);
}

Test(catalog_tools, execute_returns_the_spec_json_text)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    json_t *args = json_pack("{s:s, s:i}", "query", "send email", "limit", 2);
    char *out = NULL;
    cr_assert_eq(wg_catalogtool_execute(&out, cat, "find_connector", args), 0);
    json_t *v = json_loads(out, 0, NULL);
    cr_assert_eq(json_integer_value(json_object_get(v, "matchCount")), 2);
    json_decref(v);
    free(out);
    cr_assert_eq(wg_catalogtool_execute(&out, cat, "list_connector_categories", NULL), 0);
    v = json_loads(out, 0, NULL);
    cr_assert_eq(json_integer_value(json_object_get(v, "categoryCount")), 14);
    json_decref(v);
    free(out);
    cr_assert_eq(wg_catalogtool_execute(&out, cat, "find_connector", NULL), 0);
    cr_assert_not_null(strstr(out, "query is required"));
    free(out);
    out = NULL;
    cr_assert_eq(wg_catalogtool_execute(&out, cat, "install_everything", args), WG_ENOTFOUND);
    cr_assert_null(out);
    json_decref(args);
    wg_catalog_free(cat);
}

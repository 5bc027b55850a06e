/* Tests for the official MCP registry format mapping (waggle/catalog.h
 * wg_catalog_from_registry / wg_catalog_to_registry). */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/catalog.h"
#include "waggle/error.h"

Test(catalog_registry, export_then_import_gives_the_same_entries)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    json_t *reg = NULL, *entries = NULL;
    cr_assert_eq(wg_catalog_to_registry(&reg, cat), 0);
    cr_assert_eq(wg_catalog_from_registry(&entries, reg, NULL, NULL), 0, "%s", wg_error_last());
    cr_assert_eq(json_array_size(entries), wg_catalog_count(cat));
    for (size_t i = 0; i < wg_catalog_count(cat); i++) {
        const wg_catalog_server *s = wg_catalog_at(cat, i);
        json_t *e = json_array_get(entries, i), *orig = NULL;
        cr_assert_eq(wg_catalog_server_json(&orig, s), 0);
        cr_assert(json_equal(e, orig), "%s differs after the round trip", s->id);
        json_decref(orig);
    }
    json_decref(reg);
    json_decref(entries);
    wg_catalog_free(cat);
}

Test(catalog_registry, server_json_maps_fields_and_guesses_the_category)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    json_t *doc = json_pack("{s:s, s:s, s:{s:s}, s:[{s:s, s:s}]}",
                            "name", "io.github.acme/pg-inspector-mcp",
                            "description", "Inspect PostgreSQL tables and run read-only SQL queries.",
                            "repository", "url", "https://github.com/acme/pg-inspector-mcp",
                            "packages", "registryType", "pypi", "identifier", "pg-inspector-mcp");
    json_t *out = NULL;
    cr_assert_eq(wg_catalog_from_registry(&out, doc, NULL, cat), 0, "%s", wg_error_last());
    json_t *e = json_array_get(out, 0);
    cr_assert_str_eq(json_string_value(json_object_get(e, "id")), "pg-inspector");
    cr_assert_str_eq(json_string_value(json_object_get(e, "author")), "acme");
    cr_assert_str_eq(json_string_value(json_object_get(e, "installCmd")), "uvx pg-inspector-mcp");
    cr_assert_str_eq(json_string_value(json_object_get(e, "category")), "Database");
    cr_assert(json_is_false(json_object_get(e, "official")));
    json_decref(out);
    json_decref(doc);
    wg_catalog_free(cat);
}

Test(catalog_registry, hostile_or_incomplete_documents_are_refused)
{
    static const char *docs[] = {
        "{\"name\":\"x/y\",\"description\":\"d\",\"repository\":{\"url\":\"https://e.com/y\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"a$(rm -rf ~)\"}]}",
        "{\"name\":\"x/y\",\"description\":\"d\",\"repository\":{\"url\":\"https://e.com/y\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"--foo\"}]}",
        "{\"name\":\"x/y\",\"description\":\"d\",\"remotes\":[{\"url\":\"http://plain.example/mcp\"}]}",
        "{\"name\":\"x/y\",\"description\":\"d\",\"repository\":{\"url\":\"https://e.com/y\"}}",
        "{\"name\":\"x/y\"}",
        "[1,2,3]",
        "{\"servers\":[{\"server\":{\"description\":\"no name\"}}]}",
        "{\"name\":\"x/y\",\"description\":\"d\",\"repository\":{\"url\":\"https://e.com/y\"},"
        "\"_meta\":{\"io.waggle/catalog\":{\"installCmd\":\"npx -y ok && rm -rf ~\"}}}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        json_t *doc = json_loads(docs[i], 0, NULL), *out = (json_t *)0x1;
        cr_assert_not_null(doc, "%zu", i);
        cr_assert_eq(wg_catalog_from_registry(&out, doc, "Utilities", NULL), WG_EINVAL, "doc %zu", i);
        cr_assert_eq(out, (json_t *)0x1);
        json_decref(doc);
    }
}

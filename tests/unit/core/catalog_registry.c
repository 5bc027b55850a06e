/* Tests for the official MCP registry format mapping (waggle/catalog.h
 * wg_catalog_from_registry / wg_catalog_to_registry). */
#include <criterion/criterion.h>
#include <string.h>

#include "core/catalog_internal.h"
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

/* A registry list at scale: versions, deletions, monorepos, taken ids. */
Test(catalog_registry, a_registry_list_keeps_latest_versions_and_never_collides)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    const char *doc_text =
        "{\"servers\":["
        "{\"server\":{\"name\":\"io.github.acme/notes-mcp\",\"description\":\"Notes v1\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/acme/notes-mcp\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"@acme/notes\"}]},"
        "\"_meta\":{\"io.modelcontextprotocol.registry/official\":{\"status\":\"active\",\"isLatest\":false}}},"
        "{\"server\":{\"name\":\"io.github.acme/notes-mcp\",\"description\":\"Notes v2\",\"version\":\"2.0.0\","
        "\"repository\":{\"url\":\"https://github.com/acme/notes-mcp\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"@acme/notes\"}]},"
        "\"_meta\":{\"io.modelcontextprotocol.registry/official\":{\"status\":\"active\",\"isLatest\":true}}},"
        "{\"server\":{\"name\":\"io.github.acme/notes-mcp\",\"description\":\"Notes v1.5\",\"version\":\"1.5.0\","
        "\"repository\":{\"url\":\"https://github.com/acme/notes-mcp\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"@acme/notes\"}]}},"
        "{\"server\":{\"name\":\"io.github.gone/old-mcp\",\"description\":\"Removed\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/gone/old-mcp\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"old-mcp\"}]},"
        "\"_meta\":{\"io.modelcontextprotocol.registry/official\":{\"status\":\"deleted\"}}},"
        "{\"server\":{\"name\":\"io.github.mono/alpha\",\"description\":\"Alpha tool\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/mono/tools\",\"subfolder\":\"src/alpha\"},"
        "\"packages\":[{\"registryType\":\"pypi\",\"identifier\":\"mono-alpha\"}]}},"
        "{\"server\":{\"name\":\"io.github.mono/beta\",\"description\":\"Beta tool\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/mono/tools\",\"subfolder\":\"src/beta\"},"
        "\"packages\":[{\"registryType\":\"pypi\",\"identifier\":\"mono-beta\"}]}},"
        "{\"server\":{\"name\":\"io.github.other/notes\",\"description\":\"Other notes\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/other/notes\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"other-notes\"}]}},"
        "{\"server\":{\"name\":\"io.github.getsentry/sentry-mcp\",\"description\":\"Sentry again\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/getsentry/sentry-mcp/\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"@sentry/mcp-server\"}]}},"
        "{\"server\":{\"name\":\"io.github.bad/sub\",\"description\":\"Escaping subfolder\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/bad/sub\",\"subfolder\":\"../../etc\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"bad-sub\"}]}}"
        "],\"metadata\":{\"count\":9}}";
    json_t *doc = json_loads(doc_text, 0, NULL), *out = NULL;
    cr_assert_not_null(doc);
    wg_catalog_registry_stats st;
    cr_assert_eq(wg_catalog_from_registry_stats(&out, &st, doc, NULL, cat), 0, "%s", wg_error_last());
    cr_assert_eq(st.deleted, 1);
    cr_assert_eq(st.old_versions, 2);
    cr_assert_eq(st.present, 1, "sentry is already in the catalog");
    cr_assert_eq(st.renamed, 1);
    cr_assert_eq(json_array_size(out), 5);
    static const char *const ids[] = { "notes", "alpha", "beta", "other-notes", "sub" };
    for (size_t i = 0; i < 5; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(out, i), "id")), ids[i]);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(out, 0), "description")), "Notes v2");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(out, 1), "url")),
                     "https://github.com/mono/tools/tree/HEAD/src/alpha");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(out, 4), "url")),
                     "https://github.com/bad/sub");
    /* the result loads on top of the embedded catalog */
    char *text = json_dumps(out, JSON_COMPACT);
    wg_catalog *merged = NULL;
    const char *docs[1] = { text };
    size_t lens[1] = { strlen(text) };
    cr_assert_eq(wg_catalog__build(&merged, 1, docs, lens, NULL, 1), 0, "%s", wg_error_last());
    wg_catalog_free(merged);
    free(text);
    json_decref(out);
    json_decref(doc);
    wg_catalog_free(cat);
}

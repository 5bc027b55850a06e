/* Tests for `waggle catalog` (src/cli/cmd_catalog.c): output, exit codes,
 * help, and import/export through a private data dir. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sys/stat.h>
#include "wgtest.h"
#include "../../../bench/catalog_gen.h"

static wgt_result run(const char *const *argv)
{
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    return r;
}

static json_t *json_of(const wgt_result *r)
{
    json_error_t e;
    json_t *v = json_loads(r->out, 0, &e);
    cr_assert_not_null(v, "not JSON (%s): %s", e.text, r->out);
    return v;
}

Test(cli_catalog, search_crashes_puts_an_error_tracker_first)
{
    const char *argv[] = { "--json", "catalog", "search", "users report crashes in the app", NULL };
    wgt_result r = run(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *v = json_of(&r);
    const char *id = json_string_value(json_object_get(json_array_get(json_object_get(v, "matches"), 0), "id"));
    cr_assert(strcmp(id, "sentry") == 0 || strcmp(id, "rollbar") == 0 || strcmp(id, "smartbear") == 0,
              "top is %s", id);
    json_decref(v);
    wgt_result_free(&r);
}

Test(cli_catalog, search_options_after_words_and_category_filter)
{
    const char *argv[] = { "--json", "catalog", "search", "vector", "search", "--limit", "3", "--category",
                           "database", "--compact", NULL };
    wgt_result r = run(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *v = json_of(&r);
    cr_assert_str_eq(json_string_value(json_object_get(v, "query")), "vector search");
    cr_assert_eq(json_integer_value(json_object_get(v, "matchCount")), 3);
    json_decref(v);
    wgt_result_free(&r);
}

Test(cli_catalog, a_category_without_words_lists_it)
{
    static const char *const cases[][8] = {
        { "--json", "catalog", "search", "--category", "Database", "server", "--compact", NULL },
        { "--json", "catalog", "search", "--category", "Database", "--compact", NULL },
    };
    for (size_t i = 0; i < 2; i++) {
        wgt_result r = run(cases[i]);
        cr_assert_eq(r.status, 0, "case %zu: %s", i, r.err);
        json_t *v = json_of(&r);
        cr_assert_eq(json_integer_value(json_object_get(v, "matchCount")), 10, "case %zu", i);
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(v, "matches"), 0),
                                                           "category")), "Database");
        json_decref(v);
        wgt_result_free(&r);
    }
}

Test(cli_catalog, bad_usage_exits_2_with_a_reason)
{
    static const char *const cases[][8] = {
        { "--json", "catalog", "search", NULL },
        { "--json", "catalog", "search", "--limit", "many", "x", NULL },
        { "--json", "catalog", "search", "--category", "Nope", "x", NULL },
        { "catalog", "frobnicate", NULL },
        { "--json", "catalog", "show", NULL },
        { "--json", "catalog", "search", "   ", NULL },
        { "--json", "catalog", "search", "caf\xC3", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wgt_result r = run(cases[i]);
        cr_assert_eq(r.status, 2, "case %zu: status %d", i, r.status);
        cr_assert(strlen(r.err) > 0 || strstr(r.out, "query is required"), "case %zu says why", i);
        wgt_result_free(&r);
    }
}

Test(cli_catalog, help_teaches_with_an_example)
{
    const char *argv[] = { "catalog", "--help", NULL };
    wgt_result r = run(argv);
    cr_assert_eq(r.status, 0);
    cr_assert_not_null(strstr(r.out, "Usage: waggle catalog"));
    cr_assert_not_null(strstr(r.out, "Examples:"));
    wgt_result_free(&r);
}

Test(cli_catalog, normalize_prints_one_id_per_line)
{
    const char *argv[] = { "catalog", "normalize", "GitHub", "@modelcontextprotocol/server-github",
                           "Slack MCP Server", "mcp", NULL };
    wgt_result r = run(argv);
    cr_assert_eq(r.status, 0);
    cr_assert_str_eq(r.out, "github\ngithub\nslack\n\n");
    wgt_result_free(&r);
}

Test(cli_catalog, show_finds_any_spelling_and_fails_on_unknown)
{
    const char *argv[] = { "--json", "catalog", "show", "mcp-server-sentry", NULL };
    wgt_result r = run(argv);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *v = json_of(&r);
    cr_assert_str_eq(json_string_value(json_object_get(v, "id")), "sentry");
    cr_assert_not_null(json_object_get(v, "keywords"));
    json_decref(v);
    wgt_result_free(&r);
    const char *argv2[] = { "--json", "catalog", "show", "no-such-server", NULL };
    r = run(argv2);
    cr_assert_eq(r.status, 1);
    cr_assert_not_null(strstr(r.err, "no server with id"));
    wgt_result_free(&r);
}

Test(cli_catalog, categories_prints_14)
{
    const char *argv[] = { "--json", "catalog", "categories", "--compact", NULL };
    wgt_result r = run(argv);
    cr_assert_eq(r.status, 0);
    json_t *v = json_of(&r);
    cr_assert_eq(json_array_size(json_object_get(v, "categories")), 14);
    json_decref(v);
    wgt_result_free(&r);
}

Test(cli_catalog, import_merges_registry_servers_skips_present_and_renames_taken_ids)
{
    char *dir = wgt_tmpdir();
    const char *imp[] = { "--json", "catalog", "import", "--data-dir", dir,
                          WG_TEST_DATA_DIR "/catalog/registry_servers.json", NULL };
    wgt_result r = run(imp);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "imported 2 servers"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "weather-alerts"), "%s", r.out);
    wgt_result_free(&r);

    const char *show[] = { "--json", "catalog", "show", "--data-dir", dir, "weather-alerts-mcp", NULL };
    r = run(show);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *v = json_of(&r);
    cr_assert_str_eq(json_string_value(json_object_get(v, "installCmd")), "npx -y @example-org/weather-alerts-mcp");
    cr_assert_str_eq(json_string_value(json_object_get(v, "author")), "example-org");
    cr_assert_str_eq(json_string_value(json_object_get(v, "name")), "Weather Alerts");
    json_decref(v);
    wgt_result_free(&r);

    const char *show2[] = { "--json", "catalog", "show", "--data-dir", dir, "ledger", NULL };
    r = run(show2);
    cr_assert_eq(r.status, 0, "%s", r.err);
    v = json_of(&r);
    cr_assert_str_eq(json_string_value(json_object_get(v, "installCmd")),
                     "npx -y mcp-remote https://mcp.example.com/ledger");
    cr_assert_str_eq(json_string_value(json_object_get(v, "url")), "https://example.com/ledger");
    json_decref(v);
    wgt_result_free(&r);

    r = run(imp);   /* the same servers again: already there, nothing added */
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "imported 0 servers"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "skipped 2 already in the catalog"), "%s", r.out);
    wgt_result_free(&r);

    /* another server whose id is taken gets its owner's name, never the
     * catalog's own entry */
    const char *col[] = { "--json", "catalog", "import", "--data-dir", dir,
                          WG_TEST_DATA_DIR "/catalog/registry_collides.json", NULL };
    r = run(col);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "someone-sentry"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "1 renamed"), "%s", r.out);
    wgt_result_free(&r);
    const char *own[] = { "--json", "catalog", "show", "--data-dir", dir, "sentry", NULL };
    r = run(own);
    cr_assert_eq(r.status, 0);
    v = json_of(&r);
    cr_assert_str_eq(json_string_value(json_object_get(v, "url")), "https://github.com/getsentry/sentry-mcp");
    json_decref(v);
    wgt_result_free(&r);

    const char *bad[] = { "--json", "catalog", "import", "--data-dir", dir,
                          WG_TEST_DATA_DIR "/catalog/registry_bad_identifier.json", NULL };
    r = run(bad);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "not allowed in an install command"), "%s", r.err);
    wgt_result_free(&r);

    const char *search[] = { "--json", "catalog", "search", "--data-dir", dir, "storm warnings", NULL };
    r = run(search);
    cr_assert_eq(r.status, 0);
    v = json_of(&r);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(v, "matches"), 0), "id")),
                     "weather-alerts");
    json_decref(v);
    wgt_result_free(&r);
    wgt_rmtree(dir);
    free(dir);
}

Test(cli_catalog, export_lists_every_server_in_registry_format)
{
    const char *argv[] = { "catalog", "export", "--compact", NULL };
    wgt_result r = run(argv);
    cr_assert_eq(r.status, 0);
    json_t *v = json_of(&r);
    json_t *servers = json_object_get(v, "servers");
    cr_assert_geq(json_array_size(servers), 200);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(v, "metadata"), "count")),
                 (json_int_t)json_array_size(servers));
    json_t *first = json_object_get(json_array_get(servers, 0), "server");
    cr_assert_not_null(json_object_get(first, "name"));
    cr_assert_not_null(json_object_get(json_object_get(first, "repository"), "url"));
    json_decref(v);
    wgt_result_free(&r);
}

/* Issue 12: the official registry's list format at scale - 20,000 servers
 * through `waggle catalog import`, then searched and shown from the cached
 * index. */
Test(cli_catalog, import_of_20000_registry_servers_is_searchable)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    char *doc = wggen_registry(cat, 20000);
    size_t embedded = wg_catalog_count(cat);
    wg_catalog_free(cat);
    cr_assert_not_null(doc);
    char *dir = wgt_tmpdir(), *file = NULL, *idx = NULL;
    cr_assert_eq(wgt_write_file(dir, "registry.json", doc), 0);
    cr_assert_geq(asprintf(&file, "%s/registry.json", dir), 0);
    cr_assert_geq(asprintf(&idx, "%s/catalog.idx", dir), 0);
    const char *imp[] = { "--json", "catalog", "import", "--data-dir", dir, file, NULL };
    wgt_result r = run(imp);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "imported 20000 servers"), "%.200s", r.out);
    cr_assert_not_null(strstr(r.out, "... and 19980 more"), "%.400s", r.out);
    wgt_result_free(&r);
    struct stat st;
    cr_assert_eq(stat(idx, &st), 0, "no cached index after the import");

    /* an id from the middle of the file, found by show and by its words */
    json_t *reg = json_loads(doc, 0, NULL);
    json_t *srv = json_object_get(json_array_get(json_object_get(reg, "servers"), 12345), "server");
    const char *name = json_string_value(json_object_get(srv, "name"));
    const char *slash = strrchr(name, '/');
    cr_assert_not_null(slash);
    const char *show[] = { "--json", "catalog", "show", "--data-dir", dir, "--compact", slash + 1, NULL };
    r = run(show);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *v = json_of(&r);
    cr_assert_str_eq(json_string_value(json_object_get(v, "description")),
                     json_string_value(json_object_get(srv, "description")));
    json_decref(v);
    wgt_result_free(&r);

    const char *search[] = { "--json", "catalog", "search", "--data-dir", dir, "--compact", "--limit", "30",
                             json_string_value(json_object_get(srv, "title")), NULL };
    r = run(search);
    cr_assert_eq(r.status, 0, "%s", r.err);
    v = json_of(&r);
    cr_assert_eq(json_integer_value(json_object_get(v, "catalogSize")), (json_int_t)(20000 + embedded));
    cr_assert_gt(json_integer_value(json_object_get(v, "matchCount")), 0);
    json_decref(v);
    wgt_result_free(&r);
    json_decref(reg);
    free(doc);
    free(file);
    free(idx);
    wgt_rmtree(dir);
    free(dir);
}

/* Tests for catalog validation and uniqueness (spec 12 assertCatalogUnique,
 * original-facts 7.1 and 13 item 23): every failure names both entries, and
 * the build-time checker refuses each bad catalog in tests/data/catalog/. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "waggle/catalog.h"
#include "waggle/error.h"
#include "wgtest.h"

#define CHECKER WG_BINARY_DIR "/tools/waggle-catalog-check"

static int parse_file(wg_catalog **cat, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/catalog/%s", WG_TEST_DATA_DIR, name);
    char *text = wgt_read_file(path);
    cr_assert_not_null(text, "cannot read %s", path);
    const char *docs[1] = { text };
    size_t lens[1] = { strlen(text) };
    const char *origins[1] = { name };
    int rc = wg_catalog_parse(cat, docs, lens, origins, 1);
    free(text);
    return rc;
}

/* Runs the checker on one file; returns its exit status, stderr in err. */
static int run_checker(const char *name, char *err, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' '%s/catalog/%s' 2>&1 >/dev/null", CHECKER, WG_TEST_DATA_DIR, name);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(err, 1, cap - 1, p);
    err[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const struct {
    const char *file;
    const char *needles[3];  /* every one must be in the message */
} bad[] = {
    { "bad_duplicate_entry.json", { "duplicate entry", "#1", "#3" } },
    { "bad_same_id_two_urls.json", { "used by two entries with different urls", "#1", "#2" } },
    { "bad_normalized_collision.json", { "normalized id collision", "\"github-mcp\"", "\"github\"" } },
    { "bad_url_case_slash.json", { "duplicate url", "\"alpha\"", "\"beta\"" } },
    { "bad_empty_id.json", { "normalizes to an empty key", "\"mcp\"", "#1" } },
    { "bad_id_not_normal.json", { "not in normal form", "\"GitHub\"", "use \"github\"" } },
    { "bad_category.json", { "category \"database\" is not one of the 14", "alpha", "#1" } },
    { "bad_missing_field.json", { "missing field \"installCmd\"", "#1", "bad_missing_field.json" } },
    { "bad_unknown_field.json", { "unknown field \"instalCmd\"", "#1", "bad_unknown_field.json" } },
    { "bad_not_json.json", { "not valid JSON", "bad_not_json.json", ":" } },
    { "bad_install_cmd.json", { "installCmd must be npx", "\"alpha\"", "#1" } },
};

Test(catalog_unique, each_failure_mode_is_einval_naming_both_entries)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wg_catalog *cat = (wg_catalog *)0x1;
        cr_assert_eq(parse_file(&cat, bad[i].file), WG_EINVAL, "%s", bad[i].file);
        cr_assert_eq(cat, (wg_catalog *)0x1, "out untouched on failure");
        for (int k = 0; k < 3; k++)
            cr_assert_not_null(strstr(wg_error_last(), bad[i].needles[k]), "%s: '%s' not in '%s'",
                               bad[i].file, bad[i].needles[k], wg_error_last());
    }
}

Test(catalog_unique, build_checker_refuses_each_bad_catalog)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[2048];
        cr_assert_eq(run_checker(bad[i].file, err, sizeof err), 1, "%s: %s", bad[i].file, err);
        cr_assert_not_null(strstr(err, "error:"), "%s", err);
        for (int k = 0; k < 3; k++)
            cr_assert_not_null(strstr(err, bad[i].needles[k]), "%s: %s", bad[i].file, err);
    }
}

Test(catalog_unique, build_checker_accepts_a_good_catalog)
{
    char err[2048];
    cr_assert_eq(run_checker("good_small.json", err, sizeof err), 0, "%s", err);
}

Test(catalog_unique, good_catalog_loads_with_fields)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(parse_file(&cat, "good_small.json"), 0, "%s", wg_error_last());
    cr_assert_eq(wg_catalog_count(cat), 2);
    const wg_catalog_server *b = wg_catalog_lookup(cat, "mcp-server-beta");
    cr_assert_not_null(b);
    cr_assert_str_eq(b->category, "Database");
    cr_assert_eq(b->official, 1);
    cr_assert_eq(b->capability_count, 1);
    cr_assert_str_eq(b->keywords[0], "test");
    cr_assert_null(b->logo);
    wg_catalog_free(cat);
}

Test(catalog_unique, overlay_colliding_with_embedded_names_both_documents)
{
    wg_catalog *cat = NULL;
    char *dir = wgt_tmpdir();
    char *text = wgt_read_file(WG_TEST_DATA_DIR "/catalog/overlay_collides.json");
    cr_assert_eq(wgt_write_file(dir, "catalog.json", text), 0);
    cr_assert_eq(wg_catalog_open(&cat, dir), WG_EINVAL);
    cr_assert_not_null(strstr(wg_error_last(), "normalized id collision"), "%s", wg_error_last());
    cr_assert_not_null(strstr(wg_error_last(), "data/mcp-catalog.json"), "%s", wg_error_last());
    cr_assert_not_null(strstr(wg_error_last(), "catalog.json #1"), "%s", wg_error_last());
    free(text);
    wgt_rmtree(dir);
    free(dir);
}

Test(catalog_unique, embedded_catalog_meets_the_issue)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    cr_assert_geq(wg_catalog_count(cat), 200);
    int seen[WG_CATALOG_CATEGORY_COUNT] = { 0 };
    for (size_t i = 0; i < wg_catalog_count(cat); i++) {
        const wg_catalog_server *s = wg_catalog_at(cat, i);
        seen[wg_catalog_category_index(s->category)]++;
        cr_assert_gt(s->keyword_count, 0, "%s has no keywords", s->id);
        cr_assert_gt(s->capability_count, 0, "%s has no capabilities", s->id);
    }
    for (int c = 0; c < WG_CATALOG_CATEGORY_COUNT; c++)
        cr_assert_gt(seen[c], 0, "category %s is empty", wg_catalog_category_name(c));
    wg_catalog_free(cat);
}

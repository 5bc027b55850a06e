/* Tests for find_connector's directly written JSON (catalog_jsonw.c,
 * wg_catalog_find_connector_text): byte for byte the text jansson makes of
 * wg_catalog_find_connector's object, for every evaluation need at several
 * limits and categories, the empty-query and no-match answers, hostile
 * query text and a catalog whose own strings need escaping; plus UTF-8
 * validation (jansson's rules) and the one documented difference
 * (U+2028/U+2029 escaped). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog_internal.h"
#include "waggle/error.h"
#include "wgtest.h"

/* jansson's compact text with raw U+2028/U+2029 escaped, as ours writes them. */
static char *reference(const wg_catalog *cat, const json_t *args, int *rc)
{
    json_t *o = NULL;
    *rc = wg_catalog_find_connector(&o, cat, args);
    if (*rc < 0)
        return NULL;
    char *t = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    cr_assert_not_null(t);
    size_t n = strlen(t);
    char *r = malloc(n * 2 + 1), *w = r;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)t[i] == 0xE2 && (unsigned char)t[i + 1] == 0x80 &&
            ((unsigned char)t[i + 2] == 0xA8 || (unsigned char)t[i + 2] == 0xA9)) {
            w += sprintf(w, "\\u%s", (unsigned char)t[i + 2] == 0xA8 ? "2028" : "2029");
            i += 2;
        } else {
            *w++ = t[i];
        }
    }
    *w = '\0';
    free(t);
    return r;
}

static void same_bytes(const wg_catalog *cat, json_t *args)
{
    int ref_rc;
    char *want = reference(cat, args, &ref_rc), *got = NULL;
    size_t len = 0;
    int rc = wg_catalog_find_connector_text(&got, &len, cat, args);
    char *a = json_dumps(args, JSON_COMPACT);
    cr_assert_eq(rc, ref_rc, "rc for %s", a);
    if (rc == 0) {
        cr_assert_eq(len, strlen(got));
        cr_assert_str_eq(got, want, "args %s", a);
    }
    free(a);
    free(want);
    free(got);
}

static void each_need(const wg_catalog *cat, const char *file, size_t *count)
{
    char *text = wgt_read_file(file);
    cr_assert_not_null(text, "%s", file);
    static const char *const cats[] = { NULL, "Database", "communication", "Nope" };
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab)
            continue;
        *tab = '\0';
        for (int limit = 1; limit <= 31; limit += 10)
            for (size_t c = 0; c < 4; c++) {
                json_t *args = json_pack("{s:s, s:i}", "query", line, "limit", limit);
                if (cats[c])
                    json_object_set_new(args, "category", json_string(cats[c]));
                same_bytes(cat, args);
                json_decref(args);
                (*count)++;
            }
    }
    free(text);
}

Test(catalog_json, text_equals_jansson_on_every_evaluation_need)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    size_t count = 0;
    each_need(cat, WG_TEST_DATA_DIR "/catalog/eval.tsv", &count);
    each_need(cat, WG_TEST_DATA_DIR "/catalog/heldout.tsv", &count);
    cr_assert_gt(count, 500);
    wg_catalog_free(cat);
}

Test(catalog_json, text_equals_jansson_on_hostile_queries_and_arguments)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    static const char *const args_json[] = {
        "{}", "{\"query\":\"   \"}", "{\"query\":null}", "{\"query\":[1]}", "{\"query\":42}",
        "{\"query\":2.5}", "{\"query\":\"qqqzzz\"}", "{\"query\":\"postgres\",\"limit\":\"3\"}",
        "{\"query\":\"postgres\",\"limit\":-5}", "{\"query\":\"postgres\",\"limit\":true}",
        "{\"query\":\"postgres\",\"category\":7}",
        "{\"query\":\"say \\\"hi\\\" \\\\ to /slack/ \\t\\n\\r\\b\\f\\u0001\\u001f\\u007f\"}",
        "{\"query\":\"line\\u2028sep\\u2029para caf\\u00e9 \\ud83d\\ude00 \\u4e2d\\u6587 email\"}",
        "{\"query\":\"nul\\u0000hidden\"}",
        "{\"query\":\"github\",\"limit\":30}",
    };
    for (size_t i = 0; i < sizeof args_json / sizeof args_json[0]; i++) {
        json_error_t e;
        json_t *args = json_loads(args_json[i], JSON_ALLOW_NUL, &e);
        cr_assert_not_null(args, "%s: %s", args_json[i], e.text);
        same_bytes(cat, args);
        json_decref(args);
    }
    /* the one difference, shown plainly */
    json_t *args = json_pack("{s:s}", "query", "a\xE2\x80\xA8" "b");
    char *got = NULL;
    cr_assert_eq(wg_catalog_find_connector_text(&got, NULL, cat, args), 0);
    cr_assert_not_null(strstr(got, "\"query\":\"a\\u2028b\""), "%s", got);
    free(got);
    json_decref(args);
    wg_catalog_free(cat);
}

Test(catalog_json, invalid_utf8_query_is_einval_like_the_jansson_path)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    static const char *const bad[] = {
        "caf\xC3", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
        "\x80", "ok \xE2\x82", "\xFF",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *args = json_object();
        json_object_set_new(args, "query", json_string_nocheck(bad[i]));
        char *got = (char *)0x1;
        json_t *o = NULL;
        cr_assert_eq(wg_catalog_find_connector_text(&got, NULL, cat, args), WG_EINVAL, "case %zu", i);
        cr_assert_eq(got, (char *)0x1);
        cr_assert_eq(wg_catalog_find_connector(&o, cat, args), WG_EINVAL, "case %zu", i);
        json_decref(args);
    }
    wg_catalog_free(cat);
}

Test(catalog_json, utf8_rules_at_each_boundary)
{
    static const struct {
        const char *s;
        int ok;
    } v[] = {
        { "\x7F", 1 }, { "\xC2\x80", 1 }, { "\xC1\xBF", 0 }, { "\xDF\xBF", 1 },
        { "\xE0\xA0\x80", 1 }, { "\xE0\x9F\xBF", 0 }, { "\xED\x9F\xBF", 1 }, { "\xED\xA0\x80", 0 },
        { "\xED\xBF\xBF", 0 }, { "\xEE\x80\x80", 1 }, { "\xEF\xBF\xBF", 1 }, { "\xF0\x90\x80\x80", 1 },
        { "\xF0\x8F\xBF\xBF", 0 }, { "\xF4\x8F\xBF\xBF", 1 }, { "\xF4\x90\x80\x80", 0 },
        { "abcdefgh\xC3\xA9ijklmnop", 1 }, { "abcdefgh\xC3", 0 }, { "\xC3\xA9\xC3", 0 },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cr_assert_eq(wg_catalog__utf8_ok(v[i].s, strlen(v[i].s)), v[i].ok, "case %zu", i);
        json_t *j = json_string(v[i].s);
        cr_assert_eq(j != NULL, v[i].ok, "jansson disagrees on case %zu", i);
        json_decref(j);
    }
}

Test(catalog_json, catalog_strings_that_need_escaping_match_jansson)
{
    const char *doc =
        "[{\"id\":\"quote-tool\",\"name\":\"Quote \\\"Tool\\\" \\\\ \\u0007\",\"description\":"
        "\"Tabs\\there, newline\\nthere, \\u2028 and \\u00e9 and \\ud83d\\ude00 and \\u001f.\","
        "\"author\":\"A/B\",\"category\":\"Utilities\",\"url\":\"https://example.com/q\","
        "\"installCmd\":\"npx -y quote-tool\",\"capabilities\":[\"say \\\"x\\\"\",\"\\u0008\\f\"],"
        "\"keywords\":[\"quote\"],\"official\":true}]";
    const char *docs[1] = { doc };
    size_t lens[1] = { strlen(doc) };
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_parse(&cat, docs, lens, NULL, 1), 0, "%s", wg_error_last());
    json_t *args = json_pack("{s:s}", "query", "quote tool");
    same_bytes(cat, args);
    json_decref(args);
    wg_catalog_free(cat);
}

Test(catalog_json, scores_print_as_jansson_prints_reals)
{
    static const double v[] = { 0, 0.125, 1, 5.375, 9.25, 123456789.875, 70368744177663.5,
                                70368744177664.0, 1e17, 3.3, 1e-5, 2.5e-300 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        wg_catbuf b = { 0 };
        wg_catbuf__eighths(&b, v[i]);
        wg_catbuf__put(&b, "", 0);
        cr_assert(!b.failed);
        b.p[b.len] = '\0';
        json_t *r = json_real(v[i]);
        char *want = json_dumps(r, JSON_ENCODE_ANY);
        cr_assert_str_eq(b.p, want, "value %zu", i);
        free(want);
        json_decref(r);
        free(b.p);
    }
}

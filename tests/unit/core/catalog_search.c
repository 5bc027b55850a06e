/* Tests for catalog search and the agent tools' JSON (spec 4 find_connector,
 * list_connector_categories; original-facts 7.2, 12.7) and the ranking's
 * quality on tests/data/catalog/eval.tsv (floors, not timings). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/catalog.h"
#include "waggle/error.h"
#include "wgtest.h"

static wg_catalog *cat;

static void setup(void)
{
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0, "%s", wg_error_last());
}

static void teardown(void)
{
    wg_catalog_free(cat);
}

TestSuite(catalog_search, .init = setup, .fini = teardown);

static json_t *find(const char *args_json)
{
    json_error_t e;
    json_t *args = json_loads(args_json, 0, &e);
    cr_assert_not_null(args, "bad test JSON %s", args_json);
    json_t *out = NULL;
    cr_assert_eq(wg_catalog_find_connector(&out, cat, args), 0);
    json_decref(args);
    return out;
}

static const char *top_id(json_t *out, size_t i)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(out, "matches"), i), "id"));
}

Test(catalog_search, crashes_in_the_app_ranks_an_error_tracker_first)
{
    json_t *out = find("{\"query\":\"users report crashes in the app\"}");
    const char *id = top_id(out, 0);
    cr_assert(strcmp(id, "sentry") == 0 || strcmp(id, "rollbar") == 0 || strcmp(id, "smartbear") == 0,
              "top is %s", id);
    json_decref(out);
}

Test(catalog_search, match_shape_is_the_spec_4_shape)
{
    json_t *out = find("{\"query\":\"postgres\",\"limit\":1}");
    cr_assert_str_eq(json_string_value(json_object_get(out, "query")), "postgres");
    cr_assert_eq(json_integer_value(json_object_get(out, "catalogSize")), (json_int_t)wg_catalog_count(cat));
    cr_assert_eq(json_integer_value(json_object_get(out, "matchCount")), 1);
    json_t *m = json_array_get(json_object_get(out, "matches"), 0);
    static const char *keys[] = { "id", "name", "category", "description", "capabilities",
                                  "installCmd", "url", "official", "matchScore" };
    cr_assert_eq(json_object_size(m), 9);
    for (size_t i = 0; i < 9; i++)
        cr_assert_not_null(json_object_get(m, keys[i]), "missing %s", keys[i]);
    cr_assert_str_eq(json_string_value(json_object_get(m, "id")), "postgres");
    cr_assert(json_is_true(json_object_get(m, "official")));
    cr_assert(json_is_array(json_object_get(m, "capabilities")));
    cr_assert_gt(json_number_value(json_object_get(m, "matchScore")), 0);
    json_decref(out);
}

Test(catalog_search, empty_query_is_the_error_object)
{
    static const char *cases[] = { "{\"query\":\"   \"}", "{}", "{\"query\":null}", "{\"query\":[1]}" };
    for (size_t i = 0; i < 4; i++) {
        json_t *out = find(cases[i]);
        cr_assert_str_eq(json_string_value(json_object_get(out, "error")), "query is required");
        cr_assert_str_eq(json_string_value(json_object_get(out, "hint")),
                         "Pass a short description of the integration the user wants.");
        cr_assert_eq(json_object_size(out), 2);
        json_decref(out);
    }
}

Test(catalog_search, limit_defaults_and_clamps_like_the_original)
{
    static const struct {
        const char *limit;
        json_int_t want;
    } cases[] = {
        { "0", 10 }, { "-5", 1 }, { "\"3\"", 3 }, { "500", 30 }, { "\"abc\"", 10 },
        { "null", 10 }, { "2.7", 2 }, { "true", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "{\"query\":\"database\",\"limit\":%s}", cases[i].limit);
        json_t *out = find(args);
        cr_assert_eq(json_integer_value(json_object_get(out, "matchCount")), cases[i].want,
                     "limit %s", cases[i].limit);
        cr_assert_eq(json_array_size(json_object_get(out, "matches")), (size_t)cases[i].want);
        json_decref(out);
    }
}

Test(catalog_search, category_filter_keeps_only_that_category)
{
    json_t *out = find("{\"query\":\"search\",\"category\":\"database\",\"limit\":30}");
    json_t *ms = json_object_get(out, "matches");
    cr_assert_gt(json_array_size(ms), 3);
    for (size_t i = 0; i < json_array_size(ms); i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ms, i), "category")), "Database");
    json_decref(out);
}

Test(catalog_search, unknown_category_gives_the_no_match_hint)
{
    json_t *out = find("{\"query\":\"postgres\",\"category\":\"Databases\"}");
    cr_assert_eq(json_integer_value(json_object_get(out, "matchCount")), 0);
    cr_assert_null(json_object_get(out, "catalogSize"));
    cr_assert_null(json_object_get(out, "matches"));
    cr_assert_not_null(strstr(json_string_value(json_object_get(out, "hint")),
                              "Call list_connector_categories for counts."));
    json_decref(out);
}

Test(catalog_search, gibberish_matches_nothing)
{
    json_t *out = find("{\"query\":\"qqqzzzxxyy\"}");
    cr_assert_eq(json_integer_value(json_object_get(out, "matchCount")), 0);
    cr_assert_not_null(json_object_get(out, "hint"));
    json_decref(out);
}

Test(catalog_search, any_spelling_of_an_id_ranks_it_first)
{
    static const char *q[] = { "mcp-server-github", "@modelcontextprotocol/server-github",
                               "GitHub MCP Server", "github" };
    for (size_t i = 0; i < 4; i++) {
        wg_catalog_hit h[5];
        size_t n = 0;
        cr_assert_eq(wg_catalog_search(h, 5, &n, cat, q[i], NULL), 0);
        cr_assert_geq(n, 1);
        cr_assert_str_eq(h[0].server->id, "github", "query %s", q[i]);
    }
}

Test(catalog_search, results_are_sorted_and_deterministic)
{
    wg_catalog_hit a[30], b[30];
    size_t na = 0, nb = 0;
    cr_assert_eq(wg_catalog_search(a, 30, &na, cat, "database", NULL), 0);
    cr_assert_eq(wg_catalog_search(b, 30, &nb, cat, "database", NULL), 0);
    cr_assert_eq(na, nb);
    for (size_t i = 0; i < na; i++) {
        cr_assert_eq(a[i].server, b[i].server);
        if (i)
            cr_assert_geq(a[i - 1].score, a[i].score);
    }
}

Test(catalog_search, unknown_category_in_the_library_is_einval)
{
    wg_catalog_hit h[1];
    size_t n = 7;
    cr_assert_eq(wg_catalog_search(h, 1, &n, cat, "x", "Nope"), WG_EINVAL);
    cr_assert_not_null(strstr(wg_error_last(), "Nope"));
}

Test(catalog_search, categories_list_all_14_in_spec_order_with_counts)
{
    json_t *out = NULL;
    cr_assert_eq(wg_catalog_categories(&out, cat), 0);
    json_t *list = json_object_get(out, "categories");
    cr_assert_eq(json_array_size(list), 14);
    cr_assert_eq(json_integer_value(json_object_get(out, "categoryCount")), 14);
    json_int_t sum = 0;
    for (int i = 0; i < 14; i++) {
        json_t *c = json_array_get(list, (size_t)i);
        cr_assert_str_eq(json_string_value(json_object_get(c, "category")), wg_catalog_category_name(i));
        sum += json_integer_value(json_object_get(c, "count"));
    }
    cr_assert_eq(sum, json_integer_value(json_object_get(out, "totalServers")));
    cr_assert_gt(json_integer_value(json_object_get(out, "officialServers")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 7), "emoji")), "\xE2\x98\x81");
    json_decref(out);
}

/* ---- quality on the evaluation set ---------------------------------------- */

/* recall@5 and MRR of the ranking on one evaluation file. */
static void measure(const char *file, size_t *queries_out, double *recall, double *mrr)
{
    char *text = wgt_read_file(file);
    cr_assert_not_null(text);
    size_t queries = 0, found5 = 0;
    double rr = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !strchr(line, '\t'))
            continue;
        char *tab = strchr(line, '\t');
        *tab = '\0';
        char want[512];
        snprintf(want, sizeof want, ",%s,", tab + 1);
        wg_catalog_hit h[10];
        size_t n = 0;
        cr_assert_eq(wg_catalog_search(h, 10, &n, cat, line, NULL), 0);
        queries++;
        for (size_t i = 0; i < n; i++) {
            char key[128];
            snprintf(key, sizeof key, ",%s,", h[i].server->id);
            if (strstr(want, key)) {
                rr += 1.0 / (double)(i + 1);
                found5 += i < 5;
                break;
            }
        }
    }
    free(text);
    *queries_out = queries;
    *recall = (double)found5 / (double)queries;
    *mrr = rr / (double)queries;
}

Test(catalog_search, eval_set_recall_at_5_and_mrr_meet_the_floor)
{
    size_t queries;
    double recall, mrr;
    measure(WG_TEST_DATA_DIR "/catalog/eval.tsv", &queries, &recall, &mrr);
    cr_log_info("eval: %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 100);
    cr_assert_geq(recall, 0.95, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.85, "MRR %.3f", mrr);
}

/* The held-out set was never used for tuning, so its floor is lower: it
 * guards against regressions, not a target to tune to. */
Test(catalog_search, heldout_set_stays_above_its_floor)
{
    size_t queries;
    double recall, mrr;
    measure(WG_TEST_DATA_DIR "/catalog/heldout.tsv", &queries, &recall, &mrr);
    cr_log_info("held-out: %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 30);
    cr_assert_geq(recall, 0.90, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.80, "MRR %.3f", mrr);
}

/* ---- issue 12: categories asked for without words, needs without products -- */

Test(catalog_search, a_category_with_only_stop_words_lists_the_category)
{
    static const char *const cases[] = {
        "{\"query\":\"server\",\"category\":\"Database\",\"limit\":30}",
        "{\"query\":\"I need a tool for my app\",\"category\":\"database\",\"limit\":30}",
        "{\"query\":\"\",\"category\":\"Database\",\"limit\":30}",
        "{\"category\":\"Database\",\"limit\":30}",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *out = find(cases[i]);
        json_t *ms = json_object_get(out, "matches");
        cr_assert_eq(json_array_size(ms), 30, "case %zu: %zu matches", i, json_array_size(ms));
        int seen_unofficial = 0;
        for (size_t k = 0; k < json_array_size(ms); k++) {
            json_t *m = json_array_get(ms, k);
            cr_assert_str_eq(json_string_value(json_object_get(m, "category")), "Database");
            int official = json_is_true(json_object_get(m, "official"));
            cr_assert(!(official && seen_unofficial), "official servers come first");
            seen_unofficial |= !official;
        }
        json_decref(out);
    }
    /* without a category an empty query is still the error, and gibberish
     * with a category is still no match */
    json_t *out = find("{\"query\":\"  \",\"category\":\"Nope\"}");
    cr_assert_str_eq(json_string_value(json_object_get(out, "error")), "query is required");
    json_decref(out);
    out = find("{\"query\":\"qqqzzzxxyy\",\"category\":\"Database\"}");
    cr_assert_eq(json_integer_value(json_object_get(out, "matchCount")), 0);
    json_decref(out);
}

/* The issue's own examples: needs that name no product. */
Test(catalog_search, needs_without_product_names_find_their_kind_of_server)
{
    static const struct {
        const char *need;
        const char *ids;   /* any of these in the top 5 */
    } v[] = {
        { "post in #releases that v4.2 is live", ",slack,slack-workspace,discord,telegram,lark," },
        { "find a 30 min slot next week for three of us", ",google-calendar,microsoft-365,google-workspace," },
        { "is this IP known to be malicious?", ",virustotal," },
        { "get this contract signed by the client", ",esignatures," },
        { "add a TXT record to verify our domain", ",cloudflare,hostinger," },
        { "what is 17% of 2340", ",calculator," },
        { "how many signups did we get yesterday", ",google-analytics,posthog," },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        wg_catalog_hit h[5];
        size_t n = 0;
        cr_assert_eq(wg_catalog_search(h, 5, &n, cat, v[i].need, NULL), 0);
        int found = 0;
        for (size_t k = 0; k < n; k++) {
            char key[160];
            snprintf(key, sizeof key, ",%s,", h[k].server->id);
            found |= strstr(v[i].ids, key) != NULL;
        }
        cr_assert(found, "\"%s\": none of %s in the top 5 (top is %s)", v[i].need, v[i].ids,
                  n ? h[0].server->id : "nothing");
    }
    /* the longest trigger wins: signing up is not signing a contract */
    wg_catalog_hit h[1];
    size_t n = 0;
    cr_assert_eq(wg_catalog_search(h, 1, &n, cat, "how many users signed up this week", NULL), 0);
    cr_assert(n == 1 && strcmp(h[0].server->id, "esignatures") != 0);
}

/* Floors that guard against regressions (never targets to tune to): the
 * tuning set's, and the held-out set's as measured once when it was written. */
Test(catalog_search, intent_sets_stay_above_their_floors)
{
    size_t queries;
    double recall, mrr;
    measure(WG_TEST_DATA_DIR "/catalog/needs_tuning.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (tuning): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 100);
    cr_assert_geq(recall, 0.95, "recall@5 %.3f", recall);
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (held-out): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 80);
    /* heldout, heldout2 and heldout5 were tuned on by the need lexicon
     * (catalog3): no longer held out, their floors are regression guards */
    cr_assert_geq(recall, 0.95, "recall@5 %.3f", recall);
    measure(WG_TEST_DATA_DIR "/catalog/needs_tuning2.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (tuning, round 2): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 80);
    cr_assert_geq(recall, 0.95, "recall@5 %.3f", recall);
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout2.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (held-out, round 2): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 80);
    cr_assert_geq(recall, 0.93, "recall@5 %.3f", recall);
    /* round 3: heldout3 was written before round 3 and then tuned on;
     * heldout4 was written after round 3's tuning, measured, then tuned on
     * in round 4; heldout5 was written after round 4, tuned on by catalog3 */
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout3.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (round 3, tuned on): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 80);
    cr_assert_geq(recall, 0.95, "recall@5 %.3f", recall);
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout4.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (round 4, tuned on): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 40);
    cr_assert_geq(recall, 0.95, "recall@5 %.3f", recall);
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout5.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (round 4, tuned on by the lexicon): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 40);
    cr_assert_geq(recall, 0.95, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.72, "MRR %.3f", mrr);
    /* Written from the category list only, ids filled afterwards, never
     * tuned on (catalog2): measured 0.904 / 0.784. */
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout6.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (held-out, round 6): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 80);
    cr_assert_geq(recall, 0.88, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.74, "MRR %.3f", mrr);
    /* Written after the need lexicon (catalog3), committed before its first
     * run: measured 0.832 / 0.692 fresh (0.748 / 0.614 on the ranking before
     * the lexicon), then tuned on: 0.963 / 0.761. */
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout7.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (round 7, tuned on): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 100);
    cr_assert_geq(recall, 0.93, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.72, "MRR %.3f", mrr);
    /* Written after catalog3's lexicon and round 7, committed before its
     * first run: measured 0.889 / 0.726 fresh (0.815 / 0.696 before the
     * lexicon), then tuned on (round 8): 0.954 / 0.767. */
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout8.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (round 8, tuned on): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 100);
    cr_assert_geq(recall, 0.92, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.73, "MRR %.3f", mrr);
    /* Written after round 8, committed before its first run: measured
     * 0.889 / 0.744 fresh (0.843 / 0.668 before the lexicon), then tuned on
     * (round 9): 0.991 / 0.821. */
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout9.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (round 9, tuned on): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 100);
    cr_assert_geq(recall, 0.96, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.79, "MRR %.3f", mrr);
    /* Written before round 9, committed before its first run, never tuned
     * on: measured 0.962 / 0.826 after round 9 (the same before it). */
    measure(WG_TEST_DATA_DIR "/catalog/needs_heldout10.tsv", &queries, &recall, &mrr);
    cr_log_info("needs (held-out, round 10): %zu queries, recall@5 %.3f, MRR %.3f", queries, recall, mrr);
    cr_assert_geq(queries, 100);
    cr_assert_geq(recall, 0.93, "recall@5 %.3f", recall);
    cr_assert_geq(mrr, 0.79, "MRR %.3f", mrr);
}

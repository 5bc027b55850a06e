/* Tests for keyword extraction, STOP_WORDS and word matching (spec 3.2;
 * original-facts 3.2, 12.6). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/text.h"

static void keywords_are(const char *text, const char *const *want, size_t n)
{
    wg_keywords kw;
    cr_assert_eq(wg_text_keywords(&kw, text), 0);
    cr_assert_eq(kw.count, n, "\"%s\": %zu keywords, want %zu", text, kw.count, n);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(kw.items[i], want[i]);
    wg_keywords_free(&kw);
}

Test(text, keywords_reference_vectors)
{
    keywords_are("Risk-Assessment for my PROJECT!!", (const char *[]){ "risk-assessment", "project" }, 2);
    keywords_are("I need help with the code review", (const char *[]){ "code", "review" }, 2);
    keywords_are("don't use snake_case", (const char *[]){ "dont", "snake_case" }, 2);
    keywords_are("Zürich café data", (const char *[]){ "zrich", "caf", "data" }, 3);
    keywords_are("the a an", NULL, 0);
    keywords_are("", NULL, 0);
    keywords_are(NULL, NULL, 0);
}

Test(text, keywords_keep_duplicates_and_drop_short_tokens)
{
    keywords_are("risk risk ab abc", (const char *[]){ "risk", "risk", "abc" }, 3);
}

Test(text, stop_words_hold_the_notable_entries)
{
    const char *notable[] = { "want", "need", "help", "make", "please", "like", "get", "give",
        "use", "using", "something", "thing", "way", "what", "which", "who", "how", "when",
        "where", "why", "all", "each", "every", "more", "most", "some", "any", "just", "very",
        "also", "than", "then", "a", "an", "is", "be", "do", "or", "so", "to", "of", "in", "on",
        "at", "by", "up", "it", "my", "no" };
    for (size_t i = 0; i < sizeof notable / sizeof notable[0]; i++)
        cr_expect(wg_text_is_stop_word(notable[i]), "%s", notable[i]);
    cr_expect(!wg_text_is_stop_word("risk"));
    cr_expect(!wg_text_is_stop_word(NULL));
    cr_expect_geq(wg_text_stop_word_count(), 90);
    for (size_t i = 0; i < wg_text_stop_word_count(); i++)
        for (const char *c = wg_text_stop_word(i); *c; c++)
            cr_expect(*c >= 'a' && *c <= 'z', "stop words are lower-case");
    cr_expect_null(wg_text_stop_word(wg_text_stop_word_count()));
}

Test(text, fold_lowercases_and_splits_on_punctuation)
{
    char *f = NULL;
    cr_assert_eq(wg_text_fold(&f, "  Risk-Assessment_v2!  "), 0);
    cr_expect_str_eq(f, "risk assessment v2");
    free(f);
    cr_assert_eq(wg_text_fold(&f, "Zürich"), 0);
    cr_expect_str_eq(f, "z rich");
    free(f);
    cr_assert_eq(wg_text_fold(&f, NULL), 0);
    cr_expect_str_eq(f, "");
    free(f);
}

Test(text, word_match_allows_inflections_only)
{
    cr_expect(wg_text_word_match("risk assessment", "risk"));
    cr_expect(wg_text_word_match("risk assessment", "risks"));
    cr_expect(wg_text_word_match("risk assessment", "assess"));
    cr_expect(wg_text_word_match("risk assessment", "risk assessment"));
    cr_expect(wg_text_word_match("create plan", "planning"));
    cr_expect(wg_text_word_match("planning steps", "plan"));
    cr_expect(!wg_text_word_match("search memory", "memo"));
    cr_expect(!wg_text_word_match("database", "data"));
    cr_expect(!wg_text_word_match("planet", "plan"));
    cr_expect(!wg_text_word_match("research", "search"));
    cr_expect(!wg_text_word_match("abc", ""));
    cr_expect(!wg_text_word_match(NULL, "x"));
}

Test(text, one_line_collapses_and_cuts_at_characters)
{
    char *s = NULL;
    cr_assert_eq(wg_text_one_line(&s, "  a\n\n## b\t\xff c  ", 100), 0);
    cr_expect_str_eq(s, "a ## b ? c");
    free(s);
    cr_assert_eq(wg_text_one_line(&s, "\xc3\xa9\xc3\xa9\xc3\xa9", 5), 0);
    cr_expect_str_eq(s, "\xc3\xa9\xc3\xa9");
    free(s);
}

Test(text, json_string_survives_invalid_utf8)
{
    json_t *j = wg_text_json_string("ok\xff\xfe!");
    cr_assert_not_null(j);
    cr_expect_str_eq(json_string_value(j), "ok?" "?!");
    json_decref(j);
    j = wg_text_json_string(NULL);
    cr_expect_str_eq(json_string_value(j), "");
    json_decref(j);
}

/* Tests for the catalog's words: stop words and the light stemmer
 * (src/core/catalog_text.c). The stemmer only has to map the forms people
 * write to one stem; these pin the forms the catalog relies on. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/catalog_internal.h"

static const char *stem(const char *w)
{
    static char buf[64];
    strcpy(buf, w);
    wg_catalog__stem(buf, strlen(buf));
    return buf;
}

Test(catalog_text, inflections_share_a_stem)
{
    static const char *groups[][4] = {
        { "message", "messages", "messaging", NULL },
        { "crash", "crashes", "crashed", "crashing" },
        { "bill", "bills", "billing", "billed" },
        { "scrape", "scraper", "scraping", "scrapes" },
        { "deploy", "deploys", "deployment", "deploying" },
        { "automate", "automation", "automated", NULL },
        { "query", "queries", NULL, NULL },
        { "database", "databases", NULL, NULL },
        { "schedule", "scheduling", "scheduled", NULL },
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        char first[64];
        strcpy(first, stem(groups[g][0]));
        for (int i = 1; i < 4 && groups[g][i]; i++)
            cr_assert_str_eq(stem(groups[g][i]), first, "%s vs %s", groups[g][i], groups[g][0]);
    }
}

Test(catalog_text, short_and_special_words_are_kept)
{
    cr_assert_str_eq(stem("sms"), "sms");
    cr_assert_str_eq(stem("access"), "access");
    cr_assert_str_eq(stem("status"), "status");
    cr_assert_str_eq(stem("analysis"), "analysis");
    cr_assert_str_eq(stem("users"), "user");
}

Test(catalog_text, stop_words_found_including_the_longest)
{
    static const char *stops[] = { "a", "the", "app", "mcp", "server", "somewhere", "something",
                                   "without", "yours", "please", "want" };
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        cr_assert(wg_catalog__is_stop(stops[i], strlen(stops[i])), "%s", stops[i]);
    static const char *keep[] = { "crash", "email", "stripe", "somewheres", "apps2", "database" };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        cr_assert(!wg_catalog__is_stop(keep[i], strlen(keep[i])), "%s", keep[i]);
}

typedef struct {
    char out[8][WG_CAT_WORD_MAX + 1];
    size_t n;
} collected;

static int collect(void *ctx, const char *w, size_t len, size_t pos)
{
    collected *c = ctx;
    cr_assert_eq(pos, c->n);
    if (c->n < 8) {
        memcpy(c->out[c->n], w, len);
        c->out[c->n][len] = '\0';
        c->n++;
    }
    return 0;
}

Test(catalog_text, words_lowercase_split_drop_stops_and_stem)
{
    collected c = { .n = 0 };
    size_t n = wg_catalog__words("I need an MCP server that Sends E-mails!", collect, &c);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(c.out[0], "send");
    cr_assert_str_eq(c.out[1], "e");
    cr_assert_str_eq(c.out[2], "mail");
}

Test(catalog_text, every_stop_word_is_found_so_the_table_is_sorted)
{
    /* bsearch silently misses words of an unsorted table; probe each letter's
     * common stop words through the public predicate. */
    static const char *all[] = { "a", "about", "all", "also", "am", "an", "and", "any", "app",
        "are", "as", "at", "be", "but", "by", "can", "could", "do", "for", "from", "get", "had",
        "has", "have", "help", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let",
        "like", "make", "mcp", "me", "my", "need", "of", "on", "or", "our", "please", "server",
        "so", "some", "than", "that", "the", "them", "this", "to", "tool", "up", "us", "use",
        "via", "want", "was", "we", "what", "when", "which", "who", "will", "with", "would",
        "you", "your" };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cr_assert(wg_catalog__is_stop(all[i], strlen(all[i])), "%s", all[i]);
}

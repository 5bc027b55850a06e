/* Tests for `waggle marker` (spec 4.3). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "trust_cli.h"

Test(cli_marker, emit_then_parse)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "marker", "emit", "--name", "pubmed-search",
                  "--source", "marketplace", "--reason", "You asked\nfor {literature}", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "<!--waggle:capability_request {\"name\":\"pubmed-search\","
                     "\"source\":\"marketplace\",\"reason\":\"You asked for literature\"}-->\n");
    char text[1024];
    snprintf(text, sizeof text, "Sure.\n%sand `install_capability` with name \"b\" and source \"starter-pack\".", r.out);
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, text, (const char *[]){ "marker", "parse", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *a = json_loads(r.out, 0, NULL);
    cr_assert_eq(json_array_size(a), 2);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "name")), "pubmed-search");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(a, 1), "source")), "starter-pack");
    cr_expect(json_is_true(json_object_get(json_array_get(a, 1), "legacy")));
    json_decref(a);
    wgt_result_free(&r);
}

Test(cli_marker, bad_usage_exits_2)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "marker", "emit", "--name", "a", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "marker", "emit", "--name", "a-->", "--source", "b", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "marker", "zap", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "marker", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
}

/* Tests for `waggle acquire` (spec 3) - the done-when. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "trust_cli.h"

Test(cli_acquire, new_user_gets_installable_recommendation_with_badge)
{
    char *dir = wgt_tmpdir();
    wgt_result r;
    trust_cli_run(&r, dir, NULL, (const char *[]){ "acquire", "assess the risks of my project", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "## Capability Gap Detected"));
    cr_expect_not_null(strstr(r.out, "Install **risk-assessment** from the starter-pack."));
    cr_expect_not_null(strstr(r.out, "Risk: **Low**"));
    cr_expect_not_null(strstr(r.out, "- **Risk level**: Low"));
    wgt_result_free(&r);

    trust_cli_run(&r, dir, NULL, (const char *[]){ "skills", "install", "risk-assessment", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);

    trust_cli_run(&r, dir, NULL, (const char *[]){ "acquire", "--json", "risk", "assessment", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *p = json_loads(r.out, 0, NULL);
    cr_assert_not_null(p);
    cr_expect(json_is_true(json_object_get(p, "alreadyHandled")));
    cr_expect(json_is_false(json_object_get(p, "gapDetected")));
    json_t *rec = json_object_get(p, "recommendation");
    cr_expect_str_eq(json_string_value(json_object_get(rec, "source")), "installed");
    cr_expect(json_is_null(json_object_get(rec, "installAction")));
    json_decref(p);
    wgt_result_free(&r);
    wgt_rmtree(dir);
    free(dir);
}

Test(cli_acquire, marketplace_from_deps)
{
    wgt_result r;
    const char *deps = "{\"marketplace\":[{\"name\":\"pubmed-search\",\"description\":"
                       "\"Search PubMed\",\"score\":0.9}]}";
    trust_cli_run(&r, NULL, deps, (const char *[]){ "acquire", "--deps", "-", "--json",
                  "pubmed literature search", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *p = json_loads(r.out, 0, NULL);
    json_t *rec = json_object_get(p, "recommendation");
    cr_expect_str_eq(json_string_value(json_object_get(rec, "name")), "pubmed-search");
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rec, "trust"), "riskLevel")), "medium");
    json_decref(p);
    wgt_result_free(&r);
}

Test(cli_acquire, empty_need_exits_2)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "acquire", " ", NULL });
    cr_expect_eq(r.status, 2);
    cr_expect_not_null(strstr(r.err, "\"need\" is required"));
    wgt_result_free(&r);
}

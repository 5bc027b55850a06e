/* Tests for `waggle trust` (spec 5). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "trust_cli.h"

Test(cli_trust, json_has_spec_fields)
{
    wgt_result r;
    trust_cli_run(&r, NULL, "Run bash to deploy, use the api_key from .env, then write_file the log",
                  (const char *[]){ "--json", "trust", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    cr_assert_not_null(j);
    cr_expect_str_eq(json_string_value(json_object_get(j, "riskLevel")), "high");
    cr_expect_str_eq(json_string_value(json_object_get(j, "trustSource")), "local_user");
    cr_expect_str_eq(json_string_value(json_object_get(j, "approvalClass")), "critical");
    cr_expect_str_eq(json_string_value(json_object_get(j, "assessmentMode")), "heuristic");
    cr_expect(json_is_true(json_object_get(json_object_get(j, "permissions"), "secrets")));
    cr_expect_eq(json_array_size(json_object_get(j, "factors")), 3);
    json_decref(j);
    wgt_result_free(&r);
}

Test(cli_trust, summary_with_source_and_declared)
{
    wgt_result r;
    trust_cli_run(&r, NULL, "Some content", (const char *[]){ "--json", "trust", "--source", "starter-pack",
                  "--declared", "network", "--summary", "-", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "Risk: **Low** (mixed) | Source: Waggle curated starter pack | "
                     "Approval: Standard\nPermissions: network\nEvidence: network: declared\n");
    wgt_result_free(&r);
}

Test(cli_trust, front_matter_permissions_are_declared)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "--json", "trust", "--source", "starter-pack",
                  WG_SOURCE_DIR "/data/skills/changelog-from-git.md", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "\"assessmentMode\": \"mixed\""));
    cr_expect_not_null(strstr(r.out, "\"riskLevel\": \"medium\""));
    wgt_result_free(&r);
}

Test(cli_trust, bad_input_exits_2)
{
    wgt_result r;
    trust_cli_run(&r, NULL, "x", (const char *[]){ "--json", "trust", "--declared", "root", NULL });
    cr_expect_eq(r.status, 2);
    cr_expect_not_null(strstr(r.err, "unknown permission"));
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, "x", (const char *[]){ "--json", "trust", "--type", "virus", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "--json", "trust", "/nonexistent/file.md", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "--json", "trust", "--bogus", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
}

Test(cli_trust, help_teaches)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "--json", "trust", "--help", NULL });
    cr_expect_eq(r.status, 0);
    cr_expect_not_null(strstr(r.out, "usage: waggle trust"));
    cr_expect_not_null(strstr(r.out, "example:"));
    wgt_result_free(&r);
}

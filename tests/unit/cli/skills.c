/* Tests for `waggle skills` (spec 3.3). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "trust_cli.h"

Test(cli_skills, list_install_list)
{
    char *dir = wgt_tmpdir();
    wgt_result r;
    trust_cli_run(&r, dir, NULL, (const char *[]){ "skills", "list", "--json", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    cr_expect_eq(json_array_size(json_object_get(j, "active")), 0);
    size_t installable = json_array_size(json_object_get(j, "installable"));
    cr_expect_geq(installable, 20);
    json_t *first = json_array_get(json_object_get(j, "installable"), 0);
    cr_expect(json_is_string(json_object_get(first, "riskLevel")));
    json_decref(j);
    wgt_result_free(&r);

    trust_cli_run(&r, dir, NULL, (const char *[]){ "skills", "install", "code-review",
                  "--source", "starter-pack", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "Installed code-review"));
    cr_expect_not_null(strstr(r.out, "Approval: "));
    wgt_result_free(&r);

    char path[4096];
    snprintf(path, sizeof path, "%s/skills/code-review.md", dir);
    cr_expect_eq(access(path, R_OK), 0);

    trust_cli_run(&r, dir, NULL, (const char *[]){ "skills", "list", "--json", NULL });
    j = json_loads(r.out, 0, NULL);
    cr_expect_eq(json_array_size(json_object_get(j, "active")), 1);
    cr_expect_eq(json_array_size(json_object_get(j, "installable")), installable - 1);
    json_decref(j);
    wgt_result_free(&r);

    trust_cli_run(&r, dir, NULL, (const char *[]){ "skills", "install", "code-review", NULL });
    cr_expect_eq(r.status, 1);
    cr_expect_not_null(strstr(r.err, "already installed"));
    wgt_result_free(&r);
    wgt_rmtree(dir);
    free(dir);
}

Test(cli_skills, bad_name_source_or_unknown_exit_2)
{
    char *dir = wgt_tmpdir();
    wgt_result r;
    const char *const cases[][6] = {
        { "skills", "install", "../../etc/passwd", NULL },
        { "skills", "install", "risk-assessment", "--source", "marketplace", NULL },
        { "skills", "install", "no-such-skill", NULL },
        { "skills", "frobnicate", NULL },
        { "skills", "install", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trust_cli_run(&r, dir, NULL, cases[i]);
        cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
        wgt_result_free(&r);
    }
    wgt_rmtree(dir);
    free(dir);
}

Test(cli_skills, show_prints_the_skill)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "skills", "show", "risk-assessment", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(strncmp(r.out, "---\nname: risk-assessment", 25), 0);
    wgt_result_free(&r);
}

Test(cli_skills, env_override_dir_is_used)
{
    wgt_result r;
    const char *env[] = { "WAGGLE_DATA_DIR=/nonexistent/wg",
                          "WAGGLE_STARTER_SKILLS_DIR=" WG_TEST_DATA_DIR "/trust/starter", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, env, (const char *[]){ "skills", "list", NULL }), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "alpha"));
    cr_expect_null(strstr(r.out, "risk-assessment"));
    wgt_result_free(&r);
}

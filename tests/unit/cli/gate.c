/* Tests for `waggle gate` (issue #2 §4): exit codes, --json, --batch. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "wgtest.h"

static wgt_result run(const char *in, const char *const *argv)
{
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, in, NULL, argv), 0);
    return r;
}

Test(cli_gate, yolo_env_rm_rf_home_asks_with_a_reason)
{
    const char *argv[] = { "gate", "--level", "yolo", "bash", "{\"command\":\"env rm -rf ~/\"}", NULL };
    wgt_result r = run(NULL, argv);
    cr_expect_eq(r.status, 3);
    cr_expect(strstr(r.out, "needs confirmation at yolo"), "%s", r.out);
    cr_expect(strstr(r.out, "critical.rm_home: rm -rf targets the home directory (wrapped by env)"), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_gate, safe_call_exits_zero)
{
    const char *argv[] = { "gate", "bash", "{\"command\":\"ls -la | wc -l\"}", NULL };
    wgt_result r = run(NULL, argv);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "runs without confirmation at normal"), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_gate, json_output_has_the_contract_fields)
{
    const char *argv[] = { "gate", "--json", "--level", "trusted", "connector_github_create_issue", NULL };
    wgt_result r = run(NULL, argv);
    cr_expect_eq(r.status, 3);
    json_t *j = json_loads(r.out, 0, NULL);
    cr_assert_not_null(j, "%s", r.out);
    cr_expect_str_eq(json_string_value(json_object_get(j, "tool")), "connector_github_create_issue");
    cr_expect_str_eq(json_string_value(json_object_get(j, "level")), "trusted");
    cr_expect(json_is_true(json_object_get(j, "needsConfirmation")));
    cr_expect_str_eq(json_string_value(json_object_get(j, "approvalClass")), "elevated");
    cr_expect(json_is_false(json_object_get(j, "critical")));
    cr_expect(json_is_false(json_object_get(j, "autoApproved")));
    cr_expect_str_eq(json_string_value(json_object_get(j, "rule")), "connector.write_verb");
    cr_expect_eq(json_object_size(j), 8);
    json_decref(j);
    wgt_result_free(&r);
}

Test(cli_gate, bad_usage_and_invalid_json_exit_two)
{
    const char *a1[] = { "gate", "bash", "{\"command\":", NULL };
    const char *a2[] = { "gate", "--level", "max", "bash", NULL };
    const char *a3[] = { "gate", NULL };
    const char *a4[] = { "gate", "bash", "[]", NULL };
    const char *const *all[] = { a1, a2, a3, a4 };
    for (int i = 0; i < 4; i++) {
        wgt_result r = run(NULL, all[i]);
        cr_expect_eq(r.status, 2, "case %d: %s", i, r.err);
        cr_expect(r.err[0] != '\0');
        wgt_result_free(&r);
    }
}

Test(cli_gate, batch_answers_every_line_in_order_and_survives_garbage)
{
    const char *in =
        "{\"tool\":\"bash\",\"args\":{\"command\":\"sudo ls\"},\"level\":\"yolo\"}\n"
        "not json\n"
        "\n"
        "{\"tool\":\"write_file\",\"args\":{},\"level\":\"trusted\"}\n"
        "{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}}\n"
        "{\"tool\":\"bash\",\"args\":\"x\"}";
    const char *argv[] = { "gate", "--batch", NULL };
    wgt_result r = run(in, argv);
    cr_expect_eq(r.status, 0);
    char *save = NULL;
    const char *want_rule[] = { "critical.privilege", NULL, "tool.always_confirm", "bash.safe", NULL };
    int n = 0;
    for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        json_t *j = json_loads(line, 0, NULL);
        cr_assert_not_null(j, "line %d: %s", n, line);
        cr_assert_lt(n, 5);
        if (want_rule[n])
            cr_expect_str_eq(json_string_value(json_object_get(j, "rule")), want_rule[n]);
        else
            cr_expect_not_null(json_object_get(j, "error"), "line %d: %s", n, line);
        if (n == 2)
            cr_expect(json_is_true(json_object_get(j, "autoApproved")));
        json_decref(j);
    }
    cr_expect_eq(n, 5);
    wgt_result_free(&r);
}

Test(cli_gate, help_teaches)
{
    const char *argv[] = { "gate", "--help", NULL };
    wgt_result r = run(NULL, argv);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "--batch"));
    cr_expect(strstr(r.out, "exit status"));
    wgt_result_free(&r);
}

Test(cli_gate, args_from_stdin_and_batch_default_level)
{
    const char *a1[] = { "gate", "--json", "bash", "-", NULL };
    wgt_result r = run("{\"command\":\"sudo ls\"}", a1);
    cr_expect_eq(r.status, 3);
    cr_expect(strstr(r.out, "\"rule\":\"critical.privilege\""), "%s", r.out);
    wgt_result_free(&r);
    const char *a2[] = { "gate", "--batch", "--level", "yolo", NULL };
    r = run("{\"tool\":\"write_file\",\"args\":{}}\n{\"tool\":\"write_file\",\"level\":\"normal\"}\n", a2);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "\"level\":\"yolo\",\"needsConfirmation\":false"), "%s", r.out);
    cr_expect(strstr(r.out, "\"level\":\"normal\",\"needsConfirmation\":true"), "%s", r.out);
    wgt_result_free(&r);
}

/* Tests for `waggle gate` with the long commands of issue #10 §1 (16 KB,
 * 64 KiB, 1 MiB): the one-call form and --batch decide them, and a batch
 * goes on answering the lines after them. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gate_sizes.h"
#include "wgtest.h"

static const char *rule_of(const char *json_text)
{
    static char rule[64];
    json_t *j = json_loads(json_text, 0, NULL);
    cr_assert_not_null(j, "%s", json_text);
    const char *r = json_string_value(json_object_get(j, "rule"));
    snprintf(rule, sizeof rule, "%s", r ? r : "(none)");
    json_decref(j);
    return rule;
}

Test(cli_gate_sizes, one_call_decides_16k_and_64k_from_argv)
{
    size_t sizes[] = { 14000, 65536 };
    for (int i = 0; i < 2; i++) {
        size_t len;
        char *cmd = gatet_git_add(sizes[i], &len);
        char *args = gatet_command_json(cmd);
        const char *argv[] = { "gate", "--json", "bash", args, NULL };
        wgt_result r;
        cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
        cr_expect_eq(r.status, 3, "%zu bytes: status %d, %s", len, r.status, r.err);
        cr_expect_str_eq(rule_of(r.out), "bash.git", "%zu bytes", len);
        wgt_result_free(&r);
        free(args);
        free(cmd);
    }
}

Test(cli_gate_sizes, one_call_decides_one_mebibyte_from_stdin)
{
    size_t len;
    char *cmd = gatet_git_add(1u << 20, &len);
    char *args = gatet_command_json(cmd);
    const char *argv[] = { "gate", "--json", "--level", "yolo", "bash", "-", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, args, NULL, argv), 0);
    cr_expect_eq(r.status, 0, "1 MiB at yolo: status %d, %s", r.status, r.err);
    cr_expect_str_eq(rule_of(r.out), "bash.too_complex");
    wgt_result_free(&r);
    free(args);
    free(cmd);
}

Test(cli_gate_sizes, batch_answers_every_line_after_the_long_ones)
{
    size_t sizes[] = { 14000, 65536, 1u << 20 };
    const char *want[] = { "bash.git", "bash.git", "bash.too_complex" };
    size_t cap = (1u << 21) + 4096, n = 0;
    char *in = malloc(cap);
    cr_assert_not_null(in);
    for (int i = 0; i < 3; i++) {
        size_t len;
        char *cmd = gatet_git_add(sizes[i], &len);
        char *args = gatet_command_json(cmd);
        n += (size_t)snprintf(in + n, cap - n, "{\"tool\":\"bash\",\"args\":%s}\n", args);
        free(args);
        free(cmd);
    }
    n += (size_t)snprintf(in + n, cap - n, "%s\n",
                          "{\"tool\":\"bash\",\"args\":{\"command\":\"sudo ls\"},\"level\":\"yolo\"}");
    const char *argv[] = { "gate", "--batch", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, in, NULL, argv), 0);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *save = NULL;
    int k = 0;
    for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
        cr_assert_lt(k, 4, "%s", line);
        cr_expect_str_eq(rule_of(line), k < 3 ? want[k] : "critical.privilege", "line %d", k + 1);
    }
    cr_expect_eq(k, 4);
    wgt_result_free(&r);
    free(in);
}

Test(cli_gate_sizes, batch_skips_a_line_over_its_limit_and_goes_on)
{
    size_t big = (16u << 20) + 100;
    char *in = malloc(big + 256);
    cr_assert_not_null(in);
    memset(in, 'x', big);
    in[0] = '{';
    size_t n = big;
    n += (size_t)snprintf(in + n, 256, "\n%s\n",
                          "{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}}");
    const char *argv[] = { "gate", "--batch", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, in, NULL, argv), 0);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "{\"error\":\"line 1: longer than"), "%.200s", r.out);
    cr_expect(strstr(r.out, "\"rule\":\"bash.safe\""), "%.400s", r.out);
    wgt_result_free(&r);
    free(in);
}

/* Tests for `waggle pool` across separate invocations (issue #5, spec §13). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgtest.h"

static char *dir;

static wgt_result run(const char *const *args, const char *in)
{
    const char *argv[13] = { "--json", "--data-dir", dir };
    size_t n = 3;
    for (; *args && n < 12; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, in, NULL, argv), 0);
    return r;
}

static void setup(void)
{
    dir = wgt_tmpdir();
    static const char *const names[] = { "anthropic", "anthropic-2", "anthropic-3" };
    static const char *const keys[] = { "sk-ant-1", "sk-ant-2", "sk-ant-3" };
    for (int i = 0; i < 3; i++) {
        const char *a[] = { "vault", "set", names[i], NULL };
        wgt_result r = run(a, keys[i]);
        cr_assert_eq(r.status, 0, "%s", r.err);
        wgt_result_free(&r);
    }
}

static void teardown(void) { wgt_rmtree(dir); free(dir); }

TestSuite(cli_pool, .init = setup, .fini = teardown);

static void expect_next(const char *want)
{
    const char *a[] = { "pool", "next", "anthropic", NULL };
    wgt_result r = run(a, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char line[128];
    snprintf(line, sizeof line, "%s\n", want);
    cr_assert_str_eq(r.out, line);
    wgt_result_free(&r);
}

Test(cli_pool, rotates_and_cools_across_invocations)
{
    expect_next("anthropic");
    expect_next("anthropic-2");
    const char *rep[] = { "pool", "report", "anthropic", "anthropic-3", "429", NULL };
    wgt_result r = run(rep, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"available\": true"));
    wgt_result_free(&r);
    expect_next("anthropic");
    expect_next("anthropic-2");
    expect_next("anthropic");
    const char *st[] = { "pool", "status", "anthropic", NULL };
    r = run(st, NULL);
    cr_assert(strstr(r.out, "\"cooldownKeys\": 1"), "%s", r.out);
    cr_assert(strstr(r.out, "\"lastError\": \"HTTP 429\""));
    cr_assert_null(strstr(r.out, "sk-ant"), "no key values in status");
    wgt_result_free(&r);
}

Test(cli_pool, reveal_prints_key_and_all_cooled_exits_1)
{
    const char *rv[] = { "pool", "next", "anthropic", "--reveal", NULL };
    wgt_result r = run(rv, NULL);
    cr_assert_str_eq(r.out, "sk-ant-1\n");
    wgt_result_free(&r);
    static const char *const names[] = { "anthropic", "anthropic-2", "anthropic-3" };
    static const char *const codes[] = { "401", "402", "503" };
    for (int i = 0; i < 3; i++) {
        const char *a[] = { "pool", "report", "anthropic", names[i], codes[i], "--message", "boom", NULL };
        r = run(a, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        wgt_result_free(&r);
    }
    const char *nx[] = { "pool", "next", "anthropic", NULL };
    r = run(nx, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "cooling down or disabled"));
    wgt_result_free(&r);
    const char *st[] = { "pool", "status", "anthropic", NULL };
    r = run(st, NULL);
    cr_assert(strstr(r.out, "\"disabledKeys\": 1"), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_pool, retry_after_zero_recovers_immediately)
{
    const char *a[] = { "pool", "report", "anthropic", "anthropic", "429", "--retry-after", "0", NULL };
    wgt_result r = run(a, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    expect_next("anthropic");
}

Test(cli_pool, ok_counts_success)
{
    const char *a[] = { "pool", "report", "anthropic", "anthropic-2", "ok", NULL };
    wgt_result r = run(a, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    const char *st[] = { "pool", "status", "anthropic", NULL };
    r = run(st, NULL);
    cr_assert(strstr(r.out, "\"successCount\": 1"), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_pool, bad_usage_exits_2_and_missing_provider_fails)
{
    const char *bad[][7] = {
        { "pool", NULL },
        { "pool", "next", NULL },
        { "pool", "report", "anthropic", "anthropic", "teapot", NULL },
        { "pool", "report", "anthropic", "anthropic", "429", "--retry-after", "-5" },
        { "pool", "spin", "anthropic", NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *a[8] = { 0 };
        for (int k = 0; k < 7 && bad[i][k]; k++)
            a[k] = bad[i][k];
        wgt_result r = run(a, NULL);
        cr_assert_eq(r.status, 2, "case %zu: %s", i, r.err);
        wgt_result_free(&r);
    }
    const char *nk[] = { "pool", "next", "mistral", NULL };
    wgt_result r = run(nk, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "no keys for mistral"));
    wgt_result_free(&r);
    const char *unk[] = { "pool", "report", "anthropic", "nope", "429", NULL };
    r = run(unk, NULL);
    cr_assert_eq(r.status, 1);
    wgt_result_free(&r);
}

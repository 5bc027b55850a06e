/* Tests for `waggle tier` (issue #5, spec §10). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wgtest.h"
#include "waggle/store.h"

static char *dir;

static void setup(void) { dir = wgt_tmpdir(); }
static void teardown(void) { wgt_rmtree(dir); free(dir); }

TestSuite(cli_tier, .init = setup, .fini = teardown);

static wgt_result run(const char *a1, const char *a2)
{
    const char *argv[] = { "--json", "--data-dir", dir, "tier", a1, a2, NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    return r;
}

Test(cli_tier, default_is_free_json)
{
    wgt_result r = run(NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *got = json_loads(r.out, 0, NULL), *want = json_loads(
        "{\"tier\":\"FREE\",\"effectiveTier\":\"FREE\",\"trialStartedAt\":null,"
        "\"trialDaysRemaining\":0,\"trialExpired\":true}", 0, NULL);
    cr_assert(json_equal(got, want), "%s", r.out);
    json_decref(got);
    json_decref(want);
    wgt_result_free(&r);
}

Test(cli_tier, set_legacy_name_and_invalid)
{
    wgt_result r = run("set", "business");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"effectiveTier\": \"TEAMS\""));
    wgt_result_free(&r);
    r = run("set", "gold");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "Invalid tier. Must be one of: TRIAL, FREE, PRO, TEAMS, ENTERPRISE"));
    wgt_result_free(&r);
}

Test(cli_tier, start_trial_refuses_second)
{
    wgt_result r = run("start-trial", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"trialDaysRemaining\": 15"));
    wgt_result_free(&r);
    r = run("start-trial", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "TRIAL_ALREADY_STARTED"));
    wgt_result_free(&r);
}

Test(cli_tier, future_trial_in_config_is_free)
{
    wgt_write_file(dir, "config.json", "{\"tier\":\"TRIAL\",\"trialStartedAt\":\"2999-01-01T00:00:00Z\"}");
    wgt_result r = run(NULL, NULL);
    cr_assert(strstr(r.out, "\"effectiveTier\": \"FREE\""), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_tier, capabilities_and_admin_token)
{
    wgt_result r = run("capabilities", "free");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "\"connectorLimit\": 5"), "%s", r.out);
    wgt_result_free(&r);
    r = run("admin-token", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_eq(strlen(r.out), 65);
    char *first = strdup(r.out);
    wgt_result_free(&r);
    r = run("admin-token", NULL);
    cr_assert_str_eq(r.out, first, "the token is stable");
    free(first);
    wgt_result_free(&r);
    char p[4200];
    snprintf(p, sizeof p, "%s/admin-token", dir);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600);
}

/* Issue #11: a tier change the audit log cannot record is undone (fail
 * closed), so the log never misses a plan change. */
Test(cli_tier, a_change_the_audit_log_cannot_record_is_undone)
{
    wgt_result r = run("set", "pro");
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    /* the newest audit row deleted behind the log's back: appends now fail */
    wg_store *st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_store_exec(st, "DELETE FROM audit_log WHERE id = (SELECT MAX(id) FROM audit_log)",
                               NULL, 0, NULL, NULL), 0);
    wg_store_free(st);
    r = run("set", "teams");
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "the tier was not changed"), "%s", r.err);
    wgt_result_free(&r);
    r = run(NULL, NULL);
    cr_expect(strstr(r.out, "\"tier\": \"PRO\""), "still PRO: %s", r.out);
    wgt_result_free(&r);
}

/* settings.c - connector settings (wg_registry_set_setting): numeric
 * settings are whole numbers within the bounds their connector declares,
 * checked in the library so the CLI and the service refuse the same values
 * (issue 11 section 6: `connectors set email max_daily=abc` was accepted). */
#include <criterion/criterion.h>
#include <string.h>

#include "connect_fixture.h"

static wgt_connect f;

static void setup(void) { wgt_connect_open(&f, NULL, NULL, 0); }
static void teardown(void) { wgt_connect_close(&f); }

TestSuite(connect_settings, .init = setup, .fini = teardown);

static char *stored(const char *name)
{
    char *v = NULL;
    json_t *meta = NULL;
    if (f.vault->get(f.vault->ctx, name, &v, &meta) < 0)
        return NULL;
    json_decref(meta);
    return v;
}

Test(connect_settings, max_daily_not_a_number_is_einval_and_nothing_stored)
{
    static const char *const bad[] = { "abc", "", "1e3", " 5", "5 ", "+", "-", "0x10", "12abc",
                                       "99999999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = wg_registry_set_setting(f.reg, "email", "max_daily", bad[i]);
        cr_expect_eq(rc, WG_EINVAL, "'%s' -> %d", bad[i], rc);
        cr_expect_not_null(strstr(wg_error_last(), "max_daily"), "%s", wg_error_last());
        if (*bad[i])
            cr_expect_null(strstr(wg_error_last(), bad[i]), "the value is echoed: %s",
                           wg_error_last());
    }
    char *v = stored("connector:email:max_daily");
    cr_assert_null(v, "stored %s", v);
}

Test(connect_settings, max_daily_bounds_n_minus_1_n_n_plus_1)
{
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily", "0"), WG_EINVAL);
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily", "-1"), WG_EINVAL);
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily", "1"), 0, "%s", wg_error_last());
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily", "2"), 0);
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily", "999999"), 0);
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily", "1000000"), 0);
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily", "1000001"), WG_EINVAL);
    char *v = stored("connector:email:max_daily");
    cr_assert_str_eq(v, "1000000");
    free(v);
}

Test(connect_settings, postgres_statement_timeout_bounds)
{
    cr_assert_eq(wg_registry_set_setting(f.reg, "postgres", "statement_timeout_ms", "99"), WG_EINVAL);
    cr_assert_eq(wg_registry_set_setting(f.reg, "postgres", "statement_timeout_ms", "100"), 0);
    cr_assert_eq(wg_registry_set_setting(f.reg, "postgres", "statement_timeout_ms", "600000"), 0);
    cr_assert_eq(wg_registry_set_setting(f.reg, "postgres", "statement_timeout_ms", "600001"),
                 WG_EINVAL);
    cr_assert_eq(wg_registry_set_setting(f.reg, "postgres", "statement_timeout_ms", "ten"),
                 WG_EINVAL);
}

Test(connect_settings, text_settings_stay_free_text)
{
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "from_name", "Bee Keeper 42"), 0);
    cr_assert_eq(wg_registry_set_setting(f.reg, "email", "max_daily2", "1"), WG_EINVAL);
}

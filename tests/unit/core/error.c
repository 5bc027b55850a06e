/* Tests for the per-thread last error (waggle/error.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "waggle/error.h"
#include "waggle/version.h"

Test(error, set_returns_code_and_keeps_message)
{
    cr_assert_eq(wg_error_set(WG_EINVAL, "bad %s", "level"), WG_EINVAL);
    cr_assert_str_eq(wg_error_last(), "bad level");
    cr_assert_eq(wg_error_last_code(), WG_EINVAL);
    wg_error_clear();
    cr_assert_str_eq(wg_error_last(), "");
}

Test(error, every_code_has_a_name)
{
    for (int c = 0; c >= WG_EUNAVAILABLE; c--)
        cr_assert_neq(strcmp(wg_error_name(c), "unknown"), 0, "code %d", c);
    cr_assert_str_eq(wg_error_name(1), "unknown");
    cr_assert_str_eq(wg_error_name(-999), "unknown");
}

Test(version, matches_header)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", WG_VERSION_MAJOR, WG_VERSION_MINOR, WG_VERSION_PATCH);
    cr_assert_str_eq(wg_version(), want);
}

/* Tests for the permissions sandbox (spec 6). */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/error.h"
#include "waggle/permissions.h"

Test(permissions, readonly_tools_are_the_spec_list)
{
    size_t n;
    const char *const *t = wg_permissions_readonly_tools(&n);
    cr_assert_eq(n, 18);
    cr_expect_str_eq(t[0], "read_file");
    cr_expect_str_eq(t[7], "web_fetch");
    cr_expect_str_eq(t[17], "list_harnesses");
}

Test(permissions, sandbox_allows_only_readonly_tools_in_order)
{
    wg_permissions *pm;
    cr_assert_eq(wg_permissions_sandbox(&pm), 0);
    const char *tools[] = { "write_file", "read_file", "bash", "git_log", "web_search", "git_push" };
    const char *out[6];
    size_t n;
    cr_assert_eq(wg_permissions_filter(pm, tools, 6, out, &n), 0);
    cr_assert_eq(n, 3);
    cr_expect_str_eq(out[0], "read_file");
    cr_expect_str_eq(out[1], "git_log");
    cr_expect_str_eq(out[2], "web_search");
    cr_expect(!wg_permissions_is_allowed(pm, "bash"));
    cr_expect(!wg_permissions_is_allowed(pm, NULL));
    wg_permissions_free(pm);
}

Test(permissions, blacklist_wins_over_whitelist)
{
    const char *black[] = { "bash" };
    const char *white[] = { "bash", "read_file" };
    wg_permissions *pm;
    cr_assert_eq(wg_permissions_new(&pm, black, 1, white, 2), 0);
    cr_expect(!wg_permissions_is_allowed(pm, "bash"));
    cr_expect(wg_permissions_is_allowed(pm, "read_file"));
    cr_expect(!wg_permissions_is_allowed(pm, "write_file"));
    wg_permissions_free(pm);
    cr_assert_eq(wg_permissions_new(&pm, black, 1, NULL, 0), 0);
    cr_expect(wg_permissions_is_allowed(pm, "write_file"), "no whitelist allows the rest");
    wg_permissions_free(pm);
    cr_assert_eq(wg_permissions_new(&pm, NULL, 0, white, 0), 0);
    cr_expect(!wg_permissions_is_allowed(pm, "read_file"), "an empty whitelist allows nothing");
    wg_permissions_free(pm);
    wg_permissions_free(NULL);
}

Test(permissions, null_name_in_list_is_einval)
{
    const char *black[] = { NULL };
    wg_permissions *pm = NULL;
    cr_expect_eq(wg_permissions_new(&pm, black, 1, NULL, 0), WG_EINVAL);
    cr_expect_null(pm);
}

/* shell_expect.c - see shell_expect.h. */
#include "shell_expect.h"

#include <criterion/criterion.h>
#include <string.h>

void shellt_expect(const char *cmd, wg_shell_class cls, const char *rule)
{
    wg_shell_verdict v;
    cr_assert_eq(wg_shell_analyze(&v, cmd, strlen(cmd)), 0, "%s: refused", cmd);
    cr_expect_eq(v.cls, cls, "%s: got %s (%s: %s)", cmd, wg_shell_class_name(v.cls), v.rule, v.reason);
    if (rule)
        cr_expect_str_eq(v.rule, rule, "%s: %s", cmd, v.reason);
}

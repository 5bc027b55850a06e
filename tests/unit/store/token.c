/* Tests for data-dir token files (waggle/token.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "waggle/error.h"
#include "waggle/token.h"
#include "wgtest.h"

Test(token, create_once_0600_then_stable)
{
    char *dir = wgt_tmpdir();
    char p[4200];
    snprintf(p, sizeof p, "%s/api-token", dir);
    char *a = NULL, *b = NULL;
    cr_assert_eq(wg_token_read(&a, p), WG_ENOTFOUND);
    cr_assert_eq(wg_token_load_or_create(&a, p), 0);
    cr_assert_eq(strlen(a), WG_TOKEN_HEX_LEN);
    cr_assert_eq(wg_token_load_or_create(&b, p), 0);
    cr_assert_str_eq(a, b);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600);
    free(a);
    free(b);
    wgt_rmtree(dir);
    free(dir);
}

Test(token, equal_is_exact)
{
    cr_assert(wg_token_equal("abc123", "abc123"));
    cr_assert_not(wg_token_equal("abc12", "abc123"));
    cr_assert_not(wg_token_equal("abc1234", "abc123"));
    cr_assert_not(wg_token_equal("abc124", "abc123"));
    cr_assert_not(wg_token_equal(NULL, "abc"));
    cr_assert_not(wg_token_equal("", ""));
}

Test(token, empty_file_is_einval)
{
    char *dir = wgt_tmpdir();
    wgt_write_file(dir, "admin-token", "\n");
    char p[4200];
    snprintf(p, sizeof p, "%s/admin-token", dir);
    char *t = NULL;
    cr_assert_eq(wg_token_read(&t, p), WG_EINVAL);
    wgt_rmtree(dir);
    free(dir);
}

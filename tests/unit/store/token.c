/* Tests for data-dir token files (waggle/token.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    cr_assert_eq(chmod(p, 0600), 0);
    char *t = NULL;
    cr_assert_eq(wg_token_read(&t, p), WG_EINVAL);
    wgt_rmtree(dir);
    free(dir);
}

/* ---- issue 11 section 5: a token file is trusted only when it is a
 * private regular file of ours, and only a strong token is accepted. Each
 * of these was accepted before (a 6-character world-readable api-token
 * silently; a FIFO blocked the reader forever). -------------------------- */

static char *tdir;

static void tsetup(void) { tdir = wgt_tmpdir(); }
static void tteardown(void) { wgt_rmtree(tdir); free(tdir); }

TestSuite(token_files, .init = tsetup, .fini = tteardown, .timeout = 20);

static const char *tpath(void)
{
    static char p[4200];
    snprintf(p, sizeof p, "%s/api-token", tdir);
    return p;
}

static void write_token(const char *text, mode_t mode)
{
    cr_assert_eq(wgt_write_file(tdir, "api-token", text), 0);
    cr_assert_eq(chmod(tpath(), mode), 0);
}

static int read_rc(void)
{
    char *t = NULL;
    int rc = wg_token_read(&t, tpath());
    if (rc == 0) {
        cr_assert_not_null(t);
        free(t);
    }
    return rc;
}

#define HEX32 "0123456789abcdef0123456789abcdef"

Test(token_files, world_readable_token_is_refused_as_leaked)
{
    write_token(HEX32 HEX32 "\n", 0644);
    cr_assert_eq(read_rc(), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "accessible to group or others (mode 0644)"), "%s",
              wg_error_last());
    cr_assert(strstr(wg_error_last(), "Delete the file"), "%s", wg_error_last());
    cr_assert_null(strstr(wg_error_last(), HEX32), "the message never holds the token");
    struct stat sb;
    cr_assert_eq(stat(tpath(), &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0644, "refused, not quietly repaired");
    cr_assert_eq(chmod(tpath(), 0640), 0);
    cr_assert_eq(read_rc(), WG_EDENIED, "group-readable too");
    cr_assert_eq(chmod(tpath(), 0600), 0);
    cr_assert_eq(read_rc(), 0);
}

Test(token_files, six_character_token_is_refused)
{
    write_token("abc123\n", 0600);
    cr_assert_eq(read_rc(), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "too short: 6 characters, 32 to 1024 needed"), "%s",
              wg_error_last());
    char *t = NULL;
    cr_assert_eq(wg_token_load_or_create(&t, tpath()), WG_EINVAL, "never replaced silently");
}

Test(token_files, length_bounds_31_32_1024_1025)
{
    char big[1100];
    memset(big, 0, sizeof big);
    for (int i = 0; i < 1025; i++)
        big[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36];
    cr_assert_eq(wg_token_check(&HEX32[1], "t"), WG_EINVAL, "31");
    cr_assert_eq(wg_token_check(HEX32, "t"), 0, "32 hex chars (openssl rand -hex 16)");
    cr_assert_eq(wg_token_check(big, "t"), WG_EINVAL, "1025");
    big[1024] = '\0';
    cr_assert_eq(wg_token_check(big, "t"), 0, "1024");
    write_token(big, 0600);
    cr_assert_eq(read_rc(), 0);
}

Test(token_files, weak_tokens_are_refused_by_distinct_characters_and_bits)
{
    cr_assert_eq(wg_token_check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "t"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "too weak: 1 different characters"), "%s", wg_error_last());
    /* 9 vs 10 different characters */
    cr_assert_eq(wg_token_check("abcdefghiabcdefghiabcdefghiabcdefghi", "t"), WG_EINVAL);
    cr_assert_eq(wg_token_check("abcdefghijabcdefghijabcdefghijabcdefghij", "t"), 0);
    /* digits only: 38 x log2(10) = 126 bits, 39 = 129 bits */
    cr_assert_eq(wg_token_check("01234567890123456789012345678901234567", "t"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "about 126 bits"), "%s", wg_error_last());
    cr_assert_eq(wg_token_check("012345678901234567890123456789012345678", "t"), 0);
    cr_assert_eq(wg_token_check(HEX32 "with space", "t"), WG_EINVAL);
    cr_assert_eq(wg_token_check(NULL, "t"), WG_EINVAL);
}

Test(token_files, generated_tokens_always_pass)
{
    for (int i = 0; i < 200; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/t%d", tdir, i);
        char *t = NULL;
        cr_assert_eq(wg_token_load_or_create(&t, p), 0, "%s", wg_error_last());
        cr_assert_eq(wg_token_check(t, "generated"), 0);
        free(t);
    }
}

Test(token_files, fifo_is_refused_without_blocking)
{
    cr_assert_eq(mkfifo(tpath(), 0600), 0);
    cr_assert_eq(read_rc(), WG_EDENIED, "the suite's timeout catches a hang");
    cr_assert(strstr(wg_error_last(), "not a regular file"), "%s", wg_error_last());
    char *t = NULL;
    cr_assert_eq(wg_token_load_or_create(&t, tpath()), WG_EDENIED);
}

Test(token_files, symlink_is_refused)
{
    char real[4200];
    snprintf(real, sizeof real, "%s/elsewhere", tdir);
    cr_assert_eq(wgt_write_file(tdir, "elsewhere", HEX32 HEX32), 0);
    cr_assert_eq(chmod(real, 0600), 0);
    cr_assert_eq(symlink(real, tpath()), 0);
    cr_assert_eq(read_rc(), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "symbolic link"), "%s", wg_error_last());
}

Test(token_files, another_users_token_is_refused)
{
    if (geteuid() != 0)
        return;   /* only root can give a file away; the check is the same either way */
    write_token(HEX32 HEX32, 0600);
    cr_assert_eq(chown(tpath(), 65534, 65534), 0);
    cr_assert_eq(read_rc(), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "belongs to uid 65534"), "%s", wg_error_last());
}

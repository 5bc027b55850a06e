/* files.c - the data-file helpers (src/store/files.h): an atomic write
 * creates every missing parent folder 0700 and leaves existing ones alone
 * (issue 11 section 6: marketplace publish on a fresh data dir was a 500
 * because only one folder level was made). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/files.h"
#include "waggle/error.h"
#include "wgtest.h"

static mode_t mode_of(const char *dir, const char *rel)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0, "%s missing", p);
    return st.st_mode & 0777;
}

Test(store_files, write_atomic_creates_missing_parents_0700)
{
    char *dir = wgt_tmpdir();
    char *path = wg_files__join(dir, "a/b/c", "file.json");
    cr_assert_eq(wg_files__write_atomic(path, "{}", 2), 0, "%s", wg_error_last());
    char *text = wgt_read_file(path);
    cr_assert_str_eq(text, "{}");
    cr_assert_eq(mode_of(dir, "a"), 0700);
    cr_assert_eq(mode_of(dir, "a/b"), 0700);
    cr_assert_eq(mode_of(dir, "a/b/c"), 0700);
    cr_assert_eq(mode_of(dir, "a/b/c/file.json"), 0600);
    free(text);
    free(path);
    wgt_rmtree(dir);
    free(dir);
}

Test(store_files, write_atomic_keeps_the_mode_of_existing_parents)
{
    char *dir = wgt_tmpdir();
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/shared", dir);
    cr_assert_eq(mkdir(sub, 0750), 0);
    char *path = wg_files__join(sub, "new", "x.md");
    cr_assert_eq(wg_files__write_atomic(path, "x", 1), 0, "%s", wg_error_last());
    cr_assert_eq(mode_of(dir, "shared"), 0750);
    cr_assert_eq(mode_of(dir, "shared/new"), 0700);
    free(path);
    wgt_rmtree(dir);
    free(dir);
}

Test(store_files, write_atomic_under_a_file_fails_with_eio)
{
    char *dir = wgt_tmpdir();
    cr_assert_eq(wgt_write_file(dir, "plain", "x"), 0);
    char *path = wg_files__join(dir, "plain/sub", "x.md");
    cr_assert_eq(wg_files__write_atomic(path, "x", 1), WG_EIO);
    free(path);
    wgt_rmtree(dir);
    free(dir);
}

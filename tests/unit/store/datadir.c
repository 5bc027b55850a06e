/* Tests for data dir resolution (waggle/datadir.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "waggle/datadir.h"
#include "waggle/error.h"
#include "wgtest.h"

Test(datadir, explicit_beats_env_beats_home)
{
    char *p = NULL;
    setenv("WAGGLE_DATA_DIR", "/env/dir", 1);
    setenv("HOME", "/home/u", 1);
    cr_assert_eq(wg_datadir_resolve(&p, "/flag/dir"), 0);
    cr_assert_str_eq(p, "/flag/dir");
    free(p);
    cr_assert_eq(wg_datadir_resolve(&p, NULL), 0);
    cr_assert_str_eq(p, "/env/dir");
    free(p);
    unsetenv("WAGGLE_DATA_DIR");
    cr_assert_eq(wg_datadir_resolve(&p, NULL), 0);
    cr_assert_str_eq(p, "/home/u/.waggle");
    free(p);
    unsetenv("HOME");
    p = NULL;
    cr_assert_eq(wg_datadir_resolve(&p, NULL), WG_EINVAL);
    cr_assert_null(p);
}

Test(datadir, open_creates_private_dir)
{
    char *tmp = wgt_tmpdir(), *want = NULL, *got = NULL;
    cr_assert_eq(wg_datadir_path(&want, tmp, "a/b/c"), 0);
    cr_assert_eq(wg_datadir_open(&got, want), 0);
    struct stat st;
    cr_assert_eq(stat(got, &st), 0);
    cr_assert(S_ISDIR(st.st_mode));
    cr_assert_eq(st.st_mode & 0777, 0700);
    free(want);
    free(got);
    wgt_rmtree(tmp);
    free(tmp);
}

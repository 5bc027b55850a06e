/* Tests for data dir resolution (waggle/datadir.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- issue 11 section 5: an existing data dir is tightened at start.
 * Before: a data dir with mode 0777 stayed 0777, and so did its files. */

static char *root;

static void dsetup(void) { root = wgt_tmpdir(); }
static void dteardown(void) { wgt_rmtree(root); free(root); }

TestSuite(datadir_secure, .init = dsetup, .fini = dteardown, .timeout = 60);

static mode_t mode_of(const char *rel)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    struct stat sb;
    cr_assert_eq(lstat(p, &sb), 0, "%s", p);
    return sb.st_mode & 0777;
}

static void put(const char *rel, mode_t mode)
{
    cr_assert_eq(wgt_write_file(root, rel, "x"), 0);
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    cr_assert_eq(chmod(p, mode), 0);
}

static void mode_dir(const char *rel, mode_t mode)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    cr_assert_eq(chmod(p, mode), 0);
}

Test(datadir_secure, open_makes_an_existing_0777_dir_and_waggles_files_private)
{
    put("config.json", 0644);
    put("waggle.db", 0666);
    put("vault.key", 0644);
    put("cost-events.jsonl", 0644);
    put("skills/note.md", 0644);
    put("marketplace/pack/pack.json", 0644);
    put("notes.txt", 0644);                 /* not waggle's: left alone */
    put("api-token", 0644);                 /* refused by its reader, not repaired */
    put("target", 0644);
    char link[4200], target[4200];
    snprintf(link, sizeof link, "%s/catalog.json", root);
    snprintf(target, sizeof target, "%s/target", root);
    cr_assert_eq(symlink(target, link), 0);  /* never followed */
    mode_dir("skills", 0777);
    mode_dir("marketplace/pack", 0755);
    mode_dir("", 0777);
    char *got = NULL;
    cr_assert_eq(wg_datadir_open(&got, root), 0, "%s", wg_error_last());
    free(got);
    cr_assert_eq(mode_of(""), 0700);
    cr_assert_eq(mode_of("config.json"), 0600);
    cr_assert_eq(mode_of("waggle.db"), 0600);
    cr_assert_eq(mode_of("vault.key"), 0600);
    cr_assert_eq(mode_of("cost-events.jsonl"), 0600);
    cr_assert_eq(mode_of("skills"), 0700);
    cr_assert_eq(mode_of("skills/note.md"), 0600);
    cr_assert_eq(mode_of("marketplace/pack"), 0700);
    cr_assert_eq(mode_of("marketplace/pack/pack.json"), 0600);
    cr_assert_eq(mode_of("notes.txt"), 0644);
    cr_assert_eq(mode_of("api-token"), 0644);
    cr_assert_eq(mode_of("target"), 0644, "the symlink's target is untouched");
}

Test(datadir_secure, another_users_data_dir_is_refused)
{
    if (geteuid() != 0)
        return;   /* only root can give a directory away */
    cr_assert_eq(chown(root, 65534, 65534), 0);
    cr_assert_eq(wg_datadir_secure(root), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "belongs to uid 65534"), "%s", wg_error_last());
    cr_assert_eq(chown(root, 0, 0), 0);
}

Test(datadir_secure, depth_bound_4_ok_5_refused)
{
    put("skills/a/b/c/x.md", 0644);          /* skills=0, a=1, b=2, c=3: scanned at 4 */
    cr_assert_eq(wg_datadir_secure(root), 0, "%s", wg_error_last());
    cr_assert_eq(mode_of("skills/a/b/c/x.md"), 0600);
    put("skills/a/b/c/d/y.md", 0644);
    cr_assert_eq(wg_datadir_secure(root), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "more than 4 folders deep"), "%s", wg_error_last());
}

static void fill(const char *sub, int n)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, sub);
    cr_assert_eq(mkdir(p, 0700), 0);
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s/f%d", root, sub, i);
        FILE *f = fopen(p, "w");
        cr_assert_not_null(f);
        fclose(f);
    }
}

Test(datadir_secure, entry_bound_10000_ok_10001_refused)
{
    fill("plugins", WG_DATADIR_SCAN_MAX);
    cr_assert_eq(wg_datadir_secure(root), 0, "%s", wg_error_last());
    cr_assert_eq(mode_of("plugins/f9999"), 0600);
    char p[4200];
    snprintf(p, sizeof p, "%s/plugins/one-more", root);
    FILE *f = fopen(p, "w");
    fclose(f);
    cr_assert_eq(wg_datadir_secure(root), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "more than 10000 entries"), "%s", wg_error_last());
}

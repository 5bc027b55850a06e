/* The data dir's file helpers and their users (store/files.h; issue 11
 * section 5): no data file is read through a symlink or blocks on a FIFO
 * planted under its name, and every file written is 0600 whatever the
 * umask. Before: catalog.json and config.json were read with fopen (a FIFO
 * hung the reader), config.json's and catalog.json's temp files had fixed
 * names opened without O_EXCL, and cost-events.jsonl was appended with
 * fopen "a" (0644 under the usual umask, through symlinks). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/files.h"
#include "waggle/catalog.h"
#include "waggle/error.h"
#include "waggle/plugins.h"
#include "waggle/tier.h"
#include "wgtest.h"

static char *dir;
static mode_t old_umask;

static void setup(void)
{
    dir = wgt_tmpdir();
    old_umask = umask(0);   /* the worst case: nothing masked */
}

static void teardown(void)
{
    umask(old_umask);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(files, .init = setup, .fini = teardown, .timeout = 30);

static const char *at(const char *name)
{
    static char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static mode_t mode_of(const char *name)
{
    struct stat sb;
    cr_assert_eq(lstat(at(name), &sb), 0, "%s", name);
    return sb.st_mode & 0777;
}

Test(files, writes_and_appends_are_0600_under_umask_0)
{
    cr_assert_eq(wg_files__write_atomic(at("a.json"), "{}", 2), 0, "%s", wg_error_last());
    cr_assert_eq(mode_of("a.json"), 0600);
    cr_assert_eq(wg_files__append(at("log.jsonl"), "x\n", 2), 0, "%s", wg_error_last());
    cr_assert_eq(wg_files__append(at("log.jsonl"), "y\n", 2), 0);
    cr_assert_eq(mode_of("log.jsonl"), 0600);
    char *t = wgt_read_file(at("log.jsonl"));
    cr_assert_str_eq(t, "x\ny\n");
    free(t);
    cr_assert_eq(chmod(at("log.jsonl"), 0644), 0);
    cr_assert_eq(wg_files__append(at("log.jsonl"), "z\n", 2), 0);
    cr_assert_eq(mode_of("log.jsonl"), 0600, "an existing readable file is made private");
    int fd = wg_files__lock(at("x.lock"));
    cr_assert_geq(fd, 0, "%s", wg_error_last());
    wg_files__unlock(fd);
    cr_assert_eq(mode_of("x.lock"), 0600);
}

Test(files, fifo_is_refused_without_blocking_by_every_helper)
{
    cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
    char *t = NULL;
    cr_assert_eq(wg_files__read(&t, NULL, at("fifo"), 1024), WG_EDENIED);
    cr_assert_eq(wg_files__append(at("fifo"), "x", 1), WG_EDENIED);
    cr_assert_eq(wg_files__lock(at("fifo")), WG_EDENIED);
}

Test(files, symlink_is_never_followed)
{
    cr_assert_eq(wgt_write_file(dir, "target", "secret"), 0);
    char target[4200];
    snprintf(target, sizeof target, "%s", at("target"));
    cr_assert_eq(symlink(target, at("link")), 0);
    char *t = NULL;
    cr_assert_eq(wg_files__read(&t, NULL, at("link"), 1024), WG_EDENIED);
    cr_assert_eq(wg_files__append(at("link"), "x", 1), WG_EDENIED);
    cr_assert_eq(wg_files__lock(at("link")), WG_EDENIED);
    t = wgt_read_file(at("target"));
    cr_assert_str_eq(t, "secret");
    free(t);
}

Test(files, config_json_fifo_reads_as_free_and_writes_stay_private)
{
    cr_assert_eq(mkfifo(at("config.json"), 0600), 0);
    wg_tier_status s;
    wg_tier_read(&s, dir, 0);          /* would block forever on fopen */
    cr_assert_eq(s.tier, WG_TIER_FREE);
    cr_assert_eq(unlink(at("config.json")), 0);
    cr_assert_eq(wg_tier_set(dir, WG_TIER_PRO, NULL, NULL), 0, "%s", wg_error_last());
    cr_assert_eq(mode_of("config.json"), 0600);
    cr_assert_eq(mode_of("config.json.lock"), 0600);
    wg_tier_read(&s, dir, 0);
    cr_assert_eq(s.tier, WG_TIER_PRO);
}

Test(files, catalog_json_fifo_is_an_error_not_a_hang)
{
    cr_assert_eq(mkfifo(at("catalog.json"), 0600), 0);
    wg_catalog *c = NULL;
    cr_assert_eq(wg_catalog_open(&c, dir), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "not a regular file"), "%s", wg_error_last());
    cr_assert_eq(unlink(at("catalog.json")), 0);
    json_t *entries = json_array();
    size_t added = 0;
    cr_assert_eq(wg_catalog_import_local(&added, dir, entries), 0, "%s", wg_error_last());
    json_decref(entries);
    cr_assert_eq(mode_of("catalog.json"), 0600);
}

Test(files, plugin_manifest_fifo_is_skipped_not_a_hang)
{
    cr_assert_eq(wgt_write_file(dir, "plugins/p/.keep", ""), 0);
    unlink(at("plugins/p/.keep"));
    cr_assert_eq(mkfifo(at("plugins/p/plugin.json"), 0600), 0);
    wg_plugin_list l;
    cr_assert_eq(wg_plugins_load(&l, dir), 0, "%s", wg_error_last());
    cr_assert_eq(l.count, 0);
    cr_assert_eq(l.skipped, 1);
    wg_plugin_list_free(&l);
}

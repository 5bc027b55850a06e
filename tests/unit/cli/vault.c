/* Tests for `waggle vault` (issue #5 CLI contract). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wgtest.h"

static char *dir;

static void setup(void) { dir = wgt_tmpdir(); }
static void teardown(void) { wgt_rmtree(dir); free(dir); }

TestSuite(cli_vault, .init = setup, .fini = teardown);

static wgt_result run(const char *in, const char *a1, const char *a2, const char *a3,
                      const char *a4, const char *a5)
{
    const char *argv[] = { "--json", "--data-dir", dir, "vault", a1, a2, a3, a4, a5, NULL };
    static const char *const env[] = { "WAGGLE_VAULT_PASSPHRASE=", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, in, env, argv), 0);
    return r;
}

static int grep_dir(const char *needle)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "grep -r -q -a '%s' '%s'", needle, dir);
    return system(cmd) == 0;
}

Test(cli_vault, set_from_stdin_stores_encrypted)
{
    wgt_result r = run("s3cret", "set", "connector:github", NULL, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"success\": true"));
    wgt_result_free(&r);
    cr_assert_not(grep_dir("s3cret"), "the secret is in the data dir in clear");
    r = run(NULL, "get", "connector:github", NULL, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "s3cret");
    wgt_result_free(&r);
}

Test(cli_vault, trailing_newline_dropped_and_metadata_listed)
{
    wgt_result r = run("tok-123\n", "set", "connector:jira", "--type", "bearer", "--scopes=read,write");
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    r = run(NULL, "list", NULL, NULL, NULL, NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "\"connector:jira\""));
    cr_assert(strstr(r.out, "\"bearer\""));
    cr_assert(strstr(r.out, "\"write\""));
    cr_assert_null(strstr(r.out, "tok-123"), "list shows no values");
    wgt_result_free(&r);
    r = run(NULL, "get", "connector:jira", NULL, NULL, NULL);
    cr_assert_str_eq(r.out, "tok-123");
    wgt_result_free(&r);
}

Test(cli_vault, audit_log_never_has_the_value)
{
    wgt_result r = run("hunter2-secret", "set", "openai", NULL, NULL, NULL);
    wgt_result_free(&r);
    r = run(NULL, "get", "openai", NULL, NULL, NULL);
    wgt_result_free(&r);
    const char *argv[] = { "--data-dir", dir, "audit", "--json", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert(strstr(r.out, "vault_set"));
    cr_assert(strstr(r.out, "vault_read"));
    cr_assert_null(strstr(r.out, "hunter2"));
    wgt_result_free(&r);
}

Test(cli_vault, delete_with_subkeys_lists_them)
{
    wgt_result r = run("a-token", "set", "connector:gitlab", NULL, NULL, NULL);
    wgt_result_free(&r);
    r = run("https://gl.example", "set", "connector:gitlab:base_url", NULL, NULL, NULL);
    wgt_result_free(&r);
    r = run(NULL, "delete", "connector:gitlab", "--with-subkeys", NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "connector:gitlab:base_url"));
    wgt_result_free(&r);
    r = run(NULL, "delete", "connector:gitlab", NULL, NULL, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "no vault entry"));
    wgt_result_free(&r);
}

Test(cli_vault, bad_usage_exits_2)
{
    wgt_result r = run("", "set", "x", NULL, NULL, NULL);
    cr_assert_eq(r.status, 2, "empty stdin");
    wgt_result_free(&r);
    r = run("v", "set", "x", "--expires", "tomorrow", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "ISO-8601"));
    wgt_result_free(&r);
    r = run("v", "set", "x", "--type", "weird", NULL);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
    r = run(NULL, "frobnicate", NULL, NULL, NULL, NULL);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
    r = run(NULL, "get", NULL, NULL, NULL, NULL);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
    r = run(NULL, "--help", NULL, NULL, NULL, NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "example:"));
    wgt_result_free(&r);
}

Test(cli_vault, wrong_passphrase_is_a_clear_error)
{
    const char *argv[] = { "--data-dir", dir, "vault", "set", "k", NULL };
    const char *env1[] = { "WAGGLE_VAULT_PASSPHRASE=right one", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, "value", env1, argv), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    const char *argv2[] = { "--data-dir", dir, "vault", "get", "k", NULL };
    const char *env2[] = { "WAGGLE_VAULT_PASSPHRASE=wrong one", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, env2, argv2), 0);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "wrong vault key"), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    wgt_result_free(&r);
}

/* Issue 11 section 5 through the CLI: an existing 0777 data dir and its
 * files are made private by any command, and a lost vault.key is never
 * silently replaced while entries sealed with it remain. */
Test(cli_vault, commands_make_an_open_data_dir_private)
{
    wgt_result r = run("s3cret", "set", "openai", NULL, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    char p[4200];
    cr_assert_eq(chmod(dir, 0777), 0);
    snprintf(p, sizeof p, "%s/waggle.db", dir);
    cr_assert_eq(chmod(p, 0644), 0);
    snprintf(p, sizeof p, "%s/vault.key", dir);
    cr_assert_eq(chmod(p, 0644), 0);
    r = run(NULL, "list", NULL, NULL, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    struct stat sb;
    cr_assert_eq(stat(dir, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0700);
    static const char *const files[] = { "waggle.db", "vault.key", "audit-witness" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        cr_assert_eq(stat(p, &sb), 0, "%s", p);
        cr_assert_eq(sb.st_mode & 0777, 0600, "%s is %o", p, sb.st_mode & 0777);
    }
}

Test(cli_vault, lost_key_with_entries_is_a_clear_error_not_a_new_key)
{
    wgt_result r = run("s3cret", "set", "openai", NULL, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    char p[4200];
    snprintf(p, sizeof p, "%s/vault.key", dir);
    cr_assert_eq(unlink(p), 0);
    r = run(NULL, "get", "openai", NULL, NULL, NULL);
    cr_assert_eq(r.status, 1);
    cr_assert_str_eq(r.out, "");
    cr_assert(strstr(r.err, "vault.key is missing, but this store holds data sealed with the key"),
              "%s", r.err);
    cr_assert(strstr(r.err, "Restore vault.key from a backup"), "%s", r.err);
    wgt_result_free(&r);
    cr_assert_neq(access(p, F_OK), 0, "no new key");
}

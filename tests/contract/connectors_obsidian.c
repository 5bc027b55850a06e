/* connectors_obsidian.c - the Obsidian vault is the operator's to choose
 * (docs/security.md 2.1, issue 11 section 2). Before the fix,
 * POST /api/connectors/obsidian/connect {"token":"<any dir>"} with the API
 * token made that directory the vault, and get_note (low risk, no approval)
 * then read DATA_DIR/admin-token, the key to raising the tier. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_test.h"
#include "wgtest.h"

static wgt_server s;
static char *notes;      /* a directory outside the data dir */

static void start(const char *const *roots)
{
    notes = wgt_tmpdir();
    wgt_write_file(notes, "vault/Ideas.md", "# Ideas\n");
    wgt_write_file(notes, "elsewhere/Plan.md", "# Plan\n");
    wgt_server_config cfg = { .obsidian_roots = roots };
    wgt_server_start(&s, &cfg);
}

static void stop(void)
{
    wgt_server_stop(&s);
    wgt_rmtree(notes);
    free(notes);
}

static long connect_vault(const char *dir, int auth)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"token\":\"%s\"}", dir);
    wgt_http_res r;
    wgt_http_ex(&r, &s, "POST", "/api/connectors/obsidian/connect", body, strlen(body), auth, NULL);
    long st = r.status;
    cr_expect_null(strstr(r.body ? r.body : "", dir), "the answer echoes the path: %s", r.body);
    wgt_http_res_free(&r);
    return st;
}

/* Runs get_note and returns the whole HTTP answer (new). */
static char *get_note(const char *path)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"tool\":\"connector_obsidian_get_note\",\"args\":{\"path\":\"%s\"}}", path);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/tools/execute", body);
    char *out = strdup(r.body ? r.body : "");
    wgt_http_res_free(&r);
    return out;
}

Test(connectors_obsidian, the_api_token_cannot_make_the_data_dir_a_vault)
{
    start(NULL);
    cr_assert_eq(connect_vault(s.dir, WGT_AUTH_API), 403);
    char *ans = get_note("admin-token");
    cr_assert_null(strstr(ans, s.admin), "the admin token leaked: %s", ans);
    cr_assert(strstr(ans, "\"success\":false"), "%s", ans);
    free(ans);
    ans = get_note("api-token");
    cr_assert_null(strstr(ans, s.token), "the API token leaked: %s", ans);
    free(ans);
    /* nor the file system root, nor a parent of the data dir */
    cr_assert_eq(connect_vault("/", WGT_AUTH_API), 403);
    char *parent = strdup(s.dir);
    *strrchr(parent, '/') = 0;
    cr_assert_eq(connect_vault(parent, WGT_AUTH_API), 403);
    ans = get_note("etc/shadow");
    cr_assert(strstr(ans, "\"success\":false"), "%s", ans);
    free(ans);
    free(parent);
    /* the admin token is the operator, and still may not serve the data dir */
    cr_assert_eq(connect_vault(s.dir, WGT_AUTH_ADMIN), 403);
    stop();
}

Test(connectors_obsidian, the_api_token_cannot_choose_an_arbitrary_directory)
{
    start(NULL);
    char *dir = NULL;
    cr_assert(asprintf(&dir, "%s/vault", notes) > 0);
    cr_assert_eq(connect_vault(dir, WGT_AUTH_API), 403);
    /* the operator (admin token) may */
    cr_assert_eq(connect_vault(dir, WGT_AUTH_ADMIN), 200);
    char *ans = get_note("Ideas.md");
    cr_assert(strstr(ans, "\"success\":true"), "%s", ans);
    free(ans);
    free(dir);
    stop();
}

Test(connectors_obsidian, the_api_token_may_choose_a_vault_under_an_operator_root)
{
    char *root = wgt_tmpdir();
    wgt_write_file(root, "team/Ideas.md", "# Team ideas\n");
    const char *const roots[] = { root, NULL };
    start(roots);
    char *dir = NULL;
    cr_assert(asprintf(&dir, "%s/team", root) > 0);
    cr_assert_eq(connect_vault(dir, WGT_AUTH_API), 200);
    char *ans = get_note("Ideas.md");
    cr_assert(strstr(ans, "Team ideas"), "%s", ans);
    free(ans);
    char *other = NULL;
    cr_assert(asprintf(&other, "%s/elsewhere", notes) > 0);
    cr_assert_eq(connect_vault(other, WGT_AUTH_API), 403);
    free(other);
    free(dir);
    stop();
    wgt_rmtree(root);
    free(root);
}

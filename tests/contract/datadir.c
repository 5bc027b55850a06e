/* The service's data dir hygiene (issue 11 section 5, docs/security.md
 * section 6), against a real waggled: every file it creates is 0600 (before:
 * cost-events.jsonl was 0644), an existing 0777 data dir is made private at
 * start, a world-readable or weak token stops it with a clear message, and
 * a FIFO or symlink planted as a data file is refused, never a hang. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server_test.h"
#include "waggle/error.h"
#include "waggle/server.h"
#include "wgtest.h"

TestSuite(datadir_service, .timeout = 60);

/* Every entry under path is private: folders 0700, files 0600. */
static void assert_private_tree(const char *path, int depth)
{
    cr_assert_lt(depth, 8);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[4200];
        int n = snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        cr_assert(n > 0 && (size_t)n < sizeof p, "path too long under %s", path);
        struct stat sb;
        cr_assert_eq(lstat(p, &sb), 0);
        if (S_ISDIR(sb.st_mode)) {
            cr_assert_eq(sb.st_mode & 0777, 0700, "%s is %o", p, sb.st_mode & 0777);
            assert_private_tree(p, depth + 1);
        } else {
            cr_assert_eq(sb.st_mode & 0777, 0600, "%s is %o", p, sb.st_mode & 0777);
        }
    }
    closedir(d);
}

Test(datadir_service, every_file_the_service_creates_is_private)
{
    wgt_server s;
    wgt_server_start(&s, NULL);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/cost/events", "{\"workspaceId\":\"w\",\"costUsd\":1}");
    cr_assert_eq(r.status, 201, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http_ex(&r, &s, "PATCH", "/api/tier", "{\"tier\":\"PRO\"}", 14, WGT_AUTH_ADMIN, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    char p[4200];
    snprintf(p, sizeof p, "%s/cost-events.jsonl", s.dir);
    cr_assert_eq(access(p, F_OK), 0, "the cost event was written");
    assert_private_tree(s.dir, 0);
    wgt_server_stop(&s);
}

Test(datadir_service, start_makes_an_existing_0777_data_dir_private)
{
    char *dir = wgt_tmpdir();
    cr_assert_eq(wgt_write_file(dir, "config.json", "{\"tier\":\"PRO\"}"), 0);
    cr_assert_eq(wgt_write_file(dir, "cost-events.jsonl", ""), 0);
    char p[4200];
    snprintf(p, sizeof p, "%s/config.json", dir);
    cr_assert_eq(chmod(p, 0666), 0);
    snprintf(p, sizeof p, "%s/cost-events.jsonl", dir);
    cr_assert_eq(chmod(p, 0644), 0);
    cr_assert_eq(chmod(dir, 0777), 0);
    wgt_server_config cfg = { .data_dir = dir };
    wgt_server s;
    wgt_server_start(&s, &cfg);
    assert_private_tree(s.dir, 0);
    struct stat sb;
    cr_assert_eq(stat(s.dir, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0700);
    wgt_server_stop(&s);
    free(dir);
}

static int start_raw(const char *dir, const char *api_token)
{
    wg_server_options opt = { .version = WG_SERVER_OPTIONS_VERSION,
                              .data_dir = dir, .listen = "127.0.0.1:0", .threads = 1,
                              .api_token = api_token };
    wg_server *srv = NULL;
    int rc = wg_server_start(&srv, &opt);
    if (rc == 0)
        wg_server_stop(srv);
    return rc;
}

Test(datadir_service, world_readable_api_token_stops_the_service)
{
    char *dir = wgt_tmpdir();
    cr_assert_eq(wgt_write_file(dir, "api-token",
                                "0123456789abcdef0123456789abcdef0123456789abcdef\n"), 0);
    char p[4200];
    snprintf(p, sizeof p, "%s/api-token", dir);
    cr_assert_eq(chmod(p, 0644), 0);
    cr_assert_eq(start_raw(dir, NULL), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "api-token is accessible to group or others"), "%s",
              wg_error_last());
    wgt_write_file(dir, "api-token", "abc123\n");          /* 6 characters */
    cr_assert_eq(chmod(p, 0600), 0);
    cr_assert_eq(start_raw(dir, NULL), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "too short: 6 characters"), "%s", wg_error_last());
    wgt_rmtree(dir);
    free(dir);
}

Test(datadir_service, weak_WAGGLE_API_TOKEN_stops_the_service)
{
    char *dir = wgt_tmpdir();
    /* 16 characters were enough before. */
    cr_assert_eq(start_raw(dir, "0123456789abcdef"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "the API token (WAGGLE_API_TOKEN) is too short: 16 "
                                      "characters, 32 to 1024 needed"), "%s", wg_error_last());
    cr_assert_eq(start_raw(dir, "0123456789abcdef0123456789abcdef"), 0, "%s", wg_error_last());
    wgt_rmtree(dir);
    free(dir);
}

Test(datadir_service, cost_events_fifo_or_symlink_is_refused_never_a_hang)
{
    wgt_server s;
    wgt_server_start(&s, NULL);
    char p[4200], outside[4200];
    snprintf(p, sizeof p, "%s/cost-events.jsonl", s.dir);
    cr_assert_eq(mkfifo(p, 0600), 0);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/cost/events", "{\"workspaceId\":\"w\",\"costUsd\":1}");
    cr_assert_geq(r.status, 500, "%ld %s", r.status, r.body);
    wgt_http_res_free(&r);
    unlink(p);
    snprintf(outside, sizeof outside, "%s/outside.txt", s.dir);
    cr_assert_eq(wgt_write_file(s.dir, "outside.txt", ""), 0);
    cr_assert_eq(symlink(outside, p), 0);
    wgt_http(&r, &s, "POST", "/api/cost/events", "{\"workspaceId\":\"w\",\"costUsd\":1}");
    cr_assert_geq(r.status, 500, "%ld %s", r.status, r.body);
    wgt_http_res_free(&r);
    char *text = wgt_read_file(outside);
    cr_assert_str_eq(text, "", "nothing written through the symlink");
    free(text);
    wgt_server_stop(&s);
}

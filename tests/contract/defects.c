/* defects.c - issue 11 section 6 over real HTTP: marketplace publish on a
 * fresh data dir (no marketplace folder yet) is 201, not 500; disconnect of
 * an unknown id is 404 like connect, unless something is stored under it,
 * which is still cleaned (200). */
#include <criterion/criterion.h>

#include "server_test.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "waggle/error.h"
#include "wgtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

Test(defects, marketplace_publish_on_a_fresh_data_dir_is_201)
{
    static const char *const files[] = {
        "config.json", "{\"tier\":\"PRO\"}",
        "skills/house-style.md", "# House style\nShort sentences.\n",
        NULL,
    };
    wgt_server s;
    wgt_server_config cfg = { .files = files };
    wgt_server_start(&s, &cfg);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/marketplace/publish",
             "{\"name\":\"house-style\",\"description\":\"The house style\"}");
    cr_expect_eq(r.status, 201, "%s", r.body);
    wgt_http_res_free(&r);
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/marketplace/house-style", s.dir);
    cr_expect_eq(stat(path, &st), 0, "the pack folder is missing");
    cr_expect_eq(st.st_mode & 0777, 0700);
    wgt_http(&r, &s, "GET", "/api/marketplace", NULL);
    cr_expect_eq(json_integer_value(json_object_get(r.json, "total")), 1, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
}

Test(defects, disconnect_unknown_id_is_404_like_connect)
{
    wgt_server s;
    wgt_server_start(&s, NULL);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/nope/connect", "{\"token\":\"abc\"}");
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/connectors/nope/disconnect", NULL);
    cr_assert_eq(r.status, 404, "%s", r.body);
    cr_assert_str_eq(str(r.json, "error"), "Connector not found");
    wgt_http_res_free(&r);
    /* a known but unconnected id is still 200, disconnected:false */
    wgt_http(&r, &s, "POST", "/api/connectors/github/disconnect", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_false(json_object_get(r.json, "disconnected")));
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
}

/* Stale credentials of an id the registry no longer knows are still
 * removable through the route. */
Test(defects, disconnect_unknown_id_with_stale_keys_cleans_them)
{
    char *dir = wgt_tmpdir();
    wg_store *st = NULL;
    wg_vault *v = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
    cr_assert_eq(wg_vault_open(&v, st), 0, "%s", wg_error_last());
    cr_assert_eq(wg_vault_set(v, "connector:retired", "old-token", 9, NULL), 0, "%s", wg_error_last());
    cr_assert_eq(wg_vault_set(v, "connector:retired:refresh", "old-refresh", 11, NULL), 0);
    cr_assert_eq(wg_vault_set(v, "connector:ghost:base_url", "https://x.example", 17, NULL), 0);
    wg_vault_free(v);
    wg_store_free(st);

    wgt_server s;
    wgt_server_config cfg = { .data_dir = dir };
    wgt_server_start(&s, &cfg);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/retired/disconnect", NULL);
    cr_expect_eq(r.status, 200, "%s", r.body);
    cr_expect(json_is_true(json_object_get(r.json, "disconnected")), "%s", r.body);
    cr_expect_eq(json_integer_value(json_object_get(r.json, "cleanedKeys")), 1, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/connectors/ghost/disconnect", NULL);
    cr_expect_eq(r.status, 200, "%s", r.body);
    cr_expect_eq(json_integer_value(json_object_get(r.json, "cleanedKeys")), 1, "%s", r.body);
    wgt_http_res_free(&r);
    /* now nothing is left: the same calls are 404 */
    wgt_http(&r, &s, "POST", "/api/connectors/retired/disconnect", NULL);
    cr_expect_eq(r.status, 404, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/connectors/ghost/disconnect", NULL);
    cr_expect_eq(r.status, 404, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
    free(dir);
}

/* pool.c - GET /api/pool/:provider/status (spec 13): PoolStatus from the
 * vault's provider keys, never a key value; 404 for a provider without
 * keys; 400 for an invalid provider name. */
#include <criterion/criterion.h>

#include "server_test.h"
#include "wgtest.h"

#include <stdlib.h>
#include <string.h>

static void vault_set(const char *dir, const char *name, const char *value)
{
    const char *argv[] = { "--data-dir", dir, "vault", "set", name, NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, value, NULL, argv), 0);
    cr_assert_eq(r.status, 0, "vault set: %s", r.err);
    wgt_result_free(&r);
}

Test(pool, status_lists_keys_without_values)
{
    char *dir = wgt_tmpdir();
    vault_set(dir, "openai", "sk-live-AAAA");
    vault_set(dir, "openai-2", "sk-live-BBBB");
    wgt_server s;
    wgt_server_config cfg = { .data_dir = dir };
    wgt_server_start(&s, &cfg);
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/pool/openai/status", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "provider")), "openai");
    cr_assert_eq(json_integer_value(json_object_get(r.json, "totalKeys")), 2);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "activeKeys")), 2);
    cr_assert_null(strstr(r.body, "sk-live"));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/pool/anthropic/status", NULL);
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/pool/.hidden/status", NULL);
    cr_assert_eq(r.status, 400);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
    free(dir);
}

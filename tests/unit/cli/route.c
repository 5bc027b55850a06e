/* Tests for `waggle route` (spec 2). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "trust_cli.h"
#include "waggle/error.h"

Test(cli_route, deps_file_vectors)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "--json", "route", "--deps",
                  WG_TEST_DATA_DIR "/trust/router-deps.json", "create", "issue", "on", "github", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *a = json_loads(r.out, 0, NULL);
    cr_assert_eq(json_array_size(a), 1);
    json_t *x = json_array_get(a, 0);
    cr_expect_str_eq(json_string_value(json_object_get(x, "source")), "connector");
    cr_expect_eq(json_real_value(json_object_get(x, "confidence")), 0.75);
    cr_expect(json_is_false(json_object_get(x, "available")));
    cr_expect(json_is_string(json_object_get(x, "suggestion")));
    json_decref(a);
    wgt_result_free(&r);
}

Test(cli_route, local_installation_knows_native_tools)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "--json", "route", "web_search", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "\"name\": \"web_search\""));
    cr_expect_not_null(strstr(r.out, "\"confidence\": 1.0"));
    wgt_result_free(&r);
}

Test(cli_route, missing_query_and_bad_deps_exit_2)
{
    wgt_result r;
    trust_cli_run(&r, NULL, NULL, (const char *[]){ "--json", "route", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, "{\"toolNames\": 3}", (const char *[]){ "--json", "route", "--deps", "-", "x", NULL });
    cr_expect_eq(r.status, 2);
    cr_expect_not_null(strstr(r.err, "toolNames"));
    wgt_result_free(&r);
    trust_cli_run(&r, NULL, "{not json", (const char *[]){ "--json", "route", "--deps", "-", "x", NULL });
    cr_expect_eq(r.status, 2);
    wgt_result_free(&r);
}

#include "waggle/store.h"
#include "waggle/vault.h"

Test(cli_route, local_connectors_follow_the_vault)
{
    char *dir = wgt_tmpdir();
    wgt_result r;
    /* no store yet: every connector is offered, none is connected, nothing is created */
    trust_cli_run(&r, dir, NULL, (const char *[]){ "--json", "route", "send", "message", "on", "slack", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "\"name\": \"slack\""));
    cr_expect_not_null(strstr(r.out, "\"available\": false"));
    wgt_result_free(&r);

    /* A passphrase, not vault.key: the key-file reader trims trailing
     * '\n', '\r' and ' ' from the 32 random bytes, so about 1 key in 85
     * reads back as 31 bytes (reported to the store's owner). */
    setenv("WAGGLE_VAULT_PASSPHRASE", "route-test-passphrase", 1);
    wg_store *st = NULL;
    wg_vault *v = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
    cr_assert_eq(wg_vault_open(&v, st), 0, "%s", wg_error_last());
    wg_vault_credential_input in = { .value = "xoxb-test" };
    cr_assert_eq(wg_vault_set_connector_credential(v, "slack", &in), 0, "%s", wg_error_last());
    wg_vault_free(v);
    wg_store_free(st);

    trust_cli_run(&r, dir, NULL, (const char *[]){ "--json", "route", "slack", NULL });
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *a = json_loads(r.out, 0, NULL);
    json_t *first = json_array_get(a, 0);
    cr_expect_str_eq(json_string_value(json_object_get(first, "name")), "slack");
    cr_expect(json_is_true(json_object_get(first, "available")), "out: %s\nerr: %s", r.out, r.err);
    cr_expect_null(json_object_get(first, "suggestion"));
    json_decref(a);
    wgt_result_free(&r);
    unsetenv("WAGGLE_VAULT_PASSPHRASE");
    wgt_rmtree(dir);
    free(dir);
}

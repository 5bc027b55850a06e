/* pipedrive.c - every Pipedrive action against the replay server, with requests and
 * responses shaped as the Pipedrive API reference documents them (docs/connect.md
 * lists the pages), hostile inputs included. */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_pipedrive, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("pipedrive", &ran);
    cr_expect_gt(ran, 5, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Pipedrive cases failed (see stderr)", failures, ran);
}

/* ---- after an OAuth2 sign-in: Bearer on the company's api_domain ---------- */

#include <stdlib.h>
#include "waggle/connector.h"

static void put(const wg_connect_vault *v, const char *name, const char *value, const char *meta)
{
    json_t *m = meta ? json_loads(meta, 0, NULL) : NULL;
    cr_assert_eq(v->set(v->ctx, name, value, m), 0, "set %s", name);
    json_decref(m);
}

Test(connect_pipedrive, an_oauth_sign_in_uses_bearer_on_its_api_domain)
{
    wgt_replay *api = wgt_replay_start();
    cr_assert_not_null(api);
    wg_connect_vault *mem = NULL;
    cr_assert_eq(wg_connect_memvault_new(&mem), 0);
    put(mem, "connector:pipedrive", "oauth-access-1",
        "{\"credentialType\":\"oauth2\",\"provider\":\"pipedrive\",\"expiresAt\":\"2099-01-01T00:00:00Z\"}");
    put(mem, "connector:pipedrive:refresh", "oauth-refresh-1", NULL);
    put(mem, "connector:pipedrive:api_domain", wgt_replay_base(api), NULL);
    json_t *ex = json_loads("[{\"request\":{\"method\":\"GET\",\"uri\":\"/api/v1/deals\","
                            "\"headers\":{\"Authorization\":\"Bearer oauth-access-1\","
                            "\"x-api-token\":null},\"no_body\":true},"
                            "\"response\":{\"status\":200,\"body\":{\"success\":true,\"data\":[],"
                            "\"additional_data\":{\"pagination\":{\"start\":0,\"limit\":100,"
                            "\"more_items_in_collection\":false}}}}}]", 0, NULL);
    cr_assert_not_null(ex);
    wgt_replay_expect(api, ex);
    wg_registry *reg = NULL;
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION, .vault = mem,
                              .allow_private_upstreams = 1, .allow_http_upstreams = 1 };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    json_t *args = json_object(), *res = NULL;
    wg_registry_execute(&res, reg, "connector_pipedrive_list_deals", args);
    cr_assert(json_is_true(json_object_get(res, "success")), "%s",
              json_string_value(json_object_get(res, "error")));
    const char *verdict = wgt_replay_verdict(api);
    cr_assert_null(verdict, "%s", verdict);
    json_decref(res);

    /* an api_domain that is not a bare origin is never used */
    put(mem, "connector:pipedrive:api_domain", "https://acme.pipedrive.com/api/v1?x=", NULL);
    wgt_replay_expect(api, NULL);
    wg_registry_execute(&res, reg, "connector_pipedrive_list_deals", args);
    cr_assert(!json_is_true(json_object_get(res, "success")));
    cr_assert_null(wgt_replay_verdict(api), "nothing was sent");
    json_decref(res);
    json_decref(args);
    json_decref(ex);
    wg_registry_free(reg);
    wg_connect_memvault_free(mem);
    wgt_replay_stop(api);
}

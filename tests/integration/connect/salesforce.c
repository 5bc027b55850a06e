/* salesforce.c - every Salesforce action against the replay server, with requests and
 * responses shaped as the Salesforce API reference documents them (docs/connect.md
 * lists the pages), hostile inputs included. */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_salesforce, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("salesforce", &ran);
    cr_expect_gt(ran, 5, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Salesforce cases failed (see stderr)", failures, ran);
}

/* ---- the instance URL comes from the token response ----------------------- */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oauth_server.h"
#include "waggle/connector.h"

static void put(const wg_connect_vault *v, const char *name, const char *value, const char *meta)
{
    json_t *m = meta ? json_loads(meta, 0, NULL) : NULL;
    cr_assert_eq(v->set(v->ctx, name, value, m), 0, "set %s", name);
    json_decref(m);
}

static json_t *list_contacts(wg_registry *reg)
{
    json_t *args = json_object(), *res = NULL;
    wg_registry_execute(&res, reg, "connector_salesforce_list_contacts", args);
    json_decref(args);
    return res;
}

static const char *error_of(const json_t *res)
{
    const char *e = json_string_value(json_object_get(res, "error"));
    return e ? e : "";
}

/* An expired access token and a refresh token: the refresh answers with
 * instance_url (the replay server), and the call goes there, under
 * /services/data/v59.0, with no base URL stored anywhere. */
Test(connect_salesforce, the_instance_url_of_the_token_response_is_the_base)
{
    wgt_replay *api = wgt_replay_start();
    cr_assert_not_null(api);
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1",
                             .keep_field = "instance_url", .keep_value = wgt_replay_base(api) };
    wgt_oauth_server *srv = wgt_oauth_start(&cfg);
    cr_assert_not_null(srv);
    wg_connect_vault *mem = NULL;
    cr_assert_eq(wg_connect_memvault_new(&mem), 0);
    put(mem, "connector:salesforce", "stale-access-0",
        "{\"credentialType\":\"bearer\",\"expiresAt\":\"2020-01-01T00:00:00Z\",\"setBy\":\"operator\"}");
    put(mem, "connector:salesforce:refresh", "refresh-seed", NULL);
    put(mem, "connector:salesforce:client_id", "client-1", NULL);
    put(mem, "connector:salesforce:client_secret", "secret-1", NULL);
    char url[256];
    snprintf(url, sizeof url, "%s/services/oauth2/token", wgt_oauth_base(srv));
    put(mem, "connector:salesforce:token_url", url, NULL);
    wgt_oauth_seed(srv, "refresh-seed", "stale-access-0");

    json_t *ex = json_loads("[{\"request\":{\"method\":\"GET\",\"uri\":\"/services/data/v59.0/query"
                            "?q=SELECT%20Id%2C%20Name%2C%20Email%2C%20Phone%20FROM%20Contact%20"
                            "ORDER%20BY%20CreatedDate%20DESC%20LIMIT%2025\",\"no_body\":true},"
                            "\"response\":{\"status\":200,\"body\":{\"totalSize\":0,\"done\":true,"
                            "\"records\":[]}}}]", 0, NULL);
    cr_assert_not_null(ex);
    wgt_replay_expect(api, ex);
    wg_registry *reg = NULL;
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION, .vault = mem,
                              .allow_private_upstreams = 1, .allow_http_upstreams = 1 };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    json_t *res = list_contacts(reg);
    cr_assert(json_is_true(json_object_get(res, "success")), "%s", error_of(res));
    const char *verdict = wgt_replay_verdict(api);
    cr_assert_null(verdict, "%s", verdict);
    cr_assert_eq(wgt_oauth_count(srv, "refresh_ok"), 1);
    char *inst = NULL;
    cr_assert_eq(mem->get(mem->ctx, "connector:salesforce:instance_url", &inst, NULL), 0);
    cr_assert_str_eq(inst, wgt_replay_base(api));
    free(inst);
    json_decref(res);

    /* an instance URL with a path (or anything but a bare origin) is refused */
    put(mem, "connector:salesforce:instance_url", "https://evil.example.com/services/data/v1", NULL);
    put(mem, "connector:salesforce", "fresh-enough",
        "{\"credentialType\":\"bearer\",\"expiresAt\":\"2099-01-01T00:00:00Z\"}");
    wgt_replay_expect(api, NULL);
    res = list_contacts(reg);
    cr_assert(!json_is_true(json_object_get(res, "success")));
    cr_assert(strstr(error_of(res), "not a bare https://host"), "%s", error_of(res));
    cr_assert_null(wgt_replay_verdict(api), "nothing was sent");
    json_decref(res);
    wg_registry_free(reg);

    /* the strict upstream policy still applies to the instance */
    put(mem, "connector:salesforce:instance_url", wgt_replay_base(api), NULL);
    wg_registry_options strict = { .version = WG_REGISTRY_OPTIONS_VERSION, .vault = mem };
    cr_assert_eq(wg_registry_new(&reg, &strict), 0);
    res = list_contacts(reg);
    cr_assert(!json_is_true(json_object_get(res, "success")));
    cr_assert(strstr(error_of(res), "Salesforce API: upstream refused"), "%s",
              error_of(res));
    cr_assert_null(wgt_replay_verdict(api), "nothing was sent");
    json_decref(res);

    wg_registry_free(reg);
    wg_connect_memvault_free(mem);
    wgt_oauth_stop(srv);
    wgt_replay_stop(api);
    json_decref(ex);
}

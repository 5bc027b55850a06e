/* microsoft_connection.c - the four Microsoft 365 connectors share one
 * OAuth2 connection (connector:microsoft): one sign-in connects them all
 * and takes one slot; the scopes asked for are offline_access plus the
 * union of theirs; a refresh goes to the tenant's v2.0 token endpoint,
 * repeats the scopes, keeps the rotated refresh token, and serves them all. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect_replay.h"
#include "oauth_server.h"
#include "waggle/oauth.h"

static wgt_oauth_server *auth;
static wgt_replay *api;
static wg_connect_vault *v;
static wg_registry *reg;

static void put(const char *name, const char *value, const char *meta)
{
    json_t *m = meta ? json_loads(meta, 0, NULL) : NULL;
    cr_assert_eq(v->set(v->ctx, name, value, m), 0, "set %s", name);
    json_decref(m);
}

static void setup(void)
{
    wgt_oauth_config cfg = { .client_id = "client-m", .client_secret = "secret-m", .rotate = 1,
                             .require_scope = "Notes.ReadWrite" };
    auth = wgt_oauth_start(&cfg);
    api = wgt_replay_start();
    cr_assert(auth && api);
    cr_assert_eq(wg_connect_memvault_new(&v), 0);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = v, .allow_private_upstreams = 1, .allow_http_upstreams = 1 };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    char url[256];
    snprintf(url, sizeof url, "%s/{tenant}/oauth2/v2.0/token", wgt_oauth_base(auth));
    put("connector:microsoft", "stale-ms-access",
        "{\"credentialType\":\"oauth2\",\"provider\":\"microsoft\",\"expiresAt\":\"2020-01-01T00:00:00Z\","
        "\"scopes\":[\"User.Read\",\"Files.ReadWrite\",\"Notes.ReadWrite\"]}");
    put("connector:microsoft:refresh", "refresh-m", NULL);
    put("connector:microsoft:client_id", "client-m", NULL);
    put("connector:microsoft:client_secret", "secret-m", NULL);
    put("connector:microsoft:tenant", "contoso.onmicrosoft.com", NULL);
    put("connector:microsoft:token_url", url, NULL);
    put("connector:microsoft:base_url", wgt_replay_base(api), "{\"setBy\":\"operator\"}");
    wgt_oauth_seed(auth, "refresh-m", "stale-ms-access");
}

static void teardown(void)
{
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    wgt_replay_stop(api);
    wgt_oauth_stop(auth);
}

TestSuite(connect_microsoft, .init = setup, .fini = teardown, .timeout = 60);

Test(connect_microsoft, one_sign_in_for_teams_outlook_onedrive_onenote)
{
    const char *ids[] = { "ms-teams", "outlook", "onedrive", "onenote" };
    for (size_t i = 0; i < 4; i++)
        cr_assert_str_eq(wg_registry_status(reg, ids[i]), "connected", "%s", ids[i]);
    json_t *tools = NULL;
    cr_assert_eq(wg_registry_tools(&tools, reg), 0);
    cr_assert_eq(json_array_size(tools), 6 + 6 + 5 + 8);
    json_decref(tools);
    wg_connector_limit_decision d;
    cr_assert_eq(wg_registry_check_limit(&d, reg, "github", WG_TIER_FREE), 0);
    cr_assert_eq(d.used, 1);
    char *scopes = NULL;
    cr_assert_eq(wg_oauth_scopes(&scopes, reg, "microsoft", wg_oauth_provider_find("microsoft")), 0);
    cr_assert_str_eq(scopes, "offline_access User.Read Team.ReadBasic.All Channel.ReadBasic.All "
                             "ChannelMessage.Read.All ChannelMessage.Send Chat.ReadWrite "
                             "Calendars.ReadWrite Mail.ReadWrite Mail.Send Files.ReadWrite "
                             "Notes.ReadWrite");
    free(scopes);
}

Test(connect_microsoft, one_refresh_at_the_tenant_serves_all_four)
{
    json_t *ex = json_loads(
        "[{\"request\":{\"method\":\"GET\",\"uri\":\"/v1.0/me/onenote/notebooks\"},"
        "  \"response\":{\"body\":{\"value\":[]}}},"
        " {\"request\":{\"method\":\"GET\",\"uri\":\"/v1.0/me/drive/recent\"},"
        "  \"response\":{\"body\":{\"value\":[]}}}]", 0, NULL);
    wgt_replay_expect(api, ex);
    json_decref(ex);
    json_t *args = json_object(), *res = NULL;
    wg_registry_execute(&res, reg, "connector_onenote_list_notebooks", args);
    cr_assert(json_is_true(json_object_get(res, "success")), "%s",
              json_string_value(json_object_get(res, "error")));
    json_decref(res);
    wg_registry_execute(&res, reg, "connector_onedrive_list_recent", args);
    cr_assert(json_is_true(json_object_get(res, "success")));
    json_decref(res);
    json_decref(args);
    cr_assert_null(wgt_replay_verdict(api), "%s", wgt_replay_verdict(api));
    cr_assert_eq(wgt_oauth_count(auth, "refresh"), 1);
    cr_assert_null(wgt_oauth_problem(auth), "%s", wgt_oauth_problem(auth));
    char *path = wgt_oauth_last_token_path(auth);
    cr_assert_str_eq(path, "/contoso.onmicrosoft.com/oauth2/v2.0/token");
    free(path);
    char *stored = NULL, *issued = wgt_oauth_last_refresh(auth);
    cr_assert_eq(v->get(v->ctx, "connector:microsoft:refresh", &stored, NULL), 0);
    cr_assert_str_eq(stored, issued, "the rotated refresh token was saved");
    free(stored);
    free(issued);
}

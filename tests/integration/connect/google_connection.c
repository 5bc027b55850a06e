/* google_connection.c - the five Google connectors share one OAuth2
 * connection (connector:google): one sign-in connects them all, takes one
 * slot of the tier's connector limit, asks for the union of their scopes,
 * refreshes once for all of them; a credential connected for one connector
 * alone takes precedence for that connector only. */
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
    wgt_oauth_config cfg = { .client_id = "client-g", .client_secret = "secret-g" };
    auth = wgt_oauth_start(&cfg);
    api = wgt_replay_start();
    cr_assert(auth && api);
    cr_assert_eq(wg_connect_memvault_new(&v), 0);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = v, .allow_private_upstreams = 1, .allow_http_upstreams = 1 };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    char url[256];
    snprintf(url, sizeof url, "%s/token", wgt_oauth_base(auth));
    put("connector:google", "stale-google-access",
        "{\"credentialType\":\"oauth2\",\"provider\":\"google\",\"expiresAt\":\"2020-01-01T00:00:00Z\"}");
    put("connector:google:refresh", "refresh-g", NULL);
    put("connector:google:client_id", "client-g", NULL);
    put("connector:google:client_secret", "secret-g", NULL);
    put("connector:google:token_url", url, NULL);
    put("connector:google:base_url", wgt_replay_base(api), "{\"setBy\":\"operator\"}");
    wgt_oauth_seed(auth, "refresh-g", "stale-google-access");
}

static void teardown(void)
{
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    wgt_replay_stop(api);
    wgt_oauth_stop(auth);
}

TestSuite(connect_google, .init = setup, .fini = teardown, .timeout = 60);

static const char *const google[] = { "gcal", "gmail", "gdocs", "gdrive", "gsheets" };

Test(connect_google, one_sign_in_connects_all_five_and_takes_one_slot)
{
    for (size_t i = 0; i < 5; i++) {
        cr_assert_str_eq(wg_registry_status(reg, google[i]), "connected", "%s", google[i]);
        char buf[64];
        cr_assert_str_eq(wg_registry_credential_id(reg, google[i], buf, sizeof buf), "google");
    }
    json_t *tools = NULL;
    cr_assert_eq(wg_registry_tools(&tools, reg), 0);
    cr_assert_eq(json_array_size(tools), 4 + 5 + 4 + 6 + 5, "every Google action is a tool");
    json_decref(tools);
    wg_connector_limit_decision d;
    cr_assert_eq(wg_registry_check_limit(&d, reg, "github", WG_TIER_FREE), 0);
    cr_assert_eq(d.used, 1, "one connection, one slot (got %d)", d.used);
    cr_assert(d.allowed);
}

Test(connect_google, connections_and_scopes)
{
    const wg_oauth_provider *p = NULL;
    cr_assert_str_eq(wg_oauth_connection(reg, "gmail", &p), "google");
    cr_assert_str_eq(p->id, "google");
    cr_assert_str_eq(wg_oauth_connection(reg, "google", &p), "google");
    cr_assert_null(wg_oauth_connection(reg, "github", &p), "GitHub has no OAuth2 provider");
    cr_assert_null(wg_oauth_connection(reg, "nope", &p));
    char *scopes = NULL;
    cr_assert_eq(wg_oauth_scopes(&scopes, reg, "google", wg_oauth_provider_find("google")), 0);
    cr_assert_str_eq(scopes,
                     "https://www.googleapis.com/auth/calendar.events "
                     "https://www.googleapis.com/auth/calendar.readonly "
                     "https://www.googleapis.com/auth/gmail.readonly "
                     "https://www.googleapis.com/auth/gmail.send "
                     "https://www.googleapis.com/auth/documents "
                     "https://www.googleapis.com/auth/drive.readonly "
                     "https://www.googleapis.com/auth/drive "
                     "https://www.googleapis.com/auth/spreadsheets "
                     "https://www.googleapis.com/auth/drive.metadata.readonly");
    free(scopes);
}

Test(connect_google, one_refresh_serves_every_connector)
{
    json_t *ex = json_loads(
        "[{\"request\":{\"method\":\"GET\",\"uri\":\"/gmail/v1/users/me/labels\"},"
        "  \"response\":{\"body\":{\"labels\":[]}}},"
        " {\"request\":{\"method\":\"GET\",\"uri\":\"/drive/v3/files/f1?fields=id%2Cname%2CmimeType%2CmodifiedTime%2Csize%2Cparents%2CwebViewLink\"},"
        "  \"response\":{\"body\":{\"id\":\"f1\"}}}]", 0, NULL);
    wgt_replay_expect(api, ex);
    json_decref(ex);
    json_t *args = json_object(), *res = NULL;
    wg_registry_execute(&res, reg, "connector_gmail_list_labels", args);
    cr_assert(json_is_true(json_object_get(res, "success")), "%s",
              json_string_value(json_object_get(res, "error")));
    json_decref(res);
    json_object_set_new(args, "fileId", json_string("f1"));
    wg_registry_execute(&res, reg, "connector_gdrive_get_file_metadata", args);
    cr_assert(json_is_true(json_object_get(res, "success")));
    json_decref(res);
    json_decref(args);
    cr_assert_null(wgt_replay_verdict(api), "%s", wgt_replay_verdict(api));
    cr_assert_eq(wgt_oauth_count(auth, "refresh"), 1, "the second connector used the new token");
    char *tok = NULL;
    json_t *meta = NULL;
    cr_assert_eq(v->get(v->ctx, "connector:google", &tok, &meta), 0);
    cr_assert(strncmp(tok, "access-", 7) == 0, "%s", tok);
    free(tok);
    json_decref(meta);
}

Test(connect_google, a_connector_of_its_own_takes_precedence)
{
    wg_connect_request req = { .token = "gmail-only-token", .base_url = wgt_replay_base(api),
                               .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(reg, "gmail", &req), 0);
    char buf[64];
    cr_assert_str_eq(wg_registry_credential_id(reg, "gmail", buf, sizeof buf), "gmail");
    cr_assert_str_eq(wg_registry_credential_id(reg, "gcal", buf, sizeof buf), "google");
    json_t *ex = json_loads(
        "[{\"request\":{\"method\":\"GET\",\"uri\":\"/gmail/v1/users/me/labels\","
        "   \"headers\":{\"Authorization\":\"Bearer gmail-only-token\"}},"
        "  \"response\":{\"body\":{\"labels\":[]}}}]", 0, NULL);
    wgt_replay_expect(api, ex);
    json_decref(ex);
    json_t *args = json_object(), *res = NULL;
    wg_registry_execute(&res, reg, "connector_gmail_list_labels", args);
    cr_assert(json_is_true(json_object_get(res, "success")));
    json_decref(res);
    json_decref(args);
    cr_assert_null(wgt_replay_verdict(api), "%s", wgt_replay_verdict(api));
    cr_assert_eq(wgt_oauth_count(auth, "refresh"), 0, "its own token has no refresh");
    wg_connector_limit_decision d;
    cr_assert_eq(wg_registry_check_limit(&d, reg, "github", WG_TIER_FREE), 0);
    cr_assert_eq(d.used, 2, "google + gmail's own");
    /* disconnecting gmail removes its own credential; the shared one stays */
    json_t *out = NULL;
    cr_assert_eq(wg_registry_disconnect(&out, reg, "gmail"), 0);
    json_decref(out);
    cr_assert_str_eq(wg_registry_credential_id(reg, "gmail", buf, sizeof buf), "google");
}

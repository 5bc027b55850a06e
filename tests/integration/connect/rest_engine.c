/* rest_engine.c - the declarative REST executor itself, with a test-only
 * connector whose upstream insists on the credential in the query
 * (Pipedrive/Trello style, reference 13 item 14): the token is encoded, and
 * neither our error text nor an upstream body echoing the URL leaks it.
 * Also: responses over the size cap are refused, and 5xx is retryable. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "connect/rest.h"
#include "connect_fixture.h"
#include "connect_replay.h"

static const wg_connector_action actions[] = {
    { "get_deal", "Get a deal", "{\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}",
      WG_RISK_LOW },
};
static const wg_rest_action rest_actions[] = {
    { .name = "get_deal", .method = WG_REST_GET, .path = "/deals/{id}" },
};
static const wg_rest_spec rest = {
    .default_base = "https://api.example.invalid/v1", .auth = WG_REST_AUTH_QUERY,
    .auth_name = "api_token", .error_prefix = "Deals API", .actions = rest_actions,
    .n_actions = 1, .health_method = WG_REST_GET, .health_path = "/users/me",
};
static const wg_connector_spec spec = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "deals", .name = "Deals", .description = "test", .service = "example",
    .auth_type = WG_AUTH_API_KEY, .actions = actions, .n_actions = 1, .ops = &wg_rest_ops,
    .impl = &rest,
};

static wgt_connect f;
static wgt_replay *up;
static const char token[] = "pd-token&admin=1 #x";

static void setup(void)
{
    up = wgt_replay_start();
    wgt_connect_open(&f, NULL, NULL, 0);
    cr_assert_eq(wg_registry_register(f.reg, &spec), 0);
    wg_connect_request req = { .token = token, .base_url = wgt_replay_base(up),
                               .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(f.reg, "deals", &req), 0);
}

static void teardown(void)
{
    wgt_connect_close(&f);
    wgt_replay_stop(up);
}

TestSuite(connect_rest_engine, .init = setup, .fini = teardown);

static void expect(const char *json)
{
    json_t *ex = json_loads(json, 0, NULL);
    cr_assert_not_null(ex);
    wgt_replay_expect(up, ex);
    json_decref(ex);
}

Test(connect_rest_engine, query_credential_is_encoded_and_never_echoed)
{
    expect("[{\"request\":{\"method\":\"GET\",\"uri\":\"/deals/7?api_token=pd-token%26admin%3D1%20%23x\"},"
           "\"response\":{\"status\":400,\"body\":{\"success\":false,\"error\":"
           "\"bad request GET /deals/7?api_token=pd-token&admin=1 #x (sent as pd-token%26admin%3D1%20%23x)\"}}}]");
    wgt_connect_call(&f, "connector_deals_get_deal", "{\"id\":\"7\"}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
    cr_assert(strstr(wgt_connect_error(&f), "Deals API 400"), "%s", wgt_connect_error(&f));
    cr_assert_null(strstr(wgt_connect_error(&f), "pd-token"), "%s", wgt_connect_error(&f));
}

Test(connect_rest_engine, transport_errors_do_not_carry_the_url)
{
    wg_connect_request req = { .token = token, .base_url = "http://127.0.0.1:9",
                               .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(f.reg, "deals", &req), 0);
    wgt_connect_call(&f, "connector_deals_get_deal", "{\"id\":\"7\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert_null(strstr(wgt_connect_error(&f), "pd-token"), "%s", wgt_connect_error(&f));
    cr_assert_null(strstr(wgt_connect_error(&f), "api_token"), "%s", wgt_connect_error(&f));
}

Test(connect_rest_engine, oversized_response_is_refused)
{
    size_t n = 11u << 20;
    char *big = malloc(n + 1);
    memset(big, 'a', n);
    big[n] = 0;
    json_t *ex = json_pack("[{s:{s:s},s:{s:i,s:s}}]", "request", "method", "GET", "response",
                           "status", 200, "body_text", big);
    free(big);
    wgt_replay_expect(up, ex);
    json_decref(ex);
    wgt_connect_call(&f, "connector_deals_get_deal", "{\"id\":\"7\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "larger than"), "%s", wgt_connect_error(&f));
}

Test(connect_rest_engine, server_errors_are_retryable_with_retry_after)
{
    expect("[{\"request\":{\"method\":\"GET\"},\"response\":{\"status\":503,\"headers\":"
           "{\"Retry-After\":\"120\"},\"body_text\":\"<html>upstream down</html>\"}}]");
    wgt_connect_call(&f, "connector_deals_get_deal", "{\"id\":\"7\"}");
    cr_assert(json_is_true(json_object_get(f.last, "retryable")));
    cr_assert_eq(json_integer_value(json_object_get(f.last, "retryAfter")), 120);
    cr_assert_eq(json_integer_value(json_object_get(f.last, "status")), 503);
}

Test(connect_rest_engine, token_with_a_line_break_is_never_sent)
{
    /* a credential written to the vault by someone else, bypassing connect */
    json_t *meta = json_pack("{s:s}", "credentialType", "api_key");
    f.vault->set(f.vault->ctx, "connector:deals", "tok\r\nX-Injected: 1", meta);
    json_decref(meta);
    expect("[]");
    wgt_connect_call(&f, "connector_deals_get_deal", "{\"id\":\"7\"}");
    cr_assert(strstr(wgt_connect_error(&f), "line break"), "%s", wgt_connect_error(&f));
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
}

/* oauth_refresh.c - the OAuth2 token manager (waggle/oauth.h) end to end:
 * a registry whose test connector signs in through a shared connection,
 * a loopback authorization server (tests/support/oauth_server.c) as token
 * endpoint and resource. Proves: an expired access token is refreshed
 * exactly once under 8 concurrent calls (threads) and under 8 calls from
 * two processes sharing one store; a 401 refreshes and retries once, never
 * twice; invalid_grant marks the connection expired with a message and no
 * later call asks the token endpoint again; rotated refresh tokens are
 * saved; Basic client authentication, JSON token requests, Microsoft's
 * tenant path and scope, and kept response fields (instance_url). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "connect/rest.h"
#include "oauth_server.h"
#include "waggle/oauth.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "wgtest.h"

static const wg_connector_action actions[] = {
    { "whoami", "Who am I", "{\"properties\":{}}", WG_RISK_LOW },
};
static const wg_rest_action rest_actions[] = {
    { .name = "whoami", .method = WG_REST_GET, .path = "/api/me" },
};
static const wg_rest_spec rest = {
    .default_base = "https://api.example.invalid", .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Test API", .actions = rest_actions, .n_actions = 1,
    .health_method = WG_REST_GET, .health_path = "/api/health",
};

#define TEST_SPEC(var, ident, provider, conn)                                               \
    static const wg_connector_spec var = {                                                  \
        .version = WG_CONNECTOR_SPEC_VERSION, \
        .id = ident, .name = "Test " provider, .description = "test", .service = "example",  \
        .auth_type = WG_AUTH_OAUTH2, .actions = actions, .n_actions = 1,                     \
        .ops = &wg_rest_ops, .impl = &rest, .oauth_provider = provider, .connection = conn,  \
        .oauth_scopes = "scope.read" }

TEST_SPEC(spec_google, "gtest", "google", "gshared");
TEST_SPEC(spec_pipedrive, "ptest", "pipedrive", NULL);
TEST_SPEC(spec_atlassian, "atest", "atlassian", NULL);
TEST_SPEC(spec_microsoft, "mtest", "microsoft", NULL);
TEST_SPEC(spec_salesforce, "stest", "salesforce", NULL);

static wgt_oauth_server *srv;
static wg_connect_vault *mem;
static wg_registry *reg;

static void put(const wg_connect_vault *v, const char *name, const char *value, const char *meta)
{
    json_t *m = meta ? json_loads(meta, 0, NULL) : NULL;
    cr_assert_eq(v->set(v->ctx, name, value, m), 0, "set %s", name);
    json_decref(m);
}

/* Seeds connection conn of connector id: an expired (or valid until
 * `until`) access token the server does not know, a refresh token it does. */
static void seed(const wg_connect_vault *v, const char *id, const char *conn, const char *until)
{
    char name[128], meta[256];
    snprintf(meta, sizeof meta, "{\"credentialType\":\"oauth2\",\"expiresAt\":\"%s\","
             "\"scopes\":[\"scope.read\",\"Mail.Read\"]}", until);
    snprintf(name, sizeof name, "connector:%s", conn);
    put(v, name, "stale-access-0", meta);
    snprintf(name, sizeof name, "connector:%s:refresh", conn);
    put(v, name, "refresh-seed", NULL);
    snprintf(name, sizeof name, "connector:%s:client_id", conn);
    put(v, name, "client-1", NULL);
    snprintf(name, sizeof name, "connector:%s:client_secret", conn);
    put(v, name, "secret-1", NULL);
    snprintf(name, sizeof name, "connector:%s:token_url", conn);
    char url[256];
    snprintf(url, sizeof url, "%s/token", wgt_oauth_base(srv));
    put(v, name, url, NULL);
    snprintf(name, sizeof name, "connector:%s:base_url", id);
    put(v, name, wgt_oauth_base(srv), "{\"setBy\":\"operator\"}");
    wgt_oauth_seed(srv, "refresh-seed", "stale-access-0");
}

static void start(const wgt_oauth_config *cfg)
{
    srv = wgt_oauth_start(cfg);
    cr_assert_not_null(srv);
    cr_assert_eq(wg_connect_memvault_new(&mem), 0);
    /* the test is the operator; its upstreams are on 127.0.0.1 */
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = mem, .no_builtins = 1, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1 };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    const wg_connector_spec *specs[] = { &spec_google, &spec_pipedrive, &spec_atlassian,
                                         &spec_microsoft, &spec_salesforce };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        cr_assert_eq(wg_registry_register(reg, specs[i]), 0);
}

static void teardown(void)
{
    wg_registry_free(reg);
    reg = NULL;
    wg_connect_memvault_free(mem);
    mem = NULL;
    wgt_oauth_stop(srv);
    srv = NULL;
}

TestSuite(connect_oauth, .fini = teardown, .timeout = 120);

static json_t *call(wg_registry *r, const char *tool)
{
    json_t *args = json_object(), *res = NULL;
    wg_registry_execute(&res, r, tool, args);
    json_decref(args);
    return res;
}

static int ok(const json_t *res)
{
    return json_is_true(json_object_get(res, "success"));
}

static const char *error_of(const json_t *res)
{
    const char *e = json_string_value(json_object_get(res, "error"));
    return e ? e : "";
}

static char *vault_value(const wg_connect_vault *v, const char *name, json_t **meta)
{
    char *val = NULL;
    if (v->get(v->ctx, name, &val, meta) < 0)
        return NULL;
    return val;
}

/* ---- one process, 8 threads ------------------------------------------------ */

typedef struct {
    wg_registry *reg;
    int ok;
    char error[256];
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    json_t *res = call(w->reg, "connector_gtest_whoami");
    w->ok = ok(res);
    snprintf(w->error, sizeof w->error, "%s", error_of(res));
    json_decref(res);
    return NULL;
}

Test(connect_oauth, expired_token_is_refreshed_once_under_8_concurrent_calls)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1",
                             .delay_ms = 200 };
    start(&cfg);
    seed(mem, "gtest", "gshared", "2020-01-01T00:00:00Z");
    cr_assert_str_eq(wg_registry_status(reg, "gtest"), "connected",
                     "a refreshable connection stays connected past its expiry");
    pthread_t t[8];
    worker w[8];
    for (int i = 0; i < 8; i++) {
        w[i] = (worker){ reg, 0, "" };
        cr_assert_eq(pthread_create(&t[i], NULL, run_worker, &w[i]), 0);
    }
    int good = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        good += w[i].ok;
        cr_expect(w[i].ok, "call %d: %s", i, w[i].error);
    }
    long refreshes = wgt_oauth_count(srv, "refresh"), api = wgt_oauth_count(srv, "api");
    fprintf(stderr, "oauth threads: %d of 8 calls succeeded; token endpoint refreshes: %ld; "
            "API calls: %ld (401s: %ld)\n", good, refreshes, api, wgt_oauth_count(srv, "api_401"));
    cr_assert_eq(refreshes, 1, "exactly one refresh, got %ld", refreshes);
    cr_assert_eq(api, 8);
    cr_assert_eq(wgt_oauth_count(srv, "api_401"), 0, "nobody used the stale token");
    cr_assert_null(wgt_oauth_problem(srv), "%s", wgt_oauth_problem(srv));
    json_t *meta = NULL;
    char *access = vault_value(mem, "connector:gshared", &meta);
    cr_assert(access && strncmp(access, "access-", 7) == 0, "stored %s", access);
    cr_assert_str_eq(json_string_value(json_object_get(meta, "provider")), "google");
    int64_t exp = 0;
    cr_assert_eq(wg_time_parse_iso(&exp, json_string_value(json_object_get(meta, "expiresAt"))), 0);
    cr_assert_gt(exp, wg_time_now_ms() + 3000 * 1000LL, "expiry from expires_in=3600");
    free(access);
    json_decref(meta);
    long requests = 0, refreshed = 0;
    wg_oauth_stats(wg_registry_token_manager(reg), &requests, &refreshed);
    cr_assert_eq(requests, 1);
    cr_assert_eq(refreshed, 1);
}

/* ---- two processes on one store ---------------------------------------------- */

/* Both children open their store, then wait at the barrier (a pipe the
 * parent writes to once both exist), so their calls really overlap. */
static int child(const char *dir, int barrier)
{
    static const unsigned char key[32] = { 7 };
    wg_store *st = NULL;
    wg_vault *v = NULL;
    wg_registry *r = NULL;
    if (wg_store_open(&st, dir) < 0 || wg_vault_open_key(&v, st, key) < 0)
        return 10;
    wg_connect_vault cv;
    wg_connect_vault_of(&cv, v);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = &cv, .no_builtins = 1, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1 };
    if (wg_registry_new(&r, &o) < 0 || wg_registry_register(r, &spec_google) < 0)
        return 11;
    char go;
    if (read(barrier, &go, 1) != 1)
        return 12;
    pthread_t t[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){ r, 0, "" };
        pthread_create(&t[i], NULL, run_worker, &w[i]);
    }
    int bad = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        if (!w[i].ok) {
            fprintf(stderr, "child %d call %d: %s\n", (int)getpid(), i, w[i].error);
            bad++;
        }
    }
    wg_registry_free(r);
    wg_vault_free(v);
    wg_store_free(st);
    return bad;
}

Test(connect_oauth, two_processes_refresh_once)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1",
                             .delay_ms = 300 };
    start(&cfg);
    char *dir = wgt_tmpdir();
    static const unsigned char key[32] = { 7 };
    wg_store *st = NULL;
    wg_vault *v = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_vault_open_key(&v, st, key), 0);
    wg_connect_vault cv;
    wg_connect_vault_of(&cv, v);
    seed(&cv, "gtest", "gshared", "2020-01-01T00:00:00Z");
    wg_vault_free(v);
    wg_store_free(st);
    pid_t kids[2];
    int gate[2];
    cr_assert_eq(pipe(gate), 0);
    for (int i = 0; i < 2; i++) {
        kids[i] = fork();
        cr_assert_neq(kids[i], -1);
        if (kids[i] == 0) {
            close(gate[1]);
            _exit(child(dir, gate[0]));
        }
    }
    close(gate[0]);
    cr_assert_eq(write(gate[1], "gg", 2), 2);
    close(gate[1]);
    for (int i = 0; i < 2; i++) {
        int status = 0;
        waitpid(kids[i], &status, 0);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d status %d", i, status);
    }
    long refreshes = wgt_oauth_count(srv, "refresh"), api = wgt_oauth_count(srv, "api");
    fprintf(stderr, "oauth processes: 2 processes x 4 threads; token endpoint refreshes: %ld; "
            "API calls: %ld (401s: %ld)\n", refreshes, api, wgt_oauth_count(srv, "api_401"));
    cr_assert_eq(refreshes, 1, "exactly one refresh across processes, got %ld", refreshes);
    cr_assert_eq(api, 8);
    cr_assert_null(wgt_oauth_problem(srv), "%s", wgt_oauth_problem(srv));
    wgt_rmtree(dir);
    free(dir);
}

/* ---- 401: refresh and retry once ----------------------------------------------- */

Test(connect_oauth, unauthorized_refreshes_and_retries_once)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1" };
    start(&cfg);
    seed(mem, "gtest", "gshared", "2099-01-01T00:00:00Z");   /* not expired by the clock */
    json_t *res = call(reg, "connector_gtest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    cr_assert_eq(wgt_oauth_count(srv, "api"), 2);
    cr_assert_eq(wgt_oauth_count(srv, "api_401"), 1);
    cr_assert_eq(wgt_oauth_count(srv, "refresh"), 1);
    /* the next call uses the stored fresh token: no refresh */
    res = call(reg, "connector_gtest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    cr_assert_eq(wgt_oauth_count(srv, "refresh"), 1);
    cr_assert_eq(wgt_oauth_count(srv, "api"), 3);
}

Test(connect_oauth, a_second_401_is_returned_not_retried)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1",
                             .refuse_api = 1 };
    start(&cfg);
    seed(mem, "gtest", "gshared", "2099-01-01T00:00:00Z");
    json_t *res = call(reg, "connector_gtest_whoami");
    cr_assert(!ok(res));
    cr_assert(strstr(error_of(res), "401"), "%s", error_of(res));
    cr_assert_eq(json_integer_value(json_object_get(res, "status")), 401);
    json_decref(res);
    cr_assert_eq(wgt_oauth_count(srv, "api"), 2, "one try and one retry");
    cr_assert_eq(wgt_oauth_count(srv, "refresh"), 1);
}

/* ---- invalid_grant ------------------------------------------------------------------ */

Test(connect_oauth, invalid_grant_marks_expired_and_never_loops)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1" };
    start(&cfg);
    seed(mem, "gtest", "gshared", "2020-01-01T00:00:00Z");
    wgt_oauth_revoke_access(srv);
    /* the server forgets the refresh token: it was revoked */
    wgt_oauth_stop(srv);
    srv = wgt_oauth_start(&cfg);
    char url[256];
    snprintf(url, sizeof url, "%s/token", wgt_oauth_base(srv));
    put(mem, "connector:gshared:token_url", url, NULL);
    put(mem, "connector:gtest:base_url", wgt_oauth_base(srv), "{\"setBy\":\"operator\"}");

    json_t *res = call(reg, "connector_gtest_whoami");
    cr_assert(!ok(res));
    cr_assert(strstr(error_of(res), "invalid_grant") || strstr(error_of(res), "revoked"), "%s",
              error_of(res));
    cr_assert(strstr(error_of(res), "waggle connectors oauth gshared"), "%s", error_of(res));
    json_decref(res);
    cr_assert_eq(wgt_oauth_count(srv, "invalid_grant"), 1);
    cr_assert_str_eq(wg_registry_status(reg, "gtest"), "expired");
    json_t *meta = NULL;
    char *v = vault_value(mem, "connector:gshared", &meta);
    cr_assert_str_eq(json_string_value(json_object_get(meta, "oauthStatus")), "expired");
    free(v);
    json_decref(meta);
    /* later calls and probes never ask again */
    for (int i = 0; i < 3; i++) {
        res = call(reg, "connector_gtest_whoami");
        cr_assert(!ok(res));
        cr_assert(strstr(error_of(res), "sign in again"), "%s", error_of(res));
        json_decref(res);
    }
    json_t *h = NULL;
    wg_registry_health(&h, reg, "gtest");
    cr_assert_str_eq(json_string_value(json_object_get(h, "status")), "expired");
    json_decref(h);
    cr_assert_eq(wgt_oauth_count(srv, "refresh"), 1, "no second refresh request");
    cr_assert_eq(wgt_oauth_count(srv, "api"), 0, "nothing reached the API");
    json_t *tools = NULL;
    wg_registry_tools(&tools, reg);
    cr_assert_eq(json_array_size(tools), 0, "an expired connection offers no tools");
    json_decref(tools);
}

Test(connect_oauth, no_refresh_token_means_expired_by_the_clock)
{
    wgt_oauth_config cfg = { .client_id = "client-1" };
    start(&cfg);
    put(mem, "connector:gtest", "tok", "{\"credentialType\":\"oauth2\",\"expiresAt\":\"2020-01-01T00:00:00Z\"}");
    cr_assert_str_eq(wg_registry_status(reg, "gtest"), "expired");
    json_t *res = call(reg, "connector_gtest_whoami");
    cr_assert(!ok(res));
    cr_assert(strstr(error_of(res), "expired"), "%s", error_of(res));
    json_decref(res);
    cr_assert_eq(wgt_oauth_count(srv, "refresh"), 0);
}

/* ---- rotation ----------------------------------------------------------------------- */

Test(connect_oauth, rotated_refresh_tokens_are_saved)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1", .rotate = 1 };
    start(&cfg);
    seed(mem, "gtest", "gshared", "2020-01-01T00:00:00Z");
    json_t *res = call(reg, "connector_gtest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    char *stored = vault_value(mem, "connector:gshared:refresh", NULL);
    char *issued = wgt_oauth_last_refresh(srv);
    cr_assert_str_neq(stored, "refresh-seed", "the rotated token replaced the old one");
    cr_assert_str_eq(stored, issued);
    free(stored);
    free(issued);
    /* the provider revokes the session early: the next call's 401 refreshes
     * with the rotated token, which the server accepts (the seed is dead) */
    wgt_oauth_revoke_access(srv);
    res = call(reg, "connector_gtest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    cr_assert_eq(wgt_oauth_count(srv, "refresh_ok"), 2);
    cr_assert_eq(wgt_oauth_count(srv, "invalid_grant"), 0);
    stored = vault_value(mem, "connector:gshared:refresh", NULL);
    issued = wgt_oauth_last_refresh(srv);
    cr_assert_str_eq(stored, issued);
    free(stored);
    free(issued);
}

/* ---- provider rows -------------------------------------------------------------------- */

Test(connect_oauth, basic_client_auth_and_kept_fields)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "se:cr=et&1",
                             .client_basic = 1, .keep_field = "api_domain",
                             .keep_value = "https://acme.pipedrive.com" };
    start(&cfg);
    seed(mem, "ptest", "ptest", "2020-01-01T00:00:00Z");
    put(mem, "connector:ptest:client_secret", "se:cr=et&1", NULL);
    json_t *res = call(reg, "connector_ptest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    cr_assert_null(wgt_oauth_problem(srv), "%s", wgt_oauth_problem(srv));
    char *domain = vault_value(mem, "connector:ptest:api_domain", NULL);
    cr_assert_str_eq(domain, "https://acme.pipedrive.com");
    free(domain);
}

Test(connect_oauth, atlassian_token_requests_are_json)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1",
                             .json_body = 1, .rotate = 1 };
    start(&cfg);
    seed(mem, "atest", "atest", "2020-01-01T00:00:00Z");
    json_t *res = call(reg, "connector_atest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    cr_assert_null(wgt_oauth_problem(srv), "%s", wgt_oauth_problem(srv));
    cr_assert_eq(wgt_oauth_count(srv, "refresh_ok"), 1);
}

Test(connect_oauth, microsoft_tenant_path_and_scope)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1",
                             .require_scope = "Mail.Read", .rotate = 1 };
    start(&cfg);
    seed(mem, "mtest", "mtest", "2020-01-01T00:00:00Z");
    char url[256];
    snprintf(url, sizeof url, "%s/{tenant}/oauth2/v2.0/token", wgt_oauth_base(srv));
    put(mem, "connector:mtest:token_url", url, NULL);
    put(mem, "connector:mtest:tenant", "contoso.onmicrosoft.com", NULL);
    json_t *res = call(reg, "connector_mtest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    char *path = wgt_oauth_last_token_path(srv);
    cr_assert_str_eq(path, "/contoso.onmicrosoft.com/oauth2/v2.0/token");
    free(path);
    cr_assert_null(wgt_oauth_problem(srv), "%s", wgt_oauth_problem(srv));
    /* a hostile tenant never reaches a URL */
    put(mem, "connector:mtest:tenant", "evil/../x?y", NULL);
    put(mem, "connector:mtest", "stale", "{\"credentialType\":\"oauth2\",\"expiresAt\":\"2020-01-01T00:00:00Z\"}");
    res = call(reg, "connector_mtest_whoami");
    cr_assert(!ok(res));
    cr_assert(strstr(error_of(res), "tenant"), "%s", error_of(res));
    json_decref(res);
}

Test(connect_oauth, salesforce_keeps_instance_url_without_expiry)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1",
                             .keep_field = "instance_url",
                             .keep_value = "https://acme.my.salesforce.com" };
    start(&cfg);
    seed(mem, "stest", "stest", "2020-01-01T00:00:00Z");
    json_t *res = call(reg, "connector_stest_whoami");
    cr_assert(ok(res), "%s", error_of(res));
    json_decref(res);
    char *inst = vault_value(mem, "connector:stest:instance_url", NULL);
    cr_assert_str_eq(inst, "https://acme.my.salesforce.com");
    free(inst);
}

Test(connect_oauth, a_token_endpoint_outage_is_not_an_expiry)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1" };
    start(&cfg);
    seed(mem, "gtest", "gshared", "2020-01-01T00:00:00Z");
    put(mem, "connector:gshared:token_url", "http://127.0.0.1:9/token", NULL);
    json_t *res = call(reg, "connector_gtest_whoami");
    cr_assert(!ok(res));
    cr_assert(strstr(error_of(res), "Token refresh failed"), "%s", error_of(res));
    json_decref(res);
    cr_assert_str_eq(wg_registry_status(reg, "gtest"), "connected", "still refreshable later");
}

Test(connect_oauth, the_token_endpoint_passes_the_upstream_policy)
{
    wgt_oauth_config cfg = { .client_id = "client-1", .client_secret = "secret-1" };
    start(&cfg);
    seed(mem, "gtest", "gshared", "2020-01-01T00:00:00Z");
    /* the same vault under the strict default: loopback is refused */
    wg_registry *strict = NULL;
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = mem, .no_builtins = 1 };
    cr_assert_eq(wg_registry_new(&strict, &o), 0);
    cr_assert_eq(wg_registry_register(strict, &spec_google), 0);
    json_t *res = call(strict, "connector_gtest_whoami");
    cr_assert(!ok(res));
    cr_assert(strstr(error_of(res), "Token refresh failed: Google token endpoint"), "%s",
              error_of(res));
    json_decref(res);
    wg_registry_free(strict);
    cr_assert_eq(wgt_oauth_count(srv, "refresh"), 0, "the refresh token never left");
}

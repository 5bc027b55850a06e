/* upstream.c - the upstream policy end to end (docs/security.md 3.2): a
 * connector aimed at a loopback replay server is refused by default and
 * sends nothing (no credential, no request); names are checked after
 * resolution; the connection goes to the address that was checked and
 * nowhere else; plain http needs the operator; only self-hostable
 * connectors take a base URL from the app; SMTP obeys the same policy.
 * Each of these ran against 127.0.0.1 before the policy existed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/rest.h"
#include "connect_replay.h"
#include "connect_smtp_sink.h"
#include "waggle/error.h"

/* a minimal REST connector that is not self-hostable, like most services */
static const wg_connector_action actions[] = {
    { "get_item", "Get an item", "{\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}",
      WG_RISK_LOW },
};
static const wg_rest_action rest_actions[] = {
    { .name = "get_item", .method = WG_REST_GET, .path = "/items/{id}" },
};
static const wg_rest_spec rest = {
    .default_base = "https://api.example.invalid/v1", .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Items API", .actions = rest_actions, .n_actions = 1,
    .health_method = WG_REST_GET, .health_path = "/me",
};
static const wg_connector_spec spec = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "items", .name = "Items", .description = "test", .service = "example",
    .auth_type = WG_AUTH_BEARER, .actions = actions, .n_actions = 1, .ops = &wg_rest_ops,
    .impl = &rest,
};

static const char token[] = "items-secret-token-0123456789";

typedef struct {
    const char *answer;
    int calls;
} stub;

static int stub_resolve(void *ud, const char *host, char (*addrs)[WG_UPSTREAM_ADDR_LEN],
                        size_t max, size_t *n)
{
    stub *s = ud;
    (void)host;
    (void)max;
    s->calls++;
    snprintf(addrs[0], WG_UPSTREAM_ADDR_LEN, "%s", s->answer);
    *n = 1;
    return 0;
}

typedef struct {
    wg_connect_vault *vault;
    wg_registry *reg;
    wgt_replay *up;
    json_t *last;
} fx;

static void open_fx(fx *f, int allow_private, int allow_http, const wg_upstream_resolver *r)
{
    memset(f, 0, sizeof *f);
    cr_assert_eq(wg_connect_memvault_new(&f->vault), 0);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = f->vault, .allow_private_upstreams = allow_private,
                              .allow_http_upstreams = allow_http, .resolver = r };
    cr_assert_eq(wg_registry_new(&f->reg, &o), 0);
    cr_assert_eq(wg_registry_register(f->reg, &spec), 0);
    f->up = wgt_replay_start();
    cr_assert_not_null(f->up);
}

static void close_fx(fx *f)
{
    json_decref(f->last);
    wg_registry_free(f->reg);
    wg_connect_memvault_free(f->vault);
    wgt_replay_stop(f->up);
}

/* Stores a base URL the way an older version or `waggle vault set` would:
 * straight into the vault, past connect's checks. */
static void store_base(fx *f, const char *id, const char *url, const char *by)
{
    char name[128];
    snprintf(name, sizeof name, "connector:%s", id);
    json_t *meta = json_pack("{s:s}", "credentialType", "bearer");
    cr_assert_eq(f->vault->set(f->vault->ctx, name, token, meta), 0);
    json_decref(meta);
    snprintf(name, sizeof name, "connector:%s:base_url", id);
    meta = by ? json_pack("{s:s}", "setBy", by) : NULL;
    cr_assert_eq(f->vault->set(f->vault->ctx, name, url, meta), 0);
    json_decref(meta);
}

static const char *call(fx *f, const char *tool)
{
    json_decref(f->last);
    f->last = NULL;
    json_t *args = json_pack("{s:s}", "id", "7");
    wg_registry_execute(&f->last, f->reg, tool, args);
    json_decref(args);
    cr_assert_not_null(f->last);
    const char *e = json_string_value(json_object_get(f->last, "error"));
    return e ? e : "";
}

static int ok(const fx *f) { return json_is_true(json_object_get(f->last, "success")); }

static void expect_one(fx *f, const char *host_header)
{
    json_t *ex = json_pack("[{s:{s:s,s:s,s:{s:s}},s:{s:i,s:{s:b}}}]", "request", "method", "GET",
                           "uri", "/items/7", "headers", "Authorization", "Bearer items-secret-token-0123456789",
                           "response", "status", 200, "body", "ok", 1);
    if (host_header)
        json_object_set_new(json_object_get(json_object_get(json_array_get(ex, 0), "request"),
                                            "headers"), "Host", json_string(host_header));
    wgt_replay_expect(f->up, ex);
    json_decref(ex);
}

static void no_request_arrived(fx *f)
{
    cr_assert_eq(json_array_size(wgt_replay_seen(f->up)), 0,
                 "the upstream was reached: the credential left the process");
    cr_assert_null(strstr(json_dumps(f->last, 0), token), "the token is in the result");
}

Test(connect_upstream, loopback_is_refused_by_default_and_nothing_is_sent)
{
    fx f;
    open_fx(&f, 0, 1, NULL);
    store_base(&f, "items", wgt_replay_base(f.up), "operator");
    expect_one(&f, NULL);
    const char *e = call(&f, "connector_items_get_item");
    cr_assert(!ok(&f));
    cr_assert(strstr(e, "127.0.0.1 is loopback"), "%s", e);
    cr_assert(strstr(e, "--allow-private-upstreams"), "%s", e);
    no_request_arrived(&f);
    /* the health probe goes through the same policy */
    json_t *h = NULL;
    cr_assert_eq(wg_registry_health(&h, f.reg, "items"), WG_EUPSTREAM);
    cr_assert(strstr(json_string_value(json_object_get(h, "error")), "loopback"));
    json_decref(h);
    no_request_arrived(&f);
    close_fx(&f);
}

Test(connect_upstream, odd_spellings_of_the_replay_address_are_refused)
{
    fx f;
    open_fx(&f, 0, 1, NULL);
    unsigned port = (unsigned)atoi(strrchr(wgt_replay_base(f.up), ':') + 1);
    static const char *const hosts[] = { "2130706433", "0x7f000001", "0177.0.0.1", "127.1",
                                         "0x7f.1", "localhost", "LocalHost.", "[::ffff:127.0.0.1]" };
    expect_one(&f, NULL);
    for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++) {
        char url[96];
        snprintf(url, sizeof url, "http://%s:%u", hosts[i], port);
        store_base(&f, "items", url, "operator");
        const char *e = call(&f, "connector_items_get_item");
        cr_assert(!ok(&f), "%s was reached", url);
        cr_assert(strstr(e, "loopback"), "%s: %s", url, e);
    }
    no_request_arrived(&f);
    close_fx(&f);
}

Test(connect_upstream, a_name_resolving_to_loopback_is_refused_after_resolution)
{
    stub s = { "127.0.0.1", 0 };
    wg_upstream_resolver r = { stub_resolve, &s };
    fx f;
    open_fx(&f, 0, 1, &r);
    char url[96];
    unsigned port = (unsigned)atoi(strrchr(wgt_replay_base(f.up), ':') + 1);
    snprintf(url, sizeof url, "http://rebind.example.test:%u", port);
    store_base(&f, "items", url, "operator");
    expect_one(&f, NULL);
    const char *e = call(&f, "connector_items_get_item");
    cr_assert(!ok(&f));
    cr_assert(strstr(e, "127.0.0.1 is loopback"), "%s", e);
    cr_assert(strstr(e, "rebind.example.test"), "%s", e);
    cr_assert_eq(s.calls, 1);
    no_request_arrived(&f);
    close_fx(&f);
}

/* The name below exists nowhere but in the stub (.test is reserved, and the
 * machine has no DNS): the request can arrive only if curl connected to the
 * address the policy checked, without resolving the name itself. The stub is
 * asked once per call, so there is no second lookup for a rebinding DNS
 * server to answer differently. */
Test(connect_upstream, the_connection_is_pinned_to_the_checked_address)
{
    stub s = { "127.0.0.1", 0 };
    wg_upstream_resolver r = { stub_resolve, &s };
    fx f;
    open_fx(&f, 1, 1, &r);
    char url[96], host[64];
    unsigned port = (unsigned)atoi(strrchr(wgt_replay_base(f.up), ':') + 1);
    snprintf(url, sizeof url, "http://pinned.waggle.test:%u", port);
    snprintf(host, sizeof host, "pinned.waggle.test:%u", port);
    store_base(&f, "items", url, "operator");
    expect_one(&f, host);
    const char *e = call(&f, "connector_items_get_item");
    cr_assert(ok(&f), "%s", e);
    cr_assert_null(wgt_replay_verdict(f.up), "%s", wgt_replay_verdict(f.up));
    cr_assert_eq(s.calls, 1, "resolved %d times", s.calls);
    close_fx(&f);
}

Test(connect_upstream, plain_http_needs_the_operator)
{
    fx f;
    open_fx(&f, 1, 0, NULL);
    store_base(&f, "items", wgt_replay_base(f.up), "operator");
    expect_one(&f, NULL);
    const char *e = call(&f, "connector_items_get_item");
    cr_assert(!ok(&f));
    cr_assert(strstr(e, "clear text"), "%s", e);
    cr_assert(strstr(e, "--allow-http-upstreams"), "%s", e);
    no_request_arrived(&f);
    close_fx(&f);
    /* allowed: the same call arrives, with the credential */
    open_fx(&f, 1, 1, NULL);
    store_base(&f, "items", wgt_replay_base(f.up), "operator");
    expect_one(&f, NULL);
    e = call(&f, "connector_items_get_item");
    cr_assert(ok(&f), "%s", e);
    cr_assert_null(wgt_replay_verdict(f.up), "%s", wgt_replay_verdict(f.up));
    close_fx(&f);
}

Test(connect_upstream, only_self_hostable_connectors_take_a_base_url_from_the_app)
{
    fx f;
    open_fx(&f, 1, 1, NULL);
    wg_connect_request app = { .token = token, .base_url = wgt_replay_base(f.up) };
    cr_assert_eq(wg_registry_connect(f.reg, "items", &app), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "only the operator"), "%s", wg_error_last());
    cr_assert_eq(wg_registry_connect(f.reg, "slack", &app), WG_EDENIED);
    cr_assert_eq(wg_registry_connect(f.reg, "notion", &app), WG_EDENIED);
    cr_assert_eq(wg_registry_connect(f.reg, "email", &app), WG_EDENIED);
    /* nothing was stored by the refused connects */
    cr_assert_str_eq(wg_registry_status(f.reg, "items"), "disconnected");
    /* self-hostable services take one from the app */
    cr_assert_eq(wg_registry_connect(f.reg, "github", &app), 0, "%s", wg_error_last());
    cr_assert_eq(wg_registry_connect(f.reg, "gitlab", &app), 0);
    cr_assert_eq(wg_registry_connect(f.reg, "jira", &app), 0);
    /* the operator may set any */
    wg_connect_request op = app;
    op.principal = WG_PRINCIPAL_OPERATOR;
    cr_assert_eq(wg_registry_connect(f.reg, "items", &op), 0, "%s", wg_error_last());
    expect_one(&f, NULL);
    const char *e = call(&f, "connector_items_get_item");
    cr_assert(ok(&f), "%s", e);
    close_fx(&f);
}

Test(connect_upstream, a_base_url_the_app_stored_is_not_used_for_other_connectors)
{
    /* e.g. stored through the HTTP API by a version before the policy */
    fx f;
    open_fx(&f, 1, 1, NULL);
    store_base(&f, "items", wgt_replay_base(f.up), NULL);
    expect_one(&f, NULL);
    const char *e = call(&f, "connector_items_get_item");
    cr_assert(!ok(&f));
    cr_assert(strstr(e, "not set by the operator"), "%s", e);
    no_request_arrived(&f);
    store_base(&f, "items", wgt_replay_base(f.up), "app");
    call(&f, "connector_items_get_item");
    cr_assert(!ok(&f));
    no_request_arrived(&f);
    close_fx(&f);
}

Test(connect_upstream, the_app_cannot_aim_a_self_hostable_connector_inward)
{
    fx f;
    open_fx(&f, 0, 0, NULL);
    static const char *const urls[] = {
        "http://ghe.example.com", "https://127.0.0.1:8443", "https://localhost",
        "https://169.254.169.254/latest", "https://[::1]:8443", "https://10.0.0.8",
        "https://0x7f.1", "https://[::ffff:192.168.0.1]",
    };
    for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
        wg_connect_request app = { .token = token, .base_url = urls[i] };
        cr_expect_eq(wg_registry_connect(f.reg, "github", &app), WG_EDENIED, "%s", urls[i]);
    }
    cr_assert_str_eq(wg_registry_status(f.reg, "github"), "disconnected");
    wg_connect_request good = { .token = token, .base_url = "https://ghe.example.com/api/v3" };
    cr_assert_eq(wg_registry_connect(f.reg, "github", &good), 0, "%s", wg_error_last());
    close_fx(&f);
}

Test(connect_upstream, redirects_are_not_followed)
{
    fx f;
    open_fx(&f, 1, 1, NULL);
    store_base(&f, "items", wgt_replay_base(f.up), "operator");
    json_t *ex = json_pack("[{s:{s:s},s:{s:i,s:{s:s},s:s}}]", "request", "method", "GET",
                           "response", "status", 302, "headers", "Location",
                           "http://169.254.169.254/latest/meta-data/", "body_text", "moved");
    wgt_replay_expect(f.up, ex);
    json_decref(ex);
    call(&f, "connector_items_get_item");
    cr_assert(!ok(&f));
    cr_assert_eq(json_integer_value(json_object_get(f.last, "status")), 302);
    cr_assert_null(wgt_replay_verdict(f.up), "%s", wgt_replay_verdict(f.up));
    close_fx(&f);
}

static void smtp_case(int allow_private, int allow_http, int want_sent)
{
    wgt_smtp *sink = wgt_smtp_start();
    cr_assert_not_null(sink);
    wg_connect_vault *v = NULL;
    wg_registry *reg = NULL;
    cr_assert_eq(wg_connect_memvault_new(&v), 0);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = v, .allow_private_upstreams = allow_private,
                              .allow_http_upstreams = allow_http };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    wg_connect_request req = { .token = "smtp-password-123", .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(reg, "email", &req), 0);
    char url[64];
    snprintf(url, sizeof url, "smtp://127.0.0.1:%d", wgt_smtp_port(sink));
    cr_assert_eq(wg_registry_set_setting(reg, "email", "smtp_url", url), 0);
    cr_assert_eq(wg_registry_set_setting(reg, "email", "from_email", "me@example.com"), 0);
    json_t *args = json_pack("{s:s,s:s,s:s}", "to", "ada@example.com", "subject", "s", "body", "b");
    json_t *res = NULL;
    wg_registry_execute(&res, reg, "connector_email_send_email", args);
    json_decref(args);
    json_t *msgs = wgt_smtp_messages(sink);
    const char *e = json_string_value(json_object_get(res, "error"));
    if (want_sent) {
        cr_assert(json_is_true(json_object_get(res, "success")), "%s", e ? e : "");
        cr_assert_eq(json_array_size(msgs), 1);
    } else {
        cr_assert(!json_is_true(json_object_get(res, "success")));
        cr_assert_eq(json_array_size(msgs), 0, "mail reached the loopback server");
        cr_assert(e && (strstr(e, "loopback") || strstr(e, "TLS") || strstr(e, "SSL")), "%s", e);
    }
    json_decref(msgs);
    json_decref(res);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    wgt_smtp_stop(sink);
}

Test(connect_upstream, smtp_obeys_the_same_policy)
{
    smtp_case(0, 1, 0);   /* loopback refused */
    smtp_case(1, 0, 0);   /* loopback allowed, but the sink has no TLS: refused */
    smtp_case(1, 1, 1);   /* both allowed by the operator */
}

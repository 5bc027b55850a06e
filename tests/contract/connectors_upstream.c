/* connectors_upstream.c - who may aim a connector where, over HTTP, on a
 * waggled with the default upstream policy (docs/security.md 2.2, 3.2):
 * the API token cannot point a connector at a loopback or http:// host
 * (before the policy it could, and the stored token went there in clear
 * text), nor give a base URL to a connector that is not self-hostable; the
 * admin token (the operator) may give one, still within the policy. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "connect_replay.h"
#include "server_test.h"

static wgt_server s;
static wgt_replay *up;

static void setup(void)
{
    static const char *const files[] = {
        "vault.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", NULL };
    wgt_server_config cfg = { .files = files };   /* the default policy */
    wgt_server_start(&s, &cfg);
    up = wgt_replay_start();
    cr_assert_not_null(up);
}

static void teardown(void)
{
    wgt_replay_stop(up);
    wgt_server_stop(&s);
}

TestSuite(connectors_upstream, .init = setup, .fini = teardown);

static long connect_with(const char *id, const char *base, int auth, char **body_out)
{
    char body[512];
    snprintf(body, sizeof body, "{\"token\":\"tok_contract_secret_0123456789\",\"baseUrl\":\"%s\"}",
             base);
    char path[128];
    snprintf(path, sizeof path, "/api/connectors/%s/connect", id);
    wgt_http_res r;
    wgt_http_ex(&r, &s, "POST", path, body, strlen(body), auth, NULL);
    long st = r.status;
    if (body_out)
        *body_out = strdup(r.body ? r.body : "");
    wgt_http_res_free(&r);
    return st;
}

Test(connectors_upstream, the_app_cannot_aim_github_at_loopback)
{
    char *body = NULL;
    long st = connect_with("github", wgt_replay_base(up), WGT_AUTH_API, &body);
    cr_assert_eq(st, 403, "%ld %s", st, body);
    cr_assert(strstr(body, "FORBIDDEN"), "%s", body);
    cr_assert_null(strstr(body, wgt_replay_base(up)), "the error echoes the URL: %s", body);
    free(body);
    /* nothing was stored, so a call has nowhere to go */
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/connectors", NULL);
    cr_assert(strstr(r.body, "\"id\":\"github\""));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/tools/execute",
             "{\"tool\":\"connector_github_list_repos\",\"args\":{}}");
    wgt_http_res_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "the replay server was reached");
}

Test(connectors_upstream, the_app_cannot_use_plain_http_or_internal_addresses)
{
    static const char *const bases[] = {
        "http://ghe.example.com/api/v3", "https://127.0.0.1:9", "https://localhost:9",
        "https://169.254.169.254", "https://[::1]:9", "https://10.0.0.1", "https://2130706433",
    };
    for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
        long st = connect_with("github", bases[i], WGT_AUTH_API, NULL);
        cr_expect_eq(st, 403, "%s: %ld", bases[i], st);
    }
    cr_expect_eq(connect_with("gitlab", "https://gitlab.example.com/api/v4", WGT_AUTH_API, NULL), 200);
}

Test(connectors_upstream, only_self_hostable_connectors_take_a_base_url_from_the_app)
{
    char *body = NULL;
    long st = connect_with("slack", "https://slack.example.com/api", WGT_AUTH_API, &body);
    cr_assert_eq(st, 403, "%ld %s", st, body);
    cr_assert(strstr(body, "only the operator"), "%s", body);
    free(body);
    cr_assert_eq(connect_with("notion", "https://notion.example.com/v1", WGT_AUTH_API, NULL), 403);
    /* the admin token is the operator */
    cr_assert_eq(connect_with("slack", "https://slack.example.com/api", WGT_AUTH_ADMIN, NULL), 200);
    /* and the operator's connect is still within the policy */
    cr_assert_eq(connect_with("slack", wgt_replay_base(up), WGT_AUTH_ADMIN, NULL), 403);
}

Test(connectors_upstream, confluence_takes_its_site_from_the_app_within_the_policy)
{
    /* Confluence is self-hostable: the app names its site ... */
    cr_assert_eq(connect_with("confluence", "https://example.atlassian.net", WGT_AUTH_API, NULL), 200);
    /* ... but never a loopback, internal or plain-http one */
    cr_assert_eq(connect_with("confluence", wgt_replay_base(up), WGT_AUTH_API, NULL), 403);
    cr_assert_eq(connect_with("confluence", "http://wiki.example.com", WGT_AUTH_API, NULL), 403);
    cr_assert_eq(connect_with("confluence", "https://169.254.169.254", WGT_AUTH_API, NULL), 403);
    /* the instance of Salesforce and the hosts of the others are not the app's to choose */
    static const char *const fixed[] = { "salesforce", "asana", "trello", "monday", "hubspot",
                                         "pipedrive", "airtable", "bitbucket", "dropbox" };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        char *body = NULL;
        long st = connect_with(fixed[i], "https://api.example.com", WGT_AUTH_API, &body);
        cr_expect_eq(st, 403, "%s: %ld %s", fixed[i], st, body);
        cr_expect(strstr(body, "only the operator"), "%s: %s", fixed[i], body);
        free(body);
    }
}

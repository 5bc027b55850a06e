/* connectors_limit.c - the tier's connectorLimit at POST
 * /api/connectors/:id/connect (reference 13 item 19; FREE = 5): the sixth
 * connector on FREE answers 403 with requireTier's exact body naming PRO,
 * stores nothing, and leaves the five working; reconnecting one of them and
 * connecting after a disconnect pass; demo connectors never count; PRO has
 * no limit; an expired trial is FREE; concurrent connects racing for the
 * last slots take exactly the slots left. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "server_test.h"

static wgt_server s;

static const char *const five[] = { "github", "slack", "discord", "linear", "notion" };

static void start(int demo)
{
    static const char *const files[] = {
        "vault.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", NULL };
    wgt_server_config cfg = { .files = files, .demo = demo };
    wgt_server_start(&s, &cfg);
}

static void start_plain(void)
{
    start(0);
}

static void start_demo(void)
{
    start(1);
}

static void stop(void)
{
    wgt_server_stop(&s);
}

static long connect_id(const char *id, wgt_http_res *keep)
{
    char path[128];
    snprintf(path, sizeof path, "/api/connectors/%s/connect", id);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", path, "{\"token\":\"tok_limit_test_0123456789\"}");
    long status = r.status;
    if (keep)
        *keep = r;
    else
        wgt_http_res_free(&r);
    return status;
}

static void connect_five(void)
{
    for (size_t i = 0; i < sizeof five / sizeof *five; i++)
        cr_assert_eq(connect_id(five[i], NULL), 200, "%s", five[i]);
}

/* The status GET /api/connectors reports for id. */
static char *status_of(const char *id)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/connectors", NULL);
    cr_assert_eq(r.status, 200);
    char *out = NULL;
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(r.json, "connectors"), i, c)
        if (!strcmp(json_string_value(json_object_get(c, "id")), id))
            out = strdup(json_string_value(json_object_get(c, "status")));
    wgt_http_res_free(&r);
    cr_assert_not_null(out, "no connector %s", id);
    return out;
}

static void assert_denied(const wgt_http_res *r, const char *required, const char *actual)
{
    cr_assert_eq(r->status, 403, "%s", r->body);
    char msg[128];
    snprintf(msg, sizeof msg, "This feature requires the %s tier. You are on %s.", required, actual);
    json_t *want = json_pack("{s:s,s:s,s:s,s:s,s:s}", "error", "TIER_INSUFFICIENT", "message", msg,
                             "required", required, "actual", actual, "upgradeUrl",
                             "https://waggle-os.ai/upgrade");
    cr_assert(json_equal(r->json, want), "exact body: %s", r->body);
    json_decref(want);
}

TestSuite(connectors_limit, .init = start_plain, .fini = stop);
TestSuite(connectors_limit_demo, .init = start_demo, .fini = stop);

Test(connectors_limit, sixth_connector_on_free_is_403_tier_insufficient_and_stores_nothing)
{
    connect_five();
    wgt_http_res r;
    connect_id("gitlab", &r);
    assert_denied(&r, "PRO", "FREE");
    wgt_http_res_free(&r);

    char *st = status_of("gitlab");
    cr_assert_str_eq(st, "disconnected", "a refused connect stores no credential");
    free(st);
    st = status_of("notion");
    cr_assert_str_eq(st, "connected", "the five keep working");
    free(st);
}

Test(connectors_limit, reconnecting_a_connected_connector_is_always_allowed)
{
    connect_five();
    cr_assert_eq(connect_id("github", NULL), 200, "reconnect at the limit");
    cr_assert_eq(connect_id("github", NULL), 200, "and again");
    cr_assert_eq(connect_id("gitlab", NULL), 403, "a new one still is not");
}

Test(connectors_limit, disconnecting_frees_a_slot)
{
    connect_five();
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/slack/disconnect", "{}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    cr_assert_eq(connect_id("gitlab", NULL), 200);
    cr_assert_eq(connect_id("slack", NULL), 403, "slack gave its slot to gitlab");
}

Test(connectors_limit, pro_has_no_connector_limit)
{
    wgt_server_config_json(&s, "{\"tier\":\"PRO\"}");
    connect_five();
    cr_assert_eq(connect_id("gitlab", NULL), 200);
    cr_assert_eq(connect_id("jira", NULL), 200, "a seventh too");
}

Test(connectors_limit, expired_trial_counts_as_free)
{
    wgt_server_config_json(&s, "{\"tier\":\"TRIAL\",\"trialStartedAt\":\"2020-01-01T00:00:00Z\"}");
    connect_five();
    wgt_http_res r;
    connect_id("gitlab", &r);
    assert_denied(&r, "PRO", "FREE");
    wgt_http_res_free(&r);
}

Test(connectors_limit, unknown_id_is_404_before_the_limit)
{
    connect_five();
    wgt_http_res r;
    connect_id("nope", &r);
    cr_assert_eq(r.status, 404, "%s", r.body);
    wgt_http_res_free(&r);
}

Test(connectors_limit_demo, demo_connectors_do_not_count)
{
    char *st = status_of("slack-mock");
    cr_assert_str_eq(st, "connected");
    free(st);
    connect_five();   /* 3 demo + 5 real: all five pass */
    cr_assert_eq(connect_id("gitlab", NULL), 403);
}

typedef struct racer {
    const char *id;
    long status;
} racer;

static void *race_connect(void *p)
{
    racer *r = p;
    r->status = connect_id(r->id, NULL);
    return NULL;
}

Test(connectors_limit, concurrent_connects_take_exactly_the_slots_left)
{
    cr_assert_eq(connect_id("github", NULL), 200);
    cr_assert_eq(connect_id("slack", NULL), 200);
    cr_assert_eq(connect_id("discord", NULL), 200);
    racer rs[] = { { "linear", 0 }, { "notion", 0 }, { "gitlab", 0 }, { "jira", 0 }, { "email", 0 } };
    enum { N = sizeof rs / sizeof *rs };
    pthread_t t[N];
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, race_connect, &rs[i]), 0);
    int ok = 0, denied = 0;
    for (size_t i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        ok += rs[i].status == 200;
        denied += rs[i].status == 403;
    }
    cr_assert_eq(ok, 2, "3 connected + 2 = FREE's 5 (got %d)", ok);
    cr_assert_eq(denied, N - 2);
}

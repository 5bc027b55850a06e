/* connectors_tools.c - POST /api/tools/execute and POST /api/approval/:id:
 * a connector write at Normal answers 202 with an approval id and runs
 * nothing; only a JSON true runs it, exactly once ("true" as a string is a
 * 400: reference 13 item 9); a read runs at once; elevated autonomy applies
 * only with a future expiresAt within the cap (spec 7.5). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "connect_replay.h"
#include "server_test.h"
#include "waggle/audit.h"
#include "waggle/store.h"

static wgt_server s;
static wgt_replay *up;

static const char create_args[] =
    "{\"owner\":\"octocat\",\"repo\":\"Hello-World\",\"title\":\"Found a bug\"}";

static void expect(const char *json)
{
    json_t *ex = json ? json_loads(json, 0, NULL) : NULL;
    wgt_replay_expect(up, ex);
    json_decref(ex);
}

static const char create_ok[] =
    "[{\"request\":{\"method\":\"POST\",\"uri\":\"/repos/octocat/Hello-World/issues\","
    "\"body\":{\"title\":\"Found a bug\"}},\"response\":{\"status\":201,\"body\":"
    "{\"number\":1347,\"html_url\":\"https://github.com/octocat/Hello-World/issues/1347\"}}}]";

static void setup(void)
{
    /* a fixed hex vault key (see tests/contract/connectors.c) */
    static const char *const files[] = {
        "vault.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", NULL };
    wgt_server_config cfg = { .files = files, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1 };   /* the replay server */
    wgt_server_start(&s, &cfg);
    up = wgt_replay_start();
    char body[256];
    snprintf(body, sizeof body, "{\"token\":\"ghp_contracttoken0123456789\",\"baseUrl\":\"%s\"}",
             wgt_replay_base(up));
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/github/connect", body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
}

static void teardown(void)
{
    wgt_replay_stop(up);
    wgt_server_stop(&s);
}

TestSuite(tools_execute, .init = setup, .fini = teardown);

static void call(wgt_http_res *r, const char *tool, const char *args, const char *autonomy)
{
    char body[1024];
    snprintf(body, sizeof body, "{\"tool\":\"%s\",\"args\":%s%s%s}", tool, args,
             autonomy ? ",\"autonomy\":" : "", autonomy ? autonomy : "");
    wgt_http(r, &s, "POST", "/api/tools/execute", body);
}

Test(tools_execute, read_runs_at_once)
{
    expect("[{\"request\":{\"method\":\"GET\",\"uri\":\"/user/repos\"},\"response\":{\"status\":200,"
           "\"body\":[{\"full_name\":\"octocat/Hello-World\"}]}}]");
    wgt_http_res r;
    call(&r, "connector_github_list_repos", "{}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_true(json_object_get(json_object_get(r.json, "result"), "success")));
    cr_assert_null(wgt_replay_verdict(up));
    wgt_http_res_free(&r);
}

Test(tools_execute, write_at_normal_waits_then_runs_once_after_approval)
{
    expect(NULL);
    wgt_http_res r;
    call(&r, "connector_github_create_issue", create_args, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "status")), "pending_approval");
    char id[64];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(r.json, "approvalId")));
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "nothing ran");
    wgt_http_res_free(&r);

    char path[128];
    snprintf(path, sizeof path, "/api/approval/%s", id);
    wgt_http(&r, &s, "POST", path, "{\"approved\":\"true\"}");
    cr_assert_eq(r.status, 400, "a string is not a boolean");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", path, "{\"approved\":1}");
    cr_assert_eq(r.status, 400);
    wgt_http_res_free(&r);

    expect(create_ok);
    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(json_is_true(json_object_get(r.json, "approved")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(r.json, "result"),
                                                                    "data"), "number")), 1347);
    cr_assert_null(wgt_replay_verdict(up));
    wgt_http_res_free(&r);

    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_eq(r.status, 404, "an approval is used once");
    wgt_http_res_free(&r);

    /* the audit log has the request, the grant and the connector run */
    wg_store *st = NULL;
    wg_audit *a = NULL;
    cr_assert_eq(wg_store_open(&st, s.dir), 0);
    cr_assert_eq(wg_audit_open(&a, st, NULL), 0);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    wg_audit_query q = { .limit = 10 };
    cr_assert_eq(wg_audit_list(&ev, &n, a, &q), 0);
    int requested = 0, granted = 0, ran = 0;
    for (size_t i = 0; i < n; i++) {
        requested += !strcmp(ev[i].event, "approval_requested");
        granted += !strcmp(ev[i].event, "approval_granted");
        ran += !strcmp(ev[i].event, "connector.github.create_issue");
    }
    cr_assert(requested == 1 && granted == 1 && ran == 1, "%d %d %d of %zu", requested, granted, ran, n);
    wg_audit_events_free(ev, n);
    wg_audit_free(a);
    wg_store_free(st);
}

Test(tools_execute, denial_runs_nothing)
{
    expect(NULL);
    wgt_http_res r;
    call(&r, "connector_github_create_issue", create_args, NULL);
    char path[128];
    snprintf(path, sizeof path, "/api/approval/%s", json_string_value(json_object_get(r.json, "approvalId")));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", path, "{\"approved\":false}");
    cr_assert_eq(r.status, 200);
    cr_assert(json_is_false(json_object_get(r.json, "approved")));
    cr_assert_null(json_object_get(r.json, "result"));
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    wgt_http_res_free(&r);
}

Test(tools_execute, autonomy_needs_a_future_expiry_within_the_cap)
{
    long long now = (long long)time(NULL) * 1000;
    char a[128];
    wgt_http_res r;
    expect(NULL);
    call(&r, "connector_github_create_issue", create_args, "{\"level\":\"yolo\"}");
    cr_assert_eq(r.status, 202, "no expiresAt: normal");
    wgt_http_res_free(&r);
    snprintf(a, sizeof a, "{\"level\":\"yolo\",\"expiresAt\":%lld}", now - 1000);
    call(&r, "connector_github_create_issue", create_args, a);
    cr_assert_eq(r.status, 202, "past expiresAt: normal");
    wgt_http_res_free(&r);
    snprintf(a, sizeof a, "{\"level\":\"yolo\",\"expiresAt\":%lld}", now + 48LL * 3600 * 1000);
    call(&r, "connector_github_create_issue", create_args, a);
    cr_assert_eq(r.status, 202, "beyond the cap: normal");
    wgt_http_res_free(&r);
    snprintf(a, sizeof a, "{\"level\":\"trusted\",\"expiresAt\":%lld}", now + 600000);
    call(&r, "connector_github_create_issue", create_args, a);
    cr_assert_eq(r.status, 202, "Trusted still gates a connector write (spec 14)");
    wgt_http_res_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);

    expect(create_ok);
    snprintf(a, sizeof a, "{\"level\":\"yolo\",\"expiresAt\":%lld}", now + 600000);
    call(&r, "connector_github_create_issue", create_args, a);
    cr_assert_eq(r.status, 200, "YOLO auto-passes a medium connector write: %s", r.body);
    cr_assert(json_is_true(json_object_get(json_object_get(r.json, "decision"), "autoApproved")));
    cr_assert_null(wgt_replay_verdict(up));
    wgt_http_res_free(&r);
}

Test(tools_execute, unknown_tools_and_bad_bodies)
{
    wgt_http_res r;
    call(&r, "bash", "{\"command\":\"ls\"}", NULL);
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/tools/execute", "{\"args\":{}}");
    cr_assert_eq(r.status, 400);
    wgt_http_res_free(&r);
    call(&r, "connector_github_list_repos", "{}", "{\"level\":\"godmode\",\"expiresAt\":1}");
    cr_assert_eq(r.status, 400);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/approval/nope", "{\"approved\":true}");
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
}

/* ISO-8601 strings with an offset: the one resolver honours the offset
 * (the old strptime reader ignored "+05:00", so an hour in the past read as
 * four hours ahead) and refuses trailing garbage with a 400. */
Test(tools_execute, autonomy_iso_offsets_are_honoured_and_garbage_refused)
{
    char iso[64], a[160];
    wgt_http_res r;
    expect(NULL);
    /* one hour ago, written in +05:00: the wall-clock digits read 4 h ahead */
    time_t past = time(NULL) - 3600 + 5 * 3600;
    struct tm tm;
    gmtime_r(&past, &tm);
    strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S+05:00", &tm);
    snprintf(a, sizeof a, "{\"level\":\"yolo\",\"expiresAt\":\"%s\"}", iso);
    call(&r, "connector_github_create_issue", create_args, a);
    cr_assert_eq(r.status, 202, "an hour in the past is past, whatever the offset: %s", r.body);
    wgt_http_res_free(&r);
    /* ten minutes ahead, with trailing garbage */
    time_t soon = time(NULL) + 600;
    gmtime_r(&soon, &tm);
    strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZjunk", &tm);
    snprintf(a, sizeof a, "{\"level\":\"yolo\",\"expiresAt\":\"%s\"}", iso);
    call(&r, "connector_github_create_issue", create_args, a);
    cr_assert_eq(r.status, 400, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "field")), "autonomy.expiresAt");
    wgt_http_res_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    /* ten minutes ahead in -03:00 applies */
    expect(create_ok);
    time_t local = soon - 3 * 3600;
    gmtime_r(&local, &tm);
    strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S-03:00", &tm);
    snprintf(a, sizeof a, "{\"level\":\"yolo\",\"expiresAt\":\"%s\"}", iso);
    call(&r, "connector_github_create_issue", create_args, a);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_null(wgt_replay_verdict(up));
    wgt_http_res_free(&r);
}

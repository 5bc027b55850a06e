/* connectors_approval_ttl.c - the pending-approval lifetime is a server
 * setting (wg_server_options.approval_ttl_s, `waggle serve --approval-ttl`):
 * with a 1-second TTL an approval answered late is a denial -- 410
 * APPROVAL_EXPIRED with approved:false, the connector call never reaches the
 * upstream, and the audit log has approval_denied with rule
 * approval.expired. A call nobody answers is logged the same way when it is
 * forgotten. Without the option the TTL is 300 s. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "connect_replay.h"
#include "server_test.h"
#include "waggle/audit.h"
#include "waggle/store.h"
#include "waggle/time.h"

static wgt_server s;
static wgt_replay *up;

static const char create_args[] =
    "{\"owner\":\"octocat\",\"repo\":\"Hello-World\",\"title\":\"Found a bug\"}";

static void start(unsigned ttl_s)
{
    static const char *const files[] = {
        "vault.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", NULL };
    wgt_server_config cfg = { .files = files, .approval_ttl_s = ttl_s,
                              .allow_private_upstreams = 1, .allow_http_upstreams = 1 };
    wgt_server_start(&s, &cfg);
    up = wgt_replay_start();
    wgt_replay_expect(up, NULL);   /* any request reaching the upstream fails the verdict */
    char body[256];
    snprintf(body, sizeof body, "{\"token\":\"ghp_contracttoken0123456789\",\"baseUrl\":\"%s\"}",
             wgt_replay_base(up));
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/connectors/github/connect", body);
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
}

static void stop(void)
{
    wgt_replay_stop(up);
    wgt_server_stop(&s);
}

static void start_1s(void)
{
    start(1);
}

static void start_default(void)
{
    start(0);
}

/* Asks for a connector write; returns its approval id (new) and fills *expires_ms. */
static char *request(long long *expires_ms)
{
    wgt_http_res r;
    char body[512];
    snprintf(body, sizeof body, "{\"tool\":\"connector_github_create_issue\",\"args\":%s}", create_args);
    wgt_http(&r, &s, "POST", "/api/tools/execute", body);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char *id = strdup(json_string_value(json_object_get(r.json, "approvalId")));
    const char *when = json_string_value(json_object_get(r.json, "expiresAt"));
    int64_t t = 0;
    cr_assert_eq(wg_time_parse_iso(&t, when), 0, "%s", when);
    *expires_ms = (long long)t;
    wgt_http_res_free(&r);
    return id;
}

static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleeps until the wall clock is past t (no timing is asserted). */
static void wait_past(long long t)
{
    while (wall_ms() <= t) {
        struct timespec d = { 0, 50 * 1000000L };
        nanosleep(&d, NULL);
    }
}

/* How many audit rows have this event and rule. */
static int audit_count(const char *event, const char *rule)
{
    wg_store *st = NULL;
    wg_audit *a = NULL;
    cr_assert_eq(wg_store_open(&st, s.dir), 0);
    cr_assert_eq(wg_audit_open(&a, st, NULL), 0);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    wg_audit_query q = { .limit = 100, .event = event };
    cr_assert_eq(wg_audit_list(&ev, &n, a, &q), 0);
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += ev[i].rule && !strcmp(ev[i].rule, rule);
    wg_audit_events_free(ev, n);
    wg_audit_free(a);
    wg_store_free(st);
    return k;
}

TestSuite(approval_ttl_1s, .init = start_1s, .fini = stop);
TestSuite(approval_ttl_default, .init = start_default, .fini = stop);

Test(approval_ttl_1s, late_approval_is_denied_with_410_and_never_runs)
{
    long long expires;
    char *id = request(&expires);
    wait_past(expires);

    char path[128];
    snprintf(path, sizeof path, "/api/approval/%s", id);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_eq(r.status, 410, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "APPROVAL_EXPIRED");
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "approvalId")), id);
    cr_assert(json_is_false(json_object_get(r.json, "approved")), "%s", r.body);
    cr_assert_not_null(strstr(json_string_value(json_object_get(r.json, "message")), "after 1 s"),
                       "%s", r.body);
    cr_assert_null(json_object_get(r.json, "result"), "nothing ran");
    wgt_http_res_free(&r);

    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "the upstream saw no request");
    cr_assert_null(wgt_replay_verdict(up));
    cr_assert_eq(audit_count("approval_denied", "approval.expired"), 1);
    cr_assert_eq(audit_count("approval_granted", "approval.expired"), 0);
    cr_assert_eq(audit_count("connector.*", "approval.expired"), 0);

    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_eq(r.status, 404, "an expired approval is used up too: %s", r.body);
    wgt_http_res_free(&r);
    free(id);
}

Test(approval_ttl_1s, unanswered_approval_is_logged_denied_when_forgotten)
{
    long long expires;
    char *id = request(&expires);
    /* expired at expires, forgotten one more TTL later; the next request sweeps */
    wait_past(expires + 1000);
    char *other = request(&expires);

    cr_assert_eq(audit_count("approval_denied", "approval.expired"), 1);
    char path[128];
    snprintf(path, sizeof path, "/api/approval/%s", id);
    wgt_http_res r;
    wgt_http(&r, &s, "POST", path, "{\"approved\":true}");
    cr_assert_eq(r.status, 404, "%s", r.body);
    wgt_http_res_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    free(id);
    free(other);
}

Test(approval_ttl_default, pending_approval_lives_five_minutes)
{
    long long before = wall_ms();
    long long expires;
    char *id = request(&expires);
    long long ahead = expires - before;
    cr_assert(ahead >= 299000 && ahead <= 301000 + 60000, "expiresAt is %lld ms ahead", ahead);
    free(id);
}

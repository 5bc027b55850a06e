/* upstream.c - the gateway's upstream stdio MCP client (src/mcp/upstream.h)
 * against tests/fixtures/mcp_upstream.c, a real child process on real
 * pipes: handshake and paginated tools/list, calls, the child's
 * environment (base variables only, vault references resolved), a call that
 * hangs (timeout), a crash mid-call (pending call fails, restart), garbage and
 * deep nesting (ignored), a 100 MB line (the call fails, restart, bounded
 * memory), list_changed, a ping from the upstream, a hostile error message,
 * a crash loop (FAILED), a missing command, stopping during a handshake;
 * the operator's log lines (note) on each state change. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/upstream.h"
#include "upstream_calls.h"
#include "waggle/error.h"

static int changes;
static pthread_mutex_t changes_mu = PTHREAD_MUTEX_INITIALIZER;

static void on_changed(void *ud, wg_upstream *u)
{
    (void)ud;
    (void)u;
    pthread_mutex_lock(&changes_mu);
    changes++;
    pthread_mutex_unlock(&changes_mu);
}

/* The operator's log lines (wg_up_options.note), newest last. */
static char notes[8192];
static size_t notes_len;

static void on_note(void *ud, wg_upstream *u, const char *line)
{
    (void)ud;
    pthread_mutex_lock(&changes_mu);
    int n = snprintf(notes + notes_len, sizeof notes - notes_len, "%s: %s\n", wg_mcp__up_name(u), line);
    if (n > 0 && (size_t)n < sizeof notes - notes_len)
        notes_len += (size_t)n;
    pthread_mutex_unlock(&changes_mu);
}

/* Whether some note line holds every one of the words, in order. */
static int noted(const char *first, const char *then)
{
    pthread_mutex_lock(&changes_mu);
    int found = 0;
    for (const char *line = notes; *line && !found;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char one[1024];
        snprintf(one, sizeof one, "%.*s", (int)n, line);
        const char *a = strstr(one, first);
        found = a && (!then || strstr(a, then));
        line += n + (end != NULL);
    }
    pthread_mutex_unlock(&changes_mu);
    return found;
}

static int resolve(void *ud, const char *name, char **value)
{
    (void)ud;
    if (strcmp(name, "tok"))
        return WG_ENOTFOUND;
    *value = strdup("s3cret-from-vault");
    return 0;
}

static wg_upstream *start(const char *const *args, size_t nargs, wg_gw_pair *pairs, size_t npairs)
{
    wg_gw_server s = { .name = "fx", .command = (char *)WG_MCP_FIXTURE, .args = (char **)args, .nargs = nargs,
                       .pairs = pairs, .npairs = npairs, .timeout_ms = 20000 };
    wg_up_options o = { .server = &s, .resolve = resolve, .changed = on_changed, .line_max = 1u << 20,
                        .backoff_min_ms = 10, .backoff_max_ms = 40, .stderr_fd = -1, .note = on_note };
    wg_upstream *u = NULL;
    cr_assert_eq(wg_mcp__up_start(&u, &o), 0, "%s", wg_error_last());
    return u;
}

static wg_upstream *start_healthy(void)
{
    wg_upstream *u = start(NULL, 0, NULL, 0);
    cr_assert_eq(wg_mcp__up_wait_healthy(u, 20000), 0, "%s", wg_error_last());
    return u;
}

Test(upstream, lists_every_page_and_calls)
{
    wg_upstream *u = start_healthy();
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    cr_expect_eq(st.tools, 10, "4 pages of 3: %zu", st.tools);
    cr_expect_str_eq(wg_mcp__up_state_name(st.state), "healthy");
    json_t *echo = wg_mcp__up_tool(u, "echo");
    cr_assert_not_null(echo);
    cr_expect(json_is_true(json_object_get(json_object_get(echo, "annotations"), "readOnlyHint")));
    cr_expect(json_is_object(json_object_get(echo, "inputSchema")));
    json_decref(echo);
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"hello\"}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "hello");
    json_decref(r);
    cr_assert_eq(wgt_up_call(u, "add", "{\"a\":2,\"b\":40}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "42");
    json_decref(r);
    wg_mcp__up_free(u);
}

Test(upstream, child_env_is_base_plus_config_with_vault_resolved)
{
    setenv("WAGGLE_VAULT_PASSPHRASE", "must-not-leak", 1);
    wg_gw_pair pairs[] = { { "MODE", "plain", 0 }, { "API_TOKEN", "tok", 1 } };
    wg_upstream *u = start(NULL, 0, pairs, 2);
    cr_assert_eq(wg_mcp__up_wait_healthy(u, 20000), 0, "%s", wg_error_last());
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "env", "{\"name\":\"WAGGLE_VAULT_PASSPHRASE\"}", 0, &r), 0);
    cr_expect_str_eq(wgt_up_first_text(r), "(unset)");
    json_decref(r);
    cr_assert_eq(wgt_up_call(u, "env", "{\"name\":\"MODE\"}", 0, &r), 0);
    cr_expect_str_eq(wgt_up_first_text(r), "plain");
    json_decref(r);
    cr_assert_eq(wgt_up_call(u, "env", "{\"name\":\"API_TOKEN\"}", 0, &r), 0);
    cr_expect_str_eq(wgt_up_first_text(r), "s3cret-from-vault");
    json_decref(r);
    cr_assert_eq(wgt_up_call(u, "env", "{\"name\":\"PATH\"}", 0, &r), 0);
    cr_expect_str_neq(wgt_up_first_text(r), "(unset)");
    json_decref(r);
    wg_mcp__up_free(u);
    unsetenv("WAGGLE_VAULT_PASSPHRASE");
}

Test(upstream, unreadable_vault_reference_fails_the_start_without_values)
{
    wg_gw_pair pairs[] = { { "API_TOKEN", "missing-secret", 1 } };
    wg_upstream *u = start(NULL, 0, pairs, 1);
    cr_expect_eq(wg_mcp__up_wait_healthy(u, 60000), WG_EUNAVAILABLE);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_FAILED);
    cr_expect_not_null(strstr(st.last_error, "API_TOKEN"), "%s", st.last_error);
    cr_expect_null(strstr(st.last_error, "missing-secret"), "%s", st.last_error);
    wg_mcp__up_free(u);
}

Test(upstream, a_hung_call_times_out_and_the_upstream_stays)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "hang", NULL, 200, &r), WG_ETIMEOUT);
    cr_expect_null(r);
    cr_expect_not_null(strstr(wg_error_last(), "did not answer"), "%s", wg_error_last());
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"still\"}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "still");
    json_decref(r);
    wg_mcp__up_free(u);
}

Test(upstream, a_crash_mid_call_fails_it_and_restarts)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "crash", NULL, 0, &r), WG_EUNAVAILABLE);
    cr_expect_not_null(strstr(wg_error_last(), "went down"), "%s", wg_error_last());
    /* the supervisor restarts it */
    wg_up_status st = { 0 };
    for (int i = 0; i < 2000; i++) {
        wg_mcp__up_status(u, &st);
        if (st.restarts >= 1 && st.state == WG_UP_HEALTHY)
            break;
        wgt_sleep_ms(10);
    }
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    cr_expect_geq(st.restarts, 1);
    cr_expect_not_null(strstr(st.last_error, "exit status 3"), "%s", st.last_error);
    /* the operator's log tells the story */
    cr_expect(noted("fx: healthy, ", " tools"), "%s", notes);
    cr_expect(noted("fx: went down: ", "(exit status 3); next start in 10 ms"), "%s", notes);
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"back\"}", 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "back");
    json_decref(r);
    wg_mcp__up_free(u);
}

Test(upstream, garbage_and_deep_nesting_are_ignored)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "garbage", NULL, 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "survived");
    json_decref(r);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_geq(st.ignored, 2, "%zu", st.ignored);
    cr_expect_eq(st.state, WG_UP_HEALTHY);
    wg_mcp__up_free(u);
}

Test(upstream, a_100MB_line_fails_the_call_and_restarts)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "huge", NULL, 0, &r), WG_EUNAVAILABLE);
    cr_expect_not_null(strstr(wg_error_last(), "over 1048576 bytes"), "%s", wg_error_last());
    cr_expect_eq(wg_mcp__up_wait_healthy(u, 20000), 0, "%s", wg_error_last());
    cr_assert_eq(wgt_up_call(u, "echo", "{\"text\":\"ok\"}", 0, &r), 0, "%s", wg_error_last());
    json_decref(r);
    wg_mcp__up_free(u);
}

Test(upstream, list_changed_lists_again)
{
    wg_upstream *u = start_healthy();
    pthread_mutex_lock(&changes_mu);
    int before = changes;
    pthread_mutex_unlock(&changes_mu);
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "change", NULL, 0, &r), 0, "%s", wg_error_last());
    json_decref(r);
    wg_up_status st = { 0 };
    for (int i = 0; i < 2000; i++) {
        wg_mcp__up_status(u, &st);
        if (st.tools == 11)
            break;
        wgt_sleep_ms(10);
    }
    cr_expect_eq(st.tools, 11);
    pthread_mutex_lock(&changes_mu);
    cr_expect_gt(changes, before);
    pthread_mutex_unlock(&changes_mu);
    json_t *extra = wg_mcp__up_tool(u, "extra");
    cr_expect_not_null(extra);
    json_decref(extra);
    wg_mcp__up_free(u);
}

Test(upstream, a_ping_from_the_upstream_is_answered)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_assert_eq(wgt_up_call(u, "ping_me", NULL, 0, &r), 0, "%s", wg_error_last());
    cr_expect_str_eq(wgt_up_first_text(r), "pong");
    json_decref(r);
    wg_mcp__up_free(u);
}

Test(upstream, an_error_answer_is_sanitized)
{
    wg_upstream *u = start_healthy();
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "fail", NULL, 0, &r), WG_EUPSTREAM);
    const char *e = wg_error_last();
    cr_expect_not_null(strstr(e, "-32001"), "%s", e);
    cr_expect_null(strchr(e, '\x01'));
    cr_expect_null(strchr(e, '\x1b'));
    wg_mcp__up_free(u);
}

Test(upstream, a_crash_loop_ends_failed)
{
    const char *args[] = { "--exit-after-init" };
    wg_upstream *u = start(args, 1, NULL, 0);
    cr_expect_eq(wg_mcp__up_wait_healthy(u, 120000), WG_EUNAVAILABLE);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_FAILED);
    cr_expect_eq(st.restarts, WG_UP_GIVEUP - 1);
    cr_expect_neq(st.last_error[0], '\0');
    cr_expect(noted("fx: start 10 failed: ", "gave up"), "%s", notes);
    json_t *r = NULL;
    cr_expect_eq(wgt_up_call(u, "echo", NULL, 0, &r), WG_EUNAVAILABLE);
    wg_mcp__up_free(u);
}

Test(upstream, a_missing_command_fails)
{
    wg_gw_server s = { .name = "nope", .command = "wg-no-such-command-here", .timeout_ms = 1000 };
    wg_up_options o = { .server = &s, .backoff_min_ms = 1, .backoff_max_ms = 2, .stderr_fd = -1,
                        .note = on_note };
    wg_upstream *u = NULL;
    cr_assert_eq(wg_mcp__up_start(&u, &o), 0);
    cr_expect_eq(wg_mcp__up_wait_healthy(u, 60000), WG_EUNAVAILABLE);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_not_null(strstr(st.last_error, "not found"), "%s", st.last_error);
    cr_expect(noted("nope: start 1 failed: ", "next start in 1 ms"), "%s", notes);
    cr_expect(noted("nope: start 10 failed: ", "gave up (10 starts in a row failed)"), "%s", notes);
    wg_mcp__up_free(u);
}

Test(upstream, stopping_during_a_silent_handshake_returns)
{
    const char *args[] = { "--mute-init" };
    wg_upstream *u = start(args, 1, NULL, 0);
    wgt_sleep_ms(50);
    wg_up_status st;
    wg_mcp__up_status(u, &st);
    cr_expect_eq(st.state, WG_UP_STARTING);
    wg_mcp__up_free(u);   /* must not wait for the 20 s handshake timeout to hang the test */
}

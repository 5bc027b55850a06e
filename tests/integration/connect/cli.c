/* cli.c - `waggle connectors` end to end against a GitHub-shaped replay
 * server: connect stores the token in the vault of the data dir, and
 * `call connector_github_create_issue` asks for approval at Normal - on a
 * terminal it prompts and creates the issue after "y"; without a terminal
 * and without --yes it refuses with exit 3 and sends nothing. */
#include <criterion/criterion.h>
#include <pty.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "connect_replay.h"
#include "wgtest.h"

static char *dir;
static wgt_replay *up;

static const char issue_args[] =
    "{\"owner\":\"octocat\",\"repo\":\"Hello-World\",\"title\":\"Found a bug\","
    "\"body\":\"I'm having a problem with this.\",\"labels\":[\"bug\"]}";

static const char create_exchange[] =
    "[{\"request\":{\"method\":\"POST\",\"uri\":\"/repos/octocat/Hello-World/issues\","
    "\"headers\":{\"Authorization\":\"Bearer ghp_clitesttoken0123456789\","
    "\"Accept\":\"application/vnd.github+json\",\"X-GitHub-Api-Version\":\"2022-11-28\"},"
    "\"body\":{\"title\":\"Found a bug\",\"body\":\"I'm having a problem with this.\",\"labels\":[\"bug\"]}},"
    "\"response\":{\"status\":201,\"body\":{\"id\":1,\"number\":1347,\"state\":\"open\","
    "\"title\":\"Found a bug\",\"html_url\":\"https://github.com/octocat/Hello-World/issues/1347\","
    "\"user\":{\"login\":\"octocat\"},\"labels\":[{\"name\":\"bug\"}]}}}]";

static int cli(wgt_result *r, const char *in, const char *const *args)
{
    /* the replay server is http://127.0.0.1: the operator allows it */
    const char *argv[18] = { "--data-dir", dir, "connectors", "--allow-private-upstreams",
                             "--allow-http-upstreams" };
    int n = 5;
    for (; args[n - 5] && n < 17; n++)
        argv[n] = args[n - 5];
    argv[n] = NULL;
    return wgt_run_cli(r, in, NULL, argv);
}

static void connect_github(void)
{
    wgt_result r;
    const char *args[] = { "connect", "github", "--base-url", wgt_replay_base(up), NULL };
    cr_assert_eq(cli(&r, "ghp_clitesttoken0123456789\n", args), 0);
    cr_assert_eq(r.status, 0, "connect: %s", r.err);
    wgt_result_free(&r);
}

static void setup(void)
{
    dir = wgt_tmpdir();
    /* a fixed hex key: the store reads a binary key ending in a newline
     * byte as 31 bytes (reported), which would make this test flaky */
    wgt_write_file(dir, "vault.key",
                   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
    up = wgt_replay_start();
    cr_assert_not_null(up);
    connect_github();
}

static void teardown(void)
{
    wgt_replay_stop(up);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(connect_cli, .init = setup, .fini = teardown, .timeout = 60);

/* Runs the CLI on a pseudo-terminal, answers `answer` to the prompt and
 * returns the exit status; *out gets what it printed. */
static int on_tty(const char *const *args, const char *answer, char **out)
{
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        const char *argv[18] = { WG_CLI_PATH, "--data-dir", dir, "connectors",
                                 "--allow-private-upstreams", "--allow-http-upstreams" };
        int n = 6;
        for (; args[n - 6] && n < 17; n++)
            argv[n] = args[n - 6];
        argv[n] = NULL;
        execv(WG_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = calloc(1, cap);
    int answered = 0;
    for (;;) {
        struct pollfd p = { master, POLLIN, 0 };
        if (poll(&p, 1, 20000) <= 0)
            break;
        ssize_t k = read(master, buf + len, cap - len - 1);
        if (k <= 0)
            break;
        len += (size_t)k;
        buf[len] = 0;
        if (!answered && strstr(buf, "Approve? [y/N]")) {
            cr_assert_eq(write(master, answer, strlen(answer)), (ssize_t)strlen(answer));
            answered = 1;
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    close(master);
    *out = buf;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

Test(connect_cli, call_without_terminal_needs_confirmation_exit_3)
{
    wgt_replay_expect(up, NULL);
    wgt_result r;
    const char *args[] = { "call", "connector_github_create_issue", issue_args, NULL };
    cr_assert_eq(cli(&r, NULL, args), 0);
    cr_assert_eq(r.status, 3, "status %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "needs confirmation"), "%s", r.err);
    cr_assert(strstr(r.err, "--yes"), "%s", r.err);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "nothing was sent upstream");
    wgt_result_free(&r);
}

Test(connect_cli, call_on_terminal_asks_and_creates_the_issue_after_yes)
{
    json_t *ex = json_loads(create_exchange, 0, NULL);
    wgt_replay_expect(up, ex);
    json_decref(ex);
    const char *args[] = { "call", "connector_github_create_issue", issue_args, NULL };
    char *out = NULL;
    int status = on_tty(args, "y\n", &out);
    /* the prompt was read before answering; output after it may be cut
     * short when the pty closes, so the upstream request is the proof */
    int prompted = strstr(out, "needs your approval") != NULL;
    free(out);
    cr_assert_eq(status, 0, "status %d", status);
    cr_assert(prompted);
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
}

Test(connect_cli, call_on_terminal_answered_no_sends_nothing)
{
    wgt_replay_expect(up, NULL);
    const char *args[] = { "call", "connector_github_create_issue", issue_args, NULL };
    char *out = NULL;
    int status = on_tty(args, "n\n", &out);
    int prompted = strstr(out, "Approve? [y/N]") != NULL;
    free(out);
    cr_assert_eq(status, 1, "status %d", status);
    cr_assert(prompted);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
}

Test(connect_cli, yes_approves_and_low_risk_reads_run_without_asking)
{
    json_t *ex = json_loads(create_exchange, 0, NULL);
    wgt_replay_expect(up, ex);
    json_decref(ex);
    wgt_result r;
    const char *args[] = { "call", "connector_github_create_issue", issue_args, "--yes", NULL };
    cr_assert_eq(cli(&r, NULL, args), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "\"number\": 1347"), "%s", r.out);
    cr_assert_null(wgt_replay_verdict(up));
    wgt_result_free(&r);

    ex = json_loads("[{\"request\":{\"method\":\"GET\",\"uri\":\"/repos/octocat/Hello-World/issues\"},"
                    "\"response\":{\"status\":200,\"body\":[]}}]", 0, NULL);
    wgt_replay_expect(up, ex);
    json_decref(ex);
    const char *read[] = { "call", "connector_github_list_issues",
                           "{\"owner\":\"octocat\",\"repo\":\"Hello-World\"}", NULL };
    cr_assert_eq(cli(&r, NULL, read), 0);
    cr_assert_eq(r.status, 0, "a low-risk read runs at Normal: %s", r.err);
    wgt_result_free(&r);
}

Test(connect_cli, trusted_still_gates_a_connector_write)
{
    wgt_replay_expect(up, NULL);
    wgt_result r;
    const char *args[] = { "call", "connector_github_create_issue", issue_args, "--level", "trusted", NULL };
    cr_assert_eq(cli(&r, NULL, args), 0);
    cr_assert_eq(r.status, 3, "%s", r.err);
    wgt_result_free(&r);
}

Test(connect_cli, list_disconnect_and_bad_input)
{
    wgt_result r;
    const char *list[] = { "list", NULL };
    cr_assert_eq(cli(&r, NULL, list), 0);
    cr_assert(strstr(r.out, "github") && strstr(r.out, "connected"), "status %d out %s err %s", r.status, r.out, r.err);
    wgt_result_free(&r);
    const char *bad[] = { "call", "connector_github_create_issue", "{not json", NULL };
    cr_assert_eq(cli(&r, NULL, bad), 0);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
    const char *unknown[] = { "call", "rm_rf", "{}", NULL };
    cr_assert_eq(cli(&r, NULL, unknown), 0);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
    const char *disc[] = { "disconnect", "github", NULL };
    cr_assert_eq(cli(&r, NULL, disc), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    const char *again[] = { "call", "connector_github_list_repos", "{}", NULL };
    cr_assert_eq(cli(&r, NULL, again), 0);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.out, "Not connected"), "%s", r.out);
    wgt_result_free(&r);
}

#include "connect_smtp_sink.h"

Test(connect_cli, email_settings_and_send_over_smtp)
{
    wgt_smtp *sink = wgt_smtp_start();
    cr_assert_not_null(sink);
    char url[80];
    snprintf(url, sizeof url, "smtp_url=smtp://127.0.0.1:%d", wgt_smtp_port(sink));
    wgt_result r;
    const char *conn[] = { "connect", "email", "--set", url, "--set", "from_email=me@example.com",
                           "--email", "me@example.com", NULL };
    cr_assert_eq(cli(&r, "app-password\n", conn), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    const char *bad[] = { "set", "email", "bcc_everyone=yes", NULL };
    cr_assert_eq(cli(&r, NULL, bad), 0);
    cr_assert_eq(r.status, 2, "unknown settings are refused: %s", r.err);
    wgt_result_free(&r);
    const char *limit[] = { "set", "email", "max_daily=5", NULL };
    cr_assert_eq(cli(&r, NULL, limit), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    const char *send[] = { "call", "connector_email_send_email",
                           "{\"to\":\"ada@example.com\",\"subject\":\"hi\",\"body\":\"hello\"}", NULL };
    cr_assert_eq(cli(&r, NULL, send), 0);
    cr_assert_eq(r.status, 3, "email is high risk: it asks");
    wgt_result_free(&r);
    const char *send_yes[] = { "call", "connector_email_send_email",
                               "{\"to\":\"ada@example.com\",\"subject\":\"hi\",\"body\":\"hello\"}",
                               "--yes", NULL };
    cr_assert_eq(cli(&r, NULL, send_yes), 0);
    cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
    wgt_result_free(&r);
    json_t *msgs = wgt_smtp_messages(sink);
    cr_assert_eq(json_array_size(msgs), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(msgs, 0), "from")),
                     "<me@example.com>");
    json_decref(msgs);
    wgt_smtp_stop(sink);
}

/* ---- issue 11: every CLI path leaves its approval rows (through the engine) ---- */

/* The audit rows of one event, as the CLI prints them (newest first). */
static json_t *rows_of(const char *event)
{
    wgt_result r;
    const char *argv[] = { "--data-dir", dir, "audit", "--json", "--event", event, "--limit",
                           "100", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *arr = json_loads(r.out, 0, NULL);
    cr_assert(json_is_array(arr), "%s", r.out);
    wgt_result_free(&r);
    return arr;
}

static size_t n_rows(const char *event)
{
    json_t *a = rows_of(event);
    size_t n = json_array_size(a);
    json_decref(a);
    return n;
}

static void expect_create(void)
{
    json_t *ex = json_loads(create_exchange, 0, NULL);
    wgt_replay_expect(up, ex);
    json_decref(ex);
}

Test(connect_cli, yes_leaves_requested_and_granted_rows)
{
    expect_create();
    wgt_result r;
    const char *args[] = { "call", "connector_github_create_issue", issue_args, "--yes", NULL };
    cr_assert_eq(cli(&r, NULL, args), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    json_t *req = rows_of("approval_requested"), *ok = rows_of("approval_granted");
    cr_assert_eq(json_array_size(req), 1);
    cr_assert_eq(json_array_size(ok), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ok, 0), "actor")), "cli");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(req, 0), "tool")),
                     "connector_github_create_issue");
    json_decref(req);
    json_decref(ok);
    cr_assert_eq(n_rows("connector.github.create_issue"), 1);
}

Test(connect_cli, terminal_answers_leave_granted_and_denied_rows)
{
    expect_create();
    const char *args[] = { "call", "connector_github_create_issue", issue_args, NULL };
    char *out = NULL;
    cr_assert_eq(on_tty(args, "y\n", &out), 0);
    free(out);
    wgt_replay_expect(up, NULL);
    cr_assert_eq(on_tty(args, "n\n", &out), 1);
    free(out);
    cr_assert_eq(n_rows("approval_requested"), 2);
    cr_assert_eq(n_rows("approval_granted"), 1);
    cr_assert_eq(n_rows("approval_denied"), 1);
}

/* Exit 3 leaves the call waiting in the store; another process - `waggle
 * approve` - runs it, exactly once. */
Test(connect_cli, exit_3_waits_for_waggle_approve_in_another_process)
{
    wgt_replay_expect(up, NULL);
    wgt_result r;
    const char *args[] = { "call", "connector_github_create_issue", issue_args, NULL };
    cr_assert_eq(cli(&r, NULL, args), 0);
    cr_assert_eq(r.status, 3, "%s", r.err);
    cr_assert(strstr(r.err, "waggle approve "), "%s", r.err);
    wgt_result_free(&r);
    cr_assert_eq(n_rows("approval_requested"), 1);

    const char *list[] = { "--data-dir", dir, "approvals", "--json", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, list), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = json_loads(r.out, 0, NULL);
    json_t *a = json_array_get(json_object_get(doc, "approvals"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(a, "tool")), "connector_github_create_issue");
    cr_assert_str_eq(json_string_value(json_object_get(a, "state")), "pending");
    char id[64];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(a, "approvalId")));
    json_decref(doc);
    wgt_result_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "nothing ran yet");

    expect_create();
    const char *approve[] = { "--data-dir", dir, "approve", id, "--json", "--allow-private-upstreams",
                              "--allow-http-upstreams", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, approve), 0);
    cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
    doc = json_loads(r.out, 0, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "status")), "ran");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_object_get(doc, "result"),
                                                                    "data"), "number")), 1347);
    json_decref(doc);
    wgt_result_free(&r);
    cr_assert_null(wgt_replay_verdict(up));
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, approve), 0);
    cr_assert_eq(r.status, 1, "never twice: %s", r.out);
    wgt_result_free(&r);
    cr_assert_eq(n_rows("approval_granted"), 1);
}

Test(connect_cli, approve_deny_refuses_and_runs_nothing)
{
    wgt_replay_expect(up, NULL);
    wgt_result r;
    const char *args[] = { "call", "connector_github_create_issue", issue_args, NULL };
    cr_assert_eq(cli(&r, NULL, args), 0);
    const char *p = strstr(r.err, "waggle approve ");
    cr_assert_not_null(p);
    char id[64];
    snprintf(id, sizeof id, "%.32s", p + strlen("waggle approve "));
    wgt_result_free(&r);
    const char *deny[] = { "--data-dir", dir, "approve", "--deny", id, NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, deny), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "denied"), "%s", r.out);
    wgt_result_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    cr_assert_eq(n_rows("approval_denied"), 1);
    const char *approve[] = { "--data-dir", dir, "approve", id, NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, approve), 0);
    cr_assert_eq(r.status, 1, "no run after a denial");
    wgt_result_free(&r);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
}

Test(connect_cli, connect_and_disconnect_are_audited_without_the_token)
{
    json_t *c = rows_of("connector_connected");
    cr_assert_eq(json_array_size(c), 1);
    char *text = json_dumps(c, JSON_COMPACT);
    cr_assert_null(strstr(text, "ghp_clitesttoken"), "the credential reached the log: %s", text);
    free(text);
    json_decref(c);
    wgt_result r;
    const char *disc[] = { "disconnect", "github", NULL };
    cr_assert_eq(cli(&r, NULL, disc), 0);
    wgt_result_free(&r);
    cr_assert_eq(n_rows("connector_disconnected"), 1);
}

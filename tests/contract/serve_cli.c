/* serve_cli.c - `waggle serve` / `waggled` as a process: the start-up line
 * names the address and the data dir, SIGTERM stops it cleanly (exit 0)
 * after answering, the data dir gets its token files, bad options exit 2. */
#include <criterion/criterion.h>

#include "server_test.h"
#include "wgtest.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Starts the CLI with argv, stderr to a pipe; returns the pid. */
static pid_t spawn(const char *const *argv, int *err_fd)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(devnull, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    *err_fd = p[0];
    return pid;
}

/* Reads stderr until `needle` shows up (or 10 s pass); returns the text. */
static char *read_until(int fd, const char *needle)
{
    static char buf[8192];
    size_t n = 0;
    buf[0] = '\0';
    while (!strstr(buf, needle) && n + 1 < sizeof buf) {
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, 10000) <= 0)
            break;
        ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        buf[n] = '\0';
    }
    return buf;
}

Test(serve_cli, starts_answers_and_stops_on_sigterm)
{
    char *dir = wgt_tmpdir();
    const char *argv[] = { WG_CLI_PATH, "serve", "--data-dir", dir, "--listen", "127.0.0.1:0", NULL };
    int err;
    pid_t pid = spawn(argv, &err);
    char *text = read_until(err, "listening on ");
    char *at = strstr(text, "http://127.0.0.1:");
    cr_assert_not_null(at, "start-up line: %s", text);
    cr_assert_not_null(strstr(text, dir), "the start-up line names the data dir: %s", text);
    unsigned port = (unsigned)atoi(at + strlen("http://127.0.0.1:"));
    cr_assert_gt(port, 0);

    wgt_server fake;   /* only base/token are used by wgt_http */
    memset(&fake, 0, sizeof fake);
    snprintf(fake.base, sizeof fake.base, "http://127.0.0.1:%u", port);
    char path[4096];
    snprintf(path, sizeof path, "%s/api-token", dir);
    char *tok = wgt_read_file(path);
    cr_assert_not_null(tok);
    tok[strcspn(tok, "\n")] = '\0';
    snprintf(fake.token, sizeof fake.token, "%s", tok);
    free(tok);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    wgt_http_res r;
    wgt_http(&r, &fake, "POST", "/api/personas", "{}");
    cr_assert_eq(r.status, 403);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "TIER_INSUFFICIENT");
    wgt_http_res_free(&r);

    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    text = read_until(err, "stopped");
    cr_assert_not_null(strstr(text, "access method=POST path=/api/personas status=403"), "%s", text);
    cr_assert_null(strstr(text, fake.token), "the token reached the log");
    close(err);
    wgt_rmtree(dir);
    free(dir);
}

Test(serve_cli, waggled_name_runs_serve)
{
    char *dir = wgt_tmpdir();
    char link[4096];
    snprintf(link, sizeof link, "%s/waggled", dir);
    cr_assert_eq(symlink(WG_CLI_PATH, link), 0);
    const char *argv[] = { link, "--help", NULL };
    int err;
    pid_t pid = spawn(argv, &err);
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(err);
    wgt_rmtree(dir);
    free(dir);
}

Test(serve_cli, bad_listen_and_options_exit_2)
{
    static const char *const bad[][3] = {
        { "--listen", "127.0.0.1:99999", NULL }, { "--listen", "nohost:80", NULL },
        { "--threads", "0", NULL }, { "--bogus", NULL, NULL }, { "--autonomy-cap", "0", NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *dir = wgt_tmpdir();
        const char *argv[8] = { "--data-dir", dir, "serve", bad[i][0], bad[i][1], NULL };
        wgt_result r;
        cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
        cr_expect_eq(r.status, 2, "%s %s -> %d (%s)", bad[i][0], bad[i][1] ? bad[i][1] : "", r.status, r.err);
        wgt_result_free(&r);
        wgt_rmtree(dir);
        free(dir);
    }
}

Test(serve_cli, bad_hostile_client_limits_exit_2)
{
    static const char *const bad[][5] = {
        { "--max-connections", "0", NULL }, { "--max-connections-per-ip", "x", NULL },
        { "--request-deadline", "0", NULL }, { "--request-deadline", "3601", NULL },
        { "--idle-timeout", "3601", NULL }, { "--trusted-proxy", "haproxy.internal", NULL },
        { "--trusted-proxy", "10.0.0.0/33", NULL },
        { "--max-connections", "5", "--max-connections-per-ip", "6", NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *dir = wgt_tmpdir();
        const char *argv[10] = { "--data-dir", dir, "serve", "--listen", "127.0.0.1:0" };
        for (int k = 0; k < 4 && bad[i][k]; k++)
            argv[5 + k] = bad[i][k];
        wgt_result r;
        cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
        cr_expect_eq(r.status, 2, "%s %s -> %d (%s)", bad[i][0], bad[i][1], r.status, r.err);
        wgt_result_free(&r);
        wgt_rmtree(dir);
        free(dir);
    }
}

Test(serve_cli, hostile_client_limits_take_effect)
{
    char *dir = wgt_tmpdir();
    const char *argv[] = { WG_CLI_PATH, "serve", "--data-dir", dir, "--listen", "127.0.0.1:0",
                           "--max-connections", "300", "--max-connections-per-ip", "7",
                           "--request-deadline", "9", "--idle-timeout", "11",
                           "--trusted-proxy", "127.0.0.3", "--trusted-proxy", "10.0.0.0/8", NULL };
    setenv("WAGGLE_TRUSTED_PROXIES", "192.0.2.1,192.0.2.2", 1);
    int err;
    pid_t pid = spawn(argv, &err);
    unsetenv("WAGGLE_TRUSTED_PROXIES");
    char *text = read_until(err, "listening on ");
    cr_assert_not_null(strstr(text, "limits connections=300 per_address=7 request_deadline_s=9 "
                                    "idle_timeout_s=11 trusted_proxies=4"), "%s", text);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    close(err);
    wgt_rmtree(dir);
    free(dir);
}

/* ---- the config file, JSON logs and request ids (issue #12 §3) ---------- */

static char *write_config(const char *dir, const char *json)
{
    static char path[4200];
    cr_assert_eq(wgt_write_file(dir, "serve.json", json), 0);
    snprintf(path, sizeof path, "%s/serve.json", dir);
    return path;
}

/* Starts serve with argv and reads stderr until the listening line. */
static char *start_and_read(const char *const *argv, pid_t *pid, int *err)
{
    *pid = spawn(argv, err);
    return read_until(*err, "listening on ");
}

static void stop(pid_t pid, int err)
{
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    close(err);
}

Test(serve_cli, a_config_file_sets_options_and_flags_win)
{
    char *dir = wgt_tmpdir();
    const char *cfg = write_config(dir, "{\"listen\": \"127.0.0.1:0\", \"threads\": 3,"
                                        " \"max-connections-per-ip\": 9, \"demo\": false,"
                                        " \"trusted-proxy\": [\"192.0.2.1\", \"192.0.2.2\"]}");
    const char *a1[] = { WG_CLI_PATH, "serve", "--data-dir", dir, "--config", cfg, NULL };
    pid_t pid;
    int err;
    char *text = start_and_read(a1, &pid, &err);
    cr_expect_not_null(strstr(text, "threads=3"), "%s", text);
    cr_expect_not_null(strstr(text, "per_address=9"), "%s", text);
    cr_expect_not_null(strstr(text, "trusted_proxies=2"), "%s", text);
    stop(pid, err);
    /* a flag overrides the file; a repeatable flag replaces the file's list */
    const char *a2[] = { WG_CLI_PATH, "serve", "--data-dir", dir, "--config", cfg, "--threads",
                         "2", "--trusted-proxy", "192.0.2.9", NULL };
    text = start_and_read(a2, &pid, &err);
    cr_expect_not_null(strstr(text, "threads=2"), "%s", text);
    cr_expect_not_null(strstr(text, "trusted_proxies=1"), "%s", text);
    stop(pid, err);
    /* $WAGGLE_CONFIG names the file too */
    setenv("WAGGLE_CONFIG", cfg, 1);
    const char *a3[] = { WG_CLI_PATH, "serve", "--data-dir", dir, NULL };
    text = start_and_read(a3, &pid, &err);
    unsetenv("WAGGLE_CONFIG");
    cr_expect_not_null(strstr(text, "threads=3"), "%s", text);
    stop(pid, err);
    wgt_rmtree(dir);
    free(dir);
}

Test(serve_cli, a_bad_config_file_exits_2_and_names_the_key)
{
    static const struct { const char *json, *says; } bad[] = {
        { "{\"listen\": \"127.0.0.1:0\", \"bogus\": 1}", "\"bogus\" is not an option" },
        { "{\"api-token\": \"0123456789abcdef0123456789abcdef\"}", "is a secret" },
        { "{\"config\": \"/etc/other.json\"}", "cannot be set in a config file" },
        { "{\"threads\": [\"2\", {}]}", "\"threads\" takes a string or a whole number" },
        { "{\"demo\": \"yes\"}", "\"demo\" takes true or false" },
        { "{\"threads\": 2,}", ":1:" },
        { "[\"listen\"]", "must be a JSON object" },
        { "{\"listen\": \"a\", \"listen\": \"b\"}", "duplicate" },
        { "{\"threads\": 0}", "--threads must be 1-256" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *dir = wgt_tmpdir();
        const char *cfg = write_config(dir, bad[i].json);
        const char *argv[] = { "--data-dir", dir, "serve", "--config", cfg, NULL };
        wgt_result r;
        cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
        cr_expect_eq(r.status, 2, "%s -> %d (%s)", bad[i].json, r.status, r.err);
        cr_expect_not_null(strstr(r.err, bad[i].says), "%s: %s", bad[i].json, r.err);
        wgt_result_free(&r);
        wgt_rmtree(dir);
        free(dir);
    }
}

Test(serve_cli, json_logs_carry_the_request_id_the_client_gets_and_no_secret)
{
    char *dir = wgt_tmpdir();
    const char *argv[] = { WG_CLI_PATH, "serve", "--data-dir", dir, "--listen", "127.0.0.1:0",
                           "--log-format", "json", NULL };
    pid_t pid;
    int err;
    char *text = start_and_read(argv, &pid, &err);
    char *at = strstr(text, "http://127.0.0.1:");
    cr_assert_not_null(at, "%s", text);
    wgt_server fake;
    memset(&fake, 0, sizeof fake);
    snprintf(fake.base, sizeof fake.base, "http://127.0.0.1:%d", atoi(at + 17));
    char path[4200];
    snprintf(path, sizeof path, "%s/api-token", dir);
    char *tok = wgt_read_file(path);
    cr_assert_not_null(tok);
    tok[strcspn(tok, "\n")] = '\0';
    snprintf(fake.token, sizeof fake.token, "%s", tok);
    free(tok);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    wgt_http_res r;
    wgt_http(&r, &fake, "GET", "/api/tier", NULL);
    cr_assert_eq(r.status, 200);
    char *id = wgt_http_header(&r, "X-Request-Id");
    cr_assert_not_null(id, "every answer names its request");
    cr_expect_eq(strlen(id), 16, "%s", id);
    wgt_http_res_free(&r);
    /* a proxy's well-formed id is kept; a malformed one is replaced */
    const char *mine[] = { "X-Request-Id: lb-7f3a.42", NULL };
    wgt_http_ex(&r, &fake, "GET", "/api/tier", NULL, 0, WGT_AUTH_API, mine);
    char *kept = wgt_http_header(&r, "X-Request-Id");
    cr_expect_str_eq(kept ? kept : "", "lb-7f3a.42");
    free(kept);
    wgt_http_res_free(&r);
    const char *hostile[] = { "X-Request-Id: <script>alert(1)</script>", NULL };
    wgt_http_ex(&r, &fake, "GET", "/api/tier", NULL, 0, WGT_AUTH_API, hostile);
    char *replaced = wgt_http_header(&r, "X-Request-Id");
    cr_expect(replaced && !strchr(replaced, '<'), "%s", replaced ? replaced : "(none)");
    free(replaced);
    wgt_http_res_free(&r);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    char *log = read_until(err, "\"stopped\"");
    close(err);
    /* every line is one JSON object with ts, level and event */
    size_t lines = 0, access = 0;
    char *save = NULL;
    for (char *line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *o = json_loads(line, 0, NULL);
        cr_expect(json_is_object(o), "not a JSON line: %s", line);
        cr_expect(json_is_string(json_object_get(o, "ts")) &&
                  json_is_string(json_object_get(o, "level")) &&
                  json_is_string(json_object_get(o, "event")), "%s", line);
        const char *ev = json_string_value(json_object_get(o, "event"));
        if (ev && !strcmp(ev, "access")) {
            access++;
            if (access == 1) {
                cr_expect_str_eq(json_string_value(json_object_get(o, "request_id")), id);
                cr_expect_str_eq(json_string_value(json_object_get(o, "path")), "/api/tier");
                cr_expect_eq(json_integer_value(json_object_get(o, "status")), 200);
                cr_expect(json_is_integer(json_object_get(o, "us")), "%s", line);
            }
        }
        cr_expect_null(strstr(line, fake.token), "the token reached the log: %s", line);
        cr_expect_null(strstr(line, "#t="), "a sign-in token reached the log: %s", line);
        json_decref(o);
        lines++;
    }
    cr_expect_eq(access, 3, "one access line per request");
    cr_expect_geq(lines, 4);
    free(id);
    wgt_rmtree(dir);
    free(dir);
}

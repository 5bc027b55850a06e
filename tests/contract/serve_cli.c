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

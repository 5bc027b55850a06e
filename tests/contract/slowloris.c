/* slowloris.c - waggled under clients that hold connections (issue 11
 * section 4). The attacker connects from 127.0.0.2, the healthy client from
 * 127.0.0.1 (both loopback on Linux). Hundreds of connections that send one
 * header line every second do not keep /healthz from answering; a request
 * that trickles in past its deadline is closed however steadily it
 * trickles; trusted proxies are exempt from the per-address limit; the
 * connection limit is checked against RLIMIT_NOFILE at start.
 * No test asserts a duration: each waits for an outcome up to a generous
 * bound, and the failure being guarded against is "never". */
#include <criterion/criterion.h>

#include "raw_http.h"
#include "server_test.h"
#include "waggle/error.h"
#include "wgtest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

TestSuite(slowloris, .timeout = 120);

static const char request_line[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n";

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Non-blocking connect from src; -1 when not connected within ms (a full
 * listen backlog), else the fd (blocking again). */
static int connect_within(unsigned port, const char *src, int ms)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in b = { 0 }, a = { 0 };
    b.sin_family = a.sin_family = AF_INET;
    inet_pton(AF_INET, src, &b.sin_addr);
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&b, sizeof b) != 0) {
        close(fd);
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    struct pollfd p = { fd, POLLOUT, 0 };
    int err = 0;
    socklen_t el = sizeof err;
    if (poll(&p, 1, ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err) {
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* Raises the soft descriptor limit to the hard one (this test process
 * holds both ends of every connection). Returns the new soft limit. */
static unsigned long long raise_nofile(void)
{
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
    return rl.rlim_cur == RLIM_INFINITY ? 1u << 20 : (unsigned long long)rl.rlim_cur;
}

/* ---- the attack ------------------------------------------------------------- */

typedef struct {
    unsigned port;
    int n;                /* connections to try */
    int *fd;
    atomic_int opened;    /* connects that completed */
    atomic_int ready;     /* all connects tried */
    atomic_int stop;
} attack;

/* Opens n connections from 127.0.0.2, each sends its request line, then one
 * header line every second until stopped. */
static void *attacker(void *arg)
{
    attack *a = arg;
    for (int i = 0; i < a->n && !atomic_load(&a->stop); i++) {
        a->fd[i] = connect_within(a->port, "127.0.0.2", 200);
        if (a->fd[i] >= 0) {
            atomic_fetch_add(&a->opened, 1);
            send(a->fd[i], request_line, strlen(request_line), MSG_NOSIGNAL | MSG_DONTWAIT);
        }
    }
    atomic_store(&a->ready, 1);
    for (int round = 0; !atomic_load(&a->stop); round++) {
        char line[64];
        int n = snprintf(line, sizeof line, "X-Slow-%d: keep\r\n", round);
        for (int i = 0; i < a->n; i++)
            if (a->fd[i] >= 0)
                send(a->fd[i], line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
        for (int t = 0; t < 10 && !atomic_load(&a->stop); t++)
            sleep_ms(100);
    }
    return NULL;
}

/* 1 when a GET /healthz from 127.0.0.1 on a fresh connection is answered
 * 200 within ms. */
static int healthy(unsigned port, int ms)
{
    int fd = connect_within(port, "127.0.0.1", ms);
    if (fd < 0)
        return 0;
    const char req[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    wgt_raw_res r;
    int ok = wgt_raw_send(fd, req, sizeof req - 1) == 0 && wgt_raw_read(fd, &r, ms) == 0 &&
             r.status == 200;
    if (ok)
        wgt_raw_res_free(&r);
    close(fd);
    return ok;
}

Test(slowloris, hundreds_of_slow_connections_from_one_address_do_not_starve_others)
{
    unsigned long long nofile = raise_nofile();
    /* more than the default global limit (1000) when descriptors allow:
     * each connection costs this process two */
    int n = 1100;
    if ((unsigned long long)n * 2 + 256 > nofile)
        n = (int)((nofile - 256) / 2);
    cr_assert_gt(n, 200, "RLIMIT_NOFILE %llu is too low for this test", nofile);
    wgt_server s;
    wgt_server_start(&s, NULL);   /* the defaults: what an operator gets */
    attack a = { .port = s.port, .n = n };
    a.fd = malloc(sizeof *a.fd * (size_t)n);
    for (int i = 0; i < n; i++)
        a.fd[i] = -1;
    pthread_t t;
    pthread_create(&t, NULL, attacker, &a);
    for (int i = 0; i < 600 && !atomic_load(&a.ready); i++)
        sleep_ms(50);
    cr_expect(atomic_load(&a.ready), "the attack could not start");
    sleep_ms(1500);               /* a round of header lines went out */
    int answered = 0;
    for (int i = 0; i < 3; i++)
        answered += healthy(s.port, 5000);
    atomic_store(&a.stop, 1);
    pthread_join(t, NULL);
    int still_open = 0;
    for (int i = 0; i < n; i++) {
        if (a.fd[i] >= 0 && !wgt_raw_closed_within(a.fd[i], 0))
            still_open++;
        if (a.fd[i] >= 0)
            close(a.fd[i]);
    }
    free(a.fd);
    cr_expect_eq(answered, 3, "/healthz from 127.0.0.1 answered %d of 3 times under the attack "
                 "(%d connections tried, %d connected)", answered, n, atomic_load(&a.opened));
    cr_expect_leq(still_open, 64, "127.0.0.2 holds %d connections (limit 64)", still_open);
    wgt_server_stop(&s);
}

/* ---- deadlines ---------------------------------------------------------------- */

/* Sends piece every step_ms until the server closes; returns 1 when it
 * did within bound_ms. */
static int trickle_until_closed(int fd, const char *piece, int step_ms, int bound_ms)
{
    long long until = now_ms() + bound_ms;
    while (now_ms() < until) {
        if (send(fd, piece, strlen(piece), MSG_NOSIGNAL) < 0)
            return 1;
        if (wgt_raw_closed_within(fd, step_ms))
            return 1;
    }
    return 0;
}

static void start_with_deadline(wgt_server *s, unsigned deadline_s, unsigned idle_s)
{
    wgt_server_config cfg = { .request_deadline_s = deadline_s, .timeout_s = idle_s };
    wgt_server_start(s, &cfg);
}

Test(slowloris, headers_trickled_past_the_deadline_are_closed)
{
    wgt_server s;
    start_with_deadline(&s, 2, 30);
    int fd = wgt_raw_connect(s.port, "127.0.0.2");
    cr_assert_geq(fd, 0);
    cr_assert_eq(wgt_raw_send(fd, request_line, strlen(request_line)), 0);
    /* a header line every 300 ms: never idle for the 30 s timeout */
    cr_assert(trickle_until_closed(fd, "X-Slow: a\r\n", 300, 15000),
              "a request trickling its headers was kept open");
    close(fd);
    cr_assert(healthy(s.port, 5000));
    wgt_server_stop(&s);
}

Test(slowloris, a_body_trickled_past_the_deadline_is_closed)
{
    wgt_server s;
    start_with_deadline(&s, 2, 30);
    int fd = wgt_raw_connect(s.port, "127.0.0.2");
    char head[512];
    snprintf(head, sizeof head, "POST /api/trust/assess HTTP/1.1\r\nHost: localhost\r\n"
             "Authorization: Bearer %s\r\nContent-Length: 100000\r\n\r\n{\"content\":\"", s.token);
    cr_assert_eq(wgt_raw_send(fd, head, strlen(head)), 0);
    cr_assert(trickle_until_closed(fd, "aaaa", 300, 15000),
              "a request trickling its body was kept open");
    close(fd);
    wgt_server_stop(&s);
}

Test(slowloris, the_deadline_is_per_request_not_per_connection)
{
    wgt_server s;
    start_with_deadline(&s, 1, 30);
    int fd = wgt_raw_connect(s.port, NULL);
    const char req[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    for (int i = 0; i < 3; i++) {
        if (i)
            sleep_ms(1300);       /* idle longer than one deadline, shorter than the timeout */
        cr_assert_eq(wgt_raw_send(fd, req, sizeof req - 1), 0, "request %d: closed", i + 1);
        wgt_raw_res r;
        cr_assert_eq(wgt_raw_read(fd, &r, 5000), 0, "request %d: no answer", i + 1);
        cr_assert_eq(r.status, 200);
        wgt_raw_res_free(&r);
    }
    close(fd);
    wgt_server_stop(&s);
}

Test(slowloris, the_next_request_line_trickled_on_keep_alive_is_closed)
{
    wgt_server s;
    start_with_deadline(&s, 1, 1);
    int fd = wgt_raw_connect(s.port, NULL);
    const char req[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    cr_assert_eq(wgt_raw_send(fd, req, sizeof req - 1), 0);
    wgt_raw_res r;
    cr_assert_eq(wgt_raw_read(fd, &r, 5000), 0);
    wgt_raw_res_free(&r);
    /* one byte of the next request line every 300 ms: never idle for 1 s */
    cr_assert(trickle_until_closed(fd, "G", 300, 15000), "a trickled request line was kept open");
    close(fd);
    wgt_server_stop(&s);
}

/* ---- the per-address limit and trusted proxies ---------------------------------- */

Test(slowloris, per_address_limit_n_minus_1_n_n_plus_1)
{
    wgt_server s;
    wgt_server_config cfg = { .max_connections_per_ip = 4 };
    wgt_server_start(&s, &cfg);
    int fd[5];
    for (int i = 0; i < 4; i++) {
        fd[i] = wgt_raw_connect(s.port, "127.0.0.2");
        cr_assert_geq(fd[i], 0);
        cr_assert_eq(wgt_raw_send(fd[i], request_line, strlen(request_line)), 0);
    }
    for (int i = 0; i < 4; i++)
        cr_assert(!wgt_raw_closed_within(fd[i], 300), "connection %d of 4 was closed", i + 1);
    fd[4] = wgt_raw_connect(s.port, "127.0.0.2");
    cr_assert_geq(fd[4], 0);
    cr_assert(wgt_raw_closed_within(fd[4], 5000), "the 5th connection from one address stayed");
    close(fd[4]);
    cr_assert(healthy(s.port, 5000), "another address is refused too");
    /* a freed slot can be taken again */
    close(fd[0]);
    int again = -1;
    for (int i = 0; i < 50 && again < 0; i++) {
        sleep_ms(100);
        again = wgt_raw_connect(s.port, "127.0.0.2");
        if (again >= 0 && wgt_raw_closed_within(again, 200)) {
            close(again);
            again = -1;
        }
    }
    cr_assert_geq(again, 0, "the freed slot was not given back");
    close(again);
    for (int i = 1; i < 4; i++)
        close(fd[i]);
    wgt_server_stop(&s);
}

Test(slowloris, trusted_proxies_are_exempt_from_the_per_address_limit)
{
    static const char *const proxies[] = { "127.0.0.3", "127.0.4.0/24", NULL };
    wgt_server s;
    wgt_server_config cfg = { .max_connections_per_ip = 2, .trusted_proxies = proxies };
    wgt_server_start(&s, &cfg);
    static const char *const from[] = { "127.0.0.3", "127.0.4.9" };
    const char req[] = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    for (size_t f = 0; f < 2; f++) {
        int fd[8];
        for (int i = 0; i < 8; i++) {
            fd[i] = wgt_raw_connect(s.port, from[f]);
            cr_assert_geq(fd[i], 0);
        }
        for (int i = 0; i < 8; i++) {
            cr_assert_eq(wgt_raw_send(fd[i], req, sizeof req - 1), 0, "%s #%d", from[f], i + 1);
            wgt_raw_res r;
            cr_assert_eq(wgt_raw_read(fd[i], &r, 5000), 0, "%s #%d not served", from[f], i + 1);
            cr_assert_eq(r.status, 200);
            wgt_raw_res_free(&r);
        }
        for (int i = 0; i < 8; i++)
            close(fd[i]);
    }
    /* an address outside the list is still limited. The two allowed
     * connections are admitted first (a request line sent, kept for 300 ms):
     * with the server's two threads accepting at once, three connections
     * made back to back may be admitted in any order, and the one refused
     * need not be the last (seen in CI). */
    int a = wgt_raw_connect(s.port, "127.0.0.2"), b = wgt_raw_connect(s.port, "127.0.0.2");
    cr_assert(a >= 0 && b >= 0);
    cr_assert_eq(wgt_raw_send(a, request_line, strlen(request_line)), 0);
    cr_assert_eq(wgt_raw_send(b, request_line, strlen(request_line)), 0);
    cr_assert(!wgt_raw_closed_within(a, 300) && !wgt_raw_closed_within(b, 300), "a first connection was refused");
    int c = wgt_raw_connect(s.port, "127.0.0.2");
    cr_assert(wgt_raw_closed_within(c, 5000), "127.0.0.2 is not limited");
    close(a), close(b), close(c);
    wgt_server_stop(&s);
}

/* ---- the global limit ------------------------------------------------------------ */

/* Past the global limit a connection waits in the listen backlog; the
 * deadline frees the slots that slow clients hold, so it is served. */
Test(slowloris, full_global_limit_frees_up_through_the_deadline)
{
    wgt_server s;
    wgt_server_config cfg = { .max_connections = 4, .max_connections_per_ip = 4,
                              .request_deadline_s = 2 };
    wgt_server_start(&s, &cfg);
    int fd[4];
    for (int i = 0; i < 4; i++) {
        fd[i] = wgt_raw_connect(s.port, "127.0.0.2");
        cr_assert_geq(fd[i], 0);
        wgt_raw_send(fd[i], request_line, strlen(request_line));
    }
    cr_assert(healthy(s.port, 15000), "never served once the slow clients' deadline passed");
    for (int i = 0; i < 4; i++)
        close(fd[i]);
    wgt_server_stop(&s);
}

static void collect_log(void *ud, const char *line)
{
    char *buf = ud;
    if (strncmp(line, "limits ", 7) == 0)
        snprintf(buf, 256, "%s", line);
}

Test(slowloris, connection_limit_is_checked_against_rlimit_nofile)
{
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    rl.rlim_cur = 300;
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    char *dir = wgt_tmpdir();
    wg_server_options opt = WG_SERVER_OPTIONS_INIT;
    opt.data_dir = dir;
    opt.listen = "127.0.0.1:0";
    opt.threads = 2;
    opt.max_connections = 500;
    wg_server *srv = NULL;
    cr_assert_eq(wg_server_start(&srv, &opt), WG_EINVAL);
    cr_assert_not_null(strstr(wg_error_last(), "RLIMIT_NOFILE 300"), "%s", wg_error_last());
    /* the default fits itself under the limit: 300 - 64 - 4 per thread */
    char line[256] = { 0 };
    opt.max_connections = 0;
    opt.log = collect_log;
    opt.log_ud = line;
    cr_assert_eq(wg_server_start(&srv, &opt), 0, "%s", wg_error_last());
    cr_assert_not_null(strstr(line, "connections=228 "), "%s", line);
    wg_server_stop(srv);
    opt.max_connections = 228;
    cr_assert_eq(wg_server_start(&srv, &opt), 0, "%s", wg_error_last());
    wg_server_stop(srv);
    opt.max_connections = 229;
    cr_assert_eq(wg_server_start(&srv, &opt), WG_EINVAL);
    /* too few descriptors for even the minimum */
    rl.rlim_cur = 80;
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    opt.max_connections = 0;
    cr_assert_eq(wg_server_start(&srv, &opt), WG_EINVAL);
    cr_assert_not_null(strstr(wg_error_last(), "ulimit -n"), "%s", wg_error_last());
    wgt_rmtree(dir);
    free(dir);
}

Test(slowloris, bad_limits_and_proxies_refuse_to_start)
{
    char *dir = wgt_tmpdir();
    static const char *const bad_proxy[] = { "haproxy.internal", NULL };
    wg_server_options opt = WG_SERVER_OPTIONS_INIT;
    opt.data_dir = dir;
    opt.listen = "127.0.0.1:0";
    opt.threads = 2;
    opt.trusted_proxies = bad_proxy;
    wg_server *srv = NULL;
    cr_assert_eq(wg_server_start(&srv, &opt), WG_EINVAL);
    cr_assert_not_null(strstr(wg_error_last(), "haproxy.internal"), "%s", wg_error_last());
    opt.trusted_proxies = NULL;
    opt.max_connections = 10;
    opt.max_connections_per_ip = 11;
    cr_assert_eq(wg_server_start(&srv, &opt), WG_EINVAL);
    opt.max_connections_per_ip = 10;
    cr_assert_eq(wg_server_start(&srv, &opt), 0, "%s", wg_error_last());
    wg_server_stop(srv);
    opt.max_connections = 1;      /* fewer than the 2 workers */
    opt.max_connections_per_ip = 1;
    cr_assert_eq(wg_server_start(&srv, &opt), WG_EINVAL);
    wgt_rmtree(dir);
    free(dir);
}

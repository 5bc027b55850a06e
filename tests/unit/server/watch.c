/* watch.c - the connection watchdog (src/server/watch.c) on real sockets
 * (socket pairs) with made-up client addresses: the per-address limit at
 * N-1, N, N+1, IPv6 counted per /64, trusted proxies and prefixes exempt,
 * deadlines that shut an overdue socket down and leave an answering one
 * alone. */
#include <criterion/criterion.h>

#include "server/watch.h"
#include "waggle/error.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in v4(const char *ip)
{
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    cr_assert_eq(inet_pton(AF_INET, ip, &a.sin_addr), 1);
    return a;
}

static struct sockaddr_in6 v6(const char *ip)
{
    struct sockaddr_in6 a = { 0 };
    a.sin6_family = AF_INET6;
    cr_assert_eq(inet_pton(AF_INET6, ip, &a.sin6_addr), 1);
    return a;
}

#define SA(x) ((const struct sockaddr *)&(x)), (socklen_t)sizeof(x)

static wg_watch *make(unsigned per_ip, unsigned deadline_ms, const char *const *trusted)
{
    wg_watch_options o = { 0 };
    o.per_ip = per_ip;
    o.request_deadline_ms = deadline_ms;
    o.gap_ms = deadline_ms;
    o.max_connections = 64;
    o.trusted = trusted;
    wg_watch *w = NULL;
    cr_assert_eq(wg_watch__new(&w, &o), 0, "%s", wg_error_last());
    return w;
}

/* 1 when the peer of fd sees EOF within ms. */
static int peer_closed(int fd, int ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, ms) <= 0)
        return 0;
    char c;
    return recv(fd, &c, 1, MSG_DONTWAIT) == 0;
}

Test(watch, per_address_limit_n_minus_1_n_n_plus_1)
{
    wg_watch *w = make(3, 60000, NULL);
    struct sockaddr_in a = v4("192.0.2.7"), b = v4("192.0.2.8");
    void *c[3];
    int sp[3][2];
    for (int i = 0; i < 3; i++) {
        cr_assert(wg_watch__admit(w, SA(a)), "connection %d refused", i + 1);
        cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp[i]), 0);
        c[i] = wg_watch__opened(w, sp[i][0], SA(a));
        cr_assert_not_null(c[i]);
    }
    cr_assert(!wg_watch__admit(w, SA(a)), "the 4th connection was admitted");
    cr_assert(wg_watch__admit(w, SA(b)), "another address is limited too");
    wg_watch__closed(w, c[1]);
    cr_assert(wg_watch__admit(w, SA(a)), "a freed slot stays taken");
    wg_watch_stats st;
    wg_watch__stats(&st, w);
    cr_assert_eq(st.open, 2);
    cr_assert_eq(st.refused, 1);
    wg_watch__closed(w, c[0]);
    wg_watch__closed(w, c[2]);
    for (int i = 0; i < 3; i++) {
        close(sp[i][0]);
        close(sp[i][1]);
    }
    wg_watch__free(w);
}

Test(watch, a_raced_accept_past_the_limit_is_shut_down)
{
    wg_watch *w = make(1, 60000, NULL);
    struct sockaddr_in a = v4("192.0.2.7");
    int s1[2], s2[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, s1), 0);
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, s2), 0);
    void *c1 = wg_watch__opened(w, s1[0], SA(a));
    void *c2 = wg_watch__opened(w, s2[0], SA(a));   /* both passed admit */
    cr_assert(peer_closed(s2[1], 1000), "the second was not shut down");
    cr_assert(!peer_closed(s1[1], 50), "the first was shut down");
    wg_watch__closed(w, c1);
    wg_watch__closed(w, c2);
    close(s1[0]), close(s1[1]), close(s2[0]), close(s2[1]);
    wg_watch__free(w);
}

Test(watch, ipv6_counts_per_64_and_mapped_v4_counts_as_v4)
{
    wg_watch *w = make(1, 60000, NULL);
    struct sockaddr_in6 x = v6("2001:db8:1:2::1"), y = v6("2001:db8:1:2:ffff::9"),
                        z = v6("2001:db8:1:3::1"), m = v6("::ffff:192.0.2.7");
    struct sockaddr_in p = v4("192.0.2.7");
    int sp[2][2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp[0]), 0);
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp[1]), 0);
    void *cx = wg_watch__opened(w, sp[0][0], SA(x));
    cr_assert(!wg_watch__admit(w, SA(y)), "same /64 counted apart");
    cr_assert(wg_watch__admit(w, SA(z)), "another /64 counted together");
    void *cm = wg_watch__opened(w, sp[1][0], SA(m));
    cr_assert(!wg_watch__admit(w, SA(p)), "::ffff:192.0.2.7 and 192.0.2.7 counted apart");
    wg_watch__closed(w, cx);
    wg_watch__closed(w, cm);
    for (int i = 0; i < 2; i++)
        close(sp[i][0]), close(sp[i][1]);
    wg_watch__free(w);
}

Test(watch, trusted_proxies_and_prefixes_are_exempt)
{
    static const char *const trusted[] = { "198.51.100.10", "10.1.0.0/16", "fd00:1::/32",
                                           "::ffff:203.0.113.5", NULL };
    wg_watch *w = make(1, 60000, trusted);
    static const char *const ok4[] = { "198.51.100.10", "10.1.0.1", "10.1.255.254", "203.0.113.5" };
    int sp[8][2];
    void *c[8];
    int k = 0;
    for (size_t i = 0; i < 4; i++) {
        struct sockaddr_in a = v4(ok4[i]);
        for (int j = 0; j < 2; j++, k++) {
            cr_assert(wg_watch__admit(w, SA(a)), "%s refused", ok4[i]);
            cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp[k]), 0);
            c[k] = wg_watch__opened(w, sp[k][0], SA(a));
            cr_assert(!peer_closed(sp[k][1], 20), "%s shut down", ok4[i]);
        }
    }
    struct sockaddr_in6 in = v6("fd00:1:ffff::1"), out = v6("fd00:2::1");
    cr_assert(wg_watch__admit(w, SA(in)));
    struct sockaddr_in edge = v4("10.2.0.1");
    int e[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, e), 0);
    void *ce = wg_watch__opened(w, e[0], SA(edge));
    cr_assert(!wg_watch__admit(w, SA(edge)), "10.2.0.1 is outside 10.1.0.0/16");
    int o[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, o), 0);
    void *co = wg_watch__opened(w, o[0], SA(out));
    cr_assert(!wg_watch__admit(w, SA(out)), "fd00:2::1 is outside fd00:1::/32");
    for (int i = 0; i < k; i++) {
        wg_watch__closed(w, c[i]);
        close(sp[i][0]), close(sp[i][1]);
    }
    wg_watch__closed(w, ce);
    wg_watch__closed(w, co);
    close(e[0]), close(e[1]), close(o[0]), close(o[1]);
    wg_watch__free(w);
}

Test(watch, bad_trusted_entries_are_einval)
{
    static const char *const bad[] = { "", "proxy.example", "10.0.0.1/33", "10.0.0.1/", "10.0.0.1/-1",
                                       "::/129", "::ffff:10.0.0.1/95", "10.0.0.1 ", "10.0.0.0/8/8" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *list[] = { bad[i], NULL };
        wg_watch_options o = { 3, 1000, 1000, 16, list, NULL, NULL };
        wg_watch *w = NULL;
        cr_expect_eq(wg_watch__new(&w, &o), WG_EINVAL, "'%s' accepted", bad[i]);
        cr_expect_null(w);
    }
    const char *many[WG_WATCH_TRUSTED_MAX + 2];
    for (int i = 0; i <= WG_WATCH_TRUSTED_MAX; i++)
        many[i] = "10.0.0.1";
    many[WG_WATCH_TRUSTED_MAX + 1] = NULL;
    wg_watch_options o = { 3, 1000, 1000, 16, many, NULL, NULL };
    wg_watch *w = NULL;
    cr_assert_eq(wg_watch__new(&w, &o), WG_EINVAL, "65 entries accepted");
    many[WG_WATCH_TRUSTED_MAX] = NULL;
    cr_assert_eq(wg_watch__new(&w, &o), 0, "64 entries refused: %s", wg_error_last());
    wg_watch__free(w);
    wg_watch_options zero = { 0, 1000, 1000, 16, NULL, NULL, NULL };
    cr_assert_eq(wg_watch__new(&w, &zero), WG_EINVAL);
}

Test(watch, deadline_shuts_a_receiving_socket_down_not_an_answering_one)
{
    wg_watch *w = make(8, 100, NULL);
    cr_assert_eq(wg_watch__start(w), 0);
    struct sockaddr_in a = v4("192.0.2.7");
    int slow[2], busy[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, slow), 0);
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, busy), 0);
    void *cs = wg_watch__opened(w, slow[0], SA(a));
    void *cb = wg_watch__opened(w, busy[0], SA(a));
    wg_watch__request_line(w, cb);
    wg_watch__answering(w, cb);            /* e.g. a long handler or SSE */
    cr_assert(peer_closed(slow[1], 5000), "the receiving socket outlived its deadline");
    cr_assert(!peer_closed(busy[1], 400), "an answering socket was shut down");
    wg_watch__answered(w, cb);             /* the keep-alive gap has a deadline too */
    cr_assert(peer_closed(busy[1], 5000), "an idle keep-alive outlived the gap");
    wg_watch_stats st;
    wg_watch__stats(&st, w);
    cr_assert_eq(st.overdue, 2);
    wg_watch__closed(w, cs);
    wg_watch__closed(w, cb);
    close(slow[0]), close(slow[1]), close(busy[0]), close(busy[1]);
    wg_watch__free(w);
}

Test(watch, a_new_request_line_restarts_the_deadline_after_the_gap_only)
{
    wg_watch *w = make(8, 300, NULL);
    cr_assert_eq(wg_watch__start(w), 0);
    struct sockaddr_in a = v4("192.0.2.7");
    int sp[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
    void *c = wg_watch__opened(w, sp[0], SA(a));
    /* the first request keeps the deadline of the accept: request lines
     * do not buy time */
    for (int i = 0; i < 100 && !peer_closed(sp[1], 20); i++)
        wg_watch__request_line(w, c);
    wg_watch_stats st;
    wg_watch__stats(&st, w);
    cr_assert_eq(st.overdue, 1, "repeated request lines kept the connection open");
    wg_watch__closed(w, c);
    close(sp[0]), close(sp[1]);
    wg_watch__free(w);
}

/* upstream.c - the upstream policy's decisions without a network
 * (src/connect/upstream.h, docs/security.md 3.2): every address class at
 * its edges (N-1, N, N+1), IPv4-mapped / NAT64 / 6to4 forms, odd IPv4
 * spellings, names through a resolver stub, the address bound, the pin
 * list handed to curl, and the socket guard. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "connect/upstream.h"
#include "waggle/error.h"

static const wg_upstream_policy strict = { 0 };
static const wg_upstream_policy private_ok = { .allow_private = 1 };

static int classify_text(const char *text, const char **cls)
{
    struct sockaddr_storage ss = { 0 };
    if (inet_pton(AF_INET, text, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
        ss.ss_family = AF_INET;
    else if (inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
        ss.ss_family = AF_INET6;
    else
        return -1;
    *cls = wg_upstream_classify((struct sockaddr *)&ss);
    return 0;
}

Test(upstream, address_classes_at_their_edges)
{
    static const struct { const char *addr; const char *cls; } cases[] = {
        /* each range: the address below, the first, the last, the one above */
        { "9.255.255.255", NULL }, { "10.0.0.0", "private" }, { "10.255.255.255", "private" },
        { "11.0.0.0", NULL },
        { "100.63.255.255", NULL }, { "100.64.0.0", "CGNAT" }, { "100.127.255.255", "CGNAT" },
        { "100.128.0.0", NULL },
        { "126.255.255.255", NULL }, { "127.0.0.0", "loopback" }, { "127.255.255.255", "loopback" },
        { "128.0.0.0", NULL },
        { "169.253.255.255", NULL }, { "169.254.0.0", "link-local" },
        { "169.254.169.254", "metadata" }, { "169.254.255.255", "link-local" },
        { "169.255.0.0", NULL },
        { "172.15.255.255", NULL }, { "172.16.0.0", "private" }, { "172.31.255.255", "private" },
        { "172.32.0.0", NULL },
        { "192.167.255.255", NULL }, { "192.168.0.0", "private" }, { "192.168.255.255", "private" },
        { "192.169.0.0", NULL },
        { "0.0.0.0", "this network" }, { "0.255.255.255", "this network" }, { "1.0.0.0", NULL },
        { "192.0.0.192", "IETF" }, { "198.18.0.1", "benchmarking" }, { "224.0.0.1", "multicast" },
        { "255.255.255.255", "broadcast" }, { "223.255.255.255", NULL },
        { "8.8.8.8", NULL }, { "140.82.112.3", NULL },
        /* IPv6 */
        { "::", "unspecified" }, { "::1", "loopback" }, { "::2", "IPv4-compatible" },
        { "::ffff:127.0.0.1", "loopback" }, { "::ffff:10.1.2.3", "private" },
        { "::ffff:169.254.169.254", "metadata" }, { "::ffff:8.8.8.8", NULL },
        { "64:ff9b::7f00:1", "loopback" }, { "64:ff9b::808:808", NULL },
        { "64:ff9b:1::1", "NAT64" },
        { "2002:7f00:1::1", "loopback" }, { "2002:0808:0808::1", NULL },
        { "fbff:ffff::1", "outside global unicast" }, { "fc00::", "unique local" },
        { "fd00:ec2::254", "unique local" }, { "fdff:ffff::1", "unique local" },
        { "fe00::1", "outside global unicast" },
        { "fe7f:ffff::1", "outside global unicast" }, { "fe80::", "link-local" },
        { "febf:ffff::1", "link-local" }, { "fec0::1", "site-local" }, { "ff02::1", "multicast" },
        { "2001:db8::1", "documentation" }, { "2001::1", "Teredo" }, { "2001:200::1", NULL },
        { "2606:4700:4700::1111", NULL }, { "1fff:ffff::1", "outside global unicast" },
        { "4000::1", "outside global unicast" }, { "3ffe::1", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *cls = "?";
        cr_assert_eq(classify_text(cases[i].addr, &cls), 0, "%s", cases[i].addr);
        if (!cases[i].cls)
            cr_expect_null(cls, "%s should be public, got %s", cases[i].addr, cls);
        else
            cr_expect(cls && strstr(cls, cases[i].cls), "%s: want %s, got %s", cases[i].addr,
                      cases[i].cls, cls ? cls : "public");
    }
}

/* Sets up a curl handle for url under p and returns the code. */
static int prepare(const char *url, const wg_upstream_policy *p, wg_upstream_pin *pin)
{
    CURL *c = curl_easy_init();
    cr_assert_not_null(c);
    memset(pin, 0, sizeof *pin);
    int rc = wg_upstream_curl(pin, c, url, WG_UPSTREAM_HTTP, p);
    curl_easy_cleanup(c);
    return rc;
}

Test(upstream, odd_spellings_of_loopback_are_refused)
{
    static const char *const urls[] = {
        "https://127.0.0.1/", "https://2130706433/", "https://0x7f000001/", "https://0177.0.0.1/",
        "https://127.1/", "https://0x7f.1/", "https://017700000001/", "https://0/",
        "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/",
        "https://[0:0:0:0:0:ffff:7f00:1]/", "https://[64:ff9b::7f00:1]/", "https://169.254.169.254/",
        "https://[fd00:ec2::254]/", "https://10.0.0.1:8443/", "https://100.100.100.200/",
        "https://LOCALHOST./",
    };
    for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
        wg_upstream_pin pin;
        int rc = prepare(urls[i], &strict, &pin);
        cr_expect_eq(rc, WG_EDENIED, "%s: rc %d (%s)", urls[i], rc, wg_error_last());
        cr_expect_eq(pin.n, 0, "%s left checked addresses", urls[i]);
        wg_upstream_pin_clear(&pin);
        rc = prepare(urls[i], &private_ok, &pin);
        if (strstr(urls[i], "LOCALHOST") == NULL)   /* names need DNS; literals do not */
            cr_expect_eq(rc, 0, "%s with private allowed: %s", urls[i], wg_error_last());
        wg_upstream_pin_clear(&pin);
    }
}

Test(upstream, schemes_user_info_and_plain_http)
{
    wg_upstream_pin pin;
    static const char *const bad[] = {
        "ftp://example.com/", "file:///etc/passwd", "gopher://example.com/", "dict://x/",
        "https://user:pw@example.com/", "https://user@8.8.8.8/", "https:///nohost",
        "https://exa mple.com/", "https://ex\xc3\xa4mple.com/",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = prepare(bad[i], &private_ok, &pin);
        cr_expect(rc < 0, "%s: rc %d", bad[i], rc);
        wg_upstream_pin_clear(&pin);
    }
    /* plain http: refused (the credential would travel in clear text) */
    int rc = prepare("http://8.8.8.8/", &strict, &pin);
    cr_expect_eq(rc, WG_EDENIED);
    cr_expect(strstr(wg_error_last(), "clear text"), "%s", wg_error_last());
    wg_upstream_pin_clear(&pin);
    wg_upstream_policy http_ok = { .allow_http = 1 };
    cr_expect_eq(prepare("http://8.8.8.8/", &http_ok, &pin), 0, "%s", wg_error_last());
    wg_upstream_pin_clear(&pin);
    cr_expect_eq(prepare("https://8.8.8.8/v1", &strict, &pin), 0, "%s", wg_error_last());
    cr_expect_eq(pin.n, 1);
    cr_expect(pin.literal);
    cr_expect_null(pin.resolve, "a literal address needs no pin list");
    wg_upstream_pin_clear(&pin);
}

/* ---- names through a stub resolver ----------------------------------------- */

typedef struct {
    const char *answers[20];
    size_t n;
    int calls;
} stub;

static int stub_resolve(void *ud, const char *host, char (*addrs)[WG_UPSTREAM_ADDR_LEN],
                        size_t max, size_t *n)
{
    stub *s = ud;
    (void)host;
    s->calls++;
    *n = 0;
    for (size_t i = 0; i < s->n && *n < max; i++)
        snprintf(addrs[(*n)++], WG_UPSTREAM_ADDR_LEN, "%s", s->answers[i]);
    return 0;
}

Test(upstream, a_name_is_checked_after_resolution)
{
    stub s = { { "10.0.0.5" }, 1, 0 };
    wg_upstream_resolver r = { stub_resolve, &s };
    wg_upstream_policy p = { .resolver = &r };
    wg_upstream_pin pin;
    cr_expect_eq(prepare("https://intranet.example.test/", &p, &pin), WG_EDENIED);
    cr_expect(strstr(wg_error_last(), "10.0.0.5 is private"), "%s", wg_error_last());
    cr_expect(strstr(wg_error_last(), "intranet.example.test"), "%s", wg_error_last());
    wg_upstream_pin_clear(&pin);
    /* one bad address among good ones refuses the host (a rebinding set) */
    stub mixed = { { "140.82.112.3", "2606:4700::1", "127.0.0.1" }, 3, 0 };
    r.ud = &mixed;
    cr_expect_eq(prepare("https://api.example.test/", &p, &pin), WG_EDENIED);
    wg_upstream_pin_clear(&pin);
    /* public: pinned, names only */
    stub good = { { "140.82.112.3", "2606:4700::1" }, 2, 0 };
    r.ud = &good;
    cr_assert_eq(prepare("https://api.example.test:8443/x?y=1", &p, &pin), 0, "%s", wg_error_last());
    cr_assert_not_null(pin.resolve);
    cr_expect_str_eq(pin.resolve->data, "api.example.test:8443:140.82.112.3,[2606:4700::1]");
    cr_expect_null(pin.resolve->next);
    cr_expect_eq(good.calls, 1);
    wg_upstream_pin_clear(&pin);
    /* a resolver that answers a non-address fails closed */
    stub junk = { { "evil.example" }, 1, 0 };
    r.ud = &junk;
    cr_expect_eq(prepare("https://api.example.test/", &p, &pin), WG_EIO);
    wg_upstream_pin_clear(&pin);
    /* no address at all */
    stub none = { { 0 }, 0, 0 };
    r.ud = &none;
    cr_expect_eq(prepare("https://api.example.test/", &p, &pin), WG_EIO);
    wg_upstream_pin_clear(&pin);
}

Test(upstream, at_most_max_addrs_are_kept_and_all_are_checked)
{
    static char bufs[20][WG_UPSTREAM_ADDR_LEN];
    for (size_t want = WG_UPSTREAM_MAX_ADDRS - 1; want <= WG_UPSTREAM_MAX_ADDRS + 1; want++) {
        stub s = { { 0 }, want, 0 };
        for (size_t i = 0; i < want; i++) {
            snprintf(bufs[i], sizeof bufs[i], "140.82.112.%zu", i + 1);
            s.answers[i] = bufs[i];
        }
        wg_upstream_resolver r = { stub_resolve, &s };
        wg_upstream_policy p = { .resolver = &r };
        wg_upstream_pin pin;
        cr_assert_eq(prepare("https://many.example.test/", &p, &pin), 0, "%s", wg_error_last());
        size_t kept = want < WG_UPSTREAM_MAX_ADDRS ? want : WG_UPSTREAM_MAX_ADDRS;
        cr_expect_eq(pin.n, kept, "%zu answers: kept %zu", want, pin.n);
        wg_upstream_pin_clear(&pin);
    }
    /* duplicates count once */
    stub dup = { { "140.82.112.3", "140.82.112.3" }, 2, 0 };
    wg_upstream_resolver r = { stub_resolve, &dup };
    wg_upstream_policy p = { .resolver = &r };
    wg_upstream_pin pin;
    cr_assert_eq(prepare("https://dup.example.test/", &p, &pin), 0);
    cr_expect_eq(pin.n, 1);
    wg_upstream_pin_clear(&pin);
}

Test(upstream, socket_guard_allows_only_checked_addresses)
{
    stub s = { { "140.82.112.3" }, 1, 0 };
    wg_upstream_resolver r = { stub_resolve, &s };
    wg_upstream_policy p = { .resolver = &r };
    wg_upstream_pin pin;
    cr_assert_eq(prepare("https://api.example.test/", &p, &pin), 0);
    struct {
        struct curl_sockaddr a;
        unsigned char room[sizeof(struct sockaddr_in6)];
    } cand;
    memset(&cand, 0, sizeof cand);
    cand.a.family = AF_INET;
    cand.a.socktype = SOCK_STREAM;
    cand.a.protocol = 0;
    cand.a.addrlen = sizeof(struct sockaddr_in);
    struct sockaddr_in *in = (struct sockaddr_in *)&cand.a.addr;
    in->sin_family = AF_INET;
    in->sin_port = htons(443);
    /* an address curl might have found on its own (rebinding): refused */
    inet_pton(AF_INET, "127.0.0.1", &in->sin_addr);
    cr_expect_eq(wg_upstream__opensocket(&pin, CURLSOCKTYPE_IPCXN, &cand.a), CURL_SOCKET_BAD);
    cr_expect(pin.guard_refused);
    pin.guard_refused = 0;
    /* another public address that was not checked: refused too */
    inet_pton(AF_INET, "140.82.112.4", &in->sin_addr);
    cr_expect_eq(wg_upstream__opensocket(&pin, CURLSOCKTYPE_IPCXN, &cand.a), CURL_SOCKET_BAD);
    /* the checked address on another port: refused */
    inet_pton(AF_INET, "140.82.112.3", &in->sin_addr);
    in->sin_port = htons(444);
    cr_expect_eq(wg_upstream__opensocket(&pin, CURLSOCKTYPE_IPCXN, &cand.a), CURL_SOCKET_BAD);
    /* the checked address: a socket */
    in->sin_port = htons(443);
    pin.guard_refused = 0;
    curl_socket_t fd = wg_upstream__opensocket(&pin, CURLSOCKTYPE_IPCXN, &cand.a);
    cr_expect_neq(fd, CURL_SOCKET_BAD);
    cr_expect(!pin.guard_refused);
    if (fd != CURL_SOCKET_BAD)
        close(fd);
    /* no pin at all: refused */
    cr_expect_eq(wg_upstream__opensocket(NULL, CURLSOCKTYPE_IPCXN, &cand.a), CURL_SOCKET_BAD);
    wg_upstream_pin_clear(&pin);
}

Test(upstream, base_url_checked_on_connect_without_dns)
{
    static const struct { const char *url; int private_ok, http_ok, rc; } cases[] = {
        { "https://ghe.example.com/api/v3", 0, 0, 0 },
        { "https://gitlab.example.com", 0, 0, 0 },
        { "http://ghe.example.com", 0, 0, WG_EDENIED },
        { "http://ghe.example.com", 0, 1, 0 },
        { "https://127.0.0.1:8443", 0, 0, WG_EDENIED },
        { "https://127.0.0.1:8443", 1, 0, 0 },
        { "https://localhost", 0, 0, WG_EDENIED },
        { "https://api.localhost.", 0, 0, WG_EDENIED },
        { "https://notlocalhost.example", 0, 0, 0 },
        { "https://[::ffff:10.0.0.1]", 0, 0, WG_EDENIED },
        { "https://3232235777", 0, 0, WG_EDENIED },          /* 192.168.1.1 */
        { "https://user@ghe.example.com", 1, 1, WG_EINVAL },
        { "https://ghe.example.com/?x=1", 1, 1, WG_EINVAL },
        { "https://ghe.example.com/#f", 1, 1, WG_EINVAL },
        { "ftp://ghe.example.com", 1, 1, WG_EINVAL },
        { "file:///etc/passwd", 1, 1, WG_EINVAL },
        { "https://", 1, 1, WG_EINVAL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wg_upstream_policy p = { .allow_private = cases[i].private_ok,
                                 .allow_http = cases[i].http_ok };
        int rc = wg_upstream_check_base_url(cases[i].url, &p);
        cr_expect_eq(rc, cases[i].rc, "%s: rc %d (%s)", cases[i].url, rc, wg_error_last());
    }
}

Test(upstream, smtp_kind_takes_mail_schemes_only)
{
    CURL *c = curl_easy_init();
    wg_upstream_pin pin = { 0 };
    cr_expect_eq(wg_upstream_curl(&pin, c, "https://8.8.8.8/", WG_UPSTREAM_SMTP, &strict), WG_EINVAL);
    wg_upstream_pin_clear(&pin);
    memset(&pin, 0, sizeof pin);
    cr_expect_eq(wg_upstream_curl(&pin, c, "smtps://8.8.8.8:465", WG_UPSTREAM_SMTP, &strict), 0);
    wg_upstream_pin_clear(&pin);
    memset(&pin, 0, sizeof pin);
    cr_expect_eq(wg_upstream_curl(&pin, c, "smtp://127.0.0.1:25", WG_UPSTREAM_SMTP, &strict),
                 WG_EDENIED);
    wg_upstream_pin_clear(&pin);
    curl_easy_cleanup(c);
}

/* upstream.c - the upstream policy (see upstream.h; docs/security.md 3.2).
 *
 * Address classes are two tables, IPv4 and IPv6, of prefix, length and
 * name; an address is public when no row matches (and, for IPv6, when it
 * lies in global unicast 2000::/3). IPv6 rows that embed an IPv4 address
 * (IPv4-mapped, NAT64, 6to4) classify by that address, so
 * ::ffff:127.0.0.1 is loopback. Literal addresses are parsed by
 * getaddrinfo (AI_NUMERICHOST), which takes every spelling inet_aton does
 * (2130706433, 0x7f.1, 0177.0.0.1, 127.1): the check is on the bytes, not
 * the text, and the socket guard checks the bytes curl really connects to.
 */
#include "connect/upstream.h"
#include "waggle/error.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const wg_upstream_policy strict;   /* the default: nothing allowed */

static const char private_hint[] =
    "the operator may allow private upstreams (waggle serve --allow-private-upstreams)";
static const char http_hint[] =
    "the operator may allow plain http (waggle serve --allow-http-upstreams)";

/* ---- classification --------------------------------------------------- */

static const struct {
    uint32_t net;
    unsigned bits;
    const char *name;
} v4_classes[] = {
    { 0x00000000u, 8,  "this network (0.0.0.0/8)" },
    { 0x0A000000u, 8,  "private (10.0.0.0/8)" },
    { 0x64400000u, 10, "shared address space, CGNAT (100.64.0.0/10)" },
    { 0x7F000000u, 8,  "loopback (127.0.0.0/8)" },
    { 0xA9FE0000u, 16, "link-local, cloud metadata (169.254.0.0/16)" },
    { 0xAC100000u, 12, "private (172.16.0.0/12)" },
    { 0xC0000000u, 24, "IETF protocol assignments (192.0.0.0/24)" },
    { 0xC0000200u, 24, "documentation (192.0.2.0/24)" },
    { 0xC0586300u, 24, "6to4 relay anycast (192.88.99.0/24)" },
    { 0xC0A80000u, 16, "private (192.168.0.0/16)" },
    { 0xC6120000u, 15, "benchmarking (198.18.0.0/15)" },
    { 0xC6336400u, 24, "documentation (198.51.100.0/24)" },
    { 0xCB007100u, 24, "documentation (203.0.113.0/24)" },
    { 0xE0000000u, 4,  "multicast (224.0.0.0/4)" },
    { 0xF0000000u, 4,  "reserved, broadcast (240.0.0.0/4)" },
};

static const char *classify_v4(uint32_t a)
{
    for (size_t i = 0; i < sizeof v4_classes / sizeof *v4_classes; i++) {
        uint32_t mask = v4_classes[i].bits ? ~0u << (32 - v4_classes[i].bits) : 0;
        if ((a & mask) == v4_classes[i].net)
            return v4_classes[i].name;
    }
    return NULL;
}

enum { EMBED_NONE, EMBED_LAST32, EMBED_6TO4 };

static const struct {
    unsigned char net[16];
    unsigned bits;
    int embed;            /* the class is that of an embedded IPv4 address */
    const char *name;
} v6_classes[] = {
    { { 0 }, 128, EMBED_NONE, "unspecified (::)" },
    { { [15] = 1 }, 128, EMBED_NONE, "loopback (::1)" },
    { { [10] = 0xff, [11] = 0xff }, 96, EMBED_LAST32, NULL },                 /* ::ffff:0:0/96 */
    { { 0 }, 96, EMBED_NONE, "IPv4-compatible, deprecated (::/96)" },
    { { 0x00, 0x64, 0xff, 0x9b }, 96, EMBED_LAST32, NULL },                   /* 64:ff9b::/96 */
    { { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, EMBED_NONE, "local-use NAT64 (64:ff9b:1::/48)" },
    { { 0x01, 0x00 }, 64, EMBED_NONE, "discard-only (100::/64)" },
    { { 0x20, 0x01, 0x0d, 0xb8 }, 32, EMBED_NONE, "documentation (2001:db8::/32)" },
    { { 0x20, 0x01 }, 23, EMBED_NONE, "IETF protocol assignments, Teredo (2001::/23)" },
    { { 0x20, 0x02 }, 16, EMBED_6TO4, NULL },                                 /* 2002::/16 */
    { { 0x3f, 0xff }, 20, EMBED_NONE, "documentation (3fff::/20)" },
    { { 0xfc }, 7, EMBED_NONE, "unique local (fc00::/7)" },
    { { 0xfe, 0x80 }, 10, EMBED_NONE, "link-local (fe80::/10)" },
    { { 0xfe, 0xc0 }, 10, EMBED_NONE, "site-local, deprecated (fec0::/10)" },
    { { 0xff }, 8, EMBED_NONE, "multicast (ff00::/8)" },
};

static int prefix_match(const unsigned char *a, const unsigned char *net, unsigned bits)
{
    unsigned full = bits / 8, rest = bits % 8;
    if (memcmp(a, net, full))
        return 0;
    if (!rest)
        return 1;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (a[full] & mask) == (net[full] & mask);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const char *classify_v6(const unsigned char *a)
{
    for (size_t i = 0; i < sizeof v6_classes / sizeof *v6_classes; i++) {
        if (!prefix_match(a, v6_classes[i].net, v6_classes[i].bits))
            continue;
        switch (v6_classes[i].embed) {
        case EMBED_LAST32: return classify_v4(be32(a + 12));
        case EMBED_6TO4: return classify_v4(be32(a + 2));
        default: return v6_classes[i].name;
        }
    }
    if ((a[0] & 0xe0) != 0x20)
        return "reserved (outside global unicast 2000::/3)";
    return NULL;
}

const char *wg_upstream_classify(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return classify_v4(ntohl(in->sin_addr.s_addr));
    }
    if (sa->sa_family == AF_INET6)
        return classify_v6(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
    return "not an internet address";
}

static void addr_text(char *buf, size_t n, const struct sockaddr *sa)
{
    const void *src = sa->sa_family == AF_INET
                          ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                          : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
        snprintf(buf, n, "?");
    else if (!inet_ntop(sa->sa_family, src, buf, (socklen_t)n))
        snprintf(buf, n, "?");
}

int wg_upstream_check_addr(const struct sockaddr *sa, const wg_upstream_policy *p)
{
    if (!p)
        p = &strict;
    if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
        return wg_error_set(WG_EDENIED, "upstream refused: not an internet address");
    const char *cls = wg_upstream_classify(sa);
    if (!cls || p->allow_private)
        return 0;
    char text[INET6_ADDRSTRLEN];
    addr_text(text, sizeof text, sa);
    return wg_error_set(WG_EDENIED, "upstream refused: %s is %s; %s", text, cls, private_hint);
}

/* ---- resolution --------------------------------------------------------- */

/* Letters, digits, '.', '-', '_' and ':' (IPv6) only: no spaces, controls,
 * '%' zone ids, non-ASCII (use the punycode form) or empty labels. */
static int host_ok(const char *h)
{
    size_t n = strlen(h);
    if (n == 0 || n > WG_UPSTREAM_HOST_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)h[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_' || c == ':'))
            return 0;
    }
    return 1;
}

/* Parses a numeric address into ss (port set). 1 when host is one. */
static int numeric(struct sockaddr_storage *ss, const char *host, unsigned port)
{
    struct addrinfo hints = { 0 }, *res = NULL;
    hints.ai_flags = AI_NUMERICHOST;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return 0;
    int ok = res->ai_addrlen <= sizeof *ss &&
             (res->ai_family == AF_INET || res->ai_family == AF_INET6);
    if (ok) {
        memset(ss, 0, sizeof *ss);
        memcpy(ss, res->ai_addr, res->ai_addrlen);
        if (ss->ss_family == AF_INET)
            ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
        else
            ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
    }
    freeaddrinfo(res);
    return ok;
}

static int add_addr(wg_upstream_pin *pin, const struct sockaddr_storage *ss)
{
    for (size_t i = 0; i < pin->n; i++)
        if (memcmp(&pin->addr[i], ss, sizeof *ss) == 0)
            return 0;                             /* the same address twice */
    if (pin->n == WG_UPSTREAM_MAX_ADDRS)
        return 0;                                 /* the rest is never used */
    pin->addr[pin->n++] = *ss;
    return 0;
}

static int resolve_system(wg_upstream_pin *pin, const char *host)
{
    struct addrinfo hints = { 0 }, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(host, NULL, &hints, &res);
    if (g != 0)
        return wg_error_set(WG_EIO, "cannot resolve %s: %s", host, gai_strerror(g));
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
            ai->ai_addrlen > sizeof(struct sockaddr_storage))
            continue;
        struct sockaddr_storage ss = { 0 };
        memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
        if (ss.ss_family == AF_INET)
            ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)pin->port);
        else
            ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)pin->port);
        add_addr(pin, &ss);
    }
    freeaddrinfo(res);
    return 0;
}

static int resolve_hook(wg_upstream_pin *pin, const char *host, const wg_upstream_resolver *r)
{
    char addrs[WG_UPSTREAM_MAX_ADDRS][WG_UPSTREAM_ADDR_LEN];
    size_t n = 0;
    memset(addrs, 0, sizeof addrs);
    int rc = r->resolve(r->ud, host, addrs, WG_UPSTREAM_MAX_ADDRS, &n);
    if (rc < 0)
        return wg_error_set(rc, "cannot resolve %s", host);
    for (size_t i = 0; i < n && i < WG_UPSTREAM_MAX_ADDRS; i++) {
        struct sockaddr_storage ss;
        addrs[i][WG_UPSTREAM_ADDR_LEN - 1] = 0;
        if (!numeric(&ss, addrs[i], pin->port))
            return wg_error_set(WG_EIO, "the resolver gave %s a non-numeric address", host);
        add_addr(pin, &ss);
    }
    return 0;
}

/* localhost, *.localhost (RFC 6761), with or without the root dot. */
static int localhost_name(const char *h)
{
    size_t n = strlen(h);
    if (n && h[n - 1] == '.')
        n--;
    static const char lh[] = "localhost";
    size_t l = sizeof lh - 1;
    return n >= l && strncasecmp(h + n - l, lh, l) == 0 && (n == l || h[n - l - 1] == '.');
}

int wg_upstream_resolve(wg_upstream_pin *pin, const char *host, unsigned port,
                        const wg_upstream_policy *p)
{
    if (!p)
        p = &strict;
    pin->policy = *p;
    pin->n = 0;
    pin->literal = 0;
    if (!host || !host_ok(host))
        return wg_error_set(WG_EINVAL, "upstream host must be an ASCII name or address");
    if (port == 0 || port > 65535)
        return wg_error_set(WG_EINVAL, "upstream port must be 1-65535");
    snprintf(pin->host, sizeof pin->host, "%s", host);
    pin->port = port;
    struct sockaddr_storage ss;
    int rc = 0;
    if (localhost_name(host) && !p->allow_private)   /* RFC 6761: loopback, whatever DNS says */
        return wg_error_set(WG_EDENIED, "upstream refused: %s is loopback (127.0.0.0/8); %s",
                            host, private_hint);
    if (numeric(&ss, host, port)) {
        pin->literal = 1;
        add_addr(pin, &ss);
    } else if (p->resolver && p->resolver->resolve) {
        rc = resolve_hook(pin, host, p->resolver);
    } else {
        rc = resolve_system(pin, host);
    }
    if (rc < 0)
        return rc;
    if (pin->n == 0)
        return wg_error_set(WG_EIO, "cannot resolve %s: no address", host);
    for (size_t i = 0; i < pin->n; i++) {
        rc = wg_upstream_check_addr((const struct sockaddr *)&pin->addr[i], p);
        if (rc < 0) {
            char why[320];
            snprintf(why, sizeof why, "%s", wg_error_last());
            pin->n = 0;
            return wg_error_set(rc, "%s (%s)", why, pin->literal ? "a literal address" : host);
        }
    }
    return 0;
}

/* ---- the socket guard ----------------------------------------------------- */

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr *b, size_t blen)
{
    if (a->ss_family != b->sa_family)
        return 0;
    if (b->sa_family == AF_INET && blen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *x = (const struct sockaddr_in *)a, *y = (const void *)b;
        return x->sin_addr.s_addr == y->sin_addr.s_addr && x->sin_port == y->sin_port;
    }
    if (b->sa_family == AF_INET6 && blen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a, *y = (const void *)b;
        return memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0 &&
               x->sin6_port == y->sin6_port;
    }
    return 0;
}

curl_socket_t wg_upstream__opensocket(void *clientp, curlsocktype purpose,
                                      struct curl_sockaddr *address)
{
    wg_upstream_pin *pin = clientp;
    int ok = 0;
    if (pin && purpose == CURLSOCKTYPE_IPCXN) {
        for (size_t i = 0; i < pin->n && !ok; i++)
            ok = same_addr(&pin->addr[i], &address->addr, address->addrlen);
        if (ok && wg_upstream_check_addr(&address->addr, &pin->policy) < 0)
            ok = 0;
    }
    if (!ok) {
        if (pin)
            pin->guard_refused = 1;
        return CURL_SOCKET_BAD;
    }
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

/* ---- URLs ------------------------------------------------------------------ */

/* Parses url; the host (brackets stripped), scheme and port are new. */
typedef struct {
    CURLU *u;
    char *scheme, *host, *port;
} parsed;

static void parsed_free(parsed *p, int keep_handle)
{
    if (!keep_handle)
        curl_url_cleanup(p->u);
    curl_free(p->scheme);
    curl_free(p->host);
    curl_free(p->port);
    memset(p, 0, sizeof *p);
}

static int parse(parsed *p, const char *url, int strict_parts)
{
    memset(p, 0, sizeof *p);
    if (!url || strpbrk(url, " \t\r\n"))
        return wg_error_set(WG_EINVAL, "upstream URL may not contain spaces or line breaks");
    if (!(p->u = curl_url()))
        return wg_error_set(WG_ENOMEM, "out of memory");
    char *v = NULL;
    if (curl_url_set(p->u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
        curl_url_get(p->u, CURLUPART_SCHEME, &p->scheme, 0) != CURLUE_OK ||
        curl_url_get(p->u, CURLUPART_HOST, &p->host, 0) != CURLUE_OK ||
        curl_url_get(p->u, CURLUPART_PORT, &p->port, CURLU_DEFAULT_PORT) != CURLUE_OK)
        return wg_error_set(WG_EINVAL, "upstream URL is not a valid URL with a host");
    if (curl_url_get(p->u, CURLUPART_USER, &v, 0) == CURLUE_OK ||
        curl_url_get(p->u, CURLUPART_PASSWORD, &v, 0) == CURLUE_OK) {
        curl_free(v);
        return wg_error_set(WG_EINVAL, "upstream URL may not carry user info (user@)");
    }
    if (strict_parts && (curl_url_get(p->u, CURLUPART_QUERY, &v, 0) == CURLUE_OK ||
                         curl_url_get(p->u, CURLUPART_FRAGMENT, &v, 0) == CURLUE_OK)) {
        curl_free(v);
        return wg_error_set(WG_EINVAL, "base URL may not have a query or a fragment");
    }
    size_t n = strlen(p->host);
    if (n >= 2 && p->host[0] == '[' && p->host[n - 1] == ']') {
        memmove(p->host, p->host + 1, n - 2);
        p->host[n - 2] = 0;
    }
    return 0;
}

/* Is the scheme allowed for kind under p? */
static int scheme_check(const char *scheme, wg_upstream_kind kind, const wg_upstream_policy *p)
{
    if (kind == WG_UPSTREAM_SMTP) {
        if (strcasecmp(scheme, "smtps") == 0 || strcasecmp(scheme, "smtp") == 0)
            return 0;
        return wg_error_set(WG_EINVAL, "mail server URL must be smtps:// or smtp://");
    }
    if (strcasecmp(scheme, "https") == 0)
        return 0;
    if (strcasecmp(scheme, "http") == 0)
        return p->allow_http ? 0
                             : wg_error_set(WG_EDENIED, "upstream refused: plain http:// would "
                                                        "send the credential in clear text; %s",
                                            http_hint);
    return wg_error_set(WG_EINVAL, "upstream URL must be https://");
}

static int pin_list(wg_upstream_pin *pin)
{
    /* "host:port:addr,[v6addr],…" - only for names; curl never resolves a
     * literal address */
    if (pin->literal)
        return 0;
    char line[WG_UPSTREAM_HOST_MAX + 16 + WG_UPSTREAM_MAX_ADDRS * (INET6_ADDRSTRLEN + 3)];
    int k = snprintf(line, sizeof line, "%s:%u:", pin->host, pin->port);
    for (size_t i = 0; i < pin->n && k > 0 && (size_t)k < sizeof line; i++) {
        char a[INET6_ADDRSTRLEN];
        addr_text(a, sizeof a, (const struct sockaddr *)&pin->addr[i]);
        int v6 = pin->addr[i].ss_family == AF_INET6;
        k += snprintf(line + k, sizeof line - (size_t)k, "%s%s%s%s", i ? "," : "", v6 ? "[" : "",
                      a, v6 ? "]" : "");
    }
    if (k <= 0 || (size_t)k >= sizeof line)
        return wg_error_set(WG_EINTERNAL, "pin list too long");
    struct curl_slist *l = curl_slist_append(NULL, line);
    if (!l)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pin->resolve = l;
    return 0;
}

int wg_upstream_curl(wg_upstream_pin *pin, CURL *curl, const char *url, wg_upstream_kind kind,
                     const wg_upstream_policy *p)
{
    if (!p)
        p = &strict;
    parsed u;
    int rc = parse(&u, url, 0);
    if (rc == 0)
        rc = scheme_check(u.scheme, kind, p);
    if (rc == 0) {
        char *end;
        long port = strtol(u.port, &end, 10);
        rc = wg_upstream_resolve(pin, u.host, *end ? 0 : (unsigned)port, p);
    }
    if (rc == 0)
        rc = pin_list(pin);
    if (rc < 0) {
        parsed_free(&u, 0);
        return rc;
    }
    pin->url = u.u;
    int http = kind == WG_UPSTREAM_HTTP;
    curl_easy_setopt(curl, CURLOPT_CURLU, pin->url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR,
                     http ? (p->allow_http ? "http,https" : "https") : "smtp,smtps");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, http ? "https" : "smtps");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    if (pin->resolve)
        curl_easy_setopt(curl, CURLOPT_RESOLVE, pin->resolve);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, wg_upstream__opensocket);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, pin);
    if (!http)
        curl_easy_setopt(curl, CURLOPT_USE_SSL,
                         (long)(strcasecmp(u.scheme, "smtps") == 0 || !p->allow_http
                                    ? CURLUSESSL_ALL : CURLUSESSL_TRY));
    parsed_free(&u, 1);
    return 0;
}

void wg_upstream_pin_clear(wg_upstream_pin *pin)
{
    if (!pin)
        return;
    curl_slist_free_all(pin->resolve);
    curl_url_cleanup(pin->url);
    pin->resolve = NULL;
    pin->url = NULL;
}

int wg_upstream_check_base_url(const char *url, const wg_upstream_policy *p)
{
    if (!p)
        p = &strict;
    parsed u;
    int rc = parse(&u, url, 1);
    if (rc == 0 && strcasecmp(u.scheme, "https") && strcasecmp(u.scheme, "http"))
        rc = wg_error_set(WG_EINVAL, "base URL must start with https:// (or http://)");
    if (rc == 0)
        rc = scheme_check(u.scheme, WG_UPSTREAM_HTTP, p);
    if (rc == 0 && !host_ok(u.host))
        rc = wg_error_set(WG_EINVAL, "base URL host must be an ASCII name or address "
                                     "(use the punycode form)");
    struct sockaddr_storage ss;
    if (rc == 0 && numeric(&ss, u.host, 443))
        rc = wg_upstream_check_addr((const struct sockaddr *)&ss, p);
    else if (rc == 0 && localhost_name(u.host) && !p->allow_private)
        rc = wg_error_set(WG_EDENIED, "upstream refused: localhost is loopback (127.0.0.0/8); %s",
                          private_hint);
    parsed_free(&u, 0);
    return rc;
}

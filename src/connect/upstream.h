/* upstream.h - the upstream policy: where connectors may connect (internal
 * to src/connect; docs/security.md 3.2).
 *
 * Every outbound connection of every connector goes through this file:
 *   1. the URL's scheme is one the kind allows (https, or http when the
 *      operator allows it; smtps/smtp for mail) and it has no user info;
 *   2. the host is resolved once, here (a literal address, any spelling
 *      curl or getaddrinfo accepts, is taken as it parses);
 *   3. every address it resolves to is classified (loopback, private,
 *      link-local, CGNAT, unique-local, reserved, …; IPv4-mapped, NAT64 and
 *      6to4 IPv6 by their IPv4) and refused unless the operator allows
 *      private upstreams: one refused address refuses the host;
 *   4. the connection is pinned to exactly the checked addresses:
 *      CURLOPT_RESOLVE feeds them to curl so it never resolves the name
 *      itself, and CURLOPT_OPENSOCKETFUNCTION refuses a socket to any
 *      address that is not one of them (no DNS rebinding between check and
 *      connect, whatever curl does inside);
 *   5. redirects are not followed, protocols are limited to the kind's,
 *      and proxies from the environment are not used (a proxy would be a
 *      second, unchecked hop).
 * PostgreSQL resolves with wg_upstream_resolve and pins with libpq's
 * hostaddr. Thread-safe: no state outside the caller's wg_upstream_pin.
 */
#ifndef WG_CONNECT_UPSTREAM_H
#define WG_CONNECT_UPSTREAM_H

#include <curl/curl.h>
#include <sys/socket.h>
#include "waggle/connector.h"

enum {
    WG_UPSTREAM_MAX_ADDRS = 16,   /* addresses kept (and checked) per host */
    WG_UPSTREAM_HOST_MAX = 253,   /* a DNS name's longest text form */
};

typedef enum {
    WG_UPSTREAM_HTTP,   /* https (http when allowed) */
    WG_UPSTREAM_SMTP    /* smtps, or smtp with STARTTLS required (not when http is allowed) */
} wg_upstream_kind;

/* The checked addresses of one host, and what curl needs to stay on them.
 * Zero it before use; clear it after curl_easy_cleanup. */
typedef struct wg_upstream_pin {
    wg_upstream_policy policy;                  /* copy; resolver borrowed */
    char host[WG_UPSTREAM_HOST_MAX + 1];        /* without brackets */
    unsigned port;
    size_t n;
    struct sockaddr_storage addr[WG_UPSTREAM_MAX_ADDRS];
    int literal;                                /* the host is an address */
    struct curl_slist *resolve;                 /* CURLOPT_RESOLVE list */
    CURLU *url;                                 /* the one parse curl uses */
    int guard_refused;                          /* the socket guard said no */
} wg_upstream_pin;

/* The class of an address that is not public: a static text such as
 * "loopback (127.0.0.0/8)", or NULL for a public unicast address. */
const char *wg_upstream_classify(const struct sockaddr *sa);

/* 0 when the policy (NULL = strict) allows connecting to sa; WG_EDENIED
 * with a message naming the class otherwise. */
int wg_upstream_check_addr(const struct sockaddr *sa, const wg_upstream_policy *p);

/* Resolves host (a name, or a literal address in any spelling
 * getaddrinfo accepts, IPv6 without brackets) through p->resolver or
 * getaddrinfo, keeps at most WG_UPSTREAM_MAX_ADDRS addresses, checks each
 * and fills pin (host, port, addr, n). Returns 0, WG_EINVAL (bad host),
 * WG_EDENIED (an address the policy refuses), WG_EIO (no address). */
int wg_upstream_resolve(wg_upstream_pin *pin, const char *host, unsigned port,
                        const wg_upstream_policy *p);

/* Checks url for kind, resolves and pins its host, then sets on curl:
 * CURLOPT_URL, CURLOPT_PROTOCOLS_STR, CURLOPT_FOLLOWLOCATION 0,
 * CURLOPT_PROXY "" (no environment proxy), CURLOPT_RESOLVE,
 * CURLOPT_OPENSOCKETFUNCTION and, for SMTP, CURLOPT_USE_SSL. pin must live
 * until the transfer is done. Messages name the host, never the URL (it may
 * carry a query credential). Returns 0, WG_EINVAL, WG_EDENIED, WG_EIO,
 * WG_ENOMEM. */
int wg_upstream_curl(wg_upstream_pin *pin, CURL *curl, const char *url, wg_upstream_kind kind,
                     const wg_upstream_policy *p);

/* Frees what wg_upstream_curl allocated in pin. */
void wg_upstream_pin_clear(wg_upstream_pin *pin);

/* The check of a base URL given on connect, without name resolution (that
 * happens on every call): http(s) scheme, https unless p allows http, no
 * user info, query, fragment or spaces, an ASCII host; a literal address
 * and the localhost names are checked against the policy. Messages never
 * quote the URL. Returns 0, WG_EINVAL (malformed), WG_EDENIED (refused). */
int wg_upstream_check_base_url(const char *url, const wg_upstream_policy *p);

/* The socket guard, exposed for tests: opens a socket when address is one
 * of pin's checked addresses and the policy allows it, else
 * CURL_SOCKET_BAD. clientp is the wg_upstream_pin. */
curl_socket_t wg_upstream__opensocket(void *clientp, curlsocktype purpose,
                                      struct curl_sockaddr *address);

#endif

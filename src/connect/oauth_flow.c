/* oauth_flow.c - the operator's authorization-code flow (waggle/oauth.h):
 * RFC 6749 4.1 with PKCE S256 (RFC 7636) and a loopback redirect on
 * 127.0.0.1 (RFC 8252 7.3). The state is checked before anything else in
 * the redirect is believed (RFC 6749 10.12), the code is exchanged once
 * with its verifier, and the tokens are stored in one vault transaction. */
#include "connect/oauth_int.h"
#include "waggle/error.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    REDIRECT_MAX = 8192,     /* bytes of a redirect read or pasted */
    CODE_MAX = 4096,         /* bytes of an authorization code */
    READ_TIMEOUT_MS = 5000,  /* one browser request must arrive within this */
};

static void wipe_free(char *s)
{
    if (s) {
        sodium_memzero(s, strlen(s));
        free(s);
    }
}

/* base64url without padding of n random bytes into out (cap bytes). */
static void random_b64url(char *out, size_t cap, size_t n)
{
    unsigned char r[64];
    randombytes_buf(r, n);
    sodium_bin2base64(out, cap, r, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(r, sizeof r);
}

/* RFC 8252 7.3: http://127.0.0.1:<port><path> or http://[::1]:<port><path>. */
static int loopback_uri(const char *u)
{
    const char *p = NULL;
    if (!u)
        return 0;
    if (strncmp(u, "http://127.0.0.1:", 17) == 0)
        p = u + 17;
    else if (strncmp(u, "http://[::1]:", 13) == 0)
        p = u + 13;
    if (!p)
        return 0;
    size_t digits = strspn(p, "0123456789");
    if (!digits || digits > 5 || atoi(p) < 1 || atoi(p) > 65535 || p[digits] != '/')
        return 0;
    for (const char *c = p + digits; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f || *c == '#' || *c == '?')
            return 0;
    return 1;
}

static int has_ctl(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

void wg_oauth_flow_clear(wg_oauth_flow *f)
{
    if (!f)
        return;
    wipe_free(f->client_id);
    wipe_free(f->client_secret);
    free(f->scopes);
    free(f->redirect_uri);
    free(f->token_url);
    free(f->url);
    sodium_memzero(f, sizeof *f);
}

int wg_oauth_flow_begin(wg_oauth_flow *f, const wg_connect_vault *v,
                        const wg_oauth_flow_params *p)
{
    memset(f, 0, sizeof *f);
    if (!p || !p->provider || !p->connection || strlen(p->connection) >= sizeof f->connection)
        return wg_error_set(WG_EINVAL, "a provider and a connection are required");
    if (!loopback_uri(p->redirect_uri))
        return wg_error_set(WG_EINVAL, "the redirect URI must be http://127.0.0.1:<port>/... "
                            "(RFC 8252 loopback)");
    if (!p->scopes || !*p->scopes || has_ctl(p->scopes) || strlen(p->scopes) > 4096)
        return wg_error_set(WG_EINVAL, "scopes are required (printable, 4096 bytes at most)");
    f->provider = p->provider;
    snprintf(f->connection, sizeof f->connection, "%s", p->connection);
    f->client_id = p->client_id ? strdup(p->client_id)
                                : wg_oauth__vault_get(v, p->connection, "client_id", NULL);
    f->client_secret = p->client_secret ? strdup(p->client_secret)
                                        : wg_oauth__vault_get(v, p->connection, "client_secret",
                                                              NULL);
    if (f->client_secret && !*f->client_secret) {
        free(f->client_secret);          /* an empty secret: a public client */
        f->client_secret = NULL;
    }
    int rc = 0;
    if (!f->client_id || !*f->client_id || has_ctl(f->client_id) || strlen(f->client_id) > 512)
        rc = wg_error_set(WG_EAUTH, "no usable OAuth client id for %s: pass --client-id "
                          "(from the app registered with %s)", p->connection, p->provider->name);
    else if (f->client_secret && (has_ctl(f->client_secret) || strlen(f->client_secret) > 1024))
        rc = wg_error_set(WG_EINVAL, "the client secret may not contain control characters");
    if (rc < 0) {
        wg_oauth_flow_clear(f);
        return rc;
    }
    random_b64url(f->state, sizeof f->state, 32);
    random_b64url(f->verifier, sizeof f->verifier, 32);
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)f->verifier, strlen(f->verifier));
    sodium_bin2base64(f->challenge, sizeof f->challenge, h, sizeof h,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *authz = NULL;
    f->scopes = strdup(p->scopes);
    f->redirect_uri = strdup(p->redirect_uri);
    if ((rc = wg_oauth__endpoint(&authz, v, p->connection, p->provider, "authorize_url",
                                 p->tenant)) == 0)
        rc = wg_oauth__endpoint(&f->token_url, v, p->connection, p->provider, "token_url",
                                p->tenant);
    char *q = NULL;
    if (rc == 0) {
        q = wg_oauth__form_append(q, "response_type", "code");
        q = q ? wg_oauth__form_append(q, "client_id", f->client_id) : NULL;
        q = q ? wg_oauth__form_append(q, "redirect_uri", f->redirect_uri) : NULL;
        q = q ? wg_oauth__form_append(q, "scope", f->scopes) : NULL;
        q = q ? wg_oauth__form_append(q, "state", f->state) : NULL;
        q = q ? wg_oauth__form_append(q, "code_challenge", f->challenge) : NULL;
        q = q ? wg_oauth__form_append(q, "code_challenge_method", "S256") : NULL;
        if (!q || !f->scopes || !f->redirect_uri ||
            asprintf(&f->url, "%s%c%s%s%s", authz, strchr(authz, '?') ? '&' : '?', q,
                     p->provider->authorize_params ? "&" : "",
                     p->provider->authorize_params ? p->provider->authorize_params : "") < 0) {
            f->url = NULL;
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    free(q);
    free(authz);
    if (rc < 0)
        wg_oauth_flow_clear(f);
    return rc;
}

/* ---- reading the redirect -------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent- and '+'-decodes s[0..n) (new). A %00 or a broken escape fails. */
static char *decode(const char *s, size_t n)
{
    char *o = malloc(n + 1), *w = o;
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '+') {
            *w++ = ' ';
        } else if (s[i] == '%') {
            if (i + 2 >= n) {
                free(o);
                return NULL;
            }
            int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                free(o);
                return NULL;
            }
            *w++ = (char)(hi * 16 + lo);
            i += 2;
        } else {
            *w++ = s[i];
        }
    }
    *w = 0;
    return o;
}

/* The decoded value of key in query q[0..n), new; NULL when absent. *dup
 * is set when the key appears more than once (RFC 6749 3.1), *bad when a
 * value does not decode. */
static char *param(const char *q, size_t n, const char *key, int *dup, int *bad)
{
    char *found = NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < n;) {
        size_t len = 0;
        while (i + len < n && q[i + len] != '&')
            len++;
        if (len > kl && strncmp(q + i, key, kl) == 0 && q[i + kl] == '=') {
            if (found) {
                *dup = 1;
                wipe_free(found);
                return NULL;
            }
            found = decode(q + i + kl + 1, len - kl - 1);
            if (!found)
                *bad = 1;
        }
        i += len + 1;
    }
    return found;
}

static void printable_copy(char *dst, size_t cap, const char *s)
{
    size_t k = 0;
    for (; s && *s && k + 1 < cap; s++)
        dst[k++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s;
    dst[k] = 0;
}

int wg_oauth_flow_redirect(char **code, const wg_oauth_flow *f, const char *redirect)
{
    *code = NULL;
    size_t rl = redirect ? strlen(redirect) : 0;
    if (!rl || rl > REDIRECT_MAX)
        return wg_error_set(WG_EINVAL, "the redirect is empty or longer than %d bytes",
                            REDIRECT_MAX);
    const char *q = strchr(redirect, '?');
    q = q ? q + 1 : redirect;
    size_t n = strcspn(q, "# \r\n");     /* the fragment and line end are not the query */
    int dup = 0, bad = 0;
    char *state = param(q, n, "state", &dup, &bad);
    char *err = param(q, n, "error", &dup, &bad);
    char *desc = param(q, n, "error_description", &dup, &bad);
    char *c = param(q, n, "code", &dup, &bad);
    int rc = 0;
    if (dup || bad) {
        rc = wg_error_set(WG_EINVAL, "the redirect repeats a parameter or has a broken escape");
    } else if (!state || strlen(state) != strlen(f->state) ||
               sodium_memcmp(state, f->state, strlen(f->state)) != 0) {
        /* a redirect we did not start (or one tampered with): ignore it all */
        rc = wg_error_set(WG_EAUTH, "the redirect's state %s; nothing was exchanged (a "
                          "redirect this sign-in did not start, or a stale browser tab)",
                          state ? "does not match" : "is missing");
    } else if (err) {
        char e[64], d[200];
        printable_copy(e, sizeof e, err);
        printable_copy(d, sizeof d, desc);
        rc = wg_error_set(WG_EDENIED, "%s refused the sign-in: %s%s%s", f->provider->name, e,
                          *d ? ": " : "", d);
    } else if (!c || !*c || strlen(c) > CODE_MAX || has_ctl(c)) {
        rc = wg_error_set(WG_EINVAL, "the redirect carries no usable authorization code");
    } else {
        *code = c;
        c = NULL;
    }
    wipe_free(state);
    free(err);
    free(desc);
    wipe_free(c);
    return rc;
}

/* ---- the exchange -------------------------------------------------------------- */

int wg_oauth_flow_finish(const wg_oauth_flow *f, const wg_connect_vault *v, const char *code,
                         const wg_upstream_policy *upstream, int *has_refresh)
{
    if (has_refresh)
        *has_refresh = 0;
    json_t *pairs = json_pack("[[s,s],[s,s],[s,s],[s,s],[s,s]]", "grant_type",
                              "authorization_code", "code", code, "redirect_uri",
                              f->redirect_uri, "client_id", f->client_id, "code_verifier",
                              f->verifier);
    if (pairs && f->client_secret)
        json_array_append_new(pairs, json_pack("[s,s]", "client_secret", f->client_secret));
    if (!pairs)
        return wg_error_set(WG_ENOMEM, "out of memory");
    json_t *tok = NULL;
    char *err = NULL;
    int rc = wg_oauth__post(&tok, &err, f->provider, f->token_url, pairs, f->client_id,
                            f->client_secret, upstream);
    json_decref(pairs);
    free(err);
    if (rc < 0)
        return rc;
    char n_id[160], n_secret[170];
    snprintf(n_id, sizeof n_id, "connector:%s:client_id", f->connection);
    snprintf(n_secret, sizeof n_secret, "connector:%s:client_secret", f->connection);
    wg_connect_vault_item extra[] = {
        { n_id, f->client_id, NULL },
        { n_secret, f->client_secret, NULL },     /* NULL deletes: a public client now */
    };
    json_t *meta = json_pack("{s:s,s:s}", "credentialType", "oauth2", "provider",
                             f->provider->id);
    /* the granted scopes when the answer names none: what was asked */
    if (meta && !json_object_get(tok, "scope"))
        json_object_set_new(tok, "scope", json_string(f->scopes));
    rc = meta ? wg_oauth__store(v, f->connection, f->provider, tok, meta, extra, 2)
              : wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0 && has_refresh)
        *has_refresh = json_is_string(json_object_get(tok, "refresh_token"));
    if (rc == 0 && !json_is_string(json_object_get(tok, "refresh_token"))) {
        /* no refresh token this time: forget an old one, it belongs to
         * another grant */
        char n_refresh[170];
        snprintf(n_refresh, sizeof n_refresh, "connector:%s:refresh", f->connection);
        if (v->del(v->ctx, n_refresh) < 0)
            wg_error_clear();
    }
    json_decref(meta);
    wg_oauth__token_free(tok);
    return rc;
}

/* ---- the loopback listener ------------------------------------------------------ */

struct wg_oauth_loopback {
    int fd;
    int port;
};

int wg_oauth_loopback_open(wg_oauth_loopback **out, int port)
{
    if (port < 0 || port > 65535)
        return wg_error_set(WG_EINVAL, "port must be 0..65535");
    wg_oauth_loopback *lb = calloc(1, sizeof *lb);
    if (!lb)
        return wg_error_set(WG_ENOMEM, "out of memory");
    lb->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = { 0 };
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);     /* never any other interface */
    sa.sin_port = htons((uint16_t)port);
    socklen_t sl = sizeof sa;
    if (lb->fd < 0 || bind(lb->fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(lb->fd, 8) < 0 || getsockname(lb->fd, (struct sockaddr *)&sa, &sl) < 0) {
        int e = errno;
        if (lb->fd >= 0)
            close(lb->fd);
        free(lb);
        return wg_error_set(WG_EIO, "cannot listen on 127.0.0.1:%d: %s", port, strerror(e));
    }
    lb->port = ntohs(sa.sin_port);
    *out = lb;
    return 0;
}

int wg_oauth_loopback_port(const wg_oauth_loopback *lb) { return lb ? lb->port : 0; }

int wg_oauth_loopback_fd(const wg_oauth_loopback *lb) { return lb ? lb->fd : -1; }

void wg_oauth_loopback_free(wg_oauth_loopback *lb)
{
    if (!lb)
        return;
    close(lb->fd);
    free(lb);
}

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void answer(int fd, int status, const char *text)
{
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: text/html; "
                     "charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\n"
                     "Content-Length: %zu\r\n\r\n", status, status == 200 ? "OK" : "Not Found",
                     strlen(text));
    if (write(fd, head, (size_t)n) < 0 || write(fd, text, strlen(text)) < 0)
        return;      /* the browser went away: nothing to do */
}

/* Reads one request head (bounded) from fd; its target in *target (new).
 * 0, or -1 when the request is not a readable GET. */
static int read_request(int fd, char **target, long long deadline)
{
    char buf[WG_OAUTH_LOOPBACK_REQUEST_MAX + 1];
    size_t len = 0;
    while (len < WG_OAUTH_LOOPBACK_REQUEST_MAX) {
        long long left = deadline - mono_ms();
        struct pollfd p = { fd, POLLIN, 0 };
        if (left <= 0 || poll(&p, 1, (int)(left < READ_TIMEOUT_MS ? left : READ_TIMEOUT_MS)) <= 0)
            return -1;
        ssize_t got = read(fd, buf + len, WG_OAUTH_LOOPBACK_REQUEST_MAX - len);
        if (got <= 0)
            return -1;
        len += (size_t)got;
        buf[len] = 0;
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
            break;
    }
    buf[len] = 0;
    if (strncmp(buf, "GET ", 4))
        return -1;
    char *sp = strchr(buf + 4, ' ');
    if (!sp)
        return -1;
    *target = strndup(buf + 4, (size_t)(sp - buf - 4));
    return *target ? 0 : -1;
}

int wg_oauth_loopback_wait(char **target, wg_oauth_loopback *lb, const char *path, int timeout_ms)
{
    static const char done[] =
        "<!DOCTYPE html><html><head><title>waggle</title></head><body><p>waggle received "
        "the sign-in answer. You can close this window and return to the terminal.</p>"
        "</body></html>";
    static const char other[] = "<!DOCTYPE html><html><body><p>Not found.</p></body></html>";
    *target = NULL;
    long long deadline = mono_ms() + timeout_ms;
    size_t pl = strlen(path);
    for (int tries = 0; tries < WG_OAUTH_LOOPBACK_TRIES; tries++) {
        long long left = deadline - mono_ms();
        struct pollfd p = { lb->fd, POLLIN, 0 };
        if (left <= 0)
            break;
        int pr = poll(&p, 1, (int)left);
        if (pr == 0)
            break;
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            return wg_error_set(WG_EIO, "waiting for the redirect failed: %s", strerror(errno));
        }
        int c = accept4(lb->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        char *t = NULL;
        int ok = read_request(c, &t, deadline) == 0 && strncmp(t, path, pl) == 0 &&
                 (t[pl] == '?' || t[pl] == 0);
        answer(c, ok ? 200 : 404, ok ? done : other);
        close(c);
        if (ok) {
            *target = t;
            return 0;
        }
        free(t);
    }
    return wg_error_set(WG_ETIMEOUT, "no sign-in redirect arrived on 127.0.0.1:%d%s in time",
                        lb->port, path);
}

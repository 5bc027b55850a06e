/* guard.c - the checks every request passes before routing: the Host header
 * (DNS-rebinding defence), the CORS origin list and the bearer token
 * (constant-time), plus the token files (the store's waggle/token.h). */
#include "server/server_int.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "waggle/token.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names a browser on this machine may legitimately use for the service. */
static const char *const builtin_hosts[] = { "localhost", "127.0.0.1", "::1" };

static int host_in(const char *name, size_t len, const char *candidate)
{
    return candidate && strlen(candidate) == len && strncasecmp(name, candidate, len) == 0;
}

int wg_guard__host_ok(const wg_server *srv, const char *host)
{
    if (!host || !*host)
        return 0;
    const char *name = host;
    size_t len;
    const char *rest;
    if (host[0] == '[') {                      /* [v6]:port */
        const char *close = strchr(host, ']');
        if (!close)
            return 0;
        name = host + 1;
        len = (size_t)(close - name);
        rest = close + 1;
    } else {
        len = strcspn(host, ":");
        rest = host + len;
    }
    /* The port is not what makes a rebinding attack; the name is. It must
     * still be well-formed. */
    if (*rest) {
        if (*rest != ':' || !rest[1] || strspn(rest + 1, "0123456789") != strlen(rest + 1))
            return 0;
    }
    if (len == 0)
        return 0;
    for (size_t i = 0; i < sizeof builtin_hosts / sizeof *builtin_hosts; i++)
        if (host_in(name, len, builtin_hosts[i]))
            return 1;
    if (srv->listen_host && strcmp(srv->listen_host, "0.0.0.0") != 0 &&
        strcmp(srv->listen_host, "::") != 0 && host_in(name, len, srv->listen_host))
        return 1;
    for (char **h = srv->allowed_hosts; h && *h; h++)
        if (host_in(name, len, *h))
            return 1;
    return 0;
}

int wg_guard__origin_ok(const wg_server *srv, const char *origin)
{
    if (!origin)
        return 0;
    for (char **o = srv->cors_origins; o && *o; o++)
        if (strcmp(*o, origin) == 0)
            return 1;
    return 0;
}

int wg_guard__bearer(const wg_server *srv, const char *authorization)
{
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return 0;
    const char *tok = authorization + 7;
    while (*tok == ' ')
        tok++;
    /* Hashing first makes the comparison fixed-length, so neither the
     * token's contents nor its length show in the timing. */
    unsigned char h[32];
    crypto_generichash(h, sizeof h, (const unsigned char *)tok, strlen(tok), NULL, 0);
    int api = sodium_memcmp(h, srv->api_hash, sizeof h) == 0;
    int admin = sodium_memcmp(h, srv->admin_hash, sizeof h) == 0;
    if (!*tok)
        return 0;
    return admin ? 2 : api ? 1 : 0;
}

int wg_req_is_admin(const wg_req *req)
{
    const wg_server *srv = req->ctx->priv;
    return srv && wg_guard__bearer(srv, wg_req_header(req, "Authorization")) == 2;
}

int wg_token__load_or_create(char **out, const char *data_dir, const char *name)
{
    char *path = NULL;
    int rc = wg_datadir_path(&path, data_dir, name);
    if (rc < 0)
        return rc;
    rc = wg_token_load_or_create(out, path);
    free(path);
    return rc;
}

int wg_guard__same_origin(const char *origin, const char *host)
{
    if (!origin || !host || !*host)
        return 0;
    static const char *const schemes[] = { "http://", "https://" };
    for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++) {
        size_t n = strlen(schemes[i]);
        if (strncmp(origin, schemes[i], n) == 0 && strcasecmp(origin + n, host) == 0)
            return 1;
    }
    return 0;
}

int wg_guard__host_is_loopback(const char *host)
{
    if (!host)
        return 0;
    size_t len = host[0] == '[' ? strcspn(host, "]") + 1 : strcspn(host, ":");
    static const char *const loopback[] = { "localhost", "127.0.0.1", "[::1]" };
    for (size_t i = 0; i < sizeof loopback / sizeof *loopback; i++)
        if (host_in(host, len, loopback[i]))
            return 1;
    return 0;
}

/* pgconn.c - see pgconn.h. */
#include "connect/pgconn.h"
#include "connect/upstream.h"
#include "waggle/error.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { LIST_MAX = WG_UPSTREAM_MAX_ADDRS * (WG_UPSTREAM_HOST_MAX + 2) };


/* Keywords that make libpq read a file of this machine. */
static const char *const file_keywords[] = {
    "passfile", "service", "servicefile", "sslcert", "sslcrl", "sslcrldir", "sslkey",
    "sslrootcert",
};
/* Keywords set here, whatever the conninfo says (host, hostaddr and port
 * are rebuilt from the checked addresses). */
static const char *const own_keywords[] = {
    "application_name", "connect_timeout", "host", "hostaddr", "port", "sslmode",
};
static const char *const plain_sslmodes[] = { "allow", "disable", "prefer" };

static int listed(const char *w, const char *const *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w, t[i]) == 0)
            return 1;
    return 0;
}
#define LISTED(w, t) listed((w), (t), sizeof(t) / sizeof *(t))

static const char private_hint[] =
    "the operator may allow private upstreams (waggle serve --allow-private-upstreams)";

typedef struct {
    const char *keys[WG_PG_MAX_KEYWORDS + 8];
    const char *vals[WG_PG_MAX_KEYWORDS + 8];
    size_t n;
    char host[LIST_MAX], hostaddr[LIST_MAX], port[WG_UPSTREAM_MAX_ADDRS * 7];
    size_t entries;
    const char *password;                 /* borrowed from the parse, for scrubbing */
} plan;

static int add(plan *p, const char *k, const char *v)
{
    if (p->n >= WG_PG_MAX_KEYWORDS + 7)
        return wg_error_set(WG_EINVAL, "connection string has more than %d keywords",
                            WG_PG_MAX_KEYWORDS);
    p->keys[p->n] = k;
    p->vals[p->n++] = v;
    p->keys[p->n] = p->vals[p->n] = NULL;
    return 0;
}

/* The i-th comma-separated item of list (NULL list: ""), into buf. */
static int item(char *buf, size_t cap, const char *list, size_t i)
{
    const char *s = list ? list : "";
    for (size_t k = 0; k < i; k++) {
        s = strchr(s, ',');
        if (!s)
            return -1;
        s++;
    }
    size_t n = strcspn(s, ",");
    if (n >= cap)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return 0;
}

static size_t items(const char *list)
{
    size_t n = 1;
    for (const char *s = list ? list : ""; (s = strchr(s, ',')); s++)
        n++;
    return n;
}

/* Appends one host entry to the three lists. */
static int entry(plan *p, const char *host, const char *addr, const char *port)
{
    if (p->entries == WG_UPSTREAM_MAX_ADDRS)
        return wg_error_set(WG_EINVAL, "connection string names more than %d addresses",
                            WG_UPSTREAM_MAX_ADDRS);
    const char *sep = p->entries ? "," : "";
    size_t hl = strlen(p->host), al = strlen(p->hostaddr), pl = strlen(p->port);
    if (snprintf(p->host + hl, sizeof p->host - hl, "%s%s", sep, host) >= (int)(sizeof p->host - hl) ||
        snprintf(p->hostaddr + al, sizeof p->hostaddr - al, "%s%s", sep, addr) >=
            (int)(sizeof p->hostaddr - al) ||
        snprintf(p->port + pl, sizeof p->port - pl, "%s%s", sep, port) >= (int)(sizeof p->port - pl))
        return wg_error_set(WG_EINVAL, "connection string hosts too long");
    p->entries++;
    return 0;
}

static void numeric_text(char *buf, size_t n, const struct sockaddr_storage *ss)
{
    const void *a = ss->ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
                                             : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
    if (!inet_ntop(ss->ss_family, a, buf, (socklen_t)n))
        snprintf(buf, n, "invalid");
}

/* Hosts, addresses and ports, checked and pinned. */
static int plan_hosts(plan *p, const char *hosts, const char *addrs, const char *ports,
                      const wg_upstream_policy *pol)
{
    size_t nh = items(hosts), np = items(ports);
    if (np != 1 && np != nh)
        return wg_error_set(WG_EINVAL, "connection string has %zu hosts but %zu ports", nh, np);
    if (addrs && items(addrs) != nh)
        return wg_error_set(WG_EINVAL, "connection string has hosts and hostaddrs that do not pair");
    for (size_t i = 0; i < nh; i++) {
        char h[WG_UPSTREAM_HOST_MAX + 1], a[64], pt[16];
        if (item(h, sizeof h, hosts, i) < 0 || item(pt, sizeof pt, ports, np == 1 ? 0 : i) < 0 ||
            (addrs && item(a, sizeof a, addrs, i) < 0))
            return wg_error_set(WG_EINVAL, "connection string host too long");
        if (!*pt)
            snprintf(pt, sizeof pt, "5432");
        char *end;
        long port = strtol(pt, &end, 10);
        if (*end || port < 1 || port > 65535)
            return wg_error_set(WG_EINVAL, "connection string port must be 1-65535");
        snprintf(pt, sizeof pt, "%ld", port);
        wg_upstream_pin pin = { 0 };
        if (addrs && *a) {
            /* the conninfo's own address: checked like a literal host */
            int rc = wg_upstream_resolve(&pin, a, (unsigned)port, pol);
            if (rc == 0 && !pin.literal)
                rc = wg_error_set(WG_EINVAL, "hostaddr must be a numeric address");
            if (rc < 0)
                return rc;
        } else if (!*h || h[0] == '/' || h[0] == '@') {
            /* a Unix socket: the server on this machine */
            if (!pol->allow_private)
                return wg_error_set(WG_EDENIED, "upstream refused: a Unix socket (no host, or a "
                                                "socket directory) reaches the local server; %s",
                                    private_hint);
            int rc = entry(p, h, "", pt);
            if (rc < 0)
                return rc;
            continue;
        } else {
            int rc = wg_upstream_resolve(&pin, h, (unsigned)port, pol);
            if (rc < 0)
                return rc;
        }
        for (size_t k = 0; k < pin.n; k++) {
            char text[INET6_ADDRSTRLEN];
            numeric_text(text, sizeof text, &pin.addr[k]);
            int rc = entry(p, *h ? h : text, text, pt);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

static int plan_build(plan *p, PQconninfoOption *opts, const wg_connector_call *call)
{
    static const wg_upstream_policy strict;
    const wg_upstream_policy *pol = call->upstream ? call->upstream : &strict;
    int operator_set = call->creds->token_by == WG_PRINCIPAL_OPERATOR;
    const char *hosts = NULL, *addrs = NULL, *ports = NULL, *sslmode = NULL;
    size_t kept = 0;
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val || !*o->val)
            continue;
        if (strcmp(o->keyword, "host") == 0)
            hosts = o->val;
        else if (strcmp(o->keyword, "hostaddr") == 0)
            addrs = o->val;
        else if (strcmp(o->keyword, "port") == 0)
            ports = o->val;
        else if (strcmp(o->keyword, "sslmode") == 0)
            sslmode = o->val;
        else if (strcmp(o->keyword, "password") == 0)
            p->password = o->val;
        if (LISTED(o->keyword, file_keywords) && !operator_set)
            return wg_error_set(WG_EDENIED, "%s in the connection string makes the server read a "
                                            "local file; only the operator may set it",
                                o->keyword);
        if (LISTED(o->keyword, own_keywords))
            continue;
        if (++kept > WG_PG_MAX_KEYWORDS)
            return wg_error_set(WG_EINVAL, "connection string has more than %d keywords",
                                WG_PG_MAX_KEYWORDS);
        int rc = add(p, o->keyword, o->val);
        if (rc < 0)
            return rc;
    }
    int rc = plan_hosts(p, hosts, addrs, ports, pol);
    if (rc < 0)
        return rc;
    if (!pol->allow_http && sslmode && LISTED(sslmode, plain_sslmodes))
        return wg_error_set(WG_EDENIED, "upstream refused: sslmode=%s may send the password in "
                                        "clear text; the operator may allow plain upstreams "
                                        "(waggle serve --allow-http-upstreams)", sslmode);
    if (!sslmode && !pol->allow_http)
        sslmode = "require";
    if ((rc = add(p, "host", p->host)) < 0 || (rc = add(p, "hostaddr", p->hostaddr)) < 0 ||
        (rc = add(p, "port", p->port)) < 0 ||
        (rc = add(p, "connect_timeout", WG_PG_CONNECT_TIMEOUT)) < 0 ||
        (rc = add(p, "application_name", "waggle")) < 0 ||
        (sslmode && (rc = add(p, "sslmode", sslmode)) < 0))
        return rc;
    /* never the service user's ~/.pgpass for a credential the app stored: a
     * path that cannot exist (stat fails quietly) */
    if (!operator_set)
        rc = add(p, "passfile", "/dev/null/waggle-no-passfile");
    return rc;
}

/* ---- the role ------------------------------------------------------------- */

static const char role_sql[] =
    "SELECT g.rolname::text, g.rolsuper, g.rolcreaterole, g.rolreplication, g.rolbypassrls "
    "FROM pg_catalog.pg_roles g "
    "WHERE (pg_catalog.pg_has_role(session_user, g.oid, 'MEMBER') "
    "    OR pg_catalog.pg_has_role(current_user, g.oid, 'MEMBER')) "
    "  AND (g.rolsuper OR g.rolcreaterole OR g.rolreplication OR g.rolbypassrls "
    "    OR g.rolname IN ('pg_read_server_files', 'pg_write_server_files', "
    "                     'pg_execute_server_program', 'pg_signal_backend')) "
    "UNION ALL "
    "SELECT 'owner of extension ' || e.extname, false, false, false, false "
    "FROM pg_catalog.pg_extension e "
    "WHERE e.extname IN ('dblink', 'postgres_fdw', 'file_fdw', 'adminpack', 'pg_cron', "
    "                    'plpython3u', 'plperlu', 'pltclu') "
    "  AND (pg_catalog.pg_has_role(session_user, e.extowner, 'MEMBER') "
    "    OR pg_catalog.pg_has_role(current_user, e.extowner, 'MEMBER')) "
    "ORDER BY 2 DESC, 3 DESC, 4 DESC, 5 DESC, 1 LIMIT 6";

static const char *const role_flags[] = { NULL, "superuser", "createrole", "replication",
                                          "bypassrls" };

/* 0 when the connected role holds none of the privileges above; else
 * WG_EDENIED naming them (or when they cannot be read: fail closed). */
static int inspect_role(PGconn *c)
{
    PGresult *r = PQexec(c, role_sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        PQclear(r);
        return wg_error_set(WG_EDENIED, "cannot inspect the PostgreSQL role; refused");
    }
    int n = PQntuples(r);
    if (n == 0) {
        PQclear(r);
        return 0;
    }
    char why[600] = "";
    size_t k = 0;
    for (int i = 0; i < n && k < sizeof why - 1; i++) {
        k += (size_t)snprintf(why + k, sizeof why - k, "%s%s", i ? ", " : "", PQgetvalue(r, i, 0));
        int first = 1;
        for (int f = 1; f <= 4 && k < sizeof why - 1; f++)
            if (PQgetvalue(r, i, f)[0] == 't') {
                k += (size_t)snprintf(why + k, sizeof why - k, "%s%s", first ? " (" : ", ",
                                      role_flags[f]);
                first = 0;
            }
        if (!first && k < sizeof why - 1)
            k += (size_t)snprintf(why + k, sizeof why - k, ")");
    }
    PQclear(r);
    return wg_error_set(WG_EDENIED, "the PostgreSQL role is privileged: %s%s; refused unless "
                                    "the operator allows privileged roles (waggle serve "
                                    "--allow-privileged-db-roles)",
                        why, n == 6 ? ", …" : "");
}

/* ---- opening ----------------------------------------------------------------- */

static void quiet(void *ud, const char *msg)
{
    (void)ud;
    (void)msg;
}

static json_t *scrubbed(const char *prefix, const char *msg, const wg_connector_call *call,
                        const char *password)
{
    const char *secrets[] = { call->creds->token, password, NULL };
    char *clean = NULL;
    json_t *r = NULL;
    if (wg_connector_safe_error(&clean, prefix, 0, msg, strlen(msg), secrets) == 0) {
        /* "<prefix> 0: <text>" reads "<prefix>: <text>" */
        static const char zero[] = " 0: ";
        char *z = strstr(clean, zero);
        if (z)
            memmove(z + 1, z + 3, strlen(z + 3) + 1);
        r = wg_connector_fail("%s", clean);
    }
    free(clean);
    return r;
}

PGconn *wg_pgconn__open(const wg_connector_call *call, json_t **fail, int *code)
{
    *fail = NULL;
    char *err = NULL;
    PQconninfoOption *opts = PQconninfoParse(call->creds->token, &err);
    if (!opts) {
        PQfreemem(err);   /* it may quote the credential */
        *code = WG_EINVAL;
        *fail = wg_connector_fail("PostgreSQL: the connection string is not valid (conninfo "
                                  "keywords or a postgresql:// URI)");
        return NULL;
    }
    plan *p = calloc(1, sizeof *p);
    int rc = p ? plan_build(p, opts, call) : wg_error_set(WG_ENOMEM, "out of memory");
    if (rc < 0) {
        *code = rc == WG_EIO ? WG_EUPSTREAM : rc;   /* a name that does not resolve now */
        *fail = scrubbed("PostgreSQL", wg_error_last(), call, p ? p->password : NULL);
        free(p);
        PQconninfoFree(opts);
        return NULL;
    }
    PGconn *c = PQconnectdbParams(p->keys, p->vals, 0);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        *code = c ? WG_EUPSTREAM : WG_ENOMEM;
        *fail = scrubbed("PostgreSQL connection failed", c ? PQerrorMessage(c) : "out of memory",
                         call, p->password);
        PQfinish(c);
        c = NULL;
    } else {
        PQsetNoticeProcessor(c, quiet, NULL);   /* the library never prints */
        if (!(call->grants && call->grants->allow_privileged_db_roles) &&
            (rc = inspect_role(c)) < 0) {
            *code = rc;
            *fail = wg_connector_fail("%s", wg_error_last());
            PQfinish(c);
            c = NULL;
        }
    }
    free(p);
    PQconninfoFree(opts);
    return c;
}

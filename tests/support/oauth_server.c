/* oauth_server.c - the loopback authorization + resource server of
 * oauth_server.h. libmicrohttpd, one thread per connection, state behind a
 * mutex. Written from RFC 6749 / RFC 7636 / RFC 8252 and the providers'
 * token endpoint pages; it is strict on purpose: whatever a real provider
 * would refuse, it refuses and records. */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "oauth_server.h"

enum { MAX_TOKENS = 256, BODY_MAX = 65536 };

typedef struct grant {
    char code[48], challenge[64], redirect[256], scope[512];
    int used;
} grant;

struct wgt_oauth_server {
    struct MHD_Daemon *d;
    char base[64];
    wgt_oauth_config cfg;
    char *client_id, *client_secret, *keep_field, *keep_value, *require_scope;
    pthread_mutex_t mu;
    char *refresh[MAX_TOKENS];   /* valid refresh tokens */
    size_t n_refresh;
    char *access[MAX_TOKENS];    /* valid access tokens */
    size_t n_access;
    char *last_refresh;
    char *last_token_path;
    grant grants[32];
    size_t n_grants;
    long serial;
    long n_code, n_refresh_req, n_refresh_ok, n_invalid_grant, n_api, n_api_401;
    char problem[512];
};

typedef struct {
    char *body;
    size_t len;
    int started, too_big;
} conn;

static void problem(wgt_oauth_server *s, const char *fmt, const char *a)
{
    if (!s->problem[0])
        snprintf(s->problem, sizeof s->problem, fmt, a ? a : "");
}

/* ---- form / query parsing ----------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static char *decode(const char *s, size_t n)
{
    char *o = malloc(n + 1), *w = o;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '+') {
            *w++ = ' ';
        } else if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            *w++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else {
            *w++ = s[i];
        }
    }
    *w = 0;
    return o;
}

/* "a=b&c=d" into an object; a repeated key is a violation (RFC 6749 3.1). */
static json_t *parse_form(wgt_oauth_server *s, const char *q)
{
    json_t *o = json_object();
    while (q && *q) {
        size_t n = strcspn(q, "&");
        const char *eq = memchr(q, '=', n);
        if (eq) {
            char *k = decode(q, (size_t)(eq - q));
            char *v = decode(eq + 1, n - (size_t)(eq - q) - 1);
            if (json_object_get(o, k))
                problem(s, "parameter %s repeated", k);
            json_object_set_new(o, k, json_string(v));
            free(k);
            free(v);
        }
        q += n;
        if (*q == '&')
            q++;
    }
    return o;
}

static const char *field(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ---- tokens ---------------------------------------------------------------- */

static char *mint(wgt_oauth_server *s, const char *kind)
{
    char *t = NULL;
    unsigned char r[8];
    randombytes_buf(r, sizeof r);
    char hex[17];
    sodium_bin2hex(hex, sizeof hex, r, sizeof r);
    if (asprintf(&t, "%s-%ld-%s", kind, ++s->serial, hex) < 0)
        return NULL;
    return t;
}

static int find_token(char **list, size_t n, const char *t)
{
    for (size_t i = 0; t && i < n; i++)
        if (list[i] && strcmp(list[i], t) == 0)
            return (int)i;
    return -1;
}

static void add_token(char **list, size_t *n, char *t)
{
    if (*n < MAX_TOKENS)
        list[(*n)++] = t;
    else
        free(t);
}

/* ---- responses ------------------------------------------------------------- */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, json_t *body,
                              const char *location)
{
    char *text = body ? json_dumps(body, JSON_COMPACT) : strdup("");
    json_decref(body);
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text,
                                                             MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json; charset=utf-8");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    if (location)
        MHD_add_response_header(r, "Location", location);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result oauth_error(struct MHD_Connection *c, unsigned status, const char *err,
                                   const char *desc)
{
    return answer(c, status, json_pack("{s:s,s:s}", "error", err, "error_description", desc),
                  NULL);
}

/* ---- /authorize -------------------------------------------------------------- */

static int loopback_redirect(const char *r)
{
    static const char pre[] = "http://127.0.0.1:";
    if (!r || strncmp(r, pre, sizeof pre - 1))
        return 0;
    const char *p = r + sizeof pre - 1;
    size_t digits = strspn(p, "0123456789");
    return digits > 0 && digits <= 5 && strcmp(p + digits, "/callback") == 0;
}

/* p: the decoded query parameters (stolen). */
static enum MHD_Result authorize(wgt_oauth_server *s, struct MHD_Connection *c, json_t *p)
{
    const char *redirect = field(p, "redirect_uri"), *state = field(p, "state");
    const char *challenge = field(p, "code_challenge");
    enum MHD_Result ret;
    pthread_mutex_lock(&s->mu);
    const char *bad = NULL;
    if (!field(p, "response_type") || strcmp(field(p, "response_type"), "code"))
        bad = "response_type must be code";
    else if (!field(p, "client_id") || strcmp(field(p, "client_id"), s->client_id))
        bad = "unknown client_id";
    else if (!loopback_redirect(redirect))
        bad = "redirect_uri is not http://127.0.0.1:<port>/callback";
    else if (!state || strlen(state) < 22)
        bad = "state missing or short";
    else if (!field(p, "code_challenge_method") || strcmp(field(p, "code_challenge_method"), "S256"))
        bad = "code_challenge_method must be S256";
    else if (!challenge || strlen(challenge) != 43)
        bad = "code_challenge must be 43 base64url characters";
    else if (!field(p, "scope") || !*field(p, "scope"))
        bad = "scope missing";
    if (bad) {
        problem(s, "authorize: %s", bad);
        pthread_mutex_unlock(&s->mu);
        json_decref(p);
        return oauth_error(c, 400, "invalid_request", bad);
    }
    char *loc = NULL;
    if (s->cfg.deny) {
        if (asprintf(&loc, "%s?error=access_denied&error_description=The%%20user%%20denied%%20"
                     "access&state=%s", redirect, state) < 0)
            loc = NULL;
    } else if (s->n_grants < sizeof s->grants / sizeof *s->grants) {
        grant *g = &s->grants[s->n_grants++];
        char *code = mint(s, "code");
        snprintf(g->code, sizeof g->code, "%s", code);
        free(code);
        snprintf(g->challenge, sizeof g->challenge, "%s", challenge);
        snprintf(g->redirect, sizeof g->redirect, "%s", redirect);
        snprintf(g->scope, sizeof g->scope, "%s", field(p, "scope"));
        if (asprintf(&loc, "%s?code=%s&state=%s", redirect, g->code, state) < 0)
            loc = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    ret = answer(c, 302, NULL, loc);
    free(loc);
    json_decref(p);
    return ret;
}

/* ---- /token ------------------------------------------------------------------ */

/* Client authentication as configured (RFC 6749 2.3.1). NULL when fine. */
static const char *client_auth(wgt_oauth_server *s, struct MHD_Connection *c, const json_t *p)
{
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (s->cfg.client_basic) {
        if (field(p, "client_secret"))
            return "client_secret in the body as well as Basic";
        if (!auth || strncmp(auth, "Basic ", 6))
            return "no Basic client authentication";
        unsigned char bin[512];
        size_t bl = 0;
        if (sodium_base642bin(bin, sizeof bin - 1, auth + 6, strlen(auth + 6), NULL, &bl, NULL,
                              sodium_base64_VARIANT_ORIGINAL))
            return "Basic credentials are not base64";
        bin[bl] = 0;
        char want[512];
        snprintf(want, sizeof want, "%s:%s", s->client_id, s->client_secret ? s->client_secret : "");
        return strcmp((char *)bin, want) ? "wrong Basic client credentials" : NULL;
    }
    if (auth)
        return "an Authorization header on a body-authenticated client";
    if (!field(p, "client_id") || strcmp(field(p, "client_id"), s->client_id))
        return "wrong client_id";
    if (s->client_secret &&
        (!field(p, "client_secret") || strcmp(field(p, "client_secret"), s->client_secret)))
        return "wrong client_secret";
    return NULL;
}

static json_t *issue(wgt_oauth_server *s, const char *scope, int with_refresh)
{
    char *a = mint(s, "access");
    json_t *r = json_pack("{s:s,s:s,s:i}", "access_token", a, "token_type", "Bearer",
                          "expires_in", s->cfg.expires_in ? s->cfg.expires_in : 3600);
    add_token(s->access, &s->n_access, a);
    if (scope)
        json_object_set_new(r, "scope", json_string(scope));
    if (with_refresh) {
        char *rt = mint(s, "refresh");
        json_object_set_new(r, "refresh_token", json_string(rt));
        free(s->last_refresh);
        s->last_refresh = strdup(rt);
        add_token(s->refresh, &s->n_refresh, rt);
    }
    if (s->keep_field)
        json_object_set_new(r, s->keep_field, json_string(s->keep_value));
    return r;
}

static void sha256_b64url(char out[64], const char *verifier)
{
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)verifier, strlen(verifier));
    sodium_bin2base64(out, 64, h, sizeof h, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

static enum MHD_Result token(wgt_oauth_server *s, struct MHD_Connection *c, conn *k)
{
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    json_t *p = NULL;
    if (s->cfg.json_body) {
        if (!ct || strncmp(ct, "application/json", 16))
            problem(s, "token: content type %s, not JSON", ct);
        p = k->len ? json_loadb(k->body, k->len, 0, NULL) : NULL;
        if (!p)
            p = json_object();
    } else {
        if (!ct || strncmp(ct, "application/x-www-form-urlencoded", 33))
            problem(s, "token: content type %s, not a form", ct);
        p = parse_form(s, k->body ? k->body : "");
    }
    if (s->cfg.delay_ms) {
        struct timespec ts = { s->cfg.delay_ms / 1000, (s->cfg.delay_ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
    }
    const char *gt = field(p, "grant_type");
    pthread_mutex_lock(&s->mu);
    const char *bad = client_auth(s, c, p);
    if (bad) {
        problem(s, "token: %s", bad);
        pthread_mutex_unlock(&s->mu);
        json_decref(p);
        return oauth_error(c, 401, "invalid_client", bad);
    }
    if (gt && strcmp(gt, "refresh_token") == 0) {
        s->n_refresh_req++;
        int i = find_token(s->refresh, s->n_refresh, field(p, "refresh_token"));
        if (s->require_scope && (!field(p, "scope") || !strstr(field(p, "scope"), s->require_scope)))
            problem(s, "token: refresh without scope %s", s->require_scope);
        if (i < 0) {
            s->n_invalid_grant++;
            pthread_mutex_unlock(&s->mu);
            json_decref(p);
            return oauth_error(c, 400, "invalid_grant", "Token has been expired or revoked.");
        }
        if (s->cfg.rotate) {
            free(s->refresh[i]);
            s->refresh[i] = NULL;
        }
        s->n_refresh_ok++;
        json_t *r = issue(s, field(p, "scope"), s->cfg.rotate);
        pthread_mutex_unlock(&s->mu);
        json_decref(p);
        return answer(c, 200, r, NULL);
    }
    if (gt && strcmp(gt, "authorization_code") == 0) {
        s->n_code++;
        grant *g = NULL;
        for (size_t i = 0; i < s->n_grants; i++)
            if (field(p, "code") && strcmp(s->grants[i].code, field(p, "code")) == 0)
                g = &s->grants[i];
        char want[64] = "";
        if (field(p, "code_verifier"))
            sha256_b64url(want, field(p, "code_verifier"));
        const char *why = !g ? "unknown code"
                        : g->used ? "code used twice"
                        : !field(p, "redirect_uri") || strcmp(field(p, "redirect_uri"), g->redirect)
                            ? "redirect_uri differs from the authorization request"
                        : !field(p, "code_verifier") ? "no code_verifier"
                        : strcmp(want, g->challenge) ? "code_verifier does not match the challenge"
                        : NULL;
        if (why) {
            problem(s, "token: %s", why);
            pthread_mutex_unlock(&s->mu);
            json_decref(p);
            return oauth_error(c, 400, "invalid_grant", why);
        }
        g->used = 1;
        json_t *r = issue(s, g->scope, 1);
        pthread_mutex_unlock(&s->mu);
        json_decref(p);
        return answer(c, 200, r, NULL);
    }
    problem(s, "token: grant_type %s", gt);
    pthread_mutex_unlock(&s->mu);
    json_decref(p);
    return oauth_error(c, 400, "unsupported_grant_type", "grant_type");
}

/* ---- the resource ---------------------------------------------------------------- */

static enum MHD_Result resource(wgt_oauth_server *s, struct MHD_Connection *c)
{
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    pthread_mutex_lock(&s->mu);
    s->n_api++;
    int ok = !s->cfg.refuse_api && auth && strncmp(auth, "Bearer ", 7) == 0 &&
             find_token(s->access, s->n_access, auth + 7) >= 0;
    if (!ok)
        s->n_api_401++;
    pthread_mutex_unlock(&s->mu);
    if (!ok)
        return answer(c, 401, json_pack("{s:{s:s,s:s}}", "error", "code",
                                         "InvalidAuthenticationToken", "message",
                                         "Access token has expired or is not yet valid."), NULL);
    return answer(c, 200, json_pack("{s:b}", "ok", 1), NULL);
}

/* ---- the daemon -------------------------------------------------------------------- */

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)version;
    wgt_oauth_server *s = cls;
    conn *k = *con_cls;
    if (!k) {
        k = calloc(1, sizeof *k);
        *con_cls = k;
        return MHD_YES;
    }
    if (*upload_size) {
        if (k->len + *upload_size > BODY_MAX) {
            k->too_big = 1;
        } else {
            k->body = realloc(k->body, k->len + *upload_size + 1);
            memcpy(k->body + k->len, upload, *upload_size);
            k->len += *upload_size;
            k->body[k->len] = 0;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (k->too_big)
        return oauth_error(c, 413, "invalid_request", "body too large");
    size_t ulen = strlen(url);
    if (strcmp(method, "GET") == 0 && ulen >= 10 && strcmp(url + ulen - 10, "/authorize") == 0) {
        static const char *const names[] = { "response_type", "client_id", "redirect_uri",
                                             "scope", "state", "code_challenge",
                                             "code_challenge_method" };
        json_t *p = json_object();
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, names[i]);
            if (v)
                json_object_set_new(p, names[i], json_string(v));
        }
        return authorize(s, c, p);
    }
    size_t ul = strlen(url);
    if (strcmp(method, "POST") == 0 && ul >= 6 && strcmp(url + ul - 6, "/token") == 0) {
        pthread_mutex_lock(&s->mu);
        free(s->last_token_path);
        s->last_token_path = strdup(url);
        pthread_mutex_unlock(&s->mu);
        return token(s, c, k);
    }
    if (strcmp(method, "GET") == 0 && strncmp(url, "/api/", 5) == 0)
        return resource(s, c);
    return answer(c, 404, json_pack("{s:s}", "error", "not found"), NULL);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)c;
    (void)t;
    conn *k = *con_cls;
    if (k) {
        free(k->body);
        free(k);
    }
    *con_cls = NULL;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

wgt_oauth_server *wgt_oauth_start(const wgt_oauth_config *cfg)
{
    if (sodium_init() < 0)
        return NULL;
    wgt_oauth_server *s = calloc(1, sizeof *s);
    s->cfg = *cfg;
    s->client_id = strdup(cfg->client_id ? cfg->client_id : "client-1");
    s->client_secret = dup_or_null(cfg->client_secret);
    s->keep_field = dup_or_null(cfg->keep_field);
    s->keep_value = dup_or_null(cfg->keep_value);
    s->require_scope = dup_or_null(cfg->require_scope);
    pthread_mutex_init(&s->mu, NULL);
    struct sockaddr_in sa = { 0 };
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                                MHD_USE_AUTO,
                            0, NULL, NULL, handler, s, MHD_OPTION_SOCK_ADDR,
                            (struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED, completed, s,
                            MHD_OPTION_END);
    if (!s->d) {
        wgt_oauth_stop(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%u", (unsigned)info->port);
    return s;
}

void wgt_oauth_stop(wgt_oauth_server *s)
{
    if (!s)
        return;
    if (s->d)
        MHD_stop_daemon(s->d);
    for (size_t i = 0; i < s->n_refresh; i++)
        free(s->refresh[i]);
    for (size_t i = 0; i < s->n_access; i++)
        free(s->access[i]);
    free(s->last_refresh);
    free(s->last_token_path);
    free(s->client_id);
    free(s->client_secret);
    free(s->keep_field);
    free(s->keep_value);
    free(s->require_scope);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

const char *wgt_oauth_base(const wgt_oauth_server *s) { return s->base; }

void wgt_oauth_seed(wgt_oauth_server *s, const char *refresh_token, const char *stale_access)
{
    (void)stale_access;     /* never added: the resource refuses it */
    pthread_mutex_lock(&s->mu);
    add_token(s->refresh, &s->n_refresh, strdup(refresh_token));
    free(s->last_refresh);
    s->last_refresh = strdup(refresh_token);
    pthread_mutex_unlock(&s->mu);
}

void wgt_oauth_revoke_access(wgt_oauth_server *s)
{
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->n_access; i++) {
        free(s->access[i]);
        s->access[i] = NULL;
    }
    pthread_mutex_unlock(&s->mu);
}

long wgt_oauth_count(wgt_oauth_server *s, const char *what)
{
    static const struct { const char *name; size_t off; } counters[] = {
        { "code", offsetof(wgt_oauth_server, n_code) },
        { "refresh", offsetof(wgt_oauth_server, n_refresh_req) },
        { "refresh_ok", offsetof(wgt_oauth_server, n_refresh_ok) },
        { "invalid_grant", offsetof(wgt_oauth_server, n_invalid_grant) },
        { "api", offsetof(wgt_oauth_server, n_api) },
        { "api_401", offsetof(wgt_oauth_server, n_api_401) },
    };
    long v = -1;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < sizeof counters / sizeof *counters; i++)
        if (strcmp(counters[i].name, what) == 0)
            v = *(long *)((char *)s + counters[i].off);
    pthread_mutex_unlock(&s->mu);
    return v;
}

const char *wgt_oauth_problem(wgt_oauth_server *s)
{
    pthread_mutex_lock(&s->mu);
    const char *p = s->problem[0] ? s->problem : NULL;
    pthread_mutex_unlock(&s->mu);
    return p;
}

char *wgt_oauth_last_refresh(wgt_oauth_server *s)
{
    pthread_mutex_lock(&s->mu);
    char *r = dup_or_null(s->last_refresh);
    pthread_mutex_unlock(&s->mu);
    return r;
}

char *wgt_oauth_last_token_path(wgt_oauth_server *s)
{
    pthread_mutex_lock(&s->mu);
    char *r = dup_or_null(s->last_token_path);
    pthread_mutex_unlock(&s->mu);
    return r;
}

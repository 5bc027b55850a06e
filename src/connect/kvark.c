/* kvark.c - the KVARK client (waggle/kvark.h; spec 9, reference 2.1-2.3):
 * the kvark:connection parser, login with a cached bearer token, the five
 * endpoints, bounded retries, and the mapping of every failure to one of
 * the five error kinds. The tools that format answers for the agent are in
 * kvark_tools.c.
 *
 * Requests go through the REST engine's one sender (rest.c wg_rest_send),
 * so a KVARK call gets what every connector gets: the upstream policy
 * (resolve, check, pin; no redirects, no proxies), CR/LF refused in
 * headers, a response cap, and no credential in an error message.
 *
 * Where this differs from the original on purpose (reference 13 item 20):
 * the base URL loses every trailing '/' once, for login too; a 429 waits
 * what the Retry-After header says, not what the body says; a cached token
 * belongs to one (baseUrl, identifier, password) and is dropped when the
 * configuration changes; a login answered 5xx is "unavailable", not an
 * authentication failure.
 */
#include "connect/rest.h"
#include "connect/upstream.h"
#include "waggle/error.h"
#include "waggle/kvark.h"

#include <pthread.h>
#include <stdarg.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- configuration -------------------------------------------------------- */

void wg_kvark_config_clear(wg_kvark_config *c)
{
    if (!c)
        return;
    if (c->password)
        sodium_memzero(c->password, strlen(c->password));
    free(c->base_url);
    free(c->identifier);
    free(c->password);
    memset(c, 0, sizeof *c);
}

/* A required non-empty string field without control characters. */
static int take_field(char **out, const json_t *o, const char *name)
{
    const json_t *v = json_object_get(o, name);
    if (!json_is_string(v))
        return wg_error_set(WG_EINVAL, "kvark:connection: %s must be a string", name);
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (n == 0)
        return wg_error_set(WG_EINVAL, "kvark:connection: %s is empty", name);
    if (n > WG_KVARK_FIELD_MAX)
        return wg_error_set(WG_EINVAL, "kvark:connection: %s is longer than %d bytes", name,
                            WG_KVARK_FIELD_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return wg_error_set(WG_EINVAL, "kvark:connection: %s contains a control character",
                                name);
    if (!(*out = strdup(s)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    return 0;
}

static int take_timeout(long *out, const json_t *o)
{
    const json_t *v = json_object_get(o, "timeoutMs");
    *out = WG_KVARK_TIMEOUT_DEFAULT_MS;
    if (!json_is_number(v))
        return 0;       /* reference 2.1: a non-number ("5") is ignored */
    double d = json_number_value(v);
    if (d != (double)(long)d || d < 1 || d > WG_KVARK_TIMEOUT_MAX_MS)
        return wg_error_set(WG_EINVAL, "kvark:connection: timeoutMs must be a whole number of "
                            "milliseconds from 1 to %d", WG_KVARK_TIMEOUT_MAX_MS);
    *out = (long)d;
    return 0;
}

int wg_kvark_config_parse(wg_kvark_config *out, const char *text, size_t len)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "wg_kvark_config_parse: NULL argument");
    memset(out, 0, sizeof *out);
    if (!text || len == 0)
        return wg_error_set(WG_EINVAL, "kvark:connection is empty");
    if (len > WG_KVARK_CONNECTION_MAX)
        return wg_error_set(WG_EINVAL, "kvark:connection is longer than %d bytes",
                            WG_KVARK_CONNECTION_MAX);
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    wg_kvark_config c = { 0 };
    int rc;
    if (!json_is_object(o))
        rc = wg_error_set(WG_EINVAL, "kvark:connection is not a JSON object");
    else if ((rc = take_field(&c.base_url, o, "baseUrl")) == 0 &&
             (rc = take_field(&c.identifier, o, "identifier")) == 0 &&
             (rc = take_field(&c.password, o, "password")) == 0)
        rc = take_timeout(&c.timeout_ms, o);
    json_decref(o);   /* the password's copy inside jansson is not ours to wipe */
    if (rc == 0) {
        size_t n = strlen(c.base_url);
        while (n > 0 && c.base_url[n - 1] == '/')
            c.base_url[--n] = 0;
        /* the syntax only (scheme, no user info, query, fragment): addresses
         * are the upstream policy's at every call, under the operator's
         * options - which this parser does not know */
        wg_upstream_policy any = { .allow_private = 1, .allow_http = 1 };
        if (n == 0 || strstr(c.base_url, "://") == NULL)
            rc = wg_error_set(WG_EINVAL, "kvark:connection: baseUrl must be an http(s) URL");
        else if (wg_upstream_check_base_url(c.base_url, &any) < 0)
            rc = wg_error_set(WG_EINVAL, "kvark:connection: baseUrl is not usable: %s",
                              wg_error_last());
    }
    if (rc < 0) {
        wg_kvark_config_clear(&c);
        return rc;
    }
    *out = c;
    return 0;
}

/* ---- errors ------------------------------------------------------------------ */

static const char *const kind_names[] = {
    "", "KvarkUnavailableError", "KvarkAuthError", "KvarkNotImplementedError",
    "KvarkNotFoundError", "KvarkServerError",
};

const char *wg_kvark_error_name(wg_kvark_error_kind kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind] : "";
}

static int fail(wg_kvark_error *err, wg_kvark_error_kind kind, long status, int code,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail(wg_kvark_error *err, wg_kvark_error_kind kind, long status, int code,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->kind = kind;
    err->status = status;
    return wg_error_set(code, "%s", err->message);
}

/* ---- the client -------------------------------------------------------------- */

struct wg_kvark {
    wg_upstream_policy upstream;
    int retries;
    long backoff_ms;
    pthread_mutex_t mu;          /* token, fp, generation */
    pthread_mutex_t login_mu;    /* one login at a time */
    char *token;
    unsigned char fp[crypto_generichash_BYTES];
    unsigned long generation;    /* bumped by every login */
};

int wg_kvark_new(wg_kvark **out, const wg_kvark_options *o)
{
    wg_kvark_options def = WG_KVARK_OPTIONS_INIT;
    if (!o)
        o = &def;
    if (!out || o->version != WG_KVARK_OPTIONS_VERSION)
        return wg_error_set(WG_EINVAL, "wg_kvark_new: options need WG_KVARK_OPTIONS_INIT");
    if (o->retries > WG_KVARK_RETRIES_MAX || o->backoff_ms < 0)
        return wg_error_set(WG_EINVAL, "wg_kvark_new: retries at most %d, backoff not negative",
                            WG_KVARK_RETRIES_MAX);
    if (sodium_init() < 0)
        return wg_error_set(WG_EINTERNAL, "libsodium failed to initialise");
    wg_kvark *k = calloc(1, sizeof *k);
    if (!k)
        return wg_error_set(WG_ENOMEM, "out of memory");
    k->upstream = o->upstream;
    k->retries = o->retries == 0 ? WG_KVARK_RETRIES_DEFAULT : o->retries < 0 ? 0 : o->retries;
    k->backoff_ms = o->backoff_ms ? o->backoff_ms : 500;
    pthread_mutex_init(&k->mu, NULL);
    pthread_mutex_init(&k->login_mu, NULL);
    *out = k;
    return 0;
}

static void drop_token(wg_kvark *k)
{
    if (k->token) {
        sodium_memzero(k->token, strlen(k->token));
        free(k->token);
        k->token = NULL;
    }
}

void wg_kvark_free(wg_kvark *k)
{
    if (!k)
        return;
    drop_token(k);
    pthread_mutex_destroy(&k->mu);
    pthread_mutex_destroy(&k->login_mu);
    free(k);
}

/* Which KVARK and identity a token belongs to. */
static void fingerprint(unsigned char fp[crypto_generichash_BYTES], const wg_kvark_config *cfg)
{
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, crypto_generichash_BYTES);
    const char *parts[] = { cfg->base_url, cfg->identifier, cfg->password };
    for (size_t i = 0; i < 3; i++)
        crypto_generichash_update(&st, (const unsigned char *)parts[i], strlen(parts[i]) + 1);
    crypto_generichash_final(&st, fp, crypto_generichash_BYTES);
}

/* A copy of the cached token for cfg (new in *tok, NULL when none). */
static void cached(char **tok, unsigned long *gen, wg_kvark *k, const wg_kvark_config *cfg)
{
    unsigned char fp[crypto_generichash_BYTES];
    fingerprint(fp, cfg);
    pthread_mutex_lock(&k->mu);
    if (k->token && sodium_memcmp(fp, k->fp, sizeof fp) != 0)
        drop_token(k);      /* another configuration: its token is not for this one */
    *tok = k->token ? strdup(k->token) : NULL;
    *gen = k->generation;
    pthread_mutex_unlock(&k->mu);
}

static void wipe(char *s)
{
    if (s) {
        sodium_memzero(s, strlen(s));
        free(s);
    }
}

/* ---- one exchange -------------------------------------------------------------- */

static const char *const accept_json[] = { "Accept: application/json", NULL };

static const wg_rest_spec kvark_rest = {
    .auth = WG_REST_AUTH_BEARER, .headers = accept_json, .error_prefix = "KVARK",
};

/* Not registered: the connector view of KVARK the REST sender needs. It is
 * self-hostable (docs/security.md 2.2): the base URL comes from the vault. */
static const wg_connector_spec kvark_spec = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "kvark", .name = "KVARK", .description = "KVARK enterprise retrieval",
    .service = "kvark", .auth_type = WG_AUTH_BEARER, .self_hostable = 1,
};

typedef struct kreq {
    wg_rest_method method;
    const char *path;            /* constant: no inputs in KVARK's paths */
    const json_t *params;        /* query inputs */
    const char *query;           /* query spec (rest.h) */
    const json_t *body;
    int no_auth;                 /* the login itself */
} kreq;

static const char *const method_names[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };

static int send_one(wg_rest_response *r, wg_kvark_error *err, wg_kvark *k,
                    const wg_kvark_config *cfg, const kreq *q, const char *token)
{
    wg_connector_creds creds = { .token = (char *)(token ? token : ""),
                                 .base_url = cfg->base_url,
                                 .base_url_by = WG_PRINCIPAL_OPERATOR };
    wg_connector_call call = { .spec = &kvark_spec, .creds = &creds, .upstream = &k->upstream };
    wg_rest_ctx ctx = { &call, &kvark_rest, NULL };
    wg_rest_req req = { .method = q->method, .path = q->path, .params = q->params,
                        .query = q->query, .body = q->body, .no_auth = q->no_auth,
                        .timeout_s = (int)((cfg->timeout_ms + 999) / 1000) };
    int rc = wg_rest_send(r, &ctx, &req);
    if (rc == 0 || rc == WG_ENOMEM || rc == WG_EINVAL)
        return rc;
    const char *m = method_names[q->method];
    if (rc == WG_ETIMEOUT)
        return fail(err, WG_KVARK_ERR_UNAVAILABLE, 0, rc, "KVARK request timed out: %s %s", m,
                    q->path);
    if (rc == WG_EUPSTREAM)
        return fail(err, WG_KVARK_ERR_SERVER, 0, rc, "%s", wg_error_last());
    /* WG_EIO (no connection) and WG_EDENIED (the upstream policy said no):
     * the messages name the host and the rule, never a credential */
    char why[400];
    snprintf(why, sizeof why, "%s", wg_error_last());
    return fail(err, WG_KVARK_ERR_UNAVAILABLE, 0, rc == WG_EDENIED ? rc : WG_EIO,
                "KVARK unreachable: %s", why);
}

/* The upstream's explanation: {"detail": "..."} or the body, scrubbed and
 * cut (no credential, no control character, at most 500 bytes). */
static void detail_of(char *dst, size_t cap, const wg_rest_response *r, const wg_kvark_config *cfg,
                      const char *token)
{
    const json_t *d = json_object_get(r->json, "detail");
    const char *text = json_is_string(d) ? json_string_value(d) : r->text ? r->text : "";
    size_t len = json_is_string(d) ? json_string_length(d) : r->text ? r->len : 0;
    const char *secrets[] = { cfg->password, token, NULL };
    char *clean = NULL;
    dst[0] = 0;
    if (wg_connector_safe_error(&clean, "", 0, text, len, secrets) == 0) {
        /* safe_error writes " 0: <text>" (or " 0" when empty) */
        const char *p = strncmp(clean, " 0: ", 4) == 0 ? clean + 4 : "";
        snprintf(dst, cap, "%s", p);
    }
    free(clean);
}

/* reference 2.3 handleResponse, for a final (not retried) answer. */
static int handle(json_t **out, wg_kvark_error *err, wg_rest_response *r,
                  const wg_kvark_config *cfg, const char *token)
{
    long s = r->status;
    if (s >= 200 && s < 300) {
        if (!json_is_object(r->json))
            return fail(err, WG_KVARK_ERR_SERVER, s, WG_EUPSTREAM,
                        "KVARK answered %ld without a JSON object", s);
        *out = json_incref(r->json);
        return 0;
    }
    char d[512];
    detail_of(d, sizeof d, r, cfg, token);
    if (s == 401)
        return fail(err, WG_KVARK_ERR_AUTH, s, WG_EAUTH, "%s", d);
    if (s == 403)
        return fail(err, WG_KVARK_ERR_SERVER, s, WG_EUPSTREAM,
                    "KVARK access denied (forbidden): %s", d);
    if (s == 404)
        return fail(err, WG_KVARK_ERR_NOT_FOUND, s, WG_ENOTFOUND, "%s", d);
    if (s == 429) {
        err->retry_after_s = wg_rest_retry_after(r->retry_after, (long long)time(NULL));
        return fail(err, WG_KVARK_ERR_SERVER, s, WG_EUPSTREAM, "KVARK rate limited: %s", d);
    }
    if (s == 501)
        return fail(err, WG_KVARK_ERR_NOT_IMPLEMENTED, s, WG_EUNSUPPORTED, "%s", d);
    if (s >= 500)
        return fail(err, WG_KVARK_ERR_SERVER, s, WG_EUPSTREAM, "%s", d);
    return fail(err, WG_KVARK_ERR_SERVER, s, WG_EUPSTREAM, "KVARK error (%ld): %s", s, d);
}

/* ---- login ------------------------------------------------------------------------ */

static int do_login(wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg)
{
    json_t *body = json_pack("{s:s,s:s}", "identifier", cfg->identifier, "password",
                             cfg->password);
    if (!body)
        return wg_error_set(WG_ENOMEM, "out of memory");
    kreq q = { WG_REST_POST, "/api/auth/login", NULL, NULL, body, 1 };
    wg_rest_response r;
    int rc = send_one(&r, err, k, cfg, &q, NULL);
    json_decref(body);
    if (rc < 0)
        return rc;
    const json_t *tok = json_object_get(r.json, "access_token");
    const json_t *why = json_object_get(r.json, "error");
    if (r.status >= 500) {
        rc = fail(err, WG_KVARK_ERR_UNAVAILABLE, r.status, WG_EIO, "KVARK login failed (%ld)",
                  r.status);
    } else if (r.status < 200 || r.status >= 300) {
        char d[512];
        detail_of(d, sizeof d, &r, cfg, NULL);
        rc = fail(err, WG_KVARK_ERR_AUTH, r.status, WG_EAUTH, "KVARK login failed (%ld): %s",
                  r.status, d);
    } else if (json_is_false(json_object_get(r.json, "success")) || !json_is_string(tok) ||
               json_string_length(tok) == 0 || json_string_length(tok) > WG_KVARK_FIELD_MAX ||
               strpbrk(json_string_value(tok), "\r\n")) {
        char d[512] = "KVARK login returned no token";
        if (json_is_string(why)) {
            wg_rest_response w = { .json = (json_t *)why, .text = (char *)json_string_value(why),
                                   .len = json_string_length(why) };
            detail_of(d, sizeof d, &w, cfg, NULL);
        }
        rc = fail(err, WG_KVARK_ERR_AUTH, r.status, WG_EAUTH, "%s", d);
    } else {
        char *t = strdup(json_string_value(tok));
        if (!t) {
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        } else {
            pthread_mutex_lock(&k->mu);
            drop_token(k);
            k->token = t;
            fingerprint(k->fp, cfg);
            k->generation++;
            pthread_mutex_unlock(&k->mu);
        }
    }
    wg_rest_response_clear(&r);
    return rc;
}

/* Logs in unless another thread already did since generation `seen`. */
static int login_after(wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                       unsigned long seen)
{
    pthread_mutex_lock(&k->login_mu);
    char *tok = NULL;
    unsigned long gen = 0;
    cached(&tok, &gen, k, cfg);
    int rc = 0;
    if (!tok || gen == seen)
        rc = do_login(err, k, cfg);
    wipe(tok);
    pthread_mutex_unlock(&k->login_mu);
    return rc;
}

int wg_kvark_login(wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg)
{
    if (!err || !k || !cfg || !cfg->base_url)
        return wg_error_set(WG_EINVAL, "wg_kvark_login: NULL argument");
    memset(err, 0, sizeof *err);
    err->retry_after_s = -1;
    pthread_mutex_lock(&k->login_mu);
    int rc = do_login(err, k, cfg);
    pthread_mutex_unlock(&k->login_mu);
    return rc;
}

/* ---- the request loop ------------------------------------------------------------ */

static int retryable(long s)
{
    return s == 429 || (s >= 500 && s != 501);
}

static void pause_before(const wg_kvark *k, const wg_rest_response *r, int attempt)
{
    long ra = wg_rest_retry_after(r->retry_after, (long long)time(NULL));
    long ms = ra >= 0 ? ra * 1000 : k->backoff_ms << attempt;
    if (ms > WG_KVARK_BACKOFF_CAP_MS || ms < 0)
        ms = WG_KVARK_BACKOFF_CAP_MS;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int request(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                   const kreq *q)
{
    if (!out || !err || !k || !cfg || !cfg->base_url)
        return wg_error_set(WG_EINVAL, "wg_kvark: NULL argument");
    memset(err, 0, sizeof *err);
    err->retry_after_s = -1;
    int rc = 0;
    for (int relogin = 0; relogin < 2; relogin++) {
        char *tok = NULL;
        unsigned long gen = 0;
        cached(&tok, &gen, k, cfg);
        if (!tok) {
            if ((rc = login_after(err, k, cfg, gen)) < 0)
                return rc;
            cached(&tok, &gen, k, cfg);
            if (!tok)
                return fail(err, WG_KVARK_ERR_AUTH, 0, WG_EAUTH, "KVARK login returned no token");
        }
        wg_rest_response r;
        int attempt = 0;
        for (;;) {
            if ((rc = send_one(&r, err, k, cfg, q, tok)) < 0) {
                wipe(tok);
                return rc;
            }
            if (!retryable(r.status) || attempt >= k->retries)
                break;
            pause_before(k, &r, attempt++);
            wg_rest_response_clear(&r);
        }
        if (r.status == 401) {
            wg_rest_response_clear(&r);
            wipe(tok);
            if (relogin == 1)
                return fail(err, WG_KVARK_ERR_AUTH, 401, WG_EAUTH,
                            "KVARK authentication failed after re-login");
            if ((rc = login_after(err, k, cfg, gen)) < 0)
                return rc;
            continue;
        }
        if (r.status == 429 && attempt > 0) {
            err->retry_after_s = wg_rest_retry_after(r.retry_after, (long long)time(NULL));
            rc = fail(err, WG_KVARK_ERR_SERVER, 429, WG_EUPSTREAM,
                      "KVARK rate limit exceeded after %d retries", attempt);
        } else {
            rc = handle(out, err, &r, cfg, tok);
        }
        wg_rest_response_clear(&r);
        wipe(tok);
        return rc;
    }
    return rc;
}

/* ---- the endpoints (reference 2.2) --------------------------------------------- */

int wg_kvark_me(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg)
{
    kreq q = { WG_REST_GET, "/api/auth/me", NULL, NULL, NULL, 0 };
    return request(out, err, k, cfg, &q);
}

int wg_kvark_search(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                    const char *query, int limit, int offset)
{
    if (!query)
        return wg_error_set(WG_EINVAL, "wg_kvark_search: NULL query");
    json_t *p = json_pack("{s:s}", "q", query);
    if (p && limit > 0)
        json_object_set_new(p, "limit", json_integer(limit));
    if (p && offset > 0)
        json_object_set_new(p, "offset", json_integer(offset));
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    kreq q = { WG_REST_GET, "/api/search", p, "q limit offset", NULL, 0 };
    int rc = request(out, err, k, cfg, &q);
    json_decref(p);
    return rc;
}

int wg_kvark_feedback(json_t **out, wg_kvark_error *err, wg_kvark *k,
                      const wg_kvark_config *cfg, long long document_id, const char *query,
                      int useful, const char *comment)
{
    if (!query)
        return wg_error_set(WG_EINVAL, "wg_kvark_feedback: NULL query");
    json_t *signal = json_pack("{s:s,s:s}", "rating", useful ? "positive" : "negative", "label",
                               useful ? "useful" : "not_useful");
    if (signal && comment)
        json_object_set_new(signal, "comment", json_string(comment));
    json_t *body = signal ? json_pack("{s:s,s:{s:I},s:o,s:{s:s}}", "feedbackType",
                                      "search_result", "target", "documentId",
                                      (json_int_t)document_id, "signal", signal, "context",
                                      "query", query)
                          : NULL;
    if (!body)
        return wg_error_set(WG_ENOMEM, "out of memory");
    kreq q = { WG_REST_POST, "/api/feedback", NULL, NULL, body, 0 };
    int rc = request(out, err, k, cfg, &q);
    json_decref(body);
    return rc;
}

int wg_kvark_action(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                    const wg_kvark_action_req *a)
{
    if (!a || !a->action_type || !a->entity_type || !a->entity_id || !a->reason)
        return wg_error_set(WG_EINVAL, "wg_kvark_action: NULL argument");
    json_t *gov = json_pack("{s:b}", "userApproved", a->user_approved ? 1 : 0);
    if (gov && a->user_approved && a->approval_reference)
        json_object_set_new(gov, "approvalReference", json_string(a->approval_reference));
    json_t *ctx = json_pack("{s:s}", "reason", a->reason);
    if (ctx && a->workspace_id)
        json_object_set_new(ctx, "workspaceId", json_string(a->workspace_id));
    json_t *payload = a->payload ? json_deep_copy(a->payload) : json_object();
    json_t *body = gov && ctx && payload
                 ? json_pack("{s:s,s:{s:s,s:s},s:o,s:o,s:o}", "actionType", a->action_type,
                             "target", "entityType", a->entity_type, "entityId", a->entity_id,
                             "payload", payload, "governance", gov, "context", ctx)
                 : NULL;
    if (!body) {
        if (!gov || !ctx || !payload) {
            json_decref(gov);
            json_decref(ctx);
            json_decref(payload);
        }
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    kreq q = { WG_REST_POST, "/api/actions", NULL, NULL, body, 0 };
    int rc = request(out, err, k, cfg, &q);
    json_decref(body);
    return rc;
}

int wg_kvark_ask(json_t **out, wg_kvark_error *err, wg_kvark *k, const wg_kvark_config *cfg,
                 const char *document_id, const char *question)
{
    if (!document_id || !question)
        return wg_error_set(WG_EINVAL, "wg_kvark_ask: NULL argument");
    json_t *body = json_pack("{s:s,s:s}", "document_id", document_id, "question", question);
    if (!body)
        return wg_error_set(WG_ENOMEM, "out of memory");
    kreq q = { WG_REST_POST, "/api/chat/ask", NULL, NULL, body, 0 };
    int rc = request(out, err, k, cfg, &q);
    json_decref(body);
    return rc;
}

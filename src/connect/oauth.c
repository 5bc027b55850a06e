/* oauth.c - OAuth2 providers as data rows and the token manager
 * (waggle/oauth.h; issue 15 section 1).
 *
 * The original refreshed only Google Calendar, only from its health probe,
 * and an expired token made the registry drop the tools before a refresh
 * could run (reference 13 item 16). Here every OAuth2 connector refreshes
 * through one manager: before expiry and after a 401, one refresh at a time
 * per connection across threads (a mutex per connection) and processes (a
 * lease lock in the store), the new tokens written in one transaction,
 * rotated refresh tokens kept, invalid_grant turned into a sticky
 * "expired" with a message that says how to sign in again.
 */
#include "connect/oauth_int.h"
#include "connect/upstream.h"
#include "waggle/error.h"
#include "waggle/time.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* ---- the providers ---------------------------------------------------------
 * One row per identity provider, from each vendor's OAuth documentation
 * (doc_url). Token endpoints take the RFC 6749 form body unless the row
 * says JSON; client authentication in the body unless it says Basic. */

static const char *const keep_salesforce[] = { "instance_url", NULL };
static const char *const keep_pipedrive[] = { "api_domain", NULL };

static const wg_oauth_provider providers[] = {
    { .id = "google", .name = "Google",
      .authorize_url = "https://accounts.google.com/o/oauth2/v2/auth",
      .token_url = "https://oauth2.googleapis.com/token",
      .client_auth = WG_OAUTH_CLIENT_POST, .encoding = WG_OAUTH_FORM,
      /* a refresh token is only issued with access_type=offline; prompt=consent
       * issues a new one when the person signs in again */
      .authorize_params = "access_type=offline&prompt=consent&include_granted_scopes=true",
      .scope_separator = " ",
      .doc_url = "https://developers.google.com/identity/protocols/oauth2/native-app" },
    { .id = "microsoft", .name = "Microsoft",
      .authorize_url = "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
      .token_url = "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
      .default_tenant = "common",
      .client_auth = WG_OAUTH_CLIENT_POST, .encoding = WG_OAUTH_FORM,
      .base_scopes = "offline_access", .authorize_params = "response_mode=query",
      .scope_separator = " ", .refresh_sends_scope = 1,
      .doc_url = "https://learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow" },
    { .id = "atlassian", .name = "Atlassian",
      .authorize_url = "https://auth.atlassian.com/authorize",
      .token_url = "https://auth.atlassian.com/oauth/token",
      .client_auth = WG_OAUTH_CLIENT_POST, .encoding = WG_OAUTH_JSON,
      .base_scopes = "offline_access",
      .authorize_params = "audience=api.atlassian.com&prompt=consent", .scope_separator = " ",
      .doc_url = "https://developer.atlassian.com/cloud/confluence/oauth-2-3lo-apps/" },
    { .id = "dropbox", .name = "Dropbox",
      .authorize_url = "https://www.dropbox.com/oauth2/authorize",
      .token_url = "https://api.dropboxapi.com/oauth2/token",
      .client_auth = WG_OAUTH_CLIENT_POST, .encoding = WG_OAUTH_FORM,
      .authorize_params = "token_access_type=offline", .scope_separator = " ",
      .doc_url = "https://developers.dropbox.com/oauth-guide" },
    { .id = "hubspot", .name = "HubSpot",
      .authorize_url = "https://app.hubspot.com/oauth/authorize",
      .token_url = "https://api.hubapi.com/oauth/v1/token",
      .client_auth = WG_OAUTH_CLIENT_POST, .encoding = WG_OAUTH_FORM, .scope_separator = " ",
      .doc_url = "https://developers.hubspot.com/docs/api-reference/legacy/authentication/oauth-tokens/v1/guide" },
    { .id = "salesforce", .name = "Salesforce",
      .authorize_url = "https://login.salesforce.com/services/oauth2/authorize",
      .token_url = "https://login.salesforce.com/services/oauth2/token",
      .client_auth = WG_OAUTH_CLIENT_POST, .encoding = WG_OAUTH_FORM,
      .base_scopes = "refresh_token api", .scope_separator = " ",
      .keep_fields = keep_salesforce,
      .doc_url = "https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_refresh_token_flow.htm" },
    { .id = "asana", .name = "Asana",
      .authorize_url = "https://app.asana.com/-/oauth_authorize",
      .token_url = "https://app.asana.com/-/oauth_token",
      .client_auth = WG_OAUTH_CLIENT_POST, .encoding = WG_OAUTH_FORM, .scope_separator = " ",
      .doc_url = "https://developers.asana.com/docs/oauth" },
    { .id = "pipedrive", .name = "Pipedrive",
      .authorize_url = "https://oauth.pipedrive.com/oauth/authorize",
      .token_url = "https://oauth.pipedrive.com/oauth/token",
      .client_auth = WG_OAUTH_CLIENT_BASIC, .encoding = WG_OAUTH_FORM, .scope_separator = " ",
      .keep_fields = keep_pipedrive,
      .doc_url = "https://pipedrive.readme.io/docs/marketplace-oauth-authorization" },
    { .id = "bitbucket", .name = "Bitbucket",
      .authorize_url = "https://bitbucket.org/site/oauth2/authorize",
      .token_url = "https://bitbucket.org/site/oauth2/access_token",
      .client_auth = WG_OAUTH_CLIENT_BASIC, .encoding = WG_OAUTH_FORM, .scope_separator = " ",
      .doc_url = "https://developer.atlassian.com/cloud/bitbucket/oauth-2/" },
};

static const wg_oauth_provider *const provider_list[] = {
    &providers[0], &providers[1], &providers[2], &providers[3], &providers[4],
    &providers[5], &providers[6], &providers[7], &providers[8],
};

_Static_assert(sizeof provider_list / sizeof *provider_list == sizeof providers / sizeof *providers,
               "every provider row is listed");

const wg_oauth_provider *const *wg_oauth_providers(size_t *n)
{
    *n = sizeof provider_list / sizeof *provider_list;
    return provider_list;
}

const wg_oauth_provider *wg_oauth_provider_find(const char *id)
{
    for (size_t i = 0; id && i < sizeof providers / sizeof *providers; i++)
        if (strcmp(providers[i].id, id) == 0)
            return &providers[i];
    return NULL;
}

/* ---- small helpers ------------------------------------------------------------ */

static void wipe_free(char *s)
{
    if (s) {
        sodium_memzero(s, strlen(s));
        free(s);
    }
}

char *wg_oauth__vault_get(const wg_connect_vault *v, const char *conn, const char *sub,
                          json_t **meta)
{
    char name[160];
    if (sub)
        snprintf(name, sizeof name, "connector:%s:%s", conn, sub);
    else
        snprintf(name, sizeof name, "connector:%s", conn);
    char *value = NULL;
    if (meta)
        *meta = NULL;
    if (v->get(v->ctx, name, &value, meta) < 0) {
        wg_error_clear();
        return NULL;
    }
    return value;
}

static int printable(const char *s, size_t max)
{
    size_t n = 0;
    for (; s && *s; s++, n++)
        if ((unsigned char)*s <= 0x20 || *s == 0x7f)
            return 0;
    return s && n > 0 && n <= max;
}

/* No control characters, 1..max bytes (spaces allowed: scope lists). */
static int no_ctl(const char *s, size_t max)
{
    size_t n = 0;
    for (; s && *s; s++, n++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return s && n > 0 && n <= max;
}

static int url_ok(const char *u)
{
    return u && (strncmp(u, "https://", 8) == 0 || strncmp(u, "http://", 7) == 0) &&
           printable(u, 2048) && !strpbrk(u, "#@\\");
}

static int tenant_ok(const char *t)
{
    size_t n = t ? strlen(t) : 0;
    if (!n || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

int wg_oauth__endpoint(char **out, const wg_connect_vault *v, const char *conn,
                       const wg_oauth_provider *p, const char *kind, const char *tenant)
{
    *out = NULL;
    char *over = wg_oauth__vault_get(v, conn, kind, NULL);
    const char *tmpl = over ? over
                     : strcmp(kind, "token_url") == 0 ? p->token_url : p->authorize_url;
    if (over && !url_ok(over)) {
        free(over);
        return wg_error_set(WG_EINVAL, "connector:%s:%s is not an http(s) URL", conn, kind);
    }
    char *stored = NULL;
    const char *mark = strstr(tmpl, "{tenant}");
    int rc = 0;
    if (mark) {
        if (!tenant)
            tenant = stored = wg_oauth__vault_get(v, conn, "tenant", NULL);
        if (!tenant)
            tenant = p->default_tenant;
        if (!tenant_ok(tenant))
            rc = wg_error_set(WG_EINVAL, "the %s tenant must be 1..64 of [A-Za-z0-9.-]", p->name);
        else if (asprintf(out, "%.*s%s%s", (int)(mark - tmpl), tmpl, tenant, mark + 8) < 0)
            rc = wg_error_set(WG_ENOMEM, "out of memory");
    } else if (!(*out = strdup(tmpl))) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    }
    free(stored);
    free(over);
    return rc;
}

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

char *wg_oauth__form_append(char *s, const char *k, const char *v)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t have = s ? strlen(s) : 0, need = have + 2 + 3 * (strlen(k) + strlen(v)) + 1;
    char *o = realloc(s, need);
    if (!o) {
        wipe_free(s);
        return NULL;
    }
    char *w = o + have;
    if (have)
        *w++ = '&';
    for (int part = 0; part < 2; part++) {
        for (const unsigned char *c = (const unsigned char *)(part ? v : k); *c; c++) {
            if (unreserved(*c)) {
                *w++ = (char)*c;
            } else {
                *w++ = '%';
                *w++ = hex[*c >> 4];
                *w++ = hex[*c & 15];
            }
        }
        if (!part)
            *w++ = '=';
    }
    *w = 0;
    return o;
}

/* ---- the token endpoint -------------------------------------------------------- */

typedef struct {
    char *p;
    size_t len;
    int too_big;
} sink;

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->len + len > WG_OAUTH_RESPONSE_CAP) {
        s->too_big = 1;
        return 0;
    }
    char *g = realloc(s->p, s->len + len + 1);
    if (!g)
        return 0;
    s->p = g;
    memcpy(s->p + s->len, data, len);
    s->len += len;
    s->p[s->len] = 0;
    return len;
}

/* "error: description" from an OAuth error answer, cut and made printable. */
static void error_text(char *buf, size_t cap, const json_t *j, long status)
{
    const char *e = json_string_value(json_object_get(j, "error"));
    const char *d = json_string_value(json_object_get(j, "error_description"));
    if (!e && json_is_object(json_object_get(j, "error")))   /* some answer {error:{message}} */
        e = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
    snprintf(buf, cap, "%s%s%s", e ? e : "HTTP error", d ? ": " : "", d ? d : "");
    if (!e && !d)
        snprintf(buf, cap, "HTTP %ld", status);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    if (strlen(buf) > 300)
        strcpy(buf + 297, "...");
}

int wg_oauth__post(json_t **ok, char **err_code, const wg_oauth_provider *p, const char *url,
                   json_t *pairs, const char *client_id, const char *client_secret,
                   const wg_upstream_policy *upstream)
{
    *ok = NULL;
    *err_code = NULL;
    if (!url_ok(url))
        return wg_error_set(WG_EINVAL, "the %s token endpoint is not an http(s) URL", p->name);
    char *body = NULL, *auth = NULL;
    json_t *obj = p->encoding == WG_OAUTH_JSON ? json_object() : NULL;
    size_t i;
    json_t *kv;
    int basic = p->client_auth == WG_OAUTH_CLIENT_BASIC && client_id;
    json_array_foreach(pairs, i, kv) {
        const char *k = json_string_value(json_array_get(kv, 0));
        const char *v = json_string_value(json_array_get(kv, 1));
        if (!k || !v)
            continue;
        if (basic && (strcmp(k, "client_id") == 0 || strcmp(k, "client_secret") == 0))
            continue;
        if (obj)
            json_object_set_new(obj, k, json_string(v));
        else if (!(body = wg_oauth__form_append(body, k, v)))
            return wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (obj) {
        body = json_dumps(obj, JSON_COMPACT);
        json_decref(obj);
    }
    if (basic) {
        /* base64("id:secret") as the providers document it (Pipedrive,
         * Bitbucket); RFC 6749 2.3.1 would form-encode both parts first,
         * which these servers do not undo */
        char *pair = NULL;
        if (asprintf(&pair, "%s:%s", client_id, client_secret ? client_secret : "") < 0)
            pair = NULL;
        size_t pl = pair ? strlen(pair) : 0;
        size_t el = sodium_base64_encoded_len(pl, sodium_base64_VARIANT_ORIGINAL);
        char *b64 = pair ? malloc(el) : NULL;
        if (b64) {
            sodium_bin2base64(b64, el, (const unsigned char *)pair, pl,
                              sodium_base64_VARIANT_ORIGINAL);
            if (asprintf(&auth, "Authorization: Basic %s", b64) < 0)
                auth = NULL;
        }
        wipe_free(pair);
        wipe_free(b64);
        if (!auth) {
            wipe_free(body);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    if (!body)
        return wg_error_set(WG_ENOMEM, "out of memory");
    CURL *curl = curl_easy_init();
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, p->encoding == WG_OAUTH_JSON
                                 ? "Content-Type: application/json"
                                 : "Content-Type: application/x-www-form-urlencoded");
    h = h ? curl_slist_append(h, "Accept: application/json") : NULL;
    h = h ? curl_slist_append(h, "Expect:") : NULL;
    if (h && auth)
        h = curl_slist_append(h, auth);
    sink s = { 0 };
    wg_upstream_pin pin = { 0 };
    int rc = 0;
    if (!curl || !h) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    /* the token endpoint passes the upstream policy like every connection,
     * before the client secret or refresh token is in any buffer curl sends */
    if ((rc = wg_upstream_curl(&pin, curl, url, WG_UPSTREAM_HTTP, upstream)) < 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", wg_error_last());
        rc = wg_error_set(rc, "%s token endpoint: %s", p->name, why);
        goto done;
    }
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "Waggle/1.0");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)WG_OAUTH_TIMEOUT_S);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
    CURLcode cc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    if (s.too_big) {
        rc = wg_error_set(WG_EUPSTREAM, "%s token endpoint answer larger than %d bytes", p->name,
                          WG_OAUTH_RESPONSE_CAP);
    } else if (pin.guard_refused) {
        rc = wg_error_set(WG_EDENIED, "%s token endpoint: connection refused by the upstream "
                          "policy", p->name);
    } else if (cc == CURLE_OPERATION_TIMEDOUT) {
        rc = wg_error_set(WG_ETIMEOUT, "%s token endpoint timed out", p->name);
    } else if (cc != CURLE_OK) {
        rc = wg_error_set(WG_EIO, "%s token endpoint unreachable: %s", p->name,
                          curl_easy_strerror(cc));
    } else {
        json_t *j = s.len ? json_loadb(s.p, s.len, 0, NULL) : NULL;
        if (status >= 200 && status <= 299 && json_is_object(j)) {
            *ok = j;
            j = NULL;
        } else {
            char why[400];
            error_text(why, sizeof why, j, status);
            const char *code = json_string_value(json_object_get(j, "error"));
            *err_code = strdup(code ? code : "");
            rc = wg_error_set(WG_EUPSTREAM, "%s token endpoint refused (HTTP %ld): %s", p->name,
                              status, why);
        }
        json_decref(j);
    }
done:
    if (s.p)
        sodium_memzero(s.p, s.len);
    free(s.p);
    wipe_free(body);
    wipe_free(auth);
    curl_slist_free_all(h);
    curl_easy_cleanup(curl);
    wg_upstream_pin_clear(&pin);
    return rc;
}

/* ---- storing tokens ---------------------------------------------------------- */

void wg_oauth__token_free(json_t *tok)
{
    static const char *const keys[] = { "access_token", "refresh_token", "id_token" };
    for (size_t k = 0; tok && k < sizeof keys / sizeof *keys; k++) {
        json_t *val = json_object_get(tok, keys[k]);
        if (json_is_string(val))
            sodium_memzero((void *)json_string_value(val), json_string_length(val));
    }
    json_decref(tok);
}

static int token_ok(const json_t *v)
{
    return json_is_string(v) && printable(json_string_value(v), WG_OAUTH_TOKEN_MAX);
}

/* expires_in as seconds: a number or a numeric string (some providers);
 * -1 when absent or unreadable. Bounded to 10 years. */
static long long expires_in(const json_t *tok)
{
    json_t *e = json_object_get(tok, "expires_in");
    long long s = -1;
    if (json_is_integer(e))
        s = json_integer_value(e);
    else if (json_is_real(e))
        s = (long long)json_real_value(e);
    else if (json_is_string(e) && strspn(json_string_value(e), "0123456789") ==
                                      strlen(json_string_value(e)) && json_string_length(e) &&
             json_string_length(e) < 12)
        s = atoll(json_string_value(e));
    return s >= 0 && s <= 315360000LL ? s : -1;
}

int wg_oauth__store(const wg_connect_vault *v, const char *conn, const wg_oauth_provider *p,
                    const json_t *tok, const json_t *old_meta,
                    const wg_connect_vault_item *extra, size_t n_extra)
{
    json_t *access = json_object_get(tok, "access_token");
    json_t *refresh = json_object_get(tok, "refresh_token");
    if (!token_ok(access))
        return wg_error_set(WG_EUPSTREAM, "%s token endpoint gave no usable access_token", p->name);
    if (refresh && !json_is_null(refresh) && !token_ok(refresh))
        return wg_error_set(WG_EUPSTREAM, "%s token endpoint gave an unusable refresh_token",
                            p->name);
    const char *type = json_string_value(json_object_get(tok, "token_type"));
    if (type && strcasecmp(type, "bearer") != 0)
        return wg_error_set(WG_EUPSTREAM, "%s token endpoint gave token_type %.32s, not Bearer",
                            p->name, type);
    json_t *meta = json_is_object(old_meta) ? json_deep_copy(old_meta) : json_object();
    if (!meta)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int64_t now = wg_time_now_ms();
    char iso[32];
    json_object_set_new(meta, "credentialType", json_string("oauth2"));
    json_object_set_new(meta, "provider", json_string(p->id));
    long long ttl = expires_in(tok);
    if (ttl >= 0) {
        wg_time_format_iso(iso, now + ttl * 1000);
        json_object_set_new(meta, "expiresAt", json_string(iso));
    } else {
        json_object_del(meta, "expiresAt");   /* unknown: refresh on a 401 only */
    }
    wg_time_format_iso(iso, now);
    json_object_set_new(meta, "refreshedAt", json_string(iso));
    const char *scope = json_string_value(json_object_get(tok, "scope"));
    if (no_ctl(scope, 8192)) {
        /* space-separated list: split on the separators */
        json_t *arr = json_array();
        const char *sep = p->scope_separator ? p->scope_separator : " ";
        for (const char *s = scope; arr && *s;) {
            size_t n = strcspn(s, sep);
            if (n)
                json_array_append_new(arr, json_stringn(s, n));
            s += n;
            s += strspn(s, sep);
        }
        json_object_set_new(meta, "scopes", arr);
    }
    json_object_del(meta, "oauthStatus");
    json_object_del(meta, "oauthError");
    json_object_del(meta, "oauthErrorAt");

    char n_access[160], n_refresh[170];
    snprintf(n_access, sizeof n_access, "connector:%s", conn);
    snprintf(n_refresh, sizeof n_refresh, "connector:%s:refresh", conn);
    enum { KEEP_MAX = 4, EXTRA_MAX = 8 };
    wg_connect_vault_item items[2 + KEEP_MAX + EXTRA_MAX];
    char keep_names[KEEP_MAX][170];
    size_t n = 0;
    items[n++] = (wg_connect_vault_item){ n_access, json_string_value(access), meta };
    /* rotation: a new refresh token replaces the old one; none keeps it */
    if (token_ok(refresh))
        items[n++] = (wg_connect_vault_item){ n_refresh, json_string_value(refresh), NULL };
    for (size_t k = 0; p->keep_fields && p->keep_fields[k] && k < KEEP_MAX; k++) {
        const char *val = json_string_value(json_object_get(tok, p->keep_fields[k]));
        if (!val)
            continue;
        if (!url_ok(val)) {
            json_decref(meta);
            return wg_error_set(WG_EUPSTREAM, "%s token endpoint gave an unusable %s", p->name,
                                p->keep_fields[k]);
        }
        snprintf(keep_names[k], sizeof keep_names[k], "connector:%s:%s", conn, p->keep_fields[k]);
        items[n++] = (wg_connect_vault_item){ keep_names[k], val, NULL };
    }
    for (size_t k = 0; k < n_extra && k < EXTRA_MAX; k++)
        items[n++] = extra[k];
    int rc = 0;
    if (v->set_many) {
        rc = v->set_many(v->ctx, items, n);
    } else {
        /* no transactions: the refresh token first, so a crash in between
         * leaves a usable refresh token rather than a dead one */
        for (size_t k = n; rc == 0 && k-- > 0;)
            rc = items[k].value ? v->set(v->ctx, items[k].name, items[k].value, items[k].meta)
                                : v->del(v->ctx, items[k].name);
    }
    json_decref(meta);
    return rc;
}

/* ---- the token manager ----------------------------------------------------------- */

enum { CONN_LOCKS_MAX = 256 };

typedef struct conn_lock {
    char name[72];
    pthread_mutex_t mu;
    struct conn_lock *next;
} conn_lock;

struct wg_oauth {
    wg_connect_vault vault;
    wg_upstream_policy upstream;   /* the operator's (resolver borrowed) */
    char owner[64];           /* this manager's identity in the store's locks */
    pthread_mutex_t mu;       /* guards locks and the counters */
    conn_lock *locks;
    size_t n_locks;
    pthread_mutex_t spill;    /* past CONN_LOCKS_MAX names, all share this one */
    long requests, refreshed;
};

int wg_oauth_new(wg_oauth **out, const wg_connect_vault *vault,
                 const wg_upstream_policy *upstream)
{
    if (!vault || !vault->get || !vault->set || !vault->del)
        return wg_error_set(WG_EINVAL, "the token manager needs a vault");
    if (vault->version != WG_CONNECT_VAULT_VERSION)
        return wg_error_set(WG_EINVAL, "wg_connect_vault version %u, this library knows %d",
                            vault->version, WG_CONNECT_VAULT_VERSION);
    if (sodium_init() < 0)
        return wg_error_set(WG_EINTERNAL, "libsodium failed to initialise");
    wg_oauth *m = calloc(1, sizeof *m);
    if (!m)
        return wg_error_set(WG_ENOMEM, "out of memory");
    m->vault = *vault;
    if (upstream)
        m->upstream = *upstream;
    unsigned char r[12];
    randombytes_buf(r, sizeof r);
    char hex[25];
    sodium_bin2hex(hex, sizeof hex, r, sizeof r);
    snprintf(m->owner, sizeof m->owner, "oauth-%ld-%s", (long)getpid(), hex);
    pthread_mutex_init(&m->mu, NULL);
    pthread_mutex_init(&m->spill, NULL);
    *out = m;
    return 0;
}

void wg_oauth_free(wg_oauth *m)
{
    if (!m)
        return;
    while (m->locks) {
        conn_lock *l = m->locks;
        m->locks = l->next;
        pthread_mutex_destroy(&l->mu);
        free(l);
    }
    pthread_mutex_destroy(&m->mu);
    pthread_mutex_destroy(&m->spill);
    free(m);
}

void wg_oauth_stats(const wg_oauth *m, long *requests, long *refreshed)
{
    pthread_mutex_lock((pthread_mutex_t *)&m->mu);
    if (requests)
        *requests = m->requests;
    if (refreshed)
        *refreshed = m->refreshed;
    pthread_mutex_unlock((pthread_mutex_t *)&m->mu);
}

static pthread_mutex_t *conn_mutex(wg_oauth *m, const char *conn)
{
    pthread_mutex_lock(&m->mu);
    conn_lock *l = m->locks;
    while (l && strcmp(l->name, conn))
        l = l->next;
    if (!l && m->n_locks < CONN_LOCKS_MAX && strlen(conn) < sizeof l->name &&
        (l = calloc(1, sizeof *l))) {
        snprintf(l->name, sizeof l->name, "%s", conn);
        pthread_mutex_init(&l->mu, NULL);
        l->next = m->locks;
        m->locks = l;
        m->n_locks++;
    }
    pthread_mutex_unlock(&m->mu);
    return l ? &l->mu : &m->spill;
}

int wg_oauth_meta_expired(const json_t *meta)
{
    const char *s = json_string_value(json_object_get(meta, "oauthStatus"));
    return s && strcmp(s, "expired") == 0;
}

/* 1 when the stored token should be refreshed now (expires within the skew;
 * an unreadable expiry counts as expiring: fail towards a refresh). */
static int expiring(const json_t *meta)
{
    json_t *e = json_object_get(meta, "expiresAt");
    if (!e || json_is_null(e))
        return 0;
    int64_t t = 0;
    if (!json_is_string(e) || wg_time_parse_iso(&t, json_string_value(e)) < 0) {
        wg_error_clear();
        return 1;
    }
    return t - (int64_t)WG_OAUTH_REFRESH_SKEW_S * 1000 <= wg_time_now_ms();
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Takes the store's lease for conn, waiting for another refresher. */
static int take_lease(wg_oauth *m, const char *name)
{
    if (!m->vault.lock)
        return 0;
    long long deadline = mono_ms() + WG_OAUTH_LOCK_WAIT_MS;
    long wait = 10;
    for (;;) {
        int rc = m->vault.lock(m->vault.ctx, name, m->owner, WG_OAUTH_LOCK_TTL_MS);
        if (rc != WG_EBUSY)
            return rc;
        wg_error_clear();
        if (mono_ms() >= deadline)
            return wg_error_set(WG_EBUSY, "another process is refreshing this connection's "
                                "token; try again");
        sleep_ms(wait);
        if (wait < 200)
            wait *= 2;
    }
}

static void drop_lease(wg_oauth *m, const char *name)
{
    if (m->vault.unlock && m->vault.unlock(m->vault.ctx, name, m->owner) < 0)
        wg_error_clear();
}

static int expired_error(const wg_oauth_provider *p, const char *conn, const char *why)
{
    return wg_error_set(WG_EAUTH, "%s sign-in for '%s' has expired%s%s%s; sign in again: "
                        "waggle connectors oauth %s", p->name, conn, why ? " (" : "",
                        why ? why : "", why ? ")" : "", conn);
}

/* invalid_grant: the connection is expired until someone signs in again. */
static int mark_expired(wg_oauth *m, const char *conn, const wg_oauth_provider *p,
                        const char *access, const json_t *old_meta, const char *why)
{
    json_t *meta = json_is_object(old_meta) ? json_deep_copy(old_meta) : json_object();
    char iso[32];
    wg_time_format_iso(iso, wg_time_now_ms());
    char msg[512];
    snprintf(msg, sizeof msg, "%s refused the refresh token (%s); sign in again: waggle "
             "connectors oauth %s", p->name, why, conn);
    json_object_set_new(meta, "oauthStatus", json_string("expired"));
    json_object_set_new(meta, "oauthError", json_string(msg));
    json_object_set_new(meta, "oauthErrorAt", json_string(iso));
    char name[160];
    snprintf(name, sizeof name, "connector:%s", conn);
    int rc = m->vault.set(m->vault.ctx, name, access, meta);
    json_decref(meta);
    if (rc < 0)
        wg_error_clear();
    return expired_error(p, conn, why);
}

/* The refresh itself, under both locks: re-read, decide, ask, store. */
static int refresh_locked(char **token, wg_oauth *m, const char *conn,
                          const wg_oauth_provider *p, const char *stale, unsigned flags)
{
    json_t *meta = NULL;
    char *access = wg_oauth__vault_get(&m->vault, conn, NULL, &meta);
    char *refresh = NULL, *client_id = NULL, *client_secret = NULL, *url = NULL, *code = NULL;
    json_t *tok = NULL, *pairs = NULL;
    int rc = 0;
    if (!access) {
        rc = wg_error_set(WG_ENOTFOUND, "connection %s has no credential", conn);
        goto done;
    }
    if (wg_oauth_meta_expired(meta)) {
        rc = expired_error(p, conn, NULL);
        goto done;
    }
    /* someone else may have refreshed while we waited for the locks */
    int changed = stale && strcmp(access, stale) != 0;
    if ((flags & WG_OAUTH_FORCE) ? changed : !expiring(meta)) {
        *token = access;
        access = NULL;
        goto done;
    }
    refresh = wg_oauth__vault_get(&m->vault, conn, "refresh", NULL);
    client_id = wg_oauth__vault_get(&m->vault, conn, "client_id", NULL);
    client_secret = wg_oauth__vault_get(&m->vault, conn, "client_secret", NULL);
    if (!refresh) {
        rc = expired_error(p, conn, "no refresh token is stored");
        goto done;
    }
    if (!client_id) {
        rc = expired_error(p, conn, "no client id is stored");
        goto done;
    }
    if ((rc = wg_oauth__endpoint(&url, &m->vault, conn, p, "token_url", NULL)) < 0)
        goto done;
    pairs = json_pack("[[s,s],[s,s],[s,s]]", "grant_type", "refresh_token", "refresh_token",
                      refresh, "client_id", client_id);
    if (pairs && client_secret)
        json_array_append_new(pairs, json_pack("[s,s]", "client_secret", client_secret));
    if (pairs && p->refresh_sends_scope && json_array_size(json_object_get(meta, "scopes"))) {
        /* Microsoft: the refresh names the scopes again */
        char scopes[2048] = "";
        size_t i;
        json_t *s;
        json_array_foreach(json_object_get(meta, "scopes"), i, s) {
            size_t used = strlen(scopes);
            if (json_is_string(s))
                snprintf(scopes + used, sizeof scopes - used, "%s%s", used ? " " : "",
                         json_string_value(s));
        }
        json_array_append_new(pairs, json_pack("[s,s]", "scope", scopes));
    }
    if (!pairs) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    pthread_mutex_lock(&m->mu);
    m->requests++;
    pthread_mutex_unlock(&m->mu);
    rc = wg_oauth__post(&tok, &code, p, url, pairs, client_id, client_secret, &m->upstream);
    if (rc == WG_EUPSTREAM && code && strcmp(code, "invalid_grant") == 0) {
        char why[400];
        snprintf(why, sizeof why, "%s", wg_error_last());
        const char *colon = strstr(why, "): ");
        rc = mark_expired(m, conn, p, access, meta, colon ? colon + 3 : "invalid_grant");
        goto done;
    }
    if (rc < 0)
        goto done;
    if ((rc = wg_oauth__store(&m->vault, conn, p, tok, meta, NULL, 0)) < 0)
        goto done;
    pthread_mutex_lock(&m->mu);
    m->refreshed++;
    pthread_mutex_unlock(&m->mu);
    if (!(*token = strdup(json_string_value(json_object_get(tok, "access_token")))))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
done:
    wipe_free(access);
    wipe_free(refresh);
    wipe_free(client_id);
    wipe_free(client_secret);
    free(url);
    free(code);
    json_decref(meta);
    if (pairs) {
        size_t i;
        json_t *kv;
        json_array_foreach(pairs, i, kv) {
            json_t *val = json_array_get(kv, 1);
            if (json_is_string(val))
                sodium_memzero((void *)json_string_value(val), json_string_length(val));
        }
        json_decref(pairs);
    }
    wg_oauth__token_free(tok);
    return rc;
}

int wg_oauth_token(char **token, wg_oauth *m, const char *conn, const wg_oauth_provider *p,
                   const char *stale, unsigned flags)
{
    *token = NULL;
    if (!m || !conn || !p || strlen(conn) > 64)
        return wg_error_set(WG_EINVAL, "a token manager, a connection and a provider are required");
    /* the common case needs no lock: a stored token that is still good */
    json_t *meta = NULL;
    char *access = wg_oauth__vault_get(&m->vault, conn, NULL, &meta);
    if (!access) {
        json_decref(meta);
        return wg_error_set(WG_ENOTFOUND, "connection %s has no credential", conn);
    }
    int expired = wg_oauth_meta_expired(meta);
    int fresh = !expired && !expiring(meta) &&
                (!(flags & WG_OAUTH_FORCE) || (stale && strcmp(access, stale) != 0));
    json_decref(meta);
    if (expired) {
        wipe_free(access);
        return expired_error(p, conn, NULL);
    }
    if (fresh) {
        *token = access;
        return 0;
    }
    wipe_free(access);
    char lease[96];
    snprintf(lease, sizeof lease, "oauth-refresh:%s", conn);
    pthread_mutex_t *mu = conn_mutex(m, conn);
    pthread_mutex_lock(mu);
    int rc = take_lease(m, lease);
    if (rc == 0) {
        rc = refresh_locked(token, m, conn, p, stale, flags);
        char keep[512];
        snprintf(keep, sizeof keep, "%s", rc < 0 ? wg_error_last() : "");
        drop_lease(m, lease);
        if (rc < 0)
            wg_error_set(rc, "%s", keep);
    }
    pthread_mutex_unlock(mu);
    return rc;
}

/* ---- connections of a registry ------------------------------------------------ */

static const char *conn_of(const wg_connector_spec *s)
{
    return s->connection ? s->connection : s->id;
}

const char *wg_oauth_connection(const wg_registry *reg, const char *id,
                                const wg_oauth_provider **provider)
{
    *provider = NULL;
    for (size_t i = 0; id && i < wg_registry_count(reg); i++) {
        const wg_connector_spec *s = wg_registry_at(reg, i);
        if (s->oauth_provider && s->connection && strcmp(s->connection, id) == 0) {
            *provider = wg_oauth_provider_find(s->oauth_provider);
            return *provider ? s->connection : NULL;
        }
    }
    const wg_connector_spec *s = wg_registry_get(reg, id);
    if (!s) {
        wg_error_set(WG_ENOTFOUND, "no connector or OAuth2 connection named '%s'", id ? id : "");
        return NULL;
    }
    if (!s->oauth_provider || !(*provider = wg_oauth_provider_find(s->oauth_provider))) {
        wg_error_set(WG_EUNSUPPORTED, "%s does not sign in with OAuth2; use "
                     "waggle connectors connect %s", s->id, s->id);
        return NULL;
    }
    return conn_of(s);
}

/* Appends the words of list (separated by any of sep) not yet in *out. */
static int add_scopes(char **out, const char *list, const char *sep)
{
    for (const char *s = list; s && *s;) {
        size_t n = strcspn(s, sep);
        if (n) {
            int seen = 0;
            for (const char *o = *out; o && *o && !seen;) {
                size_t m = strcspn(o, sep);
                seen = m == n && strncmp(o, s, n) == 0;
                o += m;
                o += strspn(o, sep);
            }
            if (!seen) {
                size_t have = *out ? strlen(*out) : 0;
                char *g = realloc(*out, have + n + 2);
                if (!g)
                    return wg_error_set(WG_ENOMEM, "out of memory");
                if (have)
                    g[have++] = sep[0];
                memcpy(g + have, s, n);
                g[have + n] = 0;
                *out = g;
            }
        }
        s += n;
        s += strspn(s, sep);
    }
    return 0;
}

int wg_oauth_scopes(char **out, const wg_registry *reg, const char *conn,
                    const wg_oauth_provider *p)
{
    const char *sep = p->scope_separator ? p->scope_separator : " ";
    char *s = NULL;
    int rc = add_scopes(&s, p->base_scopes, sep);
    for (size_t i = 0; rc == 0 && i < wg_registry_count(reg); i++) {
        const wg_connector_spec *c = wg_registry_at(reg, i);
        if (c->oauth_provider && strcmp(c->oauth_provider, p->id) == 0 &&
            strcmp(conn_of(c), conn) == 0)
            rc = add_scopes(&s, c->oauth_scopes, sep);
    }
    if (rc == 0 && !s && !(s = strdup("")))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc < 0) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

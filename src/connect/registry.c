/* registry.c - the connector registry (spec 8.2).
 *
 * One entry per registered spec. The vault is the source of truth for
 * credentials: every status, health probe and execution re-reads the
 * connector's credential, so a credential stored by another process (the
 * CLI, another replica) is used at once, and a deleted one is forgotten at
 * once (reference 13 item 10). An unparseable expiresAt counts as expired
 * (reference 13 item 17): fail closed.
 *
 * OAuth2 connectors (spec->oauth_provider) are refreshed through the token
 * manager (waggle/oauth.h) before a call when their access token is about
 * to expire, and once more when the service answers 401; a connection
 * with a refresh token therefore stays "connected" past its access
 * token's expiry (the original dropped such tools: reference 13 item 16),
 * and turns "expired" only when the provider refused the refresh token.
 */
#include "waggle/connector.h"
#include "waggle/error.h"
#include "connect/paths.h"
#include "waggle/oauth.h"
#include "connect/upstream.h"

#include <errno.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { MAX_ROOTS = 64 };   /* operator-granted Obsidian roots */

typedef struct entry {
    const wg_connector_spec *spec;
    wg_connector_creds *creds;     /* NULL when not connected */
    int expired;
} entry;

struct wg_registry {
    entry *v;
    size_t n, cap;
    wg_connect_vault vault;
    int has_vault;
    wg_connect_audit audit;
    int has_audit;
    wg_oauth *oauth;               /* token manager over the vault, or NULL */
    wg_upstream_resolver resolver;
    wg_upstream_policy upstream;   /* the operator's; handed to every call */
    wg_connect_grants grants;      /* the operator's local grants, resolved */
    char **roots;                  /* owned: grants.obsidian_roots */
    char *data_dir;                /* owned: grants.data_dir */
    pthread_mutex_t mu;
};

/* ---- credentials ---------------------------------------------------------- */

static void creds_free(wg_connector_creds *c)
{
    if (!c)
        return;
    char *fields[] = { c->token, c->email, c->base_url, c->extra, c->expires_at,
                       c->connection };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (fields[i]) {
            memset(fields[i], 0, strlen(fields[i]));
            free(fields[i]);
        }
    free(c);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static void creds_free_secret(char *s)
{
    if (s) {
        memset(s, 0, strlen(s));
        free(s);
    }
}

static wg_connector_creds *creds_copy(const wg_connector_creds *c)
{
    if (!c)
        return NULL;
    wg_connector_creds *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->token = dup_or_null(c->token);
    d->email = dup_or_null(c->email);
    d->base_url = dup_or_null(c->base_url);
    d->extra = dup_or_null(c->extra);
    d->expires_at = dup_or_null(c->expires_at);
    d->connection = dup_or_null(c->connection);
    d->refreshable = c->refreshable;
    d->base_url_by = c->base_url_by;
    d->token_by = c->token_by;
    return d;
}

/* The one credential-expiry rule (waggle/time.h): unreadable is expired. */
static int is_expired(const char *expires_at)
{
    return wg_time_credential_expired(expires_at, wg_time_now_ms());
}

static char *vault_get(const wg_registry *reg, const char *id, const char *sub, json_t **meta)
{
    char name[256];
    char *value = NULL;
    if (sub)
        snprintf(name, sizeof name, "connector:%s:%s", id, sub);
    else
        snprintf(name, sizeof name, "connector:%s", id);
    if (reg->vault.get(reg->vault.ctx, name, &value, meta) < 0)
        return NULL;
    return value;
}

/* Who stored a vault entry: its metadata "setBy"; anything else is the app. */
static wg_principal by_of(const json_t *meta)
{
    const char *by = json_string_value(json_object_get(meta, "setBy"));
    return by && strcmp(by, "operator") == 0 ? WG_PRINCIPAL_OPERATOR : WG_PRINCIPAL_APP;
}

/* Reads one connector's credential into a new creds (NULL when none): its
 * own connector:<id>, else its shared connection's. *expired says whether
 * it may not be used: past its expiry with no refresh token, an unreadable
 * expiry, or an OAuth2 connection the provider refused (then *why, when
 * asked for, is the stored message, new). */
static wg_connector_creds *load_creds(const wg_registry *reg, const wg_connector_spec *spec,
                                      int *expired, char **why)
{
    *expired = 0;
    if (why)
        *why = NULL;
    if (!reg->has_vault)
        return NULL;
    json_t *meta = NULL;
    const char *conn = spec->id;
    char *token = vault_get(reg, conn, NULL, &meta);
    if (!token && spec->connection) {
        json_decref(meta);
        meta = NULL;
        conn = spec->connection;
        token = vault_get(reg, conn, NULL, &meta);
    }
    if (!token) {
        json_decref(meta);
        return NULL;
    }
    wg_connector_creds *c = calloc(1, sizeof *c);
    if (!c || !(c->connection = strdup(conn))) {
        free(c);
        free(token);
        json_decref(meta);
        return NULL;
    }
    c->token = token;
    c->expires_at = dup_or_null(json_string_value(json_object_get(meta, "expiresAt")));
    c->token_by = by_of(meta);
    c->email = vault_get(reg, spec->id, "email", NULL);
    json_t *bmeta = NULL;
    c->base_url = vault_get(reg, spec->id, "base_url", &bmeta);
    if (!c->base_url && conn != spec->id) {
        json_decref(bmeta);
        bmeta = NULL;
        c->base_url = vault_get(reg, conn, "base_url", &bmeta);
    }
    c->base_url_by = by_of(bmeta);
    json_decref(bmeta);
    if (spec->extra_key)
        c->extra = vault_get(reg, spec->id, spec->extra_key, NULL);
    if (spec->oauth_provider) {
        char *refresh = vault_get(reg, conn, "refresh", NULL);
        c->refreshable = refresh != NULL;
        creds_free_secret(refresh);
    }
    if (spec->oauth_provider && wg_oauth_meta_expired(meta)) {
        *expired = 1;
        const char *msg = json_string_value(json_object_get(meta, "oauthError"));
        if (why && msg)
            *why = strdup(msg);
    } else {
        *expired = is_expired(c->expires_at) && !c->refreshable;
    }
    json_decref(meta);
    return c;
}

/* ---- lifecycle ------------------------------------------------------------- */

static entry *find(const wg_registry *reg, const char *id)
{
    for (size_t i = 0; reg && id && i < reg->n; i++)
        if (strcmp(reg->v[i].spec->id, id) == 0)
            return &reg->v[i];
    return NULL;
}

int wg_registry_register(wg_registry *reg, const wg_connector_spec *spec)
{
    if (!reg || !spec || !spec->id || !spec->ops)
        return wg_error_set(WG_EINVAL, "register: a spec with an id and operations is required");
    if (spec->version != WG_CONNECTOR_SPEC_VERSION)
        return wg_error_set(WG_EINVAL, "connector %s: spec version %u, this library knows %d "
                            "(name .version = WG_CONNECTOR_SPEC_VERSION)", spec->id, spec->version,
                            WG_CONNECTOR_SPEC_VERSION);
    if (strchr(spec->id, '_'))
        return wg_error_set(WG_EINVAL, "connector id '%s' may not contain '_'", spec->id);
    entry *e = find(reg, spec->id);
    if (e) {
        creds_free(e->creds);
        e->creds = NULL;
        e->spec = spec;
        return 0;
    }
    if (reg->n == reg->cap) {
        size_t cap = reg->cap ? reg->cap * 2 : 32;
        entry *v = realloc(reg->v, cap * sizeof *v);
        if (!v)
            return wg_error_set(WG_ENOMEM, "out of memory");
        reg->v = v;
        reg->cap = cap;
    }
    reg->v[reg->n++] = (entry){ spec, NULL, 0 };
    return 0;
}

int wg_registry_unregister(wg_registry *reg, const char *id)
{
    entry *e = find(reg, id);
    if (!e)
        return wg_error_set(WG_ENOTFOUND, "no connector '%s'", id ? id : "");
    creds_free(e->creds);
    size_t i = (size_t)(e - reg->v);
    memmove(&reg->v[i], &reg->v[i + 1], (reg->n - i - 1) * sizeof *reg->v);
    reg->n--;
    return 0;
}

/* Copies the operator's local grants, resolving every path: a root that
 * does not resolve, or that may never be a root, fails the registry. */
static int set_grants(wg_registry *reg, const wg_registry_options *opts)
{
    reg->grants.allow_privileged_db_roles = opts->allow_privileged_db_roles != 0;
    if (opts->data_dir && *opts->data_dir) {
        reg->data_dir = realpath(opts->data_dir, NULL);
        if (!reg->data_dir && !(reg->data_dir = strdup(opts->data_dir)))
            return wg_error_set(WG_ENOMEM, "out of memory");
        reg->grants.data_dir = reg->data_dir;
    }
    size_t n = 0;
    while (opts->obsidian_roots && opts->obsidian_roots[n])
        n++;
    if (n > MAX_ROOTS)
        return wg_error_set(WG_EINVAL, "at most %d Obsidian roots", MAX_ROOTS);
    if (!n)
        return 0;
    if (!(reg->roots = calloc(n + 1, sizeof *reg->roots)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char *real = realpath(opts->obsidian_roots[i], NULL);
        struct stat st;
        if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
            free(real);
            return wg_error_set(WG_EINVAL, "Obsidian root %s is not an existing directory",
                                opts->obsidian_roots[i]);
        }
        const char *why = wg_paths__forbidden_root(real, reg->grants.data_dir);
        if (why) {
            free(real);
            return wg_error_set(WG_EINVAL, "Obsidian root %s is %s: never allowed",
                                opts->obsidian_roots[i], why);
        }
        reg->roots[i] = real;
    }
    reg->grants.obsidian_roots = (const char *const *)reg->roots;
    return 0;
}

/* The versions of the options and of the seams they point at. */
static int check_versions(const wg_registry_options *opts)
{
    if (!opts)
        return 0;
    if (opts->version != WG_REGISTRY_OPTIONS_VERSION)
        return wg_error_set(WG_EINVAL, "wg_registry_options version %u, this library knows %d "
                            "(start from WG_REGISTRY_OPTIONS_INIT)", opts->version,
                            WG_REGISTRY_OPTIONS_VERSION);
    if (opts->vault && opts->vault->version != WG_CONNECT_VAULT_VERSION)
        return wg_error_set(WG_EINVAL, "wg_connect_vault version %u, this library knows %d "
                            "(start from WG_CONNECT_VAULT_INIT)", opts->vault->version,
                            WG_CONNECT_VAULT_VERSION);
    if (opts->audit && opts->audit->version != WG_CONNECT_AUDIT_VERSION)
        return wg_error_set(WG_EINVAL, "wg_connect_audit version %u, this library knows %d "
                            "(start from WG_CONNECT_AUDIT_INIT)", opts->audit->version,
                            WG_CONNECT_AUDIT_VERSION);
    return 0;
}

int wg_registry_new(wg_registry **out, const wg_registry_options *opts)
{
    int vrc = check_versions(opts);
    if (vrc < 0)
        return vrc;
    wg_registry *reg = calloc(1, sizeof *reg);
    if (!reg)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&reg->mu, NULL);
    if (opts && opts->vault) {
        reg->vault = *opts->vault;
        reg->has_vault = 1;
    }
    if (opts && opts->audit) {
        reg->audit = *opts->audit;
        reg->has_audit = 1;
    }
    if (opts) {
        reg->upstream.allow_private = opts->allow_private_upstreams != 0;
        reg->upstream.allow_http = opts->allow_http_upstreams != 0;
    }
    if (opts && opts->resolver) {
        reg->resolver = *opts->resolver;
        reg->upstream.resolver = &reg->resolver;
    }
    int rc = opts ? set_grants(reg, opts) : 0;
    if (rc == 0 && reg->has_vault)
        rc = wg_oauth_new(&reg->oauth, &reg->vault, &reg->upstream);
    size_t n;
    const wg_connector_spec *const *specs;
    if (rc == 0 && !(opts && opts->no_builtins)) {
        specs = wg_connector_builtin_specs(&n);
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = wg_registry_register(reg, specs[i]);
    }
    if (rc == 0 && opts && opts->demo) {
        specs = wg_connector_demo_specs(&n);
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = wg_registry_register(reg, specs[i]);
    }
    if (rc == 0)
        rc = wg_registry_load(reg);
    if (rc < 0) {
        wg_registry_free(reg);
        return rc;
    }
    *out = reg;
    return 0;
}

void wg_registry_free(wg_registry *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->n; i++)
        creds_free(reg->v[i].creds);
    free(reg->v);
    for (char **r = reg->roots; r && *r; r++)
        free(*r);
    free(reg->roots);
    free(reg->data_dir);
    wg_oauth_free(reg->oauth);
    pthread_mutex_destroy(&reg->mu);
    free(reg);
}

const wg_connector_spec *wg_registry_get(const wg_registry *reg, const char *id)
{
    entry *e = find(reg, id);
    return e ? e->spec : NULL;
}

size_t wg_registry_count(const wg_registry *reg) { return reg ? reg->n : 0; }

const wg_connector_spec *wg_registry_at(const wg_registry *reg, size_t i)
{
    return reg && i < reg->n ? reg->v[i].spec : NULL;
}

/* Re-reads one entry from the vault; returns a private snapshot of its
 * credential for the caller (NULL when not connected). */
static wg_connector_creds *reload(wg_registry *reg, entry *e, int *expired, char **why)
{
    wg_connector_creds *c = load_creds(reg, e->spec, expired, why);
    pthread_mutex_lock(&reg->mu);
    creds_free(e->creds);
    e->creds = c;
    e->expired = *expired;
    wg_connector_creds *snap = creds_copy(c);
    pthread_mutex_unlock(&reg->mu);
    return snap;
}

int wg_registry_load(wg_registry *reg)
{
    for (size_t i = 0; i < reg->n; i++) {
        int expired;
        creds_free(reload(reg, &reg->v[i], &expired, NULL));
    }
    return 0;
}

const char *wg_registry_status(const wg_registry *reg, const char *id)
{
    entry *e = find(reg, id);
    if (!e)
        return "disconnected";
    if (e->spec->always_connected)
        return "connected";
    int expired;
    wg_connector_creds *c = load_creds(reg, e->spec, &expired, NULL);
    const char *s = !c ? "disconnected" : expired ? "expired" : "connected";
    creds_free(c);
    return s;
}

const char *wg_registry_credential_id(const wg_registry *reg, const char *id, char *buf,
                                      size_t n)
{
    entry *e = find(reg, id);
    if (!e || e->spec->always_connected || !n)
        return NULL;
    int expired;
    wg_connector_creds *c = load_creds(reg, e->spec, &expired, NULL);
    const char *r = NULL;
    if (c && c->connection) {
        snprintf(buf, n, "%s", c->connection);
        r = buf;
    }
    creds_free(c);
    return r;
}

int wg_registry_is_connected(const wg_registry *reg, const char *id)
{
    return strcmp(wg_registry_status(reg, id), "connected") == 0;
}

int wg_registry_connected(json_t **out, const wg_registry *reg)
{
    json_t *ids = json_array();
    for (size_t i = 0; ids && i < reg->n; i++)
        if (wg_registry_is_connected(reg, reg->v[i].spec->id) &&
            json_array_append_new(ids, json_string(reg->v[i].spec->id)) < 0) {
            json_decref(ids);
            ids = NULL;
        }
    if (!ids)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = ids;
    return 0;
}

int wg_registry_definitions(json_t **out, const wg_registry *reg)
{
    json_t *arr = json_array();
    if (!arr)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < reg->n; i++) {
        json_t *d = NULL;
        int rc = wg_connector_definition(&d, reg->v[i].spec,
                                         wg_registry_status(reg, reg->v[i].spec->id));
        if (rc < 0 || json_array_append_new(arr, d)) {
            json_decref(arr);
            return rc < 0 ? rc : wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    *out = arr;
    return 0;
}

static void iso_now(char *buf, size_t n)
{
    char iso[WG_TIME_ISO_MAX];
    wg_time_format_iso(iso, wg_time_now_ms());
    snprintf(buf, n, "%s", iso);
}

/* ---- OAuth2 ------------------------------------------------------------------ */

/* One call's OAuth2 state: the registry's private creds and what the
 * reauth hook needs. */
typedef struct oauth_call {
    wg_registry *reg;
    const wg_connector_spec *spec;
    wg_connector_creds *creds;
    const wg_oauth_provider *provider;
    char error[512];              /* why the last refresh failed, or "" */
} oauth_call;

static void set_token(wg_connector_creds *c, char *token)
{
    creds_free_secret(c->token);
    c->token = token;
}

/* After a token change: the spec's extra key again, since the token
 * response may have replaced a kept field (Salesforce instance_url). */
static void reload_extra(const wg_registry *reg, const wg_connector_spec *spec,
                         wg_connector_creds *c)
{
    if (!spec->extra_key)
        return;
    char *v = vault_get(reg, spec->id, spec->extra_key, NULL);
    if (!v)
        return;
    free(c->extra);
    c->extra = v;
}

/* The reauth hook (connector.h): after a 401, a token the service did not
 * refuse yet, or an error. */
static int oauth_reauth(void *ctx)
{
    oauth_call *oc = ctx;
    char *tok = NULL;
    int rc = wg_oauth_token(&tok, oc->reg->oauth, oc->creds->connection, oc->provider,
                            oc->creds->token, WG_OAUTH_FORCE);
    if (rc < 0) {
        snprintf(oc->error, sizeof oc->error, "Token refresh failed: %s", wg_error_last());
        return rc;
    }
    if (strcmp(tok, oc->creds->token) == 0) {
        creds_free_secret(tok);
        return wg_error_set(WG_EAUTH, "the service refused a fresh token");
    }
    set_token(oc->creds, tok);
    reload_extra(oc->reg, oc->spec, oc->creds);
    return 0;
}

/* Before a call: refreshes an access token about to expire, and arms the
 * reauth hook. Returns 0 or the refresh's error (message set). */
static int oauth_prepare(oauth_call *oc, wg_connector_call *call, wg_registry *reg,
                         const wg_connector_spec *spec, wg_connector_creds *c)
{
    memset(oc, 0, sizeof *oc);
    if (!spec->oauth_provider || !c || !c->refreshable || !reg->oauth)
        return 0;
    const wg_oauth_provider *p = wg_oauth_provider_find(spec->oauth_provider);
    if (!p)
        return 0;
    *oc = (oauth_call){ reg, spec, c, p, "" };
    char *tok = NULL;
    int rc = wg_oauth_token(&tok, reg->oauth, c->connection, p, NULL, 0);
    if (rc < 0)
        return rc;
    set_token(c, tok);
    reload_extra(reg, spec, c);
    call->reauth = oauth_reauth;
    call->reauth_ctx = oc;
    return 0;
}

wg_oauth *wg_registry_token_manager(wg_registry *reg)
{
    return reg ? reg->oauth : NULL;
}

int wg_registry_health(json_t **out, wg_registry *reg, const char *id)
{
    entry *e = find(reg, id);
    if (!e)
        return wg_error_set(WG_ENOTFOUND, "Connector not found");
    char now[40];
    iso_now(now, sizeof now);
    int expired = 0;
    char *why = NULL;
    wg_connector_creds *c = e->spec->always_connected ? NULL : reload(reg, e, &expired, &why);
    const char *status = e->spec->always_connected || (c && !expired) ? "connected"
                       : c ? "expired" : "disconnected";
    json_t *h = json_pack("{s:s,s:s,s:s,s:s}", "id", e->spec->id, "name", e->spec->name,
                          "status", status, "lastChecked", now);
    if (!h) {
        creds_free(c);
        free(why);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (why)
        json_object_set_new(h, "error", json_string(why));
    free(why);
    int rc = 0;
    wg_connector_call call = { e->spec, c, reg->has_vault ? &reg->vault : NULL, &reg->upstream,
                               NULL, NULL, &reg->grants };
    oauth_call oc;
    int prc = strcmp(status, "connected") == 0 ? oauth_prepare(&oc, &call, reg, e->spec, c) : 0;
    if (prc < 0) {
        /* the refresh failed: say why (an invalid_grant is now "expired") */
        char msg[600];
        snprintf(msg, sizeof msg, "Token refresh failed: %s", wg_error_last());
        int gone = prc == WG_EAUTH;
        json_object_set_new(h, "status", json_string(gone ? "expired" : "error"));
        json_object_set_new(h, "error", json_string(msg));
        rc = wg_error_set(WG_EUPSTREAM, "token refresh of %s failed", e->spec->id);
        status = "error";
    }
    if (c && c->expires_at) {
        /* after a refresh, the new expiry */
        json_t *meta = NULL;
        char *t = c->connection ? vault_get(reg, c->connection, NULL, &meta) : NULL;
        const char *exp = json_string_value(json_object_get(meta, "expiresAt"));
        json_object_set_new(h, "tokenExpiresAt", json_string(exp ? exp : c->expires_at));
        creds_free_secret(t);
        json_decref(meta);
    }
    if (strcmp(status, "connected") == 0 && e->spec->ops->health) {
        char *err = NULL;
        if (e->spec->ops->health(&err, &call) < 0) {
            /* the probe's text is already scrubbed; scrub again with our token */
            char *clean = NULL;
            const char *secrets[] = { c ? c->token : NULL, NULL };
            const char *msg = err ? err : "health check failed";
            static const char lead[] = "- 0: ";    /* prefix and status we then drop */
            if (wg_connector_safe_error(&clean, "-", 0, msg, strlen(msg), secrets) == 0)
                json_object_set_new(h, "error", json_string(strncmp(clean, lead, 5) == 0
                                                                ? clean + sizeof lead - 1
                                                                : "health check failed"));
            free(clean);
            json_object_set_new(h, "status", json_string("error"));
            rc = wg_error_set(WG_EUPSTREAM, "health probe of %s failed", e->spec->id);
        }
        free(err);
    }
    creds_free(c);
    *out = h;
    return rc;
}

int wg_registry_tools(json_t **out, const wg_registry *reg)
{
    json_t *arr = json_array();
    if (!arr)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < reg->n; i++) {
        const wg_connector_spec *s = reg->v[i].spec;
        if (!wg_registry_is_connected(reg, s->id))
            continue;
        for (size_t k = 0; k < s->n_actions; k++) {
            const wg_connector_action *a = &s->actions[k];
            char name[256], desc[1024];
            snprintf(name, sizeof name, "connector_%s_%s", s->id, a->name);
            snprintf(desc, sizeof desc, "[%s] %s", s->name, a->description);
            json_t *params = json_loads(a->input_schema, 0, NULL);
            if (!params)
                params = json_object();
            json_t *p = json_pack("{s:s}", "type", "object");
            json_object_update(p, params);
            json_object_set_new(p, "type", json_string("object"));
            json_decref(params);
            json_array_append_new(arr, json_pack("{s:s,s:s,s:o}", "name", name,
                                                 "description", desc, "parameters", p));
        }
    }
    *out = arr;
    return 0;
}

/* Splits connector_<id>_<action> against the registered ids. */
static entry *parse_tool(const wg_registry *reg, const char *tool,
                         const wg_connector_action **action)
{
    static const char prefix[] = "connector_";
    *action = NULL;
    if (!tool || strncmp(tool, prefix, sizeof prefix - 1))
        return NULL;
    const char *rest = tool + sizeof prefix - 1;
    for (size_t i = 0; i < reg->n; i++) {
        const char *id = reg->v[i].spec->id;
        size_t n = strlen(id);
        if (strncmp(rest, id, n) == 0 && rest[n] == '_') {
            *action = wg_connector_find_action(reg->v[i].spec, rest + n + 1);
            return &reg->v[i];
        }
    }
    return NULL;
}

int wg_registry_action_risk(wg_risk_level *out, const wg_registry *reg, const char *tool)
{
    const wg_connector_action *a;
    entry *e = reg ? parse_tool(reg, tool, &a) : NULL;
    if (!e || !a)
        return wg_error_set(WG_ENOTFOUND, "'%s' is not a connector action", tool ? tool : "");
    *out = a->risk;
    return 0;
}

wg_risk_level wg_registry_connector_risk(void *registry, const char *tool)
{
    wg_risk_level r = WG_RISK_UNKNOWN;
    if (wg_registry_action_risk(&r, registry, tool) < 0) {
        wg_error_clear();
        return WG_RISK_UNKNOWN;
    }
    return r;
}

/* ---- input checking against the action's schema ---------------------------- */

static int is_string(const json_t *v) { return json_is_string(v); }
static int is_number(const json_t *v) { return json_is_number(v); }
static int is_integer(const json_t *v) { return json_is_integer(v); }
static int is_boolean(const json_t *v) { return json_is_boolean(v); }
static int is_array(const json_t *v) { return json_is_array(v); }
static int is_object(const json_t *v) { return json_is_object(v); }

static int type_ok(const char *type, const json_t *v)
{
    static const struct { const char *name; int (*ok)(const json_t *); } types[] = {
        { "string", is_string }, { "number", is_number }, { "integer", is_integer },
        { "boolean", is_boolean }, { "array", is_array }, { "object", is_object },
    };
    for (size_t i = 0; type && i < sizeof types / sizeof *types; i++)
        if (strcmp(type, types[i].name) == 0)
            return types[i].ok(v);
    return 1;
}

/* NULL when args fit the schema; otherwise a failure result. */
static json_t *check_args(const wg_connector_action *a, const json_t *args)
{
    if (!json_is_object(args))
        return wg_connector_fail("arguments must be a JSON object");
    json_t *schema = json_loads(a->input_schema, 0, NULL);
    json_t *props = json_object_get(schema, "properties");
    json_t *res = NULL;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(schema, "required"), i, r) {
        const json_t *v = json_object_get(args, json_string_value(r));
        if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v))) {
            res = wg_connector_fail("Missing required parameter: %s", json_string_value(r));
            goto done;
        }
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)args, k, v) {
        const char *type = json_string_value(json_object_get(json_object_get(props, k), "type"));
        if (!json_is_null(v) && !type_ok(type, v)) {
            res = wg_connector_fail("Parameter %s must be of type %s", k, type);
            goto done;
        }
    }
done:
    json_decref(schema);
    return res;
}

static int audit(wg_registry *reg, const entry *e, const wg_connector_action *a, const char *tool)
{
    if (!reg->has_audit)
        return 0;
    char type[256], desc[512];
    snprintf(type, sizeof type, "connector.%s.%s", e->spec->id, a->name);
    snprintf(desc, sizeof desc, "Connector action: %s \xe2\x86\x92 %s", e->spec->name, a->name);
    json_t *entry = json_pack("{s:s,s:s,s:b,s:s,s:s}", "actionType", type, "description", desc,
                              "requiresApproval", a->risk != WG_RISK_LOW, "tool", tool,
                              "riskLevel", wg_risk_name(a->risk));
    int rc = entry ? reg->audit.log(reg->audit.ctx, entry) : WG_ENOMEM;
    json_decref(entry);
    return rc;
}

int wg_registry_execute(json_t **out, wg_registry *reg, const char *tool, const json_t *args)
{
    const wg_connector_action *a;
    entry *e = parse_tool(reg, tool, &a);
    json_t *res = NULL;
    int rc = 0;
    if (!e) {
        *out = wg_connector_fail("Unknown tool: %s", tool ? tool : "");
        return *out ? wg_error_set(WG_ENOTFOUND, "unknown connector tool") : WG_ENOMEM;
    }
    if (!a) {
        *out = wg_connector_fail("Unknown action: %s", tool + strlen("connector_") +
                                 strlen(e->spec->id) + 1);
        return *out ? wg_error_set(WG_ENOTFOUND, "unknown connector action") : WG_ENOMEM;
    }
    if (audit(reg, e, a, tool) < 0) {
        *out = wg_connector_fail("audit log unavailable; the action was not run");
        return *out ? 0 : WG_ENOMEM;
    }
    int expired = 0;
    char *why = NULL;
    wg_connector_creds *c = e->spec->always_connected ? NULL : reload(reg, e, &expired, &why);
    wg_connector_call call = { e->spec, c, reg->has_vault ? &reg->vault : NULL, &reg->upstream,
                               NULL, NULL, &reg->grants };
    oauth_call oc;
    if (!e->spec->always_connected && !c) {
        res = wg_connector_fail("Not connected — connect %s first (waggle connectors connect %s)",
                                e->spec->name, e->spec->id);
    } else if (expired && why) {
        res = wg_connector_fail("%s", why);
    } else if (expired) {
        res = wg_connector_fail("%s credential expired — reconnect it", e->spec->name);
    } else if (!(res = check_args(a, args))) {
        if (oauth_prepare(&oc, &call, reg, e->spec, c) < 0) {
            res = wg_connector_fail("Token refresh failed: %s", wg_error_last());
        } else {
            rc = e->spec->ops->execute(&res, &call, a, args);
            if (rc < 0 && !res)
                res = wg_connector_fail("%s", wg_error_last());
            rc = 0;
            /* a 401 whose retry could not get a token: say why, not just 401 */
            if (res && call.reauth && oc.error[0] &&
                !json_is_true(json_object_get(res, "success")))
                json_object_set_new(res, "error", json_string(oc.error));
        }
    }
    free(why);
    creds_free(c);
    if (!res)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = res;
    return rc;
}

/* ---- connect / disconnect ----------------------------------------------------- */

static int has_ctl(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

static int check_request(const wg_connect_request *req)
{
    int64_t t;
    if (!req || !req->token || !*req->token)
        return wg_error_set(WG_EINVAL, "token or apiKey required");
    const char *fields[] = { req->token, req->refresh_token, req->email, req->base_url,
                             req->expires_at };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (has_ctl(fields[i]))
            return wg_error_set(WG_EINVAL, "credential fields may not contain control characters");
    if (req->expires_at && wg_time_parse_iso(&t, req->expires_at) < 0)
        return wg_error_set(WG_EINVAL, "expiresAt must be an ISO 8601 time");
    if (req->base_url && strpbrk(req->base_url, " ?#@"))
        return wg_error_set(WG_EINVAL, "base URL may not contain spaces, '?', '#' or '@'");
    if (req->scopes && !json_is_array(req->scopes))
        return wg_error_set(WG_EINVAL, "scopes must be an array of strings");
    return 0;
}

/* Who may give this connector a base URL, and is it one the upstream
 * policy allows (docs/security.md 2.2)? Names are resolved per call. */
static int check_base_url(const wg_registry *reg, const wg_connector_spec *spec,
                          const wg_connect_request *req)
{
    if (!spec->self_hostable && req->principal != WG_PRINCIPAL_OPERATOR)
        /* Only the app sees this (the CLI is the operator): it names no
         * part of the request (server route.h, echo.c). */
        return wg_error_set(WG_EDENIED, "%s does not take a base URL from the app: only the "
                                        "operator may set one (waggle connectors connect ID "
                                        "--base-url URL)", spec->name);
    return wg_upstream_check_base_url(req->base_url, &reg->upstream);
}

static int set_sub_meta(wg_registry *reg, const char *id, const char *sub, const char *value,
                        const json_t *meta)
{
    char name[256];
    snprintf(name, sizeof name, "connector:%s:%s", id, sub);
    if (value)
        return reg->vault.set(reg->vault.ctx, name, value, meta);
    int rc = reg->vault.del(reg->vault.ctx, name);
    return rc == WG_ENOTFOUND ? 0 : rc;
}

static int set_sub(wg_registry *reg, const char *id, const char *sub, const char *value)
{
    return set_sub_meta(reg, id, sub, value, NULL);
}

int wg_registry_connect(wg_registry *reg, const char *id, const wg_connect_request *req)
{
    entry *e = find(reg, id);
    if (!e)
        return wg_error_set(WG_ENOTFOUND, "Connector not found");
    int rc = check_request(req);
    if (rc == 0 && req->base_url)
        rc = check_base_url(reg, e->spec, req);
    if (rc == 0 && e->spec->ops->validate) {
        /* the proposed credential, as the operation will see it */
        wg_connector_creds proposed = { .token = (char *)req->token, .email = (char *)req->email,
                                        .base_url = (char *)req->base_url,
                                        .expires_at = (char *)req->expires_at,
                                        .token_by = req->principal,
                                        .base_url_by = req->principal };
        wg_connector_call call = { e->spec, &proposed, reg->has_vault ? &reg->vault : NULL,
                                   &reg->upstream, NULL, NULL, &reg->grants };
        rc = e->spec->ops->validate(&call);
    }
    if (rc < 0)
        return rc;
    if (!reg->has_vault)
        return wg_error_set(WG_EUNSUPPORTED, "Vault not available");
    json_t *meta = json_pack("{s:s,s:s}", "credentialType", wg_auth_type_name(e->spec->auth_type),
                             "setBy", req->principal == WG_PRINCIPAL_OPERATOR ? "operator" : "app");
    if (!meta)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (req->expires_at)
        json_object_set_new(meta, "expiresAt", json_string(req->expires_at));
    if (req->scopes)
        json_object_set(meta, "scopes", (json_t *)req->scopes);
    char name[256];
    snprintf(name, sizeof name, "connector:%s", id);
    rc = reg->vault.set(reg->vault.ctx, name, req->token, meta);
    json_decref(meta);
    if (rc == 0)
        rc = set_sub(reg, id, "refresh", req->refresh_token);
    if (rc == 0 && req->email)
        rc = set_sub(reg, id, "email", req->email);
    if (rc == 0 && req->base_url) {
        json_t *bmeta = json_pack("{s:s}", "setBy", req->principal == WG_PRINCIPAL_OPERATOR
                                                        ? "operator" : "app");
        rc = bmeta ? set_sub_meta(reg, id, "base_url", req->base_url, bmeta)
                   : wg_error_set(WG_ENOMEM, "out of memory");
        json_decref(bmeta);
    }
    if (rc < 0)
        return rc;
    int expired;
    creds_free(reload(reg, e, &expired, NULL));
    return 0;
}

/* Refuses a value of a numeric setting that is not a whole decimal number
 * within the spec's bounds ("abc", "", "1e3", " 5", out of range). */
static int number_setting_check(const wg_connector_spec *spec, const char *name, const char *value)
{
    for (const wg_connector_number_setting *n = spec->number_settings; n && n->name; n++) {
        if (strcmp(n->name, name) != 0)
            continue;
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        int digits = *value == '-' ? isdigit((unsigned char)value[1]) : isdigit((unsigned char)*value);
        if (!digits || *end || errno || v < n->min || v > n->max)
            return wg_error_set(WG_EINVAL, "%s must be a whole number from %lld to %lld", name,
                                n->min, n->max);
        return 0;
    }
    return 0;
}

int wg_registry_set_setting(wg_registry *reg, const char *id, const char *name, const char *value)
{
    entry *e = find(reg, id);
    if (!e)
        return wg_error_set(WG_ENOTFOUND, "Connector not found");
    int known = 0;
    for (size_t i = 0; e->spec->settings && e->spec->settings[i] && name; i++)
        known |= strcmp(e->spec->settings[i], name) == 0;
    if (!known)
        return wg_error_set(WG_EINVAL, "%s has no setting '%s'", id, name ? name : "");
    if (!value || has_ctl(value))
        return wg_error_set(WG_EINVAL, "setting values may not contain control characters");
    if (number_setting_check(e->spec, name, value) < 0)
        return WG_EINVAL;
    if (!reg->has_vault)
        return wg_error_set(WG_EUNSUPPORTED, "Vault not available");
    return set_sub(reg, id, name, value);
}

int wg_registry_disconnect(json_t **out, wg_registry *reg, const char *id)
{
    if (!reg->has_vault)
        return wg_error_set(WG_EUNSUPPORTED, "Vault not available");
    char name[256], prefix[256];
    snprintf(name, sizeof name, "connector:%s", id);
    snprintf(prefix, sizeof prefix, "connector:%s:", id);
    int rc = reg->vault.del(reg->vault.ctx, name);
    if (rc < 0 && rc != WG_ENOTFOUND)
        return rc;
    int deleted = rc == 0;
    char **names = NULL;
    size_t n = 0, cleaned = 0;
    rc = reg->vault.list(reg->vault.ctx, prefix, &names, &n);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++) {
        if (reg->vault.del(reg->vault.ctx, names[i]) == 0)
            cleaned++;
        free(names[i]);
    }
    free(names);
    entry *e = find(reg, id);
    if (e) {
        pthread_mutex_lock(&reg->mu);
        creds_free(e->creds);
        e->creds = NULL;
        e->expired = 0;
        pthread_mutex_unlock(&reg->mu);
    }
    *out = json_pack("{s:b,s:s,s:I}", "disconnected", deleted, "connectorId", id,
                     "cleanedKeys", (json_int_t)cleaned);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

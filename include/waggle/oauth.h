/* waggle/oauth.h - OAuth2 for connectors (issue 15 section 1): the table of
 * providers, the token manager every OAuth2 connector refreshes through,
 * and the operator's authorization-code flow (`waggle connectors oauth ID`).
 *
 * Vault layout of one connection C (C is a connector id, or a shared
 * connection such as "google" or "microsoft"; see connector.h
 * wg_connector_spec.connection):
 *   connector:C                the access token; metadata {credentialType:
 *                              "oauth2", provider, expiresAt?, scopes?,
 *                              refreshedAt?, oauthStatus?, oauthError?}
 *   connector:C:refresh        the refresh token (replaced when rotated)
 *   connector:C:client_id      the OAuth client of the operator's app
 *   connector:C:client_secret  (absent for a public client using PKCE only)
 *   connector:C:tenant         Microsoft: tenant id or common/organizations
 *   connector:C:token_url      operator override of the token endpoint
 *   connector:C:authorize_url  operator override of the authorization endpoint
 *   connector:C:<field>        token-response fields a provider row keeps
 *                              (Salesforce instance_url, Pipedrive api_domain)
 *
 * The token manager (wg_oauth) refreshes an access token that expires within
 * WG_OAUTH_REFRESH_SKEW_S, and, after an upstream 401, one that the service
 * refused. One refresh runs at a time per connection: a mutex orders the
 * threads of one process and a lease lock in the store (migration 4,
 * wg_connect_vault.lock) the processes and replicas; whoever gets the lock
 * second re-reads the vault and uses the token the first one stored. The
 * new access token, its expiry and a rotated refresh token are written in
 * one transaction (wg_connect_vault.set_many). An `invalid_grant` answer
 * marks the connection oauthStatus "expired" (spec 8.4 ConnectorStatus) with
 * a message naming the command that signs in again; an expired connection
 * is never refreshed again until that sign-in, so nothing loops.
 *
 * Thread-safety: a wg_oauth may be used from any number of threads. The
 * provider table is static const data.
 */
#ifndef WAGGLE_OAUTH_H
#define WAGGLE_OAUTH_H

#include "waggle/export.h"

#include <stddef.h>
#include "waggle/connector.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WG_OAUTH_REFRESH_SKEW_S = 60,      /* refresh this long before expiresAt */
    WG_OAUTH_LOCK_TTL_MS = 30000,      /* lease of the cross-process refresh lock */
    WG_OAUTH_LOCK_WAIT_MS = 20000,     /* longest wait for another refresher */
    WG_OAUTH_TIMEOUT_S = 10,           /* token endpoint request timeout */
    WG_OAUTH_RESPONSE_CAP = 64 * 1024, /* bytes read from a token endpoint */
    WG_OAUTH_TOKEN_MAX = 16384,        /* longest access/refresh token kept */
};

/* ---- the providers (data rows) ------------------------------------------- */

typedef enum {
    WG_OAUTH_CLIENT_POST,    /* client_id (+ client_secret) in the request body */
    WG_OAUTH_CLIENT_BASIC    /* Authorization: Basic base64(client_id:client_secret) */
} wg_oauth_client_auth;

typedef enum {
    WG_OAUTH_FORM,           /* application/x-www-form-urlencoded (RFC 6749 4.1.3) */
    WG_OAUTH_JSON            /* application/json (Atlassian) */
} wg_oauth_encoding;

typedef struct wg_oauth_provider {
    const char *id;                 /* "google", "microsoft", "atlassian", ... */
    const char *name;               /* "Google", for messages */
    const char *authorize_url;      /* "{tenant}" is replaced (Microsoft) */
    const char *token_url;
    const char *default_tenant;     /* when connector:C:tenant is absent, or NULL */
    wg_oauth_client_auth client_auth;
    wg_oauth_encoding encoding;
    const char *base_scopes;        /* always asked for ("offline_access"), or NULL */
    const char *authorize_params;   /* extra fixed pairs, already encoded
                                       ("access_type=offline&prompt=consent") */
    const char *scope_separator;    /* " " (RFC 6749 3.3), or "," */
    int refresh_sends_scope;        /* the refresh request repeats the scopes */
    const char *const *keep_fields; /* token-response fields stored, NULL-ended */
    const char *doc_url;            /* the vendor page this row follows */
} wg_oauth_provider;

/* The built-in rows, in a stable order; *n receives the count. */
WG_EXTERN const wg_oauth_provider *const *wg_oauth_providers(size_t *n);
/* A row by id, or NULL. */
WG_EXTERN const wg_oauth_provider *wg_oauth_provider_find(const char *id);

/* ---- the token manager ----------------------------------------------------- */

typedef struct wg_oauth wg_oauth;

/* A manager over vault (copied; borrowed functions and ctx must outlive it)
 * whose token endpoint requests pass upstream (copied; its resolver
 * borrowed; NULL = the strict default). *out is new: free with
 * wg_oauth_free. Returns 0, WG_EINVAL, WG_ENOMEM. */
WG_EXTERN int wg_oauth_new(wg_oauth **out, const wg_connect_vault *vault,
                           const wg_upstream_policy *upstream);
WG_EXTERN void wg_oauth_free(wg_oauth *m);

enum { WG_OAUTH_FORCE = 1 };

/* A valid access token for connection conn of provider p in *token (new;
 * wipe and free it). Without WG_OAUTH_FORCE the stored token is returned
 * while it does not expire within WG_OAUTH_REFRESH_SKEW_S (no expiry
 * stored: as is); with it, the stored token is refreshed unless it already
 * differs from stale (another caller refreshed it meanwhile).
 * Returns 0; WG_ENOTFOUND (connector:conn absent); WG_EAUTH (the connection
 * is expired: invalid_grant now or before, no refresh token, no client id;
 * the message says how to sign in again); WG_EUPSTREAM (the token endpoint
 * failed otherwise; nothing was marked, a later call may succeed);
 * WG_ETIMEOUT, WG_EIO; WG_EBUSY (another process held the refresh lock for
 * longer than WG_OAUTH_LOCK_WAIT_MS); WG_EINVAL; WG_ENOMEM. */
WG_EXTERN int wg_oauth_token(char **token, wg_oauth *m, const char *conn, const wg_oauth_provider *p,
                             const char *stale, unsigned flags);

/* Token endpoint requests this manager sent, and how many gave new tokens. */
WG_EXTERN void wg_oauth_stats(const wg_oauth *m, long *requests, long *refreshed);

/* 1 when the connection's metadata says oauthStatus "expired" (set by
 * invalid_grant), 0 otherwise. meta borrowed, may be NULL. */
WG_EXTERN int wg_oauth_meta_expired(const json_t *meta);

/* ---- connections of a registry ---------------------------------------------- */

/* The registry's own token manager (every registry with a vault has one;
 * NULL otherwise). Borrowed. */
WG_EXTERN wg_oauth *wg_registry_token_manager(wg_registry *reg);

/* The OAuth2 connection behind id: id itself when it is a connection some
 * registered connector shares (spec->connection), else the connection of
 * the registered connector id. *provider receives its row. Returns the
 * connection name (borrowed from a spec), or NULL with the message set
 * (unknown id, or a connector that has no OAuth2 provider). */
WG_EXTERN const char *wg_oauth_connection(const wg_registry *reg, const char *id,
                                          const wg_oauth_provider **provider);

/* The scopes to ask for: the provider's base scopes and every registered
 * connector's oauth_scopes on that connection, each once, in first-seen
 * order, joined by the provider's separator. *out new. */
WG_EXTERN int wg_oauth_scopes(char **out, const wg_registry *reg, const char *conn,
                              const wg_oauth_provider *p);

/* ---- the authorization-code flow with PKCE (RFC 6749 4.1, RFC 7636) -------- */

typedef struct wg_oauth_flow_params {
    const wg_oauth_provider *provider;
    const char *connection;        /* vault id C */
    const char *client_id;         /* NULL: connector:C:client_id */
    const char *client_secret;     /* NULL: connector:C:client_secret (may be absent) */
    const char *tenant;            /* NULL: connector:C:tenant, then the default */
    const char *scopes;            /* separated as the provider says; required */
    const char *redirect_uri;      /* http://127.0.0.1:<port>/callback (RFC 8252 7.3) */
} wg_oauth_flow_params;

typedef struct wg_oauth_flow {
    const wg_oauth_provider *provider;
    char connection[72];
    char state[48];                /* 32 random bytes, base64url */
    char verifier[48];             /* code_verifier: 32 random bytes, base64url (43) */
    char challenge[48];            /* BASE64URL(SHA256(verifier)), method S256 */
    char *client_id, *client_secret, *scopes, *redirect_uri;
    char *token_url;
    char *url;                     /* the authorization URL to open */
} wg_oauth_flow;

/* Prepares a flow: fresh state and PKCE verifier, the endpoints (vault
 * overrides and tenant applied) and the authorization URL in f->url.
 * Returns 0, WG_EAUTH (no client id), WG_EINVAL (bad tenant, override URL,
 * redirect URI or scopes), WG_ENOMEM. Clear f with wg_oauth_flow_clear. */
WG_EXTERN int wg_oauth_flow_begin(wg_oauth_flow *f, const wg_connect_vault *v,
                                  const wg_oauth_flow_params *p);

/* Reads the redirect the browser arrived with: a full URL, a request
 * target ("/callback?code=..."), or a query string. *code is new.
 * Returns 0; WG_EDENIED when the provider answered error=... (the message
 * carries error and error_description, sanitized); WG_EAUTH when state is
 * missing or differs (nothing is exchanged: RFC 6749 10.12); WG_EINVAL
 * when there is no code or the text is over 8 KiB. */
WG_EXTERN int wg_oauth_flow_redirect(char **code, const wg_oauth_flow *f, const char *redirect);

/* Exchanges code (with the PKCE verifier) at the token endpoint, through
 * upstream (NULL = the strict default), and stores the result:
 * connector:C (metadata as above, oauthStatus cleared), :refresh,
 * :client_id, :client_secret and the provider's keep_fields, in one
 * transaction. *has_refresh (may be NULL) says whether a refresh token came
 * (without one the connection cannot refresh; an old one is removed).
 * Returns 0, WG_EUPSTREAM (the endpoint refused; message from its error and
 * error_description), WG_EDENIED (the upstream policy refused the endpoint),
 * WG_ETIMEOUT, WG_EIO, WG_ENOMEM, WG_E* from the vault. */
WG_EXTERN int wg_oauth_flow_finish(const wg_oauth_flow *f, const wg_connect_vault *v, const char *code,
                                   const wg_upstream_policy *upstream, int *has_refresh);

/* Wipes the secrets and frees the strings. */
WG_EXTERN void wg_oauth_flow_clear(wg_oauth_flow *f);

/* ---- the loopback redirect listener (RFC 8252 7.3) --------------------------- */

enum {
    WG_OAUTH_LOOPBACK_REQUEST_MAX = 8192,   /* bytes of one request read */
    WG_OAUTH_LOOPBACK_TRIES = 16,           /* requests looked at before giving up */
};

typedef struct wg_oauth_loopback wg_oauth_loopback;

/* Listens on 127.0.0.1:port (0 = an ephemeral port). *out new. Returns 0,
 * WG_EIO (cannot bind), WG_ENOMEM. */
WG_EXTERN int wg_oauth_loopback_open(wg_oauth_loopback **out, int port);
WG_EXTERN int wg_oauth_loopback_port(const wg_oauth_loopback *lb);
/* The listening socket, for a caller that polls it with other inputs. */
WG_EXTERN int wg_oauth_loopback_fd(const wg_oauth_loopback *lb);

/* Waits up to timeout_ms for a GET of path (e.g. "/callback") and gives its
 * request target in *target (new). Other requests (favicon, probes) get a
 * 404 and are not counted as the redirect; after WG_OAUTH_LOOPBACK_TRIES
 * of them, or at the deadline, it gives up. The browser is answered with a
 * short page telling the person to go back to the terminal. Returns 0,
 * WG_ETIMEOUT, WG_EIO, WG_ENOMEM. */
WG_EXTERN int wg_oauth_loopback_wait(char **target, wg_oauth_loopback *lb, const char *path, int timeout_ms);

WG_EXTERN void wg_oauth_loopback_free(wg_oauth_loopback *lb);

#ifdef __cplusplus
}
#endif
#endif

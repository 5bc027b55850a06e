/* waggle/sys/connector.h - the connector-author and host interfaces (spec
 * 8.1), kept apart from the registry API in the way include/git2/sys/ keeps
 * libgit2's back-end interfaces: what a connector is (wg_connector_spec,
 * its actions and operations, the SDK helpers of spec 8.1) and the seams a
 * host plugs under the registry (the vault, the audit sink, a resolver).
 * waggle/connector.h includes this header; a program that only uses
 * connectors needs nothing from it by name.
 *
 * Versioned tables: wg_connector_spec, wg_connect_vault and
 * wg_connect_audit start with `unsigned int version`; the registry refuses
 * a table of another version (WG_EINVAL) so that fields can be added at
 * the end later. Start a table from its _INIT macro, or name
 * .version = WG_<NAME>_VERSION in a static one.
 */
#ifndef WAGGLE_SYS_CONNECTOR_H
#define WAGGLE_SYS_CONNECTOR_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>
#include "waggle/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- seams to the store ------------------------------------------------ */

/* What the registry needs from the vault: named secrets with JSON metadata.
 * Every function returns 0 or a negative WG_E*; get returns WG_ENOTFOUND
 * when the name is absent. Out-values are new (free(), json_decref). */
struct wg_connect_vault_item;

#define WG_CONNECT_VAULT_VERSION 1

typedef struct wg_connect_vault {
    unsigned int version;       /* WG_CONNECT_VAULT_VERSION */
    void *ctx;
    int (*get)(void *ctx, const char *name, char **value, json_t **meta);
    int (*set)(void *ctx, const char *name, const char *value, const json_t *meta);
    int (*del)(void *ctx, const char *name);
    /* Names starting with prefix; *names is a new array of new strings. */
    int (*list)(void *ctx, const char *prefix, char ***names, size_t *n);
    /* A bounded usage counter (not a secret; kept beside the vault): adds
     * one to name when it is below limit, atomically across threads and
     * processes. 0 with *count the new value; WG_EDENIED with *count the
     * current value at the limit; other WG_E* on failure. May be NULL: a
     * counted action (the email daily limit) then refuses to run. */
    int (*take)(void *ctx, const char *name, long limit, long *count);
    /* Sets (value non-NULL) or deletes (value NULL) every item in one
     * transaction: all of them or none (an OAuth2 refresh writes the access
     * token, its expiry and a rotated refresh token together). Deleting an
     * absent name is not an error. May be NULL: callers then fall back to
     * set/del one by one. */
    int (*set_many)(void *ctx, const struct wg_connect_vault_item *items, size_t n);
    /* A lease lock shared by the threads and processes using this vault (a
     * row in the store; migration 4): taken when free, when its lease ran
     * out, or when owner already holds it (the lease is renewed). 0 taken;
     * WG_EBUSY held by another owner; other WG_E* on failure. unlock
     * releases it only if owner holds it. May be NULL: the token manager
     * then serialises the threads of one process only. */
    int (*lock)(void *ctx, const char *name, const char *owner, long ttl_ms);
    int (*unlock)(void *ctx, const char *name, const char *owner);
} wg_connect_vault;

#define WG_CONNECT_VAULT_INIT { .version = WG_CONNECT_VAULT_VERSION }

/* One write of wg_connect_vault.set_many. Borrowed. */
typedef struct wg_connect_vault_item {
    const char *name;
    const char *value;          /* NULL: delete name */
    const json_t *meta;         /* may be NULL */
} wg_connect_vault_item;

/* Audit sink. entry is borrowed: {actionType, description, requiresApproval,
 * tool, success, error?}. Never receives argument values or credentials. */
#define WG_CONNECT_AUDIT_VERSION 1

typedef struct wg_connect_audit {
    unsigned int version;       /* WG_CONNECT_AUDIT_VERSION */
    void *ctx;
    int (*log)(void *ctx, const json_t *entry);
} wg_connect_audit;

#define WG_CONNECT_AUDIT_INIT { .version = WG_CONNECT_AUDIT_VERSION }

/* ---- principals and the upstream policy (docs/security.md) ------------- */

/* Who asked for a change (docs/security.md section 1). The zero value is
 * the least trusted: a request that does not say is the app's. The HTTP
 * face passes WG_PRINCIPAL_APP for the API token and WG_PRINCIPAL_OPERATOR
 * for the admin token; the CLI is the operator. */
typedef enum {
    WG_PRINCIPAL_APP = 0,
    WG_PRINCIPAL_OPERATOR = 1
} wg_principal;

/* A name resolver for the upstream policy, for tests and embedders with
 * their own DNS. Writes up to max numeric addresses of host ("192.0.2.7",
 * "2001:db8::7") into addrs and their count into *n. Returns 0 or a
 * negative WG_E*. Whatever it answers is checked like getaddrinfo's. */
enum { WG_UPSTREAM_ADDR_LEN = 46 };
typedef struct wg_upstream_resolver {
    int (*resolve)(void *ud, const char *host, char (*addrs)[WG_UPSTREAM_ADDR_LEN],
                   size_t max, size_t *n);
    void *ud;
} wg_upstream_resolver;

/* What outbound connections a connector may open (docs/security.md 3.2).
 * Every connection of every connector (REST calls, health probes, SMTP,
 * PostgreSQL, token endpoints) is checked after name resolution and pinned
 * to the checked addresses. The zero value is the strict default:
 *   allow_private  0: loopback, private, link-local, CGNAT, unique-local,
 *                     metadata and reserved addresses are refused
 *                     (IPv4-mapped and NAT64/6to4 forms by their IPv4);
 *   allow_http     0: only https:// (SMTP: TLS required).
 * Only the operator sets these (waggle serve --allow-private-upstreams,
 * --allow-http-upstreams); tests against loopback replay servers set both. */
typedef struct wg_upstream_policy {
    int allow_private;
    int allow_http;
    const wg_upstream_resolver *resolver;   /* NULL: getaddrinfo */
} wg_upstream_policy;

/* What the operator grants connectors on this machine (docs/security.md
 * 2.1, 2.3). Paths are resolved (realpath) by the registry. */
typedef struct wg_connect_grants {
    /* Directories an Obsidian vault may be (or lie under) when the app
     * connects one, NULL-terminated; NULL: none. A vault the operator
     * connected itself (CLI, admin token) needs no entry here. */
    const char *const *obsidian_roots;
    /* The data dir: never a vault, nor inside one's reach (the dir, what is
     * inside it, its parents). NULL when the embedder has none. */
    const char *data_dir;
    /* 1: the postgres connector may use a privileged role (superuser,
     * pg_read_server_files, …). Never the default. */
    int allow_privileged_db_roles;
} wg_connect_grants;

/* ---- the connector description ----------------------------------------- */

typedef enum {
    WG_AUTH_BEARER = 0,
    WG_AUTH_OAUTH2,
    WG_AUTH_API_KEY,
    WG_AUTH_BASIC
} wg_auth_type;

/* "bearer" | "oauth2" | "api_key" | "basic". */
WG_EXTERN const char *wg_auth_type_name(wg_auth_type t);

typedef struct wg_connector_action {
    const char *name;
    const char *description;
    const char *input_schema;   /* JSON text: {"properties":{…},"required":[…]} */
    wg_risk_level risk;
} wg_connector_action;

/* Credential state of one connected connector, as loaded from the vault.
 * Strings are owned by the creds object. */
typedef struct wg_connector_creds {
    char *token;        /* connector:<id> */
    char *email;        /* connector:<id>:email */
    char *base_url;     /* connector:<id>:base_url (self-hosted, tests) */
    char *extra;        /* connector:<id>:<spec->extra_key>, e.g. from_email */
    char *expires_at;   /* metadata expiresAt (ISO) or NULL */
    /* Who stored the credential (metadata "setBy"; absent = app). */
    wg_principal token_by;
    char *connection;   /* the vault id holding the credential: the connector's
                           own id, or its shared OAuth2 connection ("google") */
    int refreshable;    /* OAuth2: a refresh token is stored with it */
    /* Who stored base_url (its vault metadata "setBy"; absent = app). A
     * base URL of a connector that is not self_hostable is used only when
     * the operator stored it. */
    wg_principal base_url_by;
} wg_connector_creds;

typedef struct wg_connector_spec wg_connector_spec;

/* Context handed to operations: the vault (for counters such as the email
 * daily limit) and the spec's own data. */
typedef struct wg_connector_call {
    const wg_connector_spec *spec;
    const wg_connector_creds *creds;   /* NULL when not connected */
    const wg_connect_vault *vault;     /* may be NULL */
    /* The operator's upstream policy; NULL = the strict default. Every
     * outbound connection an operation opens goes through it
     * (src/connect/upstream.h). */
    const wg_upstream_policy *upstream;
    /* OAuth2: asks for a fresh access token after the upstream refused
     * creds->token (HTTP 401). On 0, creds->token is the new token (creds
     * is the registry's private copy for this one call). Callers retry at
     * most once. NULL when the connector cannot refresh. */
    int (*reauth)(void *reauth_ctx);
    void *reauth_ctx;
    /* The operator's local grants; NULL = none granted. */
    const wg_connect_grants *grants;
} wg_connector_call;

typedef struct wg_connector_ops {
    /* Runs one action. *out is a new ConnectorResult object. Returns 0 (also
     * for upstream failures, which are {success:false}), WG_ENOMEM. */
    int (*execute)(json_t **out, const wg_connector_call *call,
                   const wg_connector_action *action, const json_t *params);
    /* Probes the service. Returns 0 when healthy; otherwise a negative code
     * and *error (new, sanitized) says why. */
    int (*health)(char **error, const wg_connector_call *call);
    /* May be NULL. Checks a credential before wg_registry_connect stores
     * it: call->creds is the proposed one (token_by = who asks). Returns 0,
     * or WG_EDENIED / WG_EINVAL / WG_EUPSTREAM with wg_error_last() saying
     * why (never quoting the credential). The operation still checks at
     * every call: the vault may change behind the registry's back. */
    int (*validate)(const wg_connector_call *call);
} wg_connector_ops;

/* A setting whose value must be a whole decimal number in [min, max]. */
typedef struct wg_connector_number_setting {
    const char *name;          /* one of the spec's settings */
    long long min, max;
} wg_connector_number_setting;

#define WG_CONNECTOR_SPEC_VERSION 1

/* A static spec names its version first:
 *   const wg_connector_spec wg_spec_x = { .version = WG_CONNECTOR_SPEC_VERSION, .id = "x", ... };
 * wg_registry_register refuses any other version (WG_EINVAL). */
struct wg_connector_spec {
    unsigned int version;      /* WG_CONNECTOR_SPEC_VERSION */
    const char *id;
    const char *name;
    const char *description;
    const char *service;
    wg_auth_type auth_type;
    const char *category;      /* spec 8.4 category or NULL */
    const char *logo_slug;     /* simple-icons slug or NULL */
    const char *setup_guide;   /* or NULL */
    const wg_connector_action *actions;
    size_t n_actions;
    const wg_connector_ops *ops;
    const void *impl;          /* operation-specific table (REST spec, …) */
    const char *extra_key;     /* extra vault sub-key loaded into creds->extra */
    int always_connected;      /* demo connectors: connected without a credential */
    /* Settings a person may store as connector:<id>:<name> (besides email
     * and base_url), NULL-terminated "name" strings, or NULL. */
    const char *const *settings;
    /* OAuth2 (waggle/oauth.h): the provider row that refreshes this
     * connector's tokens ("google", "microsoft", "salesforce", ...), or
     * NULL (the credential is used as stored, never refreshed). */
    const char *oauth_provider;
    /* A shared connection: when connector:<id> is absent the credential is
     * read from connector:<connection> (with its :refresh, :client_id,
     * :client_secret keys), so one Google sign-in serves gcal, gmail,
     * gdocs, gdrive and gsheets, and one Microsoft sign-in the four Graph
     * connectors. NULL: the connector's own id is its connection. */
    const char *connection;
    /* The OAuth2 scopes the connector needs, space-separated; `waggle
     * connectors oauth` asks for the union over every connector of the
     * connection. */
    const char *oauth_scopes;
    /* 1 when the service also runs on people's own servers (GitHub
     * Enterprise, GitLab, Jira, Confluence, KVARK): the app may then give a
     * base URL on connect. For every other connector only the operator may
     * (docs/security.md 2.2). */
    int self_hostable;
    /* Which of those settings are numbers, with their bounds ({NULL}
     * ends), or NULL. wg_registry_set_setting refuses any other value, so
     * the CLI and the service agree. */
    const wg_connector_number_setting *number_settings;
};

#define WG_CONNECTOR_SPEC_INIT { .version = WG_CONNECTOR_SPEC_VERSION }

/* ---- SDK helpers (spec 8.1) --------------------------------------------- */

/* deriveCapabilities: insertion-ordered tags from the actions: low -> read,
 * medium/high -> write, a name containing search/find/list -> search.
 * *out is a new JSON array. Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_connector_capabilities(json_t **out, const wg_connector_spec *spec);

/* ConnectorDefinition for a status string (spec 8.4). *out is new. */
WG_EXTERN int wg_connector_definition(json_t **out, const wg_connector_spec *spec, const char *status);

/* safeErrorText: "<prefix> <status>: <text>", the text cut to 500 bytes plus
 * "...[truncated]", with anything that looks like a credential replaced by
 * "[redacted]" (bearer/basic tokens, key=value secrets, known token shapes,
 * and each string in secrets[], NULL-terminated, may be NULL). Control
 * characters become spaces. *out is new. Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_connector_safe_error(char **out, const char *prefix, long status,
                                      const char *text, size_t len, const char *const *secrets);

/* Looks an action up by name; NULL when absent. */
WG_EXTERN const wg_connector_action *wg_connector_find_action(const wg_connector_spec *spec,
                                                              const char *name);

/* {success:true, data} (data stolen) / {success:false, error}. NULL on ENOMEM. */
WG_EXTERN json_t *wg_connector_ok(json_t *data);
WG_EXTERN json_t *wg_connector_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif
#endif

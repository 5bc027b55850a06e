/* waggle/connector.h - connectors to real services and their registry (spec 8).
 *
 * A connector is data: a static const wg_connector_spec names the service,
 * its auth style, its actions (name, description, JSON Schema input, risk)
 * and the operations that run them. Most specs point at the one declarative
 * REST executor (src/connect/rest.c); PostgreSQL, email, Obsidian and the
 * demo channels have their own operations.
 *
 * The registry (wg_registry) holds one instance per registered spec, its
 * credential state loaded from the vault, and turns every action of every
 * connected connector into an agent tool named connector_<id>_<action>.
 * Executing a tool never fails past the registry: the result is always the
 * JSON ConnectorResult {success, data|error} (spec 8.1), and every execution
 * is audit-logged with requiresApproval = riskLevel != low (spec 8.2).
 *
 * Credentials live only in the vault (the wg_connect_vault seam below) and
 * in the registry's memory while connected. They are read at start-up
 * (wg_registry_load), after every credential change (wg_registry_connect)
 * and forgotten on disconnect (reference 13 item 10).
 *
 * Thread-safety: a registry may be used from many threads once built;
 * registration is not meant to race with use. Every returned json_t is new
 * (json_decref it) unless stated otherwise.
 */
#ifndef WAGGLE_CONNECTOR_H
#define WAGGLE_CONNECTOR_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>
#include "waggle/types.h"
#include "waggle/tier.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- seams to the store ------------------------------------------------ */

/* What the registry needs from the vault: named secrets with JSON metadata.
 * Every function returns 0 or a negative WG_E*; get returns WG_ENOTFOUND
 * when the name is absent. Out-values are new (free(), json_decref). */
struct wg_connect_vault_item;

typedef struct wg_connect_vault {
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

/* The seam over the store's encrypted vault (waggle/vault.h), every
 * function filled: what the server and the CLI use. v is borrowed. */
struct wg_vault;
WG_EXTERN void wg_connect_vault_of(wg_connect_vault *out, struct wg_vault *v);

/* One write of wg_connect_vault.set_many. Borrowed. */
typedef struct wg_connect_vault_item {
    const char *name;
    const char *value;          /* NULL: delete name */
    const json_t *meta;         /* may be NULL */
} wg_connect_vault_item;

/* Audit sink. entry is borrowed: {actionType, description, requiresApproval,
 * tool, success, error?}. Never receives argument values or credentials. */
typedef struct wg_connect_audit {
    void *ctx;
    int (*log)(void *ctx, const json_t *entry);
} wg_connect_audit;

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

struct wg_connector_spec {
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

/* ---- the built-in connectors -------------------------------------------- */

/* The built-in specs in registration order; *n receives the count.
 * Borrowed, static. Demo channels are separate (wg_connector_demo_specs). */
WG_EXTERN const wg_connector_spec *const *wg_connector_builtin_specs(size_t *n);
WG_EXTERN const wg_connector_spec *const *wg_connector_demo_specs(size_t *n);

/* ---- the registry (spec 8.2) --------------------------------------------- */

typedef struct wg_registry wg_registry;

typedef struct wg_registry_options {
    const wg_connect_vault *vault;   /* copied; may be NULL (nothing connects) */
    const wg_connect_audit *audit;   /* copied; may be NULL */
    int demo;                        /* register slack-mock, teams-mock, discord-mock */
    int no_builtins;                 /* start empty (tests) */
    /* The upstream policy (see wg_upstream_policy; operator only, never the
     * default): 1 allows loopback/private/link-local/… addresses, 1 allows
     * plain http:// (and SMTP without TLS). */
    int allow_private_upstreams;
    int allow_http_upstreams;
    const wg_upstream_resolver *resolver;   /* copied; NULL: getaddrinfo */
    /* Local grants (see wg_connect_grants); copied, paths resolved: a root
     * that does not exist, or that is /, the data dir, inside it or one of
     * its parents, makes wg_registry_new fail with WG_EINVAL. */
    const char *const *obsidian_roots;
    const char *data_dir;
    int allow_privileged_db_roles;
} wg_registry_options;

/* A registry with the built-in connectors registered (and the demo ones
 * when opts->demo), then loaded from the vault. *out is new: free with
 * wg_registry_free. Returns 0, WG_EINVAL (a refused grant), WG_ENOMEM. */
WG_EXTERN int wg_registry_new(wg_registry **out, const wg_registry_options *opts);
WG_EXTERN void wg_registry_free(wg_registry *reg);

/* Registers a spec (borrowed: it must outlive the registry); a second spec
 * with the same id replaces the first. Returns 0, WG_EINVAL, WG_ENOMEM. */
WG_EXTERN int wg_registry_register(wg_registry *reg, const wg_connector_spec *spec);
/* Returns 0, or WG_ENOTFOUND. */
WG_EXTERN int wg_registry_unregister(wg_registry *reg, const char *id);

/* Borrowed spec or NULL. */
WG_EXTERN const wg_connector_spec *wg_registry_get(const wg_registry *reg, const char *id);
WG_EXTERN size_t wg_registry_count(const wg_registry *reg);
WG_EXTERN const wg_connector_spec *wg_registry_at(const wg_registry *reg, size_t i);

/* (Re)reads every connector's credential from the vault: connectors with a
 * credential connect, the others forget theirs. Returns 0 or WG_E*. */
WG_EXTERN int wg_registry_load(wg_registry *reg);

/* 1 when the connector counts as connected: a demo connector, or a
 * non-expired credential. 0 otherwise (also for unknown ids). */
WG_EXTERN int wg_registry_is_connected(const wg_registry *reg, const char *id);

/* getConnected (spec 8.2): the ids of the connectors that count as
 * connected, in registration order (JSON array of strings, new). */
WG_EXTERN int wg_registry_connected(json_t **out, const wg_registry *reg);

/* Status string "connected" | "expired" | "disconnected" from the vault. */
WG_EXTERN const char *wg_registry_status(const wg_registry *reg, const char *id);

/* The vault id whose credential connector id uses now: its own id, or its
 * shared connection (spec->connection, e.g. "google"); NULL when it has no
 * stored credential or id is unknown. Copied into buf (n bytes). */
WG_EXTERN const char *wg_registry_credential_id(const wg_registry *reg, const char *id, char *buf,
                                                size_t n);

/* {…definition…} of every connector, in registration order (JSON array). */
WG_EXTERN int wg_registry_definitions(json_t **out, const wg_registry *reg);

/* ConnectorHealth {id,name,status,lastChecked,error?,tokenExpiresAt?}.
 * Returns 0 (healthy or not), WG_ENOTFOUND for an unknown id, or
 * WG_EUPSTREAM when the probe failed: *out is then still set to the
 * sanitized degraded health (status "error"). */
WG_EXTERN int wg_registry_health(json_t **out, wg_registry *reg, const char *id);

/* One ToolDefinition {name, description, parameters} per action of each
 * connected connector (JSON array). */
WG_EXTERN int wg_registry_tools(json_t **out, const wg_registry *reg);

/* The declared riskLevel of the action a tool name names. Returns 0, or
 * WG_ENOTFOUND when the name is not a registered connector action. The risk
 * comes only from the registry's table, never from call arguments. */
WG_EXTERN int wg_registry_action_risk(wg_risk_level *out, const wg_registry *reg, const char *tool);

/* The same as a gate hook (waggle/gate.h wg_gate_hooks.connector_risk):
 * registry is a wg_registry *; WG_RISK_UNKNOWN when the tool is not a
 * registered connector action. Thread-safe. */
WG_EXTERN wg_risk_level wg_registry_connector_risk(void *registry, const char *tool);

/* Runs a connector tool: audit-logs it, executes it, and writes the
 * ConnectorResult JSON object to *out (success false for every failure,
 * including "not connected" and unknown actions). Returns 0 or WG_ENOMEM,
 * or WG_ENOTFOUND when tool is not connector_<id>_<action> of a
 * registered connector (then *out is also set to {success:false,error}).
 * This does not ask for approval: run the gate first. */
WG_EXTERN int wg_registry_execute(json_t **out, wg_registry *reg, const char *tool, const json_t *args);

/* The connect request (spec 8.5 body). Borrowed strings; NULL = absent. */
typedef struct wg_connect_request {
    const char *token;
    const char *refresh_token;
    const char *expires_at;       /* ISO 8601; must parse when present */
    const json_t *scopes;         /* array of strings or NULL */
    const char *email;
    const char *base_url;         /* http(s) URL or NULL */
    wg_principal principal;       /* who asks; 0 = the app */
} wg_connect_request;

/* Stores the credential in the vault and connects the connector.
 * The connector's validate operation runs first (Obsidian: the vault must
 * be a root the operator allows; PostgreSQL: the role is inspected), and
 * the vault records who stored the credential (metadata setBy).
 * A base URL is checked against the upstream policy (https:// unless http
 * is allowed; no user info, query or fragment; a literal address or a
 * localhost name must be allowed; names are resolved and checked at call
 * time) and, for a connector that is not self_hostable, only the operator
 * may give one. The vault records who stored it.
 * Returns 0, WG_ENOTFOUND (unknown id), WG_EINVAL (no token, bad expiresAt,
 * bad base URL, control characters), WG_EDENIED (a base URL this principal
 * may not set, or an address the policy refuses), WG_EUNSUPPORTED (no
 * vault), WG_E*. */
WG_EXTERN int wg_registry_connect(wg_registry *reg, const char *id, const wg_connect_request *req);

/* The tier's connectorLimit (waggle/tier.h; reference 13 item 19), checked
 * before wg_registry_connect by every front end (HTTP and CLI). A slot is
 * held by every stored credential of a non-demo connector, expired ones
 * too (a refresh is a reconnect); a shared OAuth2 connection ("google")
 * is one slot however many connectors use it. Rules, first match wins:
 *   connector.limit.demo       a demo connector: never counts, allowed
 *   connector.limit.reconnect  id already holds a slot: always allowed
 *   connector.limit.unlimited  the effective tier has no limit: allowed
 *   connector.limit.within     used + 1 <= limit: allowed
 *   connector.limit.exceeded   refused; denial is requireTier's 403 body
 *                              naming the lowest tier whose limit allows
 *                              used + 1 ("This feature requires the PRO
 *                              tier. You are on FREE.")
 * Not atomic with the connect that follows: wg_engine_connect
 * (waggle/engine.h) takes the slot atomically across processes. */
typedef struct wg_connector_limit_decision {
    int allowed;
    int used;                   /* slots held now */
    int limit;                  /* the effective tier's; -1 unlimited */
    const char *rule;           /* static */
    char reason[192];
    wg_tier_denial denial;      /* filled when refused */
} wg_connector_limit_decision;

/* Decides for connecting id at the effective tier. Returns 0 (allowed or
 * not: see out->allowed), WG_ENOTFOUND (unknown id). */
WG_EXTERN int wg_registry_check_limit(wg_connector_limit_decision *out, const wg_registry *reg,
                                      const char *id, wg_tier effective);

/* The same rules over counts the caller gathered (the engine counts the
 * store's credentials and reservations): holds = id already holds a slot,
 * used = slots held. Pure; fills *out. */
WG_EXTERN void wg_connector_limit_decide(wg_connector_limit_decision *out, const wg_connector_spec *spec,
                                         int holds, int used, wg_tier effective);

/* Stores one connector setting connector:<id>:<name> (e.g. email's
 * smtp_url). name must be one of spec->settings; value must be printable,
 * and a whole number within bounds for spec->number_settings.
 * Returns 0, WG_ENOTFOUND (unknown id), WG_EINVAL (unknown setting, control
 * characters, not a number or out of bounds; the message names the setting,
 * never the value), WG_EUNSUPPORTED (no vault), WG_E* from the vault. */
WG_EXTERN int wg_registry_set_setting(wg_registry *reg, const char *id, const char *name, const char *value);

/* Deletes connector:<id> and every connector:<id>:* key and clears the
 * in-memory state. *out is {disconnected, connectorId, cleanedKeys}.
 * Returns 0, WG_EUNSUPPORTED (no vault), WG_E*. */
WG_EXTERN int wg_registry_disconnect(json_t **out, wg_registry *reg, const char *id);

/* A vault that lives in memory (tests, --no-store embedding). *out is new:
 * free with wg_connect_memvault_free. */
WG_EXTERN int wg_connect_memvault_new(wg_connect_vault **out);
WG_EXTERN void wg_connect_memvault_free(wg_connect_vault *v);

#ifdef __cplusplus
}
#endif
#endif

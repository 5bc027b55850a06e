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
} wg_connect_vault;

/* Audit sink. entry is borrowed: {actionType, description, requiresApproval,
 * tool, success, error?}. Never receives argument values or credentials. */
typedef struct wg_connect_audit {
    void *ctx;
    int (*log)(void *ctx, const json_t *entry);
} wg_connect_audit;

/* ---- the connector description ----------------------------------------- */

typedef enum {
    WG_AUTH_BEARER = 0,
    WG_AUTH_OAUTH2,
    WG_AUTH_API_KEY,
    WG_AUTH_BASIC
} wg_auth_type;

/* "bearer" | "oauth2" | "api_key" | "basic". */
const char *wg_auth_type_name(wg_auth_type t);

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
} wg_connector_creds;

typedef struct wg_connector_spec wg_connector_spec;

/* Context handed to operations: the vault (for counters such as the email
 * daily limit) and the spec's own data. */
typedef struct wg_connector_call {
    const wg_connector_spec *spec;
    const wg_connector_creds *creds;   /* NULL when not connected */
    const wg_connect_vault *vault;     /* may be NULL */
} wg_connector_call;

typedef struct wg_connector_ops {
    /* Runs one action. *out is a new ConnectorResult object. Returns 0 (also
     * for upstream failures, which are {success:false}), WG_ENOMEM. */
    int (*execute)(json_t **out, const wg_connector_call *call,
                   const wg_connector_action *action, const json_t *params);
    /* Probes the service. Returns 0 when healthy; otherwise a negative code
     * and *error (new, sanitized) says why. */
    int (*health)(char **error, const wg_connector_call *call);
} wg_connector_ops;

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
};

/* ---- SDK helpers (spec 8.1) --------------------------------------------- */

/* deriveCapabilities: insertion-ordered tags from the actions: low -> read,
 * medium/high -> write, a name containing search/find/list -> search.
 * *out is a new JSON array. Returns 0 or WG_ENOMEM. */
int wg_connector_capabilities(json_t **out, const wg_connector_spec *spec);

/* ConnectorDefinition for a status string (spec 8.4). *out is new. */
int wg_connector_definition(json_t **out, const wg_connector_spec *spec, const char *status);

/* safeErrorText: "<prefix> <status>: <text>", the text cut to 500 bytes plus
 * "...[truncated]", with anything that looks like a credential replaced by
 * "[redacted]" (bearer/basic tokens, key=value secrets, known token shapes,
 * and each string in secrets[], NULL-terminated, may be NULL). Control
 * characters become spaces. *out is new. Returns 0 or WG_ENOMEM. */
int wg_connector_safe_error(char **out, const char *prefix, long status,
                            const char *text, size_t len, const char *const *secrets);

/* Looks an action up by name; NULL when absent. */
const wg_connector_action *wg_connector_find_action(const wg_connector_spec *spec,
                                                    const char *name);

/* {success:true, data} (data stolen) / {success:false, error}. NULL on ENOMEM. */
json_t *wg_connector_ok(json_t *data);
json_t *wg_connector_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the built-in connectors -------------------------------------------- */

/* The built-in specs in registration order; *n receives the count.
 * Borrowed, static. Demo channels are separate (wg_connector_demo_specs). */
const wg_connector_spec *const *wg_connector_builtin_specs(size_t *n);
const wg_connector_spec *const *wg_connector_demo_specs(size_t *n);

/* ---- the registry (spec 8.2) --------------------------------------------- */

typedef struct wg_registry wg_registry;

typedef struct wg_registry_options {
    const wg_connect_vault *vault;   /* copied; may be NULL (nothing connects) */
    const wg_connect_audit *audit;   /* copied; may be NULL */
    int demo;                        /* register slack-mock, teams-mock, discord-mock */
    int no_builtins;                 /* start empty (tests) */
} wg_registry_options;

/* A registry with the built-in connectors registered (and the demo ones
 * when opts->demo), then loaded from the vault. *out is new: free with
 * wg_registry_free. Returns 0, WG_EINVAL, WG_ENOMEM. */
int wg_registry_new(wg_registry **out, const wg_registry_options *opts);
void wg_registry_free(wg_registry *reg);

/* Registers a spec (borrowed: it must outlive the registry); a second spec
 * with the same id replaces the first. Returns 0, WG_EINVAL, WG_ENOMEM. */
int wg_registry_register(wg_registry *reg, const wg_connector_spec *spec);
/* Returns 0, or WG_ENOTFOUND. */
int wg_registry_unregister(wg_registry *reg, const char *id);

/* Borrowed spec or NULL. */
const wg_connector_spec *wg_registry_get(const wg_registry *reg, const char *id);
size_t wg_registry_count(const wg_registry *reg);
const wg_connector_spec *wg_registry_at(const wg_registry *reg, size_t i);

/* (Re)reads every connector's credential from the vault: connectors with a
 * credential connect, the others forget theirs. Returns 0 or WG_E*. */
int wg_registry_load(wg_registry *reg);

/* 1 when the connector counts as connected: a demo connector, or a
 * non-expired credential. 0 otherwise (also for unknown ids). */
int wg_registry_is_connected(const wg_registry *reg, const char *id);

/* getConnected (spec 8.2): the ids of the connectors that count as
 * connected, in registration order (JSON array of strings, new). */
int wg_registry_connected(json_t **out, const wg_registry *reg);

/* Status string "connected" | "expired" | "disconnected" from the vault. */
const char *wg_registry_status(const wg_registry *reg, const char *id);

/* {…definition…} of every connector, in registration order (JSON array). */
int wg_registry_definitions(json_t **out, const wg_registry *reg);

/* ConnectorHealth {id,name,status,lastChecked,error?,tokenExpiresAt?}.
 * Returns 0 (healthy or not), WG_ENOTFOUND for an unknown id, or
 * WG_EUPSTREAM when the probe failed: *out is then still set to the
 * sanitized degraded health (status "error"). */
int wg_registry_health(json_t **out, wg_registry *reg, const char *id);

/* One ToolDefinition {name, description, parameters} per action of each
 * connected connector (JSON array). */
int wg_registry_tools(json_t **out, const wg_registry *reg);

/* The declared riskLevel of the action a tool name names. Returns 0, or
 * WG_ENOTFOUND when the name is not a registered connector action. The risk
 * comes only from the registry's table, never from call arguments. */
int wg_registry_action_risk(wg_risk_level *out, const wg_registry *reg, const char *tool);

/* The same as a gate hook (waggle/gate.h wg_gate_hooks.connector_risk):
 * registry is a wg_registry *; WG_RISK_UNKNOWN when the tool is not a
 * registered connector action. Thread-safe. */
wg_risk_level wg_registry_connector_risk(void *registry, const char *tool);

/* Runs a connector tool: audit-logs it, executes it, and writes the
 * ConnectorResult JSON object to *out (success false for every failure,
 * including "not connected" and unknown actions). Returns 0 or WG_ENOMEM,
 * or WG_ENOTFOUND when tool is not connector_<id>_<action> of a
 * registered connector (then *out is also set to {success:false,error}).
 * This does not ask for approval: run the gate first. */
int wg_registry_execute(json_t **out, wg_registry *reg, const char *tool, const json_t *args);

/* The connect request (spec 8.5 body). Borrowed strings; NULL = absent. */
typedef struct wg_connect_request {
    const char *token;
    const char *refresh_token;
    const char *expires_at;       /* ISO 8601; must parse when present */
    const json_t *scopes;         /* array of strings or NULL */
    const char *email;
    const char *base_url;         /* http(s) URL or NULL */
} wg_connect_request;

/* Stores the credential in the vault and connects the connector.
 * Returns 0, WG_ENOTFOUND (unknown id), WG_EINVAL (no token, bad expiresAt,
 * bad base URL, control characters), WG_EUNSUPPORTED (no vault), WG_E*. */
int wg_registry_connect(wg_registry *reg, const char *id, const wg_connect_request *req);

/* The tier's connectorLimit (waggle/tier.h; reference 13 item 19), checked
 * before wg_registry_connect by every front end (HTTP and CLI). A slot is
 * held by every non-demo connector with a stored credential, expired ones
 * too (a refresh is a reconnect). Rules, first match wins:
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
int wg_registry_check_limit(wg_connector_limit_decision *out, const wg_registry *reg,
                            const char *id, wg_tier effective);

/* The same rules over counts the caller gathered (the engine counts the
 * store's credentials and reservations): holds = id already holds a slot,
 * used = slots held. Pure; fills *out. */
void wg_connector_limit_decide(wg_connector_limit_decision *out, const wg_connector_spec *spec,
                               int holds, int used, wg_tier effective);

/* Stores one connector setting connector:<id>:<name> (e.g. email's
 * smtp_url). name must be one of spec->settings; value must be printable.
 * Returns 0, WG_ENOTFOUND (unknown id), WG_EINVAL (unknown setting, control
 * characters), WG_EUNSUPPORTED (no vault), WG_E* from the vault. */
int wg_registry_set_setting(wg_registry *reg, const char *id, const char *name, const char *value);

/* Deletes connector:<id> and every connector:<id>:* key and clears the
 * in-memory state. *out is {disconnected, connectorId, cleanedKeys}.
 * Returns 0, WG_EUNSUPPORTED (no vault), WG_E*. */
int wg_registry_disconnect(json_t **out, wg_registry *reg, const char *id);

/* A vault that lives in memory (tests, --no-store embedding). *out is new:
 * free with wg_connect_memvault_free. */
int wg_connect_memvault_new(wg_connect_vault **out);
void wg_connect_memvault_free(wg_connect_vault *v);

#ifdef __cplusplus
}
#endif
#endif

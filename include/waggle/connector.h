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
 * Credentials live only in the vault (the wg_connect_vault seam,
 * waggle/sys/connector.h) and
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
#include "waggle/sys/connector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The interfaces a connector author or a host implements - the vault and
 * audit seams, the upstream policy, wg_connector_spec and its operations,
 * the SDK helpers - are in waggle/sys/connector.h (included here). */

/* The seam over the store's encrypted vault (waggle/vault.h), every
 * function filled: what the server and the CLI use. v is borrowed. */
struct wg_vault;
WG_EXTERN void wg_connect_vault_of(wg_connect_vault *out, struct wg_vault *v);

/* ---- the built-in connectors -------------------------------------------- */

/* The built-in specs in registration order; *n receives the count.
 * Borrowed, static. Demo channels are separate (wg_connector_demo_specs). */
WG_EXTERN const wg_connector_spec *const *wg_connector_builtin_specs(size_t *n);
WG_EXTERN const wg_connector_spec *const *wg_connector_demo_specs(size_t *n);

/* ---- the registry (spec 8.2) --------------------------------------------- */

typedef struct wg_registry wg_registry;

#define WG_REGISTRY_OPTIONS_VERSION 1

typedef struct wg_registry_options {
    unsigned int version;            /* WG_REGISTRY_OPTIONS_VERSION */
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

#define WG_REGISTRY_OPTIONS_INIT { .version = WG_REGISTRY_OPTIONS_VERSION }

/* A registry with the built-in connectors registered (and the demo ones
 * when opts->demo), then loaded from the vault. *out is new: free with
 * wg_registry_free. opts may be NULL (the defaults). Returns 0, WG_EINVAL
 * (a refused grant; options, vault or audit seam of another version),
 * WG_ENOMEM. */
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

/* engine_int.h - what the files of src/engine share: the handle's fields
 * and the internal helpers between the handle (engine.c), the event bus
 * (bus.c), the pending approvals (approvals.c), the audit rows
 * (records.c), the executor (execute.c) and the audited operations
 * (ops.c). Not a public header. */
#ifndef WAGGLE_ENGINE_INT_H
#define WAGGLE_ENGINE_INT_H

#include "waggle/capability_tools.h"
#include "waggle/engine.h"
#include "waggle/kvark.h"

#include <pthread.h>
#include <stdint.h>

enum { ENGINE_POOLS_MAX = 16, ENGINE_SUBSCRIBERS_MAX = 256 };

typedef struct engine_pool {
    char *provider;
    wg_pool *pool;
} engine_pool;

typedef struct engine_provider {
    char prefix[WG_TOOL_PREFIX_MAX + 1];
    wg_tool_provider p;          /* prefix points at the copy above */
} engine_provider;

typedef struct engine_sub {
    uint64_t token;
    wg_engine_event_fn fn;
    void *ud;
} engine_sub;

struct wg_engine {
    /* options, copied */
    char *data_dir;
    char *store_url;
    char *actor;
    int demo;
    wg_autonomy_policy policy;
    int64_t approval_ttl_ms;
    size_t max_pending;
    size_t max_pending_bytes;
    char **never_autopass;       /* NULL-terminated, owned */
    int allow_private_upstreams, allow_http_upstreams, allow_privileged_db_roles;
    char **obsidian_roots;       /* NULL-terminated, owned, or NULL */
    const wg_upstream_resolver *resolver;
    wg_clock clock;
    wg_engine_bus bus;
    wg_engine_log_fn log;
    void *log_ud;

    /* parts, opened lazily under mu; read without the lock once set
     * (published with release stores, read with acquire loads) */
    pthread_mutex_t mu;
    wg_store *store;
    wg_vault *vault;
    wg_audit *audit;
    wg_connect_vault vault_seam;
    wg_connect_audit audit_seam;
    wg_registry *registry;
    wg_gate *gate;
    wg_trust *trust;
    wg_skillset *starter;
    /* install_capability's trust risk of each starter skill (index as in
     * starter), WG_RISK_UNKNOWN until first asked; allocated with starter,
     * entries read and written with atomics (a race computes the same value) */
    signed char *install_risk;
    wg_catalog *catalog;
    engine_pool pools[ENGINE_POOLS_MAX];
    pthread_mutex_t market_mu;   /* marketplace install/publish: check, then write */
    wg_kvark *kvark;             /* the KVARK client (token cache), made on first use under mu */
    size_t n_pools;

    /* tool providers: added before the engine is shared, read-only after */
    engine_provider providers[WG_ENGINE_PROVIDERS_MAX];
    size_t n_providers;

    /* the event bus */
    pthread_mutex_t bus_mu;
    engine_sub subs[ENGINE_SUBSCRIBERS_MAX];
    size_t n_subs;
    uint64_t next_token;
};

/* engine.c */
const char *wg_engine__actor(const wg_engine *e, const wg_engine_ctx *ctx);
void wg_engine__logf(const wg_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when tool is on the operator's never-autopass list. */
int wg_engine__never_autopass(const wg_engine *e, const char *tool);

/* kvark.c: the KVARK configuration when the four tools are registered
 * (wg_engine_kvark_status active); WG_ENOTFOUND with the reason otherwise.
 * *cfg owns its strings (wg_kvark_config_clear). */
int wg_engine__kvark_config(wg_kvark_config *cfg, wg_engine *e);
/* Runs a KVARK tool (after the gate). approval_id: the approval a person
 * granted for this call, or NULL. *result new. */
int wg_engine__kvark_run(json_t **result, wg_engine *e, const char *tool, const json_t *args,
                         const char *workspace_id, const char *approval_id);
/* The store when it holds the shared state (replicas on PostgreSQL:
 * opened here), NULL on one machine (SQLite: nothing is opened). */
int wg_engine__shared_store(wg_store **out, wg_engine *e);

/* providers.c: the provider whose prefix tool carries ("<prefix>__..."),
 * with *rest the tool name after "__"; NULL when none. */
const engine_provider *wg_engine__provider_of(const wg_engine *e, const char *tool,
                                              const char **rest);
/* The gate's decision for a provider's tool at level (waggle/engine.h
 * "tool providers"): the provider's verdict, with the bash gate's decision
 * of a shell-like argument merged in. Returns 0, WG_ENOTFOUND (not listed
 * now), WG_E* (the provider's classify failed: refuse). */
int wg_engine__provider_decide(wg_gate_decision *d, wg_engine *e, const engine_provider *p,
                               const char *rest, const json_t *args, wg_autonomy level);
/* Appends every provider's tools (ToolDefinitions, prefixed) to tools. */
int wg_engine__provider_tools(json_t *tools, wg_engine *e);

/* bus.c: hands one event to the call's own callback (ctx may be NULL),
 * then to every subscriber and the outward seam. data is borrowed. */
void wg_engine__emit(wg_engine *e, const wg_engine_ctx *ctx, wg_engine_event_kind kind,
                     const char *tool, const char *approval_id, const char *session_id,
                     const json_t *data);
void wg_engine__bus_fini(wg_engine *e);

/* execute.c: the step "✖ <tool> approval expired" and the error
 * APPROVAL_EXPIRED of an approval whose time passed. */
void wg_engine__expired_events(wg_engine *e, const wg_engine_ctx *ctx, const char *tool,
                               const char *approval_id, const char *workspace_id,
                               const char *session_id);

/* records.c: the argument summary every approval row carries: {args |
 * argsPreview + argsTruncated, argsDigest, argsBytes}, masked and bounded.
 * *out new. */
enum { ENGINE_PREVIEW_MAX = 2048 };
int wg_engine__args_summary(json_t **out, wg_engine *e, const json_t *args, size_t *bytes);
/* One approval_* row. summary borrowed (from wg_engine__args_summary);
 * extra fields are added to a copy. Returns 0 or the audit's error. */
typedef struct engine_row {
    const char *event;           /* "approval_requested", ... */
    const char *decision;        /* "requested", "granted", "denied", "auto" */
    const char *tool;
    const char *rule;
    const char *actor;
    const char *level;           /* _autonomy */
    const char *approval_id;
    const char *workspace_id, *session_id;
    const json_t *summary;
} engine_row;
int wg_engine__row(wg_engine *e, const engine_row *r);
/* A plain audited operation (vault_read, connector_connected, ...). input borrowed. */
int wg_engine__note(wg_engine *e, const char *event, const char *actor, const char *tool,
                    const json_t *input, const char *decision, const char *rule);

/* approvals.c: the store-backed pending approvals (migration 3). */
typedef struct engine_pending {
    char id[WG_ENGINE_APPROVAL_ID_MAX];
    const char *tool;
    const json_t *args;
    size_t args_bytes;
    const json_t *summary;
    const wg_gate_decision *decision;
    const char *level;
    const char *workspace_id, *session_id, *actor;
    int64_t expires_ms;          /* out */
} engine_pending;
/* Makes id and inserts the row unless the count or bytes bound is full
 * (WG_EBUSY). Expired ones are swept first. */
int wg_engine__pending_create(wg_engine *e, engine_pending *p);
/* Deletes a row that was just created (its audit row failed). */
void wg_engine__pending_drop(wg_engine *e, const char *id);

typedef struct engine_claim {
    wg_engine_status status;     /* RAN (granted: run it), DENIED or EXPIRED */
    char *tool;                  /* new */
    json_t *args;                /* new (granted only) */
    json_t *summary;             /* new */
    char *level, *workspace_id, *session_id, *rule;   /* new or NULL */
    int64_t expires_ms;
    int audit_expiry;            /* this claim moved it to expired: write the row */
} engine_claim;
/* Atomically answers a pending approval. Returns 0 and fills *c, or
 * WG_ENOTFOUND (unknown, already answered, forgotten). */
int wg_engine__pending_claim(wg_engine *e, const char *id, int approved, const char *actor,
                             engine_claim *c);
void wg_engine__claim_clear(engine_claim *c);
/* The tool of approval id (any state). *tool new. WG_ENOTFOUND. */
int wg_engine__pending_tool(char **tool, wg_engine *e, const char *id);
/* Forgets the arguments of a finished approval. */
void wg_engine__pending_done(wg_engine *e, const char *id);
/* Moves expired pending approvals to expired and writes their
 * approval_denied rows (rule approval.expired); drops forgotten ones. */
void wg_engine__pending_sweep(wg_engine *e);

#endif

/* waggle/engine.h - the engine handle and the one gated executor
 * (ARCHITECTURE "One engine, thin faces"; spec 4, 7, 7.5, 8.2).
 *
 * A wg_engine is opened on a data dir (or a store URL) and is the one object
 * a face - the HTTP service, the CLI, an MCP server, a hook, an embedding
 * program - holds, in the way git_repository is for libgit2. It owns the
 * store, the vault, the audit log, the connector registry, the gate, the
 * trust model with the starter skills, the MCP catalog, credential pools and
 * the tier, and opens each LAZILY on first use: a hook that only gates opens
 * neither the store nor the catalog.
 *
 * Every tool call from every face goes through wg_engine_execute:
 *   resolve autonomy (waggle/autonomy.h: expiry, the operator's cap and max
 *   level) -> the gate (plus the operator's never-autopass list) -> when a
 *   person must approve, a pending approval IN THE STORE (so another process
 *   or replica can resolve it; bounded by count and bytes) -> audit rows
 *   approval_requested / approval_granted / approval_denied / approval_auto
 *   (a digest and a bounded, masked preview of the arguments, _autonomy,
 *   workspaceId, and the session id under "session": the log masks keys
 *   named sessionId) -> run the tool -> step events.
 * An expired approval is approval_denied with rule approval.expired.
 * wg_engine_approve resolves an approval exactly once, from any process on
 * the same data dir: never run twice, never after a denial or an expiry.
 *
 * Ownership: the engine owns everything its getters return (borrowed
 * pointers, valid until wg_engine_free). Inputs are borrowed for the call.
 * Outcomes own their result (wg_engine_outcome_clear).
 *
 * Thread-safety: one engine may be shared by any number of threads once
 * opened; lazy opening is serialised inside. wg_engine_free must not race
 * with other calls. Event callbacks run on the thread that produced the
 * event, under the engine's event lock: they must be quick, must not block
 * and must not call back into the engine.
 *
 * Errors: 0 or a negative WG_E* with the message in wg_error_last().
 */
#ifndef WAGGLE_ENGINE_H
#define WAGGLE_ENGINE_H

#include "waggle/export.h"

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "waggle/audit.h"
#include "waggle/autonomy.h"
#include "waggle/catalog.h"
#include "waggle/connector.h"
#include "waggle/gate.h"
#include "waggle/pool.h"
#include "waggle/skills.h"
#include "waggle/store.h"
#include "waggle/tier.h"
#include "waggle/time.h"
#include "waggle/trust.h"
#include "waggle/types.h"
#include "waggle/vault.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_engine wg_engine;

/* ---- events (spec 7.5 step events) --------------------------------------- */

typedef enum {
    WG_ENGINE_EVENT_STEP = 0,          /* {content, tool, ...}: "⚡ <tool> auto-approved (<level>)" */
    WG_ENGINE_EVENT_APPROVAL_REQUIRED, /* {requestId, approvalId, toolName, input, approvalClass, ...} */
    WG_ENGINE_EVENT_RESULT,            /* {tool, result, approvalId?} */
    WG_ENGINE_EVENT_ERROR              /* {tool, error, message, approvalId?} */
} wg_engine_event_kind;

typedef struct wg_engine_event {
    wg_engine_event_kind kind;
    const char *name;          /* the SSE event name: "step", "approval_required", "result", "error" */
    const json_t *data;        /* the wire payload (an object); borrowed for the callback */
    const char *tool;          /* never NULL */
    const char *approval_id;   /* or NULL */
    const char *session_id;    /* or NULL */
    const void *origin;        /* the wg_engine_ctx of the call that made it; NULL from
                                  another replica. A face that streams its own call's
                                  events and listens on the bus skips its own. */
} wg_engine_event;

/* See "Thread-safety" above: quick, non-blocking, no calls into the engine. */
typedef void (*wg_engine_event_fn)(void *ud, const wg_engine_event *ev);

/* The bus's outward seam, for replicas: every event this engine publishes
 * is also handed to forward (e.g. a PostgreSQL NOTIFY); events arriving
 * from elsewhere (LISTEN) are fed in with wg_engine_publish_remote. */
typedef struct wg_engine_bus {
    void *ctx;
    void (*forward)(void *ctx, const char *name, const json_t *data);
} wg_engine_bus;

typedef void (*wg_engine_log_fn)(void *ud, const char *line);

/* ---- opening ---------------------------------------------------------------- */

#define WG_ENGINE_OPTIONS_VERSION 1
#define WG_ENGINE_DEFAULT_APPROVAL_TTL_MS 300000LL        /* spec 7: 5 minutes */
#define WG_ENGINE_DEFAULT_MAX_PENDING 1024
#define WG_ENGINE_DEFAULT_MAX_PENDING_BYTES (16u * 1024 * 1024)
#define WG_ENGINE_APPROVAL_ARGS_MAX (1024u * 1024)        /* one call's arguments, JSON bytes */
#define WG_ENGINE_NEVER_AUTOPASS_MAX 64
#define WG_ENGINE_TOOL_MAX 256                           /* bytes of a tool name */
#define WG_ENGINE_ID_MAX 128                             /* workspaceId, sessionId */

typedef struct wg_engine_options {
    unsigned int version;            /* WG_ENGINE_OPTIONS_VERSION */
    wg_autonomy max_autonomy;        /* the highest level an app may get (--max-autonomy) */
    const char *data_dir;            /* required: an existing directory (wg_datadir_open) */
    const char *store_url;           /* NULL: $WAGGLE_DATABASE_URL, else DATA_DIR/waggle.db */
    const char *actor;               /* audit actor of this face's rows; NULL: "library" */
    int demo;                        /* register the demo connectors */
    int64_t autonomy_cap_ms;         /* how far ahead expiresAt may be; 0: 8 h; < 0: WG_EINVAL */
    int64_t approval_ttl_ms;         /* a pending approval's life; 0: 5 min; < 0: WG_EINVAL */
    size_t max_pending;              /* pending approvals at once; 0: 1024 */
    size_t max_pending_bytes;        /* their arguments together; 0: 16 MiB */
    /* Tool names the operator marks never-autopass (NULL-terminated; a
     * trailing '*' matches a prefix): such a call needs a person's approval
     * at every autonomy level, rule operator.never_autopass. At most
     * WG_ENGINE_NEVER_AUTOPASS_MAX names of 1..WG_ENGINE_TOOL_MAX bytes. */
    const char *const *never_autopass;
    /* The operator's connector policy, passed to the registry
     * (waggle/connector.h wg_registry_options; never the default). */
    int allow_private_upstreams;     /* loopback/private/link-local upstreams */
    int allow_http_upstreams;        /* plain http:// and SMTP without TLS */
    int allow_privileged_db_roles;   /* the postgres connector's privileged roles */
    const char *const *obsidian_roots;   /* copied; NULL-terminated or NULL */
    const wg_upstream_resolver *resolver;   /* borrowed (tests); NULL: getaddrinfo */
    wg_clock clock;                  /* now.now NULL: the real clock */
    wg_engine_bus bus;               /* forward NULL: local only */
    wg_engine_log_fn log;            /* NULL: silent */
    void *log_ud;
} wg_engine_options;

#define WG_ENGINE_OPTIONS_INIT { .version = WG_ENGINE_OPTIONS_VERSION, .max_autonomy = WG_AUTONOMY_YOLO }

/* Opens an engine; nothing is opened on disk yet. *out is new: free with
 * wg_engine_free. opts is copied (strings too). Returns 0, WG_EINVAL (no
 * data dir, bad version, negative cap or TTL, a bad never-autopass name),
 * WG_ENOMEM. */
WG_EXTERN int wg_engine_open(wg_engine **out, const wg_engine_options *opts);
WG_EXTERN void wg_engine_free(wg_engine *e);

WG_EXTERN const char *wg_engine_data_dir(const wg_engine *e);
/* The autonomy policy the engine applies (cap and max level). */
WG_EXTERN void wg_engine_autonomy_policy(wg_autonomy_policy *out, const wg_engine *e);
WG_EXTERN int64_t wg_engine_now(const wg_engine *e);
/* How long a pending approval waits before it counts as denied. */
WG_EXTERN int64_t wg_engine_approval_ttl_ms(const wg_engine *e);

/* ---- the parts (lazy; each returns 0 and a borrowed pointer) ------------- */

WG_EXTERN int wg_engine_store(wg_store **out, wg_engine *e);
WG_EXTERN int wg_engine_vault(wg_vault **out, wg_engine *e);        /* opens the store */
WG_EXTERN int wg_engine_audit(wg_audit **out, wg_engine *e);        /* opens store and vault (masking) */
/* The registry with the built-in (and demo) connectors, credentials from
 * the vault, every execution audit-logged. Opens store, vault, audit. */
WG_EXTERN int wg_engine_registry(wg_registry **out, wg_engine *e);
/* The gate, with the registry's declared connector risk and the trust
 * model's install risk as hooks. Opens neither store nor catalog. */
WG_EXTERN int wg_engine_gate(const wg_gate **out, wg_engine *e);
WG_EXTERN int wg_engine_trust(const wg_trust **out, wg_engine *e);
WG_EXTERN int wg_engine_starter(const wg_skillset **out, wg_engine *e);
/* DATA_DIR/catalog.json over the embedded catalog; a broken local file is
 * logged and the embedded catalog served. */
WG_EXTERN int wg_engine_catalog(const wg_catalog **out, wg_engine *e);
/* The credential pool of provider (vault keys provider, provider-2, ...),
 * loaded once per engine with max_keys (<= 0: 10); at most 16 providers. */
WG_EXTERN int wg_engine_pool(wg_pool **out, wg_engine *e, const char *provider, int max_keys);
/* The tier status at the engine's clock: from DATA_DIR/config.json, or
 * from the shared store when the engine's store is PostgreSQL (replicas
 * share tier, trial and settings). wg_engine_tier answers FREE when a
 * shared store cannot be read; wg_engine_tier_get says why (returns 0 or
 * the store's error, e.g. WG_EUNAVAILABLE, with *out FREE). */
WG_EXTERN void wg_engine_tier(wg_tier_status *out, wg_engine *e);
WG_EXTERN int wg_engine_tier_get(wg_tier_status *out, wg_engine *e);

/* ---- one tool call ------------------------------------------------------------- */

#define WG_ENGINE_CALL_VERSION 1

typedef struct wg_engine_call {
    unsigned int version;            /* WG_ENGINE_CALL_VERSION */
    const char *tool;                /* required */
    const json_t *args;              /* an object, or NULL for {} */
    const char *workspace_id;        /* optional: audit rows and events */
    const char *session_id;          /* optional */
} wg_engine_call;

#define WG_ENGINE_CALL_INIT { .version = WG_ENGINE_CALL_VERSION }

/* What an interactive face answers when a person must approve. */
typedef enum {
    WG_ENGINE_ASK_DEFER = 0,   /* nobody here to ask: leave it pending */
    WG_ENGINE_ASK_APPROVE,
    WG_ENGINE_ASK_DENY
} wg_engine_answer;

typedef struct wg_engine_ask {
    const char *approval_id;
    const char *tool;
    const wg_gate_decision *decision;
    int64_t expires_ms;
} wg_engine_ask;

#define WG_ENGINE_CTX_VERSION 1

typedef struct wg_engine_ctx {
    unsigned int version;            /* WG_ENGINE_CTX_VERSION */
    const char *actor;               /* NULL: the engine's actor */
    wg_engine_event_fn on_event;     /* this call's events (also on the bus) */
    void *event_ud;
    /* A person at hand (a terminal): asked right after the approval is
     * created; NULL means DEFER. */
    wg_engine_answer (*ask)(void *ud, const wg_engine_ask *a);
    void *ask_ud;
} wg_engine_ctx;

#define WG_ENGINE_CTX_INIT { .version = WG_ENGINE_CTX_VERSION }

typedef enum {
    WG_ENGINE_RAN = 0,     /* the tool ran: result holds its {success, data|error} */
    WG_ENGINE_PENDING,     /* nothing ran: approval_id waits for wg_engine_approve */
    WG_ENGINE_DENIED,      /* nothing ran: a person said no */
    WG_ENGINE_EXPIRED      /* nothing ran: the approval's time passed (a denial) */
} wg_engine_status;

#define WG_ENGINE_APPROVAL_ID_MAX 33     /* 32 hex characters + NUL */

typedef struct wg_engine_outcome {
    wg_engine_status status;
    wg_gate_decision decision;
    wg_autonomy_resolution autonomy;
    char tool[WG_ENGINE_TOOL_MAX];
    char approval_id[WG_ENGINE_APPROVAL_ID_MAX];   /* "" when no approval was made */
    int64_t expires_ms;                            /* of the approval */
    json_t *result;                                /* WG_ENGINE_RAN: owned */
} wg_engine_outcome;

WG_EXTERN void wg_engine_outcome_clear(wg_engine_outcome *o);

/* The only way any face runs a tool. autonomy may be NULL (normal). The
 * tools: connector_<id>_<action> of a registered connector, the agent
 * tools acquire_capability, install_capability, find_connector,
 * list_connector_categories (spec 4), and the KVARK tools while they are
 * registered (wg_engine_kvark_status; spec 9). kvark_action sends
 * governance.userApproved:true only when it runs from a person's approval
 * (a terminal's answer through ctx->ask, or wg_engine_approve). Fills *out (clear it after).
 * Returns 0 with out->status; WG_EINVAL (bad call, bad autonomy),
 * WG_ENOTFOUND (no such tool), WG_EBUSY (too many pending approvals, by
 * count or bytes: nothing ran, nothing is pending), WG_E* when an audit row
 * that must precede the run cannot be written (fail closed: nothing ran). */
WG_EXTERN int wg_engine_execute(wg_engine *e, const wg_engine_call *call,
                                const wg_autonomy_request *autonomy, const wg_engine_ctx *ctx,
                                wg_engine_outcome *out);

/* Resolves approval id: approved runs the call (once) and fills out like
 * wg_engine_execute with status RAN; a denial is DENIED; an approval whose
 * time passed is EXPIRED (it never runs; the first late answer is told so,
 * later ones get WG_ENOTFOUND). Returns 0, WG_ENOTFOUND (unknown, already
 * answered, or forgotten),
 * WG_EINVAL, WG_E*. Works from any process on the same store. */
WG_EXTERN int wg_engine_approve(wg_engine *e, const char *id, int approved, const wg_engine_ctx *ctx,
                                wg_engine_outcome *out);

/* The gate's answer without running anything (POST /api/gate/check,
 * `waggle gate`): autonomy resolved, the never-autopass list applied, and
 * an approval_auto row written - and the step "⚡ <tool> auto-approved
 * (<level>)" published on the bus - when the level pre-approved a call the
 * base gate would ask for (unless flags has WG_ENGINE_CHECK_NO_AUDIT: a
 * what-if evaluation such as `waggle gate --batch`). args_json NULL = {}. Opens the
 * store only to write that row. Returns 0, WG_EINVAL, WG_E* (the row). */
#define WG_ENGINE_CHECK_NO_AUDIT 1u
WG_EXTERN int wg_engine_check(wg_engine *e, const wg_engine_call *call,
                              const wg_autonomy_request *autonomy, unsigned flags,
                              wg_engine_outcome *out);
/* The same for one line of `waggle gate --batch` ({"tool","args","level"};
 * the level is the operator's standing choice). Never audits. tool receives
 * the tool name (at most tool_cap - 1 bytes). */
WG_EXTERN int wg_engine_check_line(wg_engine *e, const char *line, size_t len, wg_autonomy default_level,
                                   char *tool, size_t tool_cap, wg_gate_decision *out);

/* {needsConfirmation, needsConfirmationBase, critical, autoApproved,
 *  approvalClass, level, rule, reason}. New. */
WG_EXTERN json_t *wg_engine_decision_json(const wg_gate_decision *d);

/* ---- pending approvals ------------------------------------------------------ */

typedef struct wg_engine_approval {
    char id[WG_ENGINE_APPROVAL_ID_MAX];
    char *tool;
    char *state;             /* "pending", "granted", "denied", "expired" */
    char *approval_class;
    char *rule;
    char *level;             /* the autonomy level the call was decided at */
    char *workspace_id, *session_id, *actor;   /* NULL when absent */
    json_t *preview;         /* {args | argsPreview, argsDigest, argsBytes} (masked, bounded) */
    int64_t created_ms, expires_ms;
} wg_engine_approval;

/* The approvals still answerable (pending, plus expired ones not yet
 * forgotten when all is set), oldest first, at most limit (0: 100).
 * Expired pending approvals are swept first (approval_denied rows). *out new. */
WG_EXTERN int wg_engine_approvals(wg_engine_approval **out, size_t *n, wg_engine *e, int all, size_t limit);
WG_EXTERN void wg_engine_approvals_free(wg_engine_approval *a, size_t n);
/* {approvalId, tool, state, approvalClass, rule, level, workspaceId?, sessionId?,
 *  createdAt, expiresAt (ISO), input}. New. */
WG_EXTERN json_t *wg_engine_approval_json(const wg_engine_approval *a);
/* Answers every approval whose time passed as denied now: its
 * approval_denied row (rule approval.expired) and, on the bus, the step
 * "✖ <tool> approval expired" and an error APPROVAL_EXPIRED. Every other
 * engine call that touches approvals sweeps first; a face that waits for
 * an approval calls this when the wait ends. */
WG_EXTERN void wg_engine_sweep(wg_engine *e);
/* The state of one approval ("pending", "granted", "denied", "expired",
 * "closed" = an expiry already answered), or WG_ENOTFOUND. *state new. */
WG_EXTERN int wg_engine_approval_state(char **state, wg_engine *e, const char *id);

/* ---- the event bus -------------------------------------------------------------- */

/* Every event of every call, for a dashboard's live queue (GET /api/events).
 * *token identifies the subscription. At most 256 subscribers (WG_EBUSY). */
WG_EXTERN int wg_engine_subscribe(uint64_t *token, wg_engine *e, wg_engine_event_fn fn, void *ud);
/* After it returns, fn is not running and will not be called again. */
WG_EXTERN void wg_engine_unsubscribe(wg_engine *e, uint64_t token);
/* An event that happened elsewhere (another replica): delivered to this
 * engine's subscribers, not forwarded again. name is an SSE event name,
 * data an object with at least "tool". Returns 0 or WG_EINVAL. */
WG_EXTERN int wg_engine_publish_remote(wg_engine *e, const char *name, const json_t *data);

/* ---- the tools an agent is given ------------------------------------------------ */

/* Which groups wg_engine_tools lists. */
#define WG_ENGINE_TOOLS_NATIVE     1u   /* spec 4: acquire/install_capability, find_connector, ... */
#define WG_ENGINE_TOOLS_KVARK      2u   /* spec 9: the four KVARK tools, when registered */
#define WG_ENGINE_TOOLS_CONNECTORS 4u   /* connector_<id>_<action> of connected connectors */
#define WG_ENGINE_TOOLS_PROVIDERS  8u   /* <prefix>__<tool> of every provider (wg_engine_add_provider) */
#define WG_ENGINE_TOOLS_ALL        15u

typedef struct wg_engine_tool_counts {
    size_t native, kvark, connector;
} wg_engine_tool_counts;

/* Every tool wg_engine_execute runs right now, as ToolDefinitions
 * {name, description, parameters (JSON Schema)} (the catalog tools also
 * carry offlineCapable; a provider's carry its annotations): native, then
 * KVARK, then connector, then provider tools (a provider that fails to list
 * adds none, and the engine logs why), limited
 * to the groups in which. What every face lists (GET /api/tools, the CLI,
 * the MCP face's tools/list). *out new; counts may be NULL. Opens the
 * registry (and so the store) for the KVARK and connector groups. Returns
 * 0, WG_ENOMEM, WG_E* from opening. */
WG_EXTERN int wg_engine_tools(json_t **out, wg_engine_tool_counts *counts, wg_engine *e, unsigned which);

/* ---- tool providers (the MCP gateway's upstreams; issue 14 §2) ----------- */

/* A provider adds tools named <prefix>__<tool> to the engine, and
 * wg_engine_execute stays the one executor of them: the engine asks the
 * provider to classify the call, decides (the autonomy level, the
 * operator's never-autopass list, pending approvals), writes the audit row
 * provider_call before the run (fail closed: no row, no run), and only then
 * asks the provider to run it. The provider never decides whether a call
 * runs.
 *
 * The decision from a verdict, at each level:
 *   risk LOW                 runs at every level (rule and reason from the verdict)
 *   MEDIUM, HIGH, UNKNOWN    needs a person at Normal and Trusted, runs at YOLO
 *                            (approval class elevated; critical for HIGH)
 *   shell (a string argument that is a shell command): the bash gate's
 *   decision of it is merged in, the stricter wins; a never-autopass command
 *   (rm -rf /, curl | sh, ...) needs a person at every level.
 *   critical: needs a person at every level (never-autopass), whatever the risk.
 *
 * Callbacks run on the calling thread of wg_engine_tools / wg_engine_execute /
 * wg_engine_approve, from any number of threads at once: they must be
 * thread-safe. prefix and the function pointers are copied; ctx is borrowed
 * and must outlive the engine (or be valid until wg_engine_free). */
#define WG_TOOL_PROVIDER_VERSION 2        /* 2 added run_progress; 1 is still accepted */
#define WG_ENGINE_PROVIDERS_MAX 64
#define WG_TOOL_PREFIX_MAX 64              /* bytes of a prefix */

typedef struct wg_tool_verdict {
    wg_risk_level risk;
    const char *rule;                      /* static, e.g. "gateway.verb.write" */
    char reason[WG_GATE_REASON_MAX];       /* one sentence */
    const char *shell;                     /* borrowed from args: a shell command, or NULL */
    const char *shell_key;                 /* the argument it came from, or NULL */
    int critical;                          /* 1: never-autopass, a person at every level (a write
                                            * to a file that runs code or to the system itself) */
} wg_tool_verdict;

/* What a provider reports while it runs a call (version 2): done so far,
 * total (< 0: not known), message (may be NULL; borrowed for the call). It
 * may be called from any of the provider's threads until run_progress
 * returns, never after; it does not block: the engine turns it into a step
 * event of the call (at most WG_ENGINE_PROGRESS_MAX per call, 100 ms apart),
 * which an MCP client that asked for progress sees as notifications/progress. */
typedef void (*wg_tool_progress_fn)(void *pud, double done, double total, const char *message);
#define WG_ENGINE_PROGRESS_MAX 256

typedef struct wg_tool_provider {
    unsigned int version;                  /* WG_TOOL_PROVIDER_VERSION */
    const char *prefix;                    /* 1..WG_TOOL_PREFIX_MAX of [A-Za-z0-9_-], no "__" */
    void *ctx;
    /* The tools now: an array of {name (without the prefix), description?,
     * inputSchema?, annotations?}. *out new. */
    int (*list)(void *ctx, json_t **out);
    /* tool is the name without the prefix. WG_ENOTFOUND when it is not
     * listed now; any other error refuses the call. */
    int (*classify)(void *ctx, const char *tool, const json_t *args, wg_tool_verdict *out);
    /* Runs it. *result new: {success, data|error} and optionally content
     * (an MCP content array a face may pass through). Returns 0, or WG_E*
     * with the reason (the call failed, nothing to show). */
    int (*run)(void *ctx, const char *tool, const json_t *args, json_t **result);
    /* Version 2, optional (NULL: run is used): run, reporting progress
     * through progress(pud, ...) while the call runs. */
    int (*run_progress)(void *ctx, const char *tool, const json_t *args,
                        wg_tool_progress_fn progress, void *pud, json_t **result);
} wg_tool_provider;

#define WG_TOOL_PROVIDER_INIT { .version = WG_TOOL_PROVIDER_VERSION }

/* Adds a provider. Call before the engine is shared between threads (like
 * opening it). Returns 0; WG_EINVAL (bad version, prefix or a NULL
 * callback), WG_EEXISTS (the prefix is taken), WG_EBUSY (WG_ENGINE_PROVIDERS_MAX).
 * A version 1 provider (without run_progress) is read up to run. */
WG_EXTERN int wg_engine_add_provider(wg_engine *e, const wg_tool_provider *p);
/* 1 when tool is <prefix>__<something> of an added provider (whether or
 * not the provider lists it now: wg_engine_execute then says why not). */
WG_EXTERN int wg_engine_is_provider_tool(const wg_engine *e, const char *tool);

/* ---- KVARK (spec 9; waggle/kvark.h) -------------------------------------------- */

/* Whether the four KVARK tools are registered, and why (not). They are
 * exactly when kvark:connection holds a valid configuration
 * (wg_kvark_config_parse) and the effective tier is TEAMS, ENTERPRISE or
 * an active TRIAL (ARCHITECTURE.md Decisions): 4 tools then, 0 otherwise. */
typedef struct wg_engine_kvark_state {
    int configured;          /* kvark:connection is in the vault */
    int valid;               /* ... and is a valid configuration */
    int tier_allows;         /* the effective tier includes KVARK */
    int active;              /* valid && tier_allows */
    wg_tier effective;
    char reason[256];        /* why not active ("" when active); never the value */
} wg_engine_kvark_state;

/* Fills *out (reads the vault and config.json). Returns 0, WG_E* when the
 * vault cannot be opened (out then says not configured). */
WG_EXTERN int wg_engine_kvark_status(wg_engine_kvark_state *out, wg_engine *e);

/* ---- connectors and other audited operations ------------------------------- */

/* The tier's connector limit, decided from the store (every process's
 * credentials), without connecting: for a face that wants to refuse before
 * asking for a token. */
WG_EXTERN int wg_engine_connect_check(wg_connector_limit_decision *out, wg_engine *e, const char *id);
/* Connects id: the limit is taken atomically across threads, processes and
 * replicas (a short reservation in the store), the credential goes to the
 * vault, and an audit row connector_connected (or connector_refused) is
 * written - never the credential. Returns 0; WG_ETIER with *lim filled when
 * the tier refuses; WG_ENOTFOUND, WG_EINVAL, WG_EUNSUPPORTED, WG_E*. */
WG_EXTERN int wg_engine_connect(wg_connector_limit_decision *lim, wg_engine *e, const char *id,
                                const wg_connect_request *req, const char *actor);
/* Disconnects id (registry semantics) and writes connector_disconnected. */
WG_EXTERN int wg_engine_disconnect(json_t **out, wg_engine *e, const char *id, const char *actor);

/* A vault read that is always audited: the vault_read row is written
 * before the value is handed out, and when it cannot be, nothing is
 * returned: WG_EDENIED "its vault_read audit row could not be written
 * (<why>)" (fail closed). */
WG_EXTERN int wg_engine_vault_get(wg_vault_entry **out, wg_engine *e, const char *name, const char *actor);
/* vault_set / vault_deleted rows after the change. deleted (optional) is a
 * new JSON array of the names removed. */
WG_EXTERN int wg_engine_vault_set(wg_engine *e, const char *name, const char *value, size_t len,
                                  const json_t *meta, const char *actor);
WG_EXTERN int wg_engine_vault_delete(json_t **deleted, wg_engine *e, const char *name, int with_subkeys,
                                     const char *actor);
/* The next key of provider's pool; revealing it (reveal != 0) writes
 * pool_key_revealed first and fails closed (WG_EDENIED, as above). *key,
 * *name borrowed from the pool. */
WG_EXTERN int wg_engine_pool_next(const char **key, const char **name, wg_engine *e, const char *provider,
                                  int max_keys, int reveal, const char *actor);
/* Tier changes (waggle/tier.h), audited as tier_changed. */
WG_EXTERN int wg_engine_tier_set(wg_engine *e, wg_tier tier, const char *actor);
WG_EXTERN int wg_engine_trial_start(wg_engine *e, const char *actor);
/* Audit rows for an export (admin audit export): lists like wg_audit_list
 * and records audit_export first. */
WG_EXTERN int wg_engine_audit_export(wg_audit_event **out, size_t *n, wg_engine *e,
                                     const wg_audit_query *q, const char *actor);
/* The operator's acceptance of a log that no longer verifies (`waggle
 * audit reanchor`): wg_audit_reanchor on the engine's log, which records
 * what was given up in an audit_reanchored row. actor may be NULL ("cli").
 * *id (optional) is that row's id. Returns what wg_audit_reanchor does. */
WG_EXTERN int wg_engine_audit_reanchor(wg_engine *e, const char *actor, int64_t *id);

#ifdef __cplusplus
}
#endif
#endif

/* waggle/audit.h - the append-only audit log with a SHA-256 hash chain.
 *
 * Every row carries prev_hash (the hash of the row before it, 64 zeros for
 * the first) and hash = SHA-256 over prev_hash and the row's canonical
 * content (id, ts, event, actor, tool, input, decision, rule), so editing,
 * deleting or reordering rows is detected by wg_audit_verify. Appends run
 * in a write transaction (BEGIN IMMEDIATE): concurrent appenders in several
 * processes queue up and the chain never forks.
 *
 * Secrets never enter the log: `input` is masked before it is stored --
 * the value of any key that names a secret (token, apiKey, api_key,
 * password, secret, authorization, refreshToken, cookie, credential,
 * private_key, ... case-insensitive, at any depth) becomes "***", and when
 * the audit handle has a vault, any string containing a vault value (4+
 * bytes) has it replaced by "***".
 *
 * Events: approval_auto, approval_requested, approval_granted,
 * approval_denied, connector.<id>.<action>, tier_changed, vault_set,
 * vault_deleted, vault_read, ... (free-form, 1..128 bytes, no spaces or
 * control characters; WG_EINVAL otherwise).
 *
 * Thread-safety: a wg_audit may be shared by threads.
 * Errors: WG_EINVAL, WG_ESTORE, WG_EBUSY, WG_ENOMEM.
 */
#ifndef WAGGLE_AUDIT_H
#define WAGGLE_AUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "waggle/store.h"
#include "waggle/vault.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_audit wg_audit;

/* st borrowed (must outlive the handle); vault may be NULL (then only
 * key-based masking). *out is new: free with wg_audit_free. */
int wg_audit_open(wg_audit **out, wg_store *st, wg_vault *vault);
void wg_audit_free(wg_audit *a);

/* What a caller appends. All borrowed; only event is required. */
typedef struct wg_audit_record {
    const char *event;      /* e.g. "connector.github.create_issue" */
    const char *actor;      /* "cli", "api", "agent", a user ... */
    const char *tool;       /* tool name or NULL */
    const json_t *input;    /* any JSON or NULL; masked before storing */
    const char *decision;   /* "allowed", "denied", "auto", "ok", "error" ... */
    const char *rule;       /* the rule id that decided, or NULL */
    int64_t ts_ms;          /* 0 = now */
} wg_audit_record;

/* Appends one row. *id (optional) receives its id (1, 2, ...). */
int wg_audit_append(wg_audit *a, const wg_audit_record *rec, int64_t *id);

/* A stored row; all strings new. */
typedef struct wg_audit_event {
    int64_t id;
    char *ts;               /* ISO-8601 UTC with milliseconds */
    char *event, *actor, *tool, *decision, *rule;   /* NULL when absent */
    json_t *input;          /* masked input, or NULL */
    char *prev_hash, *hash; /* 64 lower-case hex chars */
} wg_audit_event;

void wg_audit_events_free(wg_audit_event *events, size_t n);

typedef struct wg_audit_query {
    size_t limit;           /* 0 = 50; newest rows first */
    const char *event;      /* exact event, or a prefix ending in '*' ("connector.*"); NULL = all */
} wg_audit_query;

/* *out new array (wg_audit_events_free), *n may be 0. q may be NULL. */
int wg_audit_list(wg_audit_event **out, size_t *n, wg_audit *a, const wg_audit_query *q);

/* Event JSON {id, ts, event, actor, tool, input, decision, rule, hash}. New. */
json_t *wg_audit_event_json(const wg_audit_event *e);

typedef struct wg_audit_verify_result {
    int ok;                 /* 1 when the chain is intact */
    size_t rows;            /* rows checked */
    int64_t first_bad_id;   /* the first broken row, 0 when ok */
    char reason[160];       /* why it is broken ("" when ok) */
} wg_audit_verify_result;

/* Walks the chain in id order. Returns 0 with res->ok 0/1 (a broken chain
 * is a result, not an error); negative only when the store fails. */
int wg_audit_verify(wg_audit_verify_result *res, wg_audit *a);

/* Masked deep copy of input (new; NULL input gives NULL). vault may be
 * NULL. Returns 0 or WG_ENOMEM / WG_E* from the vault. */
int wg_audit_mask(json_t **out, const json_t *input, wg_vault *vault);

/* The connector registry's audit seam (struct wg_connect_audit in
 * connector.h): ctx = the wg_audit*. entry {actionType, description,
 * requiresApproval, tool, success, error?} becomes event actionType,
 * actor "agent", decision "ok"/"error", input = the whole entry masked. */
int wg_audit_seam_log(void *ctx, const json_t *entry);

#ifdef __cplusplus
}
#endif
#endif

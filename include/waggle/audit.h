/* waggle/audit.h - the append-only audit log with a SHA-256 hash chain.
 *
 * Every row carries prev_hash (the hash of the row before it, 64 zeros for
 * the first) and hash = SHA-256 over prev_hash and the row's canonical
 * content (id, ts, event, actor, tool, input, decision, rule), so editing,
 * deleting or reordering rows is detected by wg_audit_verify. Appends run
 * in a write transaction (BEGIN IMMEDIATE): concurrent appenders in several
 * processes queue up and the chain never forks.
 *
 * Anchoring (schema version 2; docs/store.md "Anchoring"): a hash chain
 * alone lets anyone who can write the table cut its newest rows or rewrite
 * it and re-hash. So every row also carries a seal (keyed BLAKE2b over its
 * id and hash, with a key derived from the vault key by crypto_kdf), and
 * one anchor row (table audit_anchor) keeps the sealed head -- row count
 * and newest hash -- updated in the same transaction as each append, so a
 * crash never leaves a valid log that looks tampered. After each append
 * the data dir's witness file (WG_AUDIT_WITNESS_FILE, 0600) records the
 * sealed head this data dir has seen, outside the database, so a wiped,
 * replaced or rolled-back database is caught too. Without the key nobody
 * can forge a seal; with the key (vault.key or the passphrase) everything
 * can be rewritten -- see docs/security.md "Audit log".
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
 * Errors: WG_EINVAL, WG_ESTORE, WG_EBUSY, WG_ENOMEM, WG_ECRYPTO (the log
 * does not match its sealed anchor), and the vault's errors at open.
 */
#ifndef WAGGLE_AUDIT_H
#define WAGGLE_AUDIT_H

#include "waggle/export.h"

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "waggle/store.h"
#include "waggle/vault.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_audit wg_audit;

/* The witness file in the data dir. */
#define WG_AUDIT_WITNESS_FILE "audit-witness"

/* st borrowed (must outlive the handle); vault may be NULL (then only
 * key-based masking, and the vault is opened here just long enough to
 * derive the seal key: DATA_DIR/vault.key or WAGGLE_VAULT_PASSPHRASE).
 * When migration 2 left the anchor unsealed, this seals it: an empty log
 * silently; a log with rows by appending an audit_anchored row
 * {rows, head} (those rows are trusted as found; see
 * wg_audit_legacy_sealed) -- unless this data dir's witness shows the log
 * was anchored before, which means the anchor was reset: then it stays
 * unsealed and appends are refused. *out is new: free with wg_audit_free.
 * Returns 0, or the vault's error (the seal key cannot be derived), or
 * WG_ESTORE / WG_EBUSY / WG_ENOMEM. */
WG_EXTERN int wg_audit_open(wg_audit **out, wg_store *st, wg_vault *vault);
WG_EXTERN void wg_audit_free(wg_audit *a);

/* How many unsealed older rows this open anchored (0 when none): a caller
 * with a user (the CLI) says so once. */
WG_EXTERN int64_t wg_audit_legacy_sealed(const wg_audit *a);

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

/* Appends one row. *id (optional) receives its id (1, 2, ...).
 * WG_ECRYPTO when the log does not match its sealed anchor (rows cut,
 * added or rewritten outside waggle, anchor forged, reset or deleted):
 * nothing is appended until the operator has looked (wg_audit_verify) and
 * accepted the log as it is (wg_audit_reanchor). */
WG_EXTERN int wg_audit_append(wg_audit *a, const wg_audit_record *rec, int64_t *id);

/* A stored row; all strings new. */
typedef struct wg_audit_event {
    int64_t id;
    char *ts;               /* ISO-8601 UTC with milliseconds */
    char *event, *actor, *tool, *decision, *rule;   /* NULL when absent */
    json_t *input;          /* masked input, or NULL */
    char *prev_hash, *hash; /* 64 lower-case hex chars */
} wg_audit_event;

WG_EXTERN void wg_audit_events_free(wg_audit_event *events, size_t n);

typedef struct wg_audit_query {
    size_t limit;           /* 0 = 50; newest rows first */
    const char *event;      /* exact event, or a prefix ending in '*' ("connector.*"); NULL = all */
} wg_audit_query;

/* *out new array (wg_audit_events_free), *n may be 0. q may be NULL. */
WG_EXTERN int wg_audit_list(wg_audit_event **out, size_t *n, wg_audit *a, const wg_audit_query *q);

/* Event JSON {id, ts, event, actor, tool, input, decision, rule, hash}. New. */
WG_EXTERN json_t *wg_audit_event_json(const wg_audit_event *e);

typedef struct wg_audit_verify_result {
    int ok;                 /* 1 when the chain, its seals, the anchor and
                               the witness all agree */
    size_t rows;            /* rows checked and found intact */
    int64_t first_bad_id;   /* the first broken or first missing row; 0 when
                               ok or when no row is to blame (the anchor
                               itself is missing, forged or unsealed) */
    char reason[512];       /* why ("" when ok): "row N: ..." naming the row,
                               or "the newest N rows are missing: the anchor
                               says count C, head H; ..." */
    int64_t anchor_rows;    /* the anchor's row count; -1 when absent */
    char anchor_head[65];   /* the anchor's head hash ("" when absent) */
    int64_t witness_rows;   /* the head this data dir witnessed; 0 = none */
    int64_t trusted_rows;   /* leading rows written before the log was
                               anchored (trusted as found by migration 2) */
} wg_audit_verify_result;

/* Walks the chain in id order inside one read snapshot and checks, in
 * order: consecutive ids, prev_hash links, content hashes, row seals (a
 * row without a seal is allowed only before the first sealed one), then
 * the anchor (present, sealed, seal valid, same count and head), then this
 * data dir's witness (never more rows than the log, same hash at its
 * row). Returns 0 with res->ok 0/1 (a broken log is a result, not an
 * error); negative only when the store fails. Linear in the log's length;
 * rows are read 500 at a time. */
WG_EXTERN int wg_audit_verify(wg_audit_verify_result *res, wg_audit *a);

/* The operator's way back after tampering was seen (the CLI's
 * `waggle audit reanchor`): accepts the log as it is now -- shortened,
 * emptied, or a database that replaced the one the witness saw -- by
 * appending a sealed audit_reanchored row {rows, head, previousAnchor,
 * witness} that records what was given up, and resetting the anchor and
 * this data dir's witness to the new head. A log whose rows or seals are
 * broken (edited, re-hashed) cannot be accepted: WG_ECRYPTO naming the
 * row. actor may be NULL ("cli"). *id (optional) is the new row's id.
 * Returns 0, WG_ECRYPTO, WG_ESTORE, WG_EBUSY, WG_ENOMEM. */
WG_EXTERN int wg_audit_reanchor(wg_audit *a, const char *actor, int64_t *id);

/* Masked deep copy of input (new; NULL input gives NULL). vault may be
 * NULL. Returns 0 or WG_ENOMEM / WG_E* from the vault. */
WG_EXTERN int wg_audit_mask(json_t **out, const json_t *input, wg_vault *vault);

/* The connector registry's audit seam (struct wg_connect_audit in
 * connector.h): ctx = the wg_audit*. entry {actionType, description,
 * requiresApproval, tool, success, error?} becomes event actionType,
 * actor "agent", decision "ok"/"error", input = the whole entry masked. */
WG_EXTERN int wg_audit_seam_log(void *ctx, const json_t *entry);

#ifdef __cplusplus
}
#endif
#endif

/* approvals.c - pending approvals in the store (migration 3, table
 * approvals), so any process or replica sharing the store can answer one.
 *
 * A row's life: pending -> granted | denied (an answer, exactly once:
 * one conditional UPDATE ... WHERE state = 'pending' inside a write
 * transaction, so two answerers can never both win) or pending -> expired
 * (its time passed; an approval_denied row with rule approval.expired is
 * written by whoever moved it) -> closed (the first late answer, told
 * "expired"; later ones are "not found"). Finished rows keep no arguments
 * and are deleted one TTL after expiry.
 *
 * Bounds: at most max_pending rows pending, and their arguments' JSON at
 * most max_pending_bytes together (the new call included); past either the
 * call is refused with WG_EBUSY and nothing waits. */
#include "engine/engine_int.h"
#include "waggle/error.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_cell(const wg_store_rows *rows, size_t c)
{
    const char *v = wg_store_rows_text(rows, 0, c);
    return v ? strdup(v) : NULL;
}

/* ---- sweeping -------------------------------------------------------------- */

typedef struct expired_row {
    char id[WG_ENGINE_APPROVAL_ID_MAX];
    char *tool, *summary, *level, *workspace_id, *session_id;
} expired_row;

enum { SWEEP_BATCH = 64 };

/* The row, then the events a waiting stream (and a dashboard) needs. */
static void expired_audit(wg_engine *e, const expired_row *x)
{
    json_t *summary = x->summary ? json_loads(x->summary, 0, NULL) : NULL;
    engine_row r = { "approval_denied", "denied", x->tool, "approval.expired", e->actor,
                     x->level, x->id, x->workspace_id, x->session_id, summary };
    wg_engine__row(e, &r);
    json_decref(summary);
    wg_engine__logf(e, "approval %.8s… expired for %s", x->id, x->tool ? x->tool : "?");
    wg_engine__expired_events(e, NULL, x->tool ? x->tool : "", x->id, x->workspace_id,
                              x->session_id);
}

static void expired_free(expired_row *x)
{
    free(x->tool);
    free(x->summary);
    free(x->level);
    free(x->workspace_id);
    free(x->session_id);
}

/* One batch, inside the caller's write transaction: moves up to SWEEP_BATCH
 * expired rows to 'expired' (each one this process moved is returned for
 * its audit row) and deletes forgotten rows. */
static int sweep_locked(wg_store *st, int64_t now, expired_row *out, size_t *n)
{
    *n = 0;
    wg_store_value p[2] = { WG_SV_INT(now), WG_SV_INT(SWEEP_BATCH) };
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(st, "SELECT id, tool, summary, level, workspace_id, session_id"
                           " FROM approvals WHERE state = 'pending' AND expires_ms <= ?"
                           " ORDER BY expires_ms LIMIT ?", p, 2, &rows, NULL);
    for (size_t r = 0; rc == 0 && r < wg_store_rows_count(rows); r++) {
        wg_store_value u = WG_SV_TEXT(wg_store_rows_text(rows, r, 0));
        int64_t changed = 0;
        rc = wg_store_exec(st, "UPDATE approvals SET state = 'expired', args = '{}' WHERE id = ?"
                           " AND state = 'pending'", &u, 1, NULL, &changed);
        if (rc < 0 || changed != 1)
            continue;
        expired_row *x = &out[(*n)++];
        memset(x, 0, sizeof *x);
        snprintf(x->id, sizeof x->id, "%s", wg_store_rows_text(rows, r, 0));
        const char *f[5];
        for (size_t c = 0; c < 5; c++)
            f[c] = wg_store_rows_text(rows, r, c + 1);
        x->tool = f[0] ? strdup(f[0]) : NULL;
        x->summary = f[1] ? strdup(f[1]) : NULL;
        x->level = f[2] ? strdup(f[2]) : NULL;
        x->workspace_id = f[3] ? strdup(f[3]) : NULL;
        x->session_id = f[4] ? strdup(f[4]) : NULL;
    }
    wg_store_rows_free(rows);
    /* only after every expiry of this batch was claimed for its row: a
     * pending row past its forget time is audited, not silently dropped */
    if (rc == 0 && *n < SWEEP_BATCH)
        rc = wg_store_exec(st, "DELETE FROM approvals WHERE forget_ms <= ? AND state <> 'pending'",
                           p, 1, NULL, NULL);
    return rc;
}

void wg_engine_sweep(wg_engine *e)
{
    if (e)
        wg_engine__pending_sweep(e);
}

/* Runs the sweep in its own transaction and writes the rows after commit. */
void wg_engine__pending_sweep(wg_engine *e)
{
    wg_store *st = NULL;
    if (wg_engine_store(&st, e) < 0)
        return;
    for (int round = 0; round < 16; round++) {   /* bounded: 16 batches per call */
        expired_row xs[SWEEP_BATCH];
        size_t n = 0;
        if (wg_store_begin(st, WG_STORE_TX_WRITE) < 0)
            return;
        int rc = sweep_locked(st, wg_engine_now(e), xs, &n);
        rc = rc < 0 ? (wg_store_rollback(st), rc) : wg_store_commit(st);
        for (size_t i = 0; i < n; i++) {
            if (rc == 0)
                expired_audit(e, &xs[i]);
            expired_free(&xs[i]);
        }
        if (rc < 0 || n < SWEEP_BATCH)
            return;
    }
}

/* ---- creating ------------------------------------------------------------------ */

int wg_engine__pending_create(wg_engine *e, engine_pending *p)
{
    wg_store *st = NULL;
    int rc = wg_engine_store(&st, e);
    if (rc < 0)
        return rc;
    wg_engine__pending_sweep(e);
    if (p->args_bytes > e->max_pending_bytes)
        return wg_error_set(WG_EBUSY, "the call's arguments (%zu bytes) are larger than all "
                            "pending approvals may be together (%zu bytes)", p->args_bytes,
                            e->max_pending_bytes);
    unsigned char raw[16];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(p->id, sizeof p->id, raw, sizeof raw);
    char *args = json_dumps(p->args, JSON_COMPACT);
    char *summary = json_dumps(p->summary, JSON_COMPACT);
    if (!args || !summary) {
        free(args);
        free(summary);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    int64_t now = wg_engine_now(e);
    p->expires_ms = now + e->approval_ttl_ms;
    wg_store_rows *rows = NULL;
    if ((rc = wg_store_begin(st, WG_STORE_TX_WRITE)) < 0)
        goto out;
    rc = wg_store_exec(st, "SELECT COUNT(*), COALESCE(SUM(args_bytes), 0) FROM approvals"
                       " WHERE state = 'pending'", NULL, 0, &rows, NULL);
    int64_t count = rc == 0 ? wg_store_rows_int(rows, 0, 0) : 0;
    int64_t bytes = rc == 0 ? wg_store_rows_int(rows, 0, 1) : 0;
    if (rc == 0 && (uint64_t)count >= e->max_pending)
        rc = wg_error_set(WG_EBUSY, "too many calls wait for approval (%lld, the limit is %zu)",
                          (long long)count, e->max_pending);
    else if (rc == 0 && (uint64_t)bytes + p->args_bytes > e->max_pending_bytes)
        rc = wg_error_set(WG_EBUSY, "the calls waiting for approval hold too many bytes of "
                          "arguments (%lld + %zu, the limit is %zu)", (long long)bytes,
                          p->args_bytes, e->max_pending_bytes);
    if (rc == 0) {
        const wg_gate_decision *d = p->decision;
        wg_store_value v[] = {
            WG_SV_TEXT(p->id), WG_SV_TEXT(p->tool), WG_SV_TEXT(args),
            WG_SV_INT(p->args_bytes), WG_SV_TEXT(summary), WG_SV_TEXT(p->level),
            WG_SV_TEXT(wg_approval_name(d->approval_class)), WG_SV_TEXT(d->rule),
            WG_SV_TEXT(p->workspace_id), WG_SV_TEXT(p->session_id), WG_SV_TEXT(p->actor),
            WG_SV_INT(now), WG_SV_INT(p->expires_ms), WG_SV_INT(p->expires_ms + e->approval_ttl_ms),
        };
        rc = wg_store_exec(st, "INSERT INTO approvals (id, state, tool, args, args_bytes, summary,"
                           " level, approval_class, rule, workspace_id, session_id, actor,"
                           " created_ms, expires_ms, forget_ms)"
                           " VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           v, sizeof v / sizeof *v, NULL, NULL);
    }
    if (rc < 0)
        wg_store_rollback(st);
    else
        rc = wg_store_commit(st);
out:
    wg_store_rows_free(rows);
    sodium_memzero(args, strlen(args));
    free(args);
    free(summary);
    return rc;
}

void wg_engine__pending_drop(wg_engine *e, const char *id)
{
    wg_store *st = NULL;
    wg_store_value v = WG_SV_TEXT(id);
    if (wg_engine_store(&st, e) == 0)
        wg_store_exec(st, "DELETE FROM approvals WHERE id = ?", &v, 1, NULL, NULL);
}

void wg_engine__pending_done(wg_engine *e, const char *id)
{
    wg_store *st = NULL;
    wg_store_value v = WG_SV_TEXT(id);
    if (wg_engine_store(&st, e) == 0)
        wg_store_exec(st, "UPDATE approvals SET args = '{}' WHERE id = ?", &v, 1, NULL, NULL);
}

/* ---- answering ----------------------------------------------------------------- */

void wg_engine__claim_clear(engine_claim *c)
{
    free(c->tool);
    json_decref(c->args);
    json_decref(c->summary);
    free(c->level);
    free(c->workspace_id);
    free(c->session_id);
    free(c->rule);
    memset(c, 0, sizeof *c);
}

int wg_engine__pending_claim(wg_engine *e, const char *id, int approved, const char *actor,
                             engine_claim *c)
{
    memset(c, 0, sizeof *c);
    wg_store *st = NULL;
    int rc = wg_engine_store(&st, e);
    if (rc < 0)
        return rc;
    int64_t now = wg_engine_now(e);
    wg_store_rows *rows = NULL;
    wg_store_value k = WG_SV_TEXT(id);
    if ((rc = wg_store_begin(st, WG_STORE_TX_WRITE)) < 0)
        return rc;
    rc = wg_store_exec(st, "SELECT state, tool, args, summary, level, workspace_id, session_id,"
                       " rule, expires_ms, forget_ms FROM approvals WHERE id = ?", &k, 1, &rows,
                       NULL);
    const char *state = rc == 0 ? wg_store_rows_text(rows, 0, 0) : NULL;
    if (rc == 0 && (!state || wg_store_rows_int(rows, 0, 9) <= now ||
                    (strcmp(state, "pending") != 0 && strcmp(state, "expired") != 0)))
        rc = wg_error_set(WG_ENOTFOUND, "no pending approval with that id");
    if (rc == 0) {
        c->tool = dup_cell(rows, 1);
        json_t *sm = wg_store_rows_text(rows, 0, 3) ? json_loads(wg_store_rows_text(rows, 0, 3), 0, NULL)
                                                    : NULL;
        c->summary = sm;
        c->level = dup_cell(rows, 4);
        c->workspace_id = dup_cell(rows, 5);
        c->session_id = dup_cell(rows, 6);
        c->rule = dup_cell(rows, 7);
        c->expires_ms = wg_store_rows_int(rows, 0, 8);
        int expired = strcmp(state, "expired") == 0 || c->expires_ms <= now;
        const char *next = expired ? "expired" : approved ? "granted" : "denied";
        if (!expired && approved)
            c->args = json_loads(wg_store_rows_text(rows, 0, 2), 0, NULL);
        c->status = expired ? WG_ENGINE_EXPIRED : approved ? WG_ENGINE_RAN : WG_ENGINE_DENIED;
        int64_t changed = 0;
        if (expired) {
            /* a late answer uses the approval up: the next one is "not found" */
            wg_store_value v[] = { WG_SV_INT(now), WG_SV_TEXT(actor), WG_SV_TEXT(id) };
            rc = wg_store_exec(st, "UPDATE approvals SET state = 'closed', resolved_ms = ?,"
                               " resolved_by = ?, args = '{}' WHERE id = ? AND state IN"
                               " ('pending', 'expired')", v, 3, NULL, &changed);
            if (rc == 0 && changed != 1)
                rc = wg_error_set(WG_ENOTFOUND, "no pending approval with that id");
            c->audit_expiry = strcmp(state, "pending") == 0;
        } else {
            wg_store_value v[] = { WG_SV_TEXT(next), WG_SV_INT(now), WG_SV_TEXT(actor),
                                   WG_SV_TEXT(id) };
            rc = wg_store_exec(st, approved
                               ? "UPDATE approvals SET state = ?, resolved_ms = ?, resolved_by = ?"
                                 " WHERE id = ? AND state = 'pending'"
                               : "UPDATE approvals SET state = ?, resolved_ms = ?, resolved_by = ?,"
                                 " args = '{}' WHERE id = ? AND state = 'pending'",
                               v, 4, NULL, &changed);
            if (rc == 0 && changed != 1)
                rc = wg_error_set(WG_ENOTFOUND, "no pending approval with that id");
        }
        if (rc == 0 && (!c->tool || (c->status == WG_ENGINE_RAN && !json_is_object(c->args))))
            rc = wg_error_set(WG_EINTERNAL, "the stored approval is unreadable");
    }
    wg_store_rows_free(rows);
    if (rc < 0) {
        wg_store_rollback(st);
        wg_engine__claim_clear(c);
        return rc;
    }
    if ((rc = wg_store_commit(st)) < 0)
        wg_engine__claim_clear(c);
    return rc;
}

/* ---- listing ------------------------------------------------------------------- */

void wg_engine_approvals_free(wg_engine_approval *a, size_t n)
{
    for (size_t i = 0; a && i < n; i++) {
        free(a[i].tool);
        free(a[i].state);
        free(a[i].approval_class);
        free(a[i].rule);
        free(a[i].level);
        free(a[i].workspace_id);
        free(a[i].session_id);
        free(a[i].actor);
        json_decref(a[i].preview);
    }
    free(a);
}

static char *cell(const wg_store_rows *rows, size_t r, size_t c)
{
    const char *v = wg_store_rows_text(rows, r, c);
    return v ? strdup(v) : NULL;
}

enum { LIST_DEFAULT = 100, LIST_MAX = 1000 };

int wg_engine_approvals(wg_engine_approval **out, size_t *n, wg_engine *e, int all, size_t limit)
{
    if (!out || !n || !e)
        return wg_error_set(WG_EINVAL, "wg_engine_approvals: NULL argument");
    wg_store *st = NULL;
    int rc = wg_engine_store(&st, e);
    if (rc < 0)
        return rc;
    wg_engine__pending_sweep(e);
    if (limit == 0)
        limit = LIST_DEFAULT;
    if (limit > LIST_MAX)
        limit = LIST_MAX;
    wg_store_value v = WG_SV_INT(limit);
    wg_store_rows *rows = NULL;
    rc = wg_store_exec(st, all ? "SELECT id, tool, state, approval_class, rule, level,"
                                 " workspace_id, session_id, actor, summary, created_ms,"
                                 " expires_ms FROM approvals WHERE state IN ('pending', 'expired')"
                                 " ORDER BY created_ms, id LIMIT ?"
                               : "SELECT id, tool, state, approval_class, rule, level,"
                                 " workspace_id, session_id, actor, summary, created_ms,"
                                 " expires_ms FROM approvals WHERE state = 'pending'"
                                 " ORDER BY created_ms, id LIMIT ?", &v, 1, &rows, NULL);
    if (rc < 0)
        return rc;
    size_t count = wg_store_rows_count(rows);
    wg_engine_approval *a = calloc(count ? count : 1, sizeof *a);
    if (!a) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < count; r++) {
        snprintf(a[r].id, sizeof a[r].id, "%s", wg_store_rows_text(rows, r, 0));
        a[r].tool = cell(rows, r, 1);
        a[r].state = cell(rows, r, 2);
        a[r].approval_class = cell(rows, r, 3);
        a[r].rule = cell(rows, r, 4);
        a[r].level = cell(rows, r, 5);
        a[r].workspace_id = cell(rows, r, 6);
        a[r].session_id = cell(rows, r, 7);
        a[r].actor = cell(rows, r, 8);
        const char *sm = wg_store_rows_text(rows, r, 9);
        a[r].preview = sm ? json_loads(sm, 0, NULL) : NULL;
        a[r].created_ms = wg_store_rows_int(rows, r, 10);
        a[r].expires_ms = wg_store_rows_int(rows, r, 11);
    }
    wg_store_rows_free(rows);
    *out = a;
    *n = count;
    return 0;
}

int wg_engine_approval_state(char **state, wg_engine *e, const char *id)
{
    if (!state || !e || !id)
        return wg_error_set(WG_EINVAL, "wg_engine_approval_state: NULL argument");
    wg_store *st = NULL;
    int rc = wg_engine_store(&st, e);
    if (rc < 0)
        return rc;
    wg_store_rows *rows = NULL;
    wg_store_value v = WG_SV_TEXT(id);
    if ((rc = wg_store_exec(st, "SELECT state, expires_ms FROM approvals WHERE id = ?", &v, 1,
                            &rows, NULL)) < 0)
        return rc;
    const char *s = wg_store_rows_text(rows, 0, 0);
    if (s && strcmp(s, "pending") == 0 && wg_store_rows_int(rows, 0, 1) <= wg_engine_now(e))
        s = "expired";   /* not swept yet: it is expired all the same */
    char *copy = s ? strdup(s) : NULL;
    wg_store_rows_free(rows);
    if (!s)
        return wg_error_set(WG_ENOTFOUND, "no approval with that id");
    if (!copy)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *state = copy;
    return 0;
}

json_t *wg_engine_approval_json(const wg_engine_approval *a)
{
    char created[WG_TIME_ISO_MAX], expires[WG_TIME_ISO_MAX];
    wg_time_format_iso(created, a->created_ms);
    wg_time_format_iso(expires, a->expires_ms);
    return json_pack("{s:s,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s,s:s,s:O?}", "approvalId", a->id,
                     "tool", a->tool, "state", a->state, "approvalClass", a->approval_class,
                     "rule", a->rule, "level", a->level, "workspaceId", a->workspace_id,
                     "sessionId", a->session_id, "createdAt", created, "expiresAt", expires,
                     "input", a->preview);
}

int wg_engine__pending_tool(char **tool, wg_engine *e, const char *id)
{
    wg_store *st = NULL;
    int rc = wg_engine_store(&st, e);
    if (rc < 0)
        return rc;
    wg_store_rows *rows = NULL;
    wg_store_value v = WG_SV_TEXT(id);
    if ((rc = wg_store_exec(st, "SELECT tool FROM approvals WHERE id = ?", &v, 1, &rows, NULL)) < 0)
        return rc;
    const char *s = wg_store_rows_text(rows, 0, 0);
    char *copy = s ? strdup(s) : NULL;
    wg_store_rows_free(rows);
    if (!s)
        return wg_error_set(WG_ENOTFOUND, "no pending approval with that id");
    if (!copy)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *tool = copy;
    return 0;
}

/* audit.c - the append-only audit log with a SHA-256 hash chain
 * (waggle/audit.h): opening (the seal key), masking, appends and reading.
 * Each append is one write transaction that checks the sealed anchor
 * against the chain's head, inserts the next row and moves the anchor, so
 * appenders in several processes serialise and the chain never forks.
 * Inputs are masked before they are stored: secrets never reach the log.
 * Seals, the anchor, the data dir witness and verify are audit_anchor.c. */
#include "store/audit_anchor.h"
#include "waggle/audit.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "waggle/tier.h"

#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASK "***"
#define MIN_SECRET_LEN 4
#define KDF_CONTEXT "wgaudit1"   /* crypto_kdf context of the seal key */
#define KDF_ID 1

/* The seal key comes from the vault key: the caller's vault, or one
 * opened here for the key alone (then masking stays key-based only, as
 * the contract says). */
static int derive_key(wg_audit *a, wg_vault *vault)
{
    wg_vault *own = NULL;
    int rc = 0;
    if (!vault && (rc = wg_vault_open(&own, a->st)) < 0) {
        char why[400];
        snprintf(why, sizeof why, "%s", wg_error_last());
        return wg_error_set(rc, "the audit log is sealed with a key derived from the vault key, "
                                "and the vault does not open: %s", why);
    }
    rc = wg_vault_derive_key(a->key, vault ? vault : own, KDF_CONTEXT, KDF_ID);
    wg_vault_free(own);
    return rc;
}

int wg_audit_open(wg_audit **out, wg_store *st, wg_vault *vault)
{
    if (!out || !st)
        return wg_error_set(WG_EINVAL, "wg_audit_open: NULL store");
    if (sodium_init() < 0)
        return wg_error_set(WG_EINTERNAL, "libsodium failed to initialise");
    wg_audit *a = calloc(1, sizeof *a);
    if (!a || !(a->key = sodium_malloc(WG_VAULT_KEY_BYTES))) {
        free(a);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    a->st = st;
    a->vault = vault;
    const char *dir = wg_store_data_dir(st);
    int rc = dir ? wg_datadir_path(&a->witness, dir, WG_AUDIT_WITNESS_FILE) : 0;
    if (rc == 0)
        rc = derive_key(a, vault);
    if (rc == 0)
        rc = wg_audit__seal_on_open(a);
    if (rc < 0) {
        wg_audit_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void wg_audit_free(wg_audit *a)
{
    if (!a)
        return;
    sodium_free(a->key);   /* wipes it */
    free(a->witness);
    free(a);
}

int64_t wg_audit_legacy_sealed(const wg_audit *a)
{
    return a ? a->sealed_legacy : 0;
}

/* ---- masking ---------------------------------------------------------------- */

/* Key fragments that name a secret, compared after lower-casing and dropping
 * '_' and '-': "api_key", "apiKey" and "API-KEY" all become "apikey". */
static const char *const secret_keys[] = {
    "token", "apikey", "password", "passwd", "secret", "authorization",
    "cookie", "credential", "privatekey", "accesskey", "sessionid", "bearer",
    "passphrase", "clientsecret", "signature",
};

static int is_secret_key(const char *key)
{
    char norm[128];
    size_t k = 0;
    for (const char *s = key; *s && k < sizeof norm - 1; s++)
        if (*s != '_' && *s != '-')
            norm[k++] = (char)tolower((unsigned char)*s);
    norm[k] = '\0';
    for (size_t i = 0; i < sizeof secret_keys / sizeof *secret_keys; i++)
        if (strstr(norm, secret_keys[i]))
            return 1;
    return 0;
}

typedef struct secrets {
    char **v;
    size_t n;
} secrets;

static void secrets_free(secrets *s)
{
    for (size_t i = 0; i < s->n; i++) {
        sodium_memzero(s->v[i], strlen(s->v[i]));
        free(s->v[i]);
    }
    free(s->v);
}

static int secrets_load(secrets *s, wg_vault *v)
{
    memset(s, 0, sizeof *s);
    if (!v)
        return 0;
    char **names = NULL;
    size_t n = 0;
    int rc = wg_vault_seam_list(v, NULL, &names, &n);
    if (rc < 0)
        return rc;
    s->v = calloc(n + 1, sizeof *s->v);
    for (size_t i = 0; i < n; i++) {
        char *val = NULL;
        if (s->v && wg_vault_seam_get(v, names[i], &val, NULL) == 0) {
            if (strlen(val) >= MIN_SECRET_LEN)
                s->v[s->n++] = val;
            else {
                sodium_memzero(val, strlen(val));
                free(val);
            }
        }
        wg_error_clear();
        free(names[i]);
    }
    free(names);
    return s->v || !n ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* A new string with every occurrence of each secret replaced by MASK, or
 * NULL when the text holds none. */
static char *scrub(const char *text, const secrets *s)
{
    char *cur = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const char *src = cur ? cur : text;
        if (!strstr(src, s->v[i]))
            continue;
        size_t sl = strlen(s->v[i]), cap = strlen(src) + 1, o = 0;
        char *out = malloc(cap);
        if (!out)
            break;
        for (const char *p = src; *p;) {
            if (!strncmp(p, s->v[i], sl)) {
                memcpy(out + o, MASK, 3);   /* 3 <= sl: fits */
                o += 3;
                p += sl;
            } else {
                out[o++] = *p++;
            }
        }
        out[o] = '\0';
        free(cur);
        cur = out;
    }
    return cur;
}

static json_t *mask_value(const json_t *in, const secrets *s)
{
    if (json_is_object(in)) {
        json_t *o = json_object();
        const char *k;
        json_t *val;
        json_object_foreach((json_t *)in, k, val) {
            /* A secret pasted as a key name is scrubbed too. */
            char *sk = scrub(k, s);
            json_object_set_new(o, sk ? sk : k, is_secret_key(k) && !json_is_null(val)
                                                ? json_string(MASK) : mask_value(val, s));
            free(sk);
        }
        return o;
    }
    if (json_is_array(in)) {
        json_t *a = json_array();
        size_t i;
        json_t *val;
        json_array_foreach(in, i, val)
            json_array_append_new(a, mask_value(val, s));
        return a;
    }
    if (json_is_string(in)) {
        char *x = scrub(json_string_value(in), s);
        if (x) {
            json_t *r = json_string(x);
            free(x);
            return r;
        }
    }
    return json_deep_copy(in);
}

int wg_audit_mask(json_t **out, const json_t *input, wg_vault *vault)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "wg_audit_mask: NULL out");
    if (!input) {
        *out = NULL;
        return 0;
    }
    secrets s;
    int rc = secrets_load(&s, vault);
    if (rc < 0)
        return rc;
    json_t *m = mask_value(input, &s);
    secrets_free(&s);
    if (!m)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = m;
    return 0;
}

/* ---- the chain ------------------------------------------------------------- */

/* hash = SHA-256(prev_hash || "\n" || canonical), canonical a compact JSON
 * array [id, ts, event, actor, tool, input, decision, rule] of the stored
 * texts (null for absent), so any edited column changes it. */
int wg_audit__row_hash(char hex[WG_AUDIT__HEX], const char *prev, int64_t id, const char *ts,
                       const char *event, const char *actor, const char *tool,
                       const char *input, const char *decision, const char *rule)
{
    json_t *arr = json_pack("[I,s,s,s?,s?,s?,s?,s?]", (json_int_t)id, ts, event, actor, tool,
                            input, decision, rule);
    char *canon = arr ? json_dumps(arr, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(arr);
    if (!canon)
        return wg_error_set(WG_ENOMEM, "out of memory");
    crypto_hash_sha256_state h;
    unsigned char d[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_init(&h);
    crypto_hash_sha256_update(&h, (const unsigned char *)prev, strlen(prev));
    crypto_hash_sha256_update(&h, (const unsigned char *)"\n", 1);
    crypto_hash_sha256_update(&h, (const unsigned char *)canon, strlen(canon));
    crypto_hash_sha256_final(&h, d);
    free(canon);
    sodium_bin2hex(hex, WG_AUDIT__HEX, d, sizeof d);
    return 0;
}

static int check_event(const char *ev)
{
    size_t n = ev ? strlen(ev) : 0;
    if (!n || n > 128)
        return wg_error_set(WG_EINVAL, "audit event must be 1..128 characters");
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)ev[i] <= 0x20 || ev[i] == 0x7f)
            return wg_error_set(WG_EINVAL, "audit event has a space or control character");
    return 0;
}

/* The masked input as stored: compact, sorted JSON, or NULL. */
static int serialise_input(char **out, wg_audit *a, const json_t *input)
{
    *out = NULL;
    if (!input)
        return 0;
    json_t *masked = NULL;
    int rc = wg_audit_mask(&masked, input, a->vault);
    if (rc < 0)
        return rc;
    *out = json_dumps(masked, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(masked);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

int wg_audit__insert(wg_audit *a, int64_t id, const char *prev, const wg_audit_record *rec,
                     const char *input, char hash[WG_AUDIT__HEX])
{
    char ts[32], seal[WG_AUDIT__HEX], aseal[WG_AUDIT__HEX];
    wg_time_format_iso(ts, rec->ts_ms ? rec->ts_ms : wg_time_now_ms());
    int rc = wg_audit__row_hash(hash, prev, id, ts, rec->event, rec->actor, rec->tool, input,
                                rec->decision, rec->rule);
    if (rc < 0)
        return rc;
    wg_audit__seal(seal, a, WG_AUDIT__ROW, id, hash);
    wg_audit__seal(aseal, a, WG_AUDIT__ANCHOR, id, hash);
    wg_store_value p[11] = {
        WG_SV_INT(id), WG_SV_TEXT(ts), WG_SV_TEXT(rec->event), WG_SV_TEXT(rec->actor),
        WG_SV_TEXT(rec->tool), WG_SV_TEXT(input), WG_SV_TEXT(rec->decision),
        WG_SV_TEXT(rec->rule), WG_SV_TEXT(prev), WG_SV_TEXT(hash), WG_SV_TEXT(seal),
    };
    if ((rc = wg_store_exec(a->st,
            "INSERT INTO audit_log (id, ts, event, actor, tool, input, decision, rule,"
            " prev_hash, hash, seal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            p, 11, NULL, NULL)) < 0)
        return rc;
    /* The anchor moves in the same transaction as the row: a crash leaves
     * both or neither, never a valid log that looks shortened. */
    wg_store_value q[4] = { WG_SV_INT(id), WG_SV_TEXT(hash), WG_SV_TEXT(aseal), WG_SV_TEXT(ts) };
    int64_t changed = 0;
    if ((rc = wg_store_exec(a->st, "UPDATE audit_anchor SET row_count = ?, head = ?, seal = ?,"
                            " updated_at = ? WHERE id = 1", q, 4, NULL, &changed)) < 0)
        return rc;
    return changed == 1 ? 0 : wg_error_set(WG_ECRYPTO, "the audit anchor row is missing");
}

int wg_audit__head(int64_t *id, char hash[WG_AUDIT__HEX], wg_audit *a)
{
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(a->st, "SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1",
                           NULL, 0, &rows, NULL);
    if (rc < 0)
        return rc;
    const char *h = wg_store_rows_count(rows) ? wg_store_rows_text(rows, 0, 1) : NULL;
    *id = wg_store_rows_count(rows) ? wg_store_rows_int(rows, 0, 0) : 0;
    snprintf(hash, WG_AUDIT__HEX, "%s", h ? h : WG_AUDIT__ZERO_HASH);
    wg_store_rows_free(rows);
    return 0;
}

int wg_audit_append(wg_audit *a, const wg_audit_record *rec, int64_t *id_out)
{
    if (!a || !rec)
        return wg_error_set(WG_EINVAL, "wg_audit_append: NULL argument");
    int rc = check_event(rec->event);
    char *input = NULL;
    if (rc < 0 || (rc = serialise_input(&input, a, rec->input)) < 0)
        return rc;
    if ((rc = wg_store_begin(a->st, WG_STORE_TX_WRITE)) < 0) {
        free(input);
        return rc;
    }
    int64_t last = 0;
    char prev[WG_AUDIT__HEX], hash[WG_AUDIT__HEX];
    if ((rc = wg_audit__anchor_check(a, &last, prev)) == 0)
        rc = wg_audit__insert(a, last + 1, prev, rec, input, hash);
    free(input);
    if (rc < 0) {
        wg_store_rollback(a->st);
        return rc;
    }
    if ((rc = wg_store_commit(a->st)) < 0)
        return rc;
    if (id_out)
        *id_out = last + 1;
    wg_audit__witness_advance(a, last + 1, hash, prev);
    return 0;
}

/* ---- reading ------------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void wg_audit_events_free(wg_audit_event *ev, size_t n)
{
    if (!ev)
        return;
    for (size_t i = 0; i < n; i++) {
        free(ev[i].ts);
        free(ev[i].event);
        free(ev[i].actor);
        free(ev[i].tool);
        free(ev[i].decision);
        free(ev[i].rule);
        free(ev[i].prev_hash);
        free(ev[i].hash);
        json_decref(ev[i].input);
    }
    free(ev);
}

#define COLS "id, ts, event, actor, tool, input, decision, rule, prev_hash, hash"

static void fill(wg_audit_event *e, const wg_store_rows *rows, size_t r)
{
    e->id = wg_store_rows_int(rows, r, 0);
    e->ts = dup_or_null(wg_store_rows_text(rows, r, 1));
    e->event = dup_or_null(wg_store_rows_text(rows, r, 2));
    e->actor = dup_or_null(wg_store_rows_text(rows, r, 3));
    e->tool = dup_or_null(wg_store_rows_text(rows, r, 4));
    const char *in = wg_store_rows_text(rows, r, 5);
    e->input = in ? json_loads(in, JSON_DECODE_ANY, NULL) : NULL;
    e->decision = dup_or_null(wg_store_rows_text(rows, r, 6));
    e->rule = dup_or_null(wg_store_rows_text(rows, r, 7));
    e->prev_hash = dup_or_null(wg_store_rows_text(rows, r, 8));
    e->hash = dup_or_null(wg_store_rows_text(rows, r, 9));
}

int wg_audit_list(wg_audit_event **out, size_t *n, wg_audit *a, const wg_audit_query *q)
{
    if (!out || !n || !a)
        return wg_error_set(WG_EINVAL, "wg_audit_list: NULL argument");
    size_t limit = q && q->limit ? q->limit : 50;
    const char *ev = q ? q->event : NULL;
    char like[160];
    wg_store_value p[2];
    size_t np = 0;
    const char *sql;
    if (ev && *ev) {
        size_t el = strlen(ev);
        if (el >= sizeof like - 1)
            return wg_error_set(WG_EINVAL, "event filter too long");
        if (ev[el - 1] == '*') {
            /* A prefix: compare the leading characters (portable substr). */
            snprintf(like, sizeof like, "%.*s", (int)(el - 1), ev);
            p[np++] = WG_SV_INT((int64_t)(el - 1));
            p[np++] = WG_SV_TEXT(like);
            sql = "SELECT " COLS " FROM audit_log WHERE substr(event, 1, ?) = ?"
                  " ORDER BY id DESC LIMIT ?";
        } else {
            p[np++] = WG_SV_TEXT(ev);
            sql = "SELECT " COLS " FROM audit_log WHERE event = ? ORDER BY id DESC LIMIT ?";
        }
    } else {
        sql = "SELECT " COLS " FROM audit_log ORDER BY id DESC LIMIT ?";
    }
    wg_store_value all[3];
    memcpy(all, p, np * sizeof *p);
    all[np] = WG_SV_INT((int64_t)limit);
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(a->st, sql, all, np + 1, &rows, NULL);
    if (rc < 0)
        return rc;
    size_t total = wg_store_rows_count(rows);
    wg_audit_event *list = total ? calloc(total, sizeof *list) : NULL;
    if (total && !list) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < total; r++)
        fill(&list[r], rows, r);
    wg_store_rows_free(rows);
    *out = list;
    *n = total;
    return 0;
}

json_t *wg_audit_event_json(const wg_audit_event *e)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "id", json_integer(e->id));
    json_object_set_new(o, "ts", e->ts ? json_string(e->ts) : json_null());
    json_object_set_new(o, "event", e->event ? json_string(e->event) : json_null());
    json_object_set_new(o, "actor", e->actor ? json_string(e->actor) : json_null());
    json_object_set_new(o, "tool", e->tool ? json_string(e->tool) : json_null());
    json_object_set_new(o, "input", e->input ? json_incref(e->input) : json_null());
    json_object_set_new(o, "decision", e->decision ? json_string(e->decision) : json_null());
    json_object_set_new(o, "rule", e->rule ? json_string(e->rule) : json_null());
    json_object_set_new(o, "hash", e->hash ? json_string(e->hash) : json_null());
    return o;
}

/* ---- the connector registry's seam ----------------------------------------------- */

int wg_audit_seam_log(void *ctx, const json_t *entry)
{
    if (!ctx || !json_is_object(entry))
        return wg_error_set(WG_EINVAL, "audit entry must be a JSON object");
    const char *type = json_string_value(json_object_get(entry, "actionType"));
    json_t *succ = json_object_get(entry, "success");
    json_t *appr = json_object_get(entry, "requiresApproval");
    const char *risk = json_string_value(json_object_get(entry, "riskLevel"));
    char rule[64];
    snprintf(rule, sizeof rule, "risk:%s", risk ? risk : "unknown");
    wg_audit_record rec = {
        .event = type ? type : "connector.unknown",
        .actor = "agent",
        .tool = json_string_value(json_object_get(entry, "tool")),
        .input = entry,
        .decision = json_is_boolean(succ) ? (json_is_true(succ) ? "ok" : "error")
                  : json_is_true(appr) ? "requires_approval" : "allowed",
        .rule = rule,
    };
    return wg_audit_append(ctx, &rec, NULL);
}

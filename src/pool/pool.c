/* pool.c - the credential pool (waggle/pool.h; spec §13, reference §6):
 * round-robin API-key rotation with cooldowns. The policy is the
 * original's; Retry-After and shared state are additions. With a store,
 * every operation loads the provider's state, applies the change in memory
 * and writes it back inside one write transaction, so processes sharing the
 * data dir see one pool. Key values stay in memory only. */
#include "waggle/pool.h"
#include "waggle/error.h"
#include "waggle/tier.h"

#include <ctype.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ST_ACTIVE = 0, ST_COOLDOWN, ST_DISABLED } entry_status;

static const char *const status_names[] = { "active", "cooldown", "disabled" };

typedef struct entry {
    char *name, *key;
    entry_status status;
    int64_t cooldown_until;    /* meaningful only in ST_COOLDOWN */
    char *last_error;          /* NULL = none */
    int64_t success, errors;
    int dirty;                 /* changed since load: written back on save */
} entry;

struct wg_pool {
    char *provider;
    wg_store *st;
    int64_t rate_ms, pay_ms, other_ms;
    wg_pool_clock now;
    void *now_ctx;
    pthread_mutex_t mu;
    entry *e;
    size_t n, cap;
    size_t rr;                 /* round-robin index */
    size_t rr_loaded;          /* as read from the store (-1: no row) */
};

static int64_t real_clock(void *ctx)
{
    (void)ctx;
    return wg_time_now_ms();
}

int wg_pool_new(wg_pool **out, const char *provider, wg_store *st, const wg_pool_options *o)
{
    if (!out || !provider || !*provider)
        return wg_error_set(WG_EINVAL, "a pool needs a provider name");
    if (strlen(provider) > 200)
        return wg_error_set(WG_EINVAL, "provider name too long");
    if (o && o->version != WG_POOL_OPTIONS_VERSION)
        return wg_error_set(WG_EINVAL, "wg_pool_options version %u, this library knows %d "
                            "(start from WG_POOL_OPTIONS_INIT)", o->version, WG_POOL_OPTIONS_VERSION);
    wg_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->provider = strdup(provider))) {
        free(p);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    p->st = st;
    p->rate_ms = o && o->rate_limit_cooldown_ms > 0 ? o->rate_limit_cooldown_ms : WG_POOL_RATE_LIMIT_COOLDOWN_MS;
    p->pay_ms = o && o->payment_cooldown_ms > 0 ? o->payment_cooldown_ms : WG_POOL_PAYMENT_COOLDOWN_MS;
    p->other_ms = o && o->other_cooldown_ms > 0 ? o->other_cooldown_ms : WG_POOL_OTHER_COOLDOWN_MS;
    p->now = o && o->now ? o->now : real_clock;
    p->now_ctx = o ? o->now_ctx : NULL;
    pthread_mutex_init(&p->mu, NULL);
    *out = p;
    return 0;
}

void wg_pool_free(wg_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        sodium_memzero(p->e[i].key, strlen(p->e[i].key));
        free(p->e[i].key);
        free(p->e[i].name);
        free(p->e[i].last_error);
    }
    free(p->e);
    pthread_mutex_destroy(&p->mu);
    free(p->provider);
    free(p);
}

size_t wg_pool_size(const wg_pool *p) { return p ? p->n : 0; }
const char *wg_pool_provider(const wg_pool *p) { return p ? p->provider : NULL; }

static entry *by_name(wg_pool *p, const char *name)
{
    for (size_t i = 0; name && i < p->n; i++)
        if (!strcmp(p->e[i].name, name))
            return &p->e[i];
    return NULL;
}

static entry *by_key(wg_pool *p, const char *key)
{
    for (size_t i = 0; key && i < p->n; i++)
        if (!strcmp(p->e[i].key, key))
            return &p->e[i];
    return NULL;
}

int wg_pool_add(wg_pool *p, const char *name, const char *key)
{
    if (!p || !name || !*name || !key)
        return wg_error_set(WG_EINVAL, "a pool entry needs a name and a key");
    pthread_mutex_lock(&p->mu);
    int rc = 0;
    if (by_name(p, name))
        goto done;     /* duplicate names are ignored (reference §6) */
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4;
        entry *g = realloc(p->e, cap * sizeof *g);
        if (!g) {
            rc = wg_error_set(WG_ENOMEM, "out of memory");
            goto done;
        }
        p->e = g;
        p->cap = cap;
    }
    entry *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    if (!(e->name = strdup(name)) || !(e->key = strdup(key))) {
        free(e->name);
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    p->n++;
done:
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/* ---- shared state ------------------------------------------------------------ */

static int set_error(entry *e, const char *msg)
{
    free(e->last_error);
    e->last_error = msg ? strdup(msg) : NULL;
    return msg && !e->last_error ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

/* Reads the provider's state into the entries (unknown ones stay fresh). */
static int load(wg_pool *p)
{
    for (size_t i = 0; i < p->n; i++) {
        p->e[i].status = ST_ACTIVE;
        p->e[i].cooldown_until = 0;
        p->e[i].success = p->e[i].errors = 0;
        p->e[i].dirty = 1;     /* no row yet: the first save creates it */
        set_error(&p->e[i], NULL);
    }
    p->rr = 0;
    wg_store_value prov = WG_SV_TEXT(p->provider);
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(p->st, "SELECT name, status, cooldown_until, last_error, success_count,"
                           " error_count FROM pool_entries WHERE provider = ?", &prov, 1, &rows, NULL);
    if (rc < 0)
        return rc;
    for (size_t r = 0; r < wg_store_rows_count(rows); r++) {
        entry *e = by_name(p, wg_store_rows_text(rows, r, 0));
        if (!e)
            continue;
        const char *s = wg_store_rows_text(rows, r, 1);
        e->status = s && !strcmp(s, "disabled") ? ST_DISABLED
                  : s && !strcmp(s, "cooldown") ? ST_COOLDOWN : ST_ACTIVE;
        e->cooldown_until = wg_store_rows_int(rows, r, 2);
        e->success = wg_store_rows_int(rows, r, 4);
        e->errors = wg_store_rows_int(rows, r, 5);
        e->dirty = 0;
        if ((rc = set_error(e, wg_store_rows_text(rows, r, 3))) < 0)
            break;
    }
    wg_store_rows_free(rows);
    if (rc < 0)
        return rc;
    if ((rc = wg_store_exec(p->st, "SELECT rr_index FROM pool_state WHERE provider = ?",
                            &prov, 1, &rows, NULL)) < 0)
        return rc;
    int64_t rr = wg_store_rows_int(rows, 0, 0);
    int have_rr = wg_store_rows_count(rows) > 0;
    wg_store_rows_free(rows);
    p->rr = p->n && rr > 0 ? (size_t)rr % p->n : 0;
    p->rr_loaded = have_rr ? (size_t)rr : (size_t)-1;
    return 0;
}

static int save(wg_pool *p)
{
    int rc = 0;
    for (size_t i = 0; i < p->n && rc == 0; i++) {
        entry *e = &p->e[i];
        if (!e->dirty)
            continue;          /* only what this operation changed */
        wg_store_value v[7] = {
            WG_SV_TEXT(p->provider), WG_SV_TEXT(e->name), WG_SV_TEXT(status_names[e->status]),
            e->status == ST_COOLDOWN ? WG_SV_INT(e->cooldown_until) : WG_SV_NULL,
            WG_SV_TEXT(e->last_error), WG_SV_INT(e->success), WG_SV_INT(e->errors),
        };
        rc = wg_store_exec(p->st,
            "INSERT INTO pool_entries (provider, name, status, cooldown_until, last_error,"
            " success_count, error_count) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (provider, name) DO UPDATE SET status = excluded.status,"
            " cooldown_until = excluded.cooldown_until, last_error = excluded.last_error,"
            " success_count = excluded.success_count, error_count = excluded.error_count",
            v, 7, NULL, NULL);
    }
    if (rc == 0 && p->rr != p->rr_loaded) {
        wg_store_value v[2] = { WG_SV_TEXT(p->provider), WG_SV_INT((int64_t)p->rr) };
        rc = wg_store_exec(p->st, "INSERT INTO pool_state (provider, rr_index) VALUES (?, ?)"
                           " ON CONFLICT (provider) DO UPDATE SET rr_index = excluded.rr_index",
                           v, 2, NULL, NULL);
    }
    return rc;
}

/* Every public operation: lock, (load), op, (save), unlock. */
typedef int (*pool_op)(wg_pool *p, int64_t now, void *arg);

static int run(wg_pool *p, pool_op op, void *arg, int writes)
{
    if (!p)
        return wg_error_set(WG_EINVAL, "NULL pool");
    pthread_mutex_lock(&p->mu);
    int64_t now = p->now(p->now_ctx);
    int rc;
    if (!p->st) {
        rc = op(p, now, arg);
        pthread_mutex_unlock(&p->mu);
        return rc;
    }
    if ((rc = wg_store_begin(p->st, writes ? WG_STORE_TX_WRITE : WG_STORE_TX_READ)) < 0)
        goto out;
    if ((rc = load(p)) < 0 || (rc = op(p, now, arg)) < 0 || (writes && (rc = save(p)) < 0)) {
        int keep = rc;
        wg_store_rollback(p->st);
        rc = keep;
        goto out;
    }
    rc = wg_store_commit(p->st);
out:
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/* ---- the policy ---------------------------------------------------------------- */

static void recover(wg_pool *p, int64_t now)
{
    for (size_t i = 0; i < p->n; i++) {
        entry *e = &p->e[i];
        if (e->status == ST_COOLDOWN && now >= e->cooldown_until) {
            e->dirty = 1;
            e->status = ST_ACTIVE;
            e->cooldown_until = 0;
            set_error(e, NULL);
        }
    }
}

static int available(const wg_pool *p, int64_t now)
{
    for (size_t i = 0; i < p->n; i++) {
        const entry *e = &p->e[i];
        if (e->status == ST_ACTIVE || (e->status == ST_COOLDOWN && now >= e->cooldown_until))
            return 1;
    }
    return 0;
}

typedef struct get_arg {
    const char **key, **name;
} get_arg;

static int op_get(wg_pool *p, int64_t now, void *v)
{
    get_arg *a = v;
    if (!p->n)
        return wg_error_set(WG_ENOTFOUND, "the %s pool has no keys", p->provider);
    recover(p, now);
    for (size_t k = 0; k < p->n; k++) {
        size_t idx = (p->rr + k) % p->n;
        if (p->e[idx].status == ST_ACTIVE) {
            p->rr = (idx + 1) % p->n;
            if (a->key)
                *a->key = p->e[idx].key;
            if (a->name)
                *a->name = p->e[idx].name;
            return 0;
        }
    }
    return wg_error_set(WG_ENOTFOUND, "no %s key is available: all %zu are cooling down or disabled",
                        p->provider, p->n);
}

int wg_pool_get_key(wg_pool *p, const char **key, const char **name)
{
    get_arg a = { key, name };
    return run(p, op_get, &a, 1);
}

typedef struct err_arg {
    const char *key, *msg;
    int status;
    int64_t retry_after_ms;
    int *available;
} err_arg;

static int64_t cooldown_for(const wg_pool *p, int status, int64_t retry_after_ms)
{
    if (retry_after_ms >= 0)
        return retry_after_ms < WG_POOL_RETRY_AFTER_MAX_MS ? retry_after_ms : WG_POOL_RETRY_AFTER_MAX_MS;
    return status == 402 ? p->pay_ms : status == 429 ? p->rate_ms : p->other_ms;
}

static int op_error(wg_pool *p, int64_t now, void *v)
{
    err_arg *a = v;
    entry *e = by_key(p, a->key);
    if (e) {
        char buf[32];
        snprintf(buf, sizeof buf, "HTTP %d", a->status);
        e->dirty = 1;
        e->errors++;
        int rc = set_error(e, a->msg ? a->msg : buf);
        if (rc < 0)
            return rc;
        if (a->status == 401) {
            e->status = ST_DISABLED;    /* invalid or revoked: for good */
            e->cooldown_until = 0;
        } else {
            e->status = ST_COOLDOWN;
            e->cooldown_until = now + cooldown_for(p, a->status, a->retry_after_ms);
        }
    }
    if (a->available)
        *a->available = available(p, now);
    return 0;
}

int wg_pool_report_error(wg_pool *p, const char *key, int status, const char *msg,
                         int64_t retry_after_ms, int *avail)
{
    if (!key)
        return wg_error_set(WG_EINVAL, "report_error needs a key");
    if (msg && strlen(msg) > 500)
        return wg_error_set(WG_EINVAL, "error message longer than 500 bytes");
    err_arg a = { key, msg, status, retry_after_ms, avail };
    return run(p, op_error, &a, 1);
}

static int op_success(wg_pool *p, int64_t now, void *v)
{
    (void)now;
    entry *e = by_key(p, v);
    if (e) {
        e->success++;
        e->dirty = 1;
    }
    return 0;
}

int wg_pool_report_success(wg_pool *p, const char *key)
{
    if (!key)
        return wg_error_set(WG_EINVAL, "report_success needs a key");
    return run(p, op_success, (void *)key, 1);
}

static int op_available(wg_pool *p, int64_t now, void *v)
{
    *(int *)v = available(p, now);
    return 0;
}

int wg_pool_has_available(wg_pool *p, int *avail)
{
    if (!avail)
        return wg_error_set(WG_EINVAL, "NULL out");
    return run(p, op_available, avail, 0);
}

static int op_status(wg_pool *p, int64_t now, void *v)
{
    recover(p, now);
    size_t counts[3] = { 0, 0, 0 };
    json_t *entries = json_array();
    if (!entries)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->n; i++) {
        const entry *e = &p->e[i];
        counts[e->status]++;
        json_array_append_new(entries, json_pack("{s:s,s:s,s:o,s:o,s:I,s:I}", "name", e->name,
            "status", status_names[e->status],
            "cooldownUntil", e->status == ST_COOLDOWN ? json_integer(e->cooldown_until) : json_null(),
            "lastError", e->last_error ? json_string(e->last_error) : json_null(),
            "successCount", (json_int_t)e->success, "errorCount", (json_int_t)e->errors));
    }
    json_t *s = json_pack("{s:s,s:I,s:I,s:I,s:I,s:o}", "provider", p->provider,
                          "totalKeys", (json_int_t)p->n, "activeKeys", (json_int_t)counts[ST_ACTIVE],
                          "cooldownKeys", (json_int_t)counts[ST_COOLDOWN],
                          "disabledKeys", (json_int_t)counts[ST_DISABLED], "entries", entries);
    if (!s)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *(json_t **)v = s;
    return 0;
}

int wg_pool_status(json_t **out, wg_pool *p)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "NULL out");
    json_t *s = NULL;
    int rc = run(p, op_status, &s, 1);
    if (rc < 0) {
        json_decref(s);
        return rc;
    }
    *out = s;
    return 0;
}

const char *wg_pool_name_for_key(wg_pool *p, const char *key)
{
    if (!p)
        return NULL;
    pthread_mutex_lock(&p->mu);
    entry *e = by_key(p, key);
    pthread_mutex_unlock(&p->mu);
    return e ? e->name : NULL;
}

const char *wg_pool_key_for_name(wg_pool *p, const char *name)
{
    if (!p)
        return NULL;
    pthread_mutex_lock(&p->mu);
    entry *e = by_name(p, name);
    pthread_mutex_unlock(&p->mu);
    return e ? e->key : NULL;
}

/* ---- loading from the vault ------------------------------------------------------- */

static int add_from_vault(wg_pool *p, wg_vault *v, const char *name)
{
    wg_vault_entry *e = NULL;
    int rc = wg_vault_get(&e, v, name);
    if (rc < 0)
        return rc;
    rc = wg_pool_add(p, name, e->value);
    wg_vault_entry_free(e);
    return rc;
}

int wg_pool_load(wg_pool **out, wg_vault *v, const char *provider, int max_keys,
                 wg_store *st, const wg_pool_options *opts)
{
    if (!out || !v)
        return wg_error_set(WG_EINVAL, "wg_pool_load: NULL argument");
    wg_pool *p = NULL;
    int rc = wg_pool_new(&p, provider, st, opts);
    if (rc < 0)
        return rc;
    if (max_keys <= 0)
        max_keys = WG_POOL_DEFAULT_MAX_KEYS;
    rc = wg_vault_has(v, provider);
    if (rc == 1)
        rc = add_from_vault(p, v, provider);
    for (int i = 2; rc >= 0 && i <= max_keys; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s-%d", provider, i);
        if ((rc = wg_vault_has(v, name)) != 1)
            break;     /* the first gap ends the pool */
        rc = add_from_vault(p, v, name);
    }
    if (rc < 0) {
        wg_pool_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* ---- extractStatusCode --------------------------------------------------------------- */

static int is_word(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

int wg_pool_extract_status_code(const wg_pool_error_info *e)
{
    static const char *const codes[] = { "401", "402", "429", "500", "502", "503" };
    if (!e)
        return -1;
    if (e->has_status)
        return (int)e->status;
    if (e->has_status_code)
        return (int)e->status_code;
    const char *m = e->message;
    if (!m)
        return -1;
    /* The first whole-word match, as /\b(401|402|429|500|502|503)\b/ finds it. */
    for (size_t i = 0; m[i]; i++) {
        if (i > 0 && is_word(m[i - 1]))
            continue;
        for (size_t c = 0; c < sizeof codes / sizeof *codes; c++)
            if (!strncmp(m + i, codes[c], 3) && !is_word(m[i + 3]))
                return atoi(codes[c]);
    }
    return -1;
}

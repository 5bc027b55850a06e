/* session.c - dashboard login tokens and sessions in the store's settings
 * table (session.h). Creation runs in one write transaction (purge the
 * expired, count the live, insert), so the bounds hold across processes;
 * a login token is used up by one conditional DELETE. */
#include "server/session.h"
#include "waggle/error.h"
#include "waggle/store.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *prefix;          /* "dashboard.login." */
    const char *end;             /* the prefix with its last '.' as '/': an upper bound */
    int64_t ttl_ms;
    int64_t max;
    const char *full;            /* message when max are live */
} kind;

static const kind login_kind = {
    "dashboard.login.", "dashboard.login/", WG_SESSION_LOGIN_TTL_MS, WG_SESSION_LOGIN_MAX,
    "too many unused dashboard login links: use one, or wait until they expire (10 min)"
};
static const kind session_kind = {
    "dashboard.session.", "dashboard.session/", WG_SESSION_TTL_MS, WG_SESSION_MAX,
    "too many dashboard sessions are open: log out of one, or wait until they expire"
};

int64_t wg_session__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int token_ok(const char *t)
{
    if (!t || strlen(t) != WG_SESSION_TOKEN_LEN)
        return 0;
    return strspn(t, "0123456789abcdef") == WG_SESSION_TOKEN_LEN;
}

/* key = prefix + hex(BLAKE2b-256(token)) */
static void key_of(char *key, size_t cap, const kind *k, const char *token)
{
    unsigned char h[32];
    char hex[65];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    snprintf(key, cap, "%s%s", k->prefix, hex);
}

static void stamp(char out[20], int64_t ms)
{
    snprintf(out, 20, "%019lld", (long long)(ms < 0 ? 0 : ms));
}

static int insert_new(char **token, int64_t *expires_ms, wg_store *st, const kind *k,
                      int64_t now_ms)
{
    unsigned char raw[32];
    char tok[WG_SESSION_TOKEN_LEN + 1], key[96], now_s[20], exp_s[20];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(tok, sizeof tok, raw, sizeof raw);
    sodium_memzero(raw, sizeof raw);
    key_of(key, sizeof key, k, tok);
    stamp(now_s, now_ms);
    stamp(exp_s, now_ms + k->ttl_ms);
    int rc = wg_store_begin(st, WG_STORE_TX_WRITE);
    if (rc < 0)
        return rc;
    wg_store_value purge[] = { WG_SV_TEXT(k->prefix), WG_SV_TEXT(k->end), WG_SV_TEXT(now_s) };
    wg_store_rows *rows = NULL;
    if ((rc = wg_store_exec(st, "DELETE FROM settings WHERE key > ? AND key < ? AND value < ?",
                            purge, 3, NULL, NULL)) < 0 ||
        (rc = wg_store_exec(st, "SELECT COUNT(*) FROM settings WHERE key > ? AND key < ?",
                            purge, 2, &rows, NULL)) < 0)
        goto fail;
    int64_t live = wg_store_rows_count(rows) ? wg_store_rows_int(rows, 0, 0) : 0;
    wg_store_rows_free(rows);
    if (live >= k->max) {
        rc = wg_error_set(WG_EBUSY, "%s", k->full);
        goto fail;
    }
    wg_store_value ins[] = { WG_SV_TEXT(key), WG_SV_TEXT(exp_s) };
    if ((rc = wg_store_exec(st, "INSERT INTO settings (key, value) VALUES (?, ?)", ins, 2,
                            NULL, NULL)) < 0 ||
        (rc = wg_store_commit(st)) < 0)
        goto fail;
    if (!(*token = strdup(tok))) {
        sodium_memzero(tok, sizeof tok);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    sodium_memzero(tok, sizeof tok);
    if (expires_ms)
        *expires_ms = now_ms + k->ttl_ms;
    return 0;
fail:
    sodium_memzero(tok, sizeof tok);
    wg_store_rollback(st);
    return rc;
}

int wg_session__login_new(char **token, wg_store *st, int64_t now_ms)
{
    if (!token || !st)
        return wg_error_set(WG_EINVAL, "wg_session__login_new: NULL argument");
    return insert_new(token, NULL, st, &login_kind, now_ms);
}

int wg_session__new(char **token, int64_t *expires_ms, wg_store *st, int64_t now_ms)
{
    if (!token || !st)
        return wg_error_set(WG_EINVAL, "wg_session__new: NULL argument");
    return insert_new(token, expires_ms, st, &session_kind, now_ms);
}

static int refused(void)
{
    return wg_error_set(WG_EAUTH, "the login link is unknown, used or expired");
}

int wg_session__login_use(wg_store *st, const char *token, int64_t now_ms)
{
    if (!token_ok(token))
        return refused();
    char key[96], now_s[20];
    key_of(key, sizeof key, &login_kind, token);
    stamp(now_s, now_ms);
    wg_store_value p[] = { WG_SV_TEXT(key), WG_SV_TEXT(now_s) };
    int64_t changes = 0;
    int rc = wg_store_exec(st, "DELETE FROM settings WHERE key = ? AND value >= ?", p, 2, NULL,
                           &changes);
    if (rc < 0)
        return rc;
    return changes == 1 ? 0 : refused();
}

int wg_session__check(int64_t *expires_ms, wg_store *st, const char *token, int64_t now_ms)
{
    if (!token_ok(token))
        return wg_error_set(WG_EAUTH, "no dashboard session");
    char key[96];
    key_of(key, sizeof key, &session_kind, token);
    char *v = NULL;
    int rc = wg_store_setting_get(&v, st, key);
    if (rc == WG_ENOTFOUND)
        return wg_error_set(WG_EAUTH, "no dashboard session");
    if (rc < 0)
        return rc;
    long long exp = strtoll(v, NULL, 10);
    free(v);
    if (exp < now_ms)
        return wg_error_set(WG_EAUTH, "the dashboard session expired");
    if (expires_ms)
        *expires_ms = exp;
    return 0;
}

int wg_session__end(wg_store *st, const char *token)
{
    if (!token_ok(token))
        return 0;
    char key[96];
    key_of(key, sizeof key, &session_kind, token);
    wg_store_value p[] = { WG_SV_TEXT(key) };
    return wg_store_exec(st, "DELETE FROM settings WHERE key = ?", p, 1, NULL, NULL);
}

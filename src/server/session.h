/* session.h - the dashboard's browser sessions (docs/server.md, "The
 * dashboard"): one-time login tokens, exchanged once for a session, both
 * kept in the store's settings table so that every waggled replica on one
 * database accepts them, exactly once.
 *
 * Only a BLAKE2b-256 hash of a token is stored (keys
 * "dashboard.login.<hex>" and "dashboard.session.<hex>", value the expiry
 * as 19 zero-padded decimal digits of ms since the epoch, so that text
 * comparison is time comparison on both back ends): whoever reads the
 * database cannot log in with what they read. A token is 32 random bytes as
 * 64 lowercase hex characters; anything else is refused without a query.
 *
 * Thread-safety: as the store (any thread). Errors: WG_EAUTH (unknown,
 * used, expired or malformed token), WG_EBUSY (too many live tokens or
 * sessions), WG_ESTORE, WG_ENOMEM. */
#ifndef WAGGLE_SERVER_SESSION_H
#define WAGGLE_SERVER_SESSION_H

#include <stdint.h>

struct wg_store;

enum {
    WG_SESSION_TOKEN_LEN = 64,                    /* hex characters */
    WG_SESSION_LOGIN_MAX = 16,                    /* live one-time login tokens */
    WG_SESSION_MAX = 64                           /* live sessions */
};
#define WG_SESSION_LOGIN_TTL_MS ((int64_t)10 * 60 * 1000)       /* 10 min */
#define WG_SESSION_TTL_MS ((int64_t)12 * 60 * 60 * 1000)        /* 12 h */
#define WG_SESSION_COOKIE "waggle_session"

/* A new one-time login token, valid until now_ms + WG_SESSION_LOGIN_TTL_MS.
 * *token is new (free()). Expired rows are purged first; WG_EBUSY when
 * WG_SESSION_LOGIN_MAX are live. */
int wg_session__login_new(char **token, struct wg_store *st, int64_t now_ms);

/* Uses a login token up: 0 exactly once for a live token (one conditional
 * DELETE decides, so two replicas never both win), WG_EAUTH otherwise. */
int wg_session__login_use(struct wg_store *st, const char *token, int64_t now_ms);

/* A new session, valid until *expires_ms (now_ms + WG_SESSION_TTL_MS).
 * *token is new (free()). WG_EBUSY when WG_SESSION_MAX are live. */
int wg_session__new(char **token, int64_t *expires_ms, struct wg_store *st, int64_t now_ms);

/* 0 (and *expires_ms when not NULL) for a live session, WG_EAUTH else. */
int wg_session__check(int64_t *expires_ms, struct wg_store *st, const char *token,
                      int64_t now_ms);

/* Ends a session (no error when it did not exist). */
int wg_session__end(struct wg_store *st, const char *token);

/* The real clock, ms since the epoch. */
int64_t wg_session__now_ms(void);

#endif

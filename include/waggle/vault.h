/* waggle/vault.h - the encrypted vault: names -> secret values + metadata.
 *
 * Crypto: each entry is sealed with XChaCha20-Poly1305 (IETF, libsodium)
 * under a 32-byte vault key with a fresh random 24-byte nonce. The sealed
 * payload holds the metadata (JSON: credentialType, expiresAt, scopes, ...)
 * and the value, so expiry, scopes and type are both secret and
 * authenticated; the associated data is "waggle-vault-v1:" + the entry name,
 * so a ciphertext copied to another name fails to open. Only the name, the
 * updatedAt stamp, nonce and ciphertext are stored (table vault_entries).
 *
 * The key: when WAGGLE_VAULT_PASSPHRASE is set (wg_vault_open), Argon2id
 * (crypto_pwhash, INTERACTIVE limits: about 0.2 s and 64 MiB) over the
 * passphrase with a random salt kept in the store's settings ("vault.salt");
 * otherwise DATA_DIR/vault.key,
 * 32 random bytes, created with mode 0600 on first use. A key check value
 * ("vault.check", a sealed known text) lets a wrong key fail at open with
 * WG_ECRYPTO instead of yielding garbage later.
 *
 * Secrets: values returned to callers are heap copies the caller wipes
 * through wg_vault_entry_free / wg_vault_credential_free (sodium_memzero);
 * every internal plaintext buffer is wiped before it is freed. Values never
 * reach the database, list output, error messages or the audit log.
 *
 * Thread-safety: a wg_vault may be used from several threads (the store
 * serialises access). Processes may share a data dir.
 *
 * Errors: WG_EINVAL (bad name: empty, over 256 bytes or control chars;
 * NULL value), WG_ENOTFOUND, WG_ECRYPTO (wrong key, tampered or moved
 * ciphertext), WG_EIO (key file), WG_ESTORE, WG_ENOMEM.
 */
#ifndef WAGGLE_VAULT_H
#define WAGGLE_VAULT_H

#include "waggle/export.h"

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "waggle/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_vault wg_vault;
struct wg_connect_vault_item;      /* waggle/connector.h */

#define WG_VAULT_KEY_BYTES 32
#define WG_VAULT_NAME_MAX 256

/* Opens the vault over st (borrowed; must outlive the vault). The key comes
 * from $WAGGLE_VAULT_PASSPHRASE when set and non-empty, else from
 * DATA_DIR/vault.key (created when missing). *out is new: free with
 * wg_vault_free. Returns 0, WG_ECRYPTO (the key does not open this vault),
 * WG_EIO, WG_EINVAL (key file not 32 bytes; store has no data dir),
 * WG_ESTORE, WG_ENOMEM. */
WG_EXTERN int wg_vault_open(wg_vault **out, wg_store *st);

/* Same with an explicit key (copied, then the copy is wiped on free). */
WG_EXTERN int wg_vault_open_key(wg_vault **out, wg_store *st,
                                const unsigned char key[WG_VAULT_KEY_BYTES]);

/* Same with an explicit passphrase (Argon2id, salt in the store). */
WG_EXTERN int wg_vault_open_passphrase(wg_vault **out, wg_store *st,
                                       const char *passphrase, size_t len);

/* Wipes the key and frees. NULL is a no-op. */
WG_EXTERN void wg_vault_free(wg_vault *v);

/* The store the vault was opened over (borrowed). */
WG_EXTERN wg_store *wg_vault_store(const wg_vault *v);

/* Derives an independent 32-byte key for another purpose from the vault
 * key (crypto_kdf, BLAKE2b), so every holder of the vault key -- each
 * replica sharing a passphrase or a vault.key -- derives the same one and
 * nothing else needs distributing. context: exactly 8 characters naming
 * the purpose (e.g. "wgaudit1"); id: a sub-key number. The vault key
 * itself never leaves the vault. The caller wipes out (sodium_memzero).
 * Returns 0 or WG_EINVAL (NULL argument, context not 8 characters). */
WG_EXTERN int wg_vault_derive_key(unsigned char out[WG_VAULT_KEY_BYTES], const wg_vault *v,
                                  const char *context, uint64_t id);

typedef struct wg_vault_entry {
    char *name;
    char *value;          /* NUL-terminated; NULL in list results */
    size_t value_len;
    json_t *metadata;     /* object, never NULL (may be empty) */
    char *updated_at;     /* ISO-8601 UTC, e.g. 2026-01-02T03:04:05.000Z */
} wg_vault_entry;

/* Wipes the value and frees the entry. NULL is a no-op. */
WG_EXTERN void wg_vault_entry_free(wg_vault_entry *e);
/* Frees an array of n entries from wg_vault_list. */
WG_EXTERN void wg_vault_entries_free(wg_vault_entry *list, size_t n);

/* Stores (insert or replace) name = value[0..len) with metadata (borrowed,
 * may be NULL meaning {}; must be an object). */
WG_EXTERN int wg_vault_set(wg_vault *v, const char *name, const char *value, size_t len,
                           const json_t *metadata);

/* *out is new: free with wg_vault_entry_free. WG_ENOTFOUND when absent,
 * WG_ECRYPTO when it does not open under this key and name. */
WG_EXTERN int wg_vault_get(wg_vault_entry **out, wg_vault *v, const char *name);

/* 1 when present, 0 when absent, negative WG_E* on failure. Does not
 * decrypt. */
WG_EXTERN int wg_vault_has(wg_vault *v, const char *name);

/* WG_ENOTFOUND when absent. */
WG_EXTERN int wg_vault_delete(wg_vault *v, const char *name);

/* Entries whose name starts with prefix (NULL or "" = all), sorted by name,
 * without values (value NULL) but with decrypted metadata. *out is a new
 * array (free with wg_vault_entries_free); *n may be 0 (then *out NULL).
 * An entry that fails to open gets metadata {"error":"undecryptable"}. */
WG_EXTERN int wg_vault_list(wg_vault_entry **out, size_t *n, wg_vault *v, const char *prefix);

/* ---- connector credentials (reference §11) ---------------------------- */

typedef struct wg_vault_credential {
    char *value;          /* the secret (wiped on free) */
    char *type;           /* metadata.credentialType, default "api_key" */
    char *refresh_token;  /* connector:<id>:refresh, or NULL */
    char *expires_at;     /* as stored, or NULL */
    json_t *scopes;       /* array or NULL */
    int is_expired;       /* wg_time_credential_expired (waggle/time.h) */
} wg_vault_credential;

WG_EXTERN void wg_vault_credential_free(wg_vault_credential *c);

typedef struct wg_vault_credential_input {
    const char *type;          /* "api_key", "bearer", "oauth2", "basic"; NULL = api_key */
    const char *value;         /* required */
    const char *refresh_token; /* NULL deletes connector:<id>:refresh */
    const char *expires_at;    /* ISO-8601 or NULL */
    const json_t *scopes;      /* array of strings or NULL */
} wg_vault_credential_input;

/* Sets connector:<id> (metadata {credentialType, expiresAt?, scopes?}) and
 * connector:<id>:refresh, or deletes the latter when no refresh token is
 * given. id: 1..64 of [A-Za-z0-9_.-]. */
WG_EXTERN int wg_vault_set_connector_credential(wg_vault *v, const char *id,
                                                const wg_vault_credential_input *in);

/* *out is new. now_ms is the clock for is_expired (0 = the real clock).
 * WG_ENOTFOUND when connector:<id> is absent. */
WG_EXTERN int wg_vault_get_connector_credential(wg_vault_credential **out, wg_vault *v,
                                                const char *id, int64_t now_ms);

/* Deletes connector:<id> and every connector:<id>:<sub> entry. *deleted
 * (optional) is a new array of the n deleted names (free each, then the
 * array). Returns 0 also when nothing was there (n = 0). */
WG_EXTERN int wg_vault_delete_connector(wg_vault *v, const char *id,
                                        char ***deleted, size_t *n);

/* ---- the connector registry's seam (struct wg_connect_vault) ----------
 * These match the function pointers of wg_connect_vault in connector.h
 * with ctx = the wg_vault*, so the server can wire
 *   wg_connect_vault cv = { v, wg_vault_seam_get, wg_vault_seam_set,
 *                           wg_vault_seam_del, wg_vault_seam_list,
 *                           wg_vault_seam_take, wg_vault_seam_set_many,
 *                           wg_vault_seam_lock, wg_vault_seam_unlock };
 * get: *value new (free(); wipe it), *meta new (json_decref) or untouched
 * when the pointer is NULL. list: *names new array of new strings. */
WG_EXTERN int wg_vault_seam_get(void *ctx, const char *name, char **value, json_t **meta);
WG_EXTERN int wg_vault_seam_set(void *ctx, const char *name, const char *value, const json_t *meta);
WG_EXTERN int wg_vault_seam_del(void *ctx, const char *name);
WG_EXTERN int wg_vault_seam_list(void *ctx, const char *prefix, char ***names, size_t *n);
/* wg_store_counter_take on the vault's store (counters are not secret). */
WG_EXTERN int wg_vault_seam_take(void *ctx, const char *name, long limit, long *count);
/* set_many: items is a const struct wg_connect_vault_item * (connector.h:
 * {name, value or NULL to delete, meta}); all are written in one write
 * transaction of the store, or none. */
WG_EXTERN int wg_vault_seam_set_many(void *ctx, const struct wg_connect_vault_item *items, size_t n);
/* wg_store_lock_take / wg_store_lock_release on the vault's store. */
WG_EXTERN int wg_vault_seam_lock(void *ctx, const char *name, const char *owner, long ttl_ms);
WG_EXTERN int wg_vault_seam_unlock(void *ctx, const char *name, const char *owner);

#ifdef __cplusplus
}
#endif
#endif

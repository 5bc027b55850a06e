/* vault.c - the encrypted vault over the store (waggle/vault.h; reference
 * §11, with the weaknesses of §13.17 fixed): XChaCha20-Poly1305 with the
 * entry name as associated data, metadata sealed with the value, a key
 * check so a wrong key fails loudly, fail-closed expiry. */
#include "store/files.h"
#include "waggle/vault.h"
#include "waggle/error.h"
#include "waggle/tier.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NONCE_BYTES crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG_BYTES crypto_aead_xchacha20poly1305_ietf_ABYTES
#define AD_PREFIX "waggle-vault-v1:"
#define CHECK_TEXT "waggle vault key check v1"
#define CHECK_AD "waggle-vault-check"
#define MAX_VALUE (1u << 20)

struct wg_vault {
    wg_store *st;
    unsigned char key[WG_VAULT_KEY_BYTES];
};

/* ---- helpers ------------------------------------------------------------ */

static int check_name(const char *name)
{
    if (!name || !*name)
        return wg_error_set(WG_EINVAL, "vault name is required");
    size_t n = strlen(name);
    if (n > WG_VAULT_NAME_MAX)
        return wg_error_set(WG_EINVAL, "vault name longer than %d bytes", WG_VAULT_NAME_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return wg_error_set(WG_EINVAL, "vault name contains a control character");
    return 0;
}

static char *make_ad(const char *name, size_t *len)
{
    size_t n = sizeof AD_PREFIX - 1 + strlen(name);
    char *ad = malloc(n + 1);
    if (ad)
        snprintf(ad, n + 1, "%s%s", AD_PREFIX, name);
    *len = n;
    return ad;
}

static void now_iso(char buf[32])
{
    wg_time_format_iso(buf, wg_time_now_ms());
}

static void wipe_free(void *p, size_t n)
{
    if (p) {
        sodium_memzero(p, n);
        free(p);
    }
}

/* Seals msg under key with ad into a new nonce||ciphertext buffer. */
static int seal(unsigned char **out, size_t *out_len, const unsigned char *key,
                const unsigned char *msg, size_t len, const void *ad, size_t adlen)
{
    unsigned char *buf = malloc(NONCE_BYTES + len + TAG_BYTES);
    if (!buf)
        return wg_error_set(WG_ENOMEM, "out of memory");
    randombytes_buf(buf, NONCE_BYTES);
    unsigned long long clen = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(buf + NONCE_BYTES, &clen, msg, len,
                                               ad, adlen, NULL, buf, key);
    *out = buf;
    *out_len = NONCE_BYTES + (size_t)clen;
    return 0;
}

/* Opens nonce||ciphertext; *out new (len + 1 bytes, NUL-terminated). */
static int unseal(unsigned char **out, size_t *out_len, const unsigned char *key,
                  const unsigned char *nonce, const unsigned char *ct, size_t ctlen,
                  const void *ad, size_t adlen, const char *what)
{
    if (ctlen < TAG_BYTES)
        return wg_error_set(WG_ECRYPTO, "%s: ciphertext is truncated", what);
    /* Plain malloc: guarded sodium_malloc pages cost two syscalls per call;
     * every plaintext buffer is wiped with wipe_free instead. */
    unsigned char *m = malloc(ctlen - TAG_BYTES + 1);
    if (!m)
        return wg_error_set(WG_ENOMEM, "out of memory");
    unsigned long long mlen = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(m, &mlen, NULL, ct, ctlen, ad, adlen,
                                                   nonce, key) != 0) {
        wipe_free(m, ctlen - TAG_BYTES + 1);
        return wg_error_set(WG_ECRYPTO,
            "%s does not decrypt: wrong vault key, or the entry was tampered with or moved", what);
    }
    m[mlen] = '\0';
    *out = m;
    *out_len = (size_t)mlen;
    return 0;
}

static void hex_of(char *hex, const unsigned char *b, size_t n)
{
    sodium_bin2hex(hex, n * 2 + 1, b, n);
}

/* ---- key sources ------------------------------------------------------------- */

/* Opens the key file only when it is safe to trust: never through a
 * symlink, never blocking on a FIFO, a regular file of ours. A key others
 * could read is made private (0600); it cannot be refused the way a token
 * is, because a vault key cannot be replaced. WG_ENOTFOUND (no message)
 * when it does not exist. */
static int open_key_file(const char *path)
{
    struct stat sb;
    int fd = wg_files__open_ours(path, O_RDONLY, "vault key file", &sb);
    if (fd >= 0 && (sb.st_mode & 077) && fchmod(fd, 0600) != 0) {
        close(fd);
        return wg_error_set(WG_EIO, "vault key file %s is readable by others and cannot be made "
                            "private: %s", path, strerror(errno));
    }
    return fd;
}

static int read_key_file(unsigned char key[32], const char *path)
{
    int fd = open_key_file(path);
    if (fd < 0)
        return fd;
    unsigned char buf[130];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    int rc = 0;
    size_t len = n > 0 ? (size_t)n : 0;
    size_t got = 0;
    if (len == 32) {
        memcpy(key, buf, 32);   /* raw bytes: never trimmed, any byte is valid */
        goto done;
    }
    /* The hex form (the original's) may end with a newline. */
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
        len--;
    if (len == 64 && sodium_hex2bin(key, 32, (char *)buf, 64, NULL, &got, NULL) == 0 &&
               got == 32) {
        /* hex form, as the original wrote it */
    } else {
        rc = wg_error_set(WG_EINVAL,
            "vault key file is corrupted: expected 32 bytes, got %zu. Move %s away to "
            "start a new vault (existing entries will no longer open)", len, path);
    }
done:
    sodium_memzero(buf, sizeof buf);
    return rc;
}

/* Creates the key file atomically: write a private temp file, then link()
 * it into place, so concurrent first users agree on one key. */
static int create_key_file(unsigned char key[32], const char *path)
{
    char tmp[4200];
    if (strlen(path) > 4096)
        return wg_error_set(WG_EINVAL, "data dir path too long");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return wg_error_set(WG_EIO, "cannot create %s: %s", tmp, strerror(errno));
    randombytes_buf(key, 32);
    int ok = write(fd, key, 32) == 32 && fsync(fd) == 0;
    close(fd);
    if (!ok) {
        unlink(tmp);
        return wg_error_set(WG_EIO, "cannot write %s", tmp);
    }
    int linked = link(tmp, path) == 0;
    int err = errno;
    unlink(tmp);
    if (linked)
        return 0;
    if (err == EEXIST)
        return read_key_file(key, path);
    if (err == EPERM || err == ENOSYS || err == EOPNOTSUPP) {
        /* No hard links here (some FUSE/network file systems): exclusive
         * create instead; a racing creator gets EEXIST and reads ours. */
        int fd2 = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd2 < 0)
            return errno == EEXIST ? read_key_file(key, path)
                                   : wg_error_set(WG_EIO, "cannot create %s: %s", path, strerror(errno));
        int ok2 = write(fd2, key, 32) == 32 && fsync(fd2) == 0;
        close(fd2);
        if (ok2)
            return 0;
        unlink(path);
        return wg_error_set(WG_EIO, "cannot write %s", path);
    }
    return wg_error_set(WG_EIO, "cannot create %s: %s", path, strerror(err));
}

static int64_t count_of(wg_store *st, const char *sql)
{
    wg_store_rows *rows = NULL;
    int64_t n = wg_store_exec(st, sql, NULL, 0, &rows, NULL) == 0 ? wg_store_rows_int(rows, 0, 0) : -1;
    wg_store_rows_free(rows);
    return n;
}

/* A new key opens nothing sealed with the old one. Making one while the
 * store holds such data loses it all (and makes the audit log's seals
 * look forged), so it is refused with what to do instead. */
static int refuse_new_key_if_sealed(wg_store *st, const char *path)
{
    int64_t entries = count_of(st, "SELECT COUNT(*) FROM vault_entries");
    int64_t check = count_of(st, "SELECT COUNT(*) FROM settings WHERE key = 'vault.check'");
    int64_t sealed = count_of(st, "SELECT COUNT(*) FROM audit_log WHERE seal IS NOT NULL");
    if (entries < 0 || check < 0 || sealed < 0)
        return wg_error_last_code() < 0 ? wg_error_last_code() : WG_ESTORE;
    if (!entries && !check && !sealed)
        return 0;
    return wg_error_set(WG_ENOTFOUND,
        "%s is missing, but this store holds data sealed with the key it held (%lld vault "
        "entries, %lld sealed audit rows%s): a new key would open none of it, so none is made. "
        "Restore vault.key from a backup (mode 0600), or set WAGGLE_VAULT_PASSPHRASE if this "
        "vault was made with a passphrase. If the key is lost for good, move the store away "
        "(DATA_DIR/waggle.db, or the database in WAGGLE_DATABASE_URL) to start over; what it "
        "holds cannot be recovered", path, (long long)entries, (long long)sealed,
        check ? ", the key check" : "");
}

static int load_key_file(unsigned char key[32], wg_store *st, const char *data_dir)
{
    char path[4200];
    if (strlen(data_dir) > 4000)
        return wg_error_set(WG_EINVAL, "data dir path too long");
    snprintf(path, sizeof path, "%s/vault.key", data_dir);
    int rc = read_key_file(key, path);
    if (rc == WG_ENOTFOUND && (rc = refuse_new_key_if_sealed(st, path)) == 0)
        rc = create_key_file(key, path);
    return rc;
}

/* ---- the key check ------------------------------------------------------- */

static int verify_key(wg_vault *v)
{
    char *hex = NULL;
    int rc = wg_store_setting_get(&hex, v->st, "vault.check");
    if (rc == WG_ENOTFOUND) {
        unsigned char *sealed = NULL;
        size_t n = 0;
        if ((rc = seal(&sealed, &n, v->key, (const unsigned char *)CHECK_TEXT,
                       sizeof CHECK_TEXT - 1, CHECK_AD, sizeof CHECK_AD - 1)) < 0)
            return rc;
        char *h = malloc(n * 2 + 1);
        if (!h) {
            free(sealed);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
        hex_of(h, sealed, n);
        free(sealed);
        wg_store_value p[2] = { WG_SV_TEXT("vault.check"), WG_SV_TEXT(h) };
        /* First writer wins; everyone then verifies against the stored one. */
        rc = wg_store_exec(v->st, "INSERT INTO settings (key, value) VALUES (?, ?)"
                           " ON CONFLICT (key) DO NOTHING", p, 2, NULL, NULL);
        free(h);
        if (rc < 0)
            return rc;
        rc = wg_store_setting_get(&hex, v->st, "vault.check");
    }
    if (rc < 0)
        return rc;
    size_t hl = strlen(hex), bl = 0;
    unsigned char *bin = malloc(hl / 2 + 1);
    if (!bin) {
        free(hex);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (sodium_hex2bin(bin, hl / 2 + 1, hex, hl, NULL, &bl, NULL) != 0 || bl < NONCE_BYTES) {
        free(hex);
        free(bin);
        return wg_error_set(WG_ECRYPTO, "the vault key check in the store is corrupted");
    }
    free(hex);
    unsigned char *m = NULL;
    size_t ml = 0;
    rc = unseal(&m, &ml, v->key, bin, bin + NONCE_BYTES, bl - NONCE_BYTES,
                CHECK_AD, sizeof CHECK_AD - 1, "the vault key check");
    free(bin);
    if (rc < 0)
        return wg_error_set(WG_ECRYPTO,
            "wrong vault key: this vault was created with another key, so this process "
            "cannot open what the store holds and does not start (check "
            "WAGGLE_VAULT_KEY_FILE, WAGGLE_VAULT_PASSPHRASE or DATA_DIR/vault.key: every "
            "replica on one database needs the same key)");
    wipe_free(m, ml);
    return 0;
}

/* ---- open / free --------------------------------------------------------- */

static int finish_open(wg_vault **out, wg_vault *v)
{
    int rc = verify_key(v);
    if (rc < 0) {
        wg_vault_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

static wg_vault *vault_new(wg_store *st)
{
    if (sodium_init() < 0)
        return NULL;
    wg_vault *v = sodium_malloc(sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->st = st;
    }
    return v;
}

int wg_vault_open_key(wg_vault **out, wg_store *st, const unsigned char key[WG_VAULT_KEY_BYTES])
{
    if (!out || !st || !key)
        return wg_error_set(WG_EINVAL, "wg_vault_open_key: NULL argument");
    wg_vault *v = vault_new(st);
    if (!v)
        return wg_error_set(WG_ENOMEM, "out of memory");
    memcpy(v->key, key, WG_VAULT_KEY_BYTES);
    return finish_open(out, v);
}

int wg_vault_open_passphrase(wg_vault **out, wg_store *st, const char *pass, size_t len)
{
    if (!out || !st || !pass || !len)
        return wg_error_set(WG_EINVAL, "a non-empty passphrase is required");
    unsigned char salt[crypto_pwhash_SALTBYTES];
    char *hex = NULL;
    int rc = wg_store_setting_get(&hex, st, "vault.salt");
    if (rc == WG_ENOTFOUND) {
        char h[crypto_pwhash_SALTBYTES * 2 + 1];
        randombytes_buf(salt, sizeof salt);
        hex_of(h, salt, sizeof salt);
        wg_store_value p[2] = { WG_SV_TEXT("vault.salt"), WG_SV_TEXT(h) };
        if ((rc = wg_store_exec(st, "INSERT INTO settings (key, value) VALUES (?, ?)"
                                " ON CONFLICT (key) DO NOTHING", p, 2, NULL, NULL)) < 0)
            return rc;
        rc = wg_store_setting_get(&hex, st, "vault.salt");
    }
    if (rc < 0)
        return rc;
    size_t got = 0;
    rc = sodium_hex2bin(salt, sizeof salt, hex, strlen(hex), NULL, &got, NULL);
    free(hex);
    if (rc != 0 || got != sizeof salt)
        return wg_error_set(WG_ECRYPTO, "the vault salt in the store is corrupted");
    wg_vault *v = vault_new(st);
    if (!v)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (crypto_pwhash(v->key, sizeof v->key, pass, len, salt,
                      crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE,
                      crypto_pwhash_ALG_ARGON2ID13) != 0) {
        wg_vault_free(v);
        return wg_error_set(WG_ENOMEM, "Argon2id ran out of memory");
    }
    return finish_open(out, v);
}

int wg_vault_open(wg_vault **out, wg_store *st)
{
    if (!out || !st)
        return wg_error_set(WG_EINVAL, "wg_vault_open: NULL argument");
    const char *pass = getenv("WAGGLE_VAULT_PASSPHRASE");
    if (pass && *pass)
        return wg_vault_open_passphrase(out, st, pass, strlen(pass));
    /* Replicas: the operator supplies one key file to all of them; it is
     * never created here (a made-up key would open nothing they share). */
    const char *key_file = getenv("WAGGLE_VAULT_KEY_FILE");
    const char *dir = wg_store_data_dir(st);
    if (!(key_file && *key_file) && !dir)
        return wg_error_set(WG_EINVAL,
            "the store has no data dir for vault.key; set WAGGLE_VAULT_KEY_FILE or "
            "WAGGLE_VAULT_PASSPHRASE");
    wg_vault *v = vault_new(st);
    if (!v)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = key_file && *key_file ? read_key_file(v->key, key_file)
                                   : load_key_file(v->key, st, dir);
    if (rc == WG_ENOTFOUND && key_file && *key_file)
        rc = wg_error_set(WG_ENOTFOUND, "WAGGLE_VAULT_KEY_FILE=%s does not exist (make one "
                          "with: head -c 32 /dev/urandom > FILE; chmod 600 FILE)", key_file);
    if (rc < 0) {
        wg_vault_free(v);
        return rc;
    }
    return finish_open(out, v);
}

void wg_vault_free(wg_vault *v)
{
    if (v)
        sodium_free(v);   /* wipes the key */
}

wg_store *wg_vault_store(const wg_vault *v) { return v ? v->st : NULL; }

int wg_vault_derive_key(unsigned char out[WG_VAULT_KEY_BYTES], const wg_vault *v,
                        const char *context, uint64_t id)
{
    if (!out || !v || !context || strlen(context) != crypto_kdf_CONTEXTBYTES)
        return wg_error_set(WG_EINVAL, "wg_vault_derive_key: a vault and an 8-character context are required");
    /* crypto_kdf_KEYBYTES == WG_VAULT_KEY_BYTES: the vault key is a KDF master key. */
    if (crypto_kdf_derive_from_key(out, WG_VAULT_KEY_BYTES, id, context, v->key) != 0)
        return wg_error_set(WG_EINTERNAL, "key derivation failed");
    return 0;
}

/* ---- entries -------------------------------------------------------------- */

void wg_vault_entry_free(wg_vault_entry *e)
{
    if (!e)
        return;
    free(e->name);
    if (e->value) {
        sodium_memzero(e->value, e->value_len);
        free(e->value);
    }
    json_decref(e->metadata);
    free(e->updated_at);
    free(e);
}

void wg_vault_entries_free(wg_vault_entry *list, size_t n)
{
    if (!list)
        return;
    for (size_t i = 0; i < n; i++) {
        free(list[i].name);
        if (list[i].value) {
            sodium_memzero(list[i].value, list[i].value_len);
            free(list[i].value);
        }
        json_decref(list[i].metadata);
        free(list[i].updated_at);
    }
    free(list);
}

/* payload = u32 big-endian metadata length || metadata JSON || value */
int wg_vault_set(wg_vault *v, const char *name, const char *value, size_t len,
                 const json_t *metadata)
{
    int rc = check_name(name);
    if (rc < 0)
        return rc;
    if (!v || !value)
        return wg_error_set(WG_EINVAL, "vault value is required");
    if (len > MAX_VALUE)
        return wg_error_set(WG_EINVAL, "vault value larger than %u bytes", MAX_VALUE);
    if (metadata && !json_is_object(metadata))
        return wg_error_set(WG_EINVAL, "vault metadata must be a JSON object");
    char *meta = metadata ? json_dumps(metadata, JSON_COMPACT | JSON_SORT_KEYS) : strdup("{}");
    if (!meta)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t ml = strlen(meta), pl = 4 + ml + len;
    unsigned char *payload = malloc(pl ? pl : 1);
    if (!payload) {
        free(meta);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    payload[0] = (unsigned char)(ml >> 24);
    payload[1] = (unsigned char)(ml >> 16);
    payload[2] = (unsigned char)(ml >> 8);
    payload[3] = (unsigned char)ml;
    memcpy(payload + 4, meta, ml);
    memcpy(payload + 4 + ml, value, len);
    free(meta);
    size_t adl = 0;
    char *ad = make_ad(name, &adl);
    unsigned char *sealed = NULL;
    size_t sl = 0;
    rc = ad ? seal(&sealed, &sl, v->key, payload, pl, ad, adl)
            : wg_error_set(WG_ENOMEM, "out of memory");
    wipe_free(payload, pl);
    free(ad);
    if (rc < 0)
        return rc;
    char ts[32];
    now_iso(ts);
    wg_store_value p[4] = {
        WG_SV_TEXT(name), WG_SV_BLOB(sealed, NONCE_BYTES),
        WG_SV_BLOB(sealed + NONCE_BYTES, sl - NONCE_BYTES), WG_SV_TEXT(ts),
    };
    rc = wg_store_exec(v->st,
        "INSERT INTO vault_entries (name, nonce, ciphertext, updated_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (name) DO UPDATE SET nonce = excluded.nonce,"
        " ciphertext = excluded.ciphertext, updated_at = excluded.updated_at",
        p, 4, NULL, NULL);
    free(sealed);
    return rc;
}

/* Opens one stored row into e (name and updated_at set by the caller).
 * want_value 0 wipes the value instead of keeping it. */
static int open_row(wg_vault *v, wg_vault_entry *e, const wg_store_rows *rows, size_t r,
                    int want_value)
{
    size_t nl = 0, cl = 0;
    const unsigned char *nonce = wg_store_rows_blob(rows, r, 1, &nl);
    const unsigned char *ct = wg_store_rows_blob(rows, r, 2, &cl);
    if (!nonce || nl != NONCE_BYTES || !ct)
        return wg_error_set(WG_ECRYPTO, "vault entry %s is corrupted", e->name);
    size_t adl = 0;
    char *ad = make_ad(e->name, &adl);
    if (!ad)
        return wg_error_set(WG_ENOMEM, "out of memory");
    char what[300];
    snprintf(what, sizeof what, "vault entry %s", e->name);
    unsigned char *m = NULL;
    size_t ml = 0;
    int rc = unseal(&m, &ml, v->key, nonce, ct, cl, ad, adl, what);
    free(ad);
    if (rc < 0)
        return rc;
    size_t metal = ml >= 4 ? ((size_t)m[0] << 24 | (size_t)m[1] << 16 | (size_t)m[2] << 8 | m[3]) : 0;
    if (ml < 4 || metal > ml - 4) {
        wipe_free(m, ml);
        return wg_error_set(WG_ECRYPTO, "vault entry %s has a malformed payload", e->name);
    }
    e->metadata = json_loadb((const char *)m + 4, metal, 0, NULL);
    if (!e->metadata || !json_is_object(e->metadata)) {
        json_decref(e->metadata);
        e->metadata = json_object();
    }
    if (want_value) {
        e->value_len = ml - 4 - metal;
        e->value = malloc(e->value_len + 1);
        if (!e->value) {
            wipe_free(m, ml);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
        memcpy(e->value, m + 4 + metal, e->value_len);
        e->value[e->value_len] = '\0';
    }
    wipe_free(m, ml);
    return 0;
}

int wg_vault_get(wg_vault_entry **out, wg_vault *v, const char *name)
{
    int rc = check_name(name);
    if (rc < 0)
        return rc;
    if (!out || !v)
        return wg_error_set(WG_EINVAL, "wg_vault_get: NULL argument");
    wg_store_rows *rows = NULL;
    wg_store_value p = WG_SV_TEXT(name);
    if ((rc = wg_store_exec(v->st,
            "SELECT name, nonce, ciphertext, updated_at FROM vault_entries WHERE name = ?",
            &p, 1, &rows, NULL)) < 0)
        return rc;
    if (!wg_store_rows_count(rows)) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOTFOUND, "no vault entry named %s", name);
    }
    wg_vault_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->name = strdup(name)) ||
        !(e->updated_at = strdup(wg_store_rows_text(rows, 0, 3) ? wg_store_rows_text(rows, 0, 3) : ""))) {
        wg_store_rows_free(rows);
        wg_vault_entry_free(e);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    rc = open_row(v, e, rows, 0, 1);
    wg_store_rows_free(rows);
    if (rc < 0) {
        wg_vault_entry_free(e);
        return rc;
    }
    *out = e;
    return 0;
}

int wg_vault_has(wg_vault *v, const char *name)
{
    int rc = check_name(name);
    if (rc < 0)
        return rc;
    wg_store_rows *rows = NULL;
    wg_store_value p = WG_SV_TEXT(name);
    if ((rc = wg_store_exec(v->st, "SELECT 1 FROM vault_entries WHERE name = ?",
                            &p, 1, &rows, NULL)) < 0)
        return rc;
    rc = wg_store_rows_count(rows) > 0;
    wg_store_rows_free(rows);
    return rc;
}

int wg_vault_delete(wg_vault *v, const char *name)
{
    int rc = check_name(name);
    if (rc < 0)
        return rc;
    int64_t changes = 0;
    wg_store_value p = WG_SV_TEXT(name);
    if ((rc = wg_store_exec(v->st, "DELETE FROM vault_entries WHERE name = ?",
                            &p, 1, NULL, &changes)) < 0)
        return rc;
    if (!changes)
        return wg_error_set(WG_ENOTFOUND, "no vault entry named %s", name);
    return 0;
}

int wg_vault_list(wg_vault_entry **out, size_t *n, wg_vault *v, const char *prefix)
{
    if (!out || !n || !v)
        return wg_error_set(WG_EINVAL, "wg_vault_list: NULL argument");
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(v->st,
        "SELECT name, nonce, ciphertext, updated_at FROM vault_entries ORDER BY name",
        NULL, 0, &rows, NULL);
    if (rc < 0)
        return rc;
    size_t total = wg_store_rows_count(rows), k = 0, pl = prefix ? strlen(prefix) : 0;
    wg_vault_entry *list = total ? calloc(total, sizeof *list) : NULL;
    if (total && !list) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < total; r++) {
        const char *name = wg_store_rows_text(rows, r, 0);
        if (!name || (pl && strncmp(name, prefix, pl)))
            continue;
        wg_vault_entry *e = &list[k++];
        const char *ts = wg_store_rows_text(rows, r, 3);
        if (!(e->name = strdup(name)) || !(e->updated_at = strdup(ts ? ts : ""))) {
            rc = wg_error_set(WG_ENOMEM, "out of memory");
            break;
        }
        if (open_row(v, e, rows, r, 0) < 0) {
            json_decref(e->metadata);
            e->metadata = json_pack("{s:s}", "error", "undecryptable");
            wg_error_clear();
        }
    }
    wg_store_rows_free(rows);
    if (rc < 0) {
        wg_vault_entries_free(list, k);
        return rc;
    }
    if (!k) {
        free(list);
        list = NULL;
    }
    *out = list;
    *n = k;
    return 0;
}

/* ---- connector credentials ------------------------------------------------- */

static int check_id(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (!n || n > 64)
        return wg_error_set(WG_EINVAL, "connector id must be 1..64 characters");
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
        if (!ok)
            return wg_error_set(WG_EINVAL, "connector id %s has a character outside [A-Za-z0-9_.-]", id);
    }
    return 0;
}

int wg_vault_set_connector_credential(wg_vault *v, const char *id,
                                      const wg_vault_credential_input *in)
{
    int rc = check_id(id);
    if (rc < 0)
        return rc;
    if (!v || !in || !in->value || !*in->value)
        return wg_error_set(WG_EINVAL, "a credential value is required");
    if (in->scopes && !json_is_array(in->scopes))
        return wg_error_set(WG_EINVAL, "scopes must be an array");
    json_t *meta = json_pack("{s:s}", "credentialType", in->type && *in->type ? in->type : "api_key");
    if (!meta)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (in->expires_at)
        json_object_set_new(meta, "expiresAt", json_string(in->expires_at));
    if (in->scopes)
        json_object_set_new(meta, "scopes", json_deep_copy(in->scopes));
    char name[128], refresh[140];
    snprintf(name, sizeof name, "connector:%s", id);
    snprintf(refresh, sizeof refresh, "connector:%s:refresh", id);
    rc = wg_vault_set(v, name, in->value, strlen(in->value), meta);
    json_decref(meta);
    if (rc < 0)
        return rc;
    if (in->refresh_token && *in->refresh_token)
        return wg_vault_set(v, refresh, in->refresh_token, strlen(in->refresh_token), NULL);
    rc = wg_vault_delete(v, refresh);
    if (rc == WG_ENOTFOUND) {
        wg_error_clear();
        rc = 0;
    }
    return rc;
}

void wg_vault_credential_free(wg_vault_credential *c)
{
    if (!c)
        return;
    if (c->value) {
        sodium_memzero(c->value, strlen(c->value));
        free(c->value);
    }
    if (c->refresh_token) {
        sodium_memzero(c->refresh_token, strlen(c->refresh_token));
        free(c->refresh_token);
    }
    free(c->type);
    free(c->expires_at);
    json_decref(c->scopes);
    free(c);
}

int wg_vault_get_connector_credential(wg_vault_credential **out, wg_vault *v,
                                      const char *id, int64_t now_ms)
{
    int rc = check_id(id);
    if (rc < 0)
        return rc;
    char name[128], refresh[140];
    snprintf(name, sizeof name, "connector:%s", id);
    snprintf(refresh, sizeof refresh, "connector:%s:refresh", id);
    wg_vault_entry *e = NULL, *r = NULL;
    if ((rc = wg_vault_get(&e, v, name)) < 0)
        return rc;
    rc = wg_vault_get(&r, v, refresh);
    if (rc == WG_ENOTFOUND) {
        wg_error_clear();
        rc = 0;
    }
    if (rc < 0) {
        wg_vault_entry_free(e);
        return rc;
    }
    wg_vault_credential *c = calloc(1, sizeof *c);
    if (!c) {
        wg_vault_entry_free(e);
        wg_vault_entry_free(r);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    const char *type = json_string_value(json_object_get(e->metadata, "credentialType"));
    const char *exp = json_string_value(json_object_get(e->metadata, "expiresAt"));
    json_t *scopes = json_object_get(e->metadata, "scopes");
    c->value = e->value;          /* move the secret, no extra copy */
    e->value = NULL;
    e->value_len = 0;
    if (r) {
        c->refresh_token = r->value;
        r->value = NULL;
        r->value_len = 0;
    }
    c->type = strdup(type ? type : "api_key");
    c->expires_at = exp ? strdup(exp) : NULL;
    c->scopes = json_is_array(scopes) ? json_deep_copy(scopes) : NULL;
    /* A non-string expiresAt cannot be trusted either: fail closed. */
    json_t *rawexp = json_object_get(e->metadata, "expiresAt");
    c->is_expired = (rawexp && !json_is_string(rawexp) && !json_is_null(rawexp)) ? 1
                  : wg_time_credential_expired(exp, now_ms ? now_ms : wg_time_now_ms());
    wg_vault_entry_free(e);
    wg_vault_entry_free(r);
    if (!c->type || (exp && !c->expires_at)) {
        wg_vault_credential_free(c);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    *out = c;
    return 0;
}

int wg_vault_delete_connector(wg_vault *v, const char *id, char ***deleted, size_t *n)
{
    int rc = check_id(id);
    if (rc < 0)
        return rc;
    char exact[128], prefix[130];
    snprintf(exact, sizeof exact, "connector:%s", id);
    snprintf(prefix, sizeof prefix, "connector:%s:", id);
    wg_store_rows *rows = NULL;
    if ((rc = wg_store_begin(v->st, WG_STORE_TX_WRITE)) < 0)
        return rc;
    if ((rc = wg_store_exec(v->st, "SELECT name FROM vault_entries ORDER BY name",
                            NULL, 0, &rows, NULL)) < 0) {
        wg_store_rollback(v->st);
        return rc;
    }
    size_t total = wg_store_rows_count(rows), k = 0, pl = strlen(prefix);
    char **names = calloc(total + 1, sizeof *names);
    if (!names) {
        wg_store_rows_free(rows);
        wg_store_rollback(v->st);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < total && rc == 0; r++) {
        const char *nm = wg_store_rows_text(rows, r, 0);
        if (!nm || (strcmp(nm, exact) && strncmp(nm, prefix, pl)))
            continue;
        wg_store_value p = WG_SV_TEXT(nm);
        if ((rc = wg_store_exec(v->st, "DELETE FROM vault_entries WHERE name = ?",
                                &p, 1, NULL, NULL)) < 0)
            break;
        if (!(names[k++] = strdup(nm)))
            rc = wg_error_set(WG_ENOMEM, "out of memory");
    }
    wg_store_rows_free(rows);
    if (rc == 0)
        rc = wg_store_commit(v->st);
    else
        wg_store_rollback(v->st);
    if (rc < 0 || !deleted) {
        for (size_t i = 0; i < k; i++)
            free(names[i]);
        free(names);
        if (rc == 0 && n)
            *n = k;
        return rc;
    }
    *deleted = names;
    if (n)
        *n = k;
    return 0;
}

/* ---- the connector registry's seam ----------------------------------------- */

int wg_vault_seam_get(void *ctx, const char *name, char **value, json_t **meta)
{
    wg_vault_entry *e = NULL;
    int rc = wg_vault_get(&e, ctx, name);
    if (rc < 0)
        return rc;
    if (value) {
        *value = e->value;
        e->value = NULL;
        e->value_len = 0;
    }
    if (meta) {
        *meta = e->metadata;
        e->metadata = NULL;
    }
    wg_vault_entry_free(e);
    return 0;
}

int wg_vault_seam_set(void *ctx, const char *name, const char *value, const json_t *meta)
{
    if (!value)
        return wg_error_set(WG_EINVAL, "vault value is required");
    return wg_vault_set(ctx, name, value, strlen(value), meta);
}

int wg_vault_seam_take(void *ctx, const char *name, long limit, long *count)
{
    wg_vault *v = ctx;
    int64_t n = 0;
    int rc = wg_store_counter_take(v->st, name, limit, &n);
    if (count)
        *count = (long)n;
    return rc;
}

/* The same layout as struct wg_connect_vault_item in waggle/connector.h
 * (the store layer does not include the connector layer's header). */
struct wg_connect_vault_item {
    const char *name;
    const char *value;
    const json_t *meta;
};

int wg_vault_seam_set_many(void *ctx, const struct wg_connect_vault_item *items, size_t n)
{
    wg_vault *v = ctx;
    int rc = wg_store_begin(v->st, WG_STORE_TX_WRITE);
    if (rc < 0)
        return rc;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (items[i].value) {
            rc = wg_vault_set(v, items[i].name, items[i].value, strlen(items[i].value),
                              items[i].meta);
        } else if ((rc = wg_vault_delete(v, items[i].name)) == WG_ENOTFOUND) {
            wg_error_clear();
            rc = 0;
        }
    }
    if (rc < 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", wg_error_last());
        wg_store_rollback(v->st);
        return wg_error_set(rc, "%s", why);
    }
    return wg_store_commit(v->st);
}

int wg_vault_seam_lock(void *ctx, const char *name, const char *owner, long ttl_ms)
{
    wg_vault *v = ctx;
    return wg_store_lock_take(v->st, name, owner, ttl_ms, 0);
}

int wg_vault_seam_unlock(void *ctx, const char *name, const char *owner)
{
    wg_vault *v = ctx;
    return wg_store_lock_release(v->st, name, owner);
}

int wg_vault_seam_del(void *ctx, const char *name)
{
    return wg_vault_delete(ctx, name);
}

int wg_vault_seam_list(void *ctx, const char *prefix, char ***names, size_t *n)
{
    wg_vault *v = ctx;
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(v->st, "SELECT name FROM vault_entries ORDER BY name",
                           NULL, 0, &rows, NULL);
    if (rc < 0)
        return rc;
    size_t total = wg_store_rows_count(rows), k = 0, pl = prefix ? strlen(prefix) : 0;
    char **out = calloc(total + 1, sizeof *out);
    if (!out) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < total; r++) {
        const char *nm = wg_store_rows_text(rows, r, 0);
        if (!nm || (pl && strncmp(nm, prefix, pl)))
            continue;
        if (!(out[k++] = strdup(nm))) {
            for (size_t i = 0; i < k; i++)
                free(out[i]);
            free(out);
            wg_store_rows_free(rows);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    wg_store_rows_free(rows);
    *names = out;
    *n = k;
    return 0;
}

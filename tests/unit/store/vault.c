/* Tests for the encrypted vault (waggle/vault.h; issue #5, reference §11,
 * §13.17). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "waggle/error.h"
#include "waggle/store.h"
#include "waggle/tier.h"
#include "waggle/vault.h"
#include "wgtest.h"

static char *dir;
static wg_store *st;
static wg_vault *v;

static void setup(void)
{
    unsetenv("WAGGLE_VAULT_PASSPHRASE");
    dir = wgt_tmpdir();
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
    cr_assert_eq(wg_vault_open(&v, st), 0, "%s", wg_error_last());
}

static void teardown(void)
{
    wg_vault_free(v);
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
    v = NULL;
    st = NULL;
}

/* True when needle occurs anywhere in the bytes of path. */
static int file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    int hit = got && memmem(buf, got, needle, strlen(needle)) != NULL;
    free(buf);
    return hit;
}

TestSuite(vault, .init = setup, .fini = teardown);

Test(vault, set_get_roundtrip_keeps_value_and_metadata)
{
    json_t *meta = json_pack("{s:s,s:[s,s]}", "credentialType", "bearer", "scopes", "repo", "user");
    cr_assert_eq(wg_vault_set(v, "connector:github", "s3cret-value", 12, meta), 0);
    json_decref(meta);
    wg_vault_entry *e = NULL;
    cr_assert_eq(wg_vault_get(&e, v, "connector:github"), 0, "%s", wg_error_last());
    cr_assert_str_eq(e->value, "s3cret-value");
    cr_assert_eq(e->value_len, 12);
    cr_assert_str_eq(json_string_value(json_object_get(e->metadata, "credentialType")), "bearer");
    cr_assert_eq(json_array_size(json_object_get(e->metadata, "scopes")), 2);
    cr_assert_eq(strlen(e->updated_at), 24);
    wg_vault_entry_free(e);
}

Test(vault, get_absent_is_enotfound)
{
    wg_vault_entry *e = NULL;
    cr_assert_eq(wg_vault_get(&e, v, "nope"), WG_ENOTFOUND);
    cr_assert_null(e);
    cr_assert_eq(wg_vault_has(v, "nope"), 0);
}

Test(vault, bad_names_are_einval)
{
    cr_assert_eq(wg_vault_set(v, "", "x", 1, NULL), WG_EINVAL);
    cr_assert_eq(wg_vault_set(v, "a\nb", "x", 1, NULL), WG_EINVAL);
    char big[300];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    cr_assert_eq(wg_vault_set(v, big, "x", 1, NULL), WG_EINVAL);
}

Test(vault, secret_never_in_db_file_or_list)
{
    json_t *meta = json_pack("{s:s,s:s}", "credentialType", "api_key", "expiresAt", "2099-01-01T00:00:00Z");
    cr_assert_eq(wg_vault_set(v, "openai", "sk-VERYSECRET-123", 17, meta), 0);
    json_decref(meta);
    wg_vault_entry *list = NULL;
    size_t n = 0;
    cr_assert_eq(wg_vault_list(&list, &n, v, NULL), 0);
    cr_assert_eq(n, 1);
    cr_assert_null(list[0].value);
    char *dump = json_dumps(list[0].metadata, 0);
    cr_assert_null(strstr(dump, "VERYSECRET"));
    free(dump);
    wg_vault_entries_free(list, n);
    /* Close everything so WAL content is checkpointed into the db, then
     * grep every file of the data dir. */
    wg_vault_free(v);
    v = NULL;
    wg_store_free(st);
    st = NULL;
    static const char *files[] = { "waggle.db", "waggle.db-wal", "waggle.db-shm", "vault.key" };
    for (size_t i = 0; i < 4; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        cr_assert_not(file_contains(p, "VERYSECRET"), "secret found in %s", files[i]);
        cr_assert_not(file_contains(p, "2099-01-01"), "expiry in clear in %s", files[i]);
    }
}

Test(vault, key_file_is_0600_32_bytes)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/vault.key", dir);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600);
    cr_assert_eq(sb.st_size, 32);
    snprintf(p, sizeof p, "%s/waggle.db", dir);
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_mode & 0077, 0);
}

Test(vault, wrong_key_fails_with_ecrypto)
{
    cr_assert_eq(wg_vault_set(v, "k", "value", 5, NULL), 0);
    unsigned char other[32];
    memset(other, 7, sizeof other);
    wg_vault *w = NULL;
    cr_assert_eq(wg_vault_open_key(&w, st, other), WG_ECRYPTO);
    cr_assert_null(w);
    cr_assert(strstr(wg_error_last(), "wrong vault key"));
}

Test(vault, corrupted_key_file_is_einval)
{
    wg_vault_free(v);
    v = NULL;
    char p[4200];
    snprintf(p, sizeof p, "%s/vault.key", dir);
    FILE *f = fopen(p, "wb");
    fputs("short", f);
    fclose(f);
    cr_assert_eq(wg_vault_open(&v, st), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "expected 32 bytes"));
}

Test(vault, tampered_ciphertext_is_ecrypto)
{
    cr_assert_eq(wg_vault_set(v, "k", "value-123", 9, NULL), 0);
    cr_assert_eq(wg_store_exec(st, "UPDATE vault_entries SET ciphertext ="
                               " X'00112233445566778899AABBCCDDEEFF00112233445566778899' WHERE name = 'k'",
                               NULL, 0, NULL, NULL), 0);
    wg_vault_entry *e = NULL;
    cr_assert_eq(wg_vault_get(&e, v, "k"), WG_ECRYPTO);
    cr_assert_null(e);
    cr_assert(strstr(wg_error_last(), "tampered"));
}

Test(vault, moved_ciphertext_fails_ad_binding)
{
    cr_assert_eq(wg_vault_set(v, "connector:github", "ghp_abcdef", 10, NULL), 0);
    cr_assert_eq(wg_vault_set(v, "connector:evil", "xxxx", 4, NULL), 0);
    cr_assert_eq(wg_store_exec(st,
        "UPDATE vault_entries SET nonce = (SELECT nonce FROM vault_entries WHERE name = 'connector:github'),"
        " ciphertext = (SELECT ciphertext FROM vault_entries WHERE name = 'connector:github')"
        " WHERE name = 'connector:evil'", NULL, 0, NULL, NULL), 0);
    wg_vault_entry *e = NULL;
    cr_assert_eq(wg_vault_get(&e, v, "connector:evil"), WG_ECRYPTO);
    cr_assert_eq(wg_vault_get(&e, v, "connector:github"), 0);
    wg_vault_entry_free(e);
}

Test(vault, passphrase_roundtrip_and_wrong_passphrase)
{
    wg_vault_free(v);
    v = NULL;
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
    dir = wgt_tmpdir();
    cr_assert_eq(wg_store_open(&st, dir), 0);
    setenv("WAGGLE_VAULT_PASSPHRASE", "correct horse", 1);
    cr_assert_eq(wg_vault_open(&v, st), 0, "%s", wg_error_last());
    cr_assert_eq(wg_vault_set(v, "a", "pass-protected", 14, NULL), 0);
    wg_vault_free(v);
    v = NULL;
    char p[4200];
    snprintf(p, sizeof p, "%s/vault.key", dir);
    cr_assert_neq(access(p, F_OK), 0, "no key file with a passphrase");
    setenv("WAGGLE_VAULT_PASSPHRASE", "wrong horse", 1);
    cr_assert_eq(wg_vault_open(&v, st), WG_ECRYPTO);
    setenv("WAGGLE_VAULT_PASSPHRASE", "correct horse", 1);
    cr_assert_eq(wg_vault_open(&v, st), 0);
    wg_vault_entry *e = NULL;
    cr_assert_eq(wg_vault_get(&e, v, "a"), 0);
    cr_assert_str_eq(e->value, "pass-protected");
    wg_vault_entry_free(e);
    unsetenv("WAGGLE_VAULT_PASSPHRASE");
}

Test(vault, delete_and_list_prefix)
{
    cr_assert_eq(wg_vault_set(v, "anthropic", "k1-xxxx", 7, NULL), 0);
    cr_assert_eq(wg_vault_set(v, "anthropic-2", "k2-xxxx", 7, NULL), 0);
    cr_assert_eq(wg_vault_set(v, "openai", "k3-xxxx", 7, NULL), 0);
    wg_vault_entry *list = NULL;
    size_t n = 0;
    cr_assert_eq(wg_vault_list(&list, &n, v, "anthropic"), 0);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(list[1].name, "anthropic-2");
    wg_vault_entries_free(list, n);
    cr_assert_eq(wg_vault_delete(v, "openai"), 0);
    cr_assert_eq(wg_vault_delete(v, "openai"), WG_ENOTFOUND);
    cr_assert_eq(wg_vault_has(v, "anthropic-2"), 1);
}

Test(vault, connector_credential_set_get_refresh)
{
    json_t *scopes = json_pack("[s]", "repo");
    wg_vault_credential_input in = { .type = "oauth2", .value = "at-123456", .refresh_token = "rt-98765",
                                     .expires_at = "2030-01-01T00:00:00Z", .scopes = scopes };
    cr_assert_eq(wg_vault_set_connector_credential(v, "gcal", &in), 0, "%s", wg_error_last());
    json_decref(scopes);
    wg_vault_credential *c = NULL;
    int64_t now = 0;
    wg_time_parse_iso(&now, "2029-12-31T23:59:59Z");
    cr_assert_eq(wg_vault_get_connector_credential(&c, v, "gcal", now), 0);
    cr_assert_str_eq(c->value, "at-123456");
    cr_assert_str_eq(c->type, "oauth2");
    cr_assert_str_eq(c->refresh_token, "rt-98765");
    cr_assert_str_eq(c->expires_at, "2030-01-01T00:00:00Z");
    cr_assert_eq(c->is_expired, 0);
    wg_vault_credential_free(c);
    /* Setting without a refresh token deletes the old one. */
    wg_vault_credential_input in2 = { .value = "plain-key" };
    cr_assert_eq(wg_vault_set_connector_credential(v, "gcal", &in2), 0);
    cr_assert_eq(wg_vault_get_connector_credential(&c, v, "gcal", now), 0);
    cr_assert_null(c->refresh_token);
    cr_assert_str_eq(c->type, "api_key");
    cr_assert_null(c->expires_at);
    wg_vault_credential_free(c);
    cr_assert_eq(wg_vault_has(v, "connector:gcal:refresh"), 0);
}

Test(vault, expiry_edges_fail_closed)
{
    int64_t t = 0;
    wg_time_parse_iso(&t, "2030-01-01T00:00:00Z");
    cr_assert_eq(wg_time_credential_expired(NULL, t), 0);
    cr_assert_eq(wg_time_credential_expired("", t), 0);
    cr_assert_eq(wg_time_credential_expired("garbage", t), 1, "unparseable expiry is expired");
    cr_assert_eq(wg_time_credential_expired("2030-01-01T00:00:00Z", t - 1), 0);
    cr_assert_eq(wg_time_credential_expired("2030-01-01T00:00:00Z", t), 1);
    cr_assert_eq(wg_time_credential_expired("2030-01-01T00:00:00.001Z", t), 0);
    cr_assert_eq(wg_time_credential_expired("2030-01-01T01:00:00+02:00", t), 1);
    wg_vault_credential_input in = { .value = "tok-xxxx", .expires_at = "not a date" };
    cr_assert_eq(wg_vault_set_connector_credential(v, "jira", &in), 0);
    wg_vault_credential *c = NULL;
    cr_assert_eq(wg_vault_get_connector_credential(&c, v, "jira", t), 0);
    cr_assert_eq(c->is_expired, 1);
    wg_vault_credential_free(c);
}

Test(vault, delete_connector_removes_subkeys_only)
{
    wg_vault_credential_input in = { .value = "tok-1111", .refresh_token = "ref-2222" };
    cr_assert_eq(wg_vault_set_connector_credential(v, "git", &in), 0);
    cr_assert_eq(wg_vault_set(v, "connector:git:email", "a@b.c", 5, NULL), 0);
    cr_assert_eq(wg_vault_set(v, "connector:github", "other-key", 9, NULL), 0);
    char **names = NULL;
    size_t n = 0;
    cr_assert_eq(wg_vault_delete_connector(v, "git", &names, &n), 0);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(names[0], "connector:git");
    cr_assert_str_eq(names[1], "connector:git:email");
    cr_assert_str_eq(names[2], "connector:git:refresh");
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    cr_assert_eq(wg_vault_has(v, "connector:github"), 1);
    cr_assert_eq(wg_vault_set_connector_credential(v, "../x", &in), WG_EINVAL);
}

Test(vault, seam_matches_connect_contract)
{
    json_t *meta = json_pack("{s:s}", "credentialType", "bearer");
    cr_assert_eq(wg_vault_seam_set(v, "connector:slack", "xoxb-1", meta), 0);
    json_decref(meta);
    char *val = NULL;
    json_t *m = NULL;
    cr_assert_eq(wg_vault_seam_get(v, "connector:slack", &val, &m), 0);
    cr_assert_str_eq(val, "xoxb-1");
    cr_assert_str_eq(json_string_value(json_object_get(m, "credentialType")), "bearer");
    free(val);
    json_decref(m);
    char **names = NULL;
    size_t n = 0;
    cr_assert_eq(wg_vault_seam_list(v, "connector:", &names, &n), 0);
    cr_assert_eq(n, 1);
    free(names[0]);
    free(names);
    cr_assert_eq(wg_vault_seam_get(v, "connector:none", &val, NULL), WG_ENOTFOUND);
    cr_assert_eq(wg_vault_seam_del(v, "connector:slack"), 0);
}

Test(vault, raw_key_ending_in_whitespace_bytes_is_not_trimmed)
{
    /* Regression: a random key whose last byte is '\n', '\r' or ' ' was
     * trimmed to 31 bytes and rejected as corrupted (about 1 key in 85). */
    static const unsigned char tails[] = { '\n', '\r', ' ' };
    for (size_t i = 0; i < sizeof tails; i++) {
        char *d = wgt_tmpdir();
        unsigned char key[32];
        memset(key, 0x41 + (int)i, sizeof key);
        key[31] = tails[i];
        char p[4200];
        snprintf(p, sizeof p, "%s/vault.key", d);
        FILE *f = fopen(p, "wb");
        fwrite(key, 1, sizeof key, f);
        fclose(f);
        wg_store *s2 = NULL;
        wg_vault *v2 = NULL, *v3 = NULL;
        cr_assert_eq(wg_store_open(&s2, d), 0);
        cr_assert_eq(wg_vault_open(&v2, s2), 0, "tail %zu: %s", i, wg_error_last());
        cr_assert_eq(wg_vault_open_key(&v3, s2, key), 0, "the same key, all 32 bytes");
        wg_vault_free(v3);
        wg_vault_free(v2);
        wg_store_free(s2);
        wgt_rmtree(d);
        free(d);
    }
}

Test(vault, hex_key_file_with_newline_is_accepted)
{
    wg_vault_free(v);
    v = NULL;
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
    dir = wgt_tmpdir();
    wgt_write_file(dir, "vault.key", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n");
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_vault_open(&v, st), 0, "%s", wg_error_last());
    unsigned char key[32];
    for (int i = 0; i < 32; i++)
        key[i] = (unsigned char)i;
    wg_vault *w = NULL;
    cr_assert_eq(wg_vault_open_key(&w, st, key), 0);
    wg_vault_free(w);
}

/* ---- issue 11 section 5: the key file ---------------------------------
 * Before: a missing vault.key was silently replaced while the store still
 * held entries sealed with the old one (data loss); a FIFO as the key
 * file blocked forever; a symlink was followed. */

static const char *keypath(void)
{
    static char p[4200];
    snprintf(p, sizeof p, "%s/vault.key", dir);
    return p;
}

static void reopen_vault(void)
{
    wg_vault_free(v);
    v = NULL;
}

Test(vault, missing_key_with_sealed_entries_is_refused_not_replaced)
{
    cr_assert_eq(wg_vault_set(v, "connector:github", "ghp_keep_me", 11, NULL), 0);
    reopen_vault();
    cr_assert_eq(unlink(keypath()), 0);
    cr_assert_eq(wg_vault_open(&v, st), WG_ENOTFOUND);
    const char *m = wg_error_last();
    cr_assert(strstr(m, "is missing, but this store holds data sealed with the key it held "
                        "(1 vault entries"), "%s", m);
    cr_assert(strstr(m, "Restore vault.key from a backup"), "%s", m);
    cr_assert_neq(access(keypath(), F_OK), 0, "no new key was made");
}

Test(vault, missing_key_after_first_open_is_refused_even_without_entries)
{
    /* The key check alone is sealed with the old key: a new one would fail
     * it anyway, after having been written over the evidence. */
    reopen_vault();
    cr_assert_eq(unlink(keypath()), 0);
    cr_assert_eq(wg_vault_open(&v, st), WG_ENOTFOUND);
    cr_assert(strstr(wg_error_last(), "the key check"), "%s", wg_error_last());
}

Test(vault, fresh_store_still_gets_a_new_private_key)
{
    struct stat sb;
    cr_assert_eq(stat(keypath(), &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600);
    cr_assert_eq(sb.st_size, 32);
}

Test(vault, fifo_key_file_is_an_error_not_a_hang, .timeout = 20)
{
    reopen_vault();
    cr_assert_eq(unlink(keypath()), 0);
    cr_assert_eq(mkfifo(keypath(), 0600), 0);
    cr_assert_eq(wg_vault_open(&v, st), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "is not a regular file"), "%s", wg_error_last());
}

Test(vault, symlinked_key_file_is_refused)
{
    reopen_vault();
    char real[4200];
    snprintf(real, sizeof real, "%s/key.real", dir);
    cr_assert_eq(rename(keypath(), real), 0);
    cr_assert_eq(symlink(real, keypath()), 0);
    cr_assert_eq(wg_vault_open(&v, st), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "symbolic link"), "%s", wg_error_last());
}

Test(vault, readable_key_file_is_made_private)
{
    reopen_vault();
    cr_assert_eq(chmod(keypath(), 0644), 0);
    cr_assert_eq(wg_vault_open(&v, st), 0, "%s", wg_error_last());
    struct stat sb;
    cr_assert_eq(stat(keypath(), &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600);
}

Test(vault, another_users_key_file_is_refused)
{
    if (geteuid() != 0)
        return;   /* only root can give a file away */
    reopen_vault();
    cr_assert_eq(chown(keypath(), 65534, 65534), 0);
    cr_assert_eq(wg_vault_open(&v, st), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "belongs to uid 65534"), "%s", wg_error_last());
}

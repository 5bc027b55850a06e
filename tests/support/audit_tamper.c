/* audit_tamper.c - the attacker's tools of audit_tamper.h. */
#include "audit_tamper.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wgt_audit_chain_hash(char hex[65], const char *prev, int64_t id, const char *ts,
                          const char *event, const char *actor, const char *tool,
                          const char *input, const char *decision, const char *rule)
{
    json_t *arr = json_pack("[I,s,s,s?,s?,s?,s?,s?]", (json_int_t)id, ts, event, actor, tool,
                            input, decision, rule);
    char *canon = json_dumps(arr, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(arr);
    crypto_hash_sha256_state h;
    unsigned char d[32];
    crypto_hash_sha256_init(&h);
    crypto_hash_sha256_update(&h, (const unsigned char *)prev, 64);
    crypto_hash_sha256_update(&h, (const unsigned char *)"\n", 1);
    crypto_hash_sha256_update(&h, (const unsigned char *)canon, strlen(canon));
    crypto_hash_sha256_final(&h, d);
    free(canon);
    sodium_bin2hex(hex, 65, d, sizeof d);
}

void wgt_audit_rehash_from(wg_store *st, int64_t from)
{
    wg_store_rows *rows = NULL;
    wg_store_value p = WG_SV_INT(from - 1);
    cr_assert_eq(wg_store_exec(st, "SELECT hash FROM audit_log WHERE id = ?", &p, 1, &rows, NULL), 0);
    char prev[65];
    snprintf(prev, sizeof prev, "%s",
             wg_store_rows_count(rows) ? wg_store_rows_text(rows, 0, 0) : WGT_ZERO_HASH);
    wg_store_rows_free(rows);
    p = WG_SV_INT(from);
    cr_assert_eq(wg_store_exec(st, "SELECT id, ts, event, actor, tool, input, decision, rule"
                               " FROM audit_log WHERE id >= ? ORDER BY id", &p, 1, &rows, NULL), 0);
    for (size_t r = 0; r < wg_store_rows_count(rows); r++) {
        char hex[65];
        wgt_audit_chain_hash(hex, prev, wg_store_rows_int(rows, r, 0),
                             wg_store_rows_text(rows, r, 1), wg_store_rows_text(rows, r, 2),
                             wg_store_rows_text(rows, r, 3), wg_store_rows_text(rows, r, 4),
                             wg_store_rows_text(rows, r, 5), wg_store_rows_text(rows, r, 6),
                             wg_store_rows_text(rows, r, 7));
        wg_store_value u[3] = { WG_SV_TEXT(prev), WG_SV_TEXT(hex),
                                WG_SV_INT(wg_store_rows_int(rows, r, 0)) };
        cr_assert_eq(wg_store_exec(st, "UPDATE audit_log SET prev_hash = ?, hash = ? WHERE id = ?",
                                   u, 3, NULL, NULL), 0);
        memcpy(prev, hex, sizeof prev);
    }
    wg_store_rows_free(rows);
}

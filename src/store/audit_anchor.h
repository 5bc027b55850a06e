/* audit_anchor.h - what audit.c (rows, masking, appends) and
 * audit_anchor.c (seals, the anchor, the data dir witness, verify) share.
 * Internal to libwaggle's store layer; the contract is waggle/audit.h and
 * the design is docs/store.md "Anchoring". */
#ifndef WAGGLE_STORE_AUDIT_ANCHOR_H
#define WAGGLE_STORE_AUDIT_ANCHOR_H

#include "waggle/audit.h"

#include <stdint.h>

#define WG_AUDIT__ZERO_HASH "0000000000000000000000000000000000000000000000000000000000000000"
#define WG_AUDIT__HEX 65                 /* 64 hex chars + NUL */

struct wg_audit {
    wg_store *st;
    wg_vault *vault;          /* the caller's, for masking; may be NULL */
    unsigned char *key;       /* the seal key (sodium_malloc, 32 bytes) */
    char *witness;            /* DATA_DIR/audit-witness, NULL without a data dir */
    int64_t sealed_legacy;    /* rows found unsealed and anchored by this open */
};

/* hash = SHA-256(prev || "\n" || canonical row); see audit.c. */
int wg_audit__row_hash(char hex[WG_AUDIT__HEX], const char *prev, int64_t id, const char *ts,
                       const char *event, const char *actor, const char *tool,
                       const char *input, const char *decision, const char *rule);

/* Inside a write transaction: inserts row `id` after prev (its hash and
 * seal computed here; input already masked and serialised, may be NULL)
 * and moves the anchor to it. hash_out receives the new row's hash.
 * WG_ECRYPTO when the anchor row is missing. */
int wg_audit__insert(wg_audit *a, int64_t id, const char *prev, const wg_audit_record *rec,
                     const char *input, char hash_out[WG_AUDIT__HEX]);

/* What a seal covers; each purpose has its own domain string, so a seal
 * made for one can never pass as another. */
typedef enum { WG_AUDIT__ROW, WG_AUDIT__ANCHOR, WG_AUDIT__WITNESS } wg_audit__domain;

/* out = hex(BLAKE2b-256 keyed with the seal key over domain, n, hash). */
void wg_audit__seal(char out[WG_AUDIT__HEX], const wg_audit *a, wg_audit__domain d,
                    int64_t n, const char *hash);

/* The newest row's id and hash; 0 and 64 zeros for an empty log. */
int wg_audit__head(int64_t *id, char hash[WG_AUDIT__HEX], wg_audit *a);

/* Inside a write transaction: reads the head into *last_id / last_hash and
 * returns 0 when the sealed anchor describes exactly that row; otherwise
 * WG_ECRYPTO with the reason, and nothing may be appended (extending the
 * chain would mean re-sealing, which would launder the tampering). */
int wg_audit__anchor_check(wg_audit *a, int64_t *last_id, char last_hash[WG_AUDIT__HEX]);

/* After a commit that made row `rows` with hash `head` the newest (prev:
 * the hash it chains to): moves this data dir's witness forward when it
 * lies on the same chain. Best effort: a witness that cannot be written
 * only lags. */
void wg_audit__witness_advance(wg_audit *a, int64_t rows, const char *head, const char *prev);

/* At open: seals an anchor that migration 2 left unsealed (see audit.h). */
int wg_audit__seal_on_open(wg_audit *a);

#endif

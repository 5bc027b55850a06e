/* audit_tamper.h - what an attacker with write access to the audit table
 * (but not the vault key) can do, for the anchoring tests on both back
 * ends: compute the chain's public hash and re-hash rows after editing
 * them. */
#ifndef WAGGLE_TEST_AUDIT_TAMPER_H
#define WAGGLE_TEST_AUDIT_TAMPER_H

#include <stdint.h>

#include "waggle/store.h"

#define WGT_ZERO_HASH "0000000000000000000000000000000000000000000000000000000000000000"

/* SHA-256 over prev, "\n" and the canonical JSON array
 * [id, ts, event, actor, tool, input, decision, rule] (NULLs as null). */
void wgt_audit_chain_hash(char hex[65], const char *prev, int64_t id, const char *ts,
                          const char *event, const char *actor, const char *tool,
                          const char *input, const char *decision, const char *rule);

/* Recomputes prev_hash and hash of every row from id `from` on, so the
 * plain chain is consistent again. Asserts (Criterion) on store errors. */
void wgt_audit_rehash_from(wg_store *st, int64_t from);

#endif

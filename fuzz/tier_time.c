/* tier_time.c - fuzz target for the parsers that read user-writable input
 * (config.json's tier and trialStartedAt, a vault entry's expiresAt, the
 * pool's error messages): wg_tier_parse, wg_time_parse_iso, wg_tier_evaluate,
 * wg_vault_is_expired and wg_pool_extract_status_code must never crash or
 * read out of bounds, and a parsed time must format and parse back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/pool.h"
#include "waggle/tier.h"
#include "waggle/vault.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    wg_tier t;
    (void)wg_tier_parse(&t, buf);
    int64_t ms = 0;
    if (wg_time_parse_iso(&ms, buf) == 0) {
        char iso[32];
        int64_t back = 0;
        wg_time_format_iso(iso, ms);
        if (ms >= 0 && ms < 253402300800000LL && (wg_time_parse_iso(&back, iso) != 0 || back != ms))
            abort();   /* format/parse must round-trip inside years 1970..9999 */
    }
    wg_tier_status st;
    wg_tier_evaluate(&st, buf, buf, 1767225600000LL);
    (void)wg_vault_is_expired(buf, 1767225600000LL);
    wg_pool_error_info e = { 0, 0, 0, 0, buf };
    (void)wg_pool_extract_status_code(&e);
    free(buf);
    return 0;
}

/* tier_time.c - fuzz target for the parsers that read user-writable input
 * (config.json's tier and trialStartedAt, a vault entry's expiresAt, the
 * pool's error messages): wg_tier_parse, wg_time_parse_iso, wg_tier_evaluate,
 * wg_time_credential_expired, the autonomy resolver's JSON reader and
 * wg_pool_extract_status_code must never crash or read out of bounds, and a
 * parsed time must format and parse back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/autonomy.h"
#include "waggle/pool.h"
#include "waggle/tier.h"
#include "waggle/time.h"

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
        if (wg_time_ms_valid(ms) && (wg_time_parse_iso(&back, iso) != 0 || back != ms))
            abort();   /* format/parse must round-trip inside years 0000..9999 */
        if (wg_time_parse_isob(&back, buf, size) == 0 && back != ms)
            abort();   /* the length form agrees when the input has no NUL */
    }
    wg_tier_status st;
    wg_tier_evaluate(&st, buf, buf, 1767225600000LL);
    (void)wg_time_credential_expired(buf, 1767225600000LL);
    json_t *j = json_loadb(buf, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    wg_autonomy_request rq;
    const char *field = NULL;
    if (wg_autonomy_request_from_json(&rq, j, &field) == 0) {
        wg_autonomy_policy pol = WG_AUTONOMY_POLICY_INIT;
        wg_autonomy_resolution r;
        if (wg_autonomy_resolve(&r, &rq, &pol, 1767225600000LL) != 0 || r.applied > rq.level)
            abort();   /* a parsed request always resolves, never above what was asked */
    }
    json_decref(j);
    wg_pool_error_info e = { 0, 0, 0, 0, buf };
    (void)wg_pool_extract_status_code(&e);
    free(buf);
    return 0;
}

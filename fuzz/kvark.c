/* kvark.c - fuzz target for what KVARK code reads from outside: the vault
 * value kvark:connection (wg_kvark_config_parse) and a search response
 * (wg_kvark_parse_search_results). Neither may crash or read out of bounds;
 * an accepted configuration has a base URL without a trailing '/' and no
 * control characters in any field; every parsed result has an attribution
 * that starts "[KVARK: " and ends "]". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/kvark.h"

static int clean(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wg_kvark_config c;
    if (wg_kvark_config_parse(&c, (const char *)data, size) == 0) {
        size_t n = strlen(c.base_url);
        if (n == 0 || c.base_url[n - 1] == '/' || !clean(c.base_url) || !clean(c.identifier) ||
            !clean(c.password) || c.timeout_ms < 1 || c.timeout_ms > WG_KVARK_TIMEOUT_MAX_MS)
            abort();
        wg_kvark_config_clear(&c);
    }
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    json_t *out = NULL;
    if (j && wg_kvark_parse_search_results(&out, j) == 0) {
        size_t i;
        json_t *r;
        json_array_foreach(out, i, r) {
            const char *a = json_string_value(json_object_get(r, "attribution"));
            size_t an = a ? strlen(a) : 0;
            if (!a || strncmp(a, "[KVARK: ", 8) != 0 || a[an - 1] != ']')
                abort();
        }
        json_decref(out);
    }
    json_decref(j);
    return 0;
}

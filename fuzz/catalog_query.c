/* catalog_query.c - fuzz target for the find_connector path: the input is
 * split into a query and, after the first NUL, a category; both go through
 * wg_catalog_search and wg_catalog_find_connector (hostile LLM arguments
 * must never crash, leak or read out of bounds), and the directly written
 * text must equal jansson's (traps otherwise). Also fuzzes normalize. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wg_catalog *cat;
    if (!cat && wg_catalog_open_embedded(&cat) < 0)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    const char *query = buf;
    size_t qlen = strlen(buf);
    const char *category = qlen < size ? buf + qlen + 1 : NULL;

    wg_catalog_hit hits[WG_CATALOG_LIMIT_MAX];
    size_t n = 0;
    wg_catalog_search(hits, WG_CATALOG_LIMIT_MAX, &n, cat, query, category);

    json_t *args = json_object();
    json_object_set_new(args, "query", json_stringn_nocheck(query, qlen));
    if (category)
        json_object_set_new(args, "category", json_string_nocheck(category));
    json_object_set_new(args, "limit", json_integer((json_int_t)(size % 40) - 5));
    json_t *out = NULL;
    char *text = NULL;
    int rc_obj = wg_catalog_find_connector(&out, cat, args);
    int rc_text = wg_catalog_find_connector_text(&text, NULL, cat, args);
    if (rc_obj != rc_text)
        __builtin_trap();
    if (rc_obj == 0) {
        /* the direct writer must give jansson's bytes (U+2028/9 escaped) */
        char *want = json_dumps(out, JSON_COMPACT);
        size_t wl = want ? strlen(want) : 0, k = 0, gl = strlen(text);
        for (size_t i = 0; want && i < wl; i++, k++) {
            if ((unsigned char)want[i] == 0xE2 && i + 2 < wl && (unsigned char)want[i + 1] == 0x80 &&
                ((unsigned char)want[i + 2] == 0xA8 || (unsigned char)want[i + 2] == 0xA9)) {
                if (k + 6 > gl || memcmp(text + k, want[i + 2] == (char)0xA8 ? "\\u2028" : "\\u2029", 6))
                    __builtin_trap();
                i += 2;
                k += 5;
            } else if (k >= gl || text[k] != want[i]) {
                __builtin_trap();
            }
        }
        if (want && k != gl)
            __builtin_trap();
        free(want);
        json_decref(out);
        free(text);
    }
    json_decref(args);

    char *norm = malloc(qlen + 1);
    if (norm)
        wg_catalog_normalize_id(norm, qlen + 1, query);
    free(norm);
    wg_catalog_lookup(cat, query);
    free(buf);
    return 0;
}

/* catalog_blob.c - fuzz target for the catalog index loader
 * (src/core/catalog_blob.c): the input is a catalog blob as an attacker
 * who can write DATA_DIR/catalog.idx would leave it. The checksum is fixed
 * up first so that mutations reach the checks behind it. A blob the loader
 * accepts is then searched, looked up and turned into find_connector text:
 * nothing may crash, leak, loop or read out of bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *blob = NULL;
    if (posix_memalign(&blob, 8, size ? size : 8) != 0)
        return 0;
    memcpy(blob, data, size);
    if (size > 0 && (data[0] & 1))   /* half the inputs keep their own checksum */
        wg_catalog__blob_reseal(blob, size);
    wg_catalog *cat = NULL;
    if (wg_catalog__from_blob(&cat, blob, size, wg_catalog__blob_free) < 0)
        return 0;
    static const char *const queries[] = { "test", "users report crashes", "alp", "beta server" };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        json_t *args = json_pack("{s:s, s:i}", "query", queries[i], "limit", 30);
        char *text = NULL;
        if (wg_catalog_find_connector_text(&text, NULL, cat, args) == 0)
            free(text);
        json_decref(args);
    }
    for (size_t i = 0; i < wg_catalog_count(cat); i++) {
        const wg_catalog_server *s = wg_catalog_at(cat, i);
        wg_catalog_lookup(cat, s->id);
        json_t *j = NULL;
        if (wg_catalog_server_json(&j, s) == 0)
            json_decref(j);
    }
    wg_catalog_free(cat);
    return 0;
}

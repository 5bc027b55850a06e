/* catalog_embedded.c - the catalog compiled into the library.
 *
 * The bytes come from ${CMAKE_BINARY_DIR}/generated/catalog_data.c, which the
 * build writes with tools/catalog_check.c only after data/mcp-catalog.json
 * passed every check of catalog_load.c. Parsing it again here cannot fail on
 * content, only on memory.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

int wg_catalog_open_embedded(wg_catalog **out)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    const char *docs[1] = { wg_catalog__embedded_json };
    size_t lens[1] = { wg_catalog__embedded_len };
    const char *origins[1] = { wg_catalog__embedded_origin };
    return wg_catalog_parse(out, docs, lens, origins, 1);
}

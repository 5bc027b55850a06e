/* catalog_embedded.c - the catalog compiled into the library.
 *
 * ${CMAKE_BINARY_DIR}/generated/catalog_data.c holds the blob (entries and
 * search index, catalog_blob.c) that tools/catalog_check.c built from
 * data/mcp-catalog.json after it passed every check of catalog_load.c.
 * Opening it validates the blob and sets up pointers: no JSON is parsed and
 * no index is built at run time.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

int wg_catalog_open_embedded(wg_catalog **out)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    return wg_catalog__from_blob(out, wg_catalog__embedded_blob, wg_catalog__embedded_blob_len, NULL);
}

/* server_route.c - fuzzes the service's request routing (src/server/router.c):
 * the first byte picks the method, the rest is the decoded path. Every path
 * must match at most one row, copy parameters only within the scratch
 * buffer, and every parameter must pass or fail wg_route__param_ok without
 * reading past its end. */
#include "server/server_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const wg_http_method methods[] = { WG_HTTP_GET, WG_HTTP_POST, WG_HTTP_PUT,
                                          WG_HTTP_PATCH, WG_HTTP_DELETE, 0 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wg_route_table table;
    static int built;
    if (!built) {
        if (wg_route__table_build(&table) != 0)
            abort();
        built = 1;
    }
    if (size < 2 || size > 8192)
        return 0;
    char *path = malloc(size);
    char *scratch = malloc(size);
    if (!path || !scratch) {
        free(path);
        free(scratch);
        return 0;
    }
    memcpy(path, data + 1, size - 1);
    path[size - 1] = '\0';
    if (path[0] == '/') {
        wg_route_match m;
        wg_route__match(&m, &table, methods[data[0] % 6], path, scratch);
        for (size_t i = 0; i < m.n_params; i++)
            (void)wg_route__param_ok(m.param_value[i]);
        if (m.entry && !(m.allow & m.entry->route->method) && m.entry->route->method != methods[data[0] % 6])
            abort();
    }
    (void)wg_route__param_ok(path);
    free(path);
    free(scratch);
    return 0;
}

/* sql_readonly.c - fuzzes the read-only query checker (src/connect/
 * sqlcheck.h) with SQL an LLM could write. Beyond "never crashes, never
 * reads out of bounds": whatever the checker accepts stays a closed,
 * single statement - appending a second statement or another select-list
 * item that calls a refused function (after a newline, so a trailing --
 * comment is closed) is always refused. If the checker ever lost track of
 * a quote, a comment or a parenthesis, one of these would pass. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "connect/sqlcheck.h"

static const char *const tails[] = {
    "\n; SELECT 1",
    "\n, pg_read_file('/etc/passwd')",
    "\n UNION SELECT pg_terminate_backend(1)",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > WG_SQL_MAX_LEN - 64)
        return 0;
    if (wg_sqlcheck__readonly((const char *)data, size) != 0)
        return 0;
    char *buf = malloc(size + 64);
    if (!buf)
        return 0;
    for (size_t t = 0; t < sizeof tails / sizeof *tails; t++) {
        size_t n = strlen(tails[t]);
        memcpy(buf, data, size);
        memcpy(buf + size, tails[t], n);
        if (wg_sqlcheck__readonly(buf, size + n) == 0)
            abort();
    }
    free(buf);
    return 0;
}

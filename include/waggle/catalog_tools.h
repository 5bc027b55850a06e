/* waggle/catalog_tools.h - the agent tools find_connector and
 * list_connector_categories (spec 4): definitions (name, description, JSON
 * Schema parameters, offline-capable) and execution over a catalog.
 *
 * Both tools only read the catalog (no network, no store), so they are
 * marked offline-capable and need no confirmation. Thread-safe: a catalog
 * may serve many concurrent calls.
 */
#ifndef WAGGLE_CATALOG_TOOLS_H
#define WAGGLE_CATALOG_TOOLS_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>
#include "waggle/catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;
    const char *description;
    const char *parameters;   /* JSON Schema of the arguments, as JSON text */
    int offline_capable;      /* 1: works without network access */
} wg_catalogtool_def;

/* The two definitions, in a static table. */
WG_EXTERN const wg_catalogtool_def *wg_catalogtool_defs(size_t *count);

/* Runs tool `name` with args (a JSON object or NULL; borrowed). *out is new
 * compact JSON text (free()): find_connector's result, no-match hint or
 * {"error":"query is required",...}; list_connector_categories' counts.
 * Returns 0 whenever *out was written, WG_ENOTFOUND for an unknown tool,
 * WG_EINVAL for a NULL catalog or name, WG_ENOMEM. */
WG_EXTERN int wg_catalogtool_execute(char **out, const wg_catalog *cat, const char *name, const json_t *args);

#ifdef __cplusplus
}
#endif
#endif

/* waggle/capdeps.h - the inputs of routing (spec 2) and acquisition (spec 3)
 * gathered in one place: either from a JSON document with the spec's
 * CapabilityRouterDeps field names, or from the local installation
 * (native tools, DATA_DIR/skills, DATA_DIR/plugins, the six sub-agent roles).
 *
 * JSON shape (every field optional):
 *   {"toolNames":[..], "skills":[{"name","content"}],
 *    "plugins":[{"name","description","skills":[..],"mcpServers":[..]}],
 *    "mcpServers":[..], "subAgentRoles":[..], "unhealthyMcpServers":[..],
 *    "connectors":[{"id","name","service","connected","actions":[..]}],
 *    "marketplace":[{"name","description","score"}]}
 *
 * A wg_capdeps is immutable once built; pointers it hands out are borrowed
 * and live as long as it does.
 */
#ifndef WAGGLE_CAPDEPS_H
#define WAGGLE_CAPDEPS_H

#include "waggle/export.h"

#include <jansson.h>
#include "waggle/router.h"
#include "waggle/acquire.h"
#include "waggle/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_capdeps wg_capdeps;

/* From JSON (borrowed; a reference is kept). Returns 0, WG_EINVAL (a field
 * has the wrong type: the message names it), WG_ENOMEM. */
WG_EXTERN int wg_capdeps_from_json(wg_capdeps **out, json_t *deps);

/* From the local installation under data_dir. Connectors are not included
 * yet (the connector registry fills that seam). Returns 0, WG_EIO, WG_ENOMEM. */
WG_EXTERN int wg_capdeps_load_local(wg_capdeps **out, const char *data_dir);
/* The same with the skills and plugins of st when it is shared (replicas:
 * waggle/skills.h, waggle/plugins.h); st NULL or SQLite: data_dir's. */
WG_EXTERN int wg_capdeps_load_local_in(wg_capdeps **out, wg_store *st, const char *data_dir);

WG_EXTERN void wg_capdeps_free(wg_capdeps *d);

/* Sets the connectors the router sees (replacing any from JSON). The array
 * and its strings are borrowed: they must outlive d. */
WG_EXTERN void wg_capdeps_set_connectors(wg_capdeps *d, const wg_router_connector *c, size_t n);

/* Router deps (MCP health answered from unhealthyMcpServers). */
WG_EXTERN const wg_router_deps *wg_capdeps_router(const wg_capdeps *d);

/* Fills the acquisition input's tools, active skills and marketplace from
 * the deps; need, starter and trust are left to the caller. */
WG_EXTERN void wg_capdeps_acquire_input(wg_acquire_input *in, const wg_capdeps *d);

#ifdef __cplusplus
}
#endif
#endif

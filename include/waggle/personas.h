/* waggle/personas.h - agent personas with tool allowlists: the built-in
 * ones (a table) and custom ones saved as DATA_DIR/personas/<id>.json;
 * generating a persona from a description without an LLM. Replicas keep
 * the custom ones in the shared store (the _in variants). Backs
 * POST /api/personas, POST /api/personas/generate and the governance
 * matrix (spec 4.2, 10), and any other face that offers personas.
 * Safe from many threads (files are written atomically; reads see whole
 * files). Every returned json_t is new. */
#ifndef WAGGLE_PERSONAS_H
#define WAGGLE_PERSONAS_H

#include "waggle/export.h"

#include <jansson.h>

#include "waggle/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* All personas, built-ins first: [{id,name,description,systemPrompt,tools,
 * readOnly,custom}]. *out is new. Returns 0 or WG_E*. */
WG_EXTERN int wg_personas_list(json_t **out, const char *data_dir);

/* Validates and saves a custom persona from a request body
 * {name, description?, systemPrompt?, tools:[...], readOnly?}. *out is the
 * stored persona (new). Returns 0, WG_EINVAL (message names the field),
 * WG_EEXISTS (id taken), WG_EIO. */
WG_EXTERN int wg_personas_create(json_t **out, const char *data_dir, const json_t *body);

/* The same over a store: when st is shared (replicas on PostgreSQL) the
 * custom personas are its documents personas/<id>.json, which every replica
 * sees (an unreachable store is WG_EUNAVAILABLE); otherwise (st NULL or
 * SQLite) the data dir's files as above. */
WG_EXTERN int wg_personas_list_in(json_t **out, wg_store *st, const char *data_dir);
WG_EXTERN int wg_personas_create_in(json_t **out, wg_store *st, const char *data_dir, const json_t *body);

/* Builds (does not save) a persona for a description: tools from a keyword
 * table, read-only when the description asks for it, starter skills whose
 * name or text matches. *out is new. Returns 0 or WG_EINVAL. */
WG_EXTERN int wg_personas_generate(json_t **out, const char *data_dir, const char *description,
                                    const char *name);

/* The same, suggesting the shared store's installed skills when st is
 * shared (replicas); st NULL or SQLite: the data dir's. */
WG_EXTERN int wg_personas_generate_in(json_t **out, wg_store *st, const char *data_dir,
                                      const char *description, const char *name);

/* The read-only tool set (spec 6, READONLY_TOOLS): 1 when tool is in it. */
WG_EXTERN int wg_personas_tool_readonly(const char *tool);

#ifdef __cplusplus
}
#endif
#endif

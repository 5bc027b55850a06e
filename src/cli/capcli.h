/* capcli.h - what `waggle route`, `acquire`, `skills` and `trust` share:
 * loading router/acquisition inputs from --deps FILE or the local data dir,
 * and joining positional words into one query. */
#ifndef WAGGLE_CAPCLI_H
#define WAGGLE_CAPCLI_H

#include "waggle/capdeps.h"

/* Loads deps from a JSON file when deps_file is non-NULL, else from the data
 * dir (data_dir, else cli's, else default). Prints the error and returns an
 * exit code on failure, 0 on success. */
int capcli_load_deps(wg_capdeps **out, const char *cmd, const char *deps_file,
                     const char *data_dir);

/* The local installation's connectors for routing: the registry's built-in
 * connectors, connected according to the vault when DATA_DIR/waggle.db
 * exists (nothing is created otherwise). Attach with wg_capdeps_set_connectors;
 * free with capcli_connectors_free after the deps are done. Never fails the
 * command: when the vault cannot be opened every connector reads as not
 * connected and a note goes to stderr. */
typedef struct capcli_connectors capcli_connectors;
capcli_connectors *capcli_connectors_load(const char *cmd, const char *data_dir);
void capcli_connectors_attach(wg_capdeps *deps, const capcli_connectors *c);
void capcli_connectors_free(capcli_connectors *c);

/* Replicas: with WAGGLE_DATABASE_URL set, *st is the shared store opened on
 * dir (its data dir's skills, packs and plugins imported once, a note on
 * stderr for files it refused); NULL without it (one machine: the data
 * dir's files). Returns 0 or the error (not yet printed). Free *st with
 * wg_store_free. */
struct wg_store;
int capcli_shared_store(struct wg_store **st, const char *cmd, const char *dir);

/* Joins argv[from..argc) with single spaces. New string or NULL. */
char *capcli_join(int argc, char **argv, int from);

/* Prints JSON indented, reals with 12 significant digits, then a newline.
 * Returns WG_EXIT_OK or WG_EXIT_FAIL. */
int capcli_print_json(const json_t *value);

#endif

/* capcli.c - shared helpers of the capability subcommands (capcli.h). */
#include "capcli.h"
#include "cli.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "waggle/capability_tools.h"
#include "waggle/engine.h"
#include "waggle/store.h"
#include "store/tree.h"

#include <stdio.h>

#include <unistd.h>

#include <stdlib.h>
#include <string.h>

enum { DEPS_MAX_BYTES = 16 * 1024 * 1024 };

int capcli_load_deps(wg_capdeps **out, const char *cmd, const char *deps_file,
                     const char *data_dir)
{
    int rc;
    if (deps_file) {
        char *text = NULL;
        size_t len = 0;
        if ((rc = wg_cli_read_all(&text, &len, deps_file, DEPS_MAX_BYTES)) < 0)
            return wg_cli_error(cmd, rc == WG_EIO ? WG_EINVAL : rc);
        json_error_t err;
        json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
        free(text);
        if (!root)
            return wg_cli_usage(cmd, "%s: invalid JSON at line %d: %s", deps_file, err.line, err.text);
        rc = wg_capdeps_from_json(out, root);
        json_decref(root);
        return rc < 0 ? wg_cli_error(cmd, rc) : 0;
    }
    char *dir = NULL;
    if ((rc = wg_datadir_resolve(&dir, data_dir)) < 0)
        return wg_cli_error(cmd, rc);
    wg_store *st = NULL;
    if ((rc = capcli_shared_store(&st, cmd, dir)) == 0)
        rc = wg_capdeps_load_local_in(out, st, dir);
    wg_store_free(st);
    free(dir);
    return rc < 0 ? wg_cli_error(cmd, rc) : 0;
}

int capcli_shared_store(wg_store **st, const char *cmd, const char *dir)
{
    *st = NULL;
    const char *url = getenv("WAGGLE_DATABASE_URL");
    if (!url || !*url)
        return 0;
    wg_store *s = NULL;
    wg_tree_import imp;
    int rc = wg_store_open(&s, dir);
    if (rc == 0 && (rc = wg_tree__import(&imp, s, dir)) < 0)
        wg_store_free(s);
    if (rc < 0)
        return rc;
    if (imp.refused)
        fprintf(stderr, "%s: %zu file(s) of %s not imported into the shared store (they stay "
                "where they are): %s\n", cmd, imp.refused, dir, imp.first_refusal);
    *st = s;
    return 0;
}

char *capcli_join(int argc, char **argv, int from)
{
    size_t n = 1;
    for (int i = from; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = from; i < argc; i++) {
        if (i > from)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

int capcli_print_json(const json_t *value)
{
    /* 12 significant digits: 0.4 prints as 0.4, not 0.40000000000000002. */
    size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(12);
    if (!value || json_dumpf(value, stdout, flags) != 0)
        return WG_EXIT_FAIL;
    fputc('\n', stdout);
    return WG_EXIT_OK;
}

struct capcli_connectors {
    wg_engine *engine;     /* when a store exists */
    wg_registry *bare;     /* otherwise: no vault, nothing connected */
    wg_router_connector *items;
    size_t n;
};

void capcli_connectors_free(capcli_connectors *c)
{
    if (!c)
        return;
    wg_captool_connectors_free(c->items, c->n);
    wg_registry_free(c->bare);
    wg_engine_free(c->engine);
    free(c);
}

/* The engine's registry only when a store already exists: routing must
 * not create state. */
static wg_registry *open_registry(capcli_connectors *c, const char *cmd, const char *dir)
{
    char *db = NULL;
    int exists = wg_datadir_path(&db, dir, "waggle.db") == 0 && access(db, F_OK) == 0;
    free(db);
    wg_registry *reg = NULL;
    if (exists) {
        wg_engine_options eo = WG_ENGINE_OPTIONS_INIT;
        eo.data_dir = dir;
        eo.actor = "cli";
        if (wg_engine_open(&c->engine, &eo) == 0 && wg_engine_registry(&reg, c->engine) == 0)
            return reg;
        fprintf(stderr, "waggle %s: note: connector status unknown (%s); showing all as not "
                "connected\n", cmd, wg_error_last());
    }
    wg_registry_options opts = WG_REGISTRY_OPTIONS_INIT;
    return wg_registry_new(&c->bare, &opts) == 0 ? c->bare : NULL;
}

capcli_connectors *capcli_connectors_load(const char *cmd, const char *data_dir)
{
    capcli_connectors *c = calloc(1, sizeof *c);
    char *dir = NULL;
    if (!c || wg_datadir_resolve(&dir, data_dir) < 0) {
        free(c);
        return NULL;
    }
    wg_registry *reg = open_registry(c, cmd, dir);
    free(dir);
    if (!reg || wg_captool_connectors(&c->items, &c->n, reg) < 0) {
        capcli_connectors_free(c);
        return NULL;
    }
    return c;
}

void capcli_connectors_attach(wg_capdeps *deps, const capcli_connectors *c)
{
    if (c)
        wg_capdeps_set_connectors(deps, c->items, c->n);
}

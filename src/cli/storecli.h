/* storecli.h - what the store-backed subcommands (vault, audit, tier, pool,
 * connectors, approve) share: "--data-dir" and the engine opened on it
 * (waggle/engine.h), which owns the store, vault and audit log. */
#ifndef WAGGLE_CLI_STORECLI_H
#define WAGGLE_CLI_STORECLI_H

#include "cli.h"
#include "waggle/engine.h"

typedef struct storecli {
    char *dir;
    wg_engine *engine;   /* actor "cli" */
    wg_store *st;        /* borrowed from the engine */
    wg_audit *audit;     /* borrowed from the engine (opens the vault) */
    wg_vault *vault;     /* borrowed from the engine */
} storecli;

typedef struct storecli_options {
    int demo;                     /* register the demo connectors */
    int lazy;                     /* open nothing yet: the engine opens parts on use */
    int allow_private_upstreams;  /* the operator's upstream policy (registry options) */
    int allow_http_upstreams;
    int allow_privileged_db_roles;
    const char *const *never_autopass;   /* NULL-terminated or NULL (engine options) */
} storecli_options;

/* Opens the data dir (created 0700) and the engine on it, and (unless
 * o->lazy) its store, vault and audit log. o may be NULL. Returns
 * WG_EXIT_OK or an exit code after printing the error for cmd. */
int storecli_open(storecli *s, const char *cmd, const char *data_dir, const storecli_options *o);
void storecli_close(storecli *s);

/* Parses a non-negative decimal integer; -1 when invalid. */
long long storecli_number(const char *s);

#endif

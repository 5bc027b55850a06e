/* storecli.h - what the store-backed subcommands (vault, audit, tier, pool)
 * share: option parsing for "--data-dir" and opening the data dir, store,
 * vault and audit log. */
#ifndef WAGGLE_CLI_STORECLI_H
#define WAGGLE_CLI_STORECLI_H

#include "cli.h"
#include "waggle/audit.h"
#include "waggle/store.h"
#include "waggle/vault.h"

typedef struct storecli {
    char *dir;
    wg_store *st;
    wg_vault *vault;     /* NULL unless asked for */
    wg_audit *audit;
} storecli;

/* Opens the data dir (created 0700), the store, the audit log and, when
 * want_vault, the vault (the audit log then masks vault values). Returns
 * WG_EXIT_OK or an exit code after printing the error for cmd. */
int storecli_open(storecli *s, const char *cmd, const char *data_dir, int want_vault);
void storecli_close(storecli *s);

/* Appends an audit row with actor "cli"; failures are reported on stderr
 * but do not change the command's result (the change already happened). */
void storecli_log(storecli *s, const char *cmd, const char *event, json_t *input_stolen);

/* For a command about to reveal a secret (vault get, pool next --reveal):
 * appends the row first and returns WG_EXIT_OK, or prints why it could
 * not ("not showing <what>: ...") and returns WG_EXIT_FAIL, and then the
 * caller must print nothing -- an unaudited read never happens, as in the
 * service. */
int storecli_log_first(storecli *s, const char *cmd, const char *event, json_t *input_stolen,
                       const char *what);

/* Parses a non-negative decimal integer; -1 when invalid. */
long long storecli_number(const char *s);

#endif

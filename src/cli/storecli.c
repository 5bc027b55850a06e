/* storecli.c - shared plumbing of the store-backed subcommands. */
#include "storecli.h"
#include "waggle/datadir.h"
#include "waggle/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int storecli_open(storecli *s, const char *cmd, const char *data_dir, int want_vault)
{
    memset(s, 0, sizeof *s);
    int rc = wg_datadir_open(&s->dir, data_dir);
    if (rc == 0)
        rc = wg_store_open(&s->st, s->dir);
    if (rc == 0 && want_vault)
        rc = wg_vault_open(&s->vault, s->st);
    if (rc == 0)
        rc = wg_audit_open(&s->audit, s->st, s->vault);
    if (rc < 0) {
        int code = wg_cli_error(cmd, rc);
        storecli_close(s);
        return code == WG_EXIT_USAGE ? WG_EXIT_FAIL : code;
    }
    int64_t legacy = wg_audit_legacy_sealed(s->audit);
    if (legacy)
        fprintf(stderr, "waggle %s: note: the audit log's %lld existing rows were written before "
                "it was anchored; they are now anchored as found (audit_anchored row #%lld)\n",
                cmd, (long long)legacy, (long long)(legacy + 1));
    return WG_EXIT_OK;
}

void storecli_close(storecli *s)
{
    wg_audit_free(s->audit);
    wg_vault_free(s->vault);
    wg_store_free(s->st);
    free(s->dir);
    memset(s, 0, sizeof *s);
}

static int log_row(storecli *s, const char *event, json_t *input)
{
    wg_audit_record r = { .event = event, .actor = "cli", .input = input, .decision = "ok" };
    int rc = input ? wg_audit_append(s->audit, &r, NULL) : wg_error_set(WG_ENOMEM, "out of memory");
    json_decref(input);
    return rc;
}

void storecli_log(storecli *s, const char *cmd, const char *event, json_t *input)
{
    if (log_row(s, event, input) < 0)
        fprintf(stderr, "waggle %s: warning: audit log: %s\n", cmd, wg_error_last());
}

int storecli_log_first(storecli *s, const char *cmd, const char *event, json_t *input,
                       const char *what)
{
    if (log_row(s, event, input) == 0)
        return WG_EXIT_OK;
    return wg_cli_fail(cmd, "not showing %s: its %s audit row could not be written (%s)", what,
                       event, wg_error_last());
}

long long storecli_number(const char *s)
{
    if (!s || !*s || strlen(s) > 15)
        return -1;
    long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

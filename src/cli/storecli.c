/* storecli.c - the engine behind the store-backed subcommands (storecli.h). */
#include "storecli.h"
#include "waggle/datadir.h"
#include "waggle/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void log_stderr(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "waggle: %s\n", line);
}

int storecli_open(storecli *s, const char *cmd, const char *data_dir, const storecli_options *o)
{
    memset(s, 0, sizeof *s);
    int rc = wg_datadir_open(&s->dir, data_dir);
    if (rc == 0) {
        wg_engine_options eo = WG_ENGINE_OPTIONS_INIT;
        eo.data_dir = s->dir;
        eo.actor = "cli";
        eo.demo = o && o->demo;
        eo.allow_private_upstreams = o && o->allow_private_upstreams;
        eo.allow_http_upstreams = o && o->allow_http_upstreams;
        eo.allow_privileged_db_roles = o && o->allow_privileged_db_roles;
        eo.never_autopass = o ? o->never_autopass : NULL;
        eo.log = log_stderr;
        rc = wg_engine_open(&s->engine, &eo);
    }
    if (rc == 0 && !(o && o->lazy) && (rc = wg_engine_store(&s->st, s->engine)) == 0 &&
        (rc = wg_engine_vault(&s->vault, s->engine)) == 0)
        rc = wg_engine_audit(&s->audit, s->engine);
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
    wg_engine_free(s->engine);
    free(s->dir);
    memset(s, 0, sizeof *s);
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

/* trust_cli.c - see trust_cli.h. */
#include "trust_cli.h"

#include <stdio.h>
#include <stdlib.h>

void trust_cli_run(wgt_result *r, const char *data_dir, const char *stdin_text,
                   const char *const *argv)
{
    char env_dir[4096];
    snprintf(env_dir, sizeof env_dir, "WAGGLE_DATA_DIR=%s",
             data_dir ? data_dir : "/nonexistent/waggle-trust-tests");
    const char *env[] = { env_dir, NULL };
    if (wgt_run_cli(r, stdin_text, env, argv) != 0)
        abort();
}

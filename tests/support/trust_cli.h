/* trust_cli.h - running `waggle` with a private data dir, for the CLI tests
 * of trust, route, acquire, skills and marker. */
#ifndef WAGGLE_TRUST_CLI_H
#define WAGGLE_TRUST_CLI_H

#include "wgtest.h"

/* Runs the CLI with WAGGLE_DATA_DIR=data_dir (may be NULL: a fixed empty
 * path under /nonexistent) and the given stdin. Aborts the test when the
 * process cannot start. argv is NULL-terminated. */
void trust_cli_run(wgt_result *r, const char *data_dir, const char *stdin_text,
                   const char *const *argv);

#endif

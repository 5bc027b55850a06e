/* wgtest.h - helpers shared by every test executable (Criterion).
 *
 * WG_SOURCE_DIR, WG_BINARY_DIR, WG_TEST_DATA_DIR and WG_CLI_PATH are defined
 * by tests/CMakeLists.txt.
 */
#ifndef WAGGLE_WGTEST_H
#define WAGGLE_WGTEST_H

#include <stddef.h>

/* A fresh private directory under $TMPDIR (or /tmp). New: free() it, and
 * remove the tree with wgt_rmtree. Never NULL (aborts the test instead). */
char *wgt_tmpdir(void);

/* Removes a directory tree. Quietly ignores what does not exist. */
void wgt_rmtree(const char *path);

/* Writes text to dir/name (creating parent folders). Returns 0 or -1. */
int wgt_write_file(const char *dir, const char *name, const char *text);

/* Reads a whole file; new NUL-terminated buffer or NULL. */
char *wgt_read_file(const char *path);

typedef struct {
    int status;        /* exit status, or 128+signal */
    char *out;         /* captured stdout, NUL-terminated (free()) */
    char *err;         /* captured stderr, NUL-terminated (free()) */
} wgt_result;

/* Runs the built `waggle` CLI with argv (NULL-terminated, argv[0] is the
 * first argument after the program name), feeding stdin_text (may be NULL)
 * and with extra environment "NAME=value" strings in env (NULL-terminated,
 * may be NULL). Returns 0, or -1 if it could not start. */
int wgt_run_cli(wgt_result *r, const char *stdin_text, const char *const *env,
                const char *const *argv);

/* The same for the program at path (argv[0] is its base name). */
int wgt_run_program(wgt_result *r, const char *path, const char *stdin_text,
                    const char *const *env, const char *const *argv);

/* The lean hook binary built beside the CLI. */
#define WG_HOOK_PATH WG_BINARY_DIR "/waggle-hook"

void wgt_result_free(wgt_result *r);

#endif

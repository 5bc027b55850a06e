/* serve_config.h - the config file of `waggle serve` (--config FILE or
 * $WAGGLE_CONFIG): a JSON object whose keys are serve's long option names
 * and whose values are what the flag takes, e.g.
 *
 *   { "listen": "127.0.0.1:8080", "threads": 4, "demo": false,
 *     "allow-host": ["waggle.internal"], "never-autopass": ["connector_*_delete"] }
 *
 * Strings and whole numbers are a flag's argument; true/false switch a flag
 * without one on or off; an array repeats a repeatable flag. The file is
 * turned into the flags it stands for and read before the command line, so
 * a flag given on the command line overrides the file (a repeatable one
 * replaces the file's list). Unknown keys, wrong types and secrets are
 * refused with a message naming the key: the API token never goes in the
 * file (use $WAGGLE_API_TOKEN or DATA_DIR/api-token).
 */
#ifndef WAGGLE_CLI_SERVE_CONFIG_H
#define WAGGLE_CLI_SERVE_CONFIG_H

#include <getopt.h>

enum { SERVE_CONFIG_MAX_BYTES = 1 << 20 };

/* Reads path and appends the flags it stands for to a new argv: argv[0] is
 * cmd, then "--name" [value] pairs, NULL-terminated. longopts is serve's
 * table (keys are checked against it; "config" itself is refused inside the
 * file). *out and its strings are new: serve_config_free. Returns 0, or an
 * exit code after printing "waggle serve: FILE: ..." to stderr. */
int serve_config_argv(char ***out, int *argc_out, const char *cmd, const char *path,
                      const struct option *longopts);

void serve_config_free(char **argv, int argc);

#endif

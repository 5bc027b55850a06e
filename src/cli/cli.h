/* cli.h - what every `waggle` subcommand shares.
 *
 * One file per subcommand (cmd_<name>.c) exporting `int cmd_<name>(int argc,
 * char **argv, const wg_cli *cli)`; argv[0] is the subcommand's name. The
 * table in main.c lists them. Subcommands parse their own options with
 * getopt_long, call one library function, and print the result.
 *
 * Exit codes are a contract (README): 0 ok / runs without confirmation,
 * 1 the operation failed, 2 bad usage or input, 3 needs confirmation.
 */
#ifndef WAGGLE_CLI_H
#define WAGGLE_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

enum {
    WG_EXIT_OK = 0,
    WG_EXIT_FAIL = 1,
    WG_EXIT_USAGE = 2,
    WG_EXIT_CONFIRM = 3,
};

/* Global options given before the subcommand. Borrowed from argv. */
typedef struct wg_cli {
    const char *data_dir;   /* --data-dir D, or NULL (then $WAGGLE_DATA_DIR, ~/.waggle) */
    int json;               /* --json before the subcommand: answers as JSON */
} wg_cli;

typedef int (*wg_cli_fn)(int argc, char **argv, const wg_cli *cli);

/* Prints "waggle CMD: <message>" and a hint to use --help to stderr.
 * Returns WG_EXIT_USAGE so callers can `return wg_cli_usage(...)`. */
int wg_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "waggle CMD: <message>" to stderr and returns WG_EXIT_FAIL. */
int wg_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "waggle CMD: <wg_error_last()>" and maps a WG_E* code to an exit
 * code: WG_EINVAL -> 2, everything else -> 1. */
int wg_cli_error(const char *cmd, int rc);

/* Reads all of a file ("-" or NULL = stdin) into a NUL-terminated buffer.
 * *out is new (free()). Refuses inputs over max_bytes. Returns 0 or WG_E*. */
int wg_cli_read_all(char **out, size_t *len, const char *path, size_t max_bytes);

/* Prints JSON followed by a newline to stdout: compact, or indented when
 * pretty is non-zero. Returns WG_EXIT_OK, or WG_EXIT_FAIL if it cannot. */
int wg_cli_print_json(const json_t *value, int pretty);

/* Prints an answer: as indented JSON (reals with 12 significant digits)
 * when json is non-zero, else through show (render.h), which writes the
 * readable form to stdout. Returns WG_EXIT_OK, or WG_EXIT_FAIL when value
 * is NULL (out of memory) or stdout fails. */
int wg_cli_answer(const json_t *value, int json, void (*show)(const json_t *value));

/* True when argv holds -h or --help (before a "--"). */
int wg_cli_wants_help(int argc, char **argv);

/* The subcommands. */
int cmd_gate(int argc, char **argv, const wg_cli *cli);
int cmd_hook(int argc, char **argv, const wg_cli *cli);
int cmd_trust(int argc, char **argv, const wg_cli *cli);
int cmd_route(int argc, char **argv, const wg_cli *cli);
int cmd_acquire(int argc, char **argv, const wg_cli *cli);
int cmd_skills(int argc, char **argv, const wg_cli *cli);
int cmd_marker(int argc, char **argv, const wg_cli *cli);
int cmd_catalog(int argc, char **argv, const wg_cli *cli);
int cmd_vault(int argc, char **argv, const wg_cli *cli);
int cmd_audit(int argc, char **argv, const wg_cli *cli);
int cmd_tier(int argc, char **argv, const wg_cli *cli);
int cmd_pool(int argc, char **argv, const wg_cli *cli);
int cmd_serve(int argc, char **argv, const wg_cli *cli);
int cmd_dashboard(int argc, char **argv, const wg_cli *cli);
int cmd_connectors(int argc, char **argv, const wg_cli *cli);
int cmd_approve(int argc, char **argv, const wg_cli *cli);
int cmd_approvals(int argc, char **argv, const wg_cli *cli);
int cmd_mcp(int argc, char **argv, const wg_cli *cli);

#endif

/* mcp/gwclass.h - how the gateway classifies an upstream's tool (issue 14
 * §2): read-only, write, or destructive, with the rule and the reason.
 *
 *   annotations.destructiveHint = true              -> DESTRUCTIVE  gateway.annotation.destructive
 *   annotations.readOnlyHint = true (not destructive)-> READ        gateway.annotation.read_only
 *   a write verb in the tool name (write, edit, move, delete, create,
 *     update, remove, ...; first match in the table) -> WRITE        gateway.verb.write
 *   a read verb in the tool name (read, get, list, search, ...)
 *                                                    -> READ        gateway.verb.read
 *   otherwise                                        -> WRITE        gateway.unknown (fail closed)
 *
 * Verbs are matched as whole words of the name split at _ - . and case
 * changes, so "read_file" is read and "move_file" a write, "threads" is not
 * "read". A write verb wins over a read verb ("get_or_create" is a write).
 * Separately, wg_mcp__gw_shell_arg finds an argument that carries a shell
 * command (key command, cmd, script, shell, bash, sh, code): its string goes
 * through the bash never-autopass rules.
 *
 * Thread-safety: pure functions. */
#ifndef WAGGLE_MCP_GWCLASS_H
#define WAGGLE_MCP_GWCLASS_H

#include <jansson.h>

typedef enum { WG_GW_READ = 0, WG_GW_WRITE = 1, WG_GW_DESTRUCTIVE = 2 } wg_gw_class;

typedef struct {
    wg_gw_class cls;
    const char *rule;    /* static */
    char        reason[160];
} wg_gw_verdict;

/* Classifies a tool from its name and annotations (either may be NULL). */
wg_gw_verdict wg_mcp__gw_classify(const char *tool, const json_t *annotations);

/* The first string argument of args (an object) under a shell-like key, or
 * NULL. Borrowed from args. */
const char *wg_mcp__gw_shell_arg(const json_t *args, const char **key);

#endif

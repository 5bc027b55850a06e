/* gate_sizes.h - the long commands of issue #10 §1 that crashed every face
 * of the gate, built the same way for the library, CLI and HTTP tests. */
#ifndef WAGGLE_TEST_GATE_SIZES_H
#define WAGGLE_TEST_GATE_SIZES_H

#include <stddef.h>

/* `git add src/module_NNN/file_with_long_name_NNN.c ...` with paths until
 * the command is at least bytes long (400 paths make 16 KB). New string
 * (free()); *len receives its length. */
char *gatet_git_add(size_t bytes, size_t *len);

/* The JSON arguments {"command": cmd} for a tool call, new string (free()). */
char *gatet_command_json(const char *cmd);

#endif

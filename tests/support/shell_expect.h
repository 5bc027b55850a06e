/* shell_expect.h - one assertion for the shell model's unit tests: the
 * class (and, when given, the rule) wg_shell_analyze decides for a command. */
#ifndef WAGGLE_TEST_SHELL_EXPECT_H
#define WAGGLE_TEST_SHELL_EXPECT_H

#include "waggle/shell.h"

#define CRIT WG_SHELL_CRITICAL
#define DESTR WG_SHELL_DESTRUCTIVE
#define RISKY WG_SHELL_RISKY
#define SAFE WG_SHELL_SAFE

/* Expects cmd to be of class cls and, when rule is not NULL, decided by
 * rule; the failure message shows the rule and reason the model gave.
 * Aborts the test when the model refuses the command. */
void shellt_expect(const char *cmd, wg_shell_class cls, const char *rule);

#endif

/* main.c - the `waggle` command: global options, then one subcommand from the
 * table below. Invoked as `waggled`, it is `waggle serve`. */
#include "cli.h"
#include "waggle/version.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    wg_cli_fn fn;
    const char *summary;
} command;

static const command commands[] = {
    { "gate",       cmd_gate,       "does this tool call need a human's click?" },
    { "trust",      cmd_trust,      "score the risk of a skill or capability" },
    { "route",      cmd_route,      "where could a capability come from?" },
    { "acquire",    cmd_acquire,    "propose a capability to install for a need" },
    { "skills",     cmd_skills,     "list and install starter skills" },
    { "marker",     cmd_marker,     "emit or parse capability-request markers" },
    { "catalog",    cmd_catalog,    "search the MCP server catalog" },
    { "vault",      cmd_vault,      "store and read encrypted credentials" },
    { "audit",      cmd_audit,      "read and verify the tamper-evident audit log" },
    { "tier",       cmd_tier,       "show or change the subscription tier" },
    { "pool",       cmd_pool,       "rotate API keys with cooldowns" },
    { "connectors", cmd_connectors, "list, connect and call connectors" },
    { "approvals",  cmd_approvals,  "list the tool calls waiting for a person's approval" },
    { "approve",    cmd_approve,    "approve (or --deny) a waiting tool call by its id" },
    { "mcp",        cmd_mcp,        "serve the gated tools to an MCP client over stdio" },
    { "serve",      cmd_serve,      "run the HTTP service (also: waggled)" },
    { "hook",       cmd_hook,       "answer a coding agent's pre-tool-use hook (also: waggle-hook)" },
    { "dashboard",  cmd_dashboard,  "print a one-time login link to the dashboard" },
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *to)
{
    fprintf(to,
        "usage: waggle [--data-dir DIR] COMMAND [ARGS]\n"
        "\n"
        "waggle decides, before an AI agent acts, where a capability comes from,\n"
        "whether the user's plan includes it, and whether the call needs a human's\n"
        "click, and runs connector calls with credentials from an encrypted vault.\n"
        "\n"
        "commands:\n");
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(to, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(to,
        "\n"
        "global options:\n"
        "  --data-dir DIR  state directory (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "  --json          answer as JSON (for scripts; also accepted after COMMAND)\n"
        "  -V, --version   print the version\n"
        "  -h, --help      this text; 'waggle COMMAND --help' for a command\n"
        "\n"
        "exit status: 0 ok (or: runs without confirmation), 1 failed,\n"
        "             2 bad usage or input, 3 needs confirmation\n");
}

static const command *find_command(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    wg_cli cli = { 0 };
    const char *self = strrchr(argv[0], '/');
    self = self ? self + 1 : argv[0];
    if (strcmp(self, "waggled") == 0) {
        if (argc == 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
            printf("waggled %s\n", wg_version());
            return WG_EXIT_OK;
        }
        argv[0] = "serve";
        return cmd_serve(argc, argv, &cli);
    }

    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--data-dir") == 0 && i + 1 < argc) {
            cli.data_dir = argv[++i];
        } else if (strncmp(argv[i], "--data-dir=", 11) == 0) {
            cli.data_dir = argv[i] + 11;
        } else if (strcmp(argv[i], "--json") == 0) {
            cli.json = 1;
        } else if (strcmp(argv[i], "--list-commands") == 0) {
            /* For the shell completions: NAME<TAB>SUMMARY, one per line. */
            for (int c = 0; c < N_COMMANDS; c++)
                printf("%s\t%s\n", commands[c].name, commands[c].summary);
            return WG_EXIT_OK;
        } else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            printf("waggle %s\n", wg_version());
            return WG_EXIT_OK;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return WG_EXIT_OK;
        } else {
            fprintf(stderr, "waggle: unknown option '%s'\n\n", argv[i]);
            usage(stderr);
            return WG_EXIT_USAGE;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return WG_EXIT_USAGE;
    }
    if (strcmp(argv[i], "help") == 0) {
        if (i + 1 < argc && find_command(argv[i + 1])) {
            char *help_argv[] = { argv[i + 1], "--help", NULL };
            return find_command(argv[i + 1])->fn(2, help_argv, &cli);
        }
        usage(stdout);
        return WG_EXIT_OK;
    }
    const command *cmd = find_command(argv[i]);
    if (!cmd) {
        fprintf(stderr, "waggle: unknown command '%s'\n\n", argv[i]);
        usage(stderr);
        return WG_EXIT_USAGE;
    }
    return cmd->fn(argc - i, argv + i, &cli);
}

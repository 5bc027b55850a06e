/* cmd_approvals.c - `waggle approvals`: the tool calls waiting for a
 * person, from every process on the data dir (they live in the store).
 * A thin face over wg_engine_approvals; answer one with `waggle approve`. */
#include "storecli.h"
#include "waggle/error.h"

#include <getopt.h>

static void help(void)
{
    printf(
        "usage: waggle approvals [--all] [--json] [--data-dir DIR]\n"
        "\n"
        "Lists the tool calls waiting for approval, oldest first: id, tool, class,\n"
        "the rule that asked, and when the wait ends (then the call counts as\n"
        "denied). Calls whose wait ended are answered as denied first (an\n"
        "approval_denied audit row with rule approval.expired).\n"
        "\n"
        "options:\n"
        "  --all            also the expired ones not yet forgotten\n"
        "  --json           JSON: {approvals:[{approvalId, tool, state, approvalClass,\n"
        "                   rule, level, workspaceId?, sessionId?, createdAt, expiresAt,\n"
        "                   input}]} (input is a masked, bounded preview)\n"
        "  --data-dir DIR   data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 ok, 1 failed, 2 bad usage\n"
        "\n"
        "example:\n"
        "  waggle approvals && waggle approve ID\n");
}

int cmd_approvals(int argc, char **argv, const wg_cli *cli)
{
    static const struct option longopts[] = {
        { "all", no_argument, NULL, 'a' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *cmd = "approvals", *data_dir = cli->data_dir;
    int all = 0, as_json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': all = 1; break;
        case 'j': as_json = 1; break;
        case 'd': data_dir = optarg; break;
        case 'h': help(); return WG_EXIT_OK;
        default: return wg_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return wg_cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    storecli s;
    storecli_options so = { .lazy = 1 };
    int rc = storecli_open(&s, cmd, data_dir, &so);
    if (rc != WG_EXIT_OK)
        return rc;
    wg_engine_approval *list = NULL;
    size_t n = 0;
    if ((rc = wg_engine_approvals(&list, &n, s.engine, all, 0)) < 0) {
        rc = wg_cli_error(cmd, rc);
        storecli_close(&s);
        return rc;
    }
    if (as_json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, wg_engine_approval_json(&list[i]));
        json_t *out = json_pack("{s:o}", "approvals", arr);
        rc = wg_cli_print_json(out, 1);
        json_decref(out);
    } else {
        if (n)
            printf("%-32s  %-8s  %-9s  %-24s  %s\n", "ID", "STATE", "CLASS", "EXPIRES", "TOOL (RULE)");
        for (size_t i = 0; i < n; i++) {
            char when[WG_TIME_ISO_MAX];
            wg_time_format_iso(when, list[i].expires_ms);
            printf("%-32s  %-8s  %-9s  %-24s  %s (%s)\n", list[i].id, list[i].state,
                   list[i].approval_class ? list[i].approval_class : "-", when, list[i].tool,
                   list[i].rule ? list[i].rule : "-");
        }
        if (!n)
            printf("nothing waits for approval\n");
        rc = WG_EXIT_OK;
    }
    wg_engine_approvals_free(list, n);
    storecli_close(&s);
    return rc;
}

/* cmd_approve.c - `waggle approve ID [--deny]`: answer a tool call that
 * waits for a person (one made by `waggle connectors call` without a
 * terminal, by the HTTP service, or by any process on the same data dir).
 * A thin face over wg_engine_approve: approving runs the call once, here;
 * the engine writes approval_granted / approval_denied. */
#include "storecli.h"
#include "waggle/error.h"

#include <getopt.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle approve [--deny] [--json] [--data-dir DIR] [--allow-*-upstreams] ID\n"
        "\n"
        "Approves (or with --deny refuses) the pending tool call ID - see\n"
        "`waggle approvals`. Approving runs the call now, in this process, exactly\n"
        "once: another answer to the same ID, from here or from the service, finds\n"
        "nothing. A call whose approval time passed (5 minutes unless the service\n"
        "says otherwise) counts as denied and never runs.\n"
        "\n"
        "options:\n"
        "  --deny           refuse instead of approving\n"
        "  --allow-private-upstreams, --allow-http-upstreams\n"
        "                   the operator's upstream policy for the call it runs, as\n"
        "                   for `waggle connectors` (docs/security.md)\n"
        "  --json           print {approvalId, approved, status, result?}\n"
        "  --data-dir DIR   data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 approved and the call succeeded, or denied as asked;\n"
        "1 the call failed, expired, or no such pending call; 2 bad usage\n"
        "\n"
        "example:\n"
        "  waggle approve 3f2a9c0d6b1e4f5a8c7d2e1f0a9b8c7d\n");
}

static const char *status_name(wg_engine_status s)
{
    static const char *const names[] = { "ran", "pending", "denied", "expired" };
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "unknown";
}

int cmd_approve(int argc, char **argv, const wg_cli *cli)
{
    static const struct option longopts[] = {
        { "deny", no_argument, NULL, 'n' },
        { "allow-private-upstreams", no_argument, NULL, 'P' },
        { "allow-http-upstreams", no_argument, NULL, 'W' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *cmd = "approve", *data_dir = cli->data_dir;
    int deny = 0, as_json = 0, c;
    storecli_options so = { .lazy = 1 };
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': deny = 1; break;
        case 'P': so.allow_private_upstreams = 1; break;
        case 'W': so.allow_http_upstreams = 1; break;
        case 'j': as_json = 1; break;
        case 'd': data_dir = optarg; break;
        case 'h': help(); return WG_EXIT_OK;
        default: return wg_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return wg_cli_usage(cmd, optind >= argc ? "missing ID (see: waggle approvals)"
                                                : "one ID only");
    const char *id = argv[optind];
    storecli s;
    int rc = storecli_open(&s, cmd, data_dir, &so);
    if (rc != WG_EXIT_OK)
        return rc;
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.actor = "cli";
    wg_engine_outcome o;
    rc = wg_engine_approve(s.engine, id, !deny, &ctx, &o);
    if (rc < 0) {
        rc = rc == WG_ENOTFOUND ? wg_cli_fail(cmd, "no pending approval %s (see: waggle approvals)",
                                              strlen(id) > 64 ? "with that ID" : id)
                                : wg_cli_error(cmd, rc);
        storecli_close(&s);
        return rc == WG_EXIT_USAGE ? WG_EXIT_FAIL : rc;
    }
    int ok = o.status == WG_ENGINE_DENIED ||
             (o.status == WG_ENGINE_RAN && json_is_true(json_object_get(o.result, "success")));
    if (as_json) {
        json_t *out = json_pack("{s:s,s:b,s:s,s:s,s:O?}", "approvalId", o.approval_id, "approved",
                                o.status == WG_ENGINE_RAN, "status", status_name(o.status), "tool",
                                o.tool, "result", o.result);
        if (wg_cli_print_json(out, 1) != WG_EXIT_OK)
            ok = 0;
        json_decref(out);
    } else if (o.status == WG_ENGINE_RAN) {
        wg_cli_print_json(o.result, 1);
    } else if (o.status == WG_ENGINE_DENIED) {
        printf("denied %s (%s): it will not run\n", o.approval_id, o.tool);
    } else {
        fprintf(stderr, "waggle approve: %s (%s) expired and counts as denied; it did not run\n",
                o.approval_id, o.tool);
    }
    wg_engine_outcome_clear(&o);
    storecli_close(&s);
    return ok ? WG_EXIT_OK : WG_EXIT_FAIL;
}

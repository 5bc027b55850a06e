/* cmd_audit.c - `waggle audit`: read the audit log and verify its hash
 * chain (waggle/audit.h). */
#include "storecli.h"
#include "waggle/error.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle audit [--limit N] [--event E] [--json]\n"
        "       waggle audit verify [--json]\n"
        "\n"
        "The audit log records gate decisions (approval_auto, approval_requested,\n"
        "approval_granted, approval_denied), connector executions\n"
        "(connector.<id>.<action>), tier changes (tier_changed) and vault changes, with\n"
        "secrets masked. Each row carries the SHA-256 of the previous row and of its\n"
        "own content, so an edited, deleted or reordered row breaks the chain.\n"
        "\n"
        "  (no action)  newest rows first: id, time, event, actor, tool, decision, rule\n"
        "  verify       walks the whole chain; exit 0 when intact, 1 naming the first\n"
        "               broken row\n"
        "\n"
        "options:\n"
        "  --limit N        at most N rows (default 50)\n"
        "  --event E        only event E, or a prefix with a trailing * (connector.*)\n"
        "  --json           JSON output\n"
        "  --data-dir DIR   data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 ok / chain intact, 1 failed / chain broken, 2 bad usage\n"
        "\n"
        "example:\n"
        "  waggle audit --event 'connector.*' --limit 5\n"
        "  waggle audit verify\n");
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

static int do_list(const char *cmd, storecli *s, const wg_audit_query *q, int as_json)
{
    wg_audit_event *ev = NULL;
    size_t n = 0;
    int rc = wg_audit_list(&ev, &n, s->audit, q);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    if (as_json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, wg_audit_event_json(&ev[i]));
        rc = wg_cli_print_json(arr, 1);
        json_decref(arr);
    } else {
        for (size_t i = 0; i < n; i++) {
            char *in = ev[i].input ? json_dumps(ev[i].input, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            printf("#%-5lld %s  %-32s actor=%s tool=%s decision=%s rule=%s%s%s\n",
                   (long long)ev[i].id, ev[i].ts, ev[i].event, or_dash(ev[i].actor),
                   or_dash(ev[i].tool), or_dash(ev[i].decision), or_dash(ev[i].rule),
                   in ? " input=" : "", in ? in : "");
            free(in);
        }
        if (!n)
            printf("(no audit rows)\n");
        rc = WG_EXIT_OK;
    }
    wg_audit_events_free(ev, n);
    return rc;
}

static int do_verify(const char *cmd, storecli *s, int as_json)
{
    wg_audit_verify_result r;
    int rc = wg_audit_verify(&r, s->audit);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    if (as_json) {
        json_t *o = json_pack("{s:b,s:I,s:o,s:s}", "ok", r.ok, "rows", (json_int_t)r.rows,
                              "firstBadId", r.ok ? json_null() : json_integer(r.first_bad_id),
                              "reason", r.reason);
        wg_cli_print_json(o, 0);
        json_decref(o);
    } else if (r.ok) {
        printf("audit chain intact: %zu rows\n", r.rows);
    } else {
        fprintf(stderr, "waggle audit: chain broken at %s\n", r.reason);
    }
    return r.ok ? WG_EXIT_OK : WG_EXIT_FAIL;
}

int cmd_audit(int argc, char **argv, const wg_cli *cli)
{
    const char *cmd = "audit";
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    static const struct option longopts[] = {
        { "limit", required_argument, NULL, 'l' },
        { "event", required_argument, NULL, 'e' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    wg_audit_query q = { 0 };
    const char *data_dir = cli->data_dir;
    int as_json = 0, c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': {
            long long n = storecli_number(optarg);
            if (n < 1 || n > 100000)
                return wg_cli_usage(cmd, "--limit must be a number from 1 to 100000");
            q.limit = (size_t)n;
            break;
        }
        case 'e': q.event = optarg; break;
        case 'j': as_json = 1; break;
        case 'D': data_dir = optarg; break;
        default:
            return wg_cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    int npos = argc - optind, verify = 0;
    if (npos == 1 && !strcmp(argv[optind], "verify"))
        verify = 1;
    else if (npos)
        return wg_cli_usage(cmd, "unexpected argument '%s' (the only action is verify)", argv[optind]);
    if (verify && (q.limit || q.event))
        return wg_cli_usage(cmd, "verify checks the whole chain: no --limit or --event");
    storecli s;
    int rc = storecli_open(&s, cmd, data_dir, NULL);
    if (rc != WG_EXIT_OK)
        return rc;
    rc = verify ? do_verify(cmd, &s, as_json) : do_list(cmd, &s, &q, as_json);
    storecli_close(&s);
    return rc;
}

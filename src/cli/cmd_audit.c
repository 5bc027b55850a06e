/* cmd_audit.c - `waggle audit`: read the audit log, verify its chain,
 * seals and anchor (waggle/audit.h), and reanchor it after tampering
 * through the engine (wg_engine_audit_reanchor: the face writes no row). */
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
        "       waggle audit reanchor --yes\n"
        "\n"
        "The audit log records gate decisions (approval_auto, approval_requested,\n"
        "approval_granted, approval_denied), connector executions\n"
        "(connector.<id>.<action>), tier changes (tier_changed) and vault changes, with\n"
        "secrets masked. Each row carries the SHA-256 of the previous row and of its\n"
        "own content, and a seal keyed with a key derived from the vault key. The\n"
        "sealed head (row count and newest hash) is kept in the store, updated with\n"
        "every row, and in DATA_DIR/audit-witness, so rows cut from the end, an\n"
        "emptied table, a wiped or restored database and a history edited and\n"
        "re-hashed are all caught. Whoever holds the vault key can still rewrite\n"
        "everything: see docs/security.md \"Audit log\".\n"
        "\n"
        "  (no action)  newest rows first: id, time, event, actor, tool, decision, rule\n"
        "  verify       checks the whole log; exit 0 when intact, 1 naming the first bad\n"
        "               or first missing row and why\n"
        "  reanchor     after verify failed and you know why: accepts the log as it is\n"
        "               now (shortened, emptied, a replaced database) and records what\n"
        "               was given up in an audit_reanchored row; an edited log cannot be\n"
        "               accepted. While the log does not match its anchor nothing more\n"
        "               is appended, so everything that must be audited fails closed\n"
        "\n"
        "options:\n"
        "  --limit N        at most N rows (default 50)\n"
        "  --event E        only event E, or a prefix with a trailing * (connector.*)\n"
        "  --json           JSON output\n"
        "  --yes            reanchor without asking (required: it gives up evidence)\n"
        "  --data-dir DIR   data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 ok / log intact, 1 failed / log broken, 2 bad usage,\n"
        "3 reanchor needs --yes\n"
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

static int do_verify(const char *cmd, storecli *s, int as_json, int yes)
{
    (void)yes;
    wg_audit_verify_result r;
    int rc = wg_audit_verify(&r, s->audit);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    if (as_json) {
        json_t *o = json_pack("{s:b,s:I,s:o,s:s,s:I,s:s,s:I,s:I}", "ok", r.ok, "rows",
                              (json_int_t)r.rows, "firstBadId",
                              r.ok || !r.first_bad_id ? json_null() : json_integer(r.first_bad_id),
                              "reason", r.reason, "anchorRows", (json_int_t)r.anchor_rows,
                              "anchorHead", r.anchor_head, "witnessRows",
                              (json_int_t)r.witness_rows, "trustedRows",
                              (json_int_t)r.trusted_rows);
        wg_cli_print_json(o, 0);
        json_decref(o);
    } else if (r.ok) {
        printf("audit chain intact: %zu rows, sealed head %s\n", r.rows,
               r.rows ? r.anchor_head : "(empty log)");
        if (r.trusted_rows)
            printf("note: rows 1-%lld were written before the log was anchored; they are "
                   "trusted as found\n", (long long)r.trusted_rows);
    } else {
        fprintf(stderr, "waggle audit: the audit log does not verify: %s\n", r.reason);
    }
    return r.ok ? WG_EXIT_OK : WG_EXIT_FAIL;
}

static int do_reanchor(const char *cmd, storecli *s, int as_json, int yes)
{
    wg_audit_verify_result r;
    int rc = wg_audit_verify(&r, s->audit);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    if (r.ok) {
        printf("audit chain intact: %zu rows; nothing to reanchor\n", r.rows);
        return WG_EXIT_OK;
    }
    if (!yes) {
        fprintf(stderr, "waggle audit: the audit log does not verify: %s\n"
                        "waggle audit: reanchor accepts the log as it is now and gives that up "
                        "for good; run again with --yes once you know why\n", r.reason);
        return WG_EXIT_CONFIRM;
    }
    int64_t id = 0;
    if ((rc = wg_engine_audit_reanchor(s->engine, "cli", &id)) < 0) {
        wg_cli_error(cmd, rc);
        return WG_EXIT_FAIL;
    }
    if (as_json) {
        json_t *o = json_pack("{s:b,s:I,s:s}", "reanchored", 1, "id", (json_int_t)id, "was",
                              r.reason);
        rc = wg_cli_print_json(o, 0);
        json_decref(o);
        return rc;
    }
    printf("reanchored: the log's %lld rows are accepted as they are; recorded as row #%lld "
           "(was: %s)\n", (long long)(id - 1), (long long)id, r.reason);
    return WG_EXIT_OK;
}

typedef int (*audit_action)(const char *cmd, storecli *s, int as_json, int yes);

static const struct {
    const char *name;
    audit_action fn;
} actions[] = {
    { "verify", do_verify },
    { "reanchor", do_reanchor },
};

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
        { "yes", no_argument, NULL, 'y' },
        { "data-dir", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    wg_audit_query q = { 0 };
    const char *data_dir = cli->data_dir;
    int as_json = 0, yes = 0, c;
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
        case 'y': yes = 1; break;
        case 'D': data_dir = optarg; break;
        default:
            return wg_cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    int npos = argc - optind;
    audit_action fn = NULL;
    for (size_t i = 0; npos && i < sizeof actions / sizeof *actions; i++)
        if (!strcmp(argv[optind], actions[i].name))
            fn = actions[i].fn;
    if (npos && !fn)
        return wg_cli_usage(cmd, "unknown action '%s' (verify, reanchor)", argv[optind]);
    if (npos > 1)
        return wg_cli_usage(cmd, "unexpected argument '%s' (%s takes none)", argv[optind + 1],
                            argv[optind]);
    if (fn && (q.limit || q.event))
        return wg_cli_usage(cmd, "%s checks the whole log: no --limit or --event", argv[optind]);
    if (yes && fn != do_reanchor)
        return wg_cli_usage(cmd, "--yes belongs to reanchor");
    storecli s;
    int rc = storecli_open(&s, cmd, data_dir, NULL);
    if (rc != WG_EXIT_OK)
        return rc;
    rc = fn ? fn(cmd, &s, as_json, yes) : do_list(cmd, &s, &q, as_json);
    storecli_close(&s);
    return rc;
}

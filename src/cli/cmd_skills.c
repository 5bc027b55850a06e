/* cmd_skills.c - `waggle skills`: list active and installable skills, show
 * one, install a starter skill into DATA_DIR/skills (spec 3.3) - or, with
 * WAGGLE_DATABASE_URL (replicas), into the shared store every replica reads
 * (docs/replicas.md). */
#include "cli.h"
#include "capcli.h"
#include "waggle/acquire.h"
#include "waggle/datadir.h"
#include "waggle/skills.h"
#include "waggle/error.h"
#include "waggle/store.h"
#include "store/tree.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle skills list [--json]\n"
        "       waggle skills show NAME\n"
        "       waggle skills install NAME [--source starter-pack]\n"
        "\n"
        "Active skills live in DATA_DIR/skills/<name>.md. The starter pack is built\n"
        "into waggle ($WAGGLE_STARTER_SKILLS_DIR replaces it). `list` shows both, each\n"
        "installable skill with its trust badge; `show` prints a starter or active\n"
        "skill; `install` copies a starter skill into the active set atomically. Only\n"
        "the starter-pack source installs here; marketplace, MCP and connector sources\n"
        "go through the capability-request marker (waggle marker --help).\n"
        "With WAGGLE_DATABASE_URL set (replicas on one PostgreSQL) the active skills\n"
        "are the shared store's, the same on every replica; the data dir's skill\n"
        "files are imported into it once (docs/replicas.md).\n"
        "\n"
        "options:\n"
        "  --source S      install source (only starter-pack is accepted)\n"
        "  --json          list as JSON {active:[..], installable:[..]}\n"
        "  --data-dir DIR  data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 ok, 1 failed (e.g. already installed), 2 bad name or source,\n"
        "             or a skill that is not in the starter pack\n"
        "\n"
        "example:\n"
        "  waggle skills install risk-assessment\n");
}

static const char *const RISK_BADGE[] = { "Low", "Medium", "High" };

static int badge(wg_trust_assessment *a, const wg_trust *t, const wg_skill *sk, const char *src)
{
    wg_trust_input in = { "skill", src, sk->content, &sk->declared };
    return wg_trust_assess(a, t, &in);
}

static int list(const char *cmd, const wg_skillset *active, const wg_skillset *starter,
                const wg_trust *t, int as_json, const char *dir, const wg_store *st)
{
    json_t *ja = json_array(), *ji = json_array();
    int rc = 0;
    if (!as_json && wg_tree__shared(st))
        printf("Active skills (the shared store):\n");
    else if (!as_json)
        printf("Active skills (%s/skills):\n", dir);
    for (size_t i = 0; i < wg_skillset_count(active); i++) {
        const wg_skill *sk = wg_skillset_get(active, i);
        if (as_json)
            json_array_append_new(ja, json_pack("{s:s, s:s}", "name", sk->name,
                                                "description", sk->description));
        else
            printf("  %-26s %s\n", sk->name, sk->description);
    }
    if (!as_json && wg_skillset_count(active) == 0)
        printf("  (none yet)\n");
    if (!as_json)
        printf("\nInstallable from the starter pack (waggle skills install NAME):\n");
    for (size_t i = 0; rc == 0 && i < wg_skillset_count(starter); i++) {
        const wg_skill *sk = wg_skillset_get(starter, i);
        if (wg_skillset_find(active, sk->name))
            continue;
        wg_trust_assessment a;
        if ((rc = badge(&a, t, sk, WG_SKILLS_STARTER_SOURCE)) < 0)
            break;
        if (as_json)
            json_array_append_new(ji, json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", sk->name,
                "description", sk->description, "source", WG_SKILLS_STARTER_SOURCE,
                "riskLevel", wg_risk_name(a.risk), "approvalClass", wg_approval_name(a.approval)));
        else
            printf("  %-26s [%-6s] %s\n", sk->name, RISK_BADGE[a.risk], sk->description);
    }
    if (rc < 0) {
        json_decref(ja);
        json_decref(ji);
        return wg_cli_error(cmd, rc);
    }
    if (as_json) {
        json_t *o = json_pack("{s:o, s:o}", "active", ja, "installable", ji);
        rc = capcli_print_json(o);
        json_decref(o);
        return rc;
    }
    json_decref(ja);
    json_decref(ji);
    return WG_EXIT_OK;
}

static int install(const char *cmd, wg_store *st, const char *dir, const wg_skillset *starter,
                   const wg_trust *t, const char *name, const char *source)
{
    char *path = NULL;
    int rc = wg_skills_install_in(&path, st, dir, starter, name, source);
    if (rc == WG_EUNSUPPORTED || rc == WG_ENOTFOUND)
        rc = WG_EINVAL;   /* bad input: exit 2 */
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    const wg_skill *sk = wg_skillset_find(starter, name);
    wg_trust_assessment a;
    char *summary = NULL;
    if (badge(&a, t, sk, source) == 0 && wg_trust_format_summary(&summary, &a) == 0)
        printf("Installed %s to %s\n%s\n", name, path, summary);
    else
        printf("Installed %s to %s\n", name, path);
    free(summary);
    free(path);
    return WG_EXIT_OK;
}

static int show(const char *cmd, const wg_skillset *active, const wg_skillset *starter,
                const char *name)
{
    const wg_skill *sk = wg_skillset_find(active, name);
    if (!sk)
        sk = wg_skillset_find(starter, name);
    if (!sk)
        return wg_cli_usage(cmd, "no skill named \"%s\" (see waggle skills list)", name);
    fwrite(sk->content, 1, sk->length, stdout);
    return WG_EXIT_OK;
}

int cmd_skills(int argc, char **argv, const wg_cli *cli)
{
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    static const struct option opts[] = {
        { "source", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'D' },
        { 0, 0, 0, 0 },
    };
    const char *source = WG_SKILLS_STARTER_SOURCE, *data_dir = cli->data_dir;
    int as_json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 's')
            source = optarg;
        else if (c == 'j')
            as_json = 1;
        else if (c == 'D')
            data_dir = optarg;
        else
            return wg_cli_usage(argv[0], "unknown option %s", argv[optind - 1]);
    }
    if (optind >= argc)
        return wg_cli_usage(argv[0], "a subcommand is required: list, show or install");
    const char *sub = argv[optind];
    int nargs = argc - optind - 1;
    int is_list = strcmp(sub, "list") == 0;
    if (!is_list && strcmp(sub, "install") != 0 && strcmp(sub, "show") != 0)
        return wg_cli_usage(argv[0], "unknown subcommand \"%s\" (list, show, install)", sub);
    if (is_list ? nargs != 0 : nargs != 1)
        return wg_cli_usage(argv[0], is_list ? "list takes no arguments"
                                             : "%s takes exactly one NAME", sub);
    char *dir = NULL;
    wg_skillset *active = NULL, *starter = NULL;
    wg_trust *t = NULL;
    wg_store *st = NULL;
    int rc = wg_datadir_resolve(&dir, data_dir);
    if (rc == 0)   /* replicas: the shared store, with this data dir's files */
        rc = capcli_shared_store(&st, argv[0], dir);
    if (rc == 0 && (rc = wg_skillset_load_active_in(&active, st, dir)) == 0 &&
        (rc = wg_skillset_load_starter(&starter)) == 0)
        rc = wg_trust_new(&t);
    if (rc < 0)
        rc = wg_cli_error(argv[0], rc);
    else if (is_list)
        rc = list(argv[0], active, starter, t, as_json, dir, st);
    else if (strcmp(sub, "show") == 0)
        rc = show(argv[0], active, starter, argv[optind + 1]);
    else
        rc = install(argv[0], st, dir, starter, t, argv[optind + 1], source);
    wg_store_free(st);
    wg_trust_free(t);
    wg_skillset_free(starter);
    wg_skillset_free(active);
    free(dir);
    return rc;
}

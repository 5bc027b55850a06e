/* cmd_acquire.c - `waggle acquire`: propose a capability for a need (spec 3). */
#include "cli.h"
#include "capcli.h"
#include "waggle/acquire.h"
#include "waggle/error.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle acquire [--deps FILE] [--json] [--data-dir DIR] NEED...\n"
        "\n"
        "Searches native tools, active skills, the starter pack and (with --deps)\n"
        "marketplace candidates for a need, scores each by keyword overlap (name hit 2,\n"
        "content hit 1, divided by the number of keywords), attaches a trust assessment\n"
        "and recommends one. Prints the Markdown summary the agent sees, or\n"
        "the AcquisitionProposal JSON {need, gapDetected, summary, candidates,\n"
        "recommendation, alreadyHandled} with --json.\n"
        "\n"
        "options:\n"
        "  --deps FILE     inputs as JSON (see waggle route --help), plus\n"
        "                  marketplace[{name,description,score}]; '-' = stdin.\n"
        "                  Without it: this installation's native tools and active skills.\n"
        "  --json          print the proposal as JSON\n"
        "  --data-dir DIR  data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "The starter pack is built in; $WAGGLE_STARTER_SKILLS_DIR replaces it.\n"
        "\n"
        "example:\n"
        "  waggle acquire \"assess the risks of my project\"\n"
        "  waggle skills install risk-assessment\n");
}

int cmd_acquire(int argc, char **argv, const wg_cli *cli)
{
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    static const struct option opts[] = {
        { "deps", required_argument, NULL, 'd' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'D' },
        { 0, 0, 0, 0 },
    };
    const char *deps_file = NULL, *data_dir = cli->data_dir;
    int as_json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'd')
            deps_file = optarg;
        else if (c == 'j')
            as_json = 1;
        else if (c == 'D')
            data_dir = optarg;
        else
            return wg_cli_usage(argv[0], "unknown option %s", argv[optind - 1]);
    }
    char *need = capcli_join(argc, argv, optind);
    if (!need)
        return wg_cli_fail(argv[0], "out of memory");
    if (!need[strspn(need, " \t\r\n")]) {
        free(need);
        return wg_cli_usage(argv[0], "\"need\" is required — describe what capability you "
                            "are looking for");
    }
    wg_capdeps *deps = NULL;
    wg_skillset *starter = NULL;
    wg_trust *trust = NULL;
    int rc = capcli_load_deps(&deps, argv[0], deps_file, data_dir), lrc = 0;
    if (rc == 0 && (lrc = wg_skillset_load_starter(&starter)) == 0)
        lrc = wg_trust_new(&trust);
    wg_proposal p = { 0 };
    if (rc == 0 && lrc == 0) {
        wg_acquire_input in = { .need = need, .starter = starter, .trust = trust };
        wg_capdeps_acquire_input(&in, deps);
        lrc = wg_acquire_search(&p, &in);
    }
    if (rc == 0 && lrc < 0)
        rc = wg_cli_error(argv[0], lrc);
    if (rc == 0 && as_json) {
        json_t *j = wg_proposal_json(&p);
        rc = capcli_print_json(j);
        json_decref(j);
    } else if (rc == 0) {
        printf("%s\n", p.summary);
    }
    wg_proposal_free(&p);
    wg_trust_free(trust);
    wg_skillset_free(starter);
    wg_capdeps_free(deps);
    free(need);
    return rc;
}

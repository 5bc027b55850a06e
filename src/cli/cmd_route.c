/* cmd_route.c - `waggle route`: where could a capability come from? (spec 2) */
#include "cli.h"
#include "capcli.h"
#include "waggle/router.h"
#include "waggle/error.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle route [--deps FILE] [--data-dir DIR] QUERY...\n"
        "\n"
        "Ranks where a capability could come from (spec 2): native tools (exact 1.0,\n"
        "partial 0.8), connectors 0.75, skills (name 0.7, content 0.5), plugins 0.6,\n"
        "MCP servers 0.45, sub-agent roles 0.4. Matching is by word; a query shorter\n"
        "than 3 letters only matches exactly. Prints a JSON array of CapabilityRoute\n"
        "{source, name, confidence, description, available, suggestion?}; when nothing\n"
        "matches, one route with source \"missing\" and a suggestion.\n"
        "\n"
        "options:\n"
        "  --deps FILE     CapabilityRouterDeps as JSON ('-' = stdin): toolNames,\n"
        "                  skills[{name,content}], plugins[{name,description,skills,\n"
        "                  mcpServers}], mcpServers, subAgentRoles, unhealthyMcpServers,\n"
        "                  connectors[{id,name,service,connected,actions}]\n"
        "                  Without it: this installation's native tools, connectors\n"
        "                  (connected per the vault), active skills (DATA_DIR/skills),\n"
        "                  plugins (DATA_DIR/plugins) and the six roles.\n"
        "  --data-dir DIR  data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "example:\n"
        "  waggle route search the web\n");
}

int cmd_route(int argc, char **argv, const wg_cli *cli)
{
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    static const struct option opts[] = {
        { "deps", required_argument, NULL, 'd' },
        { "data-dir", required_argument, NULL, 'D' },
        { 0, 0, 0, 0 },
    };
    const char *deps_file = NULL, *data_dir = cli->data_dir;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'd')
            deps_file = optarg;
        else if (c == 'D')
            data_dir = optarg;
        else
            return wg_cli_usage(argv[0], "unknown option %s", argv[optind - 1]);
    }
    char *query = capcli_join(argc, argv, optind);
    if (!query)
        return wg_cli_fail(argv[0], "out of memory");
    if (!query[strspn(query, " \t\r\n")]) {
        free(query);
        return wg_cli_usage(argv[0], "a QUERY is required, e.g. waggle route search the web");
    }
    wg_capdeps *deps = NULL;
    int rc = capcli_load_deps(&deps, argv[0], deps_file, data_dir);
    if (rc) {
        free(query);
        return rc;
    }
    capcli_connectors *conns = deps_file ? NULL : capcli_connectors_load(argv[0], data_dir);
    capcli_connectors_attach(deps, conns);
    wg_route_list routes;
    int lrc = wg_router_resolve(&routes, wg_capdeps_router(deps), query);
    free(query);
    if (lrc < 0) {
        wg_capdeps_free(deps);
        capcli_connectors_free(conns);
        return wg_cli_error(argv[0], lrc);
    }
    json_t *j = wg_route_list_json(&routes);
    rc = j ? capcli_print_json(j) : wg_cli_fail(argv[0], "out of memory");
    json_decref(j);
    wg_route_list_free(&routes);
    wg_capdeps_free(deps);
    capcli_connectors_free(conns);
    return rc;
}

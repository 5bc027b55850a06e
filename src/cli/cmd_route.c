/* cmd_route.c - `waggle route`: where could a capability come from? (spec 2) */
#include "cli.h"
#include "capcli.h"
#include "render.h"
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
        "Ranks where a capability could come from: native tools (exact 1.0,\n"
        "partial 0.8), connectors 0.75, skills (name 0.7, content 0.5), plugins 0.6,\n"
        "MCP servers 0.45, sub-agent roles 0.4. Matching is by word; a query shorter\n"
        "than 3 letters only matches exactly. Prints a table of routes, best first,\n"
        "and how to enable what is not available (a connector: the command that\n"
        "connects it); when nothing matches, one route with source \"missing\".\n"
        "With --json, an array of CapabilityRoute {source, name, confidence,\n"
        "description, available, suggestion?} (the suggestion is the library's text).\n"
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
        "  --json          answer as JSON (for scripts)\n"
        "\n"
        "example:\n"
        "  waggle route search the web\n");
}

/* How to enable a route that is not available: for a connector, the command
 * that connects it (the library's suggestion speaks of the original's UI). */
static void show_enable(const json_t *route)
{
    const char *source = json_string_value(json_object_get(route, "source"));
    const json_t *name = json_object_get(route, "name");
    const json_t *suggestion = json_object_get(route, "suggestion");
    if (json_is_true(json_object_get(route, "available")) || !source)
        return;
    if (!strcmp(source, "connector")) {
        printf("To use ");
        wg_cli_show_value(stdout, name, 0);
        printf(": waggle connectors connect ");
        wg_cli_show_value(stdout, name, 0);
        printf("\n");
    } else if (!strcmp(source, "missing")) {
        printf("Nothing offers this yet: write a skill, connect a service (waggle connectors\n"
               "list), or look for an MCP server (waggle catalog search WORDS...).\n");
    } else if (suggestion) {
        wg_cli_show_value(stdout, suggestion, 0);
        printf("\n");
    }
}

static void show(const json_t *routes)
{
    static const wg_cli_field cols[] = {
        { "source", "SOURCE", WG_CLI_TEXT },
        { "name", "NAME", WG_CLI_TEXT },
        { "confidence", "CONFIDENCE", WG_CLI_TEXT },
        { "available", "AVAILABLE", WG_CLI_TEXT },
        { "description", "DESCRIPTION", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_table(stdout, routes, cols, "no routes");
    printf("\n");
    size_t i;
    const json_t *route;
    json_array_foreach(routes, i, route)
        show_enable(route);
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
        { "json", no_argument, NULL, 'j' },
        { 0, 0, 0, 0 },
    };
    const char *deps_file = NULL, *data_dir = cli->data_dir;
    int c, json = cli->json;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'd')
            deps_file = optarg;
        else if (c == 'D')
            data_dir = optarg;
        else if (c == 'j')
            json = 1;
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
    rc = j ? wg_cli_answer(j, json, show) : wg_cli_fail(argv[0], "out of memory");
    json_decref(j);
    wg_route_list_free(&routes);
    wg_capdeps_free(deps);
    capcli_connectors_free(conns);
    return rc;
}

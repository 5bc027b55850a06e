/* cmd_marker.c - `waggle marker emit|parse`: the capability-request marker
 * (spec 4.3). */
#include "cli.h"
#include "capcli.h"
#include "waggle/marker.h"
#include "waggle/error.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { MARKER_MAX_BYTES = 16 * 1024 * 1024 };

static void help(void)
{
    printf(
        "usage: waggle marker emit --name N --source S [--reason R]\n"
        "       waggle marker parse [FILE|-]\n"
        "\n"
        "`emit` prints, on its own line, the marker an agent writes to ask the user\n"
        "to install a marketplace, MCP or connector capability:\n"
        "  <!--waggle:capability_request {\"name\":..,\"source\":..,\"reason\":..}-->\n"
        "reason is sanitized: { } < > removed, whitespace collapsed, at most 140\n"
        "characters. name and source may not contain quotes, backslashes, { } < > or\n"
        "control characters.\n"
        "`parse` reads text (a chat reply) and prints a JSON array of the requests it\n"
        "contains, [{name, source, reason?, kind?, legacy?}], in order, one per\n"
        "source+name. The legacy phrase `install_capability` with name \"N\" and\n"
        "source \"S\" is recognised too.\n"
        "\n"
        "example:\n"
        "  waggle marker emit --name pubmed-search --source marketplace \\\n"
        "      --reason \"You asked for literature search\"\n"
        "  waggle marker parse reply.md\n");
}

static int emit(int argc, char **argv)
{
    static const struct option opts[] = {
        { "name", required_argument, NULL, 'n' },
        { "source", required_argument, NULL, 's' },
        { "reason", required_argument, NULL, 'r' },
        { 0, 0, 0, 0 },
    };
    const char *name = NULL, *source = NULL, *reason = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'n')
            name = optarg;
        else if (c == 's')
            source = optarg;
        else if (c == 'r')
            reason = optarg;
        else
            return wg_cli_usage("marker", "unknown option %s", argv[optind - 1]);
    }
    if (optind < argc)
        return wg_cli_usage("marker", "emit takes no positional arguments");
    if (!name || !source)
        return wg_cli_usage("marker", "emit needs --name and --source");
    char *line = NULL;
    int rc = wg_marker_emit(&line, name, source, reason);
    if (rc < 0)
        return wg_cli_error("marker", rc);
    fputs(line, stdout);
    free(line);
    return WG_EXIT_OK;
}

static int parse(int argc, char **argv)
{
    if (argc > 2)
        return wg_cli_usage("marker", "parse takes one FILE at most");
    char *text = NULL;
    size_t len = 0;
    int rc = wg_cli_read_all(&text, &len, argc == 2 ? argv[1] : "-", MARKER_MAX_BYTES);
    if (rc < 0)
        return wg_cli_error("marker", rc == WG_EIO ? WG_EINVAL : rc);
    wg_marker_list list;
    rc = wg_marker_parse(&list, text, len);
    free(text);
    if (rc < 0)
        return wg_cli_error("marker", rc);
    json_t *a = json_array();
    for (size_t i = 0; a && i < list.count; i++) {
        const wg_marker *m = &list.items[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(m->name));
        json_object_set_new(o, "source", json_string(m->source));
        if (m->reason)
            json_object_set_new(o, "reason", json_string(m->reason));
        if (m->kind)
            json_object_set_new(o, "kind", json_string(m->kind));
        if (m->legacy)
            json_object_set_new(o, "legacy", json_true());
        json_array_append_new(a, o);
    }
    wg_marker_list_free(&list);
    rc = capcli_print_json(a);
    json_decref(a);
    return rc;
}

int cmd_marker(int argc, char **argv, const wg_cli *cli)
{
    (void)cli;
    if (argc < 2)
        return wg_cli_usage("marker", "a subcommand is required: emit or parse");
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    if (strcmp(argv[1], "emit") == 0)
        return emit(argc - 1, argv + 1);
    if (strcmp(argv[1], "parse") == 0)
        return parse(argc - 1, argv + 1);
    return wg_cli_usage("marker", "unknown subcommand \"%s\" (emit, parse)", argv[1]);
}

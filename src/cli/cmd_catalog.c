/* cmd_catalog.c - `waggle catalog`: search and manage the MCP server catalog
 * (spec 4 find_connector / list_connector_categories, spec 12).
 *
 * Sub-commands are a table; each parses its own options, calls one library
 * function (waggle/catalog.h) and prints the result. The catalog searched is
 * the embedded one with DATA_DIR/catalog.json overlaid when it exists -
 * or, with WAGGLE_DATABASE_URL (replicas), the shared store's local
 * entries (docs/replicas.md).
 */
#include "cli.h"
#include "render.h"
#include "waggle/catalog.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "waggle/store.h"
#include "capcli.h"
#include "store/tree.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define IMPORT_MAX (64u << 20)   /* a registry file of ~100,000 servers */
#define IMPORT_LIST_MAX 20       /* ids named after an import; the rest are counted */

typedef struct {
    const char *data_dir;
    int compact;   /* one-line JSON (implies json) */
    int json;
} common_opts;

static const char *const catalog_help =
    "Usage: waggle catalog COMMAND [OPTIONS] [ARGS]\n"
    "\n"
    "Search and manage the catalog of MCP servers (a directory of servers and\n"
    "their install commands; nothing is installed or connected).\n"
    "\n"
    "Commands:\n"
    "  search [--category C] [--limit N] QUERY...\n"
    "                        rank servers for a need, as the agent tool\n"
    "                        find_connector does (limit 1..30, default 10);\n"
    "                        with --category and no words, lists the category\n"
    "  categories            the 14 categories with server counts\n"
    "  normalize NAME...     print each name's normalized id, one per line\n"
    "  show ID               print one server (any spelling of its id)\n"
    "  import [--category C] [--dry-run] FILE\n"
    "                        merge servers from an official MCP registry file\n"
    "                        (a /v0.1/servers response or a server.json) into\n"
    "                        DATA_DIR/catalog.json: latest versions only,\n"
    "                        servers already there skipped, taken ids\n"
    "                        qualified with the owner\n"
    "  export                print the catalog in the registry's format\n"
    "\n"
    "Options for every command:\n"
    "  --data-dir DIR        data dir whose catalog.json is overlaid\n"
    "                        (default $WAGGLE_DATA_DIR, then ~/.waggle)\n"
    "  --json                answer as JSON (for scripts; export and import\n"
    "                        --dry-run always answer JSON, in the registry's format)\n"
    "  --compact             one-line JSON\n"
    "\n"
    "Examples:\n"
    "  waggle catalog search \"users report crashes in the app\"\n"
    "  waggle catalog search --category Database --limit 3 vector search\n"
    "  waggle catalog normalize @modelcontextprotocol/server-github\n"
    "  waggle catalog show mcp-server-sentry\n"
    "\n"
    "Exit status: 0 ok, 1 failure (not found, I/O), 2 bad usage or input.\n";

static int open_catalog(wg_catalog **cat, const common_opts *o)
{
    char *dir = NULL;
    /* Reading never creates the data dir; without one the embedded catalog
     * is searched alone. */
    if (wg_datadir_resolve(&dir, o->data_dir) < 0)
        dir = NULL;
    wg_store *st = NULL;
    int rc = dir ? capcli_shared_store(&st, "catalog", dir) : 0;
    if (rc == 0)
        rc = wg_catalog_open_in(cat, st, dir);
    wg_store_free(st);
    free(dir);
    return rc;
}

/* Shared options; returns 0, or an exit code. argv[0] is the sub-command. */
static int parse_common(int argc, char **argv, common_opts *o, const char *shortopts,
                        const struct option *extra, int (*on_extra)(int, const char *, void *),
                        void *ctx, const char *cmd)
{
    struct option opts[8];
    int n = 0;
    opts[n++] = (struct option){ "data-dir", required_argument, NULL, 'D' };
    opts[n++] = (struct option){ "compact", no_argument, NULL, 'C' };
    opts[n++] = (struct option){ "json", no_argument, NULL, 'J' };
    for (int i = 0; extra && extra[i].name && n < 7; i++)
        opts[n++] = extra[i];
    opts[n] = (struct option){ 0, 0, 0, 0 };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        if (c == 'D')
            o->data_dir = optarg;
        else if (c == 'C')
            o->compact = o->json = 1;
        else if (c == 'J')
            o->json = 1;
        else if (c == '?')
            return wg_cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        else if (on_extra && on_extra(c, optarg, ctx) != 0)
            return WG_EXIT_USAGE;
    }
    return 0;
}

/* Prints v as JSON, or readably through show when one is given and --json
 * was not; takes v. */
static int print_as(json_t *v, const common_opts *o, void (*show)(const json_t *))
{
    int rc = !show || o->json ? wg_cli_print_json(v, !o->compact) : wg_cli_answer(v, 0, show);
    json_decref(v);
    return rc;
}

static int print(json_t *v, const common_opts *o)
{
    return print_as(v, o, NULL);
}

/* ---- readable forms ------------------------------------------------------- */

static void show_server_line(size_t rank, const json_t *m)
{
    printf("%zu. ", rank);
    wg_cli_show_value(stdout, json_object_get(m, "name"), 60);
    printf(" (");
    wg_cli_show_value(stdout, json_object_get(m, "id"), 60);
    printf(") - ");
    wg_cli_show_value(stdout, json_object_get(m, "category"), 30);
    printf("%s\n   ", json_is_true(json_object_get(m, "official")) ? ", official" : "");
    wg_cli_show_value(stdout, json_object_get(m, "description"), 0);
    printf("\n   install: ");
    wg_cli_show_value(stdout, json_object_get(m, "installCmd"), 0);
    printf("\n");
}

static void show_search(const json_t *j)
{
    const json_t *matches = json_object_get(j, "matches");
    const json_t *hint = json_object_get(j, "hint");
    if (!json_array_size(matches)) {
        wg_cli_show_value(stdout, hint ? hint : json_object_get(j, "message"), 0);
        printf("\n");
        return;
    }
    printf("%zu of %lld servers match \"", json_array_size(matches),
           (long long)json_integer_value(json_object_get(j, "catalogSize")));
    wg_cli_show_value(stdout, json_object_get(j, "query"), 60);
    printf("\":\n");
    size_t i;
    const json_t *m;
    json_array_foreach(matches, i, m)
        show_server_line(i + 1, m);
}

static void show_categories(const json_t *j)
{
    static const wg_cli_field cols[] = {
        { "category", "CATEGORY", WG_CLI_TEXT },
        { "count", "SERVERS", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_table(stdout, json_object_get(j, "categories"), cols, "no categories");
    printf("\n%lld servers, %lld official\n",
           (long long)json_integer_value(json_object_get(j, "totalServers")),
           (long long)json_integer_value(json_object_get(j, "officialServers")));
}

static void show_server(const json_t *j)
{
    static const wg_cli_field fields[] = {
        { "id", "Id", WG_CLI_TEXT },
        { "name", "Name", WG_CLI_TEXT },
        { "author", "Author", WG_CLI_TEXT },
        { "category", "Category", WG_CLI_TEXT },
        { "official", "Official", WG_CLI_TEXT },
        { "description", "About", WG_CLI_TEXT },
        { "capabilities", "Can", WG_CLI_TEXT },
        { "installCmd", "Install", WG_CLI_TEXT },
        { "url", "Home", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_fields(stdout, j, fields);
}

/* ---- search ------------------------------------------------------------- */

typedef struct {
    const char *category;
    long limit;
    int have_limit;
} search_opts;

static int search_extra(int c, const char *arg, void *ctx)
{
    search_opts *s = ctx;
    if (c == 'c') {
        s->category = arg;
        return 0;
    }
    char *end;
    errno = 0;
    s->limit = strtol(arg, &end, 10);
    if (errno || *end || end == arg || s->limit < 1 || s->limit > WG_CATALOG_LIMIT_MAX) {
        wg_cli_usage("catalog search", "--limit must be a whole number (1..%d), got '%s'",
                     WG_CATALOG_LIMIT_MAX, arg);
        return 1;
    }
    s->have_limit = 1;
    return 0;
}

static char *join_words(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = calloc(n, 1);
    for (int i = 0; s && i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static int sub_search(int argc, char **argv, common_opts *o)
{
    static const struct option extra[] = {
        { "category", required_argument, NULL, 'c' },
        { "limit", required_argument, NULL, 'l' },
        { 0, 0, 0, 0 },
    };
    search_opts s = { 0 };
    int rc = parse_common(argc, argv, o, "c:l:", extra, search_extra, &s, "catalog search");
    if (rc)
        return rc;
    if (optind >= argc && !s.category)   /* with --category alone, the category is listed */
        return wg_cli_usage("catalog search", "missing QUERY (what the user needs, in words)");
    if (s.category && wg_catalog_category_index(s.category) < 0)
        return wg_cli_usage("catalog search", "unknown category '%s'; see 'waggle catalog "
                            "categories'", s.category);
    char *q = join_words(argc - optind, argv + optind);
    if (!q)
        return wg_cli_fail("catalog search", "out of memory");
    json_t *args = json_pack("{s:s}", "query", q);
    free(q);
    if (!args)
        return wg_cli_usage("catalog search", "QUERY is not valid UTF-8");
    if (s.category)
        json_object_set_new(args, "category", json_string(s.category));
    if (s.have_limit)
        json_object_set_new(args, "limit", json_integer(s.limit));
    wg_catalog *cat = NULL;
    json_t *out = NULL;
    if ((rc = open_catalog(&cat, o)) == 0)
        rc = wg_catalog_find_connector(&out, cat, args);
    json_decref(args);
    wg_catalog_free(cat);
    if (rc < 0)
        return wg_cli_error("catalog search", rc);
    int empty = json_object_get(out, "error") != NULL;
    rc = print_as(out, o, show_search);
    return empty ? WG_EXIT_USAGE : rc;
}

/* ---- categories, normalize, show, export ---------------------------------- */

static int sub_categories(int argc, char **argv, common_opts *o)
{
    int rc = parse_common(argc, argv, o, "", NULL, NULL, NULL, "catalog categories");
    if (rc)
        return rc;
    if (optind < argc)
        return wg_cli_usage("catalog categories", "takes no arguments");
    wg_catalog *cat = NULL;
    json_t *out = NULL;
    if ((rc = open_catalog(&cat, o)) == 0)
        rc = wg_catalog_categories(&out, cat);
    wg_catalog_free(cat);
    return rc < 0 ? wg_cli_error("catalog categories", rc) : print_as(out, o, show_categories);
}

static int sub_normalize(int argc, char **argv, common_opts *o)
{
    int rc = parse_common(argc, argv, o, "", NULL, NULL, NULL, "catalog normalize");
    if (rc)
        return rc;
    if (optind >= argc)
        return wg_cli_usage("catalog normalize", "missing NAME");
    for (int i = optind; i < argc; i++) {
        size_t cap = strlen(argv[i]) + 1;
        char *id = malloc(cap);
        if (!id || wg_catalog_normalize_id(id, cap, argv[i]) < 0) {
            free(id);
            return wg_cli_fail("catalog normalize", "out of memory");
        }
        printf("%s\n", id);
        free(id);
    }
    return WG_EXIT_OK;
}

static int sub_show(int argc, char **argv, common_opts *o)
{
    int rc = parse_common(argc, argv, o, "", NULL, NULL, NULL, "catalog show");
    if (rc)
        return rc;
    if (optind + 1 != argc)
        return wg_cli_usage("catalog show", "expected exactly one ID");
    wg_catalog *cat = NULL;
    if ((rc = open_catalog(&cat, o)) < 0)
        return wg_cli_error("catalog show", rc);
    const wg_catalog_server *s = wg_catalog_lookup(cat, argv[optind]);
    json_t *out = NULL;
    if (s)
        rc = wg_catalog_server_json(&out, s);
    wg_catalog_free(cat);
    if (!s)
        return wg_cli_fail("catalog show", "no server with id '%s' (try 'waggle catalog "
                           "search %s')", argv[optind], argv[optind]);
    return rc < 0 ? wg_cli_error("catalog show", rc) : print_as(out, o, show_server);
}

static int sub_export(int argc, char **argv, common_opts *o)
{
    int rc = parse_common(argc, argv, o, "", NULL, NULL, NULL, "catalog export");
    if (rc)
        return rc;
    if (optind < argc)
        return wg_cli_usage("catalog export", "takes no arguments");
    wg_catalog *cat = NULL;
    json_t *out = NULL;
    if ((rc = open_catalog(&cat, o)) == 0)
        rc = wg_catalog_to_registry(&out, cat);
    wg_catalog_free(cat);
    return rc < 0 ? wg_cli_error("catalog export", rc) : print(out, o);
}

/* ---- import --------------------------------------------------------------- */

typedef struct {
    const char *category;
    int dry_run;
} import_opts;

static int import_extra(int c, const char *arg, void *ctx)
{
    import_opts *i = ctx;
    if (c == 'c')
        i->category = arg;
    else
        i->dry_run = 1;
    return 0;
}

static int do_import(const char *file, const import_opts *io, common_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    int rc = wg_cli_read_all(&text, &len, file, IMPORT_MAX);
    if (rc < 0)
        return wg_cli_error("catalog import", rc);
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!doc)
        return wg_cli_usage("catalog import", "%s:%d: not valid JSON: %s", file, jerr.line, jerr.text);
    wg_catalog *ref = NULL;
    json_t *entries = NULL;
    char *dir = NULL;
    size_t added = 0;
    wg_catalog_registry_stats st = { 0 };
    if ((rc = open_catalog(&ref, o)) == 0)
        rc = wg_catalog_from_registry_stats(&entries, &st, doc, io->category, ref);
    wg_catalog_free(ref);
    json_decref(doc);
    if (rc == 0 && io->dry_run) {
        rc = print(entries, o);
        return rc;
    }
    wg_store *shared = NULL;
    if (rc == 0)
        rc = wg_datadir_open(&dir, o->data_dir);
    if (rc == 0)
        rc = capcli_shared_store(&shared, "catalog import", dir);
    if (rc == 0)
        rc = wg_catalog_import_local_in(&added, shared, dir, entries);
    if (rc == 0) {
        if (wg_tree__shared(shared))
            printf("imported %zu server%s into the shared store (restart the replicas to serve "
                   "them):", added, added == 1 ? "" : "s");
        else
            printf("imported %zu server%s into %s/catalog.json:", added, added == 1 ? "" : "s",
                   dir);
        size_t n = json_array_size(entries), shown = n < IMPORT_LIST_MAX ? n : IMPORT_LIST_MAX;
        for (size_t i = 0; i < shown; i++)
            printf(" %s", json_string_value(json_object_get(json_array_get(entries, i), "id")));
        if (n > shown)
            printf(" ... and %zu more", n - shown);
        printf("\n");
        if (st.present || st.deleted || st.old_versions || st.renamed)
            printf("skipped %zu already in the catalog, %zu deleted, %zu older versions; "
                   "%zu renamed (id taken: owner-qualified)\n", st.present, st.deleted,
                   st.old_versions, st.renamed);
    }
    json_decref(entries);
    wg_store_free(shared);
    free(dir);
    return rc < 0 ? wg_cli_error("catalog import", rc) : WG_EXIT_OK;
}

static int sub_import(int argc, char **argv, common_opts *o)
{
    static const struct option extra[] = {
        { "category", required_argument, NULL, 'c' },
        { "dry-run", no_argument, NULL, 'n' },
        { 0, 0, 0, 0 },
    };
    import_opts io = { 0 };
    int rc = parse_common(argc, argv, o, "c:n", extra, import_extra, &io, "catalog import");
    if (rc)
        return rc;
    if (optind + 1 != argc)
        return wg_cli_usage("catalog import", "expected exactly one FILE (or - for stdin)");
    if (io.category && wg_catalog_category_index(io.category) < 0)
        return wg_cli_usage("catalog import", "unknown category '%s'", io.category);
    if (io.category)  /* store the spec's spelling */
        io.category = wg_catalog_category_name(wg_catalog_category_index(io.category));
    return do_import(argv[optind], &io, o);
}

/* ---- dispatch ------------------------------------------------------------- */

static const struct {
    const char *name;
    int (*fn)(int, char **, common_opts *);
} subs[] = {
    { "search", sub_search },
    { "categories", sub_categories },
    { "normalize", sub_normalize },
    { "show", sub_show },
    { "import", sub_import },
    { "export", sub_export },
};

int cmd_catalog(int argc, char **argv, const wg_cli *cli)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(catalog_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? WG_EXIT_USAGE : WG_EXIT_OK;
    }
    if (wg_cli_wants_help(argc, argv)) {
        fputs(catalog_help, stdout);
        return WG_EXIT_OK;
    }
    common_opts o = { cli ? cli->data_dir : NULL, 0, cli ? cli->json : 0 };
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (strcmp(argv[1], subs[i].name) == 0)
            return subs[i].fn(argc - 1, argv + 1, &o);
    return wg_cli_usage(argv[0], "unknown command '%s' (search, categories, normalize, show, "
                        "import, export)", argv[1]);
}

/* cmd_mcp.c - `waggle mcp`: waggle as an MCP server over stdio (MCP
 * 2025-11-25), for Claude Desktop, Cursor, Claude Code or any MCP client.
 * A thin face: src/mcp/ speaks the protocol, the engine decides and runs
 * every call (gate, approvals, audit). The same session is served over
 * Streamable HTTP at /mcp by `waggle serve`. Nothing but protocol messages
 * is written to stdout; notes go to stderr. */
#include "cli.h"
#include "mcp/gateway.h"
#include "mcp/gwconfig.h"
#include "mcp/stdio.h"
#include "storecli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: waggle mcp [--data-dir DIR] [--level L] [options]\n"
    "\n"
    "Serve waggle's gated tools to an MCP client over stdio (newline-delimited\n"
    "JSON-RPC, MCP revision 2025-11-25): gate_check, find_connector,\n"
    "list_connector_categories, acquire_capability, install_capability and the\n"
    "tools of every connected connector. Every call passes the gate and the audit\n"
    "log. When a call needs a person's approval and the client supports\n"
    "elicitation, the client asks the person; otherwise the call's result names\n"
    "the approval id, and `waggle approve ID` runs it.\n"
    "\n"
    "options:\n"
    "  --level L        the autonomy level of this server: normal (default),\n"
    "                   trusted, yolo (never-autopass calls ask at every level)\n"
    "  --poll-ms N      how often the tool list is checked for connectors that\n"
    "                   connected or disconnected (default 2000, 50..600000)\n"
    "  --demo           add the demo channel connectors\n"
    "  --gateway FILE   also gate the MCP servers of FILE (the Claude Desktop/Cursor\n"
    "                   mcpServers format, docs/mcp.md): each stdio server is\n"
    "                   started and supervised (restarted with backoff), its\n"
    "                   tools are listed as SERVER__TOOL, and every call passes\n"
    "                   the gate and the audit log like waggle's own tools:\n"
    "                   read-only tools run, others ask at normal and trusted\n"
    "                   and run at yolo, a shell command argument is gated like\n"
    "                   bash. env values \"vault:NAME\" come from the vault.\n"
    "                   Remote (url) servers are not supported yet.\n"
    "  --never-autopass T   tool T always waits for a person's approval, at every\n"
    "                   level (rule operator.never_autopass); repeatable, a trailing\n"
    "                   * matches a prefix, e.g. --never-autopass 'fs__*'\n"
    "  --gateway-log FILE   append the upstreams' stderr to FILE (default: dropped)\n"
    "  --check-gateway FILE   validate a gateway file (the Claude Desktop/Cursor\n"
    "                   mcpServers format, docs/mcp.md) and list its servers;\n"
    "                   env/header values are never printed\n"
    "  --allow-private-upstreams, --allow-http-upstreams,\n"
    "  --allow-privileged-db-roles   the connector policy (see waggle connectors)\n"
    "\n"
    "example (Claude Code):\n"
    "  claude mcp add waggle -- waggle mcp\n";

/* --check-gateway FILE: parse, validate, list (names and counts only). */
static int check_gateway(const char *path)
{
    wg_gw_config c;
    int rc = wg_mcp__gw_config_load(&c, path);
    if (rc < 0)
        return wg_cli_error("mcp", rc);
    for (size_t i = 0; i < c.n; i++) {
        const wg_gw_server *s = &c.servers[i];
        size_t vault = 0;
        for (size_t j = 0; j < s->npairs; j++)
            vault += (size_t)s->pairs[j].from_vault;
        if (s->command)
            printf("%s\tstdio\t%s (%zu args)\tenv %zu (%zu from the vault)\ttimeout %ld ms\n", s->name,
                   s->command, s->nargs, s->npairs, vault, s->timeout_ms);
        else
            printf("%s\thttp\t%s\theaders %zu (%zu from the vault)\ttimeout %ld ms\n", s->name, s->url,
                   s->npairs, vault, s->timeout_ms);
    }
    printf("%zu server%s: ok\n", c.n, c.n == 1 ? "" : "s");
    wg_mcp__gw_config_free(&c);
    return WG_EXIT_OK;
}

/* An upstream's state change, one line on stderr (stdout is the protocol):
 * with a timestamp, since an MCP client keeps this stream as its log. */
static void log_upstream(void *ud, const char *server, const char *line)
{
    (void)ud;
    char when[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ ", &tm);
    fprintf(stderr, "%swaggle mcp: gateway %s: %s\n", when, server, line);
}

int cmd_mcp(int argc, char **argv, const wg_cli *cli)
{
    static const struct option longs[] = {
        { "data-dir", required_argument, NULL, 'd' }, { "level", required_argument, NULL, 'l' },
        { "poll-ms", required_argument, NULL, 'p' },  { "demo", no_argument, NULL, 'D' },
        { "allow-private-upstreams", no_argument, NULL, 'P' },
        { "allow-http-upstreams", no_argument, NULL, 'W' },
        { "allow-privileged-db-roles", no_argument, NULL, 'S' },
        { "check-gateway", required_argument, NULL, 'G' },
        { "gateway", required_argument, NULL, 'g' },
        { "gateway-log", required_argument, NULL, 'L' },
        { "never-autopass", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },           { NULL, 0, NULL, 0 },
    };
    const char *data_dir = cli->data_dir, *level = NULL, *gw_check = NULL, *gw = NULL;
    const char *gw_log = NULL;
    const char *never[WG_ENGINE_NEVER_AUTOPASS_MAX + 1] = { NULL };
    size_t n_never = 0;
    storecli_options so = { .lazy = 1 };
    long poll_ms = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 'd': data_dir = optarg; break;
        case 'l': level = optarg; break;
        case 'D': so.demo = 1; break;
        case 'G': gw_check = optarg; break;
        case 'g': gw = optarg; break;
        case 'L': gw_log = optarg; break;
        case 'n':
            if (n_never == WG_ENGINE_NEVER_AUTOPASS_MAX)
                return wg_cli_usage("mcp", "at most %d --never-autopass options",
                                    WG_ENGINE_NEVER_AUTOPASS_MAX);
            never[n_never++] = optarg;
            so.never_autopass = never;
            break;
        case 'P': so.allow_private_upstreams = 1; break;
        case 'W': so.allow_http_upstreams = 1; break;
        case 'S': so.allow_privileged_db_roles = 1; break;
        case 'p': {
            char *end = NULL;
            poll_ms = strtol(optarg, &end, 10);
            if (!*optarg || *end || poll_ms < 50 || poll_ms > 600000)
                return wg_cli_usage("mcp", "--poll-ms must be 50..600000");
            break;
        }
        case 'h': fputs(usage_text, stdout); return WG_EXIT_OK;
        default: return wg_cli_usage("mcp", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return wg_cli_usage("mcp", "unexpected argument '%s'", argv[optind]);
    if (gw_check)
        return check_gateway(gw_check);
    wg_mcp_options o = WG_MCP_OPTIONS_INIT;
    if (level && wg_autonomy_parse(&o.level, level) < 0)
        return wg_cli_usage("mcp", "--level must be normal, trusted or yolo");
    storecli sc;
    int rc = storecli_open(&sc, "mcp", data_dir, &so);
    if (rc != WG_EXIT_OK)
        return rc;
    signal(SIGPIPE, SIG_IGN);     /* a client that went away is a failed write, not a death */
    wg_gateway *g = NULL;
    int log_fd = -1;
    if (gw) {
        wg_gw_config cfg;
        if ((rc = wg_mcp__gw_config_load(&cfg, gw)) < 0) {
            storecli_close(&sc);
            return wg_cli_error("mcp", rc);
        }
        if (gw_log && (log_fd = open(gw_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0)
            fprintf(stderr, "waggle mcp: --gateway-log %s: %s (upstream stderr dropped)\n", gw_log,
                    strerror(errno));
        wg_gateway_options go = { .stderr_fd = log_fd, .log = log_upstream };
        rc = wg_mcp__gateway_start(&g, sc.engine, &cfg, &go);
        wg_mcp__gw_config_free(&cfg);
        if (rc < 0) {
            if (log_fd >= 0)
                close(log_fd);
            storecli_close(&sc);
            return wg_cli_error("mcp", rc);
        }
        /* so the first tools/list already has their tools */
        wg_mcp__gateway_wait(g, 15000);
        /* a healthy one said so already (log_upstream): name the others */
        json_t *st = wg_mcp__gateway_status(g);
        size_t i;
        json_t *s;
        json_array_foreach(st, i, s)
            if (!json_is_true(json_object_get(s, "healthy")))
                fprintf(stderr, "waggle mcp: gateway %s: %s after 15 s, %lld tools%s%s\n",
                        json_string_value(json_object_get(s, "name")),
                        json_string_value(json_object_get(s, "state")),
                        (long long)json_integer_value(json_object_get(s, "tools")),
                        json_object_get(s, "lastError") ? ": " : "",
                        json_object_get(s, "lastError")
                            ? json_string_value(json_object_get(s, "lastError")) : "");
        json_decref(st);
        if (!poll_ms)
            poll_ms = 500;    /* an upstream's list_changed reaches the client soon */
    }
    o.engine = sc.engine;
    o.actor = "mcp";
    o.poll_ms = (unsigned)poll_ms;
    rc = wg_mcp__stdio_serve(&o, STDIN_FILENO, STDOUT_FILENO);
    int src = rc < 0 ? rc : 0;
    wg_mcp__gateway_free(g);
    if (log_fd >= 0)
        close(log_fd);
    rc = src;
    storecli_close(&sc);
    return rc < 0 ? wg_cli_error("mcp", rc) : WG_EXIT_OK;
}

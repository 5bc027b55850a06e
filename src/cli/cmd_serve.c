/* cmd_serve.c - `waggle serve` (also `waggled`): runs the HTTP service until
 * SIGTERM or SIGINT, then drains requests in flight and exits 0. */
#include "cli.h"
#include "logline.h"
#include "serve_config.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "waggle/server.h"
#include "waggle/types.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LIST = 32 };

static void usage(FILE *to)
{
    fprintf(to,
        "usage: waggle serve [--data-dir DIR] [--listen HOST:PORT] [--demo]\n"
        "                    [--allow-host NAME]... [--cors-origin ORIGIN]... [--threads N]\n"
        "                    [--autonomy-cap MINUTES] [--approval-ttl SECONDS]\n"
        "                    [--allow-private-upstreams] [--allow-http-upstreams]\n"
        "                    [--obsidian-root DIR]... [--allow-privileged-db-roles]\n"
        "                    [--max-connections N] [--max-connections-per-ip N]\n"
        "                    [--request-deadline SECONDS] [--idle-timeout SECONDS]\n"
        "                    [--trusted-proxy ADDR]...\n"
        "                    [--max-autonomy LEVEL] [--never-autopass TOOL]...\n"
        "                    [--gateway FILE] [--config FILE] [--log-format text|json]\n"
        "\n"
        "Runs waggled, the HTTP/JSON service (connectors, capabilities, approvals,\n"
        "tier gating, the gate) until SIGTERM or Ctrl-C. It needs no configuration:\n"
        "the store is SQLite in the data dir, and the bearer token every /api/ route\n"
        "needs is created on first start in DATA_DIR/api-token (mode 0600).\n"
        "\n"
        "options:\n"
        "  --config FILE        read options from a JSON file first (also $WAGGLE_CONFIG):\n"
        "                       keys are these option names, e.g. {\"listen\":\n"
        "                       \"0.0.0.0:8080\", \"threads\": 4, \"allow-host\": [\"a.b\"],\n"
        "                       \"demo\": true}; flags given here win (a repeatable one\n"
        "                       replaces the file's list). No secrets: the token stays in\n"
        "                       DATA_DIR/api-token or $WAGGLE_API_TOKEN.\n"
        "  --log-format F       text (default: key=value lines) or json (one object per\n"
        "                       line: ts, level, event, fields; every request's line has\n"
        "                       method, path, status, us and request_id, the id also\n"
        "                       sent back as X-Request-Id). Never a token or a body.\n"
        "  --data-dir DIR       state directory (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "  --listen HOST:PORT   address to bind (default 127.0.0.1:3333; $WAGGLE_PORT\n"
        "                       changes the port). [::1]:PORT for IPv6, port 0 = any.\n"
        "  --demo               also register the demo channel connectors\n"
        "  --allow-host NAME    accept this Host header name too (repeatable; also\n"
        "                       $WAGGLE_ALLOWED_HOSTS, comma-separated). Other names get\n"
        "                       403: this is the DNS-rebinding defence.\n"
        "  --cors-origin ORIGIN allow browser calls from this exact origin (repeatable;\n"
        "                       also $WAGGLE_CORS_ORIGINS). None by default.\n"
        "  --threads N          worker threads (default: the number of cores)\n"
        "  --autonomy-cap MIN   how far ahead an autonomy override's expiresAt may be\n"
        "                       for it to apply (default 480 = 8 h)\n"
        "  --approval-ttl SEC   how long a call answered 202 pending_approval waits for\n"
        "                       POST /api/approval/ID; after that it counts as denied,\n"
        "                       never runs, and the late answer gets 410 (default 300,\n"
        "                       1-86400)\n"
        "  --max-autonomy L     the highest autonomy level an app may request: normal,\n"
        "                       trusted or yolo (default). With trusted, a request for\n"
        "                       yolo is decided at trusted (rule autonomy.max_level).\n"
        "  --never-autopass T   tool T always waits for a person's approval, at every\n"
        "                       level (rule operator.never_autopass); repeatable, a\n"
        "                       trailing * matches a prefix, e.g.\n"
        "                       --never-autopass connector_postgres_execute\n"
        "  --gateway FILE       start and supervise the MCP servers of FILE (the\n"
        "                       mcpServers format, docs/mcp.md): their tools are\n"
        "                       SERVER__TOOL in /api/tools, /api/tools/execute and\n"
        "                       /mcp, gated and audited like every tool, and\n"
        "                       /api/capabilities/status reports their real state\n"
        "  --allow-private-upstreams\n"
        "                       let connectors reach loopback, private, link-local and\n"
        "                       other non-public addresses (refused by default, checked\n"
        "                       after DNS resolution: docs/security.md)\n"
        "  --allow-http-upstreams\n"
        "                       let connectors use plain http:// and SMTP without TLS\n"
        "                       (credentials then travel in clear text)\n"
        "  --obsidian-root DIR  an Obsidian vault connected over HTTP with the API token\n"
        "                       must be DIR or lie under it (repeatable; none by default:\n"
        "                       only vaults the operator connects, from the CLI or with\n"
        "                       the admin token, are served). /, the data dir and its\n"
        "                       parents are refused.\n"
        "  --allow-privileged-db-roles\n"
        "                       let the postgres connector use a superuser or a role\n"
        "                       that reads/writes server files or runs programs\n"
        "\n"
        "hostile clients (docs/security.md section 7):\n"
        "  --max-connections N  open connections in all (default 1000, or less when\n"
        "                       ulimit -n leaves less room; above that room: refused)\n"
        "  --max-connections-per-ip N\n"
        "                       open connections per client address, IPv6 per /64\n"
        "                       (default 64); more are closed at once\n"
        "  --request-deadline SEC  a request must arrive whole (request line to last\n"
        "                       body byte) within SEC, however steadily it trickles\n"
        "                       (default 30, 1-3600)\n"
        "  --idle-timeout SEC   close a connection silent for SEC (default 30, 1-3600)\n"
        "  --trusted-proxy ADDR an address (or ADDR/BITS) exempt from the per-address\n"
        "                       limit, e.g. the HAProxy in front of replicas\n"
        "                       (repeatable; also $WAGGLE_TRUSTED_PROXIES)\n"
        "\n"
        "environment: WAGGLE_API_TOKEN uses this token instead of DATA_DIR/api-token.\n"
        "\n"
        "example:\n"
        "  waggle serve &\n"
        "  curl -H \"Authorization: Bearer $(cat ~/.waggle/api-token)\" localhost:3333/api/tier\n");
}

/* A whole decimal number in [min, max]. */
static int number_arg(unsigned *out, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* Appends the comma-separated items of s to list. */
static void split_into(const char **list, int *n, char *s)
{
    for (char *tok = strtok(s, ","); tok && *n < MAX_LIST; tok = strtok(NULL, ","))
        if (*tok)
            list[(*n)++] = tok;
}

/* The log sink: the server's key=value lines as they are, or as JSON
 * objects (logline.h); one line each on stderr. */
static void log_stderr(void *ud, const char *line)
{
    const int *json = ud;
    if (!json || !*json) {
        fprintf(stderr, "%s\n", line);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char *text = wg_cli_log_json(line, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    fprintf(stderr, "%s\n", text ? text : "{\"level\":\"error\",\"event\":\"log\",\"msg\":\"out of memory\"}");
    free(text);
}

/* serve's own notes go through the same sink, so a JSON log stays JSON. */
__attribute__((format(printf, 2, 3)))
static void note(const int *json, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log_stderr((void *)json, line);
}

/* What the flags (and the config file) set. */
typedef struct serve_args {
    wg_server_options opt;
    const char *data_dir, *listen, *config;
    const char *hosts[MAX_LIST + 1], *origins[MAX_LIST + 1], *never[MAX_LIST + 1];
    const char *roots[MAX_LIST + 1], *proxies[MAX_LIST + 1];
    int n_hosts, n_origins, n_never, n_roots, n_proxies;
    unsigned from_file;   /* bit per repeatable flag: its list holds the file's items */
    int log_json;         /* --log-format json */
    int in_file;          /* parsing the config file's flags */
} serve_args;

static const struct option longopts[] = {
    { "data-dir", required_argument, NULL, 'd' },
    { "listen", required_argument, NULL, 'l' },
    { "demo", no_argument, NULL, 'D' },
    { "allow-host", required_argument, NULL, 'H' },
    { "cors-origin", required_argument, NULL, 'O' },
    { "threads", required_argument, NULL, 't' },
    { "autonomy-cap", required_argument, NULL, 'A' },
    { "approval-ttl", required_argument, NULL, 'T' },
    { "max-autonomy", required_argument, NULL, 'm' },
    { "never-autopass", required_argument, NULL, 'n' },
    { "allow-private-upstreams", no_argument, NULL, 'P' },
    { "allow-http-upstreams", no_argument, NULL, 'W' },
    { "obsidian-root", required_argument, NULL, 'V' },
    { "allow-privileged-db-roles", no_argument, NULL, 'S' },
    { "max-connections", required_argument, NULL, 'C' },
    { "max-connections-per-ip", required_argument, NULL, 'M' },
    { "request-deadline", required_argument, NULL, 'R' },
    { "idle-timeout", required_argument, NULL, 'I' },
    { "trusted-proxy", required_argument, NULL, 'X' },
    { "config", required_argument, NULL, 'F' },
    { "gateway", required_argument, NULL, 'G' },
    { "log-format", required_argument, NULL, 'L' },
    { NULL, 0, NULL, 0 },
};

/* A repeatable flag's item: the command line's first item of a list the
 * config file filled replaces the file's items. */
static int add_item(serve_args *a, const char **list, int *n, unsigned bit, const char *item,
                    const char *flag, const char *cmd)
{
    if (a->in_file) {
        a->from_file |= bit;
    } else if (a->from_file & bit) {
        a->from_file &= ~bit;
        *n = 0;
    }
    if (*n == MAX_LIST)
        return wg_cli_usage(cmd, "at most %d %s options", MAX_LIST, flag);
    list[(*n)++] = item;
    list[*n] = NULL;
    return 0;
}

/* Applies one parsed flag. Returns 0 or an exit code. */
static int take(serve_args *a, int c, char *optarg, const char *cmd)
{
    wg_server_options *o = &a->opt;
        switch (c) {
        case 'd': a->data_dir = optarg; break;
        case 'l': a->listen = optarg; break;
        case 'F': a->config = optarg; break;
        case 'L':
            if (strcmp(optarg, "text") && strcmp(optarg, "json"))
                return wg_cli_usage(cmd, "--log-format must be text or json");
            a->log_json = !strcmp(optarg, "json");
            break;
        case 'D': o->demo = 1; break;
        case 'G': o->gateway = optarg; break;
        case 'P': o->allow_private_upstreams = 1; break;
        case 'W': o->allow_http_upstreams = 1; break;
        case 'V': return add_item(a, a->roots, &a->n_roots, 1u << 0, optarg, "--obsidian-root", cmd);
        case 'S': o->allow_privileged_db_roles = 1; break;
        case 'H': return add_item(a, a->hosts, &a->n_hosts, 1u << 1, optarg, "--allow-host", cmd);
        case 'O': return add_item(a, a->origins, &a->n_origins, 1u << 2, optarg, "--cors-origin", cmd);
        case 't': {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > 256)
                return wg_cli_usage(cmd, "--threads must be 1-256");
            o->threads = (unsigned)t;
            break;
        }
        case 'A': {
            char *end;
            long m = strtol(optarg, &end, 10);
            if (*end || m < 1 || m > 7 * 24 * 60)
                return wg_cli_usage(cmd, "--autonomy-cap must be 1-10080 minutes");
            o->autonomy_cap_ms = (long long)m * 60000;
            break;
        }
        case 'T': {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > 86400)
                return wg_cli_usage(cmd, "--approval-ttl must be 1-86400 seconds");
            o->approval_ttl_s = (unsigned)t;
            break;
        }
        case 'm': {
            wg_autonomy level;
            if (wg_autonomy_parse(&level, optarg) < 0)
                return wg_cli_usage(cmd, "--max-autonomy must be normal, trusted or yolo");
            o->max_autonomy = optarg;
            break;
        }
        case 'n': return add_item(a, a->never, &a->n_never, 1u << 3, optarg, "--never-autopass", cmd);
        case 'C':
            if (number_arg(&o->max_connections, optarg, 1, 1000000) < 0)
                return wg_cli_usage(cmd, "--max-connections must be 1-1000000");
            break;
        case 'M':
            if (number_arg(&o->max_connections_per_ip, optarg, 1, 1000000) < 0)
                return wg_cli_usage(cmd, "--max-connections-per-ip must be 1-1000000");
            break;
        case 'R':
            if (number_arg(&o->request_deadline_s, optarg, 1, 3600) < 0)
                return wg_cli_usage(cmd, "--request-deadline must be 1-3600 seconds");
            break;
        case 'I':
            if (number_arg(&o->timeout_s, optarg, 1, 3600) < 0)
                return wg_cli_usage(cmd, "--idle-timeout must be 1-3600 seconds");
            break;
        case 'X': return add_item(a, a->proxies, &a->n_proxies, 1u << 4, optarg, "--trusted-proxy", cmd);
        default: return wg_cli_usage(cmd, "unknown option");
        }
    return 0;
}

/* Parses argv[1..] into a. A stray argument is bad usage. */
static int parse(serve_args *a, int argc, char **argv, const char *cmd)
{
    optind = 1;
    opterr = !a->in_file;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == '?')
            return wg_cli_usage(cmd, "unknown option or missing value");
        int rc = take(a, c, optarg, cmd);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return wg_cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

/* The config file's flags, then the command line's: flags win. The file
 * is --config FILE (found before the rest is parsed) or $WAGGLE_CONFIG.
 * *file_argv keeps the strings a points into (serve_config_free). */
static int parse_all(serve_args *a, int argc, char **argv, char ***file_argv, int *file_argc)
{
    const char *cmd = argv[0];
    const char *path = getenv("WAGGLE_CONFIG");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            path = argv[i + 1];
        else if (!strncmp(argv[i], "--config=", 9))
            path = argv[i] + 9;
    }
    *file_argv = NULL;
    *file_argc = 0;
    if (path && *path) {
        int rc = serve_config_argv(file_argv, file_argc, cmd, path, longopts);
        if (rc)
            return rc;
        a->in_file = 1;
        rc = parse(a, *file_argc, *file_argv, cmd);
        a->in_file = 0;
        if (rc)
            return rc;
    }
    return parse(a, argc, argv, cmd);
}

int cmd_serve(int argc, char **argv, const wg_cli *cli)
{
    if (wg_cli_wants_help(argc, argv)) {
        usage(stdout);
        return WG_EXIT_OK;
    }
    serve_args a = { .opt = WG_SERVER_OPTIONS_INIT, .data_dir = cli->data_dir };
    char **file_argv = NULL;
    int file_argc = 0;
    int prc = parse_all(&a, argc, argv, &file_argv, &file_argc);
    if (prc) {
        serve_config_free(file_argv, file_argc);
        return prc;
    }
    wg_server_options opt = a.opt;
    const char *data_dir = a.data_dir, *listen = a.listen;
    const char **hosts = a.hosts, **origins = a.origins, **never = a.never;
    const char **roots = a.roots, **proxies = a.proxies;
    int n_hosts = a.n_hosts, n_origins = a.n_origins, n_proxies = a.n_proxies;

    char listen_buf[64];
    const char *port_env = getenv("WAGGLE_PORT");
    if (!listen && port_env && *port_env) {
        snprintf(listen_buf, sizeof listen_buf, "127.0.0.1:%s", port_env);
        listen = listen_buf;
    }
    char *hosts_env = getenv("WAGGLE_ALLOWED_HOSTS") ? strdup(getenv("WAGGLE_ALLOWED_HOSTS")) : NULL;
    char *origins_env = getenv("WAGGLE_CORS_ORIGINS") ? strdup(getenv("WAGGLE_CORS_ORIGINS")) : NULL;
    char *proxies_env = getenv("WAGGLE_TRUSTED_PROXIES") ? strdup(getenv("WAGGLE_TRUSTED_PROXIES")) : NULL;
    if (hosts_env)
        split_into(hosts, &n_hosts, hosts_env);
    if (origins_env)
        split_into(origins, &n_origins, origins_env);
    if (proxies_env)
        split_into(proxies, &n_proxies, proxies_env);

    char *dir = NULL;
    int rc = wg_datadir_open(&dir, data_dir);
    if (rc < 0) {
        free(hosts_env);
        free(origins_env);
        free(proxies_env);
        serve_config_free(file_argv, file_argc);
        return wg_cli_error(argv[0], rc);
    }
    opt.data_dir = dir;
    opt.listen = listen;
    opt.api_token = getenv("WAGGLE_API_TOKEN");
    opt.allowed_hosts = hosts;
    opt.cors_origins = origins;
    opt.never_autopass = never;
    opt.obsidian_roots = roots;
    opt.trusted_proxies = proxies;
    opt.log = log_stderr;
    opt.log_ud = &a.log_json;

    /* Block the stop signals before any thread starts so that only sigwait
     * below receives them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    wg_server *srv = NULL;
    rc = wg_server_start(&srv, &opt);
    int status = WG_EXIT_OK;
    if (rc < 0) {
        status = wg_cli_error(argv[0], rc);
    } else {
        /* The dashboard's sign-in link (docs/server.md): one use, 10 min. */
        char *link = NULL;
        int have = wg_server_login_url(&link, srv) == 0;
        if (a.log_json && have) {
            /* a log is no place for a sign-in token: the page, without it */
            link[strcspn(link, "#")] = '\0';
            if (strlen(link) > 5 && !strcmp(link + strlen(link) - 5, "login"))
                link[strlen(link) - 5] = '\0';
            note(&a.log_json, "dashboard url=%s msg=\"sign in with the link that `waggle "
                 "dashboard` prints\"", link);
        } else if (a.log_json)
            note(&a.log_json, "dashboard error=\"%s\"", wg_error_last());
        else if (have)
            fprintf(stderr, "waggle: dashboard at %s (one-time link, 10 min; `waggle dashboard` "
                    "prints another)\n", link);
        else
            fprintf(stderr, "waggle: no dashboard link: %s\n", wg_error_last());
        free(link);
        int sig = 0;
        sigwait(&stop, &sig);
        if (a.log_json)
            note(&a.log_json, "stopping signal=%s", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        else
            fprintf(stderr, "waggled: %s received, finishing requests in flight\n",
                    sig == SIGTERM ? "SIGTERM" : "SIGINT");
        wg_server_stop(srv);
    }
    free(dir);
    free(hosts_env);
    free(origins_env);
    free(proxies_env);
    serve_config_free(file_argv, file_argc);
    return status;
}

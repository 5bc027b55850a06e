/* cmd_serve.c - `waggle serve` (also `waggled`): runs the HTTP service until
 * SIGTERM or SIGINT, then drains requests in flight and exits 0. */
#include "cli.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "waggle/server.h"
#include "waggle/types.h"

#include <errno.h>
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
        "\n"
        "Runs waggled, the HTTP/JSON service (connectors, capabilities, approvals,\n"
        "tier gating, the gate) until SIGTERM or Ctrl-C. It needs no configuration:\n"
        "the store is SQLite in the data dir, and the bearer token every /api/ route\n"
        "needs is created on first start in DATA_DIR/api-token (mode 0600).\n"
        "\n"
        "options:\n"
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

static void log_stderr(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "%s\n", line);
}

int cmd_serve(int argc, char **argv, const wg_cli *cli)
{
    if (wg_cli_wants_help(argc, argv)) {
        usage(stdout);
        return WG_EXIT_OK;
    }
    const char *data_dir = cli->data_dir;
    const char *listen = NULL;
    const char *hosts[MAX_LIST + 1] = { 0 };
    const char *origins[MAX_LIST + 1] = { 0 };
    const char *never[MAX_LIST + 1] = { 0 };
    const char *roots[MAX_LIST + 1] = { 0 };
    const char *proxies[MAX_LIST + 1] = { 0 };
    int n_hosts = 0, n_origins = 0, n_never = 0, n_roots = 0, n_proxies = 0;
    wg_server_options opt = WG_SERVER_OPTIONS_INIT;
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
        { NULL, 0, NULL, 0 },
    };
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': data_dir = optarg; break;
        case 'l': listen = optarg; break;
        case 'D': opt.demo = 1; break;
        case 'P': opt.allow_private_upstreams = 1; break;
        case 'W': opt.allow_http_upstreams = 1; break;
        case 'V':
            if (n_roots == MAX_LIST)
                return wg_cli_usage(argv[0], "at most %d --obsidian-root options", MAX_LIST);
            roots[n_roots++] = optarg;
            break;
        case 'S': opt.allow_privileged_db_roles = 1; break;
        case 'H': if (n_hosts < MAX_LIST) hosts[n_hosts++] = optarg; break;
        case 'O': if (n_origins < MAX_LIST) origins[n_origins++] = optarg; break;
        case 't': {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > 256)
                return wg_cli_usage(argv[0], "--threads must be 1-256");
            opt.threads = (unsigned)t;
            break;
        }
        case 'A': {
            char *end;
            long m = strtol(optarg, &end, 10);
            if (*end || m < 1 || m > 7 * 24 * 60)
                return wg_cli_usage(argv[0], "--autonomy-cap must be 1-10080 minutes");
            opt.autonomy_cap_ms = (long long)m * 60000;
            break;
        }
        case 'T': {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > 86400)
                return wg_cli_usage(argv[0], "--approval-ttl must be 1-86400 seconds");
            opt.approval_ttl_s = (unsigned)t;
            break;
        }
        case 'm': {
            wg_autonomy level;
            if (wg_autonomy_parse(&level, optarg) < 0)
                return wg_cli_usage(argv[0], "--max-autonomy must be normal, trusted or yolo");
            opt.max_autonomy = optarg;
            break;
        }
        case 'n':
            if (n_never == MAX_LIST)
                return wg_cli_usage(argv[0], "at most %d --never-autopass tools", MAX_LIST);
            never[n_never++] = optarg;
            break;
        case 'C':
            if (number_arg(&opt.max_connections, optarg, 1, 1000000) < 0)
                return wg_cli_usage(argv[0], "--max-connections must be 1-1000000");
            break;
        case 'M':
            if (number_arg(&opt.max_connections_per_ip, optarg, 1, 1000000) < 0)
                return wg_cli_usage(argv[0], "--max-connections-per-ip must be 1-1000000");
            break;
        case 'R':
            if (number_arg(&opt.request_deadline_s, optarg, 1, 3600) < 0)
                return wg_cli_usage(argv[0], "--request-deadline must be 1-3600 seconds");
            break;
        case 'I':
            if (number_arg(&opt.timeout_s, optarg, 1, 3600) < 0)
                return wg_cli_usage(argv[0], "--idle-timeout must be 1-3600 seconds");
            break;
        case 'X':
            if (n_proxies == MAX_LIST)
                return wg_cli_usage(argv[0], "at most %d --trusted-proxy", MAX_LIST);
            proxies[n_proxies++] = optarg;
            break;
        default: return wg_cli_usage(argv[0], "unknown option");
        }
    }
    if (optind < argc)
        return wg_cli_usage(argv[0], "unexpected argument '%s'", argv[optind]);

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
        if (wg_server_login_url(&link, srv) == 0)
            fprintf(stderr, "waggle: dashboard at %s (one-time link, 10 min; `waggle dashboard` "
                    "prints another)\n", link);
        else
            fprintf(stderr, "waggle: no dashboard link: %s\n", wg_error_last());
        free(link);
        int sig = 0;
        sigwait(&stop, &sig);
        fprintf(stderr, "waggled: %s received, finishing requests in flight\n",
                sig == SIGTERM ? "SIGTERM" : "SIGINT");
        wg_server_stop(srv);
    }
    free(dir);
    free(hosts_env);
    free(origins_env);
    free(proxies_env);
    return status;
}

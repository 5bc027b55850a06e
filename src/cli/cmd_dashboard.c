/* cmd_dashboard.c - `waggle dashboard`: prints a one-time login link to the
 * dashboard that `waggle serve` serves at / (docs/server.md, "The
 * dashboard"). The token goes into the store, so the running service (any
 * replica on the same store) accepts it once, within 10 minutes. */
#include "storecli.h"
#include "waggle/error.h"
#include "waggle/server.h"

#include <getopt.h>
#include <sodium.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle dashboard [--url BASE] [--data-dir DIR]\n"
        "\n"
        "Prints a one-time link that signs a browser in to the dashboard of the\n"
        "waggled running on this data dir. Open it within 10 minutes; it works once\n"
        "and gives the browser a session cookie (12 h). `waggle serve` prints one\n"
        "such link when it starts.\n"
        "\n"
        "options:\n"
        "  --url BASE       where the service is (default http://127.0.0.1:PORT with\n"
        "                   PORT $WAGGLE_PORT, else 3333)\n"
        "  --data-dir DIR   data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 ok, 1 failed, 2 bad usage\n");
}

int cmd_dashboard(int argc, char **argv, const wg_cli *cli)
{
    static const struct option longopts[] = {
        { "url", required_argument, NULL, 'u' },
        { "data-dir", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *cmd = "dashboard", *data_dir = cli->data_dir, *url = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'u': url = optarg; break;
        case 'd': data_dir = optarg; break;
        case 'h': help(); return WG_EXIT_OK;
        default: return wg_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return wg_cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    char base[96];
    if (url) {
        size_t n = strlen(url);
        if (n == 0 || n >= sizeof base ||
            (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) ||
            strpbrk(url, " \t\r\n#?"))
            return wg_cli_usage(cmd, "--url must be http(s)://HOST[:PORT], at most %zu bytes",
                                sizeof base - 1);
        snprintf(base, sizeof base, "%.*s", (int)(n - (url[n - 1] == '/')), url);
    } else {
        const char *port = getenv("WAGGLE_PORT");
        if (port && (!*port || strlen(port) > 5 || strspn(port, "0123456789") != strlen(port)))
            return wg_cli_usage(cmd, "WAGGLE_PORT must be a port number");
        snprintf(base, sizeof base, "http://127.0.0.1:%s", port ? port : "3333");
    }
    storecli s;
    storecli_options so = { .lazy = 1 };
    int rc = storecli_open(&s, cmd, data_dir, &so);
    if (rc != WG_EXIT_OK)
        return rc;
    wg_store *st = NULL;
    char *token = NULL;
    if ((rc = wg_engine_store(&st, s.engine)) < 0 || (rc = wg_server_login_token(&token, st)) < 0) {
        rc = wg_cli_error(cmd, rc);
        storecli_close(&s);
        return rc;
    }
    printf("%s/login#t=%s\n", base, token);
    sodium_memzero(token, strlen(token));
    free(token);
    storecli_close(&s);
    return WG_EXIT_OK;
}

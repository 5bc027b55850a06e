/* cmd_pool.c - `waggle pool`: the credential pool of a provider across
 * invocations (waggle/pool.h; spec §13). Keys come from the vault
 * (PROVIDER, PROVIDER-2, ...); cooldowns and the rotation position live in
 * the store, so separate invocations rotate and cool keys together. */
#include "render.h"
#include "storecli.h"
#include "waggle/error.h"
#include "waggle/pool.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle pool status PROVIDER\n"
        "       waggle pool next PROVIDER [--reveal]\n"
        "       waggle pool report PROVIDER NAME (ok|STATUS) [--retry-after SECONDS]\n"
        "                                                   [--message M]\n"
        "\n"
        "Round-robin API-key rotation with cooldowns. The keys are the vault entries\n"
        "PROVIDER, PROVIDER-2, ... PROVIDER-10 (loading stops at the first gap; add\n"
        "them with `waggle vault set`). Cooldowns after an error: 401 disables the key\n"
        "for good, 402 cools it 24 h, 429 1 h, anything else 5 min; --retry-after\n"
        "overrides the duration (at most 24 h). Cooled keys come back on their own.\n"
        "\n"
        "  status   the keys and their state (active, cooling down until a time,\n"
        "           disabled), never the key values; --json: PoolStatus {provider,\n"
        "           totalKeys, activeKeys, cooldownKeys, disabledKeys, entries:[{name,\n"
        "           status, cooldownUntil (epoch ms), lastError, successCount, errorCount}]}\n"
        "  next     prints the next available key's vault name (the key itself only\n"
        "           with --reveal); exit 1 when every key is cooling down or disabled\n"
        "  report   records a success (ok) or an HTTP error STATUS for key NAME\n"
        "\n"
        "options:\n"
        "  --reveal            print the key instead of its name\n"
        "  --retry-after S     the upstream's Retry-After, in seconds\n"
        "  --message M         error text kept as lastError (default \"HTTP STATUS\")\n"
        "  --max-keys N        how many numbered keys to load (default 10)\n"
        "  --json              answer as JSON (for scripts)\n"
        "  --data-dir DIR      data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 ok, 1 failed / no key available, 2 bad usage\n"
        "\n"
        "example:\n"
        "  echo -n sk-1 | waggle vault set openai; echo -n sk-2 | waggle vault set openai-2\n"
        "  waggle pool next openai                 # openai\n"
        "  waggle pool report openai openai 429\n"
        "  waggle pool next openai                 # openai-2\n");
}

typedef struct popts {
    int reveal, max_keys, json;
    long long retry_after;
    const char *message, *data_dir;
} popts;

static void show_status(const json_t *j)
{
    static const wg_cli_field fields[] = {
        { "provider", "Provider", WG_CLI_TEXT },
        { "totalKeys", "Keys", WG_CLI_TEXT },
        { "activeKeys", "Active", WG_CLI_TEXT },
        { "cooldownKeys", "Cooling", WG_CLI_TEXT },
        { "disabledKeys", "Disabled", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    static const wg_cli_field cols[] = {
        { "name", "NAME", WG_CLI_TEXT },
        { "status", "STATUS", WG_CLI_TEXT },
        { "cooldownUntil", "COOLS UNTIL", WG_CLI_TIME_MS },
        { "lastError", "LAST ERROR", WG_CLI_TEXT },
        { "successCount", "OK", WG_CLI_TEXT },
        { "errorCount", "ERRORS", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_fields(stdout, j, fields);
    printf("\n");
    wg_cli_show_table(stdout, json_object_get(j, "entries"), cols, "no keys");
}

static void show_report(const json_t *j)
{
    printf("%s: reported %s; %s\n", json_string_value(json_object_get(j, "name")),
           json_string_value(json_object_get(j, "reported")),
           json_is_true(json_object_get(j, "available")) ? "a key is available"
                                                         : "no key is available now");
}

static int do_status(const char *cmd, wg_pool *p, int json)
{
    json_t *s = NULL;
    int rc = wg_pool_status(&s, p);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    rc = wg_cli_answer(s, json, show_status);
    json_decref(s);
    return rc;
}

static int do_next(const char *cmd, storecli *s, const char *provider, const popts *o)
{
    const char *key = NULL, *name = NULL;
    /* revealing writes pool_key_revealed first and refuses when it cannot */
    int rc = wg_engine_pool_next(&key, &name, s->engine, provider, o->max_keys, o->reveal, "cli");
    if (rc == WG_EDENIED)
        return wg_cli_fail(cmd, "not showing the key: %s", wg_error_last());
    if (rc < 0)
        return wg_cli_fail(cmd, "%s", wg_error_last());
    printf("%s\n", o->reveal ? key : name);
    return WG_EXIT_OK;
}

static int do_report(const char *cmd, wg_pool *p, const char *name, const char *what,
                     const popts *o)
{
    const char *key = wg_pool_key_for_name(p, name);
    if (!key)
        return wg_cli_fail(cmd, "no key named %s in the %s pool", name, wg_pool_provider(p));
    int rc, avail = 1;
    if (!strcmp(what, "ok")) {
        rc = wg_pool_report_success(p, key);
        if (rc == 0)
            rc = wg_pool_has_available(p, &avail);
    } else {
        rc = wg_pool_report_error(p, key, (int)storecli_number(what), o->message,
                                  o->retry_after >= 0 ? o->retry_after * 1000 : -1, &avail);
    }
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    json_t *out = json_pack("{s:s,s:s,s:b}", "name", name, "reported", what, "available", avail);
    rc = wg_cli_answer(out, o->json, show_report);
    json_decref(out);
    return rc;
}

int cmd_pool(int argc, char **argv, const wg_cli *cli)
{
    const char *cmd = "pool";
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    static const struct option longopts[] = {
        { "reveal", no_argument, NULL, 'r' },
        { "retry-after", required_argument, NULL, 'a' },
        { "message", required_argument, NULL, 'm' },
        { "max-keys", required_argument, NULL, 'k' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    popts o = { .retry_after = -1, .data_dir = cli->data_dir, .max_keys = WG_POOL_DEFAULT_MAX_KEYS,
                .json = cli->json };
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': o.reveal = 1; break;
        case 'j': o.json = 1; break;
        case 'm': o.message = optarg; break;
        case 'D': o.data_dir = optarg; break;
        case 'a':
            if ((o.retry_after = storecli_number(optarg)) < 0)
                return wg_cli_usage(cmd, "--retry-after takes whole seconds");
            break;
        case 'k': {
            long long n = storecli_number(optarg);
            if (n < 1 || n > 1000)
                return wg_cli_usage(cmd, "--max-keys must be 1..1000");
            o.max_keys = (int)n;
            break;
        }
        default:
            return wg_cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    int npos = argc - optind;
    char **pos = argv + optind;
    static const struct { const char *action; int nargs; } actions[] = {
        { "status", 2 }, { "next", 2 }, { "report", 4 },
    };
    int known = -1;
    for (size_t i = 0; npos && i < sizeof actions / sizeof *actions; i++)
        if (!strcmp(pos[0], actions[i].action))
            known = (int)i;
    if (known < 0)
        return npos ? wg_cli_usage(cmd, "unknown action '%s' (status, next, report)", pos[0])
                    : wg_cli_usage(cmd, "missing action (status, next, report)");
    if (npos != actions[known].nargs)
        return wg_cli_usage(cmd, "%s takes %s", pos[0],
                            known == 2 ? "PROVIDER NAME (ok|STATUS)" : "one PROVIDER");
    if (known == 2 && strcmp(pos[3], "ok")) {
        long long st = storecli_number(pos[3]);
        if (st < 100 || st > 599)
            return wg_cli_usage(cmd, "the outcome must be ok or an HTTP status 100..599, not '%s'", pos[3]);
    }
    if (o.message && strlen(o.message) > 500)
        return wg_cli_usage(cmd, "--message is limited to 500 bytes");
    storecli s;
    int rc = storecli_open(&s, cmd, o.data_dir, NULL);
    if (rc != WG_EXIT_OK)
        return rc;
    wg_pool *p = NULL;   /* the engine's */
    if ((rc = wg_engine_pool(&p, s.engine, pos[1], o.max_keys)) < 0) {
        rc = wg_cli_error(cmd, rc);
    } else if (known == 0) {
        rc = do_status(cmd, p, o.json);
    } else if (wg_pool_size(p) == 0) {
        rc = wg_cli_fail(cmd, "no keys for %s: store them with `waggle vault set %s` (and %s-2, ...)",
                         pos[1], pos[1], pos[1]);
    } else {
        rc = known == 1 ? do_next(cmd, &s, pos[1], &o) : do_report(cmd, p, pos[2], pos[3], &o);
    }
    storecli_close(&s);
    return rc;
}

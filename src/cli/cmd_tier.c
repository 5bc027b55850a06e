/* cmd_tier.c - `waggle tier`: show the subscription tier, set it, start the
 * one trial, show what a tier includes (waggle/tier.h; spec §10). Every
 * change is audit-logged as tier_changed. */
#include "render.h"
#include "storecli.h"
#include "waggle/error.h"
#include "waggle/tier.h"
#include "waggle/token.h"
#include "waggle/datadir.h"

#include <getopt.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf(
        "usage: waggle tier [--json] [--data-dir DIR]\n"
        "       waggle tier set TIER [--json]\n"
        "       waggle tier start-trial [--json]\n"
        "       waggle tier capabilities [TIER] [--json]\n"
        "       waggle tier admin-token\n"
        "\n"
        "The tier (TRIAL, FREE, PRO, TEAMS, ENTERPRISE) lives in DATA_DIR/config.json\n"
        "(`tier`, `trialStartedAt`). A missing or unknown tier is FREE; the legacy names\n"
        "solo, basic, business are accepted. TRIAL satisfies every tier for 15 days,\n"
        "then counts as FREE; a trial start in the future is invalid (FREE).\n"
        "\n"
        "  (no action)     the tier, the effective tier and the trial's days; with\n"
        "                  --json {tier, effectiveTier, trialStartedAt,\n"
        "                  trialDaysRemaining, trialExpired}\n"
        "  set TIER        writes the tier (audit: tier_changed); prints the new status\n"
        "  start-trial     starts the 15-day trial; refused when one was started before\n"
        "  capabilities    what TIER includes (default: the effective tier): its\n"
        "                  connector and workspace limits and features\n"
        "  admin-token     prints DATA_DIR/admin-token (created 0600 when missing);\n"
        "                  the service requires it for PATCH /api/tier\n"
        "\n"
        "options:\n"
        "  --json           answer as JSON (for scripts)\n"
        "  --data-dir DIR   data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "exit status: 0 ok, 1 failed (e.g. TRIAL_ALREADY_STARTED), 2 bad usage or tier\n"
        "\n"
        "example:\n"
        "  waggle tier set pro && waggle tier\n");
}

static void show_status(const json_t *j)
{
    static const wg_cli_field fields[] = {
        { "tier", "Tier", WG_CLI_TEXT },
        { "effectiveTier", "Effective tier", WG_CLI_TEXT },
        { "trialStartedAt", "Trial started", WG_CLI_TEXT },
        { "trialDaysRemaining", "Trial days left", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_fields(stdout, j, fields);
}

/* Features a tier includes, then those it does not, by name. */
static void show_features(const json_t *features, int included)
{
    const char *name;
    const json_t *on;
    int n = 0;
    printf("%s", included ? "Includes:        " : "Needs upgrade:   ");
    json_object_foreach((json_t *)features, name, on)
        if (json_is_true(on) == included)
            printf("%s%s", n++ ? ", " : "", name);
    printf("%s\n", n ? "" : "-");
}

static void show_capabilities(const json_t *j)
{
    static const wg_cli_field fields[] = {
        { "tier", "Tier", WG_CLI_TEXT },
        { "connectorLimit", "Connector limit", WG_CLI_LIMIT },
        { "workspaceLimit", "Workspace limit", WG_CLI_LIMIT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_fields(stdout, j, fields);
    const json_t *features = json_object_get(j, "features");
    show_features(features, 1);
    show_features(features, 0);
}

/* Through the engine: the data dir's config.json, or the shared store when
 * WAGGLE_DATABASE_URL points at the replicas' PostgreSQL. */
static int print_status(wg_engine *e, int json)
{
    wg_tier_status st;
    int rc0 = wg_engine_tier_get(&st, e);
    if (rc0 < 0)
        return wg_cli_error("tier", rc0);
    json_t *j = wg_tier_status_json(&st);
    int rc = wg_cli_answer(j, json, show_status);
    json_decref(j);
    return rc;
}

static int do_admin_token(const char *cmd, const char *data_dir)
{
    char *dir = NULL, *path = NULL, *tok = NULL;
    int rc = wg_datadir_open(&dir, data_dir);
    if (rc == 0)
        rc = wg_datadir_path(&path, dir, "admin-token");
    if (rc == 0)
        rc = wg_token_load_or_create(&tok, path);
    free(dir);
    free(path);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    printf("%s\n", tok);
    sodium_memzero(tok, strlen(tok));
    free(tok);
    return WG_EXIT_OK;
}

int cmd_tier(int argc, char **argv, const wg_cli *cli)
{
    const char *cmd = "tier";
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    static const struct option longopts[] = {
        { "data-dir", required_argument, NULL, 'D' },
        { "json", no_argument, NULL, 'j' },
        { NULL, 0, NULL, 0 },
    };
    const char *data_dir = cli->data_dir;
    int json = cli->json;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (c == 'D')
            data_dir = optarg;
        else if (c == 'j')
            json = 1;
        else
            return wg_cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
    }
    int npos = argc - optind;
    const char *action = npos ? argv[optind] : NULL;
    const char *arg = npos > 1 ? argv[optind + 1] : NULL;
    wg_tier t = WG_TIER_FREE;
    static const struct { const char *action; int min, max; } actions[] = {
        { "set", 2, 2 }, { "start-trial", 1, 1 }, { "capabilities", 1, 2 }, { "admin-token", 1, 1 },
    };
    int known = action ? -1 : 99;
    for (size_t i = 0; action && i < sizeof actions / sizeof *actions; i++)
        if (!strcmp(action, actions[i].action))
            known = (int)i;
    if (known < 0)
        return wg_cli_usage(cmd, "unknown action '%s' (set, start-trial, capabilities, admin-token)", action);
    if (known != 99 && (npos < actions[known].min || npos > actions[known].max))
        return wg_cli_usage(cmd, "wrong number of arguments for %s", action);
    if (arg && wg_tier_parse(&t, arg) < 0)
        return wg_cli_usage(cmd, "Invalid tier. Must be one of: TRIAL, FREE, PRO, TEAMS, ENTERPRISE");
    if (known == 3)
        return do_admin_token(cmd, data_dir);
    storecli s;
    int rc = storecli_open(&s, cmd, data_dir, NULL);
    if (rc != WG_EXIT_OK)
        return rc;
    switch (known) {
    case 0:
        rc = wg_engine_tier_set(s.engine, t, "cli");
        rc = rc < 0 ? wg_cli_error(cmd, rc) : print_status(s.engine, json);
        break;
    case 1:
        rc = wg_engine_trial_start(s.engine, "cli");
        rc = rc < 0 ? wg_cli_fail(cmd, "%s", wg_error_last()) : print_status(s.engine, json);
        break;
    case 2: {
        if (!arg) {
            wg_tier_status st;
            wg_engine_tier(&st, s.engine);
            t = st.effective;
        }
        json_t *j = wg_tier_capabilities_json(t);
        rc = wg_cli_answer(j, json, show_capabilities);
        json_decref(j);
        break;
    }
    default:
        rc = print_status(s.engine, json);
        break;
    }
    storecli_close(&s);
    return rc;
}

/* cmd_connectors.c - `waggle connectors`: list, probe, connect, disconnect
 * and call connectors (spec 8). A thin face over the engine
 * (waggle/engine.h): credentials go to the encrypted vault, connecting
 * takes the tier's connector slot atomically, and every call runs through
 * wg_engine_execute - the gate, the approval rows and the run. When the
 * gate asks, a person must say yes - on the terminal, or with --yes (the
 * rows are approval_requested then approval_granted or approval_denied).
 * Without a terminal and without --yes nothing runs: the call waits in the
 * store for `waggle approve ID` (or the server's POST /api/approval/ID)
 * and the command exits 3. */
#include "cli.h"
#include "connectors_oauth.h"
#include "storecli.h"
#include "waggle/error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: waggle connectors [--data-dir DIR] [--demo] COMMAND ...\n"
    "\n"
    "Connect agent tools to real services (GitHub, Slack, Jira, PostgreSQL, ...).\n"
    "Credentials are kept encrypted in the vault of the data dir.\n"
    "\n"
    "commands:\n"
    "  list                      every connector with its status and tools\n"
    "  tools                     the tool definitions of the connected connectors (and the\n"
    "                            four KVARK tools when kvark:connection is valid on TEAMS+)\n"
    "  health ID                 probe a connector (exit 1 when the probe fails)\n"
    "  connect ID [options]      store a credential read from stdin (first line)\n"
    "      --email E             account email (Jira: email:token basic auth)\n"
    "      --base-url URL        self-hosted site, e.g. https://gitlab.example.com/api/v4\n"
    "      --expires-at ISO      when the credential expires\n"
    "      --set NAME=VALUE      a connector setting (repeatable), see below\n"
    "  set ID NAME=VALUE ...     change connector settings\n"
    "  disconnect ID             delete the credential and its settings\n"
    "  oauth ID [options]        sign in with OAuth2 (PKCE): ID is a connector or a shared\n"
    "                            connection (google, microsoft); prints the address to\n"
    "                            open, takes the redirect on 127.0.0.1 and stores the tokens\n"
    "      --client-id ID        the OAuth client; its secret is read from stdin (empty\n"
    "                            line: a public client). Without it, the stored client.\n"
    "      --tenant T            Microsoft tenant (default common)\n"
    "      --scopes S            instead of the union of the connectors' scopes\n"
    "      --port N              loopback port (default: any free one)\n"
    "      --paste               also accept the redirect address pasted on stdin\n"
    "      --timeout SEC         how long to wait for the redirect (default 300)\n"
    "      --authorize-url URL, --token-url URL   endpoint overrides (stored)\n"
    "  call TOOL ARGS_JSON       run connector_<id>_<action> (or an agent tool) with JSON\n"
    "                            arguments ('-' reads them from stdin)\n"
    "      --level L             autonomy: normal (default), trusted, yolo\n"
    "      --yes                 approve the call if the gate asks (you are the human)\n"
    "\n"
    "settings: email: smtp_url (smtps://host:465; without it email uses SendGrid),\n"
    "from_email, from_name, max_daily (1-1000000, default 100); postgres:\n"
    "statement_timeout_ms (100-600000). A bad value is refused (exit 2).\n"
    "\n"
    "options: --demo adds the demo channel connectors (slack-mock, teams-mock,\n"
    "discord-mock); --json prints JSON (list, health); --allow-private-upstreams\n"
    "and --allow-http-upstreams let connectors reach loopback/private addresses\n"
    "and plain http:// (refused by default: docs/security.md);\n"
    "--allow-privileged-db-roles lets postgres use a superuser or a role that\n"
    "reads server files or runs programs.\n"
    "\n"
    "tier: connecting one more connector than the tier allows (FREE: 5; demo\n"
    "connectors do not count, reconnecting is always allowed) fails with exit 1.\n"
    "\n"
    "exit status: 0 ok, 1 failed (also: the connector answered success:false, or\n"
    "you answered no), 2 bad usage, 3 the call needs confirmation and there was no\n"
    "one to ask: it waits, and `waggle approve ID` (printed) runs it.\n"
    "\n"
    "example:\n"
    "  printf '%s\\n' \"$GITHUB_TOKEN\" | waggle connectors connect github\n"
    "  waggle connectors call connector_github_create_issue \\\n"
    "      '{\"owner\":\"me\",\"repo\":\"hive\",\"title\":\"Bees are loose\"}'\n";

/* Everything a subcommand needs: the engine and its registry. */
typedef struct env {
    storecli sc;
    wg_registry *reg;
} env;

/* ---- subcommands ----------------------------------------------------------- */

enum { MAX_SETS = 16 };

typedef struct opts {
    int json, yes, demo, allow_private, allow_http, allow_privileged;
    const char *email, *base_url, *expires_at, *level;
    const char *sets[MAX_SETS];
    int n_sets;
    wg_cli_oauth_opts oauth;
} opts;

/* Applies NAME=VALUE settings. Returns an exit code. */
static int apply_settings(env *e, const char *id, const char *const *sets, int n)
{
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(sets[i], '=');
        if (!eq || eq == sets[i])
            return wg_cli_usage("connectors", "a setting is NAME=VALUE, got '%s'", sets[i]);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - sets[i]), sets[i]);
        int rc = wg_registry_set_setting(e->reg, id, name, eq + 1);
        if (rc < 0)
            return wg_cli_error("connectors", rc);
    }
    return WG_EXIT_OK;
}

static int do_list(env *e, const opts *o, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    json_t *defs = NULL;
    int rc = wg_registry_definitions(&defs, e->reg);
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    if (o->json) {
        json_t *out = json_pack("{s:o}", "connectors", defs);   /* print does not steal */
        rc = wg_cli_print_json(out, 1);
        json_decref(out);
        return rc;
    }
    size_t i;
    json_t *d;
    printf("%-14s %-13s %-8s %s\n", "ID", "STATUS", "ACTIONS", "NAME");
    json_array_foreach(defs, i, d)
        printf("%-14s %-13s %-8zu %s\n", json_string_value(json_object_get(d, "id")),
               json_string_value(json_object_get(d, "status")),
               json_array_size(json_object_get(d, "actions")),
               json_string_value(json_object_get(d, "name")));
    json_decref(defs);
    return WG_EXIT_OK;
}

static int do_tools(env *e, const opts *o, int argc, char **argv)
{
    (void)o;
    (void)argc;
    (void)argv;
    json_t *tools = NULL;
    /* the engine's list: the KVARK tools while registered, then connector tools */
    int rc = wg_engine_tools(&tools, NULL, e->sc.engine,
                             WG_ENGINE_TOOLS_KVARK | WG_ENGINE_TOOLS_CONNECTORS);
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    rc = wg_cli_print_json(tools, 1);
    json_decref(tools);
    return rc;
}

static int do_health(env *e, const opts *o, int argc, char **argv)
{
    if (argc != 1)
        return wg_cli_usage("connectors", "health needs one connector id");
    json_t *h = NULL;
    int rc = wg_registry_health(&h, e->reg, argv[0]);
    if (rc == WG_ENOTFOUND)
        return wg_cli_usage("connectors", "no connector '%s' (see: waggle connectors list)", argv[0]);
    if (!h)
        return wg_cli_error("connectors", rc);
    if (o->json) {
        wg_cli_print_json(h, 1);
    } else {
        const char *err = json_string_value(json_object_get(h, "error"));
        printf("%s: %s%s%s\n", argv[0], json_string_value(json_object_get(h, "status")),
               err ? " - " : "", err ? err : "");
    }
    json_decref(h);
    return rc < 0 ? WG_EXIT_FAIL : WG_EXIT_OK;
}

/* The credential: the first line of stdin, without the line end. */
static int read_token(char **out)
{
    char *all = NULL;
    size_t len = 0;
    int rc = wg_cli_read_all(&all, &len, "-", 64 * 1024);
    if (rc < 0)
        return rc;
    all[strcspn(all, "\r\n")] = 0;
    if (!*all) {
        free(all);
        return wg_error_set(WG_EINVAL, "no credential on stdin (pipe the token in)");
    }
    *out = all;
    return 0;
}

static int refused(const wg_connector_limit_decision *lim)
{
    return wg_cli_fail("connectors", "%s: %s (rule %s)\n%s Upgrade: %s", lim->denial.error,
                       lim->reason, lim->rule, lim->denial.message, lim->denial.upgrade_url);
}

static int do_connect(env *e, const opts *o, int argc, char **argv)
{
    if (argc != 1)
        return wg_cli_usage("connectors", "connect needs one connector id");
    if (!wg_registry_get(e->reg, argv[0]))
        return wg_cli_usage("connectors", "no connector '%s' (see: waggle connectors list)", argv[0]);
    /* The tier's connectorLimit first: nobody should paste a token only to
     * be refused (reference 13 item 19); wg_engine_connect decides again,
     * atomically, when it takes the slot. */
    wg_connector_limit_decision lim;
    int rc = wg_engine_connect_check(&lim, e->sc.engine, argv[0]);
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    if (!lim.allowed)
        return refused(&lim);
    if (isatty(STDIN_FILENO))
        fprintf(stderr, "paste the credential for %s, then press Enter:\n", argv[0]);
    char *token = NULL;
    rc = read_token(&token);
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    wg_connect_request req = { .token = token, .email = o->email, .base_url = o->base_url,
                               .expires_at = o->expires_at,
                               .principal = WG_PRINCIPAL_OPERATOR };   /* the CLI's user */
    rc = wg_engine_connect(&lim, e->sc.engine, argv[0], &req, "cli");
    memset(token, 0, strlen(token));
    free(token);
    if (rc == WG_ETIER)
        return refused(&lim);
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    if ((rc = apply_settings(e, argv[0], o->sets, o->n_sets)) != WG_EXIT_OK)
        return rc;
    printf("connected %s (credential stored in the vault)\n", argv[0]);
    return WG_EXIT_OK;
}

static int do_disconnect(env *e, const opts *o, int argc, char **argv)
{
    (void)o;
    if (argc != 1)
        return wg_cli_usage("connectors", "disconnect needs one connector id");
    json_t *out = NULL;
    int rc = wg_engine_disconnect(&out, e->sc.engine, argv[0], "cli");
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    printf("%s %s (%lld settings removed)\n",
           json_is_true(json_object_get(out, "disconnected")) ? "disconnected" : "was not connected:",
           argv[0], (long long)json_integer_value(json_object_get(out, "cleanedKeys")));
    json_decref(out);
    return WG_EXIT_OK;
}

static int do_oauth(env *e, const opts *o, int argc, char **argv)
{
    if (argc != 1)
        return wg_cli_usage("connectors", "oauth needs one connector or connection id");
    wg_cli_oauth_opts oo = o->oauth;
    oo.allow_private = o->allow_private;
    oo.allow_http = o->allow_http;
    if (!oo.timeout_s)
        oo.timeout_s = 300;
    wg_vault *v = NULL;
    int rc = wg_engine_vault(&v, e->sc.engine);
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    wg_connect_vault cv;
    wg_connect_vault_of(&cv, v);
    return wg_cli_connectors_oauth(e->reg, &cv, e->sc.dir, argv[0], &oo);
}

static int do_set(env *e, const opts *o, int argc, char **argv)
{
    (void)o;
    if (argc < 2)
        return wg_cli_usage("connectors", "set needs an id and NAME=VALUE settings");
    if (!wg_registry_get(e->reg, argv[0]))
        return wg_cli_usage("connectors", "no connector '%s' (see: waggle connectors list)", argv[0]);
    int rc = apply_settings(e, argv[0], (const char *const *)argv + 1, argc - 1);
    if (rc == WG_EXIT_OK)
        printf("%s: %d setting%s stored\n", argv[0], argc - 1, argc == 2 ? "" : "s");
    return rc;
}

/* The person at hand: --yes approves, a terminal asks, otherwise the call
 * waits in the store (exit 3). */
static wg_engine_answer ask(void *ud, const wg_engine_ask *a)
{
    const opts *o = ud;
    if (o->yes)
        return WG_ENGINE_ASK_APPROVE;
    if (!isatty(STDIN_FILENO))
        return WG_ENGINE_ASK_DEFER;
    FILE *tty = fopen("/dev/tty", "r+");
    if (!tty)
        return WG_ENGINE_ASK_DEFER;
    fprintf(tty, "%s needs your approval (%s, rule %s): %s\nApprove? [y/N] ", a->tool,
            wg_approval_name(a->decision->approval_class), a->decision->rule, a->decision->reason);
    fflush(tty);
    char line[16] = "";
    int ok = fgets(line, sizeof line, tty) && (line[0] == 'y' || line[0] == 'Y');
    fclose(tty);
    return ok ? WG_ENGINE_ASK_APPROVE : WG_ENGINE_ASK_DENY;
}

static int do_call(env *e, const opts *o, int argc, char **argv)
{
    if (argc != 2)
        return wg_cli_usage("connectors", "call needs TOOL and ARGS_JSON ('{}' for none)");
    const char *tool = argv[0];
    char *text = NULL;
    size_t len = 0;
    if (strcmp(argv[1], "-") == 0 && wg_cli_read_all(&text, &len, "-", 1 << 20) < 0)
        return wg_cli_error("connectors", wg_error_last_code());
    json_error_t jerr;
    json_t *args = json_loads(text ? text : argv[1], 0, &jerr);
    free(text);
    if (!json_is_object(args)) {
        json_decref(args);
        return wg_cli_usage("connectors", "ARGS_JSON must be a JSON object: %s",
                            args ? "not an object" : jerr.text);
    }
    /* --level is the operator's own standing choice: it needs no expiry */
    wg_autonomy_request autonomy = WG_AUTONOMY_REQUEST_INIT;
    autonomy.standing = 1;
    if (o->level && wg_autonomy_parse(&autonomy.level, o->level) < 0) {
        json_decref(args);
        return wg_cli_usage("connectors", "--level must be normal, trusted or yolo");
    }
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = tool;
    call.args = args;
    wg_engine_ctx ctx = WG_ENGINE_CTX_INIT;
    ctx.actor = "cli";
    ctx.ask = ask;
    ctx.ask_ud = (void *)o;
    wg_engine_outcome out;
    int rc = wg_engine_execute(e->sc.engine, &call, &autonomy, &ctx, &out);
    json_decref(args);
    if (rc == WG_ENOTFOUND)   /* the engine says why: unknown, or KVARK not registered */
        return wg_cli_usage("connectors", "%s", wg_error_last());
    if (rc < 0)
        return wg_cli_error("connectors", rc);
    const wg_gate_decision *d = &out.decision;
    if (out.status == WG_ENGINE_PENDING) {
        char when[WG_TIME_ISO_MAX];
        wg_time_format_iso(when, out.expires_ms);
        fprintf(stderr, "waggle connectors: %s needs confirmation (%s, rule %s): %s\n"
                "no terminal to ask on: it waits until %s for\n  waggle approve %s\n"
                "(or pass --yes to approve it yourself)\n", tool,
                wg_approval_name(d->approval_class), d->rule, d->reason, when, out.approval_id);
        return WG_EXIT_CONFIRM;
    }
    if (out.status != WG_ENGINE_RAN) {
        fprintf(stderr, "waggle connectors: %s was not approved (%s, rule %s): %s\n", tool,
                wg_approval_name(d->approval_class), d->rule, d->reason);
        return WG_EXIT_FAIL;
    }
    int ok = json_is_true(json_object_get(out.result, "success"));
    wg_cli_print_json(out.result, 1);
    wg_engine_outcome_clear(&out);
    return ok ? WG_EXIT_OK : WG_EXIT_FAIL;
}

typedef int (*sub_fn)(env *e, const opts *o, int argc, char **argv);

static const struct {
    const char *name;
    sub_fn fn;
} subs[] = {
    { "list", do_list },
    { "tools", do_tools },
    { "health", do_health },
    { "connect", do_connect },
    { "disconnect", do_disconnect },
    { "oauth", do_oauth },
    { "set", do_set },
    { "call", do_call },
};

int cmd_connectors(int argc, char **argv, const wg_cli *cli)
{
    static const struct option longs[] = {
        { "data-dir", required_argument, NULL, 'd' }, { "demo", no_argument, NULL, 'D' },
        { "json", no_argument, NULL, 'j' },           { "yes", no_argument, NULL, 'y' },
        { "email", required_argument, NULL, 'e' },    { "base-url", required_argument, NULL, 'b' },
        { "expires-at", required_argument, NULL, 'x' }, { "level", required_argument, NULL, 'l' },
        { "set", required_argument, NULL, 's' },
        { "allow-private-upstreams", no_argument, NULL, 'P' },
        { "allow-http-upstreams", no_argument, NULL, 'W' },
        { "allow-privileged-db-roles", no_argument, NULL, 'S' },
        { "client-id", required_argument, NULL, 'C' }, { "tenant", required_argument, NULL, 'T' },
        { "scopes", required_argument, NULL, 'O' },   { "port", required_argument, NULL, 'p' },
        { "paste", no_argument, NULL, 'a' },          { "timeout", required_argument, NULL, 't' },
        { "authorize-url", required_argument, NULL, 'A' },
        { "token-url", required_argument, NULL, 'K' },
        { "help", no_argument, NULL, 'h' },           { NULL, 0, NULL, 0 },
    };
    if (wg_cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return WG_EXIT_OK;
    }
    opts o = { 0 };
    const char *data_dir = cli->data_dir;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", longs, NULL)) != -1 || optind < argc) {
        if (c == -1) {
            /* a non-option word: keep going after it (options may follow) */
            optind++;
            continue;
        }
        switch (c) {
        case 'd': data_dir = optarg; break;
        case 'D': o.demo = 1; break;
        case 'P': o.allow_private = 1; break;
        case 'W': o.allow_http = 1; break;
        case 'S': o.allow_privileged = 1; break;
        case 'j': o.json = 1; break;
        case 'y': o.yes = 1; break;
        case 'e': o.email = optarg; break;
        case 'b': o.base_url = optarg; break;
        case 'x': o.expires_at = optarg; break;
        case 'l': o.level = optarg; break;
        case 'C': o.oauth.client_id = optarg; break;
        case 'T': o.oauth.tenant = optarg; break;
        case 'O': o.oauth.scopes = optarg; break;
        case 'A': o.oauth.authorize_url = optarg; break;
        case 'K': o.oauth.token_url = optarg; break;
        case 'a': o.oauth.paste = 1; break;
        case 'p':
        case 't': {
            char *end = NULL;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < (c == 'p' ? 0 : 1) || v > (c == 'p' ? 65535 : 3600))
                return wg_cli_usage("connectors", "--%s must be %s", c == 'p' ? "port" : "timeout",
                                    c == 'p' ? "0..65535" : "1..3600 seconds");
            if (c == 'p')
                o.oauth.port = (int)v;
            else
                o.oauth.timeout_s = (int)v;
            break;
        }
        case 's':
            if (o.n_sets == MAX_SETS)
                return wg_cli_usage("connectors", "at most %d --set options", MAX_SETS);
            o.sets[o.n_sets++] = optarg;
            break;
        default:
            return wg_cli_usage("connectors", "unknown option %s", argv[optind - 1]);
        }
    }
    /* the words, in order, without options */
    char *words[16];
    int n = 0;
    for (int i = 1; i < argc && n < 16; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            int takes = strcmp(argv[i], "--data-dir") == 0 || strcmp(argv[i], "--email") == 0 ||
                        strcmp(argv[i], "--base-url") == 0 || strcmp(argv[i], "--expires-at") == 0 ||
                        strcmp(argv[i], "--level") == 0 || strcmp(argv[i], "--set") == 0 ||
                        strcmp(argv[i], "--client-id") == 0 || strcmp(argv[i], "--tenant") == 0 ||
                        strcmp(argv[i], "--scopes") == 0 || strcmp(argv[i], "--port") == 0 ||
                        strcmp(argv[i], "--timeout") == 0 ||
                        strcmp(argv[i], "--authorize-url") == 0 ||
                        strcmp(argv[i], "--token-url") == 0;
            i += takes && !strchr(argv[i], '=');
            continue;
        }
        words[n++] = argv[i];
    }
    if (n == 0)
        return wg_cli_usage("connectors", "which command? (list, tools, health, connect, disconnect, oauth, set, call)");
    for (size_t k = 0; k < sizeof subs / sizeof *subs; k++) {
        if (strcmp(subs[k].name, words[0]))
            continue;
        env e = { 0 };
        storecli_options so = { .demo = o.demo, .lazy = 1, .allow_private_upstreams = o.allow_private,
                                 .allow_http_upstreams = o.allow_http,
                                 .allow_privileged_db_roles = o.allow_privileged };
        int rc = storecli_open(&e.sc, "connectors", data_dir, &so);
        if (rc != WG_EXIT_OK)
            return rc;
        if ((rc = wg_engine_registry(&e.reg, e.sc.engine)) < 0) {
            rc = wg_cli_error("connectors", rc);
            storecli_close(&e.sc);
            return rc;
        }
        rc = subs[k].fn(&e, &o, n - 1, words + 1);
        storecli_close(&e.sc);
        return rc;
    }
    return wg_cli_usage("connectors", "unknown command '%s'", words[0]);
}

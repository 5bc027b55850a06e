/* cmd_vault.c - `waggle vault`: set, get, list and delete encrypted vault
 * entries (waggle/vault.h). Values come from stdin, never argv (argv is
 * visible to every user through ps). */
#include "render.h"
#include "storecli.h"
#include "waggle/error.h"
#include "waggle/tier.h"

#include <getopt.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void help(void)
{
    printf(
        "usage: waggle vault set NAME [--type T] [--expires ISO8601] [--scopes a,b]  < value\n"
        "       waggle vault get NAME\n"
        "       waggle vault list [--prefix P]\n"
        "       waggle vault delete NAME [--with-subkeys]\n"
        "\n"
        "The vault keeps secrets (API keys, connector tokens) encrypted with\n"
        "XChaCha20-Poly1305 in DATA_DIR/waggle.db. The key is DATA_DIR/vault.key\n"
        "(created on first use, mode 0600), or derived with Argon2id from\n"
        "$WAGGLE_VAULT_PASSPHRASE when that is set.\n"
        "\n"
        "  set      reads the value from stdin (one trailing newline is dropped) and\n"
        "           stores it; type, expiry and scopes are sealed with it\n"
        "  get      prints the value to stdout, after its vault_read audit row is\n"
        "           written (when the row cannot be written: nothing, exit 1)\n"
        "  list     a table of names, types, expiries and scopes, never values\n"
        "           (--json: [{name, metadata, updatedAt}])\n"
        "  delete   removes NAME; with --with-subkeys and NAME connector:<id>, also\n"
        "           every connector:<id>:* entry; prints the deleted names\n"
        "\n"
        "options:\n"
        "  --type T         credential type: api_key (default), bearer, oauth2, basic\n"
        "  --expires ISO    expiry, e.g. 2026-12-31T00:00:00Z (unparseable = expired)\n"
        "  --scopes a,b     comma-separated scopes\n"
        "  --prefix P       list only names starting with P\n"
        "  --json           answer as JSON (for scripts)\n"
        "  --data-dir DIR   data dir (default $WAGGLE_DATA_DIR, else ~/.waggle)\n"
        "\n"
        "Provider pools use NAME, NAME-2, ... NAME-10 (see waggle pool --help).\n"
        "\n"
        "exit status: 0 ok, 1 failed (absent name, wrong key), 2 bad usage\n"
        "\n"
        "example:\n"
        "  echo -n ghp_xxx | waggle vault set connector:github --type bearer --scopes repo\n"
        "  waggle vault get connector:github\n");
}

typedef struct opts {
    const char *type, *expires, *scopes, *prefix, *data_dir;
    int with_subkeys, json;
} opts;

static void show_set(const json_t *j)
{
    printf("stored %s\n", json_string_value(json_object_get(j, "name")));
}

static void show_list(const json_t *j)
{
    static const wg_cli_field cols[] = {
        { "name", "NAME", WG_CLI_TEXT },
        { "metadata.credentialType", "TYPE", WG_CLI_TEXT },
        { "metadata.expiresAt", "EXPIRES", WG_CLI_TEXT },
        { "metadata.scopes", "SCOPES", WG_CLI_TEXT },
        { "updatedAt", "UPDATED", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_table(stdout, j, cols, "no entries");
}

static void show_deleted(const json_t *j)
{
    size_t i;
    const json_t *name;
    json_array_foreach(json_object_get(j, "deleted"), i, name) {
        printf("deleted ");
        wg_cli_show_value(stdout, name, 0);
        printf("\n");
    }
}

static json_t *split_scopes(const char *s)
{
    json_t *a = json_array();
    const char *p = s;
    while (a && *p) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n)
            json_array_append_new(a, json_stringn(p, n));
        p += n + (c ? 1 : 0);
    }
    return a;
}

static int do_set(const char *cmd, storecli *s, const char *name, const opts *o)
{
    char *val = NULL;
    size_t len = 0;
    if (isatty(STDIN_FILENO))
        fprintf(stderr, "waggle vault: type the value for %s, then Ctrl-D "
                        "(it is read from stdin, never from the command line)\n", name);
    int rc = wg_cli_read_all(&val, &len, "-", 1 << 20);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    if (len && val[len - 1] == '\n')
        val[--len] = '\0';
    if (len && val[len - 1] == '\r')
        val[--len] = '\0';
    if (!len) {
        free(val);
        return wg_cli_usage(cmd, "no value on stdin (pipe it: echo -n VALUE | waggle vault set NAME)");
    }
    json_t *meta = json_pack("{s:s}", "credentialType", o->type ? o->type : "api_key");
    if (o->expires)
        json_object_set_new(meta, "expiresAt", json_string(o->expires));
    if (o->scopes)
        json_object_set_new(meta, "scopes", split_scopes(o->scopes));
    rc = wg_engine_vault_set(s->engine, name, val, len, meta, "cli");
    sodium_memzero(val, len);
    free(val);
    json_decref(meta);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    json_t *out = json_pack("{s:b,s:s}", "success", 1, "name", name);
    rc = wg_cli_answer(out, o->json, show_set);
    json_decref(out);
    return rc;
}

static int do_get(const char *cmd, storecli *s, const char *name)
{
    wg_vault_entry *e = NULL;
    /* The engine writes the vault_read row first and hands nothing out
     * when it cannot (fail closed, as the server does). */
    int rc = wg_engine_vault_get(&e, s->engine, name, "cli");
    if (rc == WG_EDENIED)
        return wg_cli_fail(cmd, "not showing the value: %s", wg_error_last());
    if (rc < 0)
        return rc == WG_EINVAL ? wg_cli_error(cmd, rc) : wg_cli_fail(cmd, "%s", wg_error_last());
    fwrite(e->value, 1, e->value_len, stdout);
    if (isatty(STDOUT_FILENO))
        fputc('\n', stdout);
    wg_vault_entry_free(e);
    return WG_EXIT_OK;
}

static int do_list(const char *cmd, storecli *s, const char *prefix, int json)
{
    wg_vault_entry *list = NULL;
    size_t n = 0;
    int rc = wg_vault_list(&list, &n, s->vault, prefix);
    if (rc < 0)
        return wg_cli_error(cmd, rc);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_pack("{s:s,s:O,s:s}", "name", list[i].name,
                                             "metadata", list[i].metadata, "updatedAt",
                                             list[i].updated_at));
    wg_vault_entries_free(list, n);
    rc = wg_cli_answer(arr, json, show_list);
    json_decref(arr);
    return rc;
}

static int do_delete(const char *cmd, storecli *s, const char *name, int with_subkeys, int json)
{
    json_t *deleted = NULL;
    int rc = wg_engine_vault_delete(&deleted, s->engine, name, with_subkeys, "cli");
    if (rc == WG_EINVAL)
        return wg_cli_usage(cmd, "%s", wg_error_last());
    if (rc < 0)
        return wg_cli_fail(cmd, "%s", wg_error_last());
    json_t *out = json_pack("{s:b,s:o}", "success", 1, "deleted", deleted);
    rc = wg_cli_answer(out, json, show_deleted);
    json_decref(out);
    return rc;
}

int cmd_vault(int argc, char **argv, const wg_cli *cli)
{
    const char *cmd = "vault";
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    opts o = { .data_dir = cli->data_dir, .json = cli->json };
    static const struct option longopts[] = {
        { "type", required_argument, NULL, 't' },
        { "expires", required_argument, NULL, 'e' },
        { "scopes", required_argument, NULL, 's' },
        { "prefix", required_argument, NULL, 'p' },
        { "with-subkeys", no_argument, NULL, 'w' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case 't': o.type = optarg; break;
        case 'e': o.expires = optarg; break;
        case 's': o.scopes = optarg; break;
        case 'p': o.prefix = optarg; break;
        case 'w': o.with_subkeys = 1; break;
        case 'j': o.json = 1; break;
        case 'D': o.data_dir = optarg; break;
        default:
            return wg_cli_usage(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    int npos = argc - optind;
    const char *action = npos > 0 ? argv[optind] : NULL;
    const char *name = npos > 1 ? argv[optind + 1] : NULL;
    static const struct { const char *action; int nargs; } actions[] = {
        { "set", 2 }, { "get", 2 }, { "list", 1 }, { "delete", 2 },
    };
    int known = -1;
    for (size_t i = 0; action && i < sizeof actions / sizeof *actions; i++)
        if (!strcmp(action, actions[i].action))
            known = (int)i;
    if (known < 0)
        return wg_cli_usage(cmd, action ? "unknown action '%s'" : "missing action (set, get, list, delete)%s",
                            action ? action : "");
    if (npos != actions[known].nargs)
        return wg_cli_usage(cmd, "%s takes %s", action, actions[known].nargs == 2 ? "one NAME" : "no NAME");
    if (o.type) {
        static const char *const types[] = { "api_key", "bearer", "oauth2", "basic" };
        int ok = 0;
        for (size_t i = 0; i < 4; i++)
            ok |= !strcmp(o.type, types[i]);
        if (!ok)
            return wg_cli_usage(cmd, "--type must be api_key, bearer, oauth2 or basic");
    }
    int64_t ms;
    if (o.expires && wg_time_parse_iso(&ms, o.expires) < 0)
        return wg_cli_usage(cmd, "--expires '%s' is not an ISO-8601 date (e.g. 2026-12-31T00:00:00Z)", o.expires);
    storecli s;
    int rc = storecli_open(&s, cmd, o.data_dir, NULL);
    if (rc != WG_EXIT_OK)
        return rc;
    switch (known) {
    case 0: rc = do_set(cmd, &s, name, &o); break;
    case 1: rc = do_get(cmd, &s, name); break;
    case 2: rc = do_list(cmd, &s, o.prefix, o.json); break;
    default: rc = do_delete(cmd, &s, name, o.with_subkeys, o.json); break;
    }
    storecli_close(&s);
    return rc;
}

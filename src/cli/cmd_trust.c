/* cmd_trust.c - `waggle trust`: score a skill or capability (spec 5). */
#include "cli.h"
#include "capcli.h"
#include "render.h"
#include "waggle/trust.h"
#include "waggle/skills.h"
#include "waggle/error.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { TRUST_MAX_BYTES = 4 * 1024 * 1024 };

static const char *const TYPES[] = { "skill", "plugin", "native", "mcp", "connector", "marketplace" };

static void help(void)
{
    printf(
        "usage: waggle trust [--type T] [--source S] [--declared PERMS] [--summary|--json]\n"
        "                    [FILE|-]\n"
        "\n"
        "Scores a capability's trust: source points (builtin 0, starter_pack 0,\n"
        "local_user 1, third_party_verified 2, third_party_unverified 4, unknown 5) plus\n"
        "permission points (fileSystem 1, network 1, codeExecution 2, externalServices 1,\n"
        "secrets 2, browserAutomation 1), +1 for empty content; <=2 low, <=4 medium,\n"
        "else high. Permissions are detected in the text (each with the phrase that\n"
        "triggered it) and merged with declared ones (front matter or --declared).\n"
        "Reads FILE, or standard input when FILE is '-' or absent.\n"
        "\n"
        "options:\n"
        "  --type T        skill (default), plugin, native, mcp, connector, marketplace\n"
        "  --source S      installed (default), starter-pack, user-created, native-tools,\n"
        "                  third-party-verified, third-party, marketplace, mcp; anything\n"
        "                  else counts as an unknown source\n"
        "  --declared P,P  declared permissions, e.g. network,fileSystem ('' = none)\n"
        "  --summary       print the one-paragraph summary an approval dialog shows\n"
        "  --json          the TrustAssessment as JSON {riskLevel, trustSource,\n"
        "                  permissions, approvalClass, assessmentMode, explanation,\n"
        "                  factors, evidence} (for scripts)\n"
        "\n"
        "example:\n"
        "  echo 'Run bash to deploy, use the api_key from .env' | waggle trust --summary\n");
}

/* The names of the permissions that are true in obj. */
static void show_true_keys(const char *label, const json_t *obj)
{
    const char *name;
    const json_t *v;
    int n = 0;
    printf("%s", label);
    json_object_foreach((json_t *)obj, name, v)
        if (json_is_true(v))
            printf("%s%s", n++ ? ", " : "", name);
    printf("%s\n", n ? "" : "none");
}

static void show(const json_t *j)
{
    static const wg_cli_field fields[] = {
        { "riskLevel", "Risk", WG_CLI_TEXT },
        { "approvalClass", "Approval", WG_CLI_TEXT },
        { "trustSource", "Source", WG_CLI_TEXT },
        { "assessmentMode", "Assessed by", WG_CLI_TEXT },
        { NULL, NULL, WG_CLI_TEXT },
    };
    wg_cli_show_fields(stdout, j, fields);
    /* aligned with the fields above: the widest label is "Assessed by" */
    show_true_keys("Permissions: ", json_object_get(j, "permissions"));
    const char *perm;
    const json_t *why;
    json_object_foreach(json_object_get(j, "evidence"), perm, why) {
        printf("             %s because of \"", perm);
        wg_cli_show_value(stdout, why, 60);
        printf("\"\n");
    }
    printf("Why:         ");
    wg_cli_show_value(stdout, json_object_get(j, "explanation"), 0);
    printf("\n");
}

static int parse_declared(wg_permission_set *set, const char *cmd, const char *list)
{
    set->present = 1;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return wg_cli_fail(cmd, "out of memory");
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        wg_permission p;
        if (wg_permission_parse(&p, t) < 0) {
            free(copy);
            return wg_cli_error(cmd, WG_EINVAL);
        }
        set->perms[p] = 1;
    }
    free(copy);
    return 0;
}

int cmd_trust(int argc, char **argv, const wg_cli *cli)
{
    if (wg_cli_wants_help(argc, argv)) {
        help();
        return WG_EXIT_OK;
    }
    static const struct option opts[] = {
        { "type", required_argument, NULL, 't' },
        { "source", required_argument, NULL, 's' },
        { "declared", required_argument, NULL, 'p' },
        { "summary", no_argument, NULL, 'S' },
        { "json", no_argument, NULL, 'j' },
        { "data-dir", required_argument, NULL, 'D' },
        { 0, 0, 0, 0 },
    };
    const char *type = "skill", *source = "installed";
    wg_permission_set flag_declared = { 0 };
    int summary = 0, json = cli->json, c, rc;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't': type = optarg; break;
        case 's': source = optarg; break;
        case 'S': summary = 1; break;
        case 'j': json = 1; break;
        case 'D': break;   /* accepted for symmetry; trust reads no state */
        case 'p':
            if ((rc = parse_declared(&flag_declared, argv[0], optarg)) != 0)
                return rc;
            break;
        default:
            return wg_cli_usage(argv[0], "unknown option %s", argv[optind - 1]);
        }
    }
    int known = 0;
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        known |= strcmp(TYPES[i], type) == 0;
    if (!known)
        return wg_cli_usage(argv[0], "unknown --type \"%s\" (skill, plugin, native, mcp, "
                            "connector, marketplace)", type);
    if (argc - optind > 1)
        return wg_cli_usage(argv[0], "one FILE at most");
    const char *file = optind < argc ? argv[optind] : "-";
    char *text = NULL;
    if ((rc = wg_cli_read_all(&text, NULL, file, TRUST_MAX_BYTES)) < 0)
        return wg_cli_error(argv[0], rc == WG_EIO ? WG_EINVAL : rc);

    /* Declared = front matter permissions OR --declared. */
    wg_skill_meta meta;
    wg_permission_set declared = flag_declared;
    if (wg_skill_meta_parse(&meta, text) == 0) {
        declared.present |= meta.permissions.present;
        for (int p = 0; p < WG_PERM_COUNT; p++)
            declared.perms[p] |= meta.permissions.perms[p];
        wg_skill_meta_clear(&meta);
    }
    wg_trust *t = NULL;
    wg_trust_assessment a;
    if ((rc = wg_trust_new(&t)) == 0) {
        wg_trust_input in = { type, source, text, declared.present ? &declared : NULL };
        rc = wg_trust_assess(&a, t, &in);
    }
    wg_trust_free(t);
    free(text);
    if (rc < 0)
        return wg_cli_error(argv[0], rc);
    if (summary) {
        char *s = NULL;
        if (wg_trust_format_summary(&s, &a) < 0)
            return wg_cli_error(argv[0], WG_ENOMEM);
        printf("%s\n", s);
        free(s);
        return WG_EXIT_OK;
    }
    json_t *j = wg_trust_assessment_json(&a);
    rc = wg_cli_answer(j, json, show);
    json_decref(j);
    return rc;
}

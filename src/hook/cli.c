/* cli.c - argv of the hook faces (cli.h): options, stdin, the answer. */
#include "hook/cli.h"
#include "hook/protocol.h"
#include "hook/settings.h"
#include "waggle/error.h"
#include "waggle/version.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static void help(FILE *to)
{
    fprintf(to,
        "usage: waggle-hook claude-code|codex|gemini [OPTIONS] < hook-input.json\n"
        "       waggle-hook install claude-code [--project|--user] [--dir D] [--command CMD]\n"
        "                                        [--level L]\n"
        "\n"
        "Answers one coding agent's pre-tool-use hook: allow, ask or deny, with\n"
        "waggle's rule and reason (Claude Code PreToolUse, Codex PreToolUse,\n"
        "Gemini CLI BeforeTool). Malformed input is denied (exit 2, reason on\n"
        "stderr). Reads no data dir: nothing but the gate runs.\n"
        "\n"
        "options:\n"
        "  --level L                normal, trusted or yolo (default $WAGGLE_AUTONOMY,\n"
        "                           else normal)\n"
        "  --unknown-tools ask|allow  a tool waggle does not know (default ask)\n"
        "  --never-autopass deny|ask  a never-autopass call (default deny, at every level)\n"
        "  --allow-as allow|defer   answer a call waggle lets pass with \"allow\" (default)\n"
        "                           or with no decision (the agent's own rules apply)\n"
        "  --ask-as deny|defer      Codex only (its hooks cannot ask): deny (default) or\n"
        "                           leave the call to Codex's own approval policy\n"
        "\n"
        "install claude-code merges the hook entry into .claude/settings.json of the\n"
        "project (--project, default: --dir or the current dir) or of the user\n"
        "(--user: ~/.claude/settings.json); it backs the old file up, never adds the\n"
        "entry twice and refuses a malformed file.\n"
        "\n"
        "exit status: 0 answered (the decision is in the JSON), 1 install failed,\n"
        "             2 bad usage or malformed input (denied)\n");
}

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "waggle hook: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see waggle-hook --help)\n");
    return EXIT_USAGE;
}

/* Reads stdin, at most WG_HOOK_INPUT_MAX + 1 bytes (so "too big" is seen). */
static char *read_stdin(size_t *len, int *err)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    *err = 0;
    if (!buf) {
        *err = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            if (cap > WG_HOOK_INPUT_MAX)
                break;
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                *err = ENOMEM;
                free(buf);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(STDIN_FILENO, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *err = errno;
            free(buf);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *len = n;
    return buf;
}

static int deny_exit(const char *why)
{
    fprintf(stderr, "waggle hook: denied: %s\n", why);
    return EXIT_USAGE;
}

static int answer(wg_agent agent, int argc, char **argv)
{
    static const struct option opts[] = {
        { "level", required_argument, NULL, 'l' },
        { "unknown-tools", required_argument, NULL, 'u' },
        { "never-autopass", required_argument, NULL, 'n' },
        { "allow-as", required_argument, NULL, 'a' },
        { "ask-as", required_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, 0 };
    o.policy.agent = agent;
    const char *level = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 'l': level = optarg; break;
        case 'u':
            if (strcmp(optarg, "ask") && strcmp(optarg, "allow"))
                return usage("--unknown-tools must be ask or allow, not '%s'", optarg);
            o.policy.unknown_allow = strcmp(optarg, "allow") == 0;
            break;
        case 'n':
            if (strcmp(optarg, "deny") && strcmp(optarg, "ask"))
                return usage("--never-autopass must be deny or ask, not '%s'", optarg);
            o.policy.critical_ask = strcmp(optarg, "ask") == 0;
            break;
        case 'a':
            if (strcmp(optarg, "allow") && strcmp(optarg, "defer"))
                return usage("--allow-as must be allow or defer, not '%s'", optarg);
            o.allow_defer = strcmp(optarg, "defer") == 0;
            break;
        case 'k':
            if (strcmp(optarg, "deny") && strcmp(optarg, "defer"))
                return usage("--ask-as must be deny or defer, not '%s'", optarg);
            o.ask_defer = strcmp(optarg, "defer") == 0;
            break;
        case 'h': help(stdout); return EXIT_OK;
        default: return usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage("unexpected argument '%s' (the hook input comes on stdin)", argv[optind]);
    /* The autonomy level is the operator's: a bad one fails closed. */
    const char *env = getenv("WAGGLE_AUTONOMY");
    const char *lv = level ? level : env && *env ? env : "normal";
    if (wg_autonomy_parse(&o.policy.level, lv) < 0) {
        if (level)
            return usage("--level must be normal, trusted or yolo, not '%s'", level);
        return deny_exit("WAGGLE_AUTONOMY must be normal, trusted or yolo");
    }
    size_t n = 0;
    int err = 0;
    char *in = read_stdin(&n, &err);
    if (!in)
        return deny_exit(err == ENOMEM ? "out of memory" : "cannot read the hook input");
    wg_gate *gate = NULL;
    if (wg_gate_new(&gate, NULL) < 0) {
        free(in);
        return deny_exit(wg_error_last());
    }
    wg_hook_reply r;
    wg_hook_respond(&r, gate, &o, in, n);
    free(in);
    wg_gate_free(gate);
    int rc = r.exit_code;
    if (r.out && (fputs(r.out, stdout) < 0 || fputc('\n', stdout) < 0 || fflush(stdout) != 0))
        rc = deny_exit("cannot write the answer");
    if (r.err[0])
        fputs(r.err, stderr);
    wg_hook_reply_clear(&r);
    return rc;
}

/* ---- install --------------------------------------------------------------------------- */

/* The command Claude Code runs: this waggle-hook, else `waggle hook`. */
static void default_command(char *out, size_t cap)
{
    char self[PATH_MAX], hook[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *prog = "waggle-hook";
    if (n > 0) {
        self[n] = '\0';
        const char *base = strrchr(self, '/');
        base = base ? base + 1 : self;
        if (strcmp(base, "waggle-hook") == 0) {
            prog = self;
        } else {
            snprintf(hook, sizeof hook, "%.*s/waggle-hook", (int)(base - self - 1), self);
            prog = access(hook, X_OK) == 0 ? hook : NULL;
        }
    }
    if (prog && !strpbrk(prog, " \t'\"\\$`"))
        snprintf(out, cap, "%s claude-code", prog);
    else if (prog)
        snprintf(out, cap, "'%s' claude-code", prog);
    else if (n > 0 && !strpbrk(self, " \t'\"\\$`"))
        snprintf(out, cap, "%s hook claude-code", self);
    else
        snprintf(out, cap, "waggle hook claude-code");
}

static int install(int argc, char **argv)
{
    static const struct option opts[] = {
        { "project", no_argument, NULL, 'p' },
        { "user", no_argument, NULL, 'u' },
        { "dir", required_argument, NULL, 'd' },
        { "command", required_argument, NULL, 'c' },
        { "level", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int user = 0, c;
    const char *dir = NULL, *command = NULL, *level = NULL;
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        help(stdout);
        return EXIT_OK;
    }
    if (argc < 2 || strcmp(argv[1], "claude-code") != 0)
        return usage("install knows claude-code only, not '%s' (Codex and Gemini CLI: see "
                     "docs/hooks.md)", argc > 1 ? argv[1] : "");
    argc--, argv++;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': user = 0; break;
        case 'u': user = 1; break;
        case 'd': dir = optarg; break;
        case 'c': command = optarg; break;
        case 'l': level = optarg; break;
        case 'h': help(stdout); return EXIT_OK;
        default: return usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage("unexpected argument '%s'", argv[optind]);
    wg_autonomy lv;
    if (level && wg_autonomy_parse(&lv, level) < 0)
        return usage("--level must be normal, trusted or yolo, not '%s'", level);
    char cmdbuf[PATH_MAX + 64], path[PATH_MAX + 64];
    if (!command) {
        default_command(cmdbuf, sizeof cmdbuf);
        if (level) {
            size_t k = strlen(cmdbuf);
            snprintf(cmdbuf + k, sizeof cmdbuf - k, " --level %s", level);
        }
        command = cmdbuf;
    }
    const char *base = user ? getenv("HOME") : dir;
    char cwd[PATH_MAX];
    if (!base && !user)
        base = getcwd(cwd, sizeof cwd);
    if (!base || !*base)
        return usage("%s", user ? "--user needs $HOME" : "cannot tell the project dir");
    if (snprintf(path, sizeof path, "%s/.claude/settings.json", base) >= (int)sizeof path)
        return usage("the path under '%s' is too long", base);
    int changed = 0;
    char backup[PATH_MAX + 64];
    int rc = wg_hook_settings_install(path, command, &changed, backup, sizeof backup);
    if (rc < 0) {
        fprintf(stderr, "waggle hook install: %s\n", wg_error_last());
        return rc == WG_EINVAL ? EXIT_USAGE : EXIT_FAIL;
    }
    if (!changed)
        printf("%s already runs: %s\n", path, command);
    else
        printf("%s now runs on every tool call: %s%s%s\n", path, command,
               backup[0] ? "\nthe old file is kept as " : "", backup);
    return EXIT_OK;
}

int wg_hook_main(int argc, char **argv)
{
    if (argc < 2) {
        help(stderr);
        return EXIT_USAGE;
    }
    const char *what = argv[1];
    if (strcmp(what, "-h") == 0 || strcmp(what, "--help") == 0) {
        help(stdout);
        return EXIT_OK;
    }
    if (strcmp(what, "-V") == 0 || strcmp(what, "--version") == 0) {
        printf("waggle-hook %s\n", wg_version());
        return EXIT_OK;
    }
    if (strcmp(what, "install") == 0)
        return install(argc - 1, argv + 1);
    wg_agent agent;
    if (wg_hook_agent_parse(&agent, what) < 0)
        return usage("unknown agent '%s' (claude-code, codex, gemini, or install)", what);
    return answer(agent, argc - 1, argv + 1);
}

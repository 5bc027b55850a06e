/* cmd_gate.c - `waggle gate`: does this tool call need a human's click?
 * (spec 7, issue #2 §4). One call from argv, or JSON lines with --batch.
 * Exit status: 0 runs without confirmation, 3 needs confirmation,
 * 2 bad usage or invalid JSON. Decisions come from the engine
 * (wg_engine_check, wg_engine_check_line): the gate with the registry's
 * declared connector risk and the trust model's install risk, opened
 * without the store; an auto-approval of a single call writes its
 * approval_auto row to the data dir, a --batch evaluation writes none.
 */
#include "cli.h"
#include "hook/decide.h"
#include "waggle/datadir.h"
#include "waggle/engine.h"
#include "waggle/error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void help(void)
{
    printf(
        "usage: waggle gate [--level normal|trusted|yolo] [--json] TOOL [ARGS_JSON|-]\n"
        "       waggle gate --batch [--level LEVEL] < calls.jsonl\n"
        "\n"
        "Decides whether an agent's tool call needs a human's confirmation at an\n"
        "autonomy level. bash commands are parsed with a shell model:\n"
        "every part of a pipeline, list, $(...), sh -c, xargs and find -exec is\n"
        "checked, and a never-autopass call (rm -rf ~, sudo, mkfs, force-push to\n"
        "main, curl | sh, ...) asks even at yolo.\n"
        "\n"
        "options:\n"
        "  --level L     normal (default), trusted or yolo\n"
        "  --json        print the decision as one JSON object\n"
        "  --batch       read one JSON object per line from stdin,\n"
        "                {\"tool\":..., \"args\":{...}, \"level\":...} (level defaults to\n"
        "                --level), and write one decision per line, in order:\n"
        "                {\"tool\",\"level\",\"needsConfirmation\",\"approvalClass\",\n"
        "                 \"critical\",\"autoApproved\",\"rule\",\"reason\"}\n"
        "                a malformed line gets {\"error\":\"...\"}; blank lines are skipped\n"
        "  --data-dir D  where an auto-approval's approval_auto audit row goes (a\n"
        "                single call at trusted or yolo; --batch writes no rows)\n"
        "  --unknown-tools ask|allow\n"
        "                a tool the gate has never heard of: needs confirmation\n"
        "                (ask, the default: rule tool.unknown) or passes (allow)\n"
        "  --agent A     read TOOL as agent A names it: claude-code, codex, gemini\n"
        "                (default: any agent's name; Bash, Write, run_shell_command,\n"
        "                mcp__server__tool, ... map to the gate's tools)\n"
        "\n"
        "ARGS_JSON is the call's arguments as a JSON object (default {}; - reads stdin).\n"
        "\n"
        "exit status: 0 runs without confirmation, 3 needs confirmation,\n"
        "             2 bad usage or invalid JSON (--batch: 0 unless reading fails)\n"
        "\n"
        "examples:\n"
        "  waggle gate bash '{\"command\":\"ls -la | wc -l\"}'\n"
        "  waggle gate --level yolo bash '{\"command\":\"env rm -rf ~/\"}'\n"
        "  waggle gate --json connector_github_create_issue\n"
        "  printf '%%s\\n' '{\"tool\":\"bash\",\"args\":{\"command\":\"sudo ls\"},\"level\":\"yolo\"}' \\\n"
        "    | waggle gate --batch\n");
}

/* ---- JSON output into a growable buffer ------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} obuf;

static void ob_grow(obuf *b, size_t need)
{
    if (b->n + need <= b->cap || b->oom)
        return;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->n + need)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return;
    }
    b->p = p;
    b->cap = cap;
}

static void ob_raw(obuf *b, const char *s, size_t n)
{
    ob_grow(b, n);
    if (b->oom)
        return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

#define OB_LIT(b, s) ob_raw((b), (s), sizeof(s) - 1)

static void ob_str(obuf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(s);
    ob_grow(b, n * 6 + 2);
    if (b->oom)
        return;
    char *o = b->p + b->n;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        size_t run = i;
        while (run < n && (unsigned char)s[run] >= 0x20 && s[run] != '"' && s[run] != '\\' &&
               s[run] != 0x7f)
            run++;
        if (run > i) {                  /* plain text: one copy */
            memcpy(o, s + i, run - i);
            o += run - i;
            i = run;
            if (i == n)
                break;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            *o++ = '\\'; *o++ = 'u'; *o++ = '0'; *o++ = '0';
            *o++ = hex[c >> 4]; *o++ = hex[c & 15];
        } else {
            *o++ = (char)c;
        }
    }
    *o++ = '"';
    b->n = (size_t)(o - b->p);
}

static void ob_bool(obuf *b, int v)
{
    if (v)
        OB_LIT(b, "true");
    else
        OB_LIT(b, "false");
}

static void ob_decision(obuf *b, const char *tool, const wg_gate_decision *d)
{
    OB_LIT(b, "{\"tool\":");
    ob_str(b, tool);
    OB_LIT(b, ",\"level\":\"");
    const char *lv = wg_autonomy_name(d->level);
    ob_raw(b, lv, strlen(lv));
    OB_LIT(b, "\",\"needsConfirmation\":");
    ob_bool(b, d->needs_confirmation);
    OB_LIT(b, ",\"approvalClass\":\"");
    const char *ac = wg_approval_name(d->approval_class);
    ob_raw(b, ac, strlen(ac));
    OB_LIT(b, "\",\"critical\":");
    ob_bool(b, d->critical);
    OB_LIT(b, ",\"autoApproved\":");
    ob_bool(b, d->auto_approved);
    OB_LIT(b, ",\"rule\":");
    ob_str(b, d->rule);
    OB_LIT(b, ",\"reason\":");
    ob_str(b, d->reason);
    OB_LIT(b, "}\n");
}

static int flush(obuf *b)
{
    if (b->oom)
        return -1;
    if (b->n && fwrite(b->p, 1, b->n, stdout) != b->n)
        return -1;
    b->n = 0;
    return 0;
}

/* ---- names the gate does not know by themselves ----------------------------- */

typedef struct {
    wg_engine *engine;
    wg_hook_policy policy;      /* agent and --unknown-tools; the level comes per call */
} gate_face;

/* An agent's name for a tool (Bash, Write, mcp__github__create_issue, ...)
 * is decided by the hook rules on the engine's gate; a name nobody knows is
 * tool.unknown unless --unknown-tools allow (issue #14 §4); an unknown tool
 * that carries a shell command (command, cmd, script) whose command is
 * never-autopass is critical at every level, allowed or not. The library and
 * HTTP keep the spec's rule (not gated); this is the CLI face's. args may be
 * NULL ({}), or a line of --batch input to read them from (line_len > 0). */
static void resolve_name(wg_gate_decision *d, const gate_face *g, const char *tool,
                         const json_t *args, const char *line, size_t line_len)
{
    if (!d->rule || strcmp(d->rule, "tool.not_gated") != 0 || wg_hook_tool_is_known_ungated(tool))
        return;
    wg_hook_policy p = g->policy;
    p.level = d->level;
    json_t *owned = NULL;
    if (line_len) {
        owned = json_loadb(line, line_len, JSON_REJECT_DUPLICATES, NULL);
        args = json_object_get(owned, "args");
    }
    const wg_gate *gate = NULL;
    char cwd[4096];
    wg_hook_verdict v;
    if (wg_engine_gate(&gate, g->engine) != 0 ||
        wg_hook_decide(&v, gate, &p, tool, json_is_object(args) ? args : NULL, NULL,
                       getcwd(cwd, sizeof cwd)) != 0)
        wg_hook_mark_unknown(d, tool);  /* cannot decide: it asks */
    else if (!(v.unknown && p.unknown_allow))
        *d = v.d;                       /* allowed unknown tools stay tool.not_gated */
    json_decref(owned);
}

/* ---- --batch ------------------------------------------------------------------ */

/* One line: its decision, or {"error":...}. */
static void batch_line(obuf *out, const gate_face *g, wg_autonomy default_level,
                       const char *line, size_t len, size_t lineno)
{
    size_t ls = 0, le = len;
    while (ls < le && (line[ls] == ' ' || line[ls] == '\t' || line[ls] == '\r'))
        ls++;
    while (le > ls && (line[le - 1] == ' ' || line[le - 1] == '\t' || line[le - 1] == '\r'))
        le--;
    if (le == ls)
        return;
    wg_gate_decision d;
    char tool[256];
    if (wg_engine_check_line(g->engine, line + ls, le - ls, default_level, tool, sizeof tool, &d) < 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "line %zu: %s", lineno, wg_error_last());
        OB_LIT(out, "{\"error\":");
        ob_str(out, msg);
        OB_LIT(out, "}\n");
    } else {
        resolve_name(&d, g, tool, NULL, line + ls, le - ls);
        ob_decision(out, tool, &d);
    }
}

enum { BATCH_LINE_MAX = 16 << 20 };   /* a longer line is answered with an error and skipped */

static void too_long(obuf *out, size_t lineno)
{
    char msg[128];
    snprintf(msg, sizeof msg, "line %zu: longer than %d bytes", lineno, BATCH_LINE_MAX);
    OB_LIT(out, "{\"error\":");
    ob_str(out, msg);
    OB_LIT(out, "}\n");
}

/* A regular file is read and answered in 64 KiB blocks. Anything else (a
 * pipe, a terminal, a socket) may be a co-process that waits for each
 * answer before it writes the next line: every line read is answered and
 * flushed before the next read can block. */
static int stdin_is_file(void)
{
    struct stat st;
    return fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
}

static int run_batch(const gate_face *g, wg_autonomy default_level, const char *cmd)
{
    int interactive = !stdin_is_file();
    obuf out = { 0 };
    size_t cap = 1 << 16, len = 0, lineno = 0;
    size_t scanned = 0;     /* buf[0, scanned) holds no newline: never searched twice */
    int skipping = 0;       /* inside a line over BATCH_LINE_MAX: drop bytes to its end */
    char *buf = malloc(cap);
    if (!buf)
        return wg_cli_fail(cmd, "out of memory");
    int rc = WG_EXIT_OK;
    for (;;) {
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                rc = wg_cli_fail(cmd, "out of memory");
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(STDIN_FILENO, buf + len, cap - len);
        if (got < 0) {
            rc = wg_cli_fail(cmd, "cannot read stdin");
            break;
        }
        int eof = got == 0;
        len += (size_t)got;
        size_t start = 0;
        for (;;) {
            char *nl = memchr(buf + scanned, '\n', len - scanned);
            if (!nl) {
                scanned = len;
                if (!eof || start == len)
                    break;
            }
            size_t end = nl ? (size_t)(nl - buf) : len;
            lineno++;
            if (skipping)
                skipping = 0;           /* the end of an over-long line, already answered */
            else if (end - start > BATCH_LINE_MAX)
                too_long(&out, lineno);
            else
                batch_line(&out, g, default_level, buf + start, end - start, lineno);
            start = scanned = nl ? end + 1 : len;
            if (out.n > (1 << 16) && flush(&out) < 0) {
                rc = wg_cli_fail(cmd, "cannot write stdout");
                goto done;
            }
        }
        if (!skipping && len - start > BATCH_LINE_MAX) {
            too_long(&out, lineno + 1);
            skipping = 1;
        }
        if (interactive && out.n && (flush(&out) < 0 || fflush(stdout) != 0)) {
            rc = wg_cli_fail(cmd, "cannot write stdout");
            break;
        }
        if (skipping)
            start = len;                /* keep nothing of it */
        memmove(buf, buf + start, len - start);
        len -= start;
        scanned -= start;
        if (eof)
            break;
    }
done:
    if (rc == WG_EXIT_OK && (flush(&out) < 0 || fflush(stdout) != 0))
        rc = wg_cli_fail(cmd, "cannot write stdout");
    free(out.p);
    free(buf);
    return rc;
}

/* ---- one call ------------------------------------------------------------------ */

static int open_engine(wg_engine **out, const char *cmd, const char *data_dir)
{
    char *dir = NULL;
    int rc = wg_datadir_resolve(&dir, data_dir);
    if (rc == 0) {
        wg_engine_options eo = WG_ENGINE_OPTIONS_INIT;
        eo.data_dir = dir;
        eo.actor = "cli";
        rc = wg_engine_open(out, &eo);   /* lazy: nothing is opened on disk yet */
    }
    free(dir);
    return rc < 0 ? wg_cli_error(cmd, rc) : WG_EXIT_OK;
}

int cmd_gate(int argc, char **argv, const wg_cli *cli)
{
    static const struct option opts[] = {
        { "level", required_argument, NULL, 'l' },
        { "json", no_argument, NULL, 'j' },
        { "batch", no_argument, NULL, 'b' },
        { "data-dir", required_argument, NULL, 'd' },
        { "unknown-tools", required_argument, NULL, 'u' },
        { "agent", required_argument, NULL, 'a' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *cmd = argv[0];
    const char *data_dir = cli->data_dir;
    wg_autonomy level = WG_AUTONOMY_NORMAL;
    int as_json = 0, batch = 0, c;
    gate_face face = { NULL, WG_HOOK_POLICY_INIT };
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+hl:", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (wg_autonomy_parse(&level, optarg) < 0)
                return wg_cli_usage(cmd, "--level must be normal, trusted or yolo, not '%s'", optarg);
            break;
        case 'j': as_json = 1; break;
        case 'b': batch = 1; break;
        case 'd': data_dir = optarg; break;
        case 'u':
            if (strcmp(optarg, "ask") != 0 && strcmp(optarg, "allow") != 0)
                return wg_cli_usage(cmd, "--unknown-tools must be ask or allow, not '%s'", optarg);
            face.policy.unknown_allow = strcmp(optarg, "allow") == 0;
            break;
        case 'a':
            if (wg_hook_agent_parse(&face.policy.agent, optarg) < 0)
                return wg_cli_usage(cmd, "--agent must be claude-code, codex or gemini, not '%s'",
                                    optarg);
            break;
        case 'h': help(); return WG_EXIT_OK;
        default:
            return wg_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (batch && optind < argc)
        return wg_cli_usage(cmd, "--batch reads stdin and takes no TOOL");
    if (!batch && (optind >= argc || optind + 2 < argc))
        return wg_cli_usage(cmd, optind >= argc ? "missing TOOL" : "too many arguments");
    wg_engine *engine = NULL;
    int rc = open_engine(&engine, cmd, data_dir);
    if (rc != WG_EXIT_OK)
        return rc;
    face.engine = engine;
    if (batch) {
        rc = run_batch(&face, level, cmd);
        wg_engine_free(engine);
        return rc;
    }
    const char *tool = argv[optind];
    const char *args = optind + 1 < argc ? argv[optind + 1] : "{}";
    char *owned = NULL;
    size_t alen = strlen(args);
    if (strcmp(args, "-") == 0) {
        if (wg_cli_read_all(&owned, &alen, "-", 64u << 20) < 0) {
            wg_engine_free(engine);
            return wg_cli_error(cmd, WG_EIO);
        }
        args = owned;
    }
    json_error_t jerr;
    json_t *parsed = json_loadb(args, alen, JSON_REJECT_DUPLICATES, &jerr);
    free(owned);
    if (!json_is_object(parsed)) {
        json_decref(parsed);
        wg_engine_free(engine);
        return wg_cli_usage(cmd, "ARGS_JSON: %s", parsed ? "must be a JSON object" : jerr.text);
    }
    /* --level is the operator's standing choice: it needs no expiry */
    wg_autonomy_request rq = WG_AUTONOMY_REQUEST_INIT;
    rq.level = level;
    rq.standing = 1;
    wg_engine_call call = WG_ENGINE_CALL_INIT;
    call.tool = tool;
    call.args = parsed;
    wg_engine_outcome o;
    rc = wg_engine_check(engine, &call, &rq, 0, &o);
    if (rc == 0)
        resolve_name(&o.decision, &face, tool, parsed, NULL, 0);
    json_decref(parsed);
    if (rc == WG_EINVAL) {
        wg_engine_free(engine);
        return wg_cli_usage(cmd, "ARGS_JSON: %s", wg_error_last());
    }
    if (rc < 0) {
        wg_engine_free(engine);
        return wg_cli_error(cmd, rc);
    }
    const wg_gate_decision *d = &o.decision;
    int written = 1;
    if (as_json) {
        obuf out = { 0 };
        ob_decision(&out, tool, d);
        written = flush(&out) == 0;
        free(out.p);
    } else {
        const char *what = d->needs_confirmation ? "needs confirmation"
                         : d->auto_approved ? "auto-approved" : "runs without confirmation";
        printf("%s at %s (approval: %s%s)\n", what, wg_autonomy_name(d->level),
               wg_approval_name(d->approval_class),
               d->critical ? "; never auto-passes" : d->auto_approved ? "; Normal would ask" : "");
        printf("rule %s: %s\n", d->rule, d->reason);
    }
    wg_engine_free(engine);
    if (!written)
        return WG_EXIT_FAIL;
    return d->needs_confirmation ? WG_EXIT_CONFIRM : WG_EXIT_OK;
}

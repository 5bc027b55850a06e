/* wrappers.c - exec wrappers (env, nice, timeout, xargs, busybox, ...) hand
 * the wrapped command back to sh_analyze_view; privilege tools are critical.
 * Each rule is reached from a row of the program table (programs.c). */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

typedef struct {
    const char *name;
    const char *optarg;
    const char *const *longarg;
    int positionals;        /* words between the options and the command */
    const char *pidopts;    /* options meaning "act on a pid, run nothing" */
} wrap_spec;

static const char *const L_nice[] = { "adjustment", NULL };
static const char *const L_timeout[] = { "signal", "kill-after", NULL };
static const char *const L_stdbuf[] = { "input", "output", "error", NULL };
static const char *const L_time[] = { "format", "output", NULL };
static const char *const L_ionice[] = { "class", "classdata", "pid", "pgid", "uid", NULL };
static const char *const L_chrt[] = { "sched-runtime", "sched-period", "sched-deadline", NULL };
static const char *const L_watch[] = { "interval", NULL };
static const char *const L_flock[] = { "timeout", "conflict-exit-code", NULL };

static const wrap_spec wraps[] = {
    { "builtin", "", NULL, 0, NULL },
    { "chrt", "TPD", L_chrt, 1, "pm" },
    { "command", "", NULL, 0, NULL },
    { "exec", "a", NULL, 0, NULL },
    { "flock", "wE", L_flock, 1, NULL },
    { "ionice", "cnpPu", L_ionice, 0, "pPu" },
    { "nice", "n", L_nice, 0, NULL },
    { "nohup", "", NULL, 0, NULL },
    { "setsid", "", NULL, 0, NULL },
    { "stdbuf", "ioe", L_stdbuf, 0, NULL },
    { "taskset", "", NULL, 1, "p" },
    { "time", "fo", L_time, 0, NULL },
    { "timeout", "sk", L_timeout, 1, NULL },
    { "unbuffer", "", NULL, 0, NULL },
    { "watch", "n", L_watch, 0, NULL },
};

void sh_rule_wrapper(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    const wrap_spec *ws = NULL;
    for (size_t k = 0; k < sizeof wraps / sizeof *wraps; k++)
        if (strcmp(wraps[k].name, p->name) == 0)
            ws = &wraps[k];
    if (!ws)
        return;
    int j = sh_skip_opts(v, v->i + 1, ws->optarg, ws->longarg);
    int watch_exec = 0;
    for (int k = v->i + 1; k < j; k++) {
        const char *t = W(k);
        if (ws->pidopts && t[0] == '-' && t[1] != '-' && strpbrk(t + 1, ws->pidopts)) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.process_control", p->name,
                       " changes a running process", NULL, v->via);
            return;
        }
        if (strcmp(p->name, "command") == 0 && (short_has(t, 'v') || short_has(t, 'V')))
            return;                     /* command -v: a lookup */
        if (strcmp(p->name, "time") == 0 && (short_has(t, 'o') || long_is(t, "output", 2)))
            sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", "time -o writes to a file",
                       NULL, NULL, v->via);
        if (strcmp(p->name, "watch") == 0 && (short_has(t, 'x') || long_is(t, "exec", 2)))
            watch_exec = 1;
    }
    if (strcmp(p->name, "flock") == 0 && j < v->end) {
        j++;                            /* the lock file */
        if (j < v->end && (strcmp(W(j), "-c") == 0 || strcmp(W(j), "--command") == 0)) {
            if (j + 1 >= v->end)
                return;
            if (FL(j + 1) & SH_W_OPAQUE) {
                sh_unseen(cx, v, "flock -c", " runs text it cannot see");
                return;
            }
            sh_run_script(cx, W(j + 1), v->c->w[j + 1].len, "inside flock -c");
            return;
        }
    } else {
        j += ws->positionals;
    }
    if (j >= v->end)
        return;
    if (strcmp(p->name, "watch") == 0 && !watch_exec) {
        size_t len;
        uint32_t mark;
        char *buf = sh_join_scratch(cx, v, j, v->end, &len, &mark);
        if (!buf) {
            sh_unseen(cx, v, "watch", " runs text it cannot see through sh -c");
            return;
        }
        sh_run_script(cx, buf, len, "inside watch");
        sh_scratch_release(cx, mark);
        return;
    }
    sh_view sub = *v;
    sub.i = j;
    sub.via = p->via;
    sh_analyze_view(cx, &sub);
}

void sh_rule_env(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const L_env[] = { "unset", "chdir", "split-string", NULL };
    int j = v->i + 1;
    while (j < v->end) {
        const char *t = W(j);
        if (strcmp(t, "--") == 0) {
            j++;
            break;
        }
        if (strcmp(t, "-") == 0) {
            j++;                        /* env - : like -i */
            continue;
        }
        int split = -1;
        const char *S = (t[0] == '-' && t[1] != '-') ? strchr(t + 1, 'S') : NULL;
        if (S && (size_t)(S - t) <= strspn(t + 1, "0iv") + 1)
            split = S[1] ? j : j + 1;   /* -S, -vS'...', -iS ... */
        else if (long_is(t, "split-string", 2))
            split = strchr(t, '=') ? j : j + 1;
        if (split >= 0) {
            if (split >= v->end)
                return;
            size_t len, off = 0;
            uint32_t mark;
            if (split == j) {
                const char *eq = t[1] == '-' ? strchr(t, '=') : NULL;
                off = eq ? (size_t)(eq - t) + 1 : (size_t)(S - t) + 1;
            }
            char *buf = (FL(split) & SH_W_OPAQUE) ? NULL
                      : sh_join_scratch(cx, v, split, v->end, &len, &mark);
            if (!buf) {
                sh_unseen(cx, v, "env -S", " runs text it cannot see");
                return;
            }
            const sh_program *sp = sh_program_lookup(buf + off, strcspn(buf + off, " \t"));
            if (v->c->piped_in && sp && sp->cls == SH_P_SHELL) {
                sh_scratch_release(cx, mark);
                sh_unseen(cx, v, "env -S", " runs a shell fed from a pipe");
                return;
            }
            sh_run_script(cx, buf + off, len - off, p->via);
            sh_scratch_release(cx, mark);
            return;
        }
        if (t[0] == '-' && t[1] != '\0') {
            int takes = (t[1] != '-' && strchr("uCP", t[strlen(t) - 1]) && strspn(t + 1, "0iv") == strlen(t) - 2) ||
                        (t[1] == '-' && !strchr(t, '=') && in_set(t + 2, L_env));
            int chdir = (t[1] == 'C') || long_is(t, "chdir", 2);
            if (chdir) {
                /* env -C DIR runs the command there: track it like cd */
                int dj = (t[1] == 'C' && t[2]) || strchr(t, '=') ? j : j + 1;
                if (dj < v->end) {
                    int cls = sh_word_target(cx, v, dj);
                    if (dj == j)
                        cls = sh_target_class(t[1] == 'C' ? t + 2 : strchr(t, '=') + 1,
                                              strlen(t[1] == 'C' ? t + 2 : strchr(t, '=') + 1), cx->cwd);
                    cx->cwd = cls == SH_T_ROOT || cls == SH_T_SYSTEM ? SH_CWD_ROOT
                            : cls == SH_T_HOME ? SH_CWD_HOME
                            : cls == SH_T_OPAQUE ? SH_CWD_OPAQUE : cx->cwd;
                }
            }
            j += takes ? 2 : 1;
            continue;
        }
        break;
    }
    while (j < v->end && sh_assignment_name(v->c, j)) {
        sh_check_assignment(cx, v, j);
        j++;
    }
    if (j >= v->end) {
        sh_env_dump(cx, v, "env", " prints the environment (tokens and keys in it)");
        return;
    }
    sh_view sub = *v;
    sub.i = j;
    sub.via = p->via;
    sh_analyze_view(cx, &sub);
}

void sh_rule_xargs(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const L_xargs[] = {
        "arg-file", "delimiter", "max-args", "max-lines", "max-procs", "max-chars",
        "process-slot-var", NULL,
    };
    int j = sh_skip_opts(v, v->i + 1, "aEdILnPs", L_xargs);
    const char *repl = NULL;
    /* xargs echo < /proc/$$/environ: the file's text becomes arguments that are printed */
    for (int k = 0; k < v->c->nr; k++)
        if (v->c->r[k].op == SH_R_IN && v->c->r[k].fd <= 0)
            sh_check_secret_path(cx, v, "xargs", v->c->text + v->c->r[k].target.off, v->c->r[k].target.len);
    for (int k = v->i + 1; k < j; k++) {
        const char *t = W(k);
        if (strcmp(t, "-a") == 0 && k + 1 < j)
            sh_check_secret_path(cx, v, "xargs -a", W(k + 1), v->c->w[k + 1].len);
        else if (strncmp(t, "--arg-file=", 11) == 0)
            sh_check_secret_path(cx, v, "xargs --arg-file", t + 11, strlen(t + 11));
        if (strcmp(t, "-I") == 0 && k + 1 < j)
            repl = W(k + 1);
        else if (strncmp(t, "-I", 2) == 0 && t[2])
            repl = t + 2;
        else if (strncmp(t, "-i", 2) == 0 || strncmp(t, "--replace", 9) == 0)
            repl = (t[1] == 'i' && t[2]) ? t + 2 : strchr(t, '=') ? strchr(t, '=') + 1 : "{}";
    }
    if (j >= v->end)
        return;                         /* default command: echo */
    sh_view sub = *v;
    sub.i = j;
    sub.hidden_args = 1;
    sub.repl = repl && *repl ? repl : "{}";
    if (v->c->piped_in && cx->feed_tree >= SH_T_SYSTEM) {
        sub.tree = 1;                   /* the files of a tree find printed */
        sub.placeholder = cx->feed_tree;
    }
    sub.via = p->via;
    sh_analyze_view(cx, &sub);
}

void sh_rule_busybox(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1;
    if (j >= v->end || W(j)[0] == '-')
        return;
    sh_view sub = *v;
    sub.i = j;
    sub.via = p->via;
    sh_analyze_view(cx, &sub);
}

void sh_rule_priv(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.privilege", p->name,
               " runs a command with elevated privileges", NULL, v->via);
}

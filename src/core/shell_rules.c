/* shell_rules.c - per-program rules of the bash gate (issue #2 §3): what a
 * program does with its arguments. Wrappers hand the wrapped command back to
 * sh_analyze_view; shells, eval and watch re-enter the parser on the script
 * they run; the destructive programs decide between risky, destructive and
 * critical from their options and targets (shell_target.c).
 *
 * Each rule is reached from one row of the program table (shell_programs.c).
 */
#include "core/shell_internal.h"
#include "core/shell_rules.h"

#include <string.h>
#include <strings.h>

#define W(i) sh_wtext(v->c, (i))
#define FL(i) (v->c->w[(i)].flags)

static int is_opt(const sh_view *v, int i)
{
    const char *t = W(i);
    return t[0] == '-' && t[1] != '\0';
}

static int short_has(const char *t, char ch)
{
    return t[0] == '-' && t[1] != '-' && strchr(t + 1, ch) != NULL;
}

/* A long option --name or --name=value whose name is a non-empty prefix of
 * full (GNU getopt accepts unambiguous abbreviations). */
static int long_is(const char *t, const char *full, size_t min)
{
    if (t[0] != '-' || t[1] != '-')
        return 0;
    const char *n = t + 2;
    size_t len = strcspn(n, "=");
    return len >= min && len <= strlen(full) && strncmp(n, full, len) == 0;
}

static int in_set(const char *s, const char *const *set)
{
    for (; set && *set; set++)
        if (strcmp(s, *set) == 0)
            return 1;
    return 0;
}

int sh_skip_opts(const sh_view *v, int j, const char *optarg, const char *const *longarg)
{
    while (j < v->end) {
        const char *t = W(j);
        if (t[0] != '-' || t[1] == '\0')
            return j;
        if (strcmp(t, "--") == 0)
            return j + 1;
        if (t[1] == '-') {
            char name[40];
            size_t len = strcspn(t + 2, "=");
            if (t[2 + len] == '=' || len >= sizeof name) {
                j++;
                continue;
            }
            memcpy(name, t + 2, len);
            name[len] = '\0';
            int takes = in_set(name, longarg);
            for (const char *const *l = longarg; !takes && l && *l; l++)
                takes = len > 0 && strncmp(*l, name, len) == 0;     /* --sig is --signal */
            j += takes ? 2 : 1;
            continue;
        }
        int skip = 1;
        for (int k = 1; t[k]; k++)
            if (optarg && strchr(optarg, t[k])) {
                if (t[k + 1] == '\0')
                    skip = 2;
                break;
            }
        j += skip;
    }
    return j < v->end ? j : v->end;     /* an option's missing argument */
}

/* Joins words [from, to) with spaces; -1 when one cannot be seen. */
static int join_words(const sh_view *v, int from, int to, char *buf, size_t cap, size_t *len)
{
    size_t k = 0;
    for (int i = from; i < to; i++) {
        if (FL(i) & (SH_W_CMDSUB | SH_W_PROCSUB | SH_W_TRUNC | SH_W_CTRL))
            return -1;
        const char *t = W(i);
        size_t n = v->c->w[i].len;
        if (k + n + 8 > cap)
            return -1;
        if (i > from)
            buf[k++] = ' ';
        for (size_t m = 0; m < n; m++) {
            if (t[m] != SH_MARK) {
                buf[k++] = t[m];
                continue;
            }
            /* ~ and $HOME are known to be the home directory; re-reading
             * them as ~ keeps that. Any other expansion is unseen text. */
            if (t[m + 1] != SH_K_HOME)
                return -1;
            buf[k++] = '~';
            m++;
        }
    }
    buf[k] = '\0';
    *len = k;
    return 0;
}

/* join_words into arena scratch sized for the words: the text, or NULL
 * when a word cannot be seen or the scratch is out (the caller fails
 * closed). Release with sh_scratch_release(cx, *mark). */
static char *join_scratch(sh_ctx *cx, const sh_view *v, int from, int to, size_t *len,
                          uint32_t *mark)
{
    size_t cap = sh_words_len(v->c, from, to) + 8;
    char *buf = sh_scratch(cx, cap, mark);
    if (buf && join_words(v, from, to, buf, cap, len) == 0)
        return buf;
    sh_scratch_release(cx, *mark);
    return NULL;
}

static void run_script(sh_ctx *cx, const char *text, size_t len, const char *via)
{
    if (sh_parse_script(cx, text, len, via) < 0)
        sh_coarse_scan(cx, text, len);
}

static const char *crit_rule(int cls)
{
    switch (cls) {
    case SH_T_ROOT: return "critical.rm_root";
    case SH_T_HOME: return "critical.rm_home";
    case SH_T_SYSTEM: return "critical.rm_system";
    default: return "critical.rm_unseen";
    }
}

static void unseen(sh_ctx *cx, const sh_view *v, const char *who, const char *what)
{
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.shell_unseen_text", who, what, NULL, v->via);
}


/* Inline code of another language (python -c, perl -e, awk, a here-doc fed
 * to an interpreter): not shell, but a never-autopass signal in it counts. */
static int code_signal(sh_ctx *cx, const sh_view *v, const char *who, const char *code, size_t n)
{
    return sh_code_scan(cx, v, who, code, n);
}

static void unsafe_opt(sh_ctx *cx, const sh_view *v, const sh_program *p, const char *opt)
{
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unsafe_option", p->name, " with ", opt, v->via);
}

static void env_dump(sh_ctx *cx, const sh_view *v, const char *who, const char *how)
{
    sh_verdict(cx, WG_SHELL_RISKY, "bash.env_dump", who, how, NULL, v->via);
}

/* ---- wrappers -------------------------------------------------------------- */

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
                unseen(cx, v, "flock -c", " runs text it cannot see");
                return;
            }
            run_script(cx, W(j + 1), v->c->w[j + 1].len, "inside flock -c");
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
        char *buf = join_scratch(cx, v, j, v->end, &len, &mark);
        if (!buf) {
            unseen(cx, v, "watch", " runs text it cannot see through sh -c");
            return;
        }
        run_script(cx, buf, len, "inside watch");
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
                      : join_scratch(cx, v, split, v->end, &len, &mark);
            if (!buf) {
                unseen(cx, v, "env -S", " runs text it cannot see");
                return;
            }
            const sh_program *sp = sh_program_lookup(buf + off, strcspn(buf + off, " \t"));
            if (v->c->piped_in && sp && sp->cls == SH_P_SHELL) {
                sh_scratch_release(cx, mark);
                unseen(cx, v, "env -S", " runs a shell fed from a pipe");
                return;
            }
            run_script(cx, buf + off, len - off, p->via);
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
        env_dump(cx, v, "env", " prints the environment (tokens and keys in it)");
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

/* ---- shells and interpreters -------------------------------------------- */

static void shell_stdin(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    const sh_cmd *c = v->c;
    for (int k = 0; k < c->nr; k++) {
        const sh_redir *r = &c->r[k];
        if (r->fd > 0)
            continue;
        if (r->op == SH_R_HEREDOC) {
            if (!r->body_ok) {
                unseen(cx, v, p->name, " reads a here-doc it cannot see");
                return;
            }
            const char *b = c->src + r->body_off;
            if (!r->body_literal && (memchr(b, '`', r->body_len) ||
                                     memmem(b, r->body_len, "$(", 2))) {
                unseen(cx, v, p->name, " runs a here-doc with command output spliced in");
                return;
            }
            run_script(cx, b, r->body_len, "in a here-doc fed to a shell");
            return;
        }
        if (r->op == SH_R_HERESTR) {
            if (r->target.flags & SH_W_OPAQUE) {
                unseen(cx, v, p->name, " runs a here-string it cannot see");
                return;
            }
            run_script(cx, c->text + r->target.off, r->target.len, "in a here-string fed to a shell");
            return;
        }
        if (r->op == SH_R_IN) {
            if (sh_unseen_input(c, &r->target)) {
                unseen(cx, v, p->name, " reads commands from a command's output or the network");
                return;
            }
            sh_verdict(cx, WG_SHELL_RISKY, "bash.runs_script", p->name,
                       " runs a script file the model does not read", NULL, v->via);
            return;
        }
    }
    if (c->piped_in) {
        if (c->pipe_text && c->pipe_text_len >= 0) {
            run_script(cx, c->pipe_text, (size_t)c->pipe_text_len, "echoed into a shell");
            return;
        }
        unseen(cx, v, p->name, " runs commands piped in from another program (curl | sh)");
        return;
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.shell", p->name, " starts a shell", NULL, v->via);
}

void sh_rule_shell(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1, script = 0, stdin_mode = 0;
    if (sh_version_query(v))
        return;
    while (j < v->end) {
        const char *t = W(j);
        if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
            j++;
            break;
        }
        if (t[0] != '-' && t[0] != '+')
            break;
        if (t[1] == '-') {
            j += (strcmp(t, "--rcfile") == 0 || strcmp(t, "--init-file") == 0) ? 2 : 1;
            continue;
        }
        int takes = 0;
        for (int k = 1; t[k]; k++) {
            if (t[k] == 'c')
                script = 1;
            else if (t[k] == 's')
                stdin_mode = 1;
            else if (t[k] == 'o' || t[k] == 'O')
                takes = 1;
        }
        j += 1 + takes;
    }
    if (script) {
        if (j >= v->end) {
            if (v->hidden_args)
                unseen(cx, v, p->name, " -c runs the lines xargs reads");
            else
                sh_verdict(cx, WG_SHELL_RISKY, "bash.shell", p->name, " -c without a script", NULL, v->via);
            return;
        }
        if (FL(j) & SH_W_OPAQUE) {
            unseen(cx, v, p->name, " -c runs text it cannot see");
            return;
        }
        if (v->hidden_args && v->repl && strstr(W(j), v->repl)) {
            unseen(cx, v, p->name, " -c runs text xargs fills in");
            return;
        }
        run_script(cx, W(j), v->c->w[j].len, p->via);
        return;
    }
    if (v->hidden_args) {
        unseen(cx, v, p->name, " runs scripts named by xargs input");
        return;
    }
    if (!stdin_mode && j < v->end) {
        if (FL(j) & SH_W_PROCSUB) {
            unseen(cx, v, p->name, " runs the output of a command (<(...))");
            return;
        }
        if (!sh_is_stdin_path(W(j))) {
            if (sh_run_written(cx, v, W(j), v->c->w[j].len))
                return;
            sh_verdict(cx, WG_SHELL_RISKY, "bash.runs_script", p->name,
                       " runs a script file the model does not read", NULL, v->via);
            return;
        }
    }
    shell_stdin(cx, v, p);
}

void sh_rule_source(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1;
    if (j >= v->end)
        return;
    if (FL(j) & SH_W_PROCSUB) {
        unseen(cx, v, p->name, " runs the output of a command (<(...))");
        return;
    }
    if ((sh_is_stdin_path(W(j)) || strcmp(W(j), "-") == 0) && v->c->piped_in) {
        unseen(cx, v, p->name, " runs commands piped in from another program");
        return;
    }
    if (sh_run_written(cx, v, W(j), v->c->w[j].len))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.runs_script", p->name,
               " runs a script file the model does not read", NULL, v->via);
}

void sh_rule_eval(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    size_t len;
    uint32_t mark;
    (void)p;
    if (v->i + 1 >= v->end)
        return;
    char *buf = join_scratch(cx, v, v->i + 1, v->end, &len, &mark);
    if (!buf) {
        unseen(cx, v, "eval", " runs text it cannot see");
        return;
    }
    run_script(cx, buf, len, "inside eval");
    sh_scratch_release(cx, mark);
}

void sh_rule_trap(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    (void)p;
    int j = v->i + 1;
    if (j < v->end && strcmp(W(j), "--") == 0)
        j++;
    if (j + 1 >= v->end || W(j)[0] == '-')
        return;
    if (FL(j) & SH_W_OPAQUE) {
        unseen(cx, v, "trap", " installs a handler it cannot see");
        return;
    }
    run_script(cx, W(j), v->c->w[j].len, "inside trap");
}

void sh_rule_interp(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const version[] = { "--version", "-V", "-v", "-version", "version", NULL };
    int nargs = v->end - v->i - 1;
    if (nargs == 1 && in_set(W(v->i + 1), version))
        return;
    int code = 0, operand = 0;
    /* any argument that reads as code: -e CODE, eval CODE, --eval=CODE */
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        size_t n = v->c->w[j].len;
        if (FL(j) & SH_W_PROCSUB) {
            unseen(cx, v, p->name, " runs the output of a command (<(...))");
            return;
        }
        if ((memchr(t, '(', n) || memchr(t, ';', n) || memchr(t, ' ', n) || memchr(t, '`', n) ||
             memchr(t, '{', n)) && code_signal(cx, v, p->name, t, n))
            return;
    }
    if (v->c->piped_in && v->c->pipe_text && v->c->pipe_text_len > 0 &&
        code_signal(cx, v, p->name, v->c->pipe_text, (size_t)v->c->pipe_text_len))
        return;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] != '-' || strcmp(t, "-") == 0) {
            operand = strcmp(t, "-") != 0;
            break;
        }
        if ((t[1] != '-' && strpbrk(t + 1, "cemprE")) || strcmp(t, "--eval") == 0 ||
            strcmp(t, "--print") == 0) {
            code = 1;
            for (int k = j + (t[2] && t[1] != '-' ? 0 : 1); k < v->end && k <= j + 1; k++)
                if (k > j || t[2])
                    if (code_signal(cx, v, p->name, k > j ? W(k) : t + 2,
                                    k > j ? v->c->w[k].len : strlen(t + 2)))
                        return;
            break;
        }
    }
    for (int k = 0; k < v->c->nr; k++) {
        const sh_redir *r = &v->c->r[k];
        if (r->op == SH_R_HEREDOC && r->body_ok &&
            code_signal(cx, v, p->name, v->c->src + r->body_off, r->body_len))
            return;
        if (r->op == SH_R_HERESTR &&
            code_signal(cx, v, p->name, v->c->text + r->target.off, r->target.len))
            return;
    }
    if (!code && !operand && v->c->piped_in) {
        unseen(cx, v, p->name, " runs a program piped in from another command");
        return;
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.interpreter", p->name,
               " runs code the shell model does not analyse", NULL, v->via);
}

void sh_rule_version_only(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
               " does more than print its version", NULL, v->via);
    sh_probe_args(cx, v, v->i + 1);
}

void sh_rule_pkg(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const version[] = { "--version", "-V", "-v", "version", NULL };
    static const char *const readonly[] = {
        "ls", "list", "view", "info", "show", "outdated", "freeze", "help", "search",
        "why", "explain", "config-get", NULL,
    };
    static const char *const publish[] = {
        "publish", "unpublish", "deprecate", "owner", "dist-tag", "access", "adduser",
        "login", "token", "upload", "yank", NULL,
    };
    int j = v->i + 1;
    while (j < v->end && W(j)[0] == '-') {
        if (in_set(W(j), version) && j + 1 == v->end)
            return;
        j++;
    }
    if (j < v->end && in_set(W(j), publish)) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.publish", p->name, " ", W(j), v->via);
        return;
    }
    if (j < v->end && in_set(W(j), readonly) && !(FL(j) & SH_W_OPAQUE))
        return;
    if (j + 1 < v->end && strcmp(W(j), "config") == 0 &&
        (strcmp(W(j + 1), "get") == 0 || strcmp(W(j + 1), "list") == 0 || strcmp(W(j + 1), "ls") == 0))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.package_manager", p->name,
               " installs or runs packages", NULL, v->via);
    sh_probe_args(cx, v, j);
}

/* ---- deletion and disks ---------------------------------------------------- */

/* A target that is every entry of a directory (DIR/ then a star, .star, star.star). */
static int whole_content(const sh_view *v)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        size_t n = v->c->w[j].len;
        const char *slash = memrchr(t, '/', n);
        const char *last = slash ? slash + 1 : t;
        if (!(FL(j) & (SH_W_GLOB | SH_W_BRACE)) || !*last)
            continue;
        if (strspn(last, "*.[]!^") == strlen(last))
            return 1;
    }
    return 0;
}

void sh_rule_rm(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    (void)p;
    int rec = 0, force = 0, noroot = 0, dashdash = 0, ntargets = 0, worst = -1;
    int outside = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (!dashdash && is_opt(v, j)) {
            if (strcmp(t, "--") == 0)
                dashdash = 1;
            else if (t[1] == '-') {
                rec |= long_is(t, "recursive", 1);
                force |= long_is(t, "force", 1);
                noroot |= long_is(t, "no-preserve-root", 1);
            } else {
                rec |= strpbrk(t + 1, "rR") != NULL;
                force |= strchr(t + 1, 'f') != NULL;
            }
            if (FL(j) & SH_W_OPAQUE)
                rec = force = 1;
            continue;
        }
        if ((FL(j) & SH_W_OPAQUE) && !(FL(j) & SH_W_QUOTED))
            rec = 1;                    /* $FLAGS may hold -rf */
        ntargets++;
        int cls = sh_word_target(cx, v, j);
        if (cls > worst)
            worst = cls;
        if (cls != SH_T_PROJECT)
            outside = 1;
    }
    if (v->tree)
        rec = 1;                        /* find ~ -exec rm {} +: every file of the tree */
    if (v->tree && ntargets == 0 && v->placeholder > worst)
        worst = v->placeholder;         /* fd . ~ -x rm: the files come from the tree */
    const char *what = rec ? (force ? "rm -rf" : "rm -r") : "rm";
    if (!rec && worst >= SH_T_SYSTEM && whole_content(v)) {
        sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(worst), what, " deletes every file of ",
                   sh_target_phrase(worst), v->via);
        return;
    }
    if (rec && noroot) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.rm_root", what,
                   " --no-preserve-root can delete the root directory", NULL, v->via);
        return;
    }
    if (rec && worst >= SH_T_OPAQUE) {
        sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(worst), what, " targets ",
                   sh_target_phrase(worst), v->via);
        return;
    }
    if (rec && v->hidden_args) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.rm_unseen", what,
                   " deletes targets it cannot see (they come from xargs)", NULL, v->via);
        return;
    }
    if (rec)
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.rm_recursive", what,
                   " deletes a directory tree", NULL, v->via);
    else if (outside)
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.delete_outside_project", what,
                   " deletes files outside the project", NULL, v->via);
    else
        sh_verdict(cx, WG_SHELL_RISKY, "bash.delete", what, " deletes files", NULL, v->via);
    (void)ntargets;
}

static int win_switch(const char *t)
{
    return t[0] == '/' && t[1] && !t[2];
}

/* A drive root, a system or profile folder, or the home directory. */
static int win_critical(sh_ctx *cx, const sh_view *v, int j)
{
    const sh_word *w = &v->c->w[j];
    const char *raw = v->c->src + w->raw_off;
    if (sh_is_drive_root(W(j), w->len) || sh_is_drive_root(raw, w->raw_len) ||
        sh_is_windows_critical(raw, w->raw_len))
        return 1;
    int cls = sh_word_target(cx, v, j);
    return cls == SH_T_HOME || cls == SH_T_ROOT;
}

void sh_rule_rd(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int rec = 0, root = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (win_switch(t)) {
            rec |= t[1] == 's' || t[1] == 'S';
            continue;
        }
        if (t[0] == '-' && (t[1] | 32) == 'r') {
            rec = 1;                    /* PowerShell's rmdir -Recurse */
            continue;
        }
        if (win_critical(cx, v, j))
            root = 1;
    }
    if (rec && root)
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.windows_drive_delete", p->name,
                   " /s deletes a drive root", NULL, v->via);
    else if (rec)
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.rm_recursive", p->name,
                   " /s deletes a directory tree", NULL, v->via);
    else
        sh_verdict(cx, WG_SHELL_RISKY, "bash.delete", p->name, " removes a directory", NULL, v->via);
}

void sh_rule_del(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int rec = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        if (win_switch(W(j)) || (W(j)[0] == '-' && W(j)[1])) {
            rec |= (W(j)[1] | 32) == 's' || (W(j)[1] | 32) == 'r';
            continue;
        }
        if (sh_is_drive_root(W(j), v->c->w[j].len) ||
            sh_is_drive_root(v->c->src + v->c->w[j].raw_off, v->c->w[j].raw_len) ||
            (rec && win_critical(cx, v, j))) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.windows_drive_delete", p->name,
                       " deletes the files of a drive root or a system or profile folder", NULL, v->via);
            return;
        }
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.delete", p->name, " deletes files", NULL, v->via);
}

void sh_rule_remove_item(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int rec = 0, bad = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-') {
            rec |= strncasecmp(t, "-r", 2) == 0;
            continue;
        }
        int cls = sh_word_target(cx, v, j);
        if (cls >= SH_T_SYSTEM || strncasecmp(t, "hklm:", 5) == 0 || strncasecmp(t, "hkcu:", 5) == 0 ||
            win_critical(cx, v, j))
            bad = 1;
    }
    if (v->c->piped_in && rec)
        bad = 1;                        /* Get-ChildItem C:\ -Recurse | Remove-Item */
    if (v->c->piped_in && !rec && v->c->pipe_text == NULL)
        rec = bad = 1;
    if (bad && rec)
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.windows_drive_delete", p->name,
                   " -Recurse deletes a drive root, the home directory or registry keys",
                   NULL, v->via);
    else
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.delete", p->name, " deletes items", NULL, v->via);
}

void sh_rule_format(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        size_t n = v->c->w[j].len;
        if (n >= 2 && t[1] == ':' && ((t[0] | 32) >= 'a' && (t[0] | 32) <= 'z') &&
            (n == 2 || t[2] == '\\' || t[2] == '/' || t[2] == ' ')) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.disk_format", "format ", t,
                       " formats a drive", v->via);
            return;
        }
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.format", p->name, " can format a disk", NULL, v->via);
}

void sh_rule_disk(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int list_only = 0;
    if (strcmp(p->name, "fdisk") == 0 || strcmp(p->name, "sfdisk") == 0 ||
        strcmp(p->name, "parted") == 0) {
        for (int j = v->i + 1; j < v->end; j++)
            if (strcmp(W(j), "-l") == 0 || strcmp(W(j), "--list") == 0 || strcmp(W(j), "print") == 0)
                list_only = 1;
    }
    if (list_only) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.disk_tool", p->name, " reads the partition table",
                   NULL, v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.disk_format", p->name,
               " formats, partitions or wipes a disk", NULL, v->via);
}

void sh_rule_diskutil(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const wipe[] = {
        "erasedisk", "erasevolume", "reformat", "partitiondisk", "zerodisk",
        "randomdisk", "secureerase", NULL,
    };
    if (v->i + 1 < v->end) {
        char verb[24];
        size_t n = strlen(W(v->i + 1));
        if (n < sizeof verb) {
            for (size_t k = 0; k <= n; k++)
                verb[k] = (char)(W(v->i + 1)[k] | (W(v->i + 1)[k] >= 'A' && W(v->i + 1)[k] <= 'Z' ? 32 : 0));
            if (in_set(verb, wipe)) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.disk_format", p->name,
                           " erases a disk", NULL, v->via);
                return;
            }
        }
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.disk_tool", p->name, " manages disks", NULL, v->via);
}

void sh_rule_dd(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    (void)p;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strncmp(t, "of=", 3) == 0 && (FL(j) & SH_W_OPAQUE)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", "dd writes to a device or file ",
                       "it cannot see (it may be a disk)", NULL, v->via);
            return;
        }
        if (strncmp(t, "of=", 3) == 0 && sh_is_raw_disk(t + 3, v->c->w[j].len - 3)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", "dd writes to the raw disk ",
                       t + 3, NULL, v->via);
            return;
        }
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.dd", "dd copies raw data over a file or device",
               NULL, NULL, v->via);
}

void sh_rule_shred(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        if (is_opt(v, j))
            continue;
        if (sh_is_raw_disk(W(j), v->c->w[j].len)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", p->name,
                       " overwrites the raw disk ", W(j), v->via);
            return;
        }
        int cls = sh_word_target(cx, v, j);
        if (cls >= SH_T_SYSTEM && (v->tree || (FL(j) & (SH_W_GLOB | SH_W_BRACE)) || whole_content(v))) {
            sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(cls), p->name, " destroys every file of ",
                       sh_target_phrase(cls), v->via);
            return;
        }
    }
    if (v->tree && v->placeholder >= SH_T_SYSTEM) {
        sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(v->placeholder), p->name, " destroys every file of ",
                   sh_target_phrase(v->placeholder), v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.shred", p->name, " destroys file contents", NULL, v->via);
}

void sh_rule_reg(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1;
    if (j < v->end && strcasecmp(W(j), "delete") == 0) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.registry_delete", p->name,
                   " delete removes Windows registry keys", NULL, v->via);
        return;
    }
    if (j < v->end && strcasecmp(W(j), "import") == 0) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.registry_delete", p->name,
                   " import rewrites registry keys from a file", NULL, v->via);
        return;
    }
    if (j < v->end && strcasecmp(W(j), "add") == 0)
        for (int k = j + 1; k < v->end; k++) {
            const char *raw = v->c->src + v->c->w[k].raw_off;
            size_t n = v->c->w[k].raw_len;
            if ((n >= 4 && (strncasecmp(raw + n - 4, "\\run", 4) == 0)) ||
                (n >= 8 && strncasecmp(raw + n - 8, "\\runonce", 8) == 0) ||
                (n >= 5 && strncasecmp(raw + n - 5, "\\run\"", 5) == 0)) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                           " add registers a program that runs at every logon", NULL, v->via);
                return;
            }
        }
    if (j < v->end && strcasecmp(W(j), "query") == 0) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.registry", p->name, " reads the registry", NULL, v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.registry", p->name, " changes the Windows registry",
               NULL, v->via);
}

void sh_rule_chmod(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int rec = 0, first = 1, worst = -1;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (is_opt(v, j) && !(strcmp(p->name, "chmod") == 0 && strpbrk(t + 1, "rwxXst") &&
                              t[1] != '-' && !strchr(t, 'R'))) {
            rec |= short_has(t, 'R') || long_is(t, "recursive", 3);
            if (long_is(t, "reference", 3))
                first = 0;
            continue;
        }
        if (first) {
            first = 0;                  /* the mode or owner */
            continue;
        }
        int cls = sh_word_target(cx, v, j);
        if (cls > worst)
            worst = cls;
    }
    if (rec && (worst == SH_T_ROOT || worst == SH_T_HOME || worst == SH_T_SYSTEM)) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.chmod_system", p->name, " -R changes ",
                   sh_target_phrase(worst), v->via);
        return;
    }
    if (rec || worst >= SH_T_OUTSIDE)
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.permissions", p->name,
                   rec ? " -R changes permissions of a whole tree" : " changes permissions outside the project",
                   NULL, v->via);
    else
        sh_verdict(cx, WG_SHELL_RISKY, "bash.permissions", p->name, " changes file permissions",
                   NULL, v->via);
}

void sh_rule_mv(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int n = 0, tdir = 0, last = -1;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (is_opt(v, j)) {
            if (short_has(t, 't') || long_is(t, "target-directory", 3))
                tdir = 1;
            continue;
        }
        n++;
        last = j;
    }
    for (int j = v->i + 1; j < v->end; j++) {
        if (is_opt(v, j) || (j == last && !tdir))
            continue;                   /* options, and the destination */
        int cls = sh_word_target(cx, v, j);
        if (cls == SH_T_ROOT || cls == SH_T_HOME || cls == SH_T_SYSTEM) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.move_system", p->name, " moves ",
                       sh_target_phrase(cls), v->via);
            return;
        }
        if (cls != SH_T_PROJECT)
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.write_outside_project", p->name,
                       " moves files from outside the project", NULL, v->via);
    }
    if (n > 0 && !tdir)
        sh_check_write(cx, v, &v->c->w[last], p->name);
    sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", p->name, " moves files", NULL, v->via);
}

/* ln -s TARGET NAME: NAME now leads to TARGET (rm -rf NAME/ deletes it). */
static void note_link(sh_ctx *cx, const sh_view *v)
{
    int sym = 0, a = -1, b = -1;
    for (int j = v->i + 1; j < v->end; j++) {
        if (is_opt(v, j)) {
            sym |= short_has(W(j), 's') || long_is(W(j), "symbolic", 3);
            continue;
        }
        a = b;
        b = j;
    }
    if (!sym || a < 0 || (FL(b) & SH_W_OPAQUE))
        return;
    int cls = sh_word_target(cx, v, a);
    if (cls < SH_T_SYSTEM)
        return;
    sh_sym *y = sh_sym_add(cx, SH_SYM_LINK, W(b), v->c->w[b].len);
    if (y)
        y->state = (uint8_t)cls;
}

void sh_rule_writer(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int last_only = strcmp(p->name, "cp") == 0 || strcmp(p->name, "ln") == 0 ||
                    strcmp(p->name, "install") == 0;
    int last = -1, append = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        if (is_opt(v, j)) {
            append |= strcmp(p->name, "tee") == 0 && (short_has(W(j), 'a') || long_is(W(j), "append", 2));
            continue;
        }
        if (last_only)
            last = j;
        else
            sh_check_write_mode(cx, v, &v->c->w[j], p->name, append);
    }
    if (last >= 0)
        sh_check_write(cx, v, &v->c->w[last], p->name);
    int real = 0;
    for (int j = v->i + 1; j < v->end; j++)
        real |= !is_opt(v, j) && strcmp(W(j), "/dev/null") != 0;
    if (strcmp(p->name, "ln") == 0)
        note_link(cx, v);
    if (real || strcmp(p->name, "tee") != 0)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", p->name, " writes files", NULL, v->via);
}

void sh_rule_rsync(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int del = 0, last = -1, remote = 0, src_rm = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        if (is_opt(v, j)) {
            del |= strncmp(W(j), "--del", 5) == 0;
            src_rm |= strcmp(W(j), "--remove-source-files") == 0;
            if (strcmp(W(j), "-e") == 0 || strncmp(W(j), "--rsh", 5) == 0)
                sh_probe_args(cx, v, j);
            continue;
        }
        if (src_rm && last >= 0) {
            int cls = sh_word_target(cx, v, last);
            if (cls >= SH_T_SYSTEM) {
                sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(cls), "rsync --remove-source-files empties ",
                           sh_target_phrase(cls), NULL, v->via);
                return;
            }
        }
        last = j;
        if (strchr(W(j), ':'))
            remote = 1;
    }
    if (del && last >= 0) {
        int cls = sh_word_target(cx, v, last);
        if (cls >= SH_T_OPAQUE) {
            sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(cls), "rsync --delete empties ",
                       sh_target_phrase(cls), NULL, v->via);
            return;
        }
    }
    if (remote) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_send", p->name,
                   " copies files to or from another machine", NULL, v->via);
        return;
    }
    if (last >= 0)
        sh_check_write(cx, v, &v->c->w[last], p->name);
    sh_verdict(cx, del ? WG_SHELL_DESTRUCTIVE : WG_SHELL_RISKY, del ? "bash.rm_recursive" : "bash.writes_file",
               p->name, del ? " --delete removes files" : " copies files", NULL, v->via);
}

void sh_rule_kill(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strcmp(t, "-9") == 0 || strcasecmp(t, "-KILL") == 0 || strcasecmp(t, "-SIGKILL") == 0 ||
            strcmp(t, "-1") == 0 || strcasecmp(t, "KILL") == 0) {
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.kill", p->name,
                       " force-kills processes", NULL, v->via);
            return;
        }
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.kill", p->name, " stops processes", NULL, v->via);
}

void sh_rule_destructive(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.destructive", p->name,
               " can destroy data or take the machine down", NULL, v->via);
}

void sh_rule_network(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_send", p->name,
               " opens a network connection that can send local data", NULL, v->via);
    /* ssh HOST 'CMD', ssh HOST sudo reboot: the remote command */
    sh_probe_args(cx, v, v->i + 1);
}

/* Disk tools whose named verbs or options wipe, format or re-partition. */
void sh_rule_disk_verbs(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const struct { const char *prog; const char *const verbs[8]; } tools[] = {
        { "badblocks", { "-w", NULL } },
        { "cryptsetup", { "luksformat", "erase", "lukserase", "reencrypt", "format", NULL } },
        { "flashrom", { "-w", "--write", "-e", "--erase", NULL } },
        { "hdparm", { "--security-erase", "--security-erase-enhanced", "--trim-sector-ranges",
                      "--write-sector", "--make-bad-sector", "--dco-restore", NULL } },
        { "mdadm", { "--zero-superblock", "--create", "-c", NULL } },
        { "nvme", { "format", "sanitize", "write-zeroes", "delete-ns", "detach-ns", NULL } },
        { "zfs", { "destroy", NULL } },
        { "zpool", { "create", "destroy", "labelclear", NULL } },
    };
    for (size_t k = 0; k < sizeof tools / sizeof *tools; k++) {
        if (strcmp(tools[k].prog, p->name) != 0)
            continue;
        for (int j = v->i + 1; j < v->end; j++) {
            const char *t = W(j);
            for (const char *const *vb = tools[k].verbs; *vb; vb++)
                if (strcasecmp(t, *vb) == 0 ||
                    ((*vb)[0] == '-' && (*vb)[1] != '-' && t[0] == '-' && t[1] != '-' &&
                     strchr(t + 1, (*vb)[1]))) {
                    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.disk_format", p->name, " ", t, v->via);
                    return;
                }
        }
    }
    if (sh_version_query(v))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.disk_tool", p->name, " manages disks", NULL, v->via);
}

/* rimraf, srm, wipe, trash-put, cmake -E remove_directory: recursive by
 * nature, whatever the options say. */
void sh_rule_rmtree(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int worst = -1;
    for (int j = v->i + 1; j < v->end; j++) {
        if (is_opt(v, j))
            continue;
        int cls = sh_word_target(cx, v, j);
        worst = cls > worst ? cls : worst;
    }
    if (worst >= SH_T_OPAQUE) {
        sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(worst), p->name, " deletes the tree of ",
                   sh_target_phrase(worst), v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.rm_recursive", p->name, " deletes a directory tree",
               NULL, v->via);
}

/* tar: listing (-t, --list) is read-only; --remove-files deletes what it
 * archived; --to-command, -I, --checkpoint-action run programs. */
void sh_rule_tar(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int list = 0, remove = 0, runs = 0, worst = -1;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-' && t[1] == '-') {
            list |= strcmp(t, "--list") == 0;
            remove |= strncmp(t, "--remove-files", 14) == 0;
            runs |= strncmp(t, "--to-command", 12) == 0 || strncmp(t, "--use-compress", 14) == 0 ||
                    strncmp(t, "--checkpoint-action", 19) == 0 || strncmp(t, "--rsh-command", 13) == 0 ||
                    strncmp(t, "--info-script", 13) == 0 || strncmp(t, "--new-volume-script", 19) == 0;
            continue;
        }
        if (t[0] == '-' || (j == v->i + 1 && strspn(t, "ctxrudvzjJfpPkKOSWlmaC") == strlen(t))) {
            list |= strchr(t, 't') != NULL && !strpbrk(t, "cxru");
            runs |= strchr(t, 'I') != NULL || strchr(t, 'F') != NULL;
            continue;
        }
        int cls = sh_word_target(cx, v, j);
        worst = cls > worst ? cls : worst;
    }
    if (remove && worst >= SH_T_SYSTEM) {
        sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(worst), "tar --remove-files deletes ",
                   sh_target_phrase(worst), NULL, v->via);
        return;
    }
    if (remove) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.delete", "tar --remove-files deletes what it archives",
                   NULL, NULL, v->via);
        return;
    }
    if (runs) {
        unsafe_opt(cx, v, p, "an option that runs a program");
        sh_probe_args(cx, v, v->i + 1);
        return;
    }
    if (!list && !sh_version_query(v))
        sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", p->name, " creates or extracts an archive",
                   NULL, v->via);
}

void sh_rule_unzip(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-' && t[1] != '-' && strpbrk(t + 1, "ltvZpz"))
            return;
    }
    if (!sh_version_query(v))
        sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", p->name, " extracts files", NULL, v->via);
}

/* ---- Windows shells ---------------------------------------------------------- */

/* A crude scan of cmd.exe / PowerShell text: the POSIX model does not apply,
 * so the known never-autopass commands are looked for token by token. */
static const char *win_scan(const char *s, size_t n)
{
    char tok[8][48];
    int nt = 0, piped = 0;
    size_t i = 0;
    const char *crit = NULL;
    while (i <= n && !crit) {
        int end_seg = i == n || s[i] == ';' || s[i] == '&' || s[i] == '|' || s[i] == '\n';
        if (end_seg || nt == 8) {
            int f = 0;
            while (f < nt && (tok[f][0] == '/' || tok[f][0] == '-'))
                f++;                    /* cmd /c, powershell -Command ... */
            if (f < nt) {
                const char *cmd = tok[f];
                int rec = 0, root = 0, reg = 0, del = 0;
                int fetch = 0, runas = 0;
                for (int k = f + 1; k < nt; k++) {
                    rec |= strcmp(tok[k], "/s") == 0 || strncmp(tok[k], "-r", 2) == 0;
                    root |= sh_is_drive_root(tok[k], strlen(tok[k])) || strcmp(tok[k], "/") == 0 ||
                            sh_is_windows_critical(tok[k], strlen(tok[k])) || strcmp(tok[k], "~") == 0;
                    fetch |= strncmp(tok[k], "irm", 3) == 0 || strncmp(tok[k], "iwr", 3) == 0 ||
                             strstr(tok[k], "downloadstring") != NULL || strncmp(tok[k], "invoke-web", 10) == 0 ||
                             strncmp(tok[k], "invoke-rest", 11) == 0 || strstr(tok[k], "webclient") != NULL;
                    runas |= strcmp(tok[k], "runas") == 0;
                    reg |= strncmp(tok[k], "hklm", 4) == 0 || strncmp(tok[k], "hkcu", 4) == 0 ||
                           strncmp(tok[k], "registry::", 10) == 0;
                    del |= strcmp(tok[k], "delete") == 0;
                }
                if ((strcmp(cmd, "rd") == 0 || strcmp(cmd, "rmdir") == 0 || strcmp(cmd, "rm") == 0 ||
                     strcmp(cmd, "remove-item") == 0 || strcmp(cmd, "ri") == 0 || strcmp(cmd, "del") == 0) &&
                    rec && (root || piped))
                    crit = "deletes a drive root";
                else if ((strcmp(cmd, "iex") == 0 || strcmp(cmd, "invoke-expression") == 0) && (fetch || nt == f + 1))
                    crit = "runs text downloaded or built at run time (iex)";
                else if (strcmp(cmd, "start-process") == 0 &&
                         (runas || (nt > f + 1 && (strcmp(tok[f + 1], "sudo") == 0 || strcmp(tok[f + 1], "doas") == 0 ||
                                                   strcmp(tok[f + 1], "gsudo") == 0))))
                    crit = "starts a program elevated (-Verb RunAs)";
                else if ((strcmp(cmd, "del") == 0 || strcmp(cmd, "erase") == 0) && root)
                    crit = "deletes the files of a drive root";
                else if (strcmp(cmd, "format") == 0 && nt > f + 1 && tok[f + 1][1] == ':')
                    crit = "formats a drive";
                else if (strcmp(cmd, "format-volume") == 0 || strcmp(cmd, "clear-disk") == 0 ||
                         strcmp(cmd, "initialize-disk") == 0 || strcmp(cmd, "remove-partition") == 0 ||
                         strcmp(cmd, "diskpart") == 0)
                    crit = "formats or wipes a disk";
                else if ((strcmp(cmd, "reg") == 0 && del) ||
                         (strcmp(cmd, "remove-item") == 0 && reg))
                    crit = "deletes registry keys";
            }
            piped = i < n && s[i] == '|';
            nt = 0;
            if (i == n)
                break;
            if (end_seg) {
                i++;
                continue;
            }
        }
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '"' || s[i] == '\'' ||
                         s[i] == '(' || s[i] == ')' || s[i] == '{' || s[i] == '}'))
            i++;
        size_t k = 0;
        while (i < n && !strchr(" \t\"';&|\n(){}", s[i])) {
            if (k + 1 < sizeof tok[0] && s[i] != '^')     /* cmd's escape: r^d is rd */
                tok[nt][k++] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
            i++;
        }
        tok[nt][k] = '\0';
        if (k) {
            if (k > 4 && strcmp(tok[nt] + k - 4, ".exe") == 0)
                tok[nt][k - 4] = '\0';
            nt++;
        }
    }
    return crit;
}

void sh_rule_winshell(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    size_t len;
    uint32_t mark;
    int script = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        size_t dash = (t[0] == '-' || t[0] == '/') ? 1
                    : ((unsigned char)t[0] == 0xe2 && (unsigned char)t[1] == 0x80 &&
                       (unsigned char)t[2] >= 0x90 && (unsigned char)t[2] <= 0x95) ? 3 : 0;
        if (dash && (t[dash] | 32) == 'e' && (t[dash + 1] | 32) != 'x' && (t[dash + 1] | 32) != 'p') {
            unseen(cx, v, p->name, " runs an encoded command it cannot see");
            return;
        }
        if (!dash || strcmp(t, "-") == 0 || (dash && (t[dash] | 32) == 'c' && j + 1 < v->end &&
                                             strcmp(W(j + 1), "-") != 0))
            script |= strcmp(t, "-") != 0;
    }
    if (v->c->piped_in && !script) {
        unseen(cx, v, p->name, " runs commands piped in from another program");
        return;
    }
    char *buf = join_scratch(cx, v, v->i + 1, v->end, &len, &mark);
    if (!buf) {
        unseen(cx, v, p->name, " runs text it cannot see");
        return;
    }
    const char *crit = win_scan(buf, len);
    sh_scratch_release(cx, mark);
    if (crit) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.windows_drive_delete", p->name, " ", crit, v->via);
        if (strstr(crit, "registry"))
            cx->out->rule = "critical.registry_delete";
        else if (strstr(crit, "format") || strstr(crit, "wipes"))
            cx->out->rule = "critical.disk_format";
        return;
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.windows_shell", p->name,
               " runs a Windows script the shell model does not analyse", NULL, v->via);
}

/* Windows administration tools that delete backups and boot entries or
 * take over system folders. */
void sh_rule_win_admin(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int del = 0, sys = 0, grant = 0, import = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        del |= strcasecmp(t, "delete") == 0 || strcasecmp(t, "/delete") == 0 ||
               strcasecmp(t, "/deletevalue") == 0 || strcasecmp(t, "resize") == 0;
        grant |= strcasecmp(t, "/grant") == 0 || strcasecmp(t, "/r") == 0 || strcasecmp(t, "/t") == 0 ||
                 strcasecmp(t, "/reset") == 0 || strcasecmp(t, "/setowner") == 0;
        import |= strcasecmp(t, "/s") == 0 || (t[0] != '/' && t[0] != '-');
        if (win_critical(cx, v, j))
            sys = 1;
    }
    int crit = 0;
    if (strcmp(p->name, "vssadmin") == 0 || strcmp(p->name, "wmic") == 0 || strcmp(p->name, "bcdedit") == 0)
        crit = del;
    else if (strcmp(p->name, "takeown") == 0 || strcmp(p->name, "icacls") == 0)
        crit = sys && grant;
    else if (strcmp(p->name, "regedit") == 0)
        crit = import;
    else if (strcmp(p->name, "remove-itemproperty") == 0)
        crit = 1;
    if (crit) {
        sh_verdict(cx, WG_SHELL_CRITICAL, strcmp(p->name, "regedit") == 0 || p->name[0] == 'r'
                   ? "critical.registry_delete" : "critical.windows_drive_delete",
                   p->name, " deletes backups, boot entries or registry keys, or takes over system folders",
                   NULL, v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.windows_shell", p->name, " administers Windows", NULL, v->via);
}

/* ---- read-only programs whose options matter ------------------------------- */


/* ~ and $HOME are the home directory, known; any other marker is not. */
static int home_only(const sh_view *v, int j)
{
    if (FL(j) & (SH_W_OPAQUE & ~SH_W_EXP) || (FL(j) & (SH_W_GLOB | SH_W_BRACE)))
        return 0;
    const char *t = W(j);
    for (size_t k = 0; k + 1 < v->c->w[j].len; k++)
        if (t[k] == SH_MARK && t[k + 1] != SH_K_HOME)
            return 0;
    return 1;
}

static int opaque_args(const sh_view *v)
{
    for (int j = v->i + 1; j < v->end; j++)
        if ((FL(j) & (SH_W_OPAQUE | SH_W_GLOB | SH_W_BRACE)) && !home_only(v, j))
            return 1;
    return 0;
}

static void check_args_visible(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (opaque_args(v))
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unchecked_args", p->name,
                   " gets arguments from an expansion or glob that cannot be checked",
                   NULL, v->via);
}

void sh_rule_find(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1, worst = -1, del = 0, exec = 0, secret = 0;
    if (j < v->end && strcmp(W(j), "--") == 0)
        j++;
    while (j < v->end && (strcmp(W(j), "-H") == 0 || strcmp(W(j), "-L") == 0 ||
                          strcmp(W(j), "-P") == 0 || strncmp(W(j), "-O", 2) == 0 ||
                          strcmp(W(j), "-D") == 0))
        j += strcmp(W(j), "-D") == 0 ? 2 : 1;
    while (j < v->end) {
        const char *t = W(j);
        if (t[0] == '-' || strcmp(t, "(") == 0 || strcmp(t, "!") == 0 || strcmp(t, ")") == 0)
            break;
        int cls = sh_word_target(cx, v, j);
        if (cls > worst)
            worst = cls;
        secret |= sh_secret_path(t, v->c->w[j].len) != NULL;
        j++;
    }
    if (worst < 0)
        worst = sh_target_class(".", 1, cx->cwd);
    for (int k = j; k + 1 < v->end; k++)
        if (strcmp(W(k), "-name") == 0 || strcmp(W(k), "-iname") == 0 || strcmp(W(k), "-path") == 0)
            secret |= sh_secret_path(W(k + 1), v->c->w[k + 1].len) != NULL;
    for (int k = j; k < v->end; k++) {
        const char *t = W(k);
        if (strcmp(t, "-delete") == 0) {
            del = 1;
        } else if (strcmp(t, "-exec") == 0 || strcmp(t, "-execdir") == 0 ||
                   strcmp(t, "-ok") == 0 || strcmp(t, "-okdir") == 0) {
            int m = k + 1;
            while (m < v->end && strcmp(W(m), ";") != 0 && strcmp(W(m), "+") != 0)
                m++;
            sh_view sub = *v;
            sub.i = k + 1;
            sub.end = m;
            sub.placeholder = worst;
            sub.hidden_args = 0;
            sub.tree = 1;
            sub.via = "via find -exec";
            if (sub.i < sub.end)
                sh_analyze_view(cx, &sub);
            const sh_program *ep = sub.i < sub.end ? sh_program_lookup(W(sub.i), v->c->w[sub.i].len) : NULL;
            if (secret && ep && ep->cls == SH_P_SAFE)
                sh_verdict(cx, WG_SHELL_RISKY, "bash.reads_secret", "find -exec ", W(sub.i),
                           " prints credential files", v->via);
            exec = 1;
            k = m;
        } else if (strncmp(t, "-fprint", 7) == 0 || strcmp(t, "-fls") == 0) {
            if (k + 1 < v->end)
                sh_check_write(cx, v, &v->c->w[k + 1], "find -fprint");
            k++;
        }
    }
    if (del) {
        if (worst >= SH_T_OPAQUE)
            sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(worst), "find -delete deletes everything under ",
                       sh_target_phrase(worst), NULL, v->via);
        else
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.find_delete", "find -delete deletes files",
                       NULL, NULL, v->via);
    }
    if (v->c->piped_out)
        cx->feed_tree = worst;          /* find ~ | xargs rm */
    if (exec && cx->out->cls > WG_SHELL_SAFE)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.find_exec", "find -exec runs a command for every file",
                   NULL, NULL, v->via);
    check_args_visible(cx, v, p);
}

void sh_rule_fd(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int operands = 0, worst = SH_T_PROJECT;
    for (int k = v->i + 1; k < v->end; k++) {
        const char *t = W(k);
        if (t[0] == '-') {
            if (strcmp(t, "-x") == 0 || strcmp(t, "-X") == 0 || strcmp(t, "--exec") == 0 ||
                strcmp(t, "--exec-batch") == 0)
                break;
            if ((strcmp(t, "-e") == 0 || strcmp(t, "-t") == 0 || strcmp(t, "-d") == 0 ||
                 strcmp(t, "-E") == 0 || strcmp(t, "--extension") == 0 || strcmp(t, "--type") == 0) &&
                k + 1 < v->end)
                k++;
            continue;
        }
        if (operands++ > 0) {           /* the pattern, then the paths searched */
            int cls = sh_word_target(cx, v, k);
            worst = cls > worst ? cls : worst;
        }
    }
    for (int k = v->i + 1; k < v->end; k++) {
        const char *t = W(k);
        if (strcmp(t, "-x") == 0 || strcmp(t, "-X") == 0 || strcmp(t, "--exec") == 0 ||
            strcmp(t, "--exec-batch") == 0) {
            int m = k + 1;
            while (m < v->end && strcmp(W(m), ";") != 0)
                m++;
            sh_view sub = *v;
            sub.i = k + 1;
            sub.end = m;
            sub.placeholder = worst;
            sub.tree = 1;
            sub.via = "via fd --exec";
            if (sub.i < sub.end)
                sh_analyze_view(cx, &sub);
            return;
        }
    }
    check_args_visible(cx, v, p);
}

/* sed script: addresses and the commands p P = l q Q d D n N g G h H x z F
 * y a i c b t T : { } #, and s with flags g p i I m M digits. e w W r R and
 * the s flags e and w are refused. */
static int sed_script_ok(const char *s)
{
    size_t i = 0, n = strlen(s);
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';'))
            i++;
        if (i >= n)
            break;
        /* addresses */
        for (int a = 0; a < 2; a++) {
            if (s[i] >= '0' && s[i] <= '9') {
                while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '~'))
                    i++;
            } else if (s[i] == '$') {
                i++;
            } else if (s[i] == '/' || s[i] == '\\') {
                char d = s[i] == '\\' ? s[i + 1] : '/';
                i += s[i] == '\\' ? 2 : 1;
                while (i < n && s[i] != d) {
                    if (s[i] == '\\')
                        i++;
                    i++;
                }
                if (i >= n)
                    return 0;
                i++;
                while (i < n && (s[i] == 'I' || s[i] == 'M'))
                    i++;
            }
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            if (a == 0 && i < n && s[i] == ',') {
                i++;
                continue;
            }
            break;
        }
        while (i < n && (s[i] == '!' || s[i] == ' '))
            i++;
        if (i >= n)
            return 0;
        char cmd = s[i++];
        if (strchr("pP=lqQdDnNgGhHxzF{}", cmd)) {
            while (i < n && s[i] >= '0' && s[i] <= '9')
                i++;
            continue;
        }
        if (cmd == '#' || cmd == ':' || cmd == 'b' || cmd == 't' || cmd == 'T' ||
            cmd == 'a' || cmd == 'i' || cmd == 'c') {
            while (i < n && s[i] != '\n' && (cmd == 'a' || cmd == 'i' || cmd == 'c' || cmd == '#' || s[i] != ';'))
                i++;
            continue;
        }
        if (cmd == 's' || cmd == 'y') {
            if (i >= n)
                return 0;
            char d = s[i++];
            if (d == '\n' || d == '\\')
                return 0;
            for (int part = 0; part < 2; part++) {
                while (i < n && s[i] != d) {
                    if (s[i] == '\\')
                        i++;
                    i++;
                }
                if (i >= n)
                    return 0;
                i++;
            }
            if (cmd == 's')
                while (i < n && strchr("gpiImM0123456789", s[i]))
                    i++;
            if (i < n && !strchr(" \t\n;}", s[i]))
                return 0;               /* e, w or anything unknown */
            continue;
        }
        return 0;
    }
    return 1;
}

/* A sed script's w FILE (or s///w FILE) onto a raw disk. */
static int sed_writes_disk(const char *s, size_t n)
{
    for (const char *q = s; (q = memchr(q, 'w', n - (size_t)(q - s))) != NULL; q++) {
        const char *f = q + 1;
        while (f < s + n && (*f == ' ' || *f == '\t'))
            f++;
        size_t len = strcspn(f, "\n;}");
        if (len > (size_t)(s + n - f))
            len = (size_t)(s + n - f);
        if (len > 5 && sh_is_raw_disk(f, len))
            return 1;
    }
    return 0;
}

void sh_rule_sed(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int script_given = 0;
    for (int j = v->i + 1; j < v->end; j++)
        if (sed_writes_disk(W(j), v->c->w[j].len)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", "sed ", "writes to a raw disk (w)",
                       NULL, v->via);
            return;
        }
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE) {
            check_args_visible(cx, v, p);
            return;
        }
        if (strcmp(t, "--") == 0)
            break;
        if (t[0] == '-' && t[1] == '-') {
            if (long_is(t, "in-place", 2)) {
                unsafe_opt(cx, v, p, "--in-place (edits files)");
                return;
            }
            if (long_is(t, "file", 2)) {
                unsafe_opt(cx, v, p, "--file (a script it cannot see)");
                return;
            }
            if (long_is(t, "expression", 2)) {
                const char *e = strchr(t, '=');
                const char *sc = e ? e + 1 : (j + 1 < v->end ? W(j + 1) : "");
                if (!e)
                    j++;
                script_given = 1;
                if (!sed_script_ok(sc)) {
                    unsafe_opt(cx, v, p, "a script that can write or run commands");
                    return;
                }
            }
            continue;
        }
        if (t[0] == '-' && t[1]) {
            for (int k = 1; t[k]; k++) {
                if (t[k] == 'i') {
                    unsafe_opt(cx, v, p, "-i (edits files in place)");
                    return;
                }
                if (t[k] == 'f') {
                    unsafe_opt(cx, v, p, "-f (a script it cannot see)");
                    return;
                }
                if (t[k] == 'e' || t[k] == 'l') {
                    const char *sc = t[k + 1] ? t + k + 1 : (j + 1 < v->end ? W(j + 1) : "");
                    if (!t[k + 1])
                        j++;
                    if (t[k] == 'e') {
                        script_given = 1;
                        if (!sed_script_ok(sc)) {
                            unsafe_opt(cx, v, p, "a script that can write or run commands");
                            return;
                        }
                    }
                    break;
                }
            }
            continue;
        }
        if (!script_given) {
            script_given = 1;
            if (!sed_script_ok(t)) {
                unsafe_opt(cx, v, p, "a script that can write or run commands");
                return;
            }
        }
    }
}

void sh_rule_awk(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1;
    while (j < v->end && W(j)[0] == '-') {
        const char *t = W(j);
        if (strcmp(t, "--") == 0) {
            j++;
            break;
        }
        if (t[1] == 'f' || t[1] == 'i' || t[1] == 'E' || strncmp(t, "--file", 6) == 0 ||
            strncmp(t, "--include", 9) == 0 || strncmp(t, "--exec", 6) == 0) {
            unsafe_opt(cx, v, p, "a program file it cannot see");
            return;
        }
        j += ((t[1] == 'F' || t[1] == 'v') && !t[2]) ? 2 : 1;
    }
    if (j >= v->end)
        return;
    const char *prog = W(j);
    if (code_signal(cx, v, p->name, prog, v->c->w[j].len))
        return;
    if (strstr(prog, "ENVIRON"))
        env_dump(cx, v, p->name, " prints environment variables (ENVIRON)");
    if (strstr(prog, "system") && v->c->piped_in && strchr(prog, '$')) {
        unseen(cx, v, p->name, " runs lines piped in from another program (system($0))");
        return;
    }
    if ((FL(j) & SH_W_OPAQUE) || strstr(prog, "system") || strchr(prog, '|') ||
        strchr(prog, '>') || strstr(prog, "getline") || strchr(prog, '@')) {
        unsafe_opt(cx, v, p, "a program that can write files or run commands");
        return;
    }
}

void sh_rule_sort(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if ((t[0] == '-' && t[1] != '-' && strchr(t + 1, 'o')) || long_is(t, "output", 2) ||
            long_is(t, "compress-program", 3)) {
            unsafe_opt(cx, v, p, "-o (writes a file)");
            return;
        }
    }
    check_args_visible(cx, v, p);
}

void sh_rule_uniq(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1, ops = 0;
    while ((j = sh_skip_opts(v, j, "fsw", NULL)) < v->end) {
        ops++;
        j++;
    }
    if (ops > 1)
        unsafe_opt(cx, v, p, "an output file");
    check_args_visible(cx, v, p);
}

void sh_rule_date(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (short_has(t, 's') || long_is(t, "set", 2)) {
            unsafe_opt(cx, v, p, "--set (changes the clock)");
            return;
        }
        if (t[0] == '-' && strchr("dfr", t[1]) && !t[2]) {
            j++;
            continue;
        }
        if (t[0] != '-' && t[0] != '+') {
            unsafe_opt(cx, v, p, "an operand (sets the clock)");
            return;
        }
    }
    check_args_visible(cx, v, p);
}

void sh_rule_no_operands(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++)
        if (W(j)[0] != '-' || short_has(W(j), 'F') || long_is(W(j), "file", 3)) {
            unsafe_opt(cx, v, p, "an operand (changes the system)");
            return;
        }
}

/* Programs that are read-only unless one of a few options appears. */
void sh_rule_forbid(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const struct { const char *prog; const char *opt; } forbid[] = {
        { "dmesg", "-c" }, { "dmesg", "-C" }, { "dmesg", "--clear" }, { "dmesg", "--read-clear" },
        { "dmesg", "-D" }, { "dmesg", "-E" }, { "dmesg", "-n" },
        { "rg", "--pre" }, { "rg", "--pre-glob" },
        { "tree", "-o" },
        { "xxd", "-r" }, { "xxd", "-revert" },
        { "history", "-c" }, { "history", "-d" }, { "history", "-w" }, { "history", "-a" },
    };
    int operands = 0;
    for (int j = v->i + 1; j < v->end; j++)
        operands += W(j)[0] != '-' && (j == v->i + 1 || W(j - 1)[0] != '-' || W(j - 1)[2] || !strchr("cglos", W(j - 1)[1]));
    if (strcmp(p->name, "xxd") == 0 && operands >= 2) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", "xxd writes its second operand", NULL, NULL, v->via);
        return;
    }
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strcmp(p->name, "yq") == 0 && (strcmp(t, "-i") == 0 || strncmp(t, "--inplace", 9) == 0)) {
            unsafe_opt(cx, v, p, t);
            return;
        }
        for (size_t k = 0; k < sizeof forbid / sizeof *forbid; k++) {
            if (strcmp(forbid[k].prog, p->name) != 0)
                continue;
            size_t ol = strlen(forbid[k].opt);
            if ((ol == 0 && strcmp(t, "-p") != 0) || (ol && strncmp(t, forbid[k].opt, ol) == 0 &&
                                                       (t[ol] == '\0' || t[ol] == '=' || ol == 2))) {
                unsafe_opt(cx, v, p, ol ? forbid[k].opt : "a definition");
                return;
            }
        }
    }
}

void sh_rule_alias(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int defines = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j), *eq = strchr(t, '=');
        if (!eq || t[0] == '-')
            continue;
        defines = 1;
        if (FL(j) & SH_W_OPAQUE) {
            unseen(cx, v, "alias", " defines a command it cannot see");
            return;
        }
        run_script(cx, eq + 1, strlen(eq + 1), "inside alias");
    }
    if (defines)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unsafe_option", p->name,
                   " changes what later commands run", NULL, v->via);
}

void sh_rule_cd(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    (void)p;
    int j = v->i + 1;
    while (j < v->end && W(j)[0] == '-' && W(j)[1])
        j++;
    if (j >= v->end) {
        cx->cwd = SH_CWD_HOME;
        return;
    }
    if (strcmp(W(j), "-") == 0 || (FL(j) & (SH_W_TRUNC | SH_W_CTRL))) {
        cx->cwd = SH_CWD_OPAQUE;
        return;
    }
    int cls = sh_word_target(cx, v, j);
    if (cls == SH_T_OPAQUE)
        cx->cwd = (FL(j) & SH_W_QUOTED) ? SH_CWD_OPAQUE : SH_CWD_HOME;  /* cd $EMPTY goes home */
    else if (cls == SH_T_SYSTEM)
        cx->cwd = sh_cwd_after_cd(W(j), v->c->w[j].len, cls);
    else if (cls == SH_T_ROOT)
        cx->cwd = SH_CWD_ROOT;
    else if (cls == SH_T_HOME)
        cx->cwd = SH_CWD_HOME;
    else
        cx->cwd = SH_CWD_PROJECT;
}

void sh_rule_declare(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int operands = 0, print = 0, arith = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-' && t[1]) {
            print |= strpbrk(t + 1, "px") != NULL;
            arith |= strchr(t + 1, 'i') != NULL;
            continue;
        }
        operands++;
        if (sh_assignment_name(v->c, j)) {
            sh_check_assignment(cx, v, j);
            if (arith)
                sh_arith_text(cx, t, v->c->w[j].len);   /* declare -i n='$(...)' evaluates it */
        }
    }
    if (!operands && (print || v->end - v->i == 1) && strcmp(p->name, "local") != 0)
        env_dump(cx, v, p->name, " prints every variable with its value");
}

/* ---- network ----------------------------------------------------------------- */

enum { K_OK, K_HEAD, K_DATA, K_WRITE, K_METHOD, K_OTHER };

typedef struct {
    const char *name;
    char shortopt;
    int arg;
    int kind;
} netopt;

static const netopt curl_opts[] = {
    { "user-agent", 'A', 1, K_OK }, { "cookie", 'b', 1, K_OK }, { "cookie-jar", 'c', 1, K_WRITE },
    { "continue-at", 'C', 1, K_OK }, { "data", 'd', 1, K_DATA }, { "dump-header", 'D', 1, K_WRITE },
    { "referer", 'e', 1, K_OK }, { "cert", 'E', 1, K_OK }, { "form", 'F', 1, K_DATA },
    { "fail", 'f', 0, K_OK }, { "get", 'G', 0, K_OK }, { "header", 'H', 1, K_OK },
    { "head", 'I', 0, K_HEAD }, { "include", 'i', 0, K_OK }, { "insecure", 'k', 0, K_OK },
    { "config", 'K', 1, K_OTHER }, { "location", 'L', 0, K_OK }, { "max-time", 'm', 1, K_OK },
    { "output", 'o', 1, K_WRITE }, { "remote-name", 'O', 0, K_WRITE }, { "range", 'r', 1, K_OK },
    { "silent", 's', 0, K_OK }, { "show-error", 'S', 0, K_OK }, { "upload-file", 'T', 1, K_DATA },
    { "user", 'u', 1, K_OK }, { "verbose", 'v', 0, K_OK }, { "write-out", 'w', 1, K_OK },
    { "proxy", 'x', 1, K_OK }, { "request", 'X', 1, K_METHOD }, { "ipv4", '4', 0, K_OK },
    { "ipv6", '6', 0, K_OK }, { "no-buffer", 'N', 0, K_OK }, { "quote", 'Q', 1, K_OTHER },
    { "data-ascii", 0, 1, K_DATA }, { "data-binary", 0, 1, K_DATA }, { "data-raw", 0, 1, K_DATA },
    { "data-urlencode", 0, 1, K_DATA }, { "form-string", 0, 1, K_DATA }, { "json", 0, 1, K_DATA },
    { "compressed", 0, 0, K_OK }, { "connect-timeout", 0, 1, K_OK }, { "retry", 0, 1, K_OK },
    { "no-progress-meter", 0, 0, K_OK }, { "http1.1", 0, 0, K_OK }, { "http2", 0, 0, K_OK },
    { "remote-name-all", 0, 0, K_WRITE }, { "output-dir", 0, 1, K_WRITE }, { "trace", 0, 1, K_WRITE },
    { "trace-ascii", 0, 1, K_WRITE }, { "stderr", 0, 1, K_WRITE }, { "url", 0, 1, K_OK },
    { "max-filesize", 0, 1, K_OK }, { "limit-rate", 0, 1, K_OK }, { "resolve", 0, 1, K_OK },
    { "location-trusted", 0, 0, K_OK }, { "progress-bar", '#', 0, K_OK },
    { "upload", 0, 0, K_DATA }, { "post301", 0, 0, K_OK },
    { "spider", 0, 0, K_HEAD }, { "post-data", 0, 1, K_DATA }, { "post-file", 0, 1, K_DATA },
    { "body-data", 0, 1, K_DATA }, { "body-file", 0, 1, K_DATA }, { "method", 0, 1, K_METHOD },
    { "output-document", 'O', 1, K_WRITE }, { "quiet", 'q', 0, K_OK }, { "execute", 0, 1, K_OTHER },
};

void sh_rule_net_fetch(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int wget = strcmp(p->name, "wget") == 0;
    int head = 0, data = 0, write = !wget ? 0 : 1, other = 0, method_write = 0, opaque = 0;
    const char *data_opt = NULL, *scheme = NULL;
    if (sh_version_query(v))
        return;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE)
            opaque = 1;
        const char *colon = strstr(t, "://");
        if (colon && !(colon - t == 4 && strncasecmp(t, "http", 4) == 0) &&
            !(colon - t == 5 && strncasecmp(t, "https", 5) == 0) && t[0] != '-')
            scheme = t;
        if (t[0] != '-' || !t[1])
            continue;
        const netopt *o = NULL;
        const char *arg = NULL;
        if (t[1] == '-') {
            size_t len = strcspn(t + 2, "=");
            for (size_t k = 0; k < sizeof curl_opts / sizeof *curl_opts; k++)
                if (curl_opts[k].name[0] == t[2] && strncmp(curl_opts[k].name, t + 2, len) == 0 &&
                    curl_opts[k].name[len] == '\0')
                    o = &curl_opts[k];
            if (!o) {
                other = 1;
                continue;
            }
            arg = t[2 + len] == '=' ? t + 3 + len : NULL;
            if (o->arg && !arg && j + 1 < v->end)
                arg = W(++j);
            if (o->kind == K_DATA && !data_opt)
                data_opt = t;
        } else {
            for (int k = 1; t[k]; k++) {
                o = NULL;
                for (size_t m = 0; m < sizeof curl_opts / sizeof *curl_opts; m++)
                    if (curl_opts[m].shortopt == t[k] &&
                        (!wget || curl_opts[m].kind != K_DATA))
                        o = &curl_opts[m];
                if (wget && t[k] == 'O')
                    o = &curl_opts[sizeof curl_opts / sizeof *curl_opts - 3];
                if (wget && t[k] == 'S')
                    continue;
                if (!o) {
                    other = 1;
                    break;
                }
                if (o->kind == K_DATA && !data_opt)
                    data_opt = t;
                if (o->arg) {
                    arg = t[k + 1] ? t + k + 1 : (j + 1 < v->end ? W(j + 1) : NULL);
                    if (!t[k + 1])
                        j++;
                    break;
                }
                if (o->kind == K_HEAD) head = 1;
                else if (o->kind == K_WRITE) write = 1;
                else if (o->kind == K_OTHER) other = 1;
            }
            if (!o)
                continue;
        }
        switch (o->kind) {
        case K_HEAD: head = 1; if (wget) write = 0; break;
        case K_DATA: data = 1; break;
        case K_WRITE:
            write = !(arg && (strcmp(arg, "-") == 0 || strcmp(arg, "/dev/null") == 0));
            if (arg && sh_is_raw_disk(arg, strlen(arg))) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", p->name,
                           " downloads onto the raw disk ", arg, v->via);
                return;
            }
            if (arg && sh_check_persist_write(cx, v, arg, strlen(arg), p->name, 0))
                return;
            if (arg && write)
                sh_file_written(cx, arg, strlen(arg), NULL, -1);
            break;
        case K_METHOD:
            if (arg && strcasecmp(arg, "GET") != 0 && strcasecmp(arg, "HEAD") != 0)
                method_write = 1;
            break;
        case K_OTHER: other = 1; break;
        default: break;
        }
    }
    if (scheme && !data) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_send", p->name,
                   " uses a URL scheme other than http(s) (file:, gopher:, dict:, ...): ", scheme, v->via);
        return;
    }
    if (data) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.exfiltration", p->name,
                   " sends local data to a server with ", data_opt ? data_opt : "an upload option", v->via);
        return;
    }
    if (opaque) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.exfiltration", p->name,
                   " sends a request built from an expansion it cannot see", NULL, v->via);
        return;
    }
    if (method_write) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_write", p->name,
                   " changes a remote resource (-X)", NULL, v->via);
        return;
    }
    if (write || other) {
        sh_verdict(cx, WG_SHELL_RISKY, write ? "bash.writes_file" : "bash.unsafe_option", p->name,
                   write ? " downloads into a file" : " uses an option outside the read-only set",
                   NULL, v->via);
        return;
    }
    if (!head)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.network", p->name,
                   " fetches from the network (only --head/-I or --spider run silently)", NULL, v->via);
}

/* ---- git ----------------------------------------------------------------------- */

static int protected_branch(const char *ref, size_t n)
{
    static const char *const prot[] = { "main", "master", "production" };
    while (n && (*ref == ' ' || *ref == '\t'))
        ref++, n--;
    while (n && (ref[n - 1] == ' ' || ref[n - 1] == '\t'))
        n--;
    if (n >= 11 && strncasecmp(ref, "refs/heads/", 11) == 0)
        ref += 11, n -= 11;
    for (size_t k = 0; k < 3; k++)
        if (strlen(prot[k]) == n && strncasecmp(prot[k], ref, n) == 0)
            return 1;
    return 0;
}

int sh_git_protected_branch(const char *ref, size_t n)
{
    return protected_branch(ref, n);
}

static void git_push(sh_ctx *cx, const sh_view *v, int j)
{
    static const char *const argopts[] = { "--repo", "--receive-pack", "--exec", "--push-option", NULL };
    int force = 0, del = 0, mirror = 0, nref = 0, remote_seen = 0, unseen_ref = 0, all = 0;
    const char *prot = NULL;
    for (; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-' && t[1]) {
            if (t[1] == '-') {
                if (strncmp(t, "--force", 7) == 0 && strncmp(t, "--force-if-includes", 19) != 0)
                    force = 1;
                del |= strcmp(t, "--delete") == 0 || strcmp(t, "--prune") == 0;
                mirror |= strcmp(t, "--mirror") == 0;
                all |= strcmp(t, "--all") == 0 || strcmp(t, "--branches") == 0;
                if (in_set(t, argopts))
                    j++;
            } else {
                force |= strchr(t + 1, 'f') != NULL;
                del |= strchr(t + 1, 'd') != NULL;
                if (strchr(t + 1, 'o') && !t[2])
                    j++;
            }
            continue;
        }
        if (!remote_seen) {
            remote_seen = 1;
            continue;
        }
        nref++;
        if (FL(j) & SH_W_OPAQUE) {
            unseen_ref = 1;
            continue;
        }
        const char *r = t;
        int plus = r[0] == '+';
        if (plus)
            r++;
        const char *colon = strrchr(r, ':');
        const char *dst = colon ? colon + 1 : r;
        int rdel = colon && colon == r;
        if (plus)
            force = 1;                  /* +REF force-pushes REF */
        if (strcasecmp(dst, "HEAD") == 0 || (FL(j) & (SH_W_GLOB | SH_W_BRACE)) || strchr(dst, '*'))
            unseen_ref = 1;             /* HEAD, refs/heads/star: main may be among them */
        if (protected_branch(dst, strlen(dst))) {
            if (plus)
                force = 1;
            if (rdel)
                del = 1;
            prot = t;
            if (plus || rdel)
                break;
        }
    }
    if (mirror || ((force) && all)) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.force_push_protected",
                   "git push ", mirror ? "--mirror" : "--all --force",
                   " overwrites every remote branch, main included", v->via);
        return;
    }
    if (force && (prot || nref == 0 || unseen_ref)) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.force_push_protected",
                   "git push --force ", prot ? "targets a protected branch: " :
                   "targets a branch it cannot see (it may be main)", prot, v->via);
        return;
    }
    if (del && (prot || unseen_ref)) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.delete_protected_branch",
                   "git push --delete removes a protected branch", prot ? ": " : "", prot, v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.git_push", "git push publishes commits to a remote",
               NULL, NULL, v->via);
}

typedef enum { G_READ, G_LISTING, G_RISKY, G_DESTRUCTIVE, G_PUSH, G_VERBS } git_kind;

typedef struct {
    const char *sub;
    git_kind kind;
    const char *const *forbid;   /* for G_LISTING: options that write */
} git_sub;

static const char *const F_branch[] = {
    "-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "--delete", "--move", "--copy",
    "--force", "--set-upstream-to", "--unset-upstream", "--edit-description", "--track",
    "--no-track", "--create-reflog", NULL,
};
static const char *const F_tag[] = { "-d", "-a", "-s", "-u", "-m", "-F", "-f", "-e", "--delete",
                                     "--annotate", "--sign", "--message", "--file", "--force", NULL };
static const char *const F_remote[] = { "add", "remove", "rm", "rename", "set-url", "set-head",
                                        "prune", "update", "set-branches", NULL };
/* G_VERBS: the read-only second words */
static const char *const V_worktree[] = { "list", NULL };
static const char *const V_submodule[] = { "status", "summary", NULL };
static const char *const V_bisect[] = { "log", "visualize", "view", NULL };
static const char *const V_notes[] = { "list", "show", NULL };
static const char *const F_stash[] = { "push", "save", "pop", "apply", "drop", "clear",
                                       "create", "store", "branch", NULL };

static const git_sub git_subs[] = {
    { "add", G_RISKY, NULL }, { "annotate", G_READ, NULL }, { "bisect", G_VERBS, V_bisect },
    { "blame", G_READ, NULL }, { "branch", G_LISTING, F_branch },
    { "cat-file", G_READ, NULL }, { "check-attr", G_READ, NULL }, { "check-ignore", G_READ, NULL },
    { "check-ref-format", G_READ, NULL }, { "checkout", G_RISKY, NULL }, { "cherry", G_READ, NULL },
    { "cherry-pick", G_DESTRUCTIVE, NULL },
    { "clean", G_DESTRUCTIVE, NULL }, { "clone", G_RISKY, NULL }, { "commit", G_RISKY, NULL },
    { "config", G_LISTING, NULL }, { "count-objects", G_READ, NULL }, { "describe", G_READ, NULL },
    { "diff", G_READ, NULL }, { "diff-files", G_READ, NULL }, { "diff-index", G_READ, NULL },
    { "diff-tree", G_READ, NULL }, { "fetch", G_RISKY, NULL }, { "filter-branch", G_DESTRUCTIVE, NULL },
    { "for-each-ref", G_READ, NULL }, { "fsck", G_READ, NULL }, { "gc", G_RISKY, NULL },
    { "grep", G_READ, NULL },
    { "help", G_READ, NULL }, { "log", G_READ, NULL }, { "ls-files", G_READ, NULL },
    { "ls-remote", G_READ, NULL }, { "ls-tree", G_READ, NULL }, { "merge", G_DESTRUCTIVE, NULL },
    { "merge-base", G_READ, NULL }, { "name-rev", G_READ, NULL }, { "notes", G_VERBS, V_notes },
    { "pull", G_RISKY, NULL }, { "push", G_PUSH, NULL }, { "range-diff", G_READ, NULL },
    { "rebase", G_DESTRUCTIVE, NULL }, { "reflog", G_LISTING, NULL },
    { "remote", G_LISTING, F_remote }, { "reset", G_DESTRUCTIVE, NULL },
    { "restore", G_DESTRUCTIVE, NULL }, { "rev-list", G_READ, NULL }, { "rev-parse", G_READ, NULL },
    { "revert", G_RISKY, NULL }, { "rm", G_RISKY, NULL }, { "shortlog", G_READ, NULL },
    { "show", G_READ, NULL }, { "show-branch", G_READ, NULL }, { "show-ref", G_READ, NULL },
    { "stash", G_LISTING, F_stash }, { "status", G_READ, NULL }, { "submodule", G_VERBS, V_submodule },
    { "switch", G_RISKY, NULL }, { "tag", G_LISTING, F_tag }, { "update-ref", G_DESTRUCTIVE, NULL },
    { "var", G_READ, NULL }, { "verify-commit", G_READ, NULL }, { "verify-tag", G_READ, NULL },
    { "version", G_READ, NULL }, { "whatchanged", G_READ, NULL }, { "worktree", G_VERBS, V_worktree },
};

/* Options that make a read-only git command write or run programs. */
static int git_bad_option(const char *t)
{
    if (t[0] != '-')
        return 0;
    return strncmp(t, "--output", 8) == 0 || strncmp(t, "--ext-diff", 10) == 0 ||
           strncmp(t, "--exec", 6) == 0 || strncmp(t, "--open-files-in-pager", 21) == 0 ||
           (t[0] == '-' && t[1] == 'O') || strncmp(t, "--upload-pack", 13) == 0 ||
           strncmp(t, "--textconv", 10) == 0;
}

static void git_listing(sh_ctx *cx, const sh_view *v, const git_sub *g, int j)
{
    int operands = 0, list = 0;
    const char *sub = g->sub;
    if (strcmp(sub, "config") == 0) {
        for (int k = j; k < v->end; k++)
            if (strncmp(W(k), "--get", 5) == 0 || strcmp(W(k), "--list") == 0 ||
                strcmp(W(k), "-l") == 0)
                return;
        int unset = 0;
        for (int k = j; k < v->end; k++) {
            unset |= strncmp(W(k), "--unset", 7) == 0 || strncmp(W(k), "--remove", 8) == 0;
            if (W(k)[0] == '-')
                continue;
            if (!unset && k + 1 < v->end && sh_git_exec_key(W(k), v->c->w[k].len)) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", "git config ", W(k),
                           " sets a program git runs later", v->via);
                return;
            }
            break;
        }
        sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git config ", "changes settings", NULL, v->via);
        return;
    }
    if (strcmp(sub, "reflog") == 0) {
        if (j < v->end && (strcmp(W(j), "expire") == 0 || strcmp(W(j), "delete") == 0))
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.git_destructive", "git reflog ", W(j),
                       " drops history", v->via);
        return;
    }
    if (strcmp(sub, "remote") == 0 || strcmp(sub, "stash") == 0) {
        if (j < v->end && in_set(W(j), g->forbid)) {
            int bad = strcmp(W(j), "drop") == 0 || strcmp(W(j), "clear") == 0 ||
                      strcmp(W(j), "set-url") == 0 || strcmp(W(j), "add") == 0 ||
                      strcmp(W(j), "remove") == 0 || strcmp(W(j), "rm") == 0;
            sh_verdict(cx, bad ? WG_SHELL_DESTRUCTIVE : WG_SHELL_RISKY,
                       bad ? "bash.git_destructive" : "bash.git", "git ", sub, " changes the repository",
                       v->via);
        } else if (strcmp(sub, "stash") == 0 && j >= v->end) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git stash ", "changes the working tree",
                       NULL, v->via);
        }
        return;
    }
    /* branch, tag: listing forms only */
    for (int k = j; k < v->end; k++) {
        const char *t = W(k);
        if (t[0] == '-') {
            if (in_set(t, g->forbid) || (t[1] != '-' && strpbrk(t + 1, "dDmMcCfu"))) {
                int del = strpbrk(t + 1, "dD") != NULL || strcmp(t, "--delete") == 0;
                sh_verdict(cx, del ? WG_SHELL_DESTRUCTIVE : WG_SHELL_RISKY,
                           del ? "bash.git_destructive" : "bash.git", "git ", sub,
                           del ? " deletes a ref" : " changes refs", v->via);
                return;
            }
            list |= strcmp(t, "-l") == 0 || strcmp(t, "--list") == 0 || strcmp(t, "-a") == 0 ||
                    strcmp(t, "-r") == 0 || strncmp(t, "--contains", 10) == 0 ||
                    strncmp(t, "--merged", 8) == 0 || strncmp(t, "--no-merged", 11) == 0 ||
                    strncmp(t, "--points-at", 11) == 0;
            continue;
        }
        operands++;
    }
    if (operands && !list)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git ", sub, " creates a ref", v->via);
}

void sh_rule_git(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    (void)p;
    int j = v->i + 1, cdir = -1;
    const char *alias = NULL, *alias_val = NULL;
    size_t alias_len = 0;
    while (j < v->end && W(j)[0] == '-') {
        const char *t = W(j);
        if (strcmp(t, "-C") == 0 && j + 1 < v->end)
            cdir = sh_word_target(cx, v, j + 1);
        if (strcmp(t, "-c") == 0 && j + 1 < v->end && strncasecmp(W(j + 1), "alias.", 6) == 0 &&
            strchr(W(j + 1), '=') && strchr(W(j + 1), '=')[1] != '!') {
            alias = W(j + 1) + 6;       /* -c alias.p='push --force origin main' */
            alias_len = (size_t)(strchr(W(j + 1), '=') - alias);
            alias_val = strchr(W(j + 1), '=') + 1;
        }
        if (strcmp(t, "-c") == 0 || strncmp(t, "--config-env", 12) == 0 ||
            strncmp(t, "--exec-path=", 12) == 0) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.git_config_override",
                       "git -c overrides configuration (it can run programs)", NULL, NULL, v->via);
            if (strcmp(t, "-c") == 0 && j + 1 < v->end) {
                /* alias.x=!cmd, core.pager=cmd, core.sshCommand=cmd ... run
                 * shell text: read it */
                const char *kv = W(j + 1), *eq = strchr(kv, '=');
                if (eq && !(FL(j + 1) & SH_W_OPAQUE) && !(alias && alias_val == eq + 1)) {
                    const char *val = eq[1] == '!' ? eq + 2 : eq + 1;
                    run_script(cx, val, strlen(val), "inside git -c");
                } else if (FL(j + 1) & SH_W_OPAQUE) {
                    unseen(cx, v, "git -c", " sets configuration it cannot see");
                }
            }
            j += t[1] == 'c' ? 2 : 1;
            continue;
        }
        j += (strcmp(t, "-C") == 0 || strcmp(t, "--git-dir") == 0 ||
              strcmp(t, "--work-tree") == 0 || strcmp(t, "--namespace") == 0) ? 2 : 1;
    }
    if (j >= v->end)
        return;
    if (FL(j) & SH_W_OPAQUE) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.hidden_program",
                   "the git subcommand comes from an expansion it cannot see", NULL, NULL, v->via);
        return;
    }
    const char *sub = W(j);
    if (alias && strlen(sub) == alias_len && strncmp(sub, alias, alias_len) == 0) {
        /* the alias runs git with its value, then the rest of the command */
        size_t rest = 0, vl = strlen(alias_val);
        if (j + 1 < v->end)
            rest = v->c->w[v->end - 1].raw_off + v->c->w[v->end - 1].raw_len - v->c->w[j + 1].raw_off;
        uint32_t mark;
        char *buf = sh_scratch(cx, vl + rest + 8, &mark);
        if (buf) {
            memcpy(buf, "git ", 4);
            memcpy(buf + 4, alias_val, vl);
            buf[4 + vl] = ' ';
            if (rest)
                memcpy(buf + 5 + vl, v->c->src + v->c->w[j + 1].raw_off, rest);
            run_script(cx, buf, 5 + vl + rest, "through a git alias");
            sh_scratch_release(cx, mark);
        }
        return;
    }
    const git_sub *g = NULL;
    size_t lo = 0, hi = sizeof git_subs / sizeof *git_subs;
    while (lo < hi) {                   /* git_subs is sorted */
        size_t mid = (lo + hi) / 2;
        int c = strcmp(sub, git_subs[mid].sub);
        if (c == 0) {
            g = &git_subs[mid];
            break;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (!g) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git ", sub, " is not a known read-only git command",
                   v->via);
        sh_probe_args(cx, v, j + 1);    /* git difftool -x 'CMD', git bisect run CMD */
        return;
    }
    j++;
    switch (g->kind) {
    case G_PUSH:
        git_push(cx, v, j);
        return;
    case G_VERBS:
        if (j < v->end && in_set(W(j), g->forbid))
            return;
        sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git ", sub, " changes the repository", v->via);
        return;
    case G_DESTRUCTIVE:
        if (strcmp(sub, "clean") == 0) {
            int dry = 0, worst = cdir >= 0 ? cdir
                              : cx->cwd == SH_CWD_ROOT ? SH_T_ROOT : cx->cwd == SH_CWD_HOME ? SH_T_HOME : -1;
            for (int k = j; k < v->end; k++) {
                const char *t = W(k);
                if (t[0] == '-') {
                    dry |= strcmp(t, "--dry-run") == 0 || (t[1] != '-' && strchr(t + 1, 'n'));
                    continue;
                }
                int cls = sh_word_target(cx, v, k);
                worst = cls > worst ? cls : worst;
            }
            if (dry)
                return;
            if (worst >= SH_T_SYSTEM) {
                sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(worst), "git clean deletes the untracked files of ",
                           sh_target_phrase(worst), NULL, v->via);
                return;
            }
        }
        if (strcmp(sub, "reset") == 0) {
            int hard = 0;
            for (int k = j; k < v->end; k++)
                hard |= strcmp(W(k), "--hard") == 0 || strcmp(W(k), "--merge") == 0 ||
                        strcmp(W(k), "--keep") == 0;
            if (!hard) {
                sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git reset ", "moves the branch", NULL, v->via);
                return;
            }
        }
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.git_destructive", "git ", sub,
                   " rewrites history or discards work", v->via);
        return;
    case G_RISKY:
        if (strcmp(sub, "checkout") == 0)
            for (int k = j; k < v->end; k++)
                if (strcmp(W(k), "--") == 0 || strcmp(W(k), ".") == 0 || strcmp(W(k), "-f") == 0) {
                    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.git_destructive", "git checkout ",
                               W(k), " discards local changes", v->via);
                    return;
                }
        sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git ", sub, " changes the repository", v->via);
        return;
    case G_LISTING:
    case G_READ:
        for (int k = j; k < v->end; k++) {
            if (git_bad_option(W(k))) {
                sh_verdict(cx, WG_SHELL_RISKY, "bash.unsafe_option", "git ", sub,
                           " with an option that writes or runs programs", v->via);
                return;
            }
            if (FL(k) & SH_W_CMDSUB) {
                sh_verdict(cx, WG_SHELL_RISKY, "bash.unchecked_args", "git ", sub,
                           " gets arguments from a command substitution", v->via);
                return;
            }
        }
        if (strcmp(sub, "show") == 0 || strcmp(sub, "cat-file") == 0 || strcmp(sub, "diff") == 0 ||
            strcmp(sub, "grep") == 0 || strcmp(sub, "blame") == 0 || strcmp(sub, "log") == 0) {
            for (int k = j; k < v->end; k++) {
                const char *t = W(k), *colon = strchr(t, ':');
                if (colon && colon[1])
                    sh_check_secret_path(cx, v, "git show", colon + 1, strlen(colon + 1));
                else if (t[0] != '-')
                    sh_check_secret_path(cx, v, "git", t, v->c->w[k].len);
            }
        }
        if (g->kind == G_LISTING)
            git_listing(cx, v, g, j);
        return;
    }
}

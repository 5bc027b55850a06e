/* readonly.c - read-only programs whose options matter: find, fd, sed,
 * awk, sort, uniq, date, programs with a few forbidden options, and the
 * builtins alias, cd and declare. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

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
 * the s flags e and w are refused; an e command's text (`1e CMD`) is then
 * *run (to the end of its line), else *run is NULL. */
static int sed_script_ok_run(const char *s, const char **run, size_t *run_len)
{
    *run = NULL;
    *run_len = 0;
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
                if (i < n && (s[i] == '+' || s[i] == '~')) {
                    i++;                /* GNU addr,+N and addr,~N: the next N lines, a multiple */
                    while (i < n && s[i] >= '0' && s[i] <= '9')
                        i++;
                    while (i < n && (s[i] == ' ' || s[i] == '\t'))
                        i++;
                    break;
                }
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
        if (cmd == 'e') {
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            size_t e = i;
            while (e < n && s[e] != '\n')
                e++;
            *run = s + i;
            *run_len = e - i;
            return 0;
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

/* 1 when the rule refuses sed script sc (the verdict given): when it has an
 * e command, the command it runs is probed too (sed -n '1e sudo reboot' is
 * never-autopass). */
static int sed_refuses(sh_ctx *cx, const sh_view *v, const sh_program *p, const char *sc)
{
    const char *run;
    size_t len;
    if (sed_script_ok_run(sc, &run, &len))
        return 0;
    sh_unsafe_opt(cx, v, p, "a script that can write or run commands");
    if (run)
        sh_probe_text(cx, run, len);
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
                if (sh_check_edited(cx, v, p->name))
                    return;
                sh_unsafe_opt(cx, v, p, "--in-place (edits files)");
                return;
            }
            if (long_is(t, "file", 2)) {
                sh_unsafe_opt(cx, v, p, "--file (a script it cannot see)");
                return;
            }
            if (long_is(t, "expression", 2)) {
                const char *e = strchr(t, '=');
                const char *sc = e ? e + 1 : (j + 1 < v->end ? W(j + 1) : "");
                if (!e)
                    j++;
                script_given = 1;
                if (sed_refuses(cx, v, p, sc))
                    return;
            }
            continue;
        }
        if (t[0] == '-' && t[1]) {
            for (int k = 1; t[k]; k++) {
                if (t[k] == 'i') {
                    if (sh_check_edited(cx, v, p->name))
                        return;
                    sh_unsafe_opt(cx, v, p, "-i (edits files in place)");
                    return;
                }
                if (t[k] == 'f') {
                    sh_unsafe_opt(cx, v, p, "-f (a script it cannot see)");
                    return;
                }
                if (t[k] == 'e' || t[k] == 'l') {
                    const char *sc = t[k + 1] ? t + k + 1 : (j + 1 < v->end ? W(j + 1) : "");
                    if (!t[k + 1])
                        j++;
                    if (t[k] == 'e') {
                        script_given = 1;
                        if (sed_refuses(cx, v, p, sc))
                            return;
                    }
                    break;
                }
            }
            continue;
        }
        if (!script_given) {
            script_given = 1;
            if (sed_refuses(cx, v, p, t))
                return;
        }
    }
}

/* Does an awk program write a file or talk to a command through a print
 * statement (`print > f`, `printf … >> f`, `print | "cmd"`, `print |& c`)?
 * Only a > or | inside a print or printf statement redirects; elsewhere they
 * compare or are a regular expression's alternation (`$3 >= 1000`,
 * `/GET|POST/`, `a || b`). Strings and regular expressions are skipped. A >
 * anywhere in a print statement counts, even in parentheses (fail closed).
 * One pass, linear. */
static int awk_print_redirects(const char *s, size_t n)
{
    int in_print = 0;
    char prev = 0;                      /* the last byte that is not a blank */
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                i += s[i] == '\\';
            prev = '"';
            continue;
        }
        if (c == '/' && (prev == 0 || strchr("(,{;!~&|=\n}:?", prev))) {
            for (i++; i < n && s[i] != '/' && s[i] != '\n'; i++)
                i += s[i] == '\\';
            prev = '/';
            continue;
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            size_t b = i;
            while (i + 1 < n && ((s[i + 1] >= 'a' && s[i + 1] <= 'z') || (s[i + 1] >= 'A' && s[i + 1] <= 'Z') ||
                                 (s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == '_'))
                i++;
            size_t len = i - b + 1;
            if ((len == 5 && memcmp(s + b, "print", 5) == 0) || (len == 6 && memcmp(s + b, "printf", 6) == 0))
                in_print = 1;
            prev = 'a';
            continue;
        }
        if (c == ';' || c == '{' || c == '}' || c == '\n')
            in_print = 0;
        if (in_print && c == '>')
            return 1;
        if (in_print && c == '|' && !(i + 1 < n && s[i + 1] == '|') && prev != '|')
            return 1;
        if (c != ' ' && c != '\t')
            prev = c;
    }
    return 0;
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
        if ((strcmp(t, "-i") == 0 || strcmp(t, "--include") == 0) && j + 1 < v->end &&
            strcmp(W(j + 1), "inplace") == 0 && sh_check_edited(cx, v, p->name))
            return;                     /* gawk -i inplace '...' ~/.bashrc */
        if ((strcmp(t, "-iinplace") == 0 || strcmp(t, "--include=inplace") == 0) &&
            sh_check_edited(cx, v, p->name))
            return;
        if (t[1] == 'f' || t[1] == 'i' || t[1] == 'E' || strncmp(t, "--file", 6) == 0 ||
            strncmp(t, "--include", 9) == 0 || strncmp(t, "--exec", 6) == 0 ||
            strncmp(t, "--inplace", 9) == 0 || strncmp(t, "--load", 6) == 0) {
            sh_unsafe_opt(cx, v, p, "a program file it cannot see");
            return;
        }
        j += ((t[1] == 'F' || t[1] == 'v') && !t[2]) ? 2 : 1;
    }
    if (j >= v->end)
        return;
    const char *prog = W(j);
    if (sh_code_signal(cx, v, p->name, prog, v->c->w[j].len))
        return;
    if (strstr(prog, "ENVIRON"))
        sh_env_dump(cx, v, p->name, " prints environment variables (ENVIRON)");
    if (strstr(prog, "system") && v->c->piped_in && strchr(prog, '$')) {
        sh_unseen(cx, v, p->name, " runs lines piped in from another program (system($0))");
        return;
    }
    if ((FL(j) & SH_W_OPAQUE) || strstr(prog, "system") || awk_print_redirects(prog, v->c->w[j].len) ||
        strstr(prog, "getline") || strchr(prog, '@')) {
        /* awk -v c='rm -rf ~' 'BEGIN{system(c)}': a value the program may run */
        for (int k = v->i + 1; k + 1 < j; k++) {
            const char *eq = strchr(W(k + 1), '=');
            if (strcmp(W(k), "-v") == 0 && eq && !(FL(k + 1) & SH_W_OPAQUE))
                sh_run_script(cx, eq + 1, strlen(eq + 1), "in a value an awk program runs");
        }
        sh_unsafe_opt(cx, v, p, "a program that can write files or run commands");
        return;
    }
}

void sh_rule_sort(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if ((t[0] == '-' && t[1] != '-' && strchr(t + 1, 'o')) || long_is(t, "output", 2) ||
            long_is(t, "compress-program", 3)) {
            sh_unsafe_opt(cx, v, p, "-o (writes a file)");
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
        sh_unsafe_opt(cx, v, p, "an output file");
    check_args_visible(cx, v, p);
}

void sh_rule_date(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (short_has(t, 's') || long_is(t, "set", 2)) {
            sh_unsafe_opt(cx, v, p, "--set (changes the clock)");
            return;
        }
        if (t[0] == '-' && strchr("dfr", t[1]) && !t[2]) {
            j++;
            continue;
        }
        if (t[0] != '-' && t[0] != '+') {
            sh_unsafe_opt(cx, v, p, "an operand (sets the clock)");
            return;
        }
    }
    check_args_visible(cx, v, p);
}

void sh_rule_no_operands(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++)
        if (W(j)[0] != '-' || short_has(W(j), 'F') || long_is(W(j), "file", 3)) {
            sh_unsafe_opt(cx, v, p, "an operand (changes the system)");
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
            sh_unsafe_opt(cx, v, p, t);
            return;
        }
        for (size_t k = 0; k < sizeof forbid / sizeof *forbid; k++) {
            if (forbid[k].prog[0] != p->name[0] || strcmp(forbid[k].prog, p->name) != 0)
                continue;
            size_t ol = strlen(forbid[k].opt);
            if ((ol == 0 && strcmp(t, "-p") != 0) || (ol && strncmp(t, forbid[k].opt, ol) == 0 &&
                                                       (t[ol] == '\0' || t[ol] == '=' || ol == 2))) {
                sh_unsafe_opt(cx, v, p, ol ? forbid[k].opt : "a definition");
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
            sh_unseen(cx, v, "alias", " defines a command it cannot see");
            return;
        }
        sh_run_script(cx, eq + 1, strlen(eq + 1), "inside alias");
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
    else if (strcmp(W(j), "..") == 0 || strcmp(W(j), "../") == 0)
        cx->cwd = SH_CWD_OPAQUE;        /* the project's parent: ~ itself when the project is ~/proj */
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
            /* declare -n, typeset -n, local -n: a name reference aliases
             * one variable to another; the model does not follow it, so from
             * here on no variable has a value it can be sure of (like after
             * `source`): `$ref` in command position is a hidden program */
            if (strchr(t + 1, 'n') && t[1] != '-')
                cx->vars_unknown = 1;
            continue;
        }
        if ((FL(j) & SH_W_OPAQUE) && j == v->i + 1 && t[0] == SH_MARK)
            cx->vars_unknown = 1;       /* declare $OPTS r=X: the options cannot be seen */
        operands++;
        if (sh_assignment_name(v->c, j)) {
            sh_check_assignment(cx, v, j);
            if (arith)
                sh_arith_text(cx, t, v->c->w[j].len);   /* declare -i n='$(...)' evaluates it */
        }
    }
    if (!operands && (print || v->end - v->i == 1) && strcmp(p->name, "local") != 0)
        sh_env_dump(cx, v, p->name, " prints every variable with its value");
}

/* sysctl NAME, -a, -n NAME read; NAME=VALUE, -w, -p/--load, --system set
 * kernel parameters. ulimit -a, -n read; a value operand sets a limit. */
void sh_rule_sysctl(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int ulimit = strcmp(p->name, "ulimit") == 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        int sets = (FL(j) & SH_W_OPAQUE) || strchr(t, '=') != NULL;
        if (!ulimit)
            sets |= t[0] == '-' && (strpbrk(t + 1, "wpf") || strncmp(t, "--load", 6) == 0 ||
                                    strncmp(t, "--system", 8) == 0 || strncmp(t, "--write", 7) == 0);
        else
            sets |= (t[0] >= '0' && t[0] <= '9') || strcmp(t, "unlimited") == 0 ||
                    strcmp(t, "hard") == 0 || strcmp(t, "soft") == 0;
        if (sets) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.unsafe_option", p->name,
                       ulimit ? " sets a resource limit" : " sets a kernel parameter", NULL, v->via);
            return;
        }
    }
}

/* less/more +CMD runs CMD as if typed: +!sh starts a shell, +|... pipes to
 * one, +s FILE saves, +v opens an editor. Only movement and searches are
 * read-only: +123, +G, +F, +/pattern. -o/-O FILE write a log file; -k FILE
 * loads key bindings (which can run commands). */
static int pager_cmd_reads(const char *t)
{
    while (*t == '+')
        t++;
    if (strpbrk(t, "\n\r"))
        return 0;
    if (*t == '/' || *t == '?')
        return 1;
    size_t d = strspn(t, "0123456789");
    if (t[d] == '\0')
        return 1;
    return t[d + 1] == '\0' && strchr("GgFfp%", t[d]) != NULL;
}

void sh_rule_pager(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strcmp(t, "--") == 0)
            break;
        if (t[0] == '+' && !pager_cmd_reads(t)) {
            sh_unsafe_opt(cx, v, p, "a start-up command that may run a shell or write a file (+CMD)");
            const char *c = t + strspn(t, "+:");
            if (!(FL(j) & SH_W_OPAQUE) && (*c == '!' || *c == '|'))
                sh_probe_text(cx, c, v->c->w[j].len - (size_t)(c - t));   /* +!CMD, +'|sh': a shell command */
            return;
        }
        if (t[0] == '-' && t[1] != '-' && strpbrk(t + 1, "oOk")) {
            sh_unsafe_opt(cx, v, p, "a log or key-binding file (-o, -O, -k)");
            return;
        }
        if (long_is(t, "log-file", 3) || long_is(t, "LOG-FILE", 3) || long_is(t, "lesskey-file", 3) ||
            long_is(t, "lesskey-src", 9)) {
            sh_unsafe_opt(cx, v, p, "a log or key-binding file");
            return;
        }
    }
}

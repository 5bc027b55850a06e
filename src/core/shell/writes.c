/* writes.c - programs that write or move files and change permissions:
 * chmod/chown/chgrp, mv, cp/ln/tee/touch/... (ln -s is remembered for later
 * targets). */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

/* /etc, /usr/, //bin: one component under the root (not /tmp, whose mode is
 * set on purpose). chmod 000 /etc locks everyone out as surely as -R. */
static int top_level(const sh_view *v, int j)
{
    const char *t = W(j);
    size_t n = v->c->w[j].len;
    while (n > 0 && t[n - 1] == '/')
        n--;
    size_t i = 0;
    while (i < n && t[i] == '/')
        i++;
    if (i == 0 || memchr(t + i, '/', n - i) || (FL(j) & (SH_W_GLOB | SH_W_BRACE)))
        return 0;
    return !(n - i == 3 && memcmp(t + i, "tmp", 3) == 0);
}

/* A chmod mode that sets the set-user-ID or set-group-ID bit: u+s, g=rxs,
 * +s, or four octal digits with 4 or 2 in the first (4755, 2711, 6755).
 * A program so marked runs as its owner (root) for whoever starts it. */
static int sets_id_bit(const char *m)
{
    size_t n = strlen(m);
    if (n >= 4 && strspn(m, "01234567") == n)
        return (m[n - 4] - '0') & 6;
    int adding = 0;
    for (; *m; m++) {
        if (*m == '+' || *m == '=')
            adding = 1;
        else if (*m == '-' || *m == ',')
            adding = 0;
        else if (*m == 's' && adding)
            return 1;
    }
    return 0;
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
            if (strcmp(p->name, "chmod") == 0 && sets_id_bit(t)) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.privilege", p->name,
                           " sets the set-user-ID or set-group-ID bit",
                           " (the program then runs as its owner, often root)", v->via);
                return;
            }
            continue;
        }
        if (sh_check_vital(cx, v, &v->c->w[j], p->name, " changes who can use "))
            return;
        int cls = sh_word_target(cx, v, j);
        if (cls > worst)
            worst = cls;
        if (!rec && (cls == SH_T_ROOT || (cls == SH_T_SYSTEM && top_level(v, j)))) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.chmod_system", p->name, " changes ",
                       sh_target_phrase(cls), v->via);
            return;
        }
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
    if (n > 0 && !tdir) {
        sh_check_write(cx, v, &v->c->w[last], p->name);
        for (int j = v->i + 1; j < last && cx->out->cls < WG_SHELL_CRITICAL; j++)
            if (!is_opt(v, j))
                sh_check_persist_copy(cx, v, j, last, p->name);   /* mv x/.profile ~ */
    }
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
            append |= (strcmp(p->name, "tee") == 0 || strcmp(p->name, "sponge") == 0) &&
                      (short_has(W(j), 'a') || long_is(W(j), "append", 2));
            continue;
        }
        if (last_only) {
            last = j;
        } else if (v->tree && v->placeholder >= SH_T_SYSTEM && strstr(W(j), "{}")) {
            /* find / -exec truncate -s0 {} +: every file of the tree emptied */
            sh_verdict(cx, WG_SHELL_CRITICAL, crit_rule(v->placeholder), p->name,
                       " overwrites every file under ", sh_target_phrase(v->placeholder), v->via);
            return;
        } else {
            sh_check_write_mode(cx, v, &v->c->w[j], p->name, append);
        }
    }
    if (last >= 0) {
        sh_check_write(cx, v, &v->c->w[last], p->name);
        for (int j = v->i + 1; j < last && cx->out->cls < WG_SHELL_CRITICAL; j++)
            if (!is_opt(v, j) && strcmp(p->name, "ln") != 0)
                sh_check_persist_copy(cx, v, j, last, p->name);   /* cp .bashrc ~/ */
    }
    int real = 0;
    for (int j = v->i + 1; j < v->end; j++)
        real |= !is_opt(v, j) && strcmp(W(j), "/dev/null") != 0;
    if (strcmp(p->name, "ln") == 0)
        note_link(cx, v);
    if (real || strcmp(p->name, "tee") != 0)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", p->name, " writes files", NULL, v->via);
}

/* setcap cap_setuid+ep FILE: anyone who runs FILE can become root (like
 * chmod u+s): critical.privilege. Other capabilities change permissions. */
void sh_rule_setcap(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const root_caps[] = {
        "cap_setuid", "cap_setgid", "cap_sys_admin", "cap_dac_override", "cap_dac_read_search",
        "cap_sys_ptrace", "cap_sys_module", "cap_chown", "cap_fowner", "all", NULL,
    };
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-')
            continue;
        int root = t[0] == '=' || (FL(j) & SH_W_OPAQUE);     /* "=ep": every capability */
        /* the capability list: names separated by ',' before the operator (+ - =) */
        for (const char *q = t; *q && !root; ) {
            size_t n = strcspn(q, ",+-=");
            for (const char *const *c = root_caps; *c && !root; c++)
                root = strlen(*c) == n && strncasecmp(q, *c, n) == 0;
            q += n;
            if (*q != ',')
                break;
            q++;
        }
        if (root) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.privilege", p->name,
                       " gives a program root's powers (setuid, admin or all capabilities)", NULL, v->via);
            return;
        }
        break;
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.permissions", p->name, " changes file capabilities",
               NULL, v->via);
}

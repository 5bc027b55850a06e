/* delete.c - programs that delete: rm, shred, rsync --delete, the recursive
 * deleters (rimraf, srm, ...), tar --remove-files, unzip; critical when the
 * target is /, the home directory or a system directory (target.c). */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

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
        const char *last = strrchr(t, '/');
        int whole = (FL(j) & (SH_W_GLOB | SH_W_BRACE)) && last && strspn(last + 1, "*.") == strlen(last + 1);
        if ((!rec && !whole && sh_check_vital(cx, v, &v->c->w[j], "rm", " deletes ")) ||
            sh_check_agent_config(cx, v, &v->c->w[j], "rm", " deletes "))
            return;
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
        if (sh_check_vital(cx, v, &v->c->w[j], p->name, " destroys "))
            return;
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
        sh_unsafe_opt(cx, v, p, "an option that runs a program");
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

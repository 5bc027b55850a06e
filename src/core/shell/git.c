/* git.c - git: force-push and branch deletion of protected branches, the
 * subcommand table (read-only, listing, risky, destructive), git -c and
 * aliases. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

static int protected_branch(const char *ref, size_t n)
{
    static const char *const prot[] = { "main", "master", "production" };
    while (n && (*ref == ' ' || *ref == '\t'))
        ref++, n--;
    while (n && (ref[n - 1] == ' ' || ref[n - 1] == '\t'))
        n--;
    if (n >= 11 && strncasecmp(ref, "refs/heads/", 11) == 0)
        ref += 11, n -= 11;
    /* release/production, deploy/main: a protected name as the last part */
    const char *sl = n ? memrchr(ref, '/', n) : NULL;
    if (sl && sl + 1 < ref + n) {
        n -= (size_t)(sl + 1 - ref);
        ref = sl + 1;
    }
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
/* Subcommands that run a command they are given (rebase --exec CMD, bisect
 * run CMD, filter-branch --tree-filter CMD, difftool/mergetool -x CMD):
 * their arguments are probed like a launcher's. Not commit or tag: a
 * message that mentions `rm -rf /` runs nothing. (submodule foreach CMD is
 * run as a script below, which says more than a probe.) */
static const char *const runs_commands[] = {
    "bisect", "difftool", "filter-branch", "mergetool", "rebase", NULL,
};
static const char *const V_notes[] = { "list", "show", NULL };
static const char *const V_lfs[] = { "ls-files", "status", "env", "version", "locks", NULL };
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
    { "help", G_READ, NULL }, { "lfs", G_VERBS, V_lfs }, { "log", G_READ, NULL }, { "ls-files", G_READ, NULL },
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
    { "var", G_READ, NULL }, { "verify-commit", G_READ, NULL }, { "verify-pack", G_READ, NULL },
    { "verify-tag", G_READ, NULL },
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

/* `git config [--global|--show-origin|-f FILE|…] KEY`: one key and no
 * value is the old spelling of --get. Any other option, a second operand
 * (the value) or an expansion is a change. */
static int git_config_reads_one_key(const sh_view *v, int j)
{
    static const char *const flags[] = {
        "--global", "--system", "--local", "--worktree", "--show-origin", "--show-scope", "--bool",
        "--int", "--bool-or-int", "--path", "--expiry-date", "-z", "--null", "--includes",
        "--no-includes", NULL,
    };
    static const char *const with_value[] = { "-f", "--file", "--blob", "--type", "--default", NULL };
    int keys = 0;
    for (int k = j; k < v->end; k++) {
        const char *t = W(k);
        if (FL(k) & SH_W_OPAQUE)
            return 0;
        if (in_set(t, flags) || strncmp(t, "--type=", 7) == 0 || strncmp(t, "--file=", 7) == 0)
            continue;
        if (in_set(t, with_value) && k + 1 < v->end) {
            k++;
            continue;
        }
        if (t[0] == '-' || ++keys > 1)
            return 0;
    }
    return keys == 1;
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
        if (git_config_reads_one_key(v, j))
            return;
        /* git config get|list (git 2.46 subcommands): reads */
        if (j < v->end && (strcmp(W(j), "get") == 0 || strcmp(W(j), "list") == 0))
            return;
        static const char *const with_value[] = { "-f", "--file", "--blob", "--type", "--default",
                                                  "--comment", NULL };
        int unset = 0;
        for (int k = j; k < v->end; k++) {
            unset |= strncmp(W(k), "--unset", 7) == 0 || strncmp(W(k), "--remove", 8) == 0;
            if (in_set(W(k), with_value)) {
                k++;                    /* git config -f ~/.gitconfig core.pager ... */
                continue;
            }
            if (strcmp(W(k), "set") == 0)
                continue;               /* git config set KEY VALUE (git 2.46) */
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
        } else if (strcmp(sub, "stash") == 0 &&
                   (j >= v->end || (strcmp(W(j), "list") != 0 && strcmp(W(j), "show") != 0))) {
            /* git stash -u, git stash -m msg: options alone are `stash push` */
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

/* git --config-env=KEY=VAR: KEY takes the value of the environment
 * variable VAR. For a key whose value git runs (sh_git_exec_key: core.pager,
 * alias.*, credential.helper, ...) a value the model knows (X='...' git
 * --config-env=...) is read like -c's, and one it cannot see is text nobody
 * reads here; other keys (http.extraHeader from a secret, user.name) stay
 * the configuration override they are. */
static void config_env(sh_ctx *cx, const sh_view *v, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || !sh_git_exec_key(spec, (size_t)(eq - spec)))
        return;
    const char *val;
    uint32_t vlen;
    if (sh_var_value(cx, eq + 1, strlen(eq + 1), &val, &vlen)) {
        const char *cmd = vlen && val[0] == '!' ? val + 1 : val;
        sh_run_script(cx, cmd, vlen - (uint32_t)(cmd - val), "inside git --config-env");
        return;
    }
    sh_unseen(cx, v, "git --config-env", " sets a program-running key from an environment variable it cannot see");
}

/* strcmp's order without the library call (the subcommand search runs on
 * every git command). */
static int order(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
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
                    sh_run_script(cx, val, strlen(val), "inside git -c");
                } else if (FL(j + 1) & SH_W_OPAQUE) {
                    sh_unseen(cx, v, "git -c", " sets configuration it cannot see");
                }
            }
            int sep = strcmp(t, "--config-env") == 0;
            if (sep || strncmp(t, "--config-env=", 13) == 0)
                config_env(cx, v, sep ? (j + 1 < v->end ? W(j + 1) : "") : t + 13);
            j += t[1] == 'c' || sep ? 2 : 1;
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
            sh_run_script(cx, buf, 5 + vl + rest, "through a git alias");
            sh_scratch_release(cx, mark);
        }
        return;
    }
    const git_sub *g = NULL;
    size_t lo = 0, hi = sizeof git_subs / sizeof *git_subs;
    while (lo < hi) {                   /* git_subs is sorted */
        size_t mid = (lo + hi) / 2;
        int c = order(sub, git_subs[mid].sub);
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
    if (in_set(sub, runs_commands)) {
        sh_probe_args(cx, v, j);        /* git submodule foreach 'CMD', rebase -x 'CMD' */
        if (cx->out->cls == WG_SHELL_CRITICAL)
            return;
    }
    switch (g->kind) {
    case G_PUSH:
        git_push(cx, v, j);
        return;
    case G_VERBS:
        if (j < v->end && in_set(W(j), g->forbid))
            return;
        if (strcmp(sub, "submodule") == 0) {
            /* git submodule [--quiet] foreach [--recursive] CMD: sh runs CMD in every submodule */
            int k = j;
            while (k < v->end && W(k)[0] == '-')
                k++;
            if (k < v->end && strcmp(W(k), "foreach") == 0) {
                k++;
                while (k < v->end && W(k)[0] == '-')
                    k++;
                if (k >= v->end) {
                    sh_verdict(cx, WG_SHELL_RISKY, "bash.git", "git submodule foreach ",
                               "without a command", NULL, v->via);
                    return;
                }
                size_t len;
                uint32_t mark;
                char *buf = sh_join_scratch(cx, v, k, v->end, &len, &mark);
                if (!buf) {
                    sh_unseen(cx, v, "git submodule foreach", " runs text it cannot see");
                    return;
                }
                sh_run_script(cx, buf, len, "inside git submodule foreach");
                sh_scratch_release(cx, mark);
                return;
            }
        }
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
        if (sh_streq(sub, "show") || sh_streq(sub, "cat-file") || sh_streq(sub, "diff") ||
            sh_streq(sub, "grep") || sh_streq(sub, "blame") || sh_streq(sub, "log")) {
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

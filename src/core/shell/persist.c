/* persist.c - persistence and write-then-run (issue #10 §2): a
 * command that makes something run later, or runs what it just wrote.
 *
 *   start-up and scheduler files  writing ~/.bashrc, ~/.profile, ~/.zshrc,
 *       /etc/profile(.d), cron tables, systemd and launchd units, git hooks,
 *       ~/.ssh/authorized_keys, /etc/ld.so.preload, /etc/sudoers, ...
 *   settings that run commands     git config core.fsmonitor|core.pager|
 *       core.sshCommand|core.hooksPath|alias.*|..., the same through
 *       GIT_CONFIG_COUNT/KEY_n/VALUE_n, PS4 with a substitution, BASH_ENV,
 *       ENV, PROMPT_COMMAND
 *   installers                     crontab FILE|-, systemctl enable,
 *       launchctl load|bootstrap, schtasks /create, reg add ...\Run
 *   write then run                 a file written by this command (echo >
 *       x.sh, cat > x <<EOF, curl -o x, wget -O x) and then run (sh x.sh,
 *       ./x, source x): the text written is analysed as what runs, and a
 *       file whose text cannot be seen runs unseen text (critical).
 * Every finding is critical.persistence (never auto-passes), except the
 * write-then-run case, which is whatever the written text is.
 */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#define W(i) sh_wtext(v->c, (i))
#define FL(i) (v->c->w[(i)].flags)

/* File names that a shell, a login, an editor or an interpreter runs by
 * itself: a write of any of them (overwrite or append) is persistence.
 * Matched as the last path component, wherever the file is (relative paths
 * too: `cd ~ && echo x > .bashrc`). */
#define N(s) { s, sizeof s - 1 }
static const struct { const char *s; size_t n; } startup_names[] = {
    N(".bashrc"), N(".bash_profile"), N(".bash_login"), N(".bash_logout"), N(".bash_aliases"),
    N(".profile"), N(".zshrc"), N(".zprofile"), N(".zshenv"), N(".zlogin"), N(".zlogout"),
    N(".kshrc"), N(".mkshrc"), N(".cshrc"), N(".tcshrc"), N(".login"), N(".logout"), N(".xprofile"),
    N(".xinitrc"), N(".xsession"), N(".xsessionrc"), N(".envrc"), N(".vimrc"), N(".exrc"),
    N(".gitconfig"), N(".pam_environment"), N("config.fish"), N("authorized_keys"),
    N("authorized_keys2"), N("Microsoft.PowerShell_profile.ps1"), N("sitecustomize.py"),
    N("usercustomize.py"),
};
/* Directories (and absolute files) whose contents run later. */
static const struct { const char *s; size_t n; } startup_dirs[] = {
    N("/etc/profile"), N("/etc/bash"), N("/etc/zsh"), N("/etc/cron"), N("/var/spool/cron"),
    N("/etc/sudoers"), N("/etc/systemd/"), N("/.config/systemd/"), N("/.config/autostart/"),
    N("/LaunchAgents/"), N("/LaunchDaemons/"), N(".git/hooks/"), N("/etc/init.d/"), N("/etc/rc"),
    N("/etc/xdg/autostart/"), N("/.config/fish/"), N("/etc/environment"), N("/etc/ld.so.preload"),
    N("/etc/security/"), N("/etc/update-motd.d/"), N("/.ssh/rc"), N("/.config/powershell/"),
    N("/WindowsPowerShell/"), N(".git/config"), N("/.config/git/config"),
    N("/.config/environment.d/"), N("/etc/anacrontab"), N("/Programs/Startup/"),
    N("/Programs/StartUp/"),
};
#undef N

static int has_byte(const uint64_t set[4], char ch)
{
    return (set[(unsigned char)ch >> 6] >> ((unsigned char)ch & 63)) & 1;
}

const char *sh_persist_path(const char *t, size_t n)
{
    if (n == 0)
        return NULL;
    const char *slash = memrchr(t, '/', n);
    const char *base = slash ? slash + 1 : t;
    size_t bn = n - (size_t)(base - t);
    for (size_t i = 0; bn > 0 && i < sizeof startup_names / sizeof *startup_names; i++)
        if (startup_names[i].n == bn && base[0] == startup_names[i].s[0] &&
            memcmp(base, startup_names[i].s, bn) == 0)
            return "a shell start-up, login or profile file (it runs at every start)";
    if (!slash)
        return NULL;                    /* every directory row has a '/' */
    /* a row is inside t only if each of its bytes is: test three of them
     * against t's byte set before the search (this runs on every write) */
    uint64_t set[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < n; i++)
        set[(unsigned char)t[i] >> 6] |= (uint64_t)1 << ((unsigned char)t[i] & 63);
    for (size_t i = 0; i < sizeof startup_dirs / sizeof *startup_dirs; i++) {
        const char *d = startup_dirs[i].s;
        size_t k = startup_dirs[i].n;
        if (k > n || !has_byte(set, d[0]) || !has_byte(set, d[1]) || !has_byte(set, d[k / 2]) ||
            !has_byte(set, d[k - 1]))
            continue;
        if (memmem(t, n, d, k))
            return "a start-up file, scheduler entry or hook that runs commands later";
    }
    return NULL;
}

int sh_check_persist_write(sh_ctx *cx, const sh_view *v, const char *t, size_t n, const char *what)
{
    const char *why = sh_persist_path(t, n);
    if (!why)
        return 0;
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", what, " writes ", why, v->via);
    return 1;
}

int sh_check_persist_copy(sh_ctx *cx, const sh_view *v, int src, int dst, const char *what)
{
    const sh_cmd *c = v->c;
    const char *d = sh_wtext(c, dst);
    size_t dn = c->w[dst].len;
    int into_dir = (dn > 0 && d[dn - 1] == '/') || sh_word_target(cx, v, dst) == SH_T_HOME;
    if (!into_dir)
        return 0;
    const char *s = sh_wtext(c, src);
    size_t sn = c->w[src].len;
    const char *slash = memrchr(s, '/', sn);
    const char *base = slash ? slash + 1 : s;
    return sh_check_persist_write(cx, v, base, sn - (size_t)(base - s), what);
}

/* git configuration keys whose value git runs (or which change what runs). */
int sh_git_exec_key(const char *k, size_t n)
{
    static const char *const exact[] = {
        "core.fsmonitor", "core.pager", "core.sshcommand", "core.editor", "core.hookspath",
        "core.askpass", "core.gitproxy", "sequence.editor", "diff.external", "credential.helper",
        "gpg.program", "gpg.ssh.program", "pager.log", "pager.diff", "pager.show",
        "interactive.difffilter", "web.browser", "uploadpack.packobjectshook", "include.path",
    };
    char low[64];
    if (n == 0 || n >= sizeof low)
        return n >= sizeof low;
    for (size_t i = 0; i < n; i++)
        low[i] = (k[i] >= 'A' && k[i] <= 'Z') ? (char)(k[i] + 32) : k[i];
    low[n] = '\0';
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strcmp(low, exact[i]) == 0)
            return 1;
    if (strncmp(low, "alias.", 6) == 0 || strncmp(low, "pager.", 6) == 0 ||
        strncmp(low, "includeif.", 10) == 0)
        return 1;
    /* filter.X.clean|smudge|process, diff.X.textconv|command, merge.X.driver, ... */
    const char *last = strrchr(low, '.');
    static const char *const tails[] = {
        ".clean", ".smudge", ".process", ".textconv", ".command", ".driver", ".cmd", ".helper",
        ".program", ".tool",
    };
    for (size_t i = 0; last && i < sizeof tails / sizeof *tails; i++)
        if (strcmp(last, tails[i]) == 0)
            return 1;
    return 0;
}

/* NAME=value before or as a command: the variables that make later code
 * run (called for every assignment the model sees). */
void sh_check_persist_var(sh_ctx *cx, const sh_view *v, int i, const char *var, size_t k)
{
    char name[24];
    if (k >= sizeof name)
        return;
    memcpy(name, var, k);
    name[k] = '\0';
    const char *t = W(i);
    const char *val = t + k + 1;
    size_t vlen = v->c->w[i].len > k + 1 ? v->c->w[i].len - k - 1 : 0;
    if (*val == '=')
        val++, vlen = vlen ? vlen - 1 : 0;      /* NAME+=value */
    if (k > 14 && strncmp(name, "GIT_CONFIG_KEY", 14) == 0) {
        if (sh_git_exec_key(val, vlen))
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence",
                       "GIT_CONFIG_KEY_n sets a git setting that runs commands", NULL, NULL, v->via);
        return;
    }
    if ((k == 3 && memcmp(name, "PS4", 3) == 0) || (k == 3 && memcmp(name, "PS1", 3) == 0) ||
        (k == 3 && memcmp(name, "ENV", 3) == 0)) {
        if ((FL(i) & SH_W_CMDSUB) || memmem(val, vlen, "$(", 2) || memchr(val, '`', vlen))
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", "sets ", name,
                       " to text with a command substitution that the shell runs later", v->via);
        else if (k == 3 && name[0] == 'E')
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence",
                       "sets ENV, a file every interactive sh runs first", NULL, NULL, v->via);
        return;
    }
    if ((k == 8 && memcmp(name, "BASH_ENV", 8) == 0) ||
        (k == 14 && memcmp(name, "PROMPT_COMMAND", 14) == 0))
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", "sets ", name,
                   ", which makes the shell run commands later", v->via);
}

/* ---- installers ------------------------------------------------------------- */

/* at TIME, batch: the job's text runs later. Text it can read (a here-string,
 * a here-document, echo ... |) is probed for a never-autopass command; a job
 * read from a file (-f FILE, < FILE) it cannot see is scheduled persistence. */
void sh_rule_at(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int listing = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strcmp(t, "-f") == 0 || strncmp(t, "-f", 2) == 0) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                       " -f schedules a job file it cannot read (it runs later)", NULL, v->via);
            return;
        }
        listing |= strcmp(t, "-l") == 0 || strcmp(t, "-c") == 0;
    }
    for (int k = 0; k < v->c->nr; k++)
        if (v->c->r[k].op == SH_R_IN && v->c->r[k].fd <= 0) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                       " schedules a job file it cannot read (it runs later)", NULL, v->via);
            return;
        }
    if (v->c->piped_in && !v->c->pipe_text) {
        sh_unseen(cx, v, p->name, " schedules text piped in from another program");
        return;
    }
    if (listing)
        return;                         /* at -l, at -c N: show the queue */
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name, " schedules a job", NULL, v->via);
    sh_probe_args(cx, v, v->i + 1);
}

void sh_rule_crontab(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int list = 0, remove = 0, edit = 0, operand = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-' && t[1]) {
            list |= strchr(t + 1, 'l') != NULL;
            remove |= strchr(t + 1, 'r') != NULL;
            edit |= strchr(t + 1, 'e') != NULL;
            if (t[1] == 'u' && !t[2])
                j++;
        } else {
            operand = 1;                /* a file, or - for stdin */
        }
    }
    if (operand || (!list && !remove && !edit))
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                   " installs a cron table (commands that run later)", NULL, v->via);
    else if (remove)
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.destructive", p->name, " -r removes the cron table",
                   NULL, v->via);
    else if (edit)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name, " -e edits the cron table",
                   NULL, v->via);
}

/* systemctl enable, launchctl load, schtasks /create: installs a service,
 * agent or task that runs later. Everything else: systemctl's read-only
 * forms are sh_rule_query's. */
void sh_rule_installer(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const verbs[] = {
        "enable", "link", "preset", "reenable", "load", "bootstrap", "submit", "/create",
        "add-wants", "add-requires", "edit", "set-property", "revert", NULL,
    };
    for (int j = v->i + 1; j < v->end; j++)
        for (const char *const *vb = verbs; *vb; vb++)
            if (strcasecmp(W(j), *vb) == 0) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name, " ", *vb,
                           v->via);
                return;
            }
    if (strcmp(p->name, "systemctl") == 0) {
        sh_rule_query(cx, v, p);
        return;
    }
    if (strcmp(p->name, "launchctl") == 0 && v->i + 1 < v->end &&
        (strcmp(W(v->i + 1), "list") == 0 || strcmp(W(v->i + 1), "print") == 0 ||
         strcmp(W(v->i + 1), "print-disabled") == 0) &&
        v->i + 3 >= v->end)
        return;                         /* launchctl list [LABEL], print DOMAIN: listings */
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.process_control", p->name,
               " manages services or scheduled tasks", NULL, v->via);
}

/* ---- write then run ---------------------------------------------------------- */

static void strip_dot(const char **t, size_t *n)
{
    while (*n > 2 && (*t)[0] == '.' && (*t)[1] == '/')
        *t += 2, *n -= 2;
}

void sh_file_written(sh_ctx *cx, const char *path, size_t n, const char *text, long tlen)
{
    if (n == 0 || memchr(path, SH_MARK, n))
        return;
    strip_dot(&path, &n);
    sh_sym *y = sh_sym_add(cx, SH_SYM_FILE, path, n);
    if (!y)
        return;
    if (tlen < 0 || tlen > SH_MAX_VALUE || (y->state && y->state != SH_V_ONE)) {
        y->state = SH_V_UNKNOWN;
        return;
    }
    if (sh_keep(cx, text, (size_t)tlen, &y->val) != 0) {
        y->state = SH_V_UNKNOWN;
        return;
    }
    y->vlen = (uint32_t)tlen;
    y->state = SH_V_ONE;
}

int sh_run_written(sh_ctx *cx, const sh_view *v, const char *path, size_t n)
{
    if (cx->ar.nsym == 0)
        return 0;
    strip_dot(&path, &n);
    const sh_sym *y = sh_sym_find(cx, SH_SYM_FILE, path, n);
    if (!y)
        return 0;
    if (y->state != SH_V_ONE) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.shell_unseen_text",
                   "runs a file this command wrote with text it cannot see (curl -o x; sh x)", NULL,
                   NULL, v->via);
        return 1;
    }
    uint32_t mark;
    char *buf = sh_scratch(cx, y->vlen + 1, &mark);
    if (!buf)
        return 1;
    memcpy(buf, cx->ar.keep + y->val, y->vlen);
    if (sh_parse_script(cx, buf, y->vlen, "in a script this command wrote") < 0)
        sh_coarse_scan(cx, buf, y->vlen);
    sh_scratch_release(cx, mark);
    return 1;
}

/* make -f - / -f /dev/stdin: a makefile fed from a pipe or a here-document
 * runs recipes the model reads only when it can see the text. */
void sh_rule_make(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;
    int stdin_mk = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j), *f = NULL;
        if ((strcmp(t, "-f") == 0 || strcmp(t, "--file") == 0 || strcmp(t, "--makefile") == 0) &&
            j + 1 < v->end)
            f = W(j + 1);
        else if (strncmp(t, "-f", 2) == 0 && t[2])
            f = t + 2;
        else if (strncmp(t, "--file=", 7) == 0 || strncmp(t, "--makefile=", 11) == 0)
            f = strchr(t, '=') + 1;
        if (f && (strcmp(f, "-") == 0 || sh_is_stdin_path(f)))
            stdin_mk = 1;
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name, " runs the recipes of a makefile",
               NULL, v->via);
    sh_probe_args(cx, v, v->i + 1);     /* make SHELL='sh -c "sudo id"', make -C d CMD='rm -rf ~' */
    if (!stdin_mk || cx->out->cls == WG_SHELL_CRITICAL)
        return;
    const sh_cmd *c = v->c;
    for (int k = 0; k < c->nr; k++) {
        const sh_redir *r = &c->r[k];
        if (r->fd > 0)
            continue;
        if (r->op == SH_R_HEREDOC && r->body_ok && r->body_literal) {
            if (sh_parse_script(cx, c->src + r->body_off, r->body_len, "in a makefile fed to make") < 0)
                sh_coarse_scan(cx, c->src + r->body_off, r->body_len);
            return;
        }
        if (r->op == SH_R_HERESTR && !(r->target.flags & SH_W_OPAQUE)) {
            if (sh_parse_script(cx, c->text + r->target.off, r->target.len, "in a makefile fed to make") < 0)
                sh_coarse_scan(cx, c->text + r->target.off, r->target.len);
            return;
        }
    }
    if (c->piped_in && c->pipe_text && c->pipe_text_len >= 0) {
        if (sh_parse_script(cx, c->pipe_text, (size_t)c->pipe_text_len, "in a makefile fed to make") < 0)
            sh_coarse_scan(cx, c->pipe_text, (size_t)c->pipe_text_len);
        return;
    }
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.shell_unseen_text", p->name,
               " -f - runs a makefile it cannot see", NULL, v->via);
}

/* macOS defaults: write of com.apple.loginwindow LoginHook/LogoutHook runs a
 * script as root at every login (critical.persistence); other forms go to
 * the query table (defaults read is silent, write asks). */
void sh_rule_defaults(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int write = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        write |= strcmp(t, "write") == 0;
        if (write && (strcasecmp(t, "LoginHook") == 0 || strcasecmp(t, "LogoutHook") == 0)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                       " write of a LoginHook or LogoutHook", " runs a script at every login", v->via);
            return;
        }
    }
    sh_rule_query(cx, v, p);
}

/* windows.c - Windows shells and programs: rd, del, Remove-Item, reg,
 * format, cmd.exe and PowerShell text (a crude token scan: the POSIX model
 * does not apply), and Windows administration tools. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

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
        if (sh_win_critical(cx, v, j))
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
            (rec && sh_win_critical(cx, v, j))) {
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
        if (strcasestr(t, " -r"))
            rec = 1;                    /* C:\ -Recurse: one word for bash */
        int cls = sh_word_target(cx, v, j);
        if (cls >= SH_T_SYSTEM || strncasecmp(t, "hklm:", 5) == 0 || strncasecmp(t, "hkcu:", 5) == 0 ||
            sh_win_critical(cx, v, j))
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

/* A crude scan of cmd.exe / PowerShell text: the POSIX model does not apply,
 * so the known never-autopass commands are looked for token by token. */
static int end_seg_byte(char c)
{
    return c == ';' || c == '&' || c == '|' || c == '\n';
}

const char *sh_win_scan(const char *s, size_t n)
{
    char tok[8][128];
    int nt = 0, piped = 0, prev_rec = 0, prev_root = 0;
    size_t i = 0;
    const char *crit = NULL;
    while (i <= n && !crit) {
        int end_seg = i == n || s[i] == ';' || s[i] == '&' || s[i] == '|' || s[i] == '\n';
        if (end_seg || nt == 8) {
            /* cmd /c, powershell -Command ..., and what runs the rest:
             * call %x%, %COMSPEC% /c, cmd /c powershell -c */
            int f = 0;
            for (;;) {
                while (f < nt && (tok[f][0] == '/' || tok[f][0] == '-'))
                    f++;
                if (f + 1 < nt && (strcmp(tok[f], "call") == 0 || strcmp(tok[f], "%comspec%") == 0 ||
                                   strcmp(tok[f], "cmd") == 0 || strcmp(tok[f], "powershell") == 0 ||
                                   strcmp(tok[f], "pwsh") == 0)) {
                    f++;
                    continue;
                }
                break;
            }
            if (f < nt) {
                const char *cmd = tok[f];
                int rec = 0, root = 0, reg = 0, del = 0;
                int fetch = 0, runas = 0, runkey = 0, create = 0, admins = 0, adds = 0, dotdel = 0, yes = 0;
                int deleter = strcmp(cmd, "rd") == 0 || strcmp(cmd, "rmdir") == 0 || strcmp(cmd, "rm") == 0 ||
                              strcmp(cmd, "remove-item") == 0 || strcmp(cmd, "ri") == 0 ||
                              strcmp(cmd, "del") == 0 || strcmp(cmd, "erase") == 0;
                int regish = strcmp(cmd, "reg") == 0 || strstr(cmd, "itemproperty") != NULL;
                for (int k = f + 1; k < nt; k++) {
                    if (deleter && k + 1 < nt && !root) {
                        /* "C:\Program Files" arrives as two words: join them again */
                        char two[2 * sizeof tok[0]];
                        size_t a = strlen(tok[k]), b = strlen(tok[k + 1]);
                        memcpy(two, tok[k], a);
                        two[a] = ' ';
                        memcpy(two + a + 1, tok[k + 1], b + 1);
                        root |= sh_is_windows_critical(two, a + 1 + b);
                    }
                    runkey |= regish && (strstr(tok[k], "\\currentversion\\run") != NULL ||
                                         strstr(tok[k], "\\winlogon") != NULL ||
                                         strstr(tok[k], "\\image file execution options") != NULL);
                    create |= strcmp(tok[k], "/create") == 0 || strcmp(tok[k], "add") == 0 ||
                              strcmp(tok[k], "import") == 0;
                    rec |= strcmp(tok[k], "/s") == 0 || strncmp(tok[k], "-r", 2) == 0;
                    size_t tl = strlen(tok[k]);
                    /* C:\Windows\*.*, C:\Windows\* (C:Windows* once bash took the
                     * backslashes): every file of C:\Windows */
                    if (tl > 3 && strcmp(tok[k] + tl - 3, "*.*") == 0)
                        tl -= 3;
                    else if (tl > 1 && tok[k][tl - 1] == '*')
                        tl -= 1;
                    if (tl > 3 && (tok[k][tl - 1] == '\\' || tok[k][tl - 1] == '/'))
                        tl--;
                    root |= sh_is_drive_root(tok[k], strlen(tok[k])) || strcmp(tok[k], "/") == 0 ||
                            sh_is_windows_critical(tok[k], tl) || strcmp(tok[k], "~") == 0;
                    fetch |= strncmp(tok[k], "irm", 3) == 0 || strncmp(tok[k], "iwr", 3) == 0 ||
                             strstr(tok[k], "downloadstring") != NULL || strncmp(tok[k], "invoke-web", 10) == 0 ||
                             strncmp(tok[k], "invoke-rest", 11) == 0 || strstr(tok[k], "webclient") != NULL;
                    runas |= strcmp(tok[k], "runas") == 0;
                    reg |= strncmp(tok[k], "hklm", 4) == 0 || strncmp(tok[k], "hkcu", 4) == 0 ||
                           strncmp(tok[k], "registry::", 10) == 0;
                    del |= strcmp(tok[k], "delete") == 0;
                    admins |= strcmp(tok[k], "administrators") == 0;
                    adds |= strcmp(tok[k], "/add") == 0;
                    dotdel |= strstr(tok[k], ".delete") != NULL;    /* ForEach-Object { $_.Delete() } */
                    yes |= strcmp(tok[k], "$true") == 0 || strcmp(tok[k], ",$true") == 0;
                }
                int dotnet_rmtree = strstr(cmd, "directory]::delete") != NULL;   /* [IO.Directory]::Delete(p, $true) */
                size_t cl = strlen(cmd);
                if ((strcmp(cmd, "rd") == 0 || strcmp(cmd, "rmdir") == 0 || strcmp(cmd, "rm") == 0 ||
                     strcmp(cmd, "remove-item") == 0 || strcmp(cmd, "ri") == 0 || strcmp(cmd, "del") == 0) &&
                    rec && (root || piped))
                    crit = "deletes a drive root";
                else if (piped && prev_root && prev_rec &&
                         (deleter || ((strcmp(cmd, "foreach-object") == 0 || strcmp(cmd, "%") == 0) && dotdel)))
                    crit = "deletes a drive root";  /* Get-ChildItem C:\ -Recurse | Remove-Item */
                else if (dotnet_rmtree && root && yes)
                    crit = "deletes a drive root";
                else if (cl > 2 && cmd[0] == '%' && cmd[cl - 1] == '%' && nt > f + 1)
                    crit = "runs a program hidden in a variable (%NAME%), which may be anything";
                else if ((strcmp(cmd, "net") == 0 && admins && adds) ||
                         (strcmp(cmd, "add-localgroupmember") == 0 && admins))
                    crit = "adds an account to the Administrators group";
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
                else if ((strcmp(cmd, "reg") == 0 && create && runkey) ||
                         (strcmp(cmd, "schtasks") == 0 && create) ||
                         (strcmp(cmd, "new-itemproperty") == 0 && runkey) ||
                         (strcmp(cmd, "set-itemproperty") == 0 && runkey))
                    crit = "adds a program that runs at every logon or on a schedule (Run key, scheduled task)";
                else if ((strcmp(cmd, "reg") == 0 && del) ||
                         (strcmp(cmd, "remove-item") == 0 && reg))
                    crit = "deletes registry keys";
            }
            /* what this segment enumerated, for a deleter it is piped into */
            prev_rec = prev_root = 0;
            for (int k = f + 1; k < nt; k++) {
                prev_rec |= strncmp(tok[k], "-r", 2) == 0 || strcmp(tok[k], "/s") == 0;
                prev_root |= sh_is_drive_root(tok[k], strlen(tok[k])) || sh_is_windows_critical(tok[k], strlen(tok[k]));
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
        /* separators (a NUL byte too: unparsable text may hold one); every
         * pass moves on by at least one byte */
        size_t from = i;
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '"' || s[i] == '\'' || s[i] == '\0' ||
                         s[i] == '(' || s[i] == ')' || s[i] == '{' || s[i] == '}'))
            i++;
        size_t k = 0;
        while (i < n && s[i] && !strchr(" \t\"';&|\n(){}", s[i])) {
            if (k + 1 < sizeof tok[0] && s[i] != '^')     /* cmd's escape: r^d is rd */
                tok[nt][k++] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
            i++;
        }
        tok[nt][k] = '\0';
        if (i == from && i < n && !end_seg_byte(s[i]))
            i++;                        /* a byte that is neither: never stay in place */
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
            sh_unseen(cx, v, p->name, " runs an encoded command it cannot see");
            return;
        }
        if (!dash || strcmp(t, "-") == 0 || (dash && (t[dash] | 32) == 'c' && j + 1 < v->end &&
                                             strcmp(W(j + 1), "-") != 0))
            script |= strcmp(t, "-") != 0;
    }
    if (v->c->piped_in && !script) {
        sh_unseen(cx, v, p->name, " runs commands piped in from another program");
        return;
    }
    char *buf = sh_join_scratch(cx, v, v->i + 1, v->end, &len, &mark);
    if (!buf) {
        sh_unseen(cx, v, p->name, " runs text it cannot see");
        return;
    }
    const char *crit = sh_win_scan(buf, len);
    int fetched = !crit && sh_code_fetch_exec(buf, len);
    sh_scratch_release(cx, mark);
    if (fetched) {                      /* powershell -c "iex (irm https://...)" */
        sh_unseen(cx, v, p->name, " evaluates a script it downloads (iex of irm/iwr/DownloadString)");
        return;
    }
    if (crit) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.windows_drive_delete", p->name, " ", crit, v->via);
        if (strstr(crit, "logon"))
            cx->out->rule = "critical.persistence";
        else if (strstr(crit, "Administrators"))
            cx->out->rule = "critical.privilege";
        else if (strstr(crit, "hidden in a variable"))
            cx->out->rule = "critical.hidden_program";
        else if (strstr(crit, "registry"))
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
        if (sh_win_critical(cx, v, j))
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

/* iex / Invoke-Expression run the text they are given or piped as
 * PowerShell (`irm https://x/i.ps1 | iex`): text the shell model cannot see
 * at this point, so it is never-autopass, as `| sh` is. */
void sh_rule_iex(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (v->c->piped_in || v->end - v->i > 1)
        sh_unseen(cx, v, p->name, " runs text it is given as PowerShell (Invoke-Expression)");
}

/* Status -eq Running, -First 20, CPU -Descending: names and values only.
 * { $_... }, @{e={...}}, (Get-X), $sb may run any code. */
void sh_rule_ps_filter(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *raw = v->c->src + v->c->w[j].raw_off;
        size_t n = v->c->w[j].raw_len;
        if ((FL(j) & (SH_W_OPAQUE | SH_W_CMDSUB | SH_W_PROCSUB | SH_W_EXP)) ||
            memchr(raw, '{', n) || memchr(raw, '}', n) || memchr(raw, '(', n) || memchr(raw, '@', n)) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.ps_script_block", p->name,
                       " is given a script block or a value it cannot see (it may run code)",
                       NULL, v->via);
            return;
        }
    }
}

/* New-ItemProperty / Set-ItemProperty: a value under a Run, RunOnce or
 * Winlogon key starts a program at every logon (critical.persistence);
 * any other registry value is a write that asks. */
void sh_rule_win_regset(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const keys[] = { "currentversion\\run", "\\winlogon", NULL };
    for (int j = v->i + 1; j < v->end; j++) {
        const char *raw = v->c->src + v->c->w[j].raw_off;
        size_t n = v->c->w[j].raw_len;
        for (const char *const *k = keys; *k; k++) {
            size_t kn = strlen(*k);
            for (size_t i = 0; i + kn <= n; i++)
                if (strncasecmp(raw + i, *k, kn) == 0) {
                    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                               " sets a registry value that starts a program at logon", NULL, v->via);
                    return;
                }
        }
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.registry_write", p->name, " changes the registry",
               NULL, v->via);
}

/* net (Windows): net localgroup administrators NAME /add makes NAME an
 * administrator; the rest changes accounts, shares or services, or lists
 * them (asks: the model does not tell them apart). */
void sh_rule_net(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    size_t len;
    uint32_t mark;
    char *buf = sh_join_scratch(cx, v, v->i, v->end, &len, &mark);
    const char *crit = buf ? sh_win_scan(buf, len) : NULL;
    if (buf)
        sh_scratch_release(cx, mark);
    if (crit && strstr(crit, "Administrators"))
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.privilege", p->name, " ", crit, v->via);
    else
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
                   " changes or lists Windows accounts, shares or services", NULL, v->via);
}

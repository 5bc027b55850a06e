/* vital.c - files the system needs to boot or to let anyone log in (the
 * account and password databases, the sudo policy, the mount table, the
 * boot directory, the dynamic loader). Destroying one of them, by any
 * means (rm, unlink, truncate, `> f`, cp /dev/null f, shred, chmod 000,
 * chown), is "critical system destruction", spec section 7.4's class next
 * to rm -rf /: critical.system_file, asked even at YOLO (docs/gate.md).
 *
 * Pure functions of the text; no state, thread-safe. */
#include "core/shell/internal.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *path;       /* normalized absolute path */
    int tree;               /* 1: everything under path too */
    const char *what;
} vital_row;

static const vital_row vital[] = {
    { "/etc/passwd",        0, "the account database" },
    { "/etc/shadow",        0, "the password database" },
    { "/etc/group",         0, "the group database" },
    { "/etc/gshadow",       0, "the group password database" },
    { "/etc/master.passwd", 0, "the account database" },
    { "/etc/sudoers",       0, "the sudo policy" },
    { "/etc/sudoers.d",     1, "the sudo policy" },
    { "/etc/pam.d",         1, "the login policy (PAM)" },
    { "/etc/security",      1, "the login policy (PAM)" },
    { "/etc/nsswitch.conf", 0, "the name-service switch (who can log in)" },
    { "/etc/login.defs",    0, "the login policy" },
    { "/etc/fstab",         0, "the mount table" },
    { "/etc/crypttab",      0, "the encrypted-disk table" },
    { "/etc/inittab",       0, "the init configuration" },
    { "/etc/ld.so.conf",    0, "the dynamic loader's configuration" },
    { "/etc/ld.so.cache",   0, "the dynamic loader's cache" },
    { "/etc/default/grub",  0, "the boot loader's configuration" },
    { "/boot",              1, "the boot directory (kernel, initrd, boot loader)" },
    { "/efi",               1, "the EFI system partition" },
    { "/bin/sh",            0, "the system shell" },
    { "/bin/bash",          0, "the system shell" },
    { "/usr/bin/sudo",      0, "sudo" },
    { "/sbin/init",         0, "init" },
    { "/lib64/ld-linux-x86-64.so.2", 0, "the dynamic loader" },
    { "/private/etc/passwd", 0, "the account database" },
    { "/private/etc/master.passwd", 0, "the account database" },
    { "/private/etc/sudoers", 0, "the sudo policy" },
    { "/System/Library/CoreServices", 1, "macOS's boot files" },
};

long sh_path_normalize(const char *t, size_t n, int cwd, char *out, size_t cap)
{
    size_t k = 0, i = 0;
    if (n == 0)
        return -1;
    if (t[0] != '/') {
        if (cwd != SH_CWD_ROOT)
            return -1;                  /* relative: inside the project (or unknown) */
    }
    while (i < n) {
        while (i < n && t[i] == '/')
            i++;
        size_t j = i;
        while (j < n && t[j] != '/')
            j++;
        size_t len = j - i;
        if (len == 0 || (len == 1 && t[i] == '.')) {
            /* nothing */
        } else if (len == 2 && t[i] == '.' && t[i + 1] == '.') {
            while (k > 0 && out[k - 1] != '/')
                k--;
            if (k > 0)
                k--;
        } else {
            if (k + 1 + len + 1 > cap)
                return -1;
            out[k++] = '/';
            memcpy(out + k, t + i, len);
            k += len;
        }
        i = j;
    }
    if (k == 0)
        out[k++] = '/';
    out[k] = '\0';
    return (long)k;
}

const char *sh_vital_path(const char *t, size_t n, int cwd, int glob)
{
    char buf[512];
    if (n == 0 || memchr(t, SH_MARK, n))
        return NULL;
    long k = sh_path_normalize(t, n, cwd, buf, sizeof buf);
    if (k <= 0)
        return NULL;
    /* a glob: the text before its first pattern byte is a prefix of the name
     * it may match (/etc/pass* matches /etc/passwd) */
    size_t fixed = (size_t)k;
    if (glob)
        fixed = strcspn(buf, "*?[{");
    /* a glob must name something inside the vital name's directory
     * (`/etc/pass*`), not the directory's whole content (a star right after / or /etc/:
     * the recursive-delete rules' business) */
    for (size_t r = 0; r < sizeof vital / sizeof vital[0]; r++) {
        const vital_row *row = &vital[r];
        size_t pl = strlen(row->path);
        if (fixed == (size_t)k) {
            if ((size_t)k == pl && memcmp(buf, row->path, pl) == 0)
                return row->what;
            if (row->tree && (size_t)k > pl && memcmp(buf, row->path, pl) == 0 && buf[pl] == '/')
                return row->what;
        } else if (fixed <= (size_t)(strrchr(row->path, '/') - row->path) + 1) {
            continue;
        } else if (fixed <= pl ? memcmp(buf, row->path, fixed) == 0
                               : row->tree && memcmp(buf, row->path, pl) == 0 && buf[pl] == '/') {
            return row->what;
        }
    }
    return NULL;
}

int sh_check_vital(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *who, const char *verb)
{
    const sh_cmd *c = v->c;
    if (w->flags & (SH_W_TRUNC | SH_W_CTRL))
        return 0;
    const char *what = sh_vital_path(c->text + w->off, w->len, cx->cwd,
                                     (w->flags & (SH_W_GLOB | SH_W_BRACE)) != 0);
    if (!what)
        return 0;
    char why[160];
    size_t a = strlen(verb), b = strlen(what);
    if (a + b + 1 > sizeof why)
        return 0;
    memcpy(why, verb, a);
    memcpy(why + a, what, b + 1);
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.system_file", who, why, NULL, v->via);
    return 1;
}

/* Files whose every write acts at once on the running kernel: sysrq-trigger
 * reboots, powers off or crashes it on one byte, /sys/power/state suspends. */
static const vital_row kernel_triggers[] = {
    { "/proc/sysrq-trigger", 0, "the kernel's emergency trigger (reboot, power-off, crash at once)" },
    { "/proc/sys/kernel/sysrq", 0, "the kernel's emergency-key switch" },
    { "/sys/power/state", 0, "the machine's power state" },
};

const char *sh_kernel_trigger_path(const char *t, size_t n, int cwd)
{
    char buf[512];
    if (memchr(t, SH_MARK, n))
        return NULL;
    long k = sh_path_normalize(t, n, cwd, buf, sizeof buf);
    for (size_t r = 0; k > 0 && r < sizeof kernel_triggers / sizeof *kernel_triggers; r++)
        if (strcmp(buf, kernel_triggers[r].path) == 0)
            return kernel_triggers[r].what;
    return NULL;
}

int sh_check_kernel_trigger(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *who)
{
    if (w->flags & (SH_W_TRUNC | SH_W_CTRL))
        return 0;
    const char *what = sh_kernel_trigger_path(v->c->text + w->off, w->len, cx->cwd);
    if (!what)
        return 0;
    char why[160];
    snprintf(why, sizeof why, " writes to %s", what);
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.system_file", who, why, NULL, v->via);
    return 1;
}

/* target.c - what a path argument points at, for the never-autopass
 * rules (spec 7.4, issue #2 §3): `~`, `~/`, `$HOME`, `${HOME}`, `"$HOME"`,
 * `/`, `/-star`, `/.`, `//`, `~/..` and the system directories are recognised
 * however they are spelled, after quote removal (lex.c) and path
 * normalisation here. Works on normalized word text (SH_MARK markers).
 */
#include "core/shell/internal.h"

#include <string.h>
#include <strings.h>

/* Top-level directories whose recursive deletion breaks the machine. */
static const char *const system_dirs[] = {
    "Applications", "Library", "System", "Users", "Volumes", "bin", "boot",
    "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt",
    "opt", "private", "proc", "root", "run", "sbin", "snap", "srv", "sys",
    "usr", "var",
};
static const char *const usr_dirs[] = {
    "bin", "include", "lib", "lib64", "libexec", "local", "sbin", "share",
};

/* Case-insensitive: macOS file systems fold case (/users/ALICE is /Users/alice). */
static int in_list(const char *s, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && strncasecmp(list[i], s, n) == 0)
            return 1;
    return 0;
}

/* Second-level directories that are the system too: /var/lib, /etc/X,
 * /private/var, /System/Library, /Volumes/DISK, ... */
static const char *const sys_parents[] = {
    "Library", "System", "Volumes", "boot", "dev", "etc", "private", "proc", "sys",
};
static const char *const var_dirs[] = {
    "backups", "cache", "db", "lib", "local", "log", "mail", "opt", "spool", "www",
};
/* Package stores that hold the installed system: /nix/store, /gnu/store,
 * /opt/homebrew (top level / second level). */
static const char *const store_dirs[][2] = {
    { "nix", "store" }, { "nix", "var" }, { "gnu", "store" }, { "opt", "homebrew" },
};

static int store_dir(const char *a, size_t an, const char *b, size_t bn)
{
    for (size_t i = 0; i < sizeof store_dirs / sizeof *store_dirs; i++)
        if (strlen(store_dirs[i][0]) == an && memcmp(store_dirs[i][0], a, an) == 0 &&
            strlen(store_dirs[i][1]) == bn && memcmp(store_dirs[i][1], b, bn) == 0)
            return 1;
    return 0;
}

/* Windows drives as WSL, Cygwin and MSYS mount them. */
static const char *const drive_mounts[] = { "mnt", "cygdrive" };
/* /c/Windows (MSYS) */
static const char *const win_dirs[] = { "Windows", "Users", "Program Files", "ProgramData" };

static int has_wild(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '{' || s[i] == SH_MARK)
            return 1;
    return 0;
}

int sh_target_class(const char *t, size_t n, int cwd)
{
    enum { B_PROJECT, B_ROOT, B_HOME, B_OPAQUE } base;
    size_t i = 0;
    /* /proc/self/root, /proc/PID/root, /proc/thread-self/root are / again */
    if (n >= 11 && memcmp(t, "/proc/", 6) == 0) {
        const char *sl = memchr(t + 6, '/', n - 6);
        if (sl && (size_t)(t + n - sl) >= 5 && memcmp(sl, "/root", 5) == 0 &&
            ((size_t)(t + n - sl) == 5 || sl[5] == '/'))
            return sh_target_class(sl + 5, (size_t)(t + n - sl) - 5, SH_CWD_ROOT);
    }
    if (n >= 2 && t[0] == SH_MARK) {
        if (t[1] != SH_K_HOME && t[1] != SH_K_USER)
            return SH_T_OPAQUE;
        base = B_HOME;
        i = 2;
    } else if (n > 0 && t[0] == '/') {
        base = B_ROOT;
    } else if (sh_is_drive_root(t, n)) {
        return SH_T_ROOT;
    } else {
        base = cwd == SH_CWD_ROOT ? B_ROOT : cwd == SH_CWD_HOME ? B_HOME
             : cwd == SH_CWD_OPAQUE ? B_OPAQUE : B_PROJECT;
        /* a relative path leaves the project only through a ".." component:
         * without two dots in a row it is a project path (most targets) */
        if (base == B_PROJECT && !memmem(t, n, "..", 2))
            return SH_T_PROJECT;
    }
    const char *comp[3] = { 0, 0, 0 };
    size_t clen[3] = { 0, 0, 0 };
    int depth = 0, ups = 0;
    while (i < n) {
        while (i < n && t[i] == '/')
            i++;
        if (i >= n)
            break;
        size_t s = i;
        while (i < n && t[i] != '/')
            i++;
        size_t len = i - s;
        if (len == 1 && t[s] == '.')
            continue;
        if (len == 2 && t[s] == '.' && t[s + 1] == '.') {
            if (depth > 0) {
                depth--;
            } else if (base == B_HOME) {        /* ~/.. is /home */
                base = B_ROOT;
                comp[0] = "home";
                clen[0] = 4;
                depth = 1;
            } else if (base != B_ROOT) {
                ups++;                          /* above the working directory */
            }
            continue;
        }
        if (has_wild(t + s, len))
            break;                              /* covers this whole level */
        if (depth < 3) {
            comp[depth] = t + s;
            clen[depth] = len;
        }
        depth++;
    }
    if (ups > 0)                /* ../../.. may reach / ; ../x is outside */
        return ups >= 2 && depth == 0 ? SH_T_ROOT : SH_T_OUTSIDE;
    switch (base) {
    case B_OPAQUE:
        return depth == 0 ? SH_T_OPAQUE : SH_T_OUTSIDE;
    case B_HOME:
        return depth == 0 ? SH_T_HOME : SH_T_OUTSIDE;
    case B_ROOT:
        if (depth == 0)
            return SH_T_ROOT;
        if (depth == 1)
            return SH_T_SYSTEM;                 /* every top-level directory: /nix, /tmp, /srv */
        if (depth == 2 && in_list(comp[0], clen[0], drive_mounts, 2) && clen[1] == 1)
            return SH_T_ROOT;                   /* /mnt/c, /cygdrive/c */
        if (depth >= 2 && clen[0] == 1 && depth == 2 && in_list(comp[1], clen[1], win_dirs, 4))
            return SH_T_SYSTEM;                 /* /c/Windows (MSYS) */
        if (depth == 2 && ((clen[0] == 4 && strncasecmp(comp[0], "home", 4) == 0) ||
                           (clen[0] == 5 && strncasecmp(comp[0], "Users", 5) == 0)))
            return SH_T_HOME;
        if (depth == 2 && (in_list(comp[0], clen[0], sys_parents, sizeof sys_parents / sizeof *sys_parents) ||
                           (clen[0] == 3 && memcmp(comp[0], "var", 3) == 0 &&
                            in_list(comp[1], clen[1], var_dirs, sizeof var_dirs / sizeof *var_dirs))))
            return SH_T_SYSTEM;
        if (depth == 3 && in_list(comp[0], clen[0], drive_mounts, 2) && clen[1] == 1)
            return SH_T_SYSTEM;                 /* /mnt/c/Users, /cygdrive/c/Windows */
        /* a Windows drive's second level: /c/Users/bob, /c/Windows/System32 (MSYS),
         * and one more under /mnt/c or /cygdrive/c */
        {
            int off = clen[0] == 1 ? 0
                    : (in_list(comp[0], clen[0], drive_mounts, 2) && clen[1] == 1) ? 1 : -1;
            if (off >= 0 && depth == off + 3) {
                const char *d = comp[off + 1];
                size_t dl = clen[off + 1];
                if (dl == 5 && strncasecmp(d, "Users", 5) == 0)
                    return SH_T_HOME;
                if (dl == 7 && strncasecmp(d, "Windows", 7) == 0)
                    return SH_T_SYSTEM;
            }
        }
        if (depth == 2 && store_dir(comp[0], clen[0], comp[1], clen[1]))
            return SH_T_SYSTEM;                 /* /nix/store: every program of the system */
        if (depth == 2 && clen[0] == 3 && memcmp(comp[0], "usr", 3) == 0 &&
            in_list(comp[1], clen[1], usr_dirs, sizeof usr_dirs / sizeof *usr_dirs))
            return SH_T_SYSTEM;
        return SH_T_OUTSIDE;
    default:
        return SH_T_PROJECT;
    }
}

/* //dev/sda, /dev/../dev/sda, /dev/./sda: the path with empty, . and ..
 * components resolved, into buf (cap bytes); its length, or 0. */
static size_t clean_path(const char *t, size_t n, char *buf, size_t cap)
{
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && t[i] == '/')
            i++;
        size_t s = i;
        while (i < n && t[i] != '/')
            i++;
        size_t len = i - s;
        if (len == 0 || (len == 1 && t[s] == '.'))
            continue;
        if (len == 2 && t[s] == '.' && t[s + 1] == '.') {
            while (k > 0 && buf[k - 1] != '/')
                k--;
            if (k > 0)
                k--;
            continue;
        }
        if (k + 1 + len >= cap)
            return 0;
        buf[k++] = '/';
        memcpy(buf + k, t + s, len);
        k += len;
    }
    buf[k] = '\0';
    return k;
}

int sh_is_raw_disk(const char *t, size_t n)
{
    if (n > 1 && t[0] == '/' && (memmem(t, n, "//", 2) || memmem(t, n, "/.", 2))) {
        char buf[256];
        size_t k = clean_path(t, n, buf, sizeof buf);
        if (k && k != n)
            return sh_is_raw_disk(buf, k);
    }
    static const char *const disks[] = {
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-",
        "mapper/", "loop", "mem", "kmem", "port", "sr", "nbd", "zram", "root",
        "block/", "nvram",
    };
    for (size_t i = 0; i + 13 <= n; i++)        /* \\.\PhysicalDriveN */
        if ((t[i] | 0x20) == 'p' && strncasecmp(t + i, "physicaldrive", 13) == 0)
            return 1;
    /* case-folded: macOS's file systems fold case, and a wrong guess only asks */
    if (n < 6 || strncasecmp(t, "/dev/", 5) != 0)
        return 0;
    for (size_t i = 0; i < sizeof disks / sizeof *disks; i++) {
        size_t k = strlen(disks[i]);
        if (n - 5 >= k && strncasecmp(t + 5, disks[i], k) == 0)
            return 1;
    }
    return 0;
}

/* Win32 and NT path prefixes that name the same drive: \\?\C:\, \\.\C:\,
 * \??\C:\ and their forward-slash spellings. Returns the length to skip. */
static size_t win_prefix(const char *t, size_t n)
{
    if (n >= 4 && (t[0] == '\\' || t[0] == '/') && (t[1] == '\\' || t[1] == '/' || t[1] == '?') &&
        (t[2] == '?' || t[2] == '.') && (t[3] == '\\' || t[3] == '/'))
        return 4;
    return 0;
}

static int is_sep(char ch)
{
    return ch == '\\' || ch == '/';
}

/* `Remove-Item C:\ -Recurse` read by bash: the backslash escapes the blank,
 * so one word holds "C:\ -Recurse" (raw) or "C: -Recurse" (normalized).
 * Windows shells end the path there; so does the model. */
static size_t win_path_len(const char *t, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++)
        if (t[i + 1] == ' ' && (t[i] == '\\' || (i == 1 && t[i] == ':')))
            return i + 1;
    return n;
}

/* C:  C:\  C:/  C:\*  C:\*.*  "C:\"  \\?\C:\ (quotes and trailing blanks ignored). */
int sh_is_drive_root(const char *t, size_t n)
{
    while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '"' || t[n - 1] == '\''))
        n--;
    while (n > 0 && (t[0] == '"' || t[0] == '\''))
        t++, n--;
    size_t pre = win_prefix(t, n);
    t += pre, n -= pre;
    if (n < 2 || t[1] != ':')
        return 0;                       /* before the scan: it only shortens n, to 2 or more */
    n = win_path_len(t, n);
    char d = t[0];
    if (!((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z')))
        return 0;
    size_t i = 2;
    while (i < n && is_sep(t[i]))
        i++;
    if (i < n && t[i] == '*')
        i++;
    if (i + 1 < n && t[i] == '.' && t[i + 1] == '*')
        i += 2;
    return i == n;
}

/* Environment spellings of Windows folders and what they are. */
#define V(s, c) { s, sizeof s - 1, c }
static const struct { const char *name; size_t len; int cls; } win_vars[] = {
    V("%systemdrive%", SH_T_ROOT), V("%homedrive%", SH_T_ROOT),
    V("$env:systemdrive", SH_T_ROOT), V("$env:homedrive", SH_T_ROOT),
    V("${env:systemdrive}", SH_T_ROOT),
    V("%userprofile%", SH_T_HOME), V("%homepath%", SH_T_HOME), V("$env:userprofile", SH_T_HOME),
    V("${env:userprofile}", SH_T_HOME), V("$env:homepath", SH_T_HOME), V("$home", SH_T_HOME),
    V("%windir%", SH_T_SYSTEM), V("%systemroot%", SH_T_SYSTEM), V("%programfiles%", SH_T_SYSTEM),
    V("%programfiles(x86)%", SH_T_SYSTEM), V("%programdata%", SH_T_SYSTEM),
    V("%allusersprofile%", SH_T_SYSTEM), V("%public%", SH_T_SYSTEM), V("%appdata%", SH_T_HOME),
    V("%localappdata%", SH_T_HOME), V("$env:windir", SH_T_SYSTEM), V("$env:systemroot", SH_T_SYSTEM),
    V("$env:programfiles", SH_T_SYSTEM), V("$env:programdata", SH_T_SYSTEM),
    V("${env:windir}", SH_T_SYSTEM), V("${env:systemroot}", SH_T_SYSTEM),
};
#undef V

/* Skips separators, '*', '.' and quotes: what is left after a folder name
 * when the target is the folder itself or all of its content. */
static size_t skip_tail(const char *r, size_t rest)
{
    size_t k = 0;
    while (k < rest && (is_sep(r[k]) || r[k] == '*' || r[k] == '"' || r[k] == '\'' || r[k] == '.'))
        k++;
    return k;
}

/* One path component of r (up to a separator). */
static size_t comp_len(const char *r, size_t rest)
{
    size_t k = 0;
    while (k < rest && !is_sep(r[k]))
        k++;
    return k;
}

/* The folders below a drive root: C:\Windows (and one level under it:
 * System32), C:\Program Files, C:\ProgramData, C:\Users (SYSTEM),
 * C:\Users\NAME (HOME). r is the text after "C:" and its separators. */
static int drive_folder(const char *r, size_t rest)
{
    static const struct { const char *name; int sub; } dirs[] = {
        { "windows", 1 }, { "program files", 0 }, { "program files (x86)", 0 },
        { "programdata", 0 }, { "users", 2 }, { "documents and settings", 2 }, { "boot", 0 },
        { "recovery", 0 }, { "system volume information", 0 },
    };
    size_t c = comp_len(r, rest);
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        size_t k = strlen(dirs[i].name);
        if (c != k || strncasecmp(r, dirs[i].name, k) != 0)
            continue;
        size_t at = k + skip_tail(r + k, rest - k);
        if (at == rest)
            return SH_T_SYSTEM;
        if (dirs[i].sub == 0 || !is_sep(r[k]))
            return 0;
        /* C:\Windows\System32, C:\Users\alice: one more component */
        size_t s = k;
        while (s < rest && is_sep(r[s]))
            s++;
        size_t c2 = comp_len(r + s, rest - s);
        if (c2 == 0 || memchr(r + s, '*', c2))
            return 0;
        size_t end = s + c2 + skip_tail(r + s + c2, rest - s - c2);
        if (end == rest)
            return dirs[i].sub == 2 ? SH_T_HOME : SH_T_SYSTEM;
        return 0;
    }
    return 0;
}

int sh_is_windows_critical(const char *t, size_t n)
{
    /* cheap reject: every spelling starts with a quote, %, $, a drive letter
     * and ':', or a \\?\-style prefix */
    if (n < 2 || !(t[0] == '"' || t[0] == '\'' || t[0] == '%' || t[0] == '$' || t[0] == '\\' ||
                   t[1] == ':' || (t[0] == '/' && (t[1] == '/' || t[1] == '\\'))))
        return 0;
    while (n > 0 && (t[0] == '"' || t[0] == '\''))
        t++, n--;
    while (n > 0 && (t[n - 1] == '"' || t[n - 1] == '\'' || t[n - 1] == ' '))
        n--;
    size_t pre = win_prefix(t, n);
    t += pre, n -= pre;
    n = win_path_len(t, n);
    if (n < 2)
        return 0;
    if (t[0] == '%' || (t[0] == '$' && ((t[1] | 32) == 'e' || t[1] == '{' || (t[1] | 32) == 'h'))) {
        for (size_t i = 0; i < sizeof win_vars / sizeof *win_vars; i++) {
            size_t k = win_vars[i].len;
            if (n < k || strncasecmp(t, win_vars[i].name, k) != 0)
                continue;
            /* the folder itself or its whole content, not a file deep inside */
            const char *r = t + k;
            size_t rest = n - k;
            size_t at = skip_tail(r, rest);
            if (at == rest)
                return win_vars[i].cls;
            if (win_vars[i].cls == SH_T_ROOT) {
                if (rest > 1 && (r[0] == '%' || r[0] == '$'))
                    return sh_is_windows_critical(r, rest);   /* %HOMEDRIVE%%HOMEPATH% */
                while (rest > 0 && is_sep(*r))
                    r++, rest--;
                return drive_folder(r, rest);       /* %SystemDrive%\Users */
            }
            if (strstr(win_vars[i].name, "windir") || strstr(win_vars[i].name, "systemroot")) {
                /* %SystemRoot%\System32 (or %SystemRoot%System32 once bash
                 * ate the backslash): one folder below, as C:\Windows\X */
                while (rest > 0 && is_sep(*r))
                    r++, rest--;
                size_t c = comp_len(r, rest);
                if (c > 0 && !memchr(r, '*', c) && c + skip_tail(r + c, rest - c) == rest)
                    return SH_T_SYSTEM;
            }
            return 0;
        }
        return 0;
    }
    /* C:\Windows, C:/windows, c:Windows (the backslash eaten by bash), C:\Users\NAME */
    if (n >= 3 && t[1] == ':' && ((t[0] | 32) >= 'a' && (t[0] | 32) <= 'z')) {
        size_t i = 2;
        while (i < n && is_sep(t[i]))
            i++;
        if (i == n)
            return SH_T_ROOT;
        return drive_folder(t + i, n - i);
    }
    return 0;
}

int sh_cwd_after_cd(const char *t, size_t n, int cls)
{
    if (cls != SH_T_SYSTEM)
        return -1;
    /* cd /etc: treated as / (what is deleted there breaks the machine);
     * cd /tmp, cd /srv: a directory the model does not follow */
    while (n > 0 && t[0] == '/')
        t++, n--;
    size_t k = 0;
    while (k < n && t[k] != '/')
        k++;
    return in_list(t, k, system_dirs, sizeof system_dirs / sizeof *system_dirs) ? SH_CWD_ROOT : SH_CWD_OPAQUE;
}

const char *sh_target_phrase(int cls)
{
    switch (cls) {
    case SH_T_ROOT: return "the root directory";
    case SH_T_HOME: return "the home directory";
    case SH_T_SYSTEM: return "a system directory";
    case SH_T_OPAQUE: return "a path it cannot see (it may expand to / or the home directory)";
    case SH_T_OUTSIDE: return "a path outside the project";
    default: return "a project path";
    }
}

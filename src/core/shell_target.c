/* shell_target.c - what a path argument points at, for the never-autopass
 * rules (spec 7.4, issue #2 §3): `~`, `~/`, `$HOME`, `${HOME}`, `"$HOME"`,
 * `/`, `/-star`, `/.`, `//`, `~/..` and the system directories are recognised
 * however they are spelled, after quote removal (shell_lex.c) and path
 * normalisation here. Works on normalized word text (SH_MARK markers).
 */
#include "core/shell_internal.h"

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

static int in_list(const char *s, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
            return 1;
    return 0;
}

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
    }
    const char *comp[2] = { 0, 0 };
    size_t clen[2] = { 0, 0 };
    int depth = 0;
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
                return SH_T_OUTSIDE;
            }
            continue;
        }
        if (has_wild(t + s, len))
            break;                              /* covers this whole level */
        if (depth < 2) {
            comp[depth] = t + s;
            clen[depth] = len;
        }
        depth++;
    }
    switch (base) {
    case B_OPAQUE:
        return depth == 0 ? SH_T_OPAQUE : SH_T_OUTSIDE;
    case B_HOME:
        return depth == 0 ? SH_T_HOME : SH_T_OUTSIDE;
    case B_ROOT:
        if (depth == 0)
            return SH_T_ROOT;
        if (depth == 1 && in_list(comp[0], clen[0], system_dirs,
                                  sizeof system_dirs / sizeof *system_dirs))
            return SH_T_SYSTEM;
        if (depth == 2 && ((clen[0] == 4 && memcmp(comp[0], "home", 4) == 0) ||
                           (clen[0] == 5 && memcmp(comp[0], "Users", 5) == 0)))
            return SH_T_HOME;
        if (depth == 2 && clen[0] == 3 && memcmp(comp[0], "usr", 3) == 0 &&
            in_list(comp[1], clen[1], usr_dirs, sizeof usr_dirs / sizeof *usr_dirs))
            return SH_T_SYSTEM;
        return SH_T_OUTSIDE;
    default:
        return SH_T_PROJECT;
    }
}

int sh_is_raw_disk(const char *t, size_t n)
{
    static const char *const disks[] = {
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-",
        "mapper/", "loop", "mem", "kmem", "port", "sr", "nbd", "zram", "root",
        "block/", "nvram",
    };
    for (size_t i = 0; i + 13 <= n; i++)        /* \\.\PhysicalDriveN */
        if (strncasecmp(t + i, "physicaldrive", 13) == 0)
            return 1;
    if (n < 6 || memcmp(t, "/dev/", 5) != 0)
        return 0;
    for (size_t i = 0; i < sizeof disks / sizeof *disks; i++) {
        size_t k = strlen(disks[i]);
        if (n - 5 >= k && memcmp(t + 5, disks[i], k) == 0)
            return 1;
    }
    return 0;
}

/* C:  C:\  C:/  C:\*  C:\*.*  "C:\" (quotes and trailing blanks ignored). */
int sh_is_drive_root(const char *t, size_t n)
{
    while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '"' || t[n - 1] == '\''))
        n--;
    while (n > 0 && (t[0] == '"' || t[0] == '\''))
        t++, n--;
    if (n < 2 || t[1] != ':')
        return 0;
    char d = t[0];
    if (!((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z')))
        return 0;
    size_t i = 2;
    while (i < n && (t[i] == '\\' || t[i] == '/'))
        i++;
    if (i < n && t[i] == '*')
        i++;
    if (i + 1 < n && t[i] == '.' && t[i + 1] == '*')
        i += 2;
    return i == n;
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

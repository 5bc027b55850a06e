/* paths.c - file and URL classification for the hook faces (paths.h). */
#include "hook/paths.h"
#include "core/shell/internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Appends s[0,n) to out at *k with '.' and '..' resolved; 0 or -1 (too long). */
static int push_parts(char *out, size_t cap, size_t *k, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && s[i] == '/')
            i++;
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        size_t len = j - i;
        if (len == 0 || (len == 1 && s[i] == '.')) {
            /* nothing */
        } else if (len == 2 && s[i] == '.' && s[i + 1] == '.') {
            while (*k > 1 && out[*k - 1] != '/')
                (*k)--;
            if (*k > 1)
                (*k)--;                 /* drop the '/' too, but keep the root */
        } else {
            if (*k + (*k > 1) + len + 1 > cap)
                return -1;
            if (*k > 1)
                out[(*k)++] = '/';
            memcpy(out + *k, s + i, len);
            *k += len;
        }
        i = j;
    }
    out[*k] = '\0';
    return 0;
}

/* Replaces the longest existing prefix of abs by its realpath. */
static void resolve_links(char *abs, size_t cap)
{
    char probe[WG_HOOK_PATH_MAX + 1], real[PATH_MAX];
    size_t n = strlen(abs);
    if (n > WG_HOOK_PATH_MAX)
        return;
    memcpy(probe, abs, n + 1);
    size_t cut = n;
    for (int depth = 0; depth < 256; depth++) {
        if (realpath(probe, real)) {
            size_t rl = strlen(real), rest = n - cut;
            if (rl + rest + 1 > cap)
                return;
            char tail[WG_HOOK_PATH_MAX + 1];
            memcpy(tail, abs + cut, rest + 1);
            memcpy(abs, real, rl);
            memcpy(abs + rl, tail, rest + 1);
            return;
        }
        char *slash = strrchr(probe, '/');
        if (!slash || slash == probe)
            return;
        *slash = '\0';
        cut = (size_t)(slash - probe);
    }
}

int wg_hook_path_resolve(char *out, size_t cap, const char *cwd, const char *path, size_t n)
{
    if (!path || n == 0 || n > WG_HOOK_PATH_MAX || memchr(path, '\0', n) || cap < 2)
        return -1;
    size_t k = 1;
    out[0] = '/';
    out[1] = '\0';
    if (path[0] == '~' && (n == 1 || path[1] == '/')) {
        const char *home = getenv("HOME");
        if (!home || home[0] != '/' || push_parts(out, cap, &k, home, strlen(home)) < 0)
            return -1;
        path++, n--;
    } else if (path[0] != '/') {
        if (!cwd || cwd[0] != '/' || push_parts(out, cap, &k, cwd, strlen(cwd)) < 0)
            return -1;
    }
    if (push_parts(out, cap, &k, path, n) < 0)
        return -1;
    resolve_links(out, cap);
    return 0;
}

int wg_hook_path_inside(const char *abs, const char *project)
{
    size_t pl = strlen(project);
    while (pl > 1 && project[pl - 1] == '/')
        pl--;
    if (pl == 1 && project[0] == '/')
        return abs[0] == '/';
    return strncmp(abs, project, pl) == 0 && (abs[pl] == '\0' || abs[pl] == '/');
}

const char *wg_hook_path_secret(const char *abs)
{
    return sh_secret_path(abs, strlen(abs));
}

/* ---- URLs ---------------------------------------------------------------------- */

static int all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return n > 0;
}

static int starts(const char *h, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && strncasecmp(h, p, k) == 0;
}

static int ends(const char *h, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && strncasecmp(h + n - k, p, k) == 0;
}

/* 172.16.0.0/12 */
static int private_172(const char *h, size_t n)
{
    if (!starts(h, n, "172."))
        return 0;
    int second = 0;
    size_t i = 4;
    for (; i < n && isdigit((unsigned char)h[i]) && i < 7; i++)
        second = second * 10 + (h[i] - '0');
    return i < n && h[i] == '.' && second >= 16 && second <= 31;
}

static const char *host_risk(const char *h, size_t n)
{
    static const char *const local_prefixes[] = {
        "127.", "10.", "192.168.", "169.254.", "0.", "[::1]", "[::]", "[fc", "[fd", "[fe80",
        "[::ffff:", "100.64.",
    };
    if (n == 0)
        return "a URL without a host";
    if ((n == 9 && strncasecmp(h, "localhost", 9) == 0) || ends(h, n, ".localhost") ||
        ends(h, n, ".internal") || ends(h, n, ".local") || private_172(h, n) || all_digits(h, n))
        return "a loopback, private or link-local address";
    for (size_t i = 0; i < sizeof local_prefixes / sizeof local_prefixes[0]; i++)
        if (starts(h, n, local_prefixes[i]))
            return "a loopback, private or link-local address";
    if (starts(h, n, "0x") || memchr(h, '%', n) || (n > 1 && h[0] == '0' && isdigit((unsigned char)h[1])))
        return "a host written in an unusual form";
    return NULL;
}

const char *wg_hook_url_risk(const char *url, size_t n)
{
    const char *colon = memchr(url, ':', n);
    if (!colon || (size_t)(colon - url) + 3 > n || colon[1] != '/' || colon[2] != '/')
        return "not an http(s) URL";
    size_t sl = (size_t)(colon - url);
    if (!((sl == 4 && strncasecmp(url, "http", 4) == 0) ||
          (sl == 5 && strncasecmp(url, "https", 5) == 0)))
        return "not an http(s) URL";
    const char *h = colon + 3, *end = url + n;
    const char *stop = h;
    while (stop < end && *stop != '/' && *stop != '?' && *stop != '#' && *stop != '\\')
        stop++;
    const char *at = NULL;              /* userinfo@host */
    for (const char *p = h; p < stop; p++)
        if (*p == '@')
            at = p;
    if (at)
        h = at + 1;
    const char *hend = stop;
    if (h < stop && *h == '[') {        /* [v6]:port */
        const char *rb = memchr(h, ']', (size_t)(stop - h));
        hend = rb ? rb + 1 : stop;
    } else {
        const char *pc = memchr(h, ':', (size_t)(stop - h));
        if (pc)
            hend = pc;
    }
    size_t hn = (size_t)(hend - h);
    while (hn && h[hn - 1] == '.')
        hn--;                           /* "localhost." */
    return host_risk(h, hn);
}

int wg_hook_path_holds_secrets(const char *abs)
{
    size_t n = strlen(abs);
    if (sh_holds_secrets(abs, n))
        return 1;
    /* $HOME and below as the table writes them: "\x01H" + the rest */
    const char *home = getenv("HOME");
    size_t hn = home ? strlen(home) : 0;
    while (hn > 1 && home[hn - 1] == '/')
        hn--;
    if (hn < 2 || home[0] != '/' || n < hn || memcmp(abs, home, hn) != 0 ||
        (abs[hn] != '\0' && abs[hn] != '/') || n - hn + 3 > WG_HOOK_PATH_MAX)
        return 0;
    char t[WG_HOOK_PATH_MAX + 1];
    t[0] = '\x01';
    t[1] = 'H';
    memcpy(t + 2, abs + hn, n - hn + 1);
    return sh_holds_secrets(t, n - hn + 2);
}

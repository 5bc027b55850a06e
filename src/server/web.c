/* web.c - which embedded dashboard file answers a path, and its type.
 * The files and their ETags come from cmake/web.cmake; http.c sends them
 * with the headers of web.h. Pure: no I/O. */
#include "server/web.h"

#include <string.h>

/* Paths that are the page itself: the app routes by URL fragment, so only
 * the entry points need rows here. */
static const char *const page_paths[] = { "/", "/login" };

static const struct {
    const char *ext;
    const char *type;
} types[] = {
    { ".html", "text/html; charset=utf-8" },
    { ".css",  "text/css; charset=utf-8" },
    { ".js",   "text/javascript; charset=utf-8" },
    { ".svg",  "image/svg+xml" },
    { ".png",  "image/png" },
    { ".txt",  "text/plain; charset=utf-8" },
    { ".json", "application/json; charset=utf-8" },
};

static const wg_web_asset *by_path(const char *path)
{
    size_t lo = 0, hi = wg_web__n_assets;
    while (lo < hi) {      /* rows are sorted by path (cmake/web.cmake) */
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(path, wg_web__assets[mid].path);
        if (c == 0)
            return &wg_web__assets[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const wg_web_asset *wg_web__find(const char *path)
{
    if (!path)
        return NULL;
    for (size_t i = 0; i < sizeof page_paths / sizeof *page_paths; i++)
        if (strcmp(path, page_paths[i]) == 0)
            return by_path("/index.html");
    return by_path(path);
}

const char *wg_web__content_type(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < sizeof types / sizeof *types; i++)
            if (strcmp(dot, types[i].ext) == 0)
                return types[i].type;
    return "application/octet-stream";
}

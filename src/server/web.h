/* web.h - the dashboard's static files (web/, embedded at build time by
 * cmake/web.cmake) and the headers they are served with. Internal. */
#ifndef WAGGLE_SERVER_WEB_H
#define WAGGLE_SERVER_WEB_H

#include <stddef.h>

typedef struct wg_web_asset {
    const char *path;             /* "/js/app.js", relative to web/ */
    const unsigned char *data;    /* len bytes (plus a NUL) */
    size_t len;
    const char *etag;             /* "\"<128 bits of SHA-256 hex>\"" */
} wg_web_asset;

/* Generated: every file of web/, sorted by path. */
extern const wg_web_asset wg_web__assets[];
extern const size_t wg_web__n_assets;

/* The file served for a request path, or NULL. "/" and "/login" are the
 * page (index.html); any other path must name a file exactly (no
 * normalisation: "/js/../x" finds nothing). Pure. */
const wg_web_asset *wg_web__find(const char *path);

/* The Content-Type for a file, by extension (a table); unknown ones are
 * application/octet-stream, never sniffed. */
const char *wg_web__content_type(const char *path);

/* Cache-Control: the page always revalidates (a new build shows at once),
 * the other files revalidate too (they are not fingerprinted), and every
 * answer carries the ETag so revalidation is a 304. */
#define WG_WEB_CACHE_CONTROL "no-cache"

/* The Content-Security-Policy of every dashboard file: only this origin's
 * scripts, styles, images and connections; no inline script or style, no
 * plugins, no framing, no <base> tricks, forms post only here. */
#define WG_WEB_CSP                                                                    \
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "       \
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "       \
    "form-action 'self'; frame-ancestors 'none'"

#endif

/* sbuf.h - a growing byte buffer that is always NUL-terminated (internal to
 * libwaggle; not installed).
 *
 * Appends never fail loudly: on an allocation failure the buffer sets oom,
 * keeps what it had and ignores every later append, so a builder can append
 * freely and check oom once at the end. Zero-initialise ({0}) before use;
 * p is NULL until the first append. The caller owns p (free() it, or take
 * it with wg_sbuf__take). Not thread-safe: one buffer, one thread.
 */
#ifndef WG_CORE_SBUF_H
#define WG_CORE_SBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct wg_sbuf {
    char *p;      /* NUL-terminated after any successful append; owned */
    size_t len;   /* bytes in p, without the NUL */
    size_t cap;   /* bytes allocated */
    int oom;      /* an append failed; p holds what came before it */
} wg_sbuf;

/* Appends n bytes of s (which may contain NULs). */
void wg_sbuf__put(wg_sbuf *b, const char *s, size_t n);
/* Appends the NUL-terminated string s. */
void wg_sbuf__puts(wg_sbuf *b, const char *s);
/* Appends printf-style formatted text. */
void wg_sbuf__printf(wg_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wg_sbuf__vprintf(wg_sbuf *b, const char *fmt, va_list ap);
/* Hands p over: returns it ("" newly allocated when nothing was appended),
 * or NULL after an allocation failure (then the bytes are freed). The
 * buffer is zeroed either way. */
char *wg_sbuf__take(wg_sbuf *b);

#endif

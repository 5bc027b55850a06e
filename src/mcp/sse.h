/* mcp/sse.h - an incremental reader of a text/event-stream body (HTML
 * Living Standard, "Server-sent events", 9.2.6 "Interpreting an event
 * stream"), as the client side of MCP's Streamable HTTP transport receives
 * it: bytes arrive in any chunking, events come out whole.
 *
 * Lines end in CRLF, LF or CR; a line starting with ':' is a comment; a line
 * without ':' is a field with an empty value; one space after the ':' is
 * dropped. Fields: "event" (the type), "data" (appended, lines joined by
 * LF), "id" (the last event id; ignored when it holds a NUL), "retry"
 * (digits only). A blank line dispatches the event, unless no data field
 * was seen (then only its id is kept). An empty "data:" does dispatch, with
 * empty data: MCP servers send an id and empty data to prime resumption,
 * and the consumer skips it. Unknown fields are ignored. A leading UTF-8
 * BOM is skipped.
 *
 * Bounded and linear: one line, and one event's data (with the LFs joining
 * its lines), at most max bytes;
 * past that the reader fails (the stream is broken, nothing is truncated).
 * The event id is at most WG_SSE_ID_MAX bytes (a longer one is ignored).
 * Pure: no I/O, no threads; one reader per stream, not shared. */
#ifndef WAGGLE_MCP_SSE_H
#define WAGGLE_MCP_SSE_H

#include <stddef.h>

#define WG_SSE_ID_MAX   256
#define WG_SSE_TYPE_MAX 64

typedef struct {
    size_t max;                   /* bytes of one line or one event's data */
    char *line;                   /* the line being read (cap max + 1) */
    size_t line_len;
    char *data;                   /* the event's data (cap max + 1) */
    size_t data_len;
    int has_data;                 /* a data field was seen */
    char type[WG_SSE_TYPE_MAX + 1];
    char last_id[WG_SSE_ID_MAX + 1];
    long retry_ms;                /* -1: none sent */
    int after_cr;                 /* the last byte was a CR (a CRLF's LF is not a second line end) */
    int started;                  /* past the optional BOM */
    unsigned events;              /* dispatched so far */
} wg_sse;

/* One event: type ("message" when none was given), data (len bytes,
 * NUL-terminated, borrowed until the callback returns), id (the last event
 * id so far, "" when none). Return 0 to go on, anything else to stop: feed
 * returns it. */
typedef int (*wg_sse_event_fn)(void *ud, const char *type, const char *data, size_t len,
                               const char *id);

/* Sets s up for max-byte lines and events (the buffers are allocated here).
 * Returns 0 or WG_ENOMEM / WG_EINVAL (max 0). */
int wg_mcp__sse_init(wg_sse *s, size_t max);
void wg_mcp__sse_clear(wg_sse *s);

/* Reads n bytes, calling fn for each event they complete. Returns 0, what
 * fn returned, or WG_EUPSTREAM (a line or an event over max bytes; message
 * set). After a failure the reader must not be fed again. */
int wg_mcp__sse_feed(wg_sse *s, const char *buf, size_t n, wg_sse_event_fn fn, void *ud);

#endif

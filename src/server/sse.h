/* sse.h - server-sent events (spec 7.5 step events on the wire), internal
 * to src/server. A streaming answer is a wg_res whose `stream` is set: the
 * framework (http.c) sends it with a content-reader callback that never
 * blocks a pool thread - when a stream has nothing to send, its connection
 * is suspended, and a new event, a heartbeat or the server's stop resumes
 * it. */
#ifndef WAGGLE_SERVER_SSE_H
#define WAGGLE_SERVER_SSE_H

#include "server/route.h"
#include "waggle/engine.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct wg_sse wg_sse;       /* one stream */
typedef struct wg_sse_hub wg_sse_hub;   /* every stream of a server */

/* routes_tools_execute.c helpers shared with the streaming form. */
int wg_tools__parse_call(wg_engine_call *call, wg_autonomy_request *autonomy, wg_res *res,
                         const wg_req *req);
int wg_tools__error(wg_res *res, int rc, const char *tool);

/* POST /api/tools/execute with Accept: text/event-stream. */
int wg_sse__execute(wg_res *res, const wg_req *req);
/* GET /api/events. */
int wg_sse__events(wg_res *res, const wg_req *req);

/* A stream another protocol fills (MCP's Streamable HTTP): no bus
 * subscription, no greeting; heartbeats and suspend/resume as for the
 * others. Two references are taken: the response's (give the stream to a
 * wg_res, or wg_sse__release it) and the caller's (wg_sse__unref).
 * WG_EUNSUPPORTED when the server stops or the stream bound is reached. */
int wg_sse__open_plain(wg_sse **out, wg_sse_hub *hub);
/* Frames one event (event name, data on one line; event NULL: none); finish ends the stream
 * after it drains. Never blocks. -1 when the stream had already ended or its
 * client went away. */
int wg_sse__push(wg_sse *s, const char *event, const char *data, int finish);
/* 1 when the stream ended or its client went away. */
int wg_sse__gone(wg_sse *s);
void wg_sse__unref(wg_sse *s);

/* The hub: started before the routes, stopped (every stream ended and its
 * connection resumed) before libmicrohttpd stops. heartbeat_ms: how often
 * an idle stream sends a comment line (0: 15 s); max_streams: open streams
 * at once (0 or more than 128: 128). */
int wg_sse__hub_start(wg_sse_hub **out, wg_engine *engine, unsigned heartbeat_ms,
                      unsigned max_streams);
/* Streams open now (tests: a client that vanished is released). */
size_t wg_sse__count(wg_sse_hub *hub);
void wg_sse__hub_close(wg_sse_hub *hub);   /* ends every stream; call before MHD stops */
void wg_sse__hub_free(wg_sse_hub *hub);

/* For http.c: the content reader and its free callback of a stream. */
ssize_t wg_sse__read(void *stream, uint64_t pos, char *buf, size_t max);
void wg_sse__release(void *stream);
/* Tells the stream which connection carries it (before the first read). */
void wg_sse__attach(wg_sse *s, void *connection);

#endif

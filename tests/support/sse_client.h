/* sse_client.h - a real SSE client for contract tests: `curl -N` spawned
 * with a pipe, and a reader that collects whole events ("event:"/"data:"
 * lines up to a blank line) with a deadline, so tests never hang.
 *
 *     wgt_sse *c = wgt_sse_open(&s, "POST", "/api/tools/execute", body);
 *     json_t *ev = wgt_sse_next(c, "approval_required", 10000);  // or NULL
 *     ...
 *     wgt_sse_close(c);    // kills curl if still running
 */
#ifndef WGT_SSE_CLIENT_H
#define WGT_SSE_CLIENT_H

#include <jansson.h>
#include <sys/types.h>

#include "server_test.h"

typedef struct wgt_sse wgt_sse;

/* Starts curl with the API token and Accept: text/event-stream; body NULL
 * for none. Aborts the test if curl cannot start. */
wgt_sse *wgt_sse_open(const wgt_server *s, const char *method, const char *path,
                      const char *body);
/* The same with extra request headers ("Name: value", NULL-terminated, at
 * most 6); an "Accept:" among them replaces the default one. */
wgt_sse *wgt_sse_open_ex(const wgt_server *s, const char *method, const char *path,
                         const char *body, const char *const *headers);
/* The data (parsed JSON, new) of the next event named name (NULL: any;
 * other events are skipped but remembered in the log), or NULL when the
 * stream ended or timeout_ms passed. */
json_t *wgt_sse_next(wgt_sse *c, const char *name, int timeout_ms);
/* Everything read so far, raw (borrowed). */
const char *wgt_sse_raw(const wgt_sse *c);
/* 1 when curl has exited (the stream ended), waiting up to timeout_ms. */
int wgt_sse_ended(wgt_sse *c, int timeout_ms);
/* Kills curl (SIGKILL: the client vanishes mid-stream) without reading on. */
void wgt_sse_kill(wgt_sse *c);
void wgt_sse_close(wgt_sse *c);

#endif

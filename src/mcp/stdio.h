/* mcp/stdio.h - MCP's stdio transport (MCP 2025-11-25 "Transports"):
 * newline-delimited JSON-RPC messages on two file descriptors, nothing else
 * written to out. A line over WG_MCP_FRAME_MAX bytes is skipped without
 * being held in memory and answered with -32600; a trailing CR is dropped;
 * empty lines are ignored. Writes go through a queue drained by a writer
 * thread (so the engine's event callbacks never block on a slow client);
 * a client that stops reading past WG_MCP_OUTBOX_MAX queued bytes, or whose
 * pipe broke, gets nothing more. */
#ifndef WAGGLE_MCP_STDIO_H
#define WAGGLE_MCP_STDIO_H

#include "mcp/session.h"

#define WG_MCP_OUTBOX_MAX (64u * 1024 * 1024)

/* Serves one session until in reaches EOF (or fails), then closes it:
 * running calls finish and answer, waits for the person are given up.
 * o->send is ignored (the transport's own). Returns 0, or WG_E* when the
 * session could not start. SIGPIPE should be ignored by the caller. */
int wg_mcp__stdio_serve(const wg_mcp_options *o, int in_fd, int out_fd);

#endif

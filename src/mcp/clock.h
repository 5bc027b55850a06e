/* mcp/clock.h - the monotonic clock of the MCP layer's waits: a time in
 * milliseconds to compute deadlines with, and a timespec for
 * pthread_cond_timedwait on a condition variable set to CLOCK_MONOTONIC.
 * Thread-safe, no state. */
#ifndef WAGGLE_MCP_CLOCK_H
#define WAGGLE_MCP_CLOCK_H

#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC. */
long wg_mcp__now_ms(void);

/* *ts = now (CLOCK_MONOTONIC) + ms (ms >= 0). */
void wg_mcp__deadline(struct timespec *ts, long ms);

#endif

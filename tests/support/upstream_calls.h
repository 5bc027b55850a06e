/* upstream_calls.h - what the gateway's upstream tests (stdio and url) share:
 * a tools/call from JSON text, the text of a result, a short sleep. */
#ifndef WAGGLE_TEST_UPSTREAM_CALLS_H
#define WAGGLE_TEST_UPSTREAM_CALLS_H

#include <jansson.h>

#include "mcp/upstream.h"

/* wg_mcp__up_call with args parsed from args_json (NULL: no arguments).
 * *r is NULL or new; returns what wg_mcp__up_call returned. */
int wgt_up_call(wg_upstream *u, const char *tool, const char *args_json, long timeout, json_t **r);

/* The text of the first content item of a CallToolResult (borrowed), or NULL. */
const char *wgt_up_first_text(const json_t *r);

void wgt_sleep_ms(long ms);

#endif

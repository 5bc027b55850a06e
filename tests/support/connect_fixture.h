/* connect_fixture.h - a registry on an in-memory vault with one connector
 * connected, and a one-call helper to run a tool and keep its result. */
#ifndef WGT_CONNECT_FIXTURE_H
#define WGT_CONNECT_FIXTURE_H

#include <jansson.h>
#include "waggle/connector.h"
#include "waggle/error.h"

typedef struct wgt_connect {
    wg_connect_vault *vault;
    wg_registry *reg;
    json_t *last;          /* result of the last wgt_connect_call */
} wgt_connect;

/* Builds the registry (builtins + demo when demo != 0) and connects id with
 * token (skipped when id is NULL) as the operator. The registry allows
 * private and http upstreams (the replay servers are on 127.0.0.1): tests
 * of the strict default build their own. Aborts the test on failure. */
void wgt_connect_open(wgt_connect *f, const char *id, const char *token, int demo);
void wgt_connect_close(wgt_connect *f);

/* Runs tool with args given as JSON text; returns f->last (borrowed). */
json_t *wgt_connect_call(wgt_connect *f, const char *tool, const char *args_json);

/* The error text of f->last, or "" */
const char *wgt_connect_error(const wgt_connect *f);
int wgt_connect_ok(const wgt_connect *f);

#endif

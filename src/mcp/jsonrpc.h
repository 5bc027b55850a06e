/* mcp/jsonrpc.h - JSON-RPC 2.0 frames as MCP uses them (MCP 2025-11-25,
 * "Base Protocol"): one message per frame (a stdio line or an HTTP body),
 * classified into request, notification or response, or rejected with the
 * JSON-RPC error code that fits:
 *   -32700 parse error       not JSON, bad UTF-8, duplicate keys, too deep
 *   -32600 invalid request   not an object, a batch array (batches are not
 *                            part of MCP since 2025-06-18), no "jsonrpc":"2.0",
 *                            an id that is not a string or an integer,
 *                            no method and no result/error, both result and error
 *   -32602 invalid params    params present but not an object
 * Pure: no I/O, no threads. Every message is bounded by the caller
 * (WG_MCP_FRAME_MAX). */
#ifndef WAGGLE_MCP_JSONRPC_H
#define WAGGLE_MCP_JSONRPC_H

#include <stddef.h>
#include <jansson.h>

enum {
    WG_RPC_PARSE_ERROR = -32700,
    WG_RPC_INVALID_REQUEST = -32600,
    WG_RPC_METHOD_NOT_FOUND = -32601,
    WG_RPC_INVALID_PARAMS = -32602,
    WG_RPC_INTERNAL_ERROR = -32603,
    WG_RPC_SERVER_BUSY = -32000,        /* implementation-defined: too many calls at once */
};

#define WG_MCP_FRAME_MAX (4u * 1024 * 1024)   /* bytes of one message */

typedef enum {
    WG_RPC_REQUEST = 0,
    WG_RPC_NOTIFICATION,
    WG_RPC_RESPONSE,
    WG_RPC_INVALID
} wg_rpc_kind;

typedef struct wg_rpc_msg {
    wg_rpc_kind kind;
    json_t *root;              /* owned: the parsed frame (NULL when not JSON) */
    const json_t *id;          /* borrowed from root: requests, responses; NULL otherwise */
    const char *method;        /* requests and notifications */
    const json_t *params;      /* an object, or NULL when absent */
    const json_t *result;      /* responses: exactly one of result and error */
    const json_t *error;
    int code;                  /* WG_RPC_INVALID: the error code to answer with */
    char why[160];             /* WG_RPC_INVALID: the message */
} wg_rpc_msg;

/* Parses and classifies one frame of len bytes (need not be NUL-terminated).
 * Always fills *m (clear it with wg_rpc__msg_clear); an invalid frame is
 * kind WG_RPC_INVALID with code, why and, when it could be read, id. */
void wg_rpc__parse(wg_rpc_msg *m, const char *text, size_t len);
void wg_rpc__msg_clear(wg_rpc_msg *m);

/* New messages (NULL on allocation failure). id is copied (NULL: null);
 * result, params and data are stolen (params may be NULL). */
json_t *wg_rpc__result(const json_t *id, json_t *result);
json_t *wg_rpc__error(const json_t *id, int code, const char *message, json_t *data);
json_t *wg_rpc__request(json_int_t id, const char *method, json_t *params);
json_t *wg_rpc__notification(const char *method, json_t *params);

/* The compact one-line text of msg (jansson escapes every control
 * character, so it never holds a newline). New (free()), or NULL. */
char *wg_rpc__dump(const json_t *msg, size_t *len);

#endif

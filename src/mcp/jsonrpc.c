/* jsonrpc.c - JSON-RPC 2.0 framing for MCP (jsonrpc.h). The classifier
 * follows MCP 2025-11-25 "Base Protocol": requests carry a string or
 * integer id (never null), notifications none, responses exactly one of
 * result and error; a JSON array is a batch, which this revision no longer
 * has, and is refused as one invalid request. */
#include "mcp/jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The message goes back to the client inside a JSON string: jansson's parse
 * errors can quote the offending bytes, which may be bad UTF-8 or control
 * characters, so everything but printable ASCII becomes '?'. */
static void invalid(wg_rpc_msg *m, int code, const char *why)
{
    m->kind = WG_RPC_INVALID;
    m->code = code;
    snprintf(m->why, sizeof m->why, "%s", why);
    for (char *p = m->why; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            *p = '?';
}

static int id_ok(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

static void classify(wg_rpc_msg *m)
{
    const json_t *o = m->root;
    if (json_is_array(o)) {
        invalid(m, WG_RPC_INVALID_REQUEST, "JSON-RPC batches are not part of MCP 2025-11-25: "
                "send one message per frame");
        return;
    }
    if (!json_is_object(o)) {
        invalid(m, WG_RPC_INVALID_REQUEST, "a JSON-RPC message is a JSON object");
        return;
    }
    const json_t *id = json_object_get(o, "id");
    if (id && id_ok(id))
        m->id = id;
    const char *v = json_string_value(json_object_get(o, "jsonrpc"));
    if (!v || strcmp(v, "2.0") != 0) {
        invalid(m, WG_RPC_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
        return;
    }
    if (id && !id_ok(id)) {
        invalid(m, WG_RPC_INVALID_REQUEST, "\"id\" must be a string or an integer");
        return;
    }
    const json_t *method = json_object_get(o, "method");
    const json_t *result = json_object_get(o, "result");
    const json_t *error = json_object_get(o, "error");
    if (method) {
        if (!json_is_string(method) || !json_string_length(method)) {
            invalid(m, WG_RPC_INVALID_REQUEST, "\"method\" must be a non-empty string");
            return;
        }
        if (result || error) {
            invalid(m, WG_RPC_INVALID_REQUEST, "a request carries no result or error");
            return;
        }
        m->method = json_string_value(method);
        m->kind = id ? WG_RPC_REQUEST : WG_RPC_NOTIFICATION;
        const json_t *params = json_object_get(o, "params");
        if (params && !json_is_object(params)) {
            /* a notification with bad params is dropped: nothing answers it */
            invalid(m, WG_RPC_INVALID_PARAMS, "\"params\" must be an object");
            return;
        }
        m->params = params;
        return;
    }
    if (!id) {
        invalid(m, WG_RPC_INVALID_REQUEST, "a message needs a method, or an id with a result or error");
        return;
    }
    if (!result == !error) {
        invalid(m, WG_RPC_INVALID_REQUEST, "a response carries exactly one of result and error");
        return;
    }
    if (error && (!json_is_object(error) || !json_is_integer(json_object_get(error, "code")))) {
        invalid(m, WG_RPC_INVALID_REQUEST, "\"error\" must be an object with an integer code");
        return;
    }
    m->kind = WG_RPC_RESPONSE;
    m->result = result;
    m->error = error;
}

void wg_rpc__parse(wg_rpc_msg *m, const char *text, size_t len)
{
    memset(m, 0, sizeof *m);
    if (len > WG_MCP_FRAME_MAX) {
        invalid(m, WG_RPC_INVALID_REQUEST, "the message is larger than the 4 MiB frame limit");
        return;
    }
    json_error_t err;
    /* Duplicate keys make a message mean two things: refuse it. Nesting is
     * bounded by jansson's parser depth (2048). */
    m->root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (!m->root) {
        char why[160];
        snprintf(why, sizeof why, "parse error: %.120s", err.text);
        invalid(m, WG_RPC_PARSE_ERROR, why);
        return;
    }
    classify(m);
}

void wg_rpc__msg_clear(wg_rpc_msg *m)
{
    json_decref(m->root);
    memset(m, 0, sizeof *m);
}

static json_t *envelope(const json_t *id)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "jsonrpc", json_string("2.0"));
    json_object_set_new(o, "id", id ? json_deep_copy(id) : json_null());
    return o;
}

json_t *wg_rpc__result(const json_t *id, json_t *result)
{
    json_t *o = envelope(id);
    if (!o || !result) {
        json_decref(o);
        json_decref(result);
        return NULL;
    }
    json_object_set_new(o, "result", result);
    return o;
}

json_t *wg_rpc__error(const json_t *id, int code, const char *message, json_t *data)
{
    json_t *o = envelope(id);
    json_t *e = json_pack("{s:i,s:s}", "code", code, "message", message ? message : "error");
    if (!o || !e) {
        json_decref(o);
        json_decref(e);
        json_decref(data);
        return NULL;
    }
    if (data)
        json_object_set_new(e, "data", data);
    json_object_set_new(o, "error", e);
    return o;
}

json_t *wg_rpc__request(json_int_t id, const char *method, json_t *params)
{
    json_t *o = json_pack("{s:s,s:I,s:s}", "jsonrpc", "2.0", "id", id, "method", method);
    if (o && params)
        json_object_set_new(o, "params", params);
    else
        json_decref(params);
    return o;
}

json_t *wg_rpc__notification(const char *method, json_t *params)
{
    json_t *o = json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method", method);
    if (o && params)
        json_object_set_new(o, "params", params);
    else
        json_decref(params);
    return o;
}

char *wg_rpc__dump(const json_t *msg, size_t *len)
{
    char *s = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    if (s && len)
        *len = strlen(s);
    return s;
}

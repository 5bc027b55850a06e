/* mcp_frame.c - libFuzzer target for MCP's JSON-RPC framing
 * (src/mcp/jsonrpc.c) and the reading of an elicitation answer
 * (src/mcp/elicit.c). Invariants, not only crashes: every frame gets exactly
 * one kind; an invalid one carries a JSON-RPC code of the three the framing
 * uses and a message; a request has a method and a string or integer id;
 * the error answer for any frame is one line of valid JSON; an elicitation
 * answer only approves when the frame says accept with approve = true. */
#include "mcp/elicit.h"
#include "mcp/jsonrpc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_answer_line(const wg_rpc_msg *m)
{
    json_t *err = wg_rpc__error(m->id, m->code ? m->code : WG_RPC_INTERNAL_ERROR,
                                m->why[0] ? m->why : "x", NULL);
    size_t len = 0;
    char *line = wg_rpc__dump(err, &len);
    json_decref(err);
    if (!line)
        abort();                             /* every frame gets its answer */
    if (memchr(line, '\n', len) || memchr(line, '\r', len))
        abort();
    json_t *back = json_loadb(line, len, 0, NULL);
    if (!back)
        abort();
    json_decref(back);
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wg_rpc_msg m;
    wg_rpc__parse(&m, (const char *)data, size);
    switch (m.kind) {
    case WG_RPC_INVALID:
        if (m.code != WG_RPC_PARSE_ERROR && m.code != WG_RPC_INVALID_REQUEST &&
            m.code != WG_RPC_INVALID_PARAMS)
            abort();
        if (!m.why[0])
            abort();
        break;
    case WG_RPC_REQUEST:
        if (!m.method || !*m.method || !(json_is_string(m.id) || json_is_integer(m.id)))
            abort();
        if (m.params && !json_is_object(m.params))
            abort();
        break;
    case WG_RPC_NOTIFICATION:
        if (!m.method || m.id)
            abort();
        break;
    case WG_RPC_RESPONSE:
        if (!m.id || !m.result == !m.error)
            abort();
        if (wg_mcp__elicit_answer(m.result, m.error) == WG_ENGINE_ASK_APPROVE) {
            const json_t *c = json_object_get(m.result, "content");
            const char *action = json_string_value(json_object_get(m.result, "action"));
            if (!action || strcmp(action, "accept") != 0 ||
                !json_is_true(json_object_get(c, "approve")))
                abort();
        }
        break;
    default:
        abort();
    }
    check_answer_line(&m);
    wg_rpc__msg_clear(&m);
    return 0;
}

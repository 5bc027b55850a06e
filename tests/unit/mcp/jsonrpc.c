/* jsonrpc.c - MCP's JSON-RPC framing (src/mcp/jsonrpc.h; MCP 2025-11-25
 * "Base Protocol"): each kind of message, and every malformed frame with the
 * error code the revision calls for. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/jsonrpc.h"

static wg_rpc_msg parse(const char *text)
{
    wg_rpc_msg m;
    wg_rpc__parse(&m, text, strlen(text));
    return m;
}

static void expect_invalid(const char *text, int code)
{
    wg_rpc_msg m = parse(text);
    cr_expect_eq(m.kind, WG_RPC_INVALID, "%s", text);
    cr_expect_eq(m.code, code, "%s: code %d, why %s", text, m.code, m.why);
    cr_expect(m.why[0]);
    wg_rpc__msg_clear(&m);
}

Test(jsonrpc, a_request_a_notification_and_a_response_are_told_apart)
{
    wg_rpc_msg m = parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{}}");
    cr_assert_eq(m.kind, WG_RPC_REQUEST);
    cr_expect_str_eq(m.method, "tools/list");
    cr_expect_eq(json_integer_value(m.id), 7);
    cr_expect(json_is_object(m.params));
    wg_rpc__msg_clear(&m);
    m = parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    cr_expect_eq(m.kind, WG_RPC_NOTIFICATION);
    cr_expect_null(m.id);
    wg_rpc__msg_clear(&m);
    m = parse("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"action\":\"decline\"}}");
    cr_expect_eq(m.kind, WG_RPC_RESPONSE);
    cr_expect_str_eq(json_string_value(m.id), "a");
    wg_rpc__msg_clear(&m);
    m = parse("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-1,\"message\":\"x\"}}");
    cr_expect_eq(m.kind, WG_RPC_RESPONSE);
    cr_expect_not_null(m.error);
    wg_rpc__msg_clear(&m);
}

Test(jsonrpc, not_json_is_a_parse_error)
{
    expect_invalid("garbage", WG_RPC_PARSE_ERROR);
    expect_invalid("{\"jsonrpc\":\"2.0\",", WG_RPC_PARSE_ERROR);
    expect_invalid("", WG_RPC_PARSE_ERROR);
    /* bad UTF-8 inside a string */
    expect_invalid("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}", WG_RPC_PARSE_ERROR);
    /* one message meaning two things */
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", WG_RPC_PARSE_ERROR);
    /* two messages in one frame */
    expect_invalid("{\"jsonrpc\":\"2.0\",\"method\":\"a\"}{\"jsonrpc\":\"2.0\",\"method\":\"b\"}",
                   WG_RPC_PARSE_ERROR);
}

Test(jsonrpc, the_error_for_bad_bytes_is_printable_and_always_sent)
{
    static const char frame[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\x01\"}";
    wg_rpc_msg m;
    wg_rpc__parse(&m, frame, sizeof frame - 1);
    cr_assert_eq(m.kind, WG_RPC_INVALID);
    for (const char *p = m.why; *p; p++)
        cr_expect((unsigned char)*p >= 0x20 && (unsigned char)*p <= 0x7e, "byte %02x", (unsigned char)*p);
    json_t *e = wg_rpc__error(m.id, m.code, m.why, NULL);
    cr_expect_not_null(e, "the answer could not be built");
    json_decref(e);
    wg_rpc__msg_clear(&m);
}

Test(jsonrpc, deep_nesting_fails_closed)
{
    enum { DEPTH = 100000 };
    char *s = malloc(2 * DEPTH + 64);
    size_t n = (size_t)sprintf(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":");
    for (int i = 0; i < DEPTH; i++)
        s[n++] = '[';
    for (int i = 0; i < DEPTH; i++)
        s[n++] = ']';
    s[n++] = '}';
    s[n++] = '}';
    wg_rpc_msg m;
    wg_rpc__parse(&m, s, n);
    cr_expect_eq(m.kind, WG_RPC_INVALID);
    cr_expect_eq(m.code, WG_RPC_PARSE_ERROR);
    wg_rpc__msg_clear(&m);
    free(s);
}

Test(jsonrpc, a_batch_array_is_one_invalid_request)
{
    /* MCP 2025-06-18 removed JSON-RPC batching; 2025-11-25 has none */
    expect_invalid("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", WG_RPC_INVALID_REQUEST);
    expect_invalid("[]", WG_RPC_INVALID_REQUEST);
}

Test(jsonrpc, wrong_shapes_are_invalid_requests)
{
    expect_invalid("42", WG_RPC_INVALID_REQUEST);
    expect_invalid("\"ping\"", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"id\":1,\"method\":\"ping\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":2,\"id\":1,\"method\":\"ping\"}", WG_RPC_INVALID_REQUEST);
    /* MCP: an id is a string or an integer, never null */
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1}}",
                   WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"no\"}", WG_RPC_INVALID_REQUEST);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"result\":{}}",
                   WG_RPC_INVALID_REQUEST);
}

Test(jsonrpc, params_that_are_not_an_object_are_invalid_params_with_the_id_kept)
{
    wg_rpc_msg m = parse("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":[1]}");
    cr_expect_eq(m.kind, WG_RPC_INVALID);
    cr_expect_eq(m.code, WG_RPC_INVALID_PARAMS);
    cr_expect_eq(json_integer_value(m.id), 9);
    wg_rpc__msg_clear(&m);
}

Test(jsonrpc, the_frame_limit_is_exact)
{
    size_t max = WG_MCP_FRAME_MAX;
    char *s = malloc(max + 2);
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"p\":\"";
    memset(s, 'a', max + 1);
    memcpy(s, head, sizeof head - 1);
    for (size_t len = max - 1; len <= max + 1; len++) {
        memcpy(s + len - 3, "\"}}", 3);
        wg_rpc_msg m;
        wg_rpc__parse(&m, s, len);
        if (len <= max)
            cr_expect_eq(m.kind, WG_RPC_NOTIFICATION, "len %zu: %s", len, m.why);
        else
            cr_expect_eq(m.code, WG_RPC_INVALID_REQUEST, "len %zu", len);
        wg_rpc__msg_clear(&m);
        memset(s + len - 3, 'a', 3);
    }
    free(s);
}

Test(jsonrpc, messages_are_one_line_and_copy_the_id)
{
    json_t *id = json_string("x\ny");
    json_t *r = wg_rpc__error(id, WG_RPC_INVALID_PARAMS, "bad\nthing", NULL);
    size_t len = 0;
    char *line = wg_rpc__dump(r, &len);
    cr_assert_not_null(line);
    cr_expect_null(memchr(line, '\n', len));
    cr_expect_str_eq(line, "{\"jsonrpc\":\"2.0\",\"id\":\"x\\ny\",\"error\":"
                     "{\"code\":-32602,\"message\":\"bad\\nthing\"}}");
    free(line);
    json_decref(r);
    json_decref(id);
    r = wg_rpc__error(NULL, WG_RPC_PARSE_ERROR, "p", NULL);
    cr_expect(json_is_null(json_object_get(r, "id")));
    json_decref(r);
}

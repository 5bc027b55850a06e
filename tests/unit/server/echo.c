/* echo.c - the backstop that keeps error messages from quoting the request
 * (src/server/echo.c): what counts as a quote, the 3-byte floor, field names,
 * the string and depth bounds (fail closed past them), and bodies built with
 * wg_res_json left alone. Pure. */
#include <criterion/criterion.h>

#include "server/server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *msg(const wg_res *r)
{
    return json_string_value(json_object_get(r->json, "message"));
}

static int scrub(wg_res *r, const char *const *values, size_t n, const char *body_json)
{
    json_t *body = body_json ? json_loads(body_json, 0, NULL) : NULL;
    if (body_json)
        cr_assert_not_null(body, "bad test body %s", body_json);
    wg_echo_sources src = { values, n, body, 0 };
    int hit = wg_echo__scrub(r, &src);
    json_decref(body);
    return hit;
}

Test(echo, a_quoted_path_parameter_is_replaced_code_and_status_kept)
{
    wg_res r = { 0 };
    wg_res_error(&r, 404, "NOT_FOUND", "no plugin named %s", "evil<b>");
    const char *vals[] = { "evil<b>" };
    cr_assert_eq(scrub(&r, vals, 1, NULL), 1);
    cr_assert_str_eq(msg(&r), "not found");
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "NOT_FOUND");
    cr_assert_eq(r.status, 404);
    wg_res_clear(&r);
}

Test(echo, a_quoted_nested_body_string_is_replaced)
{
    wg_res r = { 0 };
    wg_res_error(&r, 400, "INVALID_REQUEST", "unknown permission \"%s\"", "rootkit");
    cr_assert_eq(scrub(&r, NULL, 0, "{\"a\":{\"b\":[1,\"rootkit\"]}}"), 1);
    cr_assert_str_eq(msg(&r), "the request is invalid");
    wg_res_clear(&r);
}

Test(echo, the_three_byte_floor_n_minus_1_n)
{
    wg_res r = { 0 };
    wg_res_error(&r, 400, "INVALID_REQUEST", "ab is wrong, abc too");
    const char *two[] = { "ab" };
    cr_assert_eq(scrub(&r, two, 1, NULL), 0);
    const char *three[] = { "abc" };
    cr_assert_eq(scrub(&r, three, 1, NULL), 1);
    wg_res_clear(&r);
}

Test(echo, field_name_keys_are_not_input_other_keys_are)
{
    wg_res r = { 0 };
    wg_res_error(&r, 400, "INVALID_REQUEST", "readOnly must be a boolean");
    cr_assert_eq(scrub(&r, NULL, 0, "{\"readOnly\":7}"), 0);
    cr_assert_str_eq(msg(&r), "readOnly must be a boolean");
    wg_res_clear(&r);
    wg_res_error(&r, 400, "INVALID_REQUEST", "unknown field \"x-y<z>\"");
    cr_assert_eq(scrub(&r, NULL, 0, "{\"x-y<z>\":7}"), 1);
    wg_res_clear(&r);
    cr_assert(wg_echo__is_field_name("declared_Permissions2"));
    cr_assert(!wg_echo__is_field_name("a-b"));
}

Test(echo, bodies_built_with_res_json_are_left_alone)
{
    wg_res r = { 0 };
    wg_res_json(&r, 403, json_pack("{s:s,s:s}", "error", "TIER_INSUFFICIENT", "message",
                                   "This feature requires the PRO tier."));
    cr_assert_eq(scrub(&r, NULL, 0, "{\"tier\":\"PRO tier\"}"), 0);
    cr_assert_str_eq(msg(&r), "This feature requires the PRO tier.");
    wg_res_clear(&r);
    wg_res_error(&r, 200, "x", "ok %s", "value");     /* not an error status */
    const char *v[] = { "value" };
    cr_assert_eq(scrub(&r, v, 1, NULL), 0);
    wg_res_clear(&r);
}

/* 512 strings are checked; one more cannot be, so the message goes. */
Test(echo, string_bound_n_n_plus_1_fails_closed)
{
    for (int n = 511; n <= 513; n++) {
        size_t cap = (size_t)n * 8 + 16;
        char *b = malloc(cap);
        size_t k = (size_t)snprintf(b, cap, "[");
        for (int i = 0; i < n; i++)
            k += (size_t)snprintf(b + k, cap - k, "%s\"s%d\"", i ? "," : "", i % 10);
        snprintf(b + k, cap - k, "]");
        wg_res r = { 0 };
        wg_res_error(&r, 400, "INVALID_REQUEST", "a message");
        cr_expect_eq(scrub(&r, NULL, 0, b), n > 512, "%d strings", n);
        wg_res_clear(&r);
        free(b);
    }
}

Test(echo, depth_bound_n_n_plus_1_fails_closed)
{
    for (int d = 31; d <= 33; d++) {
        char b[256];
        size_t k = 0;
        for (int i = 0; i < d; i++)
            b[k++] = '[';
        k += (size_t)snprintf(b + k, sizeof b - k, "\"zz\"");
        for (int i = 0; i < d; i++)
            b[k++] = ']';
        b[k] = '\0';
        wg_res r = { 0 };
        wg_res_error(&r, 400, "INVALID_REQUEST", "a message");
        cr_expect_eq(scrub(&r, NULL, 0, b), d > 32, "depth %d", d);
        wg_res_clear(&r);
    }
}

Test(echo, too_many_query_values_fail_closed)
{
    wg_res r = { 0 };
    wg_res_error(&r, 400, "INVALID_REQUEST", "a message");
    wg_echo_sources src = { NULL, 0, NULL, 1 };
    cr_assert_eq(wg_echo__scrub(&r, &src), 1);
    wg_res_clear(&r);
}

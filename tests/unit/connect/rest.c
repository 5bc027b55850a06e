/* rest.c - the REST executor's pure parts: path segment encoding refuses
 * dot segments (reference 13 item 11) and templates substitute values as
 * JSON values, dropping absent ones. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "connect/rest.h"
#include "waggle/error.h"

Test(connect_rest, segment_encoding_refuses_dot_segments)
{
    char *out = NULL;
    cr_assert_eq(wg_rest_encode_segment(&out, ".."), WG_EINVAL);
    cr_assert_eq(wg_rest_encode_segment(&out, "."), WG_EINVAL);
    cr_assert_eq(wg_rest_encode_segment(&out, ""), WG_EINVAL);
    cr_assert_eq(wg_rest_encode_segment(&out, "a/../b?c#d e"), 0);
    cr_assert_str_eq(out, "a%2F..%2Fb%3Fc%23d%20e");
    free(out);
    cr_assert_eq(wg_rest_encode_segment(&out, "\r\n%2e"), 0);
    cr_assert_str_eq(out, "%0D%0A%252e");
    free(out);
}

Test(connect_rest, template_fills_values_and_drops_absent)
{
    json_t *p = json_pack("{s:s,s:[s],s:n}", "title", "a\"b} {", "labels", "x", "gone", NULL);
    json_t *out = NULL;
    cr_assert_eq(wg_rest_fill(&out, "{\"t\":\"$title\",\"l\":\"$labels\",\"g\":\"$gone\",\"b\":\"$base=\\\"main\\\"\","
                                    "\"o\":{\"$if\":\"missing\",\"x\":1},\"lit\":\"$$5\"}", p), 0);
    char *s = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
    cr_assert_str_eq(s, "{\"b\":\"main\",\"l\":[\"x\"],\"lit\":\"$5\",\"t\":\"a\\\"b} {\"}");
    free(s);
    json_decref(out);
    json_decref(p);
}

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

/* ---- next-page links (rest.h wg_rest_link_ok) ---------------------------- */

static int link(const char *base, const char *l)
{
    char *out = NULL;
    int rc = wg_rest_link_ok(&out, base, l);
    free(out);
    return rc;
}

Test(connect_rest, next_links_are_followed_only_under_the_base)
{
    const char *g = "https://graph.microsoft.com/v1.0";
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/me/messages?$skip=10"), 0);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0?$skiptoken=x"), 0);
    cr_assert_eq(link(g, "https://GRAPH.microsoft.com/v1.0/me"), 0, "host case does not matter");
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0x/me"), WG_EDENIED, "prefix boundary");
    cr_assert_eq(link(g, "https://graph.microsoft.com/beta/me"), WG_EDENIED);
    cr_assert_eq(link(g, "https://graph.microsoft.com.evil.example/v1.0/me"), WG_EDENIED);
    cr_assert_eq(link(g, "https://graph.microsoft.com:8443/v1.0/me"), WG_EDENIED);
    cr_assert_eq(link(g, "http://graph.microsoft.com/v1.0/me"), WG_EDENIED, "scheme downgrade");
    cr_assert_eq(link(g, "https://user@graph.microsoft.com/v1.0/me"), WG_EDENIED);
    cr_assert_eq(link(g, "https://evil.example/v1.0/me"), WG_EDENIED);
    cr_assert_eq(link(g, "https://x"), WG_EDENIED, "shorter than the base's origin (fuzz)");
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/../beta/me"), WG_EDENIED);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/%2e%2E/beta/me"), WG_EDENIED);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/me/./x"), WG_EDENIED);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/..%2fbeta"), WG_EDENIED);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/me%5c..%5cx"), WG_EDENIED);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/me?q=a/../b"), 0,
                 "dots in the query are data");
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/me\r\nX-Injected: 1"), WG_EINVAL);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/me#frag"), WG_EINVAL);
    cr_assert_eq(link(g, "https://graph.microsoft.com/v1.0/me x"), WG_EINVAL);
    cr_assert_eq(link(g, ""), WG_EINVAL);
    /* origin-relative links (Confluence _links.next) */
    char *out = NULL;
    cr_assert_eq(wg_rest_link_ok(&out, "https://acme.atlassian.net/wiki/api/v2",
                                 "/wiki/api/v2/pages?cursor=abc"), 0);
    cr_assert_str_eq(out, "https://acme.atlassian.net/wiki/api/v2/pages?cursor=abc");
    free(out);
    cr_assert_eq(link("https://acme.atlassian.net/wiki/api/v2", "/rest/api/3/myself"), WG_EDENIED);
    cr_assert_eq(link("https://acme.atlassian.net/wiki/api/v2", "//evil.example/wiki/api/v2"),
                 WG_EINVAL);
}

Test(connect_rest, next_link_length_bound)
{
    const char *b = "https://a.example/v1";
    size_t fixed = strlen("https://a.example/v1/x?");
    char *l = malloc(WG_REST_LINK_MAX + 2);
    for (size_t want = WG_REST_LINK_MAX - 1; want <= WG_REST_LINK_MAX + 1; want++) {
        snprintf(l, WG_REST_LINK_MAX + 2, "https://a.example/v1/x?");
        memset(l + fixed, 'q', want - fixed);
        l[want] = 0;
        cr_assert_eq(link(b, l), want <= WG_REST_LINK_MAX ? 0 : WG_EINVAL, "length %zu", want);
    }
    free(l);
}

/* ---- Retry-After (RFC 9110 10.2.3) ------------------------------------------ */

Test(connect_rest, retry_after_in_both_forms)
{
    const long long now = 1445412450;      /* Wed, 21 Oct 2015 07:27:30 GMT */
    cr_assert_eq(wg_rest_retry_after("120", now), 120);
    cr_assert_eq(wg_rest_retry_after("0", now), 0);
    cr_assert_eq(wg_rest_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), 30);
    cr_assert_eq(wg_rest_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now), 0, "past: now");
    cr_assert_eq(wg_rest_retry_after(NULL, now), -1);
    cr_assert_eq(wg_rest_retry_after("", now), -1);
    cr_assert_eq(wg_rest_retry_after("soon", now), -1);
    cr_assert_eq(wg_rest_retry_after("-5", now), -1);
    cr_assert_eq(wg_rest_retry_after("999999999", now), 999999999);
    cr_assert_eq(wg_rest_retry_after("9999999999", now), -1, "over nine digits");
}

Test(connect_rest, json_paths_take_keys_with_dots)
{
    json_t *v = json_loads("{\"@odata.nextLink\":\"n\",\"paging\":{\"next\":{\"after\":\"7\"}}}",
                           0, NULL);
    cr_assert_str_eq(json_string_value(wg_rest_json_at(v, "@odata.nextLink")), "n");
    cr_assert_str_eq(json_string_value(wg_rest_json_at(v, "paging/next/after")), "7");
    cr_assert_null(wg_rest_json_at(v, "paging/none"));
    cr_assert_null(wg_rest_json_at(v, ""));
    json_decref(v);
}

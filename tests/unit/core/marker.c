/* Tests for the capability-request marker (spec 4.3; original-facts 9,
 * 12.4, 13 item 24). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/marker.h"
#include "waggle/error.h"

#define M(json) "<!--waggle:capability_request " json "-->"

/* "name/source/reason|..." of the parse result ("-" for no reason). */
static char *found(const char *text)
{
    wg_marker_list l;
    cr_assert_eq(wg_marker_parse(&l, text, strlen(text)), 0);
    static char buf[4096];
    buf[0] = '\0';
    for (size_t i = 0; i < l.count; i++) {
        char one[1024];
        snprintf(one, sizeof one, "%s%s/%s/%s", i ? "|" : "", l.items[i].name,
                 l.items[i].source, l.items[i].reason ? l.items[i].reason : "-");
        strcat(buf, one);
    }
    wg_marker_list_free(&l);
    return buf;
}

Test(marker, emit_is_the_exact_format)
{
    char *s = NULL;
    cr_assert_eq(wg_marker_emit(&s, "risk-assessment", "starter-pack", "You asked for a risk write-up."), 0);
    cr_expect_str_eq(s, "<!--waggle:capability_request {\"name\":\"risk-assessment\","
                     "\"source\":\"starter-pack\",\"reason\":\"You asked for a risk write-up.\"}-->\n");
    free(s);
}

Test(marker, emit_sanitizes_reason)
{
    char *s = NULL;
    cr_assert_eq(wg_marker_emit(&s, "a", "b", "  uses {braces}\n\tand <script>  "), 0);
    cr_expect_str_eq(s, M("{\"name\":\"a\",\"source\":\"b\",\"reason\":\"uses braces and script\"}") "\n");
    free(s);
}

Test(marker, emit_refuses_unsafe_names)
{
    char *s = NULL;
    cr_expect_eq(wg_marker_emit(&s, "a-->b", "x", NULL), WG_EINVAL);
    cr_expect_eq(wg_marker_emit(&s, "a\"b", "x", NULL), WG_EINVAL);
    cr_expect_eq(wg_marker_emit(&s, "a", "", NULL), WG_EINVAL);
    cr_expect_eq(wg_marker_emit(&s, "a\nb", "x", NULL), WG_EINVAL);
    cr_expect_eq(wg_marker_emit(&s, "\xff", "x", NULL), WG_EINVAL);
    cr_expect_null(s);
}

Test(marker, sanitizer_caps_at_140_code_points)
{
    char in[1000], *s = NULL;
    memset(in, 'x', 300);
    in[300] = '\0';
    cr_assert_eq(wg_marker_sanitize_reason(&s, in), 0);
    cr_expect_eq(strlen(s), WG_MARKER_REASON_MAX);
    free(s);
    /* 200 two-byte characters: cut at 140 characters, never inside one */
    for (int i = 0; i < 200; i++)
        memcpy(in + 2 * i, "\xc3\xa9", 2);
    in[400] = '\0';
    cr_assert_eq(wg_marker_sanitize_reason(&s, in), 0);
    cr_expect_eq(strlen(s), 280);
    free(s);
}

Test(marker, sanitizer_is_idempotent)
{
    const char *cases[] = { "", "  a  b  ", "{}<>", "x\x01y\xff\xfez", "a {b} c",
                            "\xe2\x82", "trailing space at the cut                    ",
                            "é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é é" };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *a = NULL, *b = NULL;
        cr_assert_eq(wg_marker_sanitize_reason(&a, cases[i]), 0);
        cr_assert_eq(wg_marker_sanitize_reason(&b, a), 0);
        cr_expect_str_eq(a, b, "case %zu", i);
        cr_expect(!strpbrk(a, "{}<>"));
        free(a);
        free(b);
    }
}

Test(marker, parse_reference_vectors)
{
    cr_expect_str_eq(found("Hello world."), "");
    cr_expect_str_eq(found("Before. " M("{\"name\":\"risk-assessment\",\"source\":\"starter-pack\","
                           "\"reason\":\"You asked for a risk write-up.\"}") " After."),
                     "risk-assessment/starter-pack/You asked for a risk write-up.");
    cr_expect_str_eq(found("To install, call: `install_capability` with name \"research-synthesis\" "
                           "and source \"starter-pack\"."), "research-synthesis/starter-pack/-");
    cr_expect_str_eq(found("`install_capability` with name \"a\" and source \"s\". "
                           "`install_capability` with name \"a\" and source \"s\"."), "a/s/-");
    cr_expect_str_eq(found("`install_capability` with name \"a\" and source \"s\". "
                           "`install_capability` with name \"b\" and source \"s\"."), "a/s/-|b/s/-");
    cr_expect_str_eq(found("Before " M("{bad json} ") " after."), "");
    cr_expect_str_eq(found(M("{\"foo\":\"bar\"}")), "");
    cr_expect_str_eq(found("<!-- waggle:capability_request   {\"name\":\"a\",\"source\":\"b\"}   -->"), "a/b/-");
    cr_expect_str_eq(found(M("{\"name\":\"a\",\"source\":\"b\"}") "\n" M("{\"name\":\"a\",\"source\":\"c\"}")),
                     "a/b/-|a/c/-");
}

Test(marker, parse_kind_passes_through)
{
    const char *t = M("{\"name\":\"pubmed-search\",\"source\":\"marketplace\",\"kind\":\"marketplace\"}");
    wg_marker_list l;
    cr_assert_eq(wg_marker_parse(&l, t, strlen(t)), 0);
    cr_assert_eq(l.count, 1);
    cr_expect_str_eq(l.items[0].kind, "marketplace");
    cr_expect_eq(l.items[0].start, 0);
    cr_expect_eq(l.items[0].end, strlen(t));
    cr_expect_eq(l.items[0].legacy, 0);
    wg_marker_list_free(&l);
}

Test(marker, braces_in_values_and_nesting_are_fine)
{
    /* original: both dropped the card (13 item 24) */
    cr_expect_str_eq(found(M("{\"name\":\"a\",\"source\":\"b\",\"reason\":\"uses {braces}\"}")),
                     "a/b/uses braces");
    cr_expect_str_eq(found(M("{\"name\":\"a\",\"source\":\"b\",\"extra\":{\"x\":{\"y\":1}}}")), "a/b/-");
    cr_expect_str_eq(found(M("{\"name\":\"a\",\"source\":\"b\",\"reason\":\"--> }\"}")), "a/b/--");
}

Test(marker, reason_is_sanitized_on_parse)
{
    cr_expect_str_eq(found(M("{\"name\":\"a\",\"source\":\"b\",\"reason\":\"<script>alert(1)</script>\"}")),
                     "a/b/scriptalert(1)/script");
    char big[600];
    snprintf(big, sizeof big, M("{\"name\":\"a\",\"source\":\"b\",\"reason\":\"%0300d\"}"), 0);
    wg_marker_list l;
    cr_assert_eq(wg_marker_parse(&l, big, strlen(big)), 0);
    cr_assert_eq(l.count, 1);
    cr_expect_eq(strlen(l.items[0].reason), WG_MARKER_REASON_MAX);
    wg_marker_list_free(&l);
}

Test(marker, non_string_names_are_refused)
{
    /* original String()-coerced {"name":1,"source":true}; we fail closed */
    cr_expect_str_eq(found(M("{\"name\":1,\"source\":true}")), "");
    cr_expect_str_eq(found(M("{\"name\":\"\",\"source\":\"b\"}")), "");
    cr_expect_str_eq(found(M("{\"name\":\"a\",\"name\":\"c\",\"source\":\"b\"}")), "");
}

Test(marker, case_and_spacing_are_tolerated)
{
    cr_expect_str_eq(found("call `INSTALL_CAPABILITY` WITH NAME \"x\" AND SOURCE \"y\""), "x/y/-");
    cr_expect_str_eq(found("<!--waggle:capability_request{\"name\":\"a\",\"source\":\"b\"}-->"), "a/b/-");
    cr_expect_str_eq(found("<!--WAGGLE:Capability_Request {\"name\":\"a\",\"source\":\"b\"}-->"), "a/b/-");
}

Test(marker, legacy_inside_a_marker_is_not_counted)
{
    cr_expect_str_eq(found(M("{\"name\":\"a\",\"source\":\"b\",\"reason\":\"`install_capability` "
                             "with name \\\"z\\\" and source \\\"q\\\"\"}")),
                     "a/b/`install_capability` with name \"z\" and source \"q\"");
}

Test(marker, garbage_and_truncation_do_not_crash)
{
    const char *cases[] = { "<!--", "<!--waggle:capability_request", "<!--waggle:capability_request {",
                            &M("{\"name\":\"a\",\"source\":\"b\"}")[1], /* marker minus its '<' */
                            "`install_capability` with name \"",
                            "<!--waggle:capability_request {\"name\":\"a\",\"source\":\"b\"}" };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        (void)found(cases[i]);
    const char nul[] = "<!--waggle:capability_request {\"name\":\"a\0\",\"source\":\"b\"}-->";
    wg_marker_list l;
    cr_assert_eq(wg_marker_parse(&l, nul, sizeof nul - 1), 0);
    cr_expect_eq(l.count, 0);
    wg_marker_list_free(&l);
}

Test(marker, emit_then_parse_round_trips)
{
    char *s = NULL;
    cr_assert_eq(wg_marker_emit(&s, "pubmed-search", "marketplace", "literature {search}"), 0);
    cr_expect_str_eq(found(s), "pubmed-search/marketplace/literature search");
    free(s);
}

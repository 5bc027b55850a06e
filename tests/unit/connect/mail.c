/* mail.c - RFC 5322 messages built safely (src/connect/rfc5322.h) and the
 * Drive query literal (specs/google.h): no header injection through any
 * header value, RFC 2047 words within 75 characters and on UTF-8
 * boundaries, base64 bodies, every bound at N-1, N, N+1. */
#include <criterion/criterion.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/rfc5322.h"
#include "connect/specs/google.h"
#include "waggle/error.h"

static char *build(const wg_mail *m, int *rc)
{
    char *out = NULL;
    size_t len = 0;
    *rc = wg_mail__build(&out, &len, m);
    if (*rc == 0)
        cr_assert_eq(strlen(out), len);
    return out;
}

Test(connect_mail, a_plain_message)
{
    wg_mail m = { .to = "bo@example.com, Ada Lovelace <ada@example.com>", .cc = "c@example.org",
                  .subject = "Lunch?", .body = "Noon." };
    int rc;
    char *msg = build(&m, &rc);
    cr_assert_eq(rc, 0, "%s", wg_error_last());
    cr_assert_str_eq(msg, "To: bo@example.com,\r\n \"Ada Lovelace\" <ada@example.com>\r\n"
                          "Cc: c@example.org\r\n"
                          "Subject: Lunch?\r\n"
                          "MIME-Version: 1.0\r\n"
                          "Content-Type: text/plain; charset=\"UTF-8\"\r\n"
                          "Content-Transfer-Encoding: base64\r\n\r\n"
                          "Tm9vbi4=\r\n");
    free(msg);
}

Test(connect_mail, no_header_injection_through_any_field)
{
    const char *evil[] = { "Hi\r\nBcc: x@evil.example", "Hi\nBcc: x@evil.example",
                           "Hi\rBcc: x@evil.example", "tab\there", "nul\x01" };
    for (size_t i = 0; i < sizeof evil / sizeof *evil; i++) {
        wg_mail m = { .to = "bo@example.com", .subject = evil[i], .body = "x" };
        int rc;
        free(build(&m, &rc));
        cr_assert_eq(rc, WG_EINVAL, "subject %zu", i);
        cr_assert(strstr(wg_error_last(), "control characters"), "%s", wg_error_last());
        char to[128];
        snprintf(to, sizeof to, "bo@example.com%s", i < 3 ? "\r\nBcc: x@evil.example" : "\t");
        wg_mail m2 = { .to = to, .subject = "s", .body = "x" };
        free(build(&m2, &rc));
        cr_assert_eq(rc, WG_EINVAL, "to %zu", i);
        wg_mail m3 = { .to = "a@b.example", .bcc = to, .subject = "s", .body = "x" };
        free(build(&m3, &rc));
        cr_assert_eq(rc, WG_EINVAL, "bcc %zu", i);
    }
}

Test(connect_mail, addresses_are_checked)
{
    const char *bad[] = { "bo", "@example.com", "bo@", "bo@@example.com", "b o@example.com",
                          "bo@exa mple.com", "bo@-example.com", "bo@example-.com", ".bo@example.com",
                          "bo.@example.com", "b..o@example.com", "bo@example..com", "<bo@example.com",
                          "Bo <bo@example.com", "\"Bo\" <bo@example.com>", "B<o <bo@example.com>",
                          "bo@example.com>, <x@evil.example", "a@b.example,", ",a@b.example",
                          "a@b.example,,c@d.example", "" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wg_mail m = { .to = bad[i], .subject = "s", .body = "x" };
        int rc;
        free(build(&m, &rc));
        cr_assert_eq(rc, WG_EINVAL, "'%s' was accepted", bad[i]);
    }
    const char *good[] = { "bo@example.com", "b.o+tag@sub.example.co", "Bo <bo@example.com>",
                           "<bo@example.com>", "o'hara@example.com", "x@localhost" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        wg_mail m = { .to = good[i], .subject = "s", .body = "x" };
        int rc;
        free(build(&m, &rc));
        cr_assert_eq(rc, 0, "'%s': %s", good[i], wg_error_last());
    }
}

Test(connect_mail, address_length_bound)
{
    /* local 64 + '@' + domain: 254 in all is fine, 255 is not */
    for (size_t want = WG_MAIL_ADDRESS_MAX - 1; want <= WG_MAIL_ADDRESS_MAX + 1; want++) {
        char a[300];
        size_t domain = want - 65;             /* labels of 60 + '.' */
        memset(a, 'l', 64);
        a[64] = '@';
        size_t k = 65;
        for (size_t d = 0; d < domain; d++)
            a[k++] = (d % 61 == 60) ? '.' : 'd';
        if (a[k - 1] == '.')
            a[k - 1] = 'e';
        a[k] = 0;
        cr_assert_eq(strlen(a), want);
        wg_mail m = { .to = a, .subject = "s", .body = "x" };
        int rc;
        free(build(&m, &rc));
        cr_assert_eq(rc, want <= WG_MAIL_ADDRESS_MAX ? 0 : WG_EINVAL, "%zu: %s", want,
                     wg_error_last());
    }
}

Test(connect_mail, recipient_bound)
{
    for (int want = WG_MAIL_RECIPIENTS_MAX - 1; want <= WG_MAIL_RECIPIENTS_MAX + 1; want++) {
        char *to = calloc(1, (size_t)want * 24 + 1), *cc = NULL;
        size_t k = 0;
        for (int i = 0; i < want - 1; i++)
            k += (size_t)sprintf(to + k, "%su%d@example.com", i ? "," : "", i);
        cc = "last@example.com";                 /* counted with to */
        wg_mail m = { .to = to, .cc = cc, .subject = "s", .body = "x" };
        int rc;
        free(build(&m, &rc));
        cr_assert_eq(rc, want <= WG_MAIL_RECIPIENTS_MAX ? 0 : WG_EINVAL, "%d recipients", want);
        free(to);
    }
}

/* Every encoded-word is at most 75 characters and decodes, alone, to
 * valid UTF-8 (it ends on a character boundary). */
static void check_words(const char *line)
{
    const char *p = line;
    int words = 0;
    while ((p = strstr(p, "=?UTF-8?B?"))) {
        const char *end = strstr(p + 10, "?=");
        cr_assert_not_null(end);
        size_t wl = (size_t)(end + 2 - p);
        cr_assert_leq(wl, WG_MAIL_WORD_MAX, "word of %zu", wl);
        unsigned char bin[64];
        size_t bl = 0;
        cr_assert_eq(sodium_base642bin(bin, sizeof bin, p + 10, (size_t)(end - p - 10), NULL, &bl,
                                       NULL, sodium_base64_VARIANT_ORIGINAL), 0);
        json_t *s = json_stringn((const char *)bin, bl);
        cr_assert_not_null(s, "a word split a UTF-8 character");
        json_decref(s);
        words++;
        p = end + 2;
    }
    cr_assert_gt(words, 0);
}

Test(connect_mail, non_ascii_subjects_and_names_are_rfc2047)
{
    /* 3-byte characters: 45 bytes fit a word exactly; 4-byte ones do not */
    const char *subjects[] = { "Grüße aus Zürich – 会议 about the quarterly planning offsite",
                               "€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€",
                               "👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋👋" };
    for (size_t i = 0; i < 3; i++) {
        wg_mail m = { .to = "Zoë <zoe@example.com>", .subject = subjects[i], .body = "x" };
        int rc;
        char *msg = build(&m, &rc);
        cr_assert_eq(rc, 0, "%s", wg_error_last());
        check_words(strstr(msg, "Subject: "));
        cr_assert(strstr(msg, "To: =?UTF-8?B?Wm/Dqw==?= <zoe@example.com>\r\n"), "%s", msg);
        /* no bare line break in the headers: each one is CRLF, folded lines start with SP */
        const char *end = strstr(msg, "\r\n\r\n");
        for (const char *c = msg; c < end; c++)
            if (*c == '\n')
                cr_assert(c > msg && c[-1] == '\r');
        free(msg);
    }
}

Test(connect_mail, subject_length_bound)
{
    char s[WG_MAIL_SUBJECT_MAX + 2];
    for (size_t want = WG_MAIL_SUBJECT_MAX - 1; want <= WG_MAIL_SUBJECT_MAX + 1; want++) {
        memset(s, 'a', want);
        s[want] = 0;
        wg_mail m = { .to = "bo@example.com", .subject = s, .body = "" };
        int rc;
        free(build(&m, &rc));
        cr_assert_eq(rc, want <= WG_MAIL_SUBJECT_MAX ? 0 : WG_EINVAL, "%zu", want);
    }
}

Test(connect_mail, bodies_are_base64_lines_and_bounded)
{
    size_t n = WG_MAIL_BODY_MAX;
    char *body = malloc(n + 2);
    memset(body, '\n', n + 1);
    body[n + 1] = 0;
    wg_mail m = { .to = "bo@example.com", .subject = "s", .body = body };
    int rc;
    free(build(&m, &rc));
    cr_assert_eq(rc, WG_EINVAL, "N+1 bytes refused");
    body[n] = 0;
    char *msg = build(&m, &rc);
    cr_assert_eq(rc, 0);
    const char *b = strstr(msg, "\r\n\r\n") + 4;
    for (const char *line = b; *line;) {
        const char *eol = strstr(line, "\r\n");
        cr_assert_not_null(eol);
        cr_assert_leq((size_t)(eol - line), 76);
        cr_assert_eq(strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="),
                     (size_t)(eol - line));
        line = eol + 2;
    }
    free(msg);
    free(body);
}

Test(connect_mail, base64url_has_no_padding_or_plus)
{
    char *o = NULL;
    cr_assert_eq(wg_mail__base64url(&o, "\xfb\xff\xfe", 3), 0);
    cr_assert_str_eq(o, "-__-");
    free(o);
    cr_assert_eq(wg_mail__base64url(&o, "a", 1), 0);
    cr_assert_str_eq(o, "YQ");
    free(o);
}

Test(connect_mail, drive_literals_escape_quotes_and_backslashes)
{
    char *o = NULL;
    cr_assert_eq(wg_google__drive_literal(&o, "it's a \\ test' or name contains 'x"), 0);
    cr_assert_str_eq(o, "'it\\'s a \\\\ test\\' or name contains \\'x'");
    free(o);
    cr_assert_eq(wg_google__drive_literal(&o, "a\nb"), WG_EINVAL);
    char big[WG_GOOGLE_QUERY_MAX + 2];
    memset(big, 'q', sizeof big);
    big[WG_GOOGLE_QUERY_MAX] = 0;
    cr_assert_eq(wg_google__drive_literal(&o, big), 0);
    free(o);
    big[WG_GOOGLE_QUERY_MAX] = 'q';
    big[WG_GOOGLE_QUERY_MAX + 1] = 0;
    cr_assert_eq(wg_google__drive_literal(&o, big), WG_EINVAL);
}

Test(connect_mail, header_texts_and_words)
{
    char *o = NULL;
    cr_assert_eq(wg_mail__header_text(&o, "plain ascii"), 0);
    cr_assert_str_eq(o, "plain ascii");
    free(o);
    cr_assert_eq(wg_mail__header_text(&o, "Zoë"), 0);
    cr_assert_str_eq(o, "=?UTF-8?B?Wm/Dqw==?=");
    free(o);
    cr_assert_eq(wg_mail__encoded_words(&o, "ab"), 0, "always encoded");
    cr_assert_str_eq(o, "=?UTF-8?B?YWI=?=");
    free(o);
    cr_assert_eq(wg_mail__header_text(&o, "a\r\nb"), WG_EINVAL);
    cr_assert_eq(wg_mail__encoded_words(&o, "a\nb"), WG_EINVAL);
}

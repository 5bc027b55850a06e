/* Tests for the one time module (waggle/time.h): the strict ISO-8601
 * parser (offsets, Z, fractions, leap years, out-of-range fields, trailing
 * garbage), formatting, the injectable clock and the credential-expiry
 * rule shared by the vault and the registry. */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/error.h"
#include "waggle/time.h"

static int64_t ms_of(const char *iso)
{
    int64_t ms = 0;
    cr_assert_eq(wg_time_parse_iso(&ms, iso), 0, "%s: %s", iso, wg_error_last());
    return ms;
}

static const int64_t H = 3600000, M = 60000;

Test(time, accepts_the_grammar_with_the_right_instant)
{
    static const struct { const char *in; int64_t want; } v[] = {
        { "1970-01-01", 0 },
        { "1970-01-01T00:00", 0 },
        { "1970-01-01T00:00Z", 0 },
        { "1970-01-01T00:00:00Z", 0 },
        { "1970-01-01t00:00:00z", 0 },
        { "1970-01-01T00:00:00.000Z", 0 },
        { "1970-01-01T00:00:00.5Z", 500 },
        { "1970-01-01T00:00:00.12Z", 120 },
        { "1970-01-01T00:00:00.123Z", 123 },
        { "1970-01-01T00:00:00.1239Z", 123 },          /* truncated, not rounded */
        { "1970-01-01T00:00:00.123456789Z", 123 },     /* 9 digits: the limit */
        { "1970-01-01T00:00:01", 1000 },               /* no zone = UTC */
        { "1970-01-01T01:00:00+01:00", 0 },
        { "1969-12-31T23:00:00-01:00", 0 },
        { "1970-01-01T05:30:00+05:30", 0 },
        { "1970-01-01T00:00:00+00:00", 0 },
        { "1970-01-01T00:00:00-00:00", 0 },
        { "1970-01-02T00:00:00+23:59", 86400000 - 23 * H - 59 * M },
        { "1969-12-31T23:59:59.999Z", -1 },
        { "2000-02-29T00:00:00Z", 951782400000 },      /* divisible by 400: leap */
        { "2024-02-29T12:00:00Z", 1709208000000 },
        { "2026-05-01T12:00:00+02:00", 1777629600000 },
        { "0000-01-01T00:00:00Z", WG_TIME_MS_MIN },
        { "9999-12-31T23:59:59.999Z", WG_TIME_MS_MAX },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        cr_expect_eq(ms_of(v[i].in), v[i].want, "%s: %lld", v[i].in, (long long)ms_of(v[i].in));
}

Test(time, rejects_out_of_range_and_garbage)
{
    static const char *const bad[] = {
        "", "2024", "2024-01", "2024-1-01", "2024-01-1", "20240101", "24-01-01",
        "2024-00-10", "2024-13-01", "2024-01-00", "2024-01-32", "2024-04-31",
        "2023-02-29", "1900-02-29", "2100-02-29",          /* not leap years */
        "2024-01-01T", "2024-01-01T1:00", "2024-01-01T10", "2024-01-01T10:0",
        "2024-01-01T24:00", "2024-01-01T23:60", "2024-01-01T23:59:60Z",   /* no leap seconds */
        "2024-01-01T00:00:00.", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1234567890Z",
        "2024-01-01T00:00:00+0100", "2024-01-01T00:00:00+01", "2024-01-01T00:00:00+1:00",
        "2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00+01:60", "2024-01-01T00:00:00 +01:00",
        "2024-01-01 00:00:00Z", "2024-01-01T00:00:00ZZ", "2024-01-01T00:00:00Zjunk",
        "2024-01-01junk", "2024-01-01T00:00:00+01:00x", " 2024-01-01", "2024-01-01 ",
        "2024-01-01T00:00:00UTC", "+2024-01-01", "-2024-01-01", "2024-01-01T00:00:00.1e3Z",
        "2024-01-01T00:00:00,5Z", "２０２４-01-01",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int64_t ms = 42;
        cr_expect_eq(wg_time_parse_iso(&ms, bad[i]), WG_EINVAL, "'%s' was accepted", bad[i]);
        cr_expect_eq(ms, 42, "out untouched for '%s'", bad[i]);
    }
    int64_t ms;
    cr_assert_eq(wg_time_parse_iso(&ms, NULL), WG_EINVAL);
    cr_assert_eq(wg_time_parse_iso(NULL, "2024-01-01"), WG_EINVAL);
}

Test(time, a_nul_inside_the_length_is_garbage)
{
    static const char s[] = "2024-01-01\0junk";
    int64_t ms;
    cr_assert_eq(wg_time_parse_isob(&ms, s, sizeof s - 1), WG_EINVAL);
    cr_assert_eq(wg_time_parse_isob(&ms, s, 10), 0);
    cr_assert_eq(ms, 1704067200000);
}

Test(time, fraction_digit_bound_is_9)
{
    /* N-1, N, N+1 digits */
    int64_t ms;
    cr_assert_eq(wg_time_parse_iso(&ms, "1970-01-01T00:00:00.12345678Z"), 0);
    cr_assert_eq(wg_time_parse_iso(&ms, "1970-01-01T00:00:00.123456789Z"), 0);
    cr_assert_eq(wg_time_parse_iso(&ms, "1970-01-01T00:00:00.1234567891Z"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "9 digits"), "%s", wg_error_last());
}

Test(time, format_round_trips_and_clamps)
{
    static const char *const v[] = { "1970-01-01T00:00:00.000Z", "2024-02-29T23:59:59.123Z",
                                     "1969-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z",
                                     "9999-12-31T23:59:59.999Z", "2026-05-01T10:00:00.007Z" };
    char buf[WG_TIME_ISO_MAX];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        wg_time_format_iso(buf, ms_of(v[i]));
        cr_expect_str_eq(buf, v[i]);
    }
    wg_time_format_iso(buf, WG_TIME_MS_MAX + 1000);
    cr_assert_str_eq(buf, "9999-12-31T23:59:59.999Z");
    wg_time_format_iso(buf, INT64_MIN);
    cr_assert_str_eq(buf, "0000-01-01T00:00:00.000Z");
    cr_assert(wg_time_ms_valid(WG_TIME_MS_MAX));
    cr_assert_not(wg_time_ms_valid(WG_TIME_MS_MAX + 1));
    cr_assert_not(wg_time_ms_valid(WG_TIME_MS_MIN - 1));
}

static int64_t fixed(void *ctx)
{
    return *(const int64_t *)ctx;
}

Test(time, the_clock_is_injectable)
{
    int64_t t = 1234;
    wg_clock c = { fixed, &t };
    cr_assert_eq(wg_clock_now(&c), 1234);
    t = 99;
    cr_assert_eq(wg_clock_now(&c), 99);
    int64_t real = wg_clock_now(NULL);
    cr_assert(real > ms_of("2024-01-01"), "NULL is the real clock");
    wg_clock none = { NULL, NULL };
    cr_assert(wg_clock_now(&none) >= real);
}

Test(time, credential_expiry_is_one_rule_and_fails_closed)
{
    int64_t t = ms_of("2030-01-01T00:00:00Z");
    cr_assert_eq(wg_time_credential_expired(NULL, t), 0, "no expiry");
    cr_assert_eq(wg_time_credential_expired("", t), 0, "no expiry");
    cr_assert_eq(wg_time_credential_expired("next tuesday", t), 1, "unreadable is expired");
    cr_assert_eq(wg_time_credential_expired("2030-01-01T00:00:00Zjunk", t), 1);
    cr_assert_eq(wg_time_credential_expired("2030-01-01T00:00:00Z", t - 1), 0);
    cr_assert_eq(wg_time_credential_expired("2030-01-01T00:00:00Z", t), 1, "at the instant: expired");
    cr_assert_eq(wg_time_credential_expired("2030-01-01T01:00:00+01:00", t), 1, "offsets count");
    cr_assert_eq(wg_time_credential_expired("2030-01-01T01:00:00+01:00", t - 1), 0);
    cr_assert_eq(wg_time_credential_expired("2030-01-01", t - 1), 0, "a plain date is midnight UTC");
}

Test(time, the_expiry_rule_leaves_the_last_error_alone)
{
    wg_error_set(WG_ENOTFOUND, "earlier");
    wg_time_credential_expired("garbage", 0);
    cr_assert_eq(wg_error_last_code(), WG_ENOTFOUND);
    cr_assert_str_eq(wg_error_last(), "earlier");
    wg_error_clear();
    wg_time_credential_expired("garbage", 0);
    cr_assert_eq(wg_error_last_code(), WG_OK);
}

/* time.c - the one ISO-8601 parser and formatter, epoch milliseconds, the
 * injectable clock and the credential-expiry rule (waggle/time.h). Strict:
 * anything outside the grammar is WG_EINVAL, so callers fail closed on a
 * date they cannot read. One linear pass over the input, no allocation. */
#include "waggle/time.h"
#include "waggle/error.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

enum { FRACTION_DIGITS_MAX = 9 };

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t yy = (int64_t)yoe + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int)(yy + (*m <= 2));
}

static int month_days(int y, int m)
{
    static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 ? 28 + leap : dm[m - 1];
}

/* A cursor over [p, end). */
typedef struct {
    const char *p, *end;
} cur;

static int peek(const cur *c)
{
    return c->p < c->end ? (unsigned char)*c->p : -1;
}

static int eat(cur *c, char ch)
{
    if (peek(c) != (unsigned char)ch)
        return 0;
    c->p++;
    return 1;
}

/* Exactly n digits. */
static int digits(cur *c, int n, int *out)
{
    if (c->end - c->p < n)
        return -1;
    int v = 0;
    for (int i = 0; i < n; i++) {
        char ch = c->p[i];
        if (ch < '0' || ch > '9')
            return -1;
        v = v * 10 + (ch - '0');
    }
    c->p += n;
    *out = v;
    return 0;
}

static int bad(const char *what)
{
    return wg_error_set(WG_EINVAL, "not an ISO-8601 timestamp: %s", what);
}

int wg_time_parse_isob(int64_t *ms, const char *s, size_t len)
{
    if (!ms || !s)
        return wg_error_set(WG_EINVAL, "wg_time_parse_iso: NULL argument");
    cur c = { s, s + len };
    int y, mo, d, h = 0, mi = 0, sec = 0;
    int64_t frac_ms = 0, off_min = 0;
    if (digits(&c, 4, &y) || !eat(&c, '-') || digits(&c, 2, &mo) || !eat(&c, '-') ||
        digits(&c, 2, &d))
        return bad("expected YYYY-MM-DD");
    if (mo < 1 || mo > 12)
        return bad("month out of range");
    if (d < 1 || d > month_days(y, mo))
        return bad("day out of range for its month");
    if (eat(&c, 'T') || eat(&c, 't')) {
        if (digits(&c, 2, &h) || !eat(&c, ':') || digits(&c, 2, &mi))
            return bad("expected HH:MM after T");
        if (eat(&c, ':')) {
            if (digits(&c, 2, &sec))
                return bad("expected two digits of seconds");
            if (eat(&c, '.')) {
                int nd = 0;
                while (peek(&c) >= '0' && peek(&c) <= '9') {
                    if (++nd > FRACTION_DIGITS_MAX)
                        return bad("more than 9 digits of fraction");
                    if (nd <= 3)
                        frac_ms = frac_ms * 10 + (*c.p - '0');
                    c.p++;
                }
                if (!nd)
                    return bad("empty fraction of a second");
                for (int k = nd; k < 3; k++)
                    frac_ms *= 10;
            }
        }
        if (h > 23 || mi > 59 || sec > 59)
            return bad("time of day out of range");
        if (eat(&c, 'Z') || eat(&c, 'z')) {
            /* UTC */
        } else if (peek(&c) == '+' || peek(&c) == '-') {
            int sign = *c.p++ == '-' ? -1 : 1, oh, om;
            if (digits(&c, 2, &oh) || !eat(&c, ':') || digits(&c, 2, &om))
                return bad("expected a zone offset +HH:MM or -HH:MM");
            if (oh > 23 || om > 59)
                return bad("zone offset out of range");
            off_min = sign * (oh * 60 + om);
        }
    }
    if (c.p != c.end)
        return bad("trailing characters");
    int64_t days = days_from_civil(y, (unsigned)mo, (unsigned)d);
    *ms = ((days * 86400 + h * 3600 + mi * 60 + sec) - off_min * 60) * 1000 + frac_ms;
    return 0;
}

int wg_time_parse_iso(int64_t *ms, const char *iso)
{
    if (!iso)
        return wg_error_set(WG_EINVAL, "wg_time_parse_iso: NULL argument");
    return wg_time_parse_isob(ms, iso, strlen(iso));
}

void wg_time_format_iso(char buf[WG_TIME_ISO_MAX], int64_t ms)
{
    if (ms < WG_TIME_MS_MIN)
        ms = WG_TIME_MS_MIN;
    if (ms > WG_TIME_MS_MAX)
        ms = WG_TIME_MS_MAX;
    /* floor division, so times before 1970 format correctly */
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    int msr = (int)(ms - secs * 1000);
    int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t rem = secs - days * 86400;
    int y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    /* The fields are in range; the wide buffer only keeps -Wformat-truncation quiet. */
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", y, m, d,
             (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), msr);
    memcpy(buf, tmp, WG_TIME_ISO_MAX - 1);
    buf[WG_TIME_ISO_MAX - 1] = '\0';
}

int wg_time_ms_valid(int64_t ms)
{
    return ms >= WG_TIME_MS_MIN && ms <= WG_TIME_MS_MAX;
}

int64_t wg_time_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t wg_clock_now(const wg_clock *clock)
{
    if (clock && clock->now)
        return clock->now(clock->ctx);
    return wg_time_now_ms();
}

int wg_time_credential_expired(const char *expires_at, int64_t now_ms)
{
    if (!expires_at || !*expires_at)
        return 0;
    int64_t t = 0;
    int code = wg_error_last_code();
    char saved[256];
    snprintf(saved, sizeof saved, "%s", wg_error_last());
    int rc = wg_time_parse_iso(&t, expires_at);
    /* A rule, not an operation: leave the caller's last error as it was. */
    if (code)
        wg_error_set(code, "%s", saved);
    else
        wg_error_clear();
    return rc < 0 || t <= now_ms;
}

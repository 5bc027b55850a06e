/* isotime.c - ISO-8601 UTC timestamps <-> milliseconds since the epoch
 * (declared in waggle/tier.h; used by tiers, the vault's expiry and the
 * audit log). Strict: anything outside the accepted grammar is WG_EINVAL,
 * so callers can fail closed on unparseable dates. */
#include "waggle/tier.h"
#include "waggle/error.h"

#include <stdio.h>
#include <time.h>

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

/* Reads exactly n digits. */
static int digits(const char **s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*s)[i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    *s += n;
    *out = v;
    return 0;
}

static int month_days(int y, int m)
{
    static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 ? 28 + leap : dm[m - 1];
}

int wg_time_parse_iso(int64_t *ms, const char *iso)
{
    const char *s = iso;
    int y, mo, d, h = 0, mi = 0, sec = 0, frac = 0;
    if (!s || digits(&s, 4, &y) || *s++ != '-' || digits(&s, 2, &mo) ||
        *s++ != '-' || digits(&s, 2, &d))
        return wg_error_set(WG_EINVAL, "not an ISO-8601 date");
    if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo))
        return wg_error_set(WG_EINVAL, "date out of range");
    int64_t off_min = 0;
    if (*s == 'T') {
        s++;
        if (digits(&s, 2, &h) || *s++ != ':' || digits(&s, 2, &mi))
            return wg_error_set(WG_EINVAL, "not an ISO-8601 time");
        if (*s == ':') {
            s++;
            if (digits(&s, 2, &sec))
                return wg_error_set(WG_EINVAL, "not an ISO-8601 time");
            if (*s == '.') {
                s++;
                int nd = 0;
                while (*s >= '0' && *s <= '9') {
                    if (nd < 3)
                        frac = frac * 10 + (*s - '0');
                    nd++;
                    s++;
                }
                if (!nd)
                    return wg_error_set(WG_EINVAL, "empty fraction of a second");
                for (; nd < 3; nd++)
                    frac *= 10;
            }
        }
        if (h > 23 || mi > 59 || sec > 59)
            return wg_error_set(WG_EINVAL, "time out of range");
        if (*s == 'Z') {
            s++;
        } else if (*s == '+' || *s == '-') {
            int sign = *s++ == '-' ? -1 : 1, oh, om;
            if (digits(&s, 2, &oh) || *s++ != ':' || digits(&s, 2, &om) || oh > 23 || om > 59)
                return wg_error_set(WG_EINVAL, "bad time zone offset");
            off_min = sign * (oh * 60 + om);
        }
    }
    if (*s)
        return wg_error_set(WG_EINVAL, "trailing characters after ISO-8601 date");
    int64_t days = days_from_civil(y, (unsigned)mo, (unsigned)d);
    *ms = ((days * 86400 + h * 3600 + mi * 60 + sec) - off_min * 60) * 1000 + frac;
    return 0;
}

void wg_time_format_iso(char buf[32], int64_t ms)
{
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    int msr = (int)(ms - secs * 1000);
    int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t rem = secs - days * 86400;
    int y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", y, m, d,
             (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), msr);
    snprintf(buf, 32, "%.31s", tmp);
}

int64_t wg_time_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

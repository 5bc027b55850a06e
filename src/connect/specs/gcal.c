/* gcal.c - Google Calendar (reference 1.3 row 5, 1.4) on Calendar API v3
 * (developers.google.com/calendar/api/v3/reference), signing in through
 * the shared Google connection (waggle/oauth.h). calendarId and eventId
 * are encoded path segments; times are checked before they are sent;
 * list_events defaults to the next 7 days like the original, and
 * find_free_time computes the free slots of at least `duration` minutes
 * (the original required duration and ignored it). */
#include "specs.h"
#include "google.h"
#include "waggle/time.h"

#include <stdlib.h>
#include <string.h>

static int prepare_list(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_event(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int find_free_time(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define EVENT_FIELDS                                                                          \
    "\"summary\":{\"type\":\"string\"},\"description\":{\"type\":\"string\"},"                   \
    "\"location\":{\"type\":\"string\"},"                                                       \
    "\"start\":{\"type\":\"string\",\"description\":\"RFC 3339 time (2025-01-31T10:00:00Z) or "  \
    "a date (2025-01-31) for an all-day event\"},"                                              \
    "\"end\":{\"type\":\"string\",\"description\":\"RFC 3339 time or a date\"},"                \
    "\"timeZone\":{\"type\":\"string\",\"description\":\"IANA zone, e.g. Europe/Zurich\"},"      \
    "\"attendees\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"         \
    "\"email addresses\"},\"calendarId\":{\"type\":\"string\",\"description\":\"default primary\"}"

static const wg_connector_action actions[] = {
    { "list_events", "List events of a calendar (default: the next 7 days)",
      JSON({"properties":{"calendarId":{"type":"string","description":"default primary"},
            "timeMin":{"type":"string","description":"RFC 3339, default now"},
            "timeMax":{"type":"string","description":"RFC 3339, default now + 7 days"},
            "maxResults":{"type":"integer","description":"per page, default 10"},
            "q":{"type":"string","description":"free text search"},
            "pageToken":{"type":"string"},"maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "create_event", "Create a calendar event",
      "{\"properties\":{" EVENT_FIELDS "},\"required\":[\"summary\",\"start\",\"end\"]}",
      WG_RISK_MEDIUM },
    { "update_event", "Change fields of a calendar event",
      "{\"properties\":{\"eventId\":{\"type\":\"string\"}," EVENT_FIELDS "},"
      "\"required\":[\"eventId\"]}", WG_RISK_MEDIUM },
    { "find_free_time", "Find free slots of at least `duration` minutes in one or more calendars",
      JSON({"properties":{"duration":{"type":"integer","description":"minutes"},
            "timeMin":{"type":"string","description":"RFC 3339"},
            "timeMax":{"type":"string","description":"RFC 3339"},
            "attendees":{"type":"array","items":{"type":"string"},
                         "description":"calendar ids / emails, default primary"}},
            "required":["duration","timeMin","timeMax"]}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_events", .method = WG_REST_GET, .path = "/calendars/{calendarId}/events",
      .query = "timeMin timeMax maxResults=10 q pageToken singleEvents=true orderBy=startTime",
      .prepare = prepare_list,
      .page = { WG_REST_PAGE_TOKEN, "items", "nextPageToken", "pageToken", NULL, NULL } },
    { .name = "create_event", .method = WG_REST_POST, .path = "/calendars/{calendarId}/events",
      .prepare = prepare_event, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"summary":"$summary","description":"$description",
                             "location":"$location","start":"$startTime","end":"$endTime",
                             "attendees":"$attendeeList"}) },
    { .name = "update_event", .method = WG_REST_PATCH,
      .path = "/calendars/{calendarId}/events/{eventId}", .prepare = prepare_event,
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"summary":"$summary","description":"$description",
                             "location":"$location","start":"$startTime","end":"$endTime",
                             "attendees":"$attendeeList"}) },
    { .name = "find_free_time", .method = WG_REST_POST, .path = "/freeBusy",
      .custom = find_free_time, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"timeMin":"$timeMin","timeMax":"$timeMax","items":"$items"}) },
};

/* An RFC 3339 time (checked by parsing), or NULL with the message set. */
static int check_time(const json_t *params, const char *name, int64_t *ms)
{
    const char *v = json_string_value(json_object_get(params, name));
    if (!v)
        return 0;
    if (wg_time_parse_iso(ms, v) < 0)
        return wg_error_set(WG_EINVAL, "%s must be an RFC 3339 time such as "
                            "2025-01-31T10:00:00Z", name);
    return 1;
}

static int prepare_list(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    int64_t lo = 0, hi = 0;
    int has_lo = check_time(params, "timeMin", &lo), has_hi = check_time(params, "timeMax", &hi);
    if (has_lo < 0 || has_hi < 0)
        return WG_EINVAL;
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (!json_object_get(p, "calendarId"))
        json_object_set_new(p, "calendarId", json_string("primary"));
    char iso[WG_TIME_ISO_MAX];
    int64_t now = wg_time_now_ms();
    if (!has_lo) {
        wg_time_format_iso(iso, now);
        json_object_set_new(p, "timeMin", json_string(iso));
    }
    if (!has_hi) {
        wg_time_format_iso(iso, (has_lo ? lo : now) + 7LL * 24 * 3600 * 1000);
        json_object_set_new(p, "timeMax", json_string(iso));
    }
    *out = p;
    return 0;
}

/* A date (YYYY-MM-DD) is an all-day event's {date}; anything else must be
 * an RFC 3339 {dateTime}. */
static int event_time(json_t *p, const char *in, const char *out_name, const char *tz)
{
    const char *v = json_string_value(json_object_get(p, in));
    if (!v)
        return 0;
    int64_t ms;
    json_t *t;
    if (strlen(v) == 10 && v[4] == '-' && v[7] == '-' && strspn(v, "0123456789-") == 10) {
        t = json_pack("{s:s}", "date", v);
    } else if (wg_time_parse_iso(&ms, v) == 0) {
        t = json_pack("{s:s}", "dateTime", v);
    } else {
        return wg_error_set(WG_EINVAL, "%s must be an RFC 3339 time (2025-01-31T10:00:00Z) "
                            "or a date (2025-01-31)", in);
    }
    if (t && tz)
        json_object_set_new(t, "timeZone", json_string(tz));
    return t ? json_object_set_new(p, out_name, t) : wg_error_set(WG_ENOMEM, "out of memory");
}

static int prepare_event(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (!json_object_get(p, "calendarId"))
        json_object_set_new(p, "calendarId", json_string("primary"));
    const char *tz = json_string_value(json_object_get(params, "timeZone"));
    int rc = event_time(p, "start", "startTime", tz);
    if (rc == 0)
        rc = event_time(p, "end", "endTime", tz);
    json_t *att = json_object_get(params, "attendees");
    if (rc == 0 && att) {
        json_t *list = json_array();
        size_t i;
        json_t *a;
        json_array_foreach(att, i, a) {
            if (!json_is_string(a) || i >= WG_GOOGLE_LIST_MAX) {
                rc = wg_error_set(WG_EINVAL, "attendees must be at most %d email addresses",
                                  WG_GOOGLE_LIST_MAX);
                break;
            }
            json_array_append_new(list, json_pack("{s:O}", "email", a));
        }
        json_object_set_new(p, "attendeeList", list);
    }
    if (rc < 0) {
        json_decref(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* ---- find_free_time ------------------------------------------------------ */

typedef struct { int64_t start, end; } span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The gaps of at least min_ms between the merged busy spans inside
 * [lo, hi]. Busy spans beyond WG_GOOGLE_BUSY_MAX are refused, not cut. */
static json_t *free_slots(const json_t *calendars, int64_t lo, int64_t hi, int64_t min_ms)
{
    span *v = malloc(WG_GOOGLE_BUSY_MAX * sizeof *v);
    size_t n = 0;
    const char *k;
    json_t *cal;
    if (!v)
        return NULL;
    json_object_foreach((json_t *)calendars, k, cal) {
        size_t i;
        json_t *b;
        json_array_foreach(json_object_get(cal, "busy"), i, b) {
            span s;
            if (wg_time_parse_iso(&s.start, json_string_value(json_object_get(b, "start"))) < 0 ||
                wg_time_parse_iso(&s.end, json_string_value(json_object_get(b, "end"))) < 0)
                continue;
            if (n == WG_GOOGLE_BUSY_MAX) {
                free(v);
                return json_null();      /* too many to reason about: say so */
            }
            v[n++] = s;
        }
    }
    qsort(v, n, sizeof *v, by_start);
    json_t *slots = json_array();
    int64_t cursor = lo;
    char a[WG_TIME_ISO_MAX], b[WG_TIME_ISO_MAX];
    for (size_t i = 0; i <= n && slots; i++) {
        int64_t until = i < n ? v[i].start : hi;
        if (until > hi)
            until = hi;
        if (until - cursor >= min_ms) {
            wg_time_format_iso(a, cursor);
            wg_time_format_iso(b, until);
            json_array_append_new(slots, json_pack("{s:s,s:s}", "start", a, "end", b));
        }
        if (i < n && v[i].end > cursor)
            cursor = v[i].end;
    }
    free(v);
    return slots;
}

static int find_free_time(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    int64_t lo = 0, hi = 0;
    json_int_t minutes = json_integer_value(json_object_get(params, "duration"));
    if (check_time(params, "timeMin", &lo) <= 0 || check_time(params, "timeMax", &hi) <= 0 ||
        hi <= lo || minutes < 1 || minutes > 24 * 60) {
        const char *why = hi <= lo && lo ? "timeMax must be after timeMin"
                        : minutes < 1 || minutes > 24 * 60 ? "duration must be 1..1440 minutes"
                        : wg_error_last();
        *out = wg_connector_fail("%s", why);
        return *out ? 0 : WG_ENOMEM;
    }
    json_t *p = json_deep_copy(params), *items = json_array();
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(params, "attendees"), i, a)
        if (json_is_string(a) && i < WG_GOOGLE_LIST_MAX)
            json_array_append_new(items, json_pack("{s:O}", "id", a));
    if (!json_array_size(items))
        json_array_append_new(items, json_pack("{s:s}", "id", "primary"));
    json_object_set_new(p, "items", items);
    int rc = wg_rest_run(out, ctx, p);
    json_decref(p);
    if (rc < 0 || !json_is_true(json_object_get(*out, "success")))
        return rc;
    json_t *data = json_object_get(*out, "data");
    json_t *slots = free_slots(json_object_get(data, "calendars"), lo, hi, minutes * 60000);
    if (json_is_object(data) && slots)
        json_object_set_new(data, "freeSlots", slots);
    else
        json_decref(slots);
    return 0;
}

static const wg_rest_spec rest = {
    .default_base = "https://www.googleapis.com/calendar/v3",
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Google Calendar API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/users/me/calendarList?maxResults=1",
};

const wg_connector_spec wg_spec_gcal = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "gcal",
    .name = "Google Calendar",
    .description = "List, create and update Google Calendar events and find free time",
    .service = "calendar.google.com",
    .auth_type = WG_AUTH_OAUTH2,
    .category = "productivity",
    .logo_slug = "googlecalendar",
    .setup_guide = WG_GOOGLE_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "google",
    .connection = "google",
    .oauth_scopes = "https://www.googleapis.com/auth/calendar.events "
                    "https://www.googleapis.com/auth/calendar.readonly",
};

/* outlook.c - Outlook Calendar & Email (reference 1.3 row 27, 1.4) on
 * Microsoft Graph v1.0 (learn.microsoft.com/graph/api/resources/mail-api-overview,
 * .../calendar), signing in through the shared Microsoft connection. The
 * original took a raw $filter; here the filter is built from checked
 * inputs with OData literals ('' doubling), $search phrases escape \ and ",
 * recipients are checked addresses, bodies are text unless html is asked
 * for. */
#include "specs.h"
#include "graph.h"
#include "waggle/time.h"

#include <stdlib.h>
#include <string.h>

static int prepare_list_events(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_event(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_send(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_events", "List calendar events, optionally in a time window or by subject",
      JSON({"properties":{"since":{"type":"string","description":"RFC 3339: events starting then or later"},
            "until":{"type":"string","description":"RFC 3339: events ending then or earlier"},
            "subject":{"type":"string","description":"subject contains this text"},
            "top":{"type":"integer","description":"per page, default 10"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "create_event", "Create a calendar event (optionally a Teams meeting)",
      JSON({"properties":{"subject":{"type":"string"},
            "start":{"type":"string","description":"e.g. 2025-03-04T14:00:00"},
            "end":{"type":"string"},"timeZone":{"type":"string","description":"default UTC"},
            "body":{"type":"string"},"contentType":{"type":"string","description":"text or html"},
            "location":{"type":"string"},
            "attendees":{"type":"array","items":{"type":"string"}},
            "isOnlineMeeting":{"type":"boolean"}},"required":["subject","start","end"]}),
      WG_RISK_MEDIUM },
    { "list_emails", "List recent email messages",
      JSON({"properties":{"top":{"type":"integer","description":"per page, default 10"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "send_email", "Send an email from the connected Outlook account",
      JSON({"properties":{"to":{"type":"array","items":{"type":"string"}},
            "cc":{"type":"array","items":{"type":"string"}},
            "bcc":{"type":"array","items":{"type":"string"}},
            "subject":{"type":"string"},"body":{"type":"string"},
            "contentType":{"type":"string","description":"text (default) or html"},
            "importance":{"type":"string","description":"low, normal or high"}},
            "required":["to","subject","body"]}), WG_RISK_MEDIUM },
    { "search_emails", "Search email messages (from, subject and body)",
      JSON({"properties":{"query":{"type":"string"},"top":{"type":"integer"},
            "maxPages":{"type":"integer"}},"required":["query"]}), WG_RISK_LOW },
    { "get_email", "Get one email message",
      JSON({"properties":{"message_id":{"type":"string"}},"required":["message_id"]}),
      WG_RISK_LOW },
};

#define MESSAGE_SELECT "id,subject,from,receivedDateTime,isRead,bodyPreview,webLink"

static const wg_rest_action rest_actions[] = {
    { .name = "list_events", .method = WG_REST_GET, .path = "/me/events",
      .query = "$top:top=10 $orderby:orderby=start/dateTime $filter:filter",
      .prepare = prepare_list_events, .page = WG_GRAPH_PAGES },
    { .name = "create_event", .method = WG_REST_POST, .path = "/me/events",
      .prepare = prepare_event, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"subject":"$subject","body":"$itemBody","start":"$startTime",
                             "end":"$endTime",
                             "location":{"$if":"location","displayName":"$location"},
                             "attendees":"$attendeeList","isOnlineMeeting":"$isOnlineMeeting",
                             "onlineMeetingProvider":"$provider"}) },
    { .name = "list_emails", .method = WG_REST_GET, .path = "/me/messages",
      .query = "$top:top=10 $select:select=" MESSAGE_SELECT, .page = WG_GRAPH_PAGES },
    { .name = "send_email", .method = WG_REST_POST, .path = "/me/sendMail",
      .prepare = prepare_send, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"message":{"subject":"$subject","body":"$itemBody",
                                        "toRecipients":"$toList","ccRecipients":"$ccList",
                                        "bccRecipients":"$bccList","importance":"$importance"},
                             "saveToSentItems":true}),
      .result_template = JSON({"sent":true}) },
    { .name = "search_emails", .method = WG_REST_GET, .path = "/me/messages",
      .query = "$search:search $top:top=10 $select:select=" MESSAGE_SELECT,
      .prepare = prepare_search, .page = WG_GRAPH_PAGES },
    { .name = "get_email", .method = WG_REST_GET, .path = "/me/messages/{message_id}" },
};

/* "a and b" growing in *acc (new). */
static int and_clause(char **acc, const char *clause)
{
    char *n = NULL;
    if (asprintf(&n, "%s%s%s", *acc ? *acc : "", *acc ? " and " : "", clause) < 0)
        return wg_error_set(WG_ENOMEM, "out of memory");
    free(*acc);
    *acc = n;
    return 0;
}

static int time_clause(char **acc, const json_t *params, const char *input, const char *fmt)
{
    const char *v = json_string_value(json_object_get(params, input));
    int64_t ms;
    if (!v)
        return 0;
    if (wg_time_parse_iso(&ms, v) < 0)
        return wg_error_set(WG_EINVAL, "%s must be an RFC 3339 time", input);
    char *lit = NULL, clause[128];
    int rc = wg_graph__odata_literal(&lit, v);
    if (rc < 0)
        return rc;
    snprintf(clause, sizeof clause, fmt, lit);
    free(lit);
    return and_clause(acc, clause);
}

static int prepare_list_events(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    char *filter = NULL, *lit = NULL;
    int rc = time_clause(&filter, params, "since", "start/dateTime ge %s");
    if (rc == 0)
        rc = time_clause(&filter, params, "until", "end/dateTime le %s");
    const char *subject = json_string_value(json_object_get(params, "subject"));
    if (rc == 0 && subject && (rc = wg_graph__odata_literal(&lit, subject)) == 0) {
        char *clause = NULL;
        if (asprintf(&clause, "contains(subject,%s)", lit) < 0)
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        else
            rc = and_clause(&filter, clause);
        free(clause);
    }
    free(lit);
    if (rc < 0) {
        free(filter);
        return rc;
    }
    json_t *p = json_pack("{s:O?}", "top", json_object_get(params, "top"));
    if (filter)
        json_object_set_new(p, "filter", json_string(filter));
    free(filter);
    *out = p;
    return p ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* {dateTime, timeZone} from a checked time. */
static json_t *graph_time(const char *v, const char *tz)
{
    int64_t ms;
    if (!v || wg_time_parse_iso(&ms, v) < 0)
        return NULL;
    return json_pack("{s:s,s:s}", "dateTime", v, "timeZone", tz ? tz : "UTC");
}

static int prepare_event(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *tz = json_string_value(json_object_get(params, "timeZone"));
    if (tz && (strlen(tz) > 64 || strpbrk(tz, "\r\n")))
        return wg_error_set(WG_EINVAL, "timeZone must be a time zone name");
    json_t *start = graph_time(json_string_value(json_object_get(params, "start")), tz);
    json_t *end = graph_time(json_string_value(json_object_get(params, "end")), tz);
    if (!start || !end) {
        json_decref(start);
        json_decref(end);
        return wg_error_set(WG_EINVAL, "start and end must be RFC 3339 times "
                            "(2025-03-04T14:00:00)");
    }
    json_t *attendees = NULL, *body = NULL;
    size_t count = 0;
    int rc = wg_graph__recipients(&attendees, json_object_get(params, "attendees"), "required",
                                  &count, "attendees");
    if (rc == 0 && json_object_get(params, "body"))
        rc = wg_graph__item_body(&body, json_object_get(params, "body"),
                                 json_object_get(params, "contentType"));
    if (rc < 0) {
        json_decref(start);
        json_decref(end);
        json_decref(attendees);
        return rc;
    }
    json_t *p = json_deep_copy(params);
    json_object_set_new(p, "startTime", start);
    json_object_set_new(p, "endTime", end);
    if (attendees)
        json_object_set_new(p, "attendeeList", attendees);
    if (body)
        json_object_set_new(p, "itemBody", body);
    if (json_is_true(json_object_get(params, "isOnlineMeeting")))
        json_object_set_new(p, "provider", json_string("teamsForBusiness"));
    *out = p;
    return 0;
}

static int prepare_send(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *subject = json_string_value(json_object_get(params, "subject"));
    for (const char *c = subject; c && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return wg_error_set(WG_EINVAL, "subject may not contain control characters");
    const char *imp = json_string_value(json_object_get(params, "importance"));
    if (imp && strcmp(imp, "low") && strcmp(imp, "normal") && strcmp(imp, "high"))
        return wg_error_set(WG_EINVAL, "importance must be low, normal or high");
    size_t count = 0;
    json_t *to = NULL, *cc = NULL, *bcc = NULL, *body = NULL;
    int rc = wg_graph__recipients(&to, json_object_get(params, "to"), NULL, &count, "to");
    if (rc == 0 && !json_array_size(to))
        rc = wg_error_set(WG_EINVAL, "to: at least one address is required");
    if (rc == 0)
        rc = wg_graph__recipients(&cc, json_object_get(params, "cc"), NULL, &count, "cc");
    if (rc == 0)
        rc = wg_graph__recipients(&bcc, json_object_get(params, "bcc"), NULL, &count, "bcc");
    if (rc == 0)
        rc = wg_graph__item_body(&body, json_object_get(params, "body"),
                                 json_object_get(params, "contentType"));
    if (rc < 0) {
        json_decref(to);
        json_decref(cc);
        json_decref(bcc);
        return rc;
    }
    json_t *p = json_deep_copy(params);
    json_object_set_new(p, "toList", to);
    if (cc)
        json_object_set_new(p, "ccList", cc);
    if (bcc)
        json_object_set_new(p, "bccList", bcc);
    json_object_set_new(p, "itemBody", body);
    *out = p;
    return 0;
}

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    char *phrase = NULL;
    const char *q = json_string_value(json_object_get(params, "query"));
    int rc = wg_graph__search_phrase(&phrase, q ? q : "");
    if (rc < 0)
        return rc;
    json_t *p = json_pack("{s:s,s:O?}", "search", phrase, "top", json_object_get(params, "top"));
    free(phrase);
    *out = p;
    return p ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const wg_rest_spec rest = {
    .default_base = WG_GRAPH_BASE,
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Microsoft Graph API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/me",
};

const wg_connector_spec wg_spec_outlook = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "outlook",
    .name = "Outlook Calendar & Email",
    .description = "Outlook calendar events and email through Microsoft Graph",
    .service = "outlook.office365.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "communication",
    .logo_slug = "microsoftoutlook",
    .setup_guide = WG_GRAPH_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "microsoft",
    .connection = "microsoft",
    .oauth_scopes = "User.Read Calendars.ReadWrite Mail.ReadWrite Mail.Send",
};

/* gmail.c - Gmail (reference 1.3 row 22, 1.4) on the Gmail API v1
 * (developers.google.com/gmail/api/reference/rest), signing in through the
 * shared Google connection. send_message builds its RFC 5322 message with
 * rfc5322.c: addresses checked, CR/LF refused in every header value, a
 * non-ASCII subject RFC 2047-encoded, the body base64, the whole message
 * base64url in `raw` (the original let "Hi\r\nBcc: x@evil" add a
 * recipient: reference 13 item 11). */
#include "specs.h"
#include "google.h"
#include "connect/rfc5322.h"

#include <stdlib.h>
#include <string.h>

static int prepare_send(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_messages", "List messages in the mailbox (newest first)",
      JSON({"properties":{"maxResults":{"type":"integer","description":"per page, default 20"},
            "labelIds":{"type":"array","items":{"type":"string"},"description":"e.g. INBOX, UNREAD"},
            "pageToken":{"type":"string"},"maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "get_message", "Get one message with its headers and body",
      JSON({"properties":{"id":{"type":"string"}},"required":["id"]}), WG_RISK_LOW },
    { "send_message", "Send an email from the connected Gmail account",
      JSON({"properties":{"to":{"type":"string","description":"comma-separated addresses; "
                                "\"Name <a@b.c>\" allowed"},
            "subject":{"type":"string"},"body":{"type":"string"},
            "cc":{"type":"string"},"bcc":{"type":"string"},
            "html":{"type":"boolean","description":"the body is HTML"}},
            "required":["to","subject","body"]}), WG_RISK_MEDIUM },
    { "search_messages", "Search messages with Gmail search syntax (from:, subject:, ...)",
      JSON({"properties":{"query":{"type":"string"},"maxResults":{"type":"integer"},
            "pageToken":{"type":"string"},"maxPages":{"type":"integer"}},
            "required":["query"]}), WG_RISK_LOW },
    { "list_labels", "List the mailbox's labels", JSON({"properties":{}}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_messages", .method = WG_REST_GET, .path = "/users/me/messages",
      .query = "maxResults=20 labelIds pageToken",
      .page = { WG_REST_PAGE_TOKEN, "messages", "nextPageToken", "pageToken", NULL, NULL } },
    { .name = "get_message", .method = WG_REST_GET, .path = "/users/me/messages/{id}",
      .query = "format=full" },
    { .name = "send_message", .method = WG_REST_POST, .path = "/users/me/messages/send",
      .prepare = prepare_send, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"raw":"$raw"}) },
    { .name = "search_messages", .method = WG_REST_GET, .path = "/users/me/messages",
      .query = "q:query maxResults=20 pageToken",
      .page = { WG_REST_PAGE_TOKEN, "messages", "nextPageToken", "pageToken", NULL, NULL } },
    { .name = "list_labels", .method = WG_REST_GET, .path = "/users/me/labels" },
};

static int prepare_send(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    wg_mail m = {
        .to = json_string_value(json_object_get(params, "to")),
        .cc = json_string_value(json_object_get(params, "cc")),
        .bcc = json_string_value(json_object_get(params, "bcc")),
        .subject = json_string_value(json_object_get(params, "subject")),
        .body = json_string_value(json_object_get(params, "body")),
        .html = json_is_true(json_object_get(params, "html")),
    };
    char *msg = NULL, *raw = NULL;
    size_t len = 0;
    int rc = wg_mail__build(&msg, &len, &m);
    if (rc < 0)
        return rc;
    rc = wg_mail__base64url(&raw, msg, len);
    free(msg);
    if (rc < 0)
        return rc;
    *out = json_pack("{s:s}", "raw", raw);
    free(raw);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const wg_rest_spec rest = {
    .default_base = "https://gmail.googleapis.com/gmail/v1",
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Gmail API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/users/me/profile",
};

const wg_connector_spec wg_spec_gmail = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "gmail",
    .name = "Gmail",
    .description = "Read, search and send email with Gmail",
    .service = "gmail.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "communication",
    .logo_slug = "gmail",
    .setup_guide = WG_GOOGLE_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "google",
    .connection = "google",
    .oauth_scopes = "https://www.googleapis.com/auth/gmail.readonly "
                    "https://www.googleapis.com/auth/gmail.send",
};

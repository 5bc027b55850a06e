/* sdk.c - the connector SDK helpers (spec 8.1): capability tags, the
 * ConnectorDefinition, and safeErrorText's truncation and credential
 * scrubbing (reference 13 item 14). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/connector.h"

static const wg_connector_action email_like[] = {
    { "send_email", "s", "{}", WG_RISK_HIGH },
    { "check_delivery", "c", "{}", WG_RISK_LOW },
};
static const wg_connector_action searchy[] = {
    { "list_things", "l", "{}", WG_RISK_LOW },
    { "find_stuff", "f", "{}", WG_RISK_LOW },
    { "create_x", "c", "{}", WG_RISK_MEDIUM },
};
static const wg_connector_spec spec_email = { .version = WG_CONNECTOR_SPEC_VERSION,
                                              .id = "e", .name = "E", .description = "d",
    .service = "s", .actions = email_like, .n_actions = 2 };
static const wg_connector_spec spec_search = { .version = WG_CONNECTOR_SPEC_VERSION,
                                               .id = "s", .name = "S", .description = "d",
    .service = "s", .actions = searchy, .n_actions = 3, .category = "data", .logo_slug = "x" };

static char *caps(const wg_connector_spec *s)
{
    json_t *c = NULL;
    cr_assert_eq(wg_connector_capabilities(&c, s), 0);
    char *t = json_dumps(c, JSON_COMPACT);
    json_decref(c);
    return t;
}

Test(connect_sdk, capabilities_follow_action_order)
{
    char *a = caps(&spec_email), *b = caps(&spec_search);
    cr_assert_str_eq(a, "[\"write\",\"read\"]");
    cr_assert_str_eq(b, "[\"read\",\"search\",\"write\"]");
    free(a);
    free(b);
}

Test(connect_sdk, definition_lists_tools_and_optional_fields)
{
    json_t *d = NULL;
    cr_assert_eq(wg_connector_definition(&d, &spec_search, "connected"), 0);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "tools"), 1)), "connector_s_find_stuff");
    cr_assert_str_eq(json_string_value(json_object_get(d, "substrate")), "waggle");
    cr_assert_str_eq(json_string_value(json_object_get(d, "logoUrl")),
                     "https://cdn.jsdelivr.net/npm/simple-icons@v11/icons/x.svg");
    cr_assert_null(json_object_get(d, "setupGuide"));
    cr_assert_null(json_object_get(d, "config"));
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d, "actions"), 2),
                                                       "riskLevel")), "medium");
    json_decref(d);
}

static char *safe(const char *text, const char *const *secrets)
{
    char *out = NULL;
    cr_assert_eq(wg_connector_safe_error(&out, "X API", 401, text, strlen(text), secrets), 0);
    return out;
}

Test(connect_sdk, safe_error_scrubs_credentials)
{
    static const char *const leaks[] = {
        "Authorization: Bearer abcdef0123456789xyz",
        "token=ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA rejected",
        "{\"api_key\": \"sk-live-1234567890abcdef\"}",
        "bad glpat-abcdefghijklmnopqrst",
        "slack xoxb-1234-5678-abcdefghijkl",
        "password=hunter2hunter2",
        "PRIVATE-TOKEN: zzzzzzzzzzzzzzzzzz",
    };
    static const char *const needles[] = { "abcdef0123456789xyz", "ghp_AAAA", "sk-live", "glpat-",
                                           "xoxb-", "hunter2", "zzzzzz" };
    for (size_t i = 0; i < sizeof leaks / sizeof *leaks; i++) {
        char *s = safe(leaks[i], NULL);
        cr_assert_null(strstr(s, needles[i]), "leaked: %s", s);
        cr_assert(strstr(s, "[redacted]"), "%s", s);
        free(s);
    }
    const char *mine[] = { "my-own-token-value", NULL };
    char *s = safe("echo my-own-token-value back", mine);
    cr_assert_str_eq(s, "X API 401: echo [redacted] back");
    free(s);
}

Test(connect_sdk, safe_error_truncates_and_flattens_controls)
{
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    big[3] = '\n';
    char *s = safe(big, NULL);
    cr_assert(strstr(s, "...[truncated]"));
    cr_assert_null(strchr(s, '\n'));
    cr_assert_eq(strlen(s), strlen("X API 401: ") + 500 + strlen("...[truncated]"));
    free(s);
    char *e = NULL;
    cr_assert_eq(wg_connector_safe_error(&e, "X API", 500, "", 0, NULL), 0);
    cr_assert_str_eq(e, "X API 500");
    free(e);
}

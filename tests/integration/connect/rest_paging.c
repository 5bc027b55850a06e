/* rest_paging.c - what the REST engine gives every connector (rest.h):
 * pagination by token, by next link and by posted cursor, followed up to
 * maxPages (1..WG_REST_PAGES_MAX, checked at N-1, N, N+1) with the last
 * continuation kept; next links outside the base refused (the credential
 * never leaves); Retry-After in both forms and Google's 403
 * rateLimitExceeded surfaced as retryable; alternate bases with origin
 * override; CONTENT responses (text and bytes); raw bodies from a prepare
 * hook. Every request is checked by the replay server. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/rest.h"
#include "connect_fixture.h"
#include "connect_replay.h"

static int make_raw(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *text = json_string_value(json_object_get(params, "text"));
    if (!text || strchr(text, '\r'))
        return wg_error_set(WG_EINVAL, "text must be a string without CR");
    json_t *p = json_deep_copy(params);
    char *raw = NULL;
    if (asprintf(&raw, "--b\r\n%s\r\n--b--", text) < 0)
        return WG_ENOMEM;
    json_object_set_new(p, "raw", json_string(raw));
    json_object_set_new(p, "ctype", json_string("multipart/related; boundary=b"));
    json_object_del(p, "text");
    free(raw);
    *out = p;
    return 0;
}

static const wg_connector_action actions[] = {
    { "list_tok", "token pages", "{\"properties\":{\"pageToken\":{\"type\":\"string\"},"
      "\"maxPages\":{\"type\":\"integer\"}}}", WG_RISK_LOW },
    { "list_link", "link pages", "{\"properties\":{\"maxPages\":{\"type\":\"integer\"}}}",
      WG_RISK_LOW },
    { "list_cursor", "cursor pages", "{\"properties\":{\"path\":{\"type\":\"string\"},"
      "\"maxPages\":{\"type\":\"integer\"}}}", WG_RISK_LOW },
    { "get_text", "content", "{\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}",
      WG_RISK_LOW },
    { "put_raw", "raw body", "{\"properties\":{\"text\":{\"type\":\"string\"}}}", WG_RISK_MEDIUM },
    { "on_drive", "other base", "{\"properties\":{}}", WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_tok", .method = WG_REST_GET, .path = "/items", .query = "pageToken pageSize=2",
      .page = { WG_REST_PAGE_TOKEN, "items", "nextPageToken", "pageToken", NULL, NULL } },
    { .name = "list_link", .method = WG_REST_GET, .path = "/me/things",
      .page = { WG_REST_PAGE_LINK, "value", "@odata.nextLink", NULL, NULL, NULL } },
    { .name = "list_cursor", .method = WG_REST_POST, .path = "/files/list_folder",
      .body = WG_REST_BODY_TEMPLATE, .body_template = "{\"path\":\"$path\"}",
      .page = { WG_REST_PAGE_CURSOR, "entries", "cursor", NULL, "has_more",
                "/files/list_folder/continue" } },
    { .name = "get_text", .method = WG_REST_GET, .path = "/files/{id}", .query = "alt=media",
      .response = WG_REST_RESP_CONTENT, .result_template = "{\"fileId\":\"$id\"}" },
    { .name = "put_raw", .method = WG_REST_POST, .path = "/upload", .base = "upload",
      .prepare = make_raw, .body = WG_REST_BODY_RAW, .body_template = "raw",
      .content_type = "$ctype" },
    { .name = "on_drive", .method = WG_REST_GET, .path = "/about", .base = "drive" },
};

static const wg_rest_base bases[] = {
    { "upload", "https://api.example.invalid/upload/v1.0" },
    { "drive", "https://drive.example.invalid/drive/v3" },
    { NULL, NULL },
};

static const wg_rest_spec rest = {
    .default_base = "https://api.example.invalid/v1.0", .override_origin = 1, .bases = bases,
    .auth = WG_REST_AUTH_BEARER, .error_prefix = "Pager API", .actions = rest_actions,
    .n_actions = sizeof rest_actions / sizeof *rest_actions, .health_method = WG_REST_GET,
    .health_path = "/me",
};

static const wg_connector_spec spec = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "pager", .name = "Pager", .description = "test", .service = "example",
    .auth_type = WG_AUTH_BEARER, .actions = actions,
    .n_actions = sizeof actions / sizeof *actions, .ops = &wg_rest_ops, .impl = &rest,
};

static wgt_connect f;
static wgt_replay *up;

static void setup(void)
{
    up = wgt_replay_start();
    wgt_connect_open(&f, NULL, NULL, 0);
    cr_assert_eq(wg_registry_register(f.reg, &spec), 0);
    wg_connect_request req = { .token = "tok-123", .base_url = wgt_replay_base(up),
                               .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(f.reg, "pager", &req), 0);
}

static void teardown(void)
{
    wgt_connect_close(&f);
    wgt_replay_stop(up);
}

TestSuite(connect_rest_paging, .init = setup, .fini = teardown);

static void expect(json_t *ex)
{
    cr_assert_not_null(ex);
    wgt_replay_expect(up, ex);
    json_decref(ex);
}

/* n token pages of one item each; the last one without nextPageToken */
static json_t *token_pages(int n)
{
    json_t *ex = json_array();
    for (int i = 0; i < n; i++) {
        char uri[64], tok[16], next[16], item[16];
        snprintf(tok, sizeof tok, "t%d", i);
        snprintf(next, sizeof next, "t%d", i + 1);
        snprintf(item, sizeof item, "item%d", i);
        if (i == 0)
            snprintf(uri, sizeof uri, "/v1.0/items?pageSize=2");
        else
            snprintf(uri, sizeof uri, "/v1.0/items?pageToken=%s&pageSize=2", tok);
        json_t *body = json_pack("{s:[s]}", "items", item);
        if (i < n - 1 || n == 99)
            json_object_set_new(body, "nextPageToken", json_string(next));
        json_array_append_new(ex, json_pack("{s:{s:s,s:s,s:{s:s}},s:{s:o}}", "request", "method",
                                            "GET", "uri", uri, "headers", "Authorization",
                                            "Bearer tok-123", "response", "body", body));
    }
    return ex;
}

Test(connect_rest_paging, token_pages_are_merged_up_to_max_pages)
{
    expect(token_pages(3));
    wgt_connect_call(&f, "connector_pager_list_tok", "{\"maxPages\":5}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    json_t *items = json_object_get(json_object_get(f.last, "data"), "items");
    cr_assert_eq(json_array_size(items), 3);
    cr_assert_str_eq(json_string_value(json_array_get(items, 2)), "item2");
    cr_assert_null(json_object_get(json_object_get(f.last, "data"), "nextPageToken"),
                   "the last page had no continuation");
    cr_assert_eq(json_integer_value(json_object_get(f.last, "pages")), 3);
    cr_assert_null(json_object_get(f.last, "morePages"));
}

Test(connect_rest_paging, one_page_by_default_with_the_continuation_kept)
{
    json_t *ex = token_pages(3);
    json_array_remove(ex, 2);
    json_array_remove(ex, 1);
    expect(ex);
    wgt_connect_call(&f, "connector_pager_list_tok", "{}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
    json_t *data = json_object_get(f.last, "data");
    cr_assert_str_eq(json_string_value(json_object_get(data, "nextPageToken")), "t1");
    cr_assert(json_is_true(json_object_get(f.last, "morePages")));
    /* the caller continues by hand with the token */
    ex = token_pages(3);
    json_array_remove(ex, 0);
    json_array_remove(ex, 1);
    expect(ex);
    wgt_connect_call(&f, "connector_pager_list_tok", "{\"pageToken\":\"t1\"}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
}

Test(connect_rest_paging, max_pages_bound)
{
    /* N-1 and N: accepted and followed; the server always has more */
    for (int want = WG_REST_PAGES_MAX - 1; want <= WG_REST_PAGES_MAX; want++) {
        json_t *ex = token_pages(want);
        /* every page names a next one */
        size_t i;
        json_t *e;
        json_array_foreach(ex, i, e) {
            char next[32];
            snprintf(next, sizeof next, "t%zu", i + 1);
            json_object_set_new(json_object_get(json_object_get(e, "response"), "body"),
                                "nextPageToken", json_string(next));
        }
        expect(ex);
        char args[64];
        snprintf(args, sizeof args, "{\"maxPages\":%d}", want);
        wgt_connect_call(&f, "connector_pager_list_tok", args);
        cr_assert_null(wgt_replay_verdict(up), "%d: %s", want, wgt_replay_verdict(up));
        cr_assert_eq(json_integer_value(json_object_get(f.last, "pages")), want);
        cr_assert(json_is_true(json_object_get(f.last, "morePages")));
    }
    /* N+1, 0, and a string: refused before anything is sent */
    const char *bad[] = { "{\"maxPages\":11}", "{\"maxPages\":0}", "{\"maxPages\":-3}" };
    for (size_t i = 0; i < 3; i++) {
        expect(json_array());
        wgt_connect_call(&f, "connector_pager_list_tok", bad[i]);
        cr_assert(!wgt_connect_ok(&f));
        cr_assert(strstr(wgt_connect_error(&f), "maxPages"), "%s", wgt_connect_error(&f));
        cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    }
}

Test(connect_rest_paging, next_links_under_the_base_are_followed)
{
    expect(json_loads(
        "[{\"request\":{\"method\":\"GET\",\"uri\":\"/v1.0/me/things\"},"
        "  \"response\":{\"body\":{\"@odata.context\":\"x\",\"value\":[{\"id\":\"1\"}],"
        "    \"@odata.nextLink\":\"{{base}}/v1.0/me/things?%24skiptoken=X%27Y\"}}},"
        " {\"request\":{\"method\":\"GET\",\"uri\":\"/v1.0/me/things?%24skiptoken=X%27Y\","
        "   \"headers\":{\"Authorization\":\"Bearer tok-123\"}},"
        "  \"response\":{\"body\":{\"value\":[{\"id\":\"2\"}]}}}]", 0, NULL));
    wgt_connect_call(&f, "connector_pager_list_link", "{\"maxPages\":3}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
    json_t *data = json_object_get(f.last, "data");
    cr_assert_eq(json_array_size(json_object_get(data, "value")), 2);
    cr_assert_null(json_object_get(data, "@odata.nextLink"));
    cr_assert_eq(json_integer_value(json_object_get(f.last, "pages")), 2);
}

Test(connect_rest_paging, a_link_elsewhere_is_not_followed)
{
    const char *links[] = { "https://evil.example/v1.0/me/things?page=2",
                            "{{base}}/beta/me/things", "{{base}}/v1.0/../beta/x",
                            "{{base}}.evil.example/v1.0/x" };
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        json_t *ex = json_pack("[{s:{s:s},s:{s:{s:[{s:s}],s:s}}}]", "request", "method", "GET",
                               "response", "body", "value", "id", "1", "@odata.nextLink",
                               links[i]);
        expect(ex);
        wgt_connect_call(&f, "connector_pager_list_link", "{\"maxPages\":5}");
        cr_assert_null(wgt_replay_verdict(up), "%zu: %s", i, wgt_replay_verdict(up));
        cr_assert_eq(json_array_size(wgt_replay_seen(up)), 1, "nothing was sent to %s", links[i]);
        cr_assert(wgt_connect_ok(&f), "the first page is still the answer");
        cr_assert(json_is_true(json_object_get(f.last, "morePages")));
        cr_assert(json_string_value(json_object_get(f.last, "pagingStopped")), "%zu", i);
    }
}

Test(connect_rest_paging, cursor_pages_are_posted_while_has_more)
{
    expect(json_loads(
        "[{\"request\":{\"method\":\"POST\",\"uri\":\"/v1.0/files/list_folder\",\"body\":{\"path\":\"/a\"}},"
        "  \"response\":{\"body\":{\"entries\":[{\"name\":\"x\"}],\"cursor\":\"c1\",\"has_more\":true}}},"
        " {\"request\":{\"method\":\"POST\",\"uri\":\"/v1.0/files/list_folder/continue\",\"body\":{\"cursor\":\"c1\"}},"
        "  \"response\":{\"body\":{\"entries\":[{\"name\":\"y\"}],\"cursor\":\"c2\",\"has_more\":false}}}]",
        0, NULL));
    wgt_connect_call(&f, "connector_pager_list_cursor", "{\"path\":\"/a\",\"maxPages\":4}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
    json_t *data = json_object_get(f.last, "data");
    cr_assert_eq(json_array_size(json_object_get(data, "entries")), 2);
    cr_assert_str_eq(json_string_value(json_object_get(data, "cursor")), "c2");
    cr_assert(json_is_false(json_object_get(data, "has_more")));
}

Test(connect_rest_paging, an_error_on_a_later_page_is_the_answer)
{
    expect(json_loads(
        "[{\"request\":{\"method\":\"GET\"},\"response\":{\"body\":{\"items\":[1],\"nextPageToken\":\"t1\"}}},"
        " {\"request\":{\"method\":\"GET\"},\"response\":{\"status\":429,"
        "   \"headers\":{\"Retry-After\":\"17\"},\"body\":{\"error\":{\"code\":429}}}}]", 0, NULL));
    wgt_connect_call(&f, "connector_pager_list_tok", "{\"maxPages\":2}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
    cr_assert(!wgt_connect_ok(&f));
    cr_assert_eq(json_integer_value(json_object_get(f.last, "retryAfter")), 17);
    cr_assert(json_is_true(json_object_get(f.last, "retryable")));
}

Test(connect_rest_paging, retry_after_http_date_and_google_rate_limits)
{
    expect(json_loads(
        "[{\"request\":{\"method\":\"GET\"},\"response\":{\"status\":503,"
        "  \"headers\":{\"Retry-After\":\"Fri, 31 Dec 1999 23:59:59 GMT\"},\"body\":{}}}]", 0, NULL));
    wgt_connect_call(&f, "connector_pager_list_tok", "{}");
    cr_assert_eq(json_integer_value(json_object_get(f.last, "retryAfter")), 0, "a past date");
    /* Google: 403 with reason rateLimitExceeded is a rate limit */
    expect(json_loads(
        "[{\"request\":{\"method\":\"GET\"},\"response\":{\"status\":403,\"body\":{\"error\":"
        "{\"errors\":[{\"domain\":\"usageLimits\",\"reason\":\"userRateLimitExceeded\","
        "\"message\":\"User Rate Limit Exceeded\"}],\"code\":403,\"message\":\"User Rate Limit Exceeded\"}}}}]",
        0, NULL));
    wgt_connect_call(&f, "connector_pager_list_tok", "{}");
    cr_assert(json_is_true(json_object_get(f.last, "retryable")));
    cr_assert_eq(json_integer_value(json_object_get(f.last, "status")), 403);
    /* a plain 403 is not */
    expect(json_loads("[{\"request\":{\"method\":\"GET\"},\"response\":{\"status\":403,"
                      "\"body\":{\"error\":{\"code\":403,\"message\":\"forbidden\"}}}}]", 0, NULL));
    wgt_connect_call(&f, "connector_pager_list_tok", "{}");
    cr_assert_null(json_object_get(f.last, "retryable"));
}

Test(connect_rest_paging, content_alternate_bases_and_raw_bodies)
{
    expect(json_loads(
        "[{\"request\":{\"method\":\"GET\",\"uri\":\"/v1.0/files/a%20b?alt=media\"},"
        "  \"response\":{\"headers\":{\"Content-Type\":\"text/plain\"},\"body_text\":\"hello \\u00e9\"}}]",
        0, NULL));
    wgt_connect_call(&f, "connector_pager_get_text", "{\"id\":\"a b\"}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));
    json_t *data = json_object_get(f.last, "data");
    cr_assert_str_eq(json_string_value(json_object_get(data, "content")), "hello \xc3\xa9");
    cr_assert_str_eq(json_string_value(json_object_get(data, "fileId")), "a b");
    cr_assert_null(json_object_get(data, "encoding"));

    expect(json_loads(
        "[{\"request\":{\"method\":\"POST\",\"uri\":\"/upload/v1.0/upload\","
        "   \"headers\":{\"Content-Type\":\"multipart/related; boundary=b\"},"
        "   \"body_text\":\"--b\\r\\nhi\\r\\n--b--\"},\"response\":{\"body\":{\"id\":\"f1\"}}},"
        " {\"request\":{\"method\":\"GET\",\"uri\":\"/drive/v3/about\"},\"response\":{\"body\":{}}}]",
        0, NULL));
    wgt_connect_call(&f, "connector_pager_put_raw", "{\"text\":\"hi\"}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    wgt_connect_call(&f, "connector_pager_on_drive", "{}");
    cr_assert_null(wgt_replay_verdict(up), "%s", wgt_replay_verdict(up));

    /* a prepare hook's refusal sends nothing */
    expect(json_array());
    wgt_connect_call(&f, "connector_pager_put_raw", "{\"text\":\"a\\rb\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "without CR"), "%s", wgt_connect_error(&f));
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
}

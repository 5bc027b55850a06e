/* echo.c - error messages never quote the request (issue 11 section 4):
 * every route of the OpenAPI document, called with a marker in every path
 * parameter, in the query and in every body field a handler reads, answers
 * errors that do not contain the marker. The plan is ENTERPRISE so that the
 * gated routes reach their handlers. */
#include <criterion/criterion.h>

#include "server_test.h"
#include "wgtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wgt_server s;

static void setup(void)
{
    static const char *const files[] = { "config.json", "{\"tier\":\"ENTERPRISE\"}", NULL };
    wgt_server_config cfg = { .files = files };
    wgt_server_start(&s, &cfg);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(echo, .init = setup, .fini = teardown, .timeout = 120);

/* Lower case letters and digits: a valid name for every validator, so the
 * request goes as deep into the handler as it can. */
#define MARK "zq7echomark"

/* Fields handlers read, with the marker where a string goes and in the
 * arrays and objects they read. */
static const char body_all[] =
    "{\"name\":\"" MARK "\",\"id\":\"" MARK "\",\"tool\":\"" MARK "\",\"query\":\"" MARK "\","
    "\"need\":\"" MARK "\",\"content\":\"" MARK "\",\"type\":\"" MARK "\",\"source\":\"" MARK "\","
    "\"description\":\"" MARK "\",\"category\":\"" MARK "\",\"provider\":\"" MARK "\","
    "\"serverUrl\":\"" MARK "\",\"token\":\"" MARK "\",\"apiKey\":\"" MARK "\","
    "\"baseUrl\":\"" MARK "\",\"email\":\"" MARK "\",\"expiresAt\":\"" MARK "\","
    "\"format\":\"" MARK "\",\"event\":\"" MARK "\",\"workspaceId\":\"" MARK "\","
    "\"tier\":\"" MARK "\",\"decision\":\"" MARK "\",\"approvalId\":\"" MARK "\","
    "\"level\":\"" MARK "\",\"autonomy\":{\"level\":\"" MARK "\",\"expiresAt\":\"" MARK "\"},"
    "\"deps\":{\"" MARK "\":\"" MARK "\"},\"args\":{\"command\":\"" MARK "\"},"
    "\"tools\":[\"" MARK "\"],\"readOnly\":true,\"declaredPermissions\":[\"" MARK "\"],"
    "\"scopes\":[\"" MARK "\"],\"enabled\":\"" MARK "\",\"costUsd\":\"" MARK "\"}";

/* The same fields one at a time (a handler may stop at the first bad one). */
static const char *const one_field[] = {
    "name", "id", "tool", "query", "need", "content", "type", "source", "description",
    "category", "provider", "serverUrl", "token", "format", "event", "workspaceId", "tier",
    "decision", "level", "baseUrl", "email", "expiresAt",
};

static void check(const char *method, const char *path, const char *body, int auth)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, method, path, body, body ? strlen(body) : 0, auth, NULL);
    cr_expect(r.status != 0, "%s %s: no answer", method, path);
    if (r.status >= 400)
        cr_expect_null(strstr(r.body, MARK), "%s %s %s -> %ld echoes the request: %s", method,
                       path, body ? body : "", r.status, r.body);
    wgt_http_res_free(&r);
}

Test(echo, no_error_message_quotes_a_path_parameter_query_or_body_value)
{
    wgt_http_res doc;
    wgt_http(&doc, &s, "GET", "/api/openapi.json", NULL);
    cr_assert_eq(doc.status, 200);
    json_t *paths = json_object_get(doc.json, "paths");
    cr_assert(json_object_size(paths) > 10);
    const char *tpl;
    json_t *ops;
    size_t checked = 0;
    json_object_foreach(paths, tpl, ops) {
        /* an event stream never ends, and it reads no parameter or body */
        if (strcmp(tpl, "/api/events") == 0)
            continue;
        /* {param} -> the marker; then a query with the marker too */
        char path[512];
        size_t k = 0;
        for (const char *p = tpl; *p && k + 32 < sizeof path;) {
            if (*p == '{') {
                k += (size_t)snprintf(path + k, sizeof path - k, "%s", MARK);
                const char *close = strchr(p, '}');
                p = close ? close + 1 : p + strlen(p);
            } else {
                path[k++] = *p++;
            }
        }
        path[k] = '\0';
        char with_query[700];
        snprintf(with_query, sizeof with_query,
                 "%s?q=%s&category=%s&limit=%s&event=%s&format=%s", path, MARK, MARK, MARK, MARK,
                 MARK);
        const char *method;
        json_t *op;
        json_object_foreach(ops, method, op) {
            char m[8];
            size_t i = 0;
            for (; method[i] && i + 1 < sizeof m; i++)
                m[i] = (char)(method[i] - 32 * (method[i] >= 'a' && method[i] <= 'z'));
            m[i] = '\0';
            int auth = strcmp(tpl, "/api/tier") == 0 && strcmp(m, "PATCH") == 0 ? WGT_AUTH_ADMIN
                                                                               : WGT_AUTH_API;
            check(m, with_query, NULL, auth);
            if (strcmp(m, "GET") == 0)
                continue;
            check(m, path, body_all, auth);
            for (size_t f = 0; f < sizeof one_field / sizeof *one_field; f++) {
                char b[128];
                snprintf(b, sizeof b, "{\"%s\":\"%s\"}", one_field[f], MARK);
                check(m, path, b, auth);
            }
            checked++;
        }
    }
    cr_assert_gt(checked, 15, "only %zu operations", checked);
    wgt_http_res_free(&doc);
}

/* The framework's own answers quote nothing either. */
Test(echo, framework_errors_do_not_quote_the_path)
{
    check("GET", "/api/" MARK, NULL, WGT_AUTH_API);
    check("DELETE", "/api/tier?x=" MARK, NULL, WGT_AUTH_API);
    check("POST", "/api/capabilities/plugins/" MARK "%0a/enable", NULL, WGT_AUTH_API);
    check("POST", "/api/capabilities/resolve", "{\"" MARK "\":", WGT_AUTH_API);
}

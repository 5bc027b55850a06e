/* server.c - the service frame (route.h contract): open /healthz, bearer
 * auth on /api/, the Host check, 404/405 JSON, the 1 MiB limit, CORS,
 * token files. Real waggled on an ephemeral port. */
#include <criterion/criterion.h>

#include "server_test.h"
#include "wgtest.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static wgt_server s;

static void setup(void)
{
    static const char *const origins[] = { "http://app.example", NULL };
    static const char *const hosts[] = { "waggle.internal", NULL };
    wgt_server_config cfg = { .cors_origins = origins, .allowed_hosts = hosts };
    wgt_server_start(&s, &cfg);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(server, .init = setup, .fini = teardown);

Test(server, healthz_without_token_is_200)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/healthz", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "status")), "ok");
    char *ct = wgt_http_header(&r, "Content-Type");
    cr_assert_str_eq(ct, "application/json; charset=utf-8");
    free(ct);
    wgt_http_res_free(&r);
}

Test(server, api_without_token_is_401_unauthorized)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/api/openapi.json", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 401);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "UNAUTHORIZED");
    char *www = wgt_http_header(&r, "WWW-Authenticate");
    cr_assert_str_eq(www, "Bearer");
    free(www);
    wgt_http_res_free(&r);
}

Test(server, api_with_wrong_token_is_401)
{
    static const char *const h[] = { "Authorization: Bearer 0000000000000000000000000000", NULL };
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/api/openapi.json", NULL, 0, WGT_AUTH_NONE, h);
    cr_assert_eq(r.status, 401);
    wgt_http_res_free(&r);
}

Test(server, unknown_api_route_without_token_is_401_not_404)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/api/nope", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 401);
    wgt_http_res_free(&r);
}

Test(server, token_file_is_created_0600)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/api-token", s.dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600);
    cr_assert_eq(strlen(s.token), 64);
    snprintf(path, sizeof path, "%s/admin-token", s.dir);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600);
    cr_assert_str_neq(s.token, s.admin);
}

Test(server, foreign_host_is_403_host_not_allowed)
{
    static const char *const h[] = { "Host: evil.example:3333", NULL };
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/api/openapi.json", NULL, 0, WGT_AUTH_API, h);
    cr_assert_eq(r.status, 403);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "HOST_NOT_ALLOWED");
    wgt_http_res_free(&r);
}

Test(server, localhost_and_configured_hosts_are_accepted)
{
    static const char *const names[] = { "Host: localhost:1", "Host: 127.0.0.1",
                                         "Host: [::1]:3333", "Host: waggle.internal",
                                         "Host: LOCALHOST" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *h[] = { names[i], NULL };
        wgt_http_res r;
        wgt_http_ex(&r, &s, "GET", "/healthz", NULL, 0, WGT_AUTH_NONE, h);
        cr_assert_eq(r.status, 200, "%s -> %ld", names[i], r.status);
        wgt_http_res_free(&r);
    }
}

Test(server, malformed_host_is_rejected)
{
    static const char *const names[] = { "Host: localhost:abc", "Host: [::1", "Host: :80",
                                         "Host: localhost.evil.example" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *h[] = { names[i], NULL };
        wgt_http_res r;
        wgt_http_ex(&r, &s, "GET", "/healthz", NULL, 0, WGT_AUTH_NONE, h);
        cr_assert(r.status == 403 || r.status == 400, "%s -> %ld", names[i], r.status);
        wgt_http_res_free(&r);
    }
}

Test(server, unknown_route_is_404_json)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/does/not/exist", NULL);
    cr_assert_eq(r.status, 404);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "NOT_FOUND");
    wgt_http_res_free(&r);
}

Test(server, wrong_method_is_405_with_allow)
{
    wgt_http_res r;
    wgt_http(&r, &s, "DELETE", "/api/openapi.json", NULL);
    cr_assert_eq(r.status, 405);
    char *allow = wgt_http_header(&r, "Allow");
    cr_assert_str_eq(allow, "GET");
    free(allow);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "METHOD_NOT_ALLOWED");
    wgt_http_res_free(&r);
}

Test(server, body_over_1mib_is_413)
{
    size_t n = 1024 * 1024 + 10;
    char *big = malloc(n);
    memset(big, ' ', n);
    wgt_http_res r;
    wgt_http_ex(&r, &s, "POST", "/api/openapi.json", big, n, WGT_AUTH_API, NULL);
    cr_assert_eq(r.status, 413);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "PAYLOAD_TOO_LARGE");
    wgt_http_res_free(&r);
    static const char *const chunked[] = { "Transfer-Encoding: chunked", NULL };
    wgt_http_ex(&r, &s, "POST", "/api/openapi.json", big, n, WGT_AUTH_API, chunked);
    cr_assert_eq(r.status, 413);
    wgt_http_res_free(&r);
    free(big);
}

Test(server, cors_headers_only_for_configured_origin)
{
    static const char *const good[] = { "Origin: http://app.example", NULL };
    static const char *const bad[] = { "Origin: http://evil.example", NULL };
    wgt_http_res r;
    wgt_http_ex(&r, &s, "OPTIONS", "/api/openapi.json", NULL, 0, WGT_AUTH_NONE, good);
    cr_assert_eq(r.status, 204);
    char *acao = wgt_http_header(&r, "Access-Control-Allow-Origin");
    cr_assert_str_eq(acao, "http://app.example");
    free(acao);
    wgt_http_res_free(&r);
    wgt_http_ex(&r, &s, "GET", "/api/openapi.json", NULL, 0, WGT_AUTH_API, bad);
    cr_assert_eq(r.status, 200);
    cr_assert_null(wgt_http_header(&r, "Access-Control-Allow-Origin"));
    wgt_http_res_free(&r);
}

Test(server, openapi_document_is_served)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/openapi.json", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "openapi")), "3.1.0");
    wgt_http_res_free(&r);
}

Test(server, keep_alive_connection_is_reused)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/healthz", NULL, 0, WGT_AUTH_NONE, NULL);
    char *conn = wgt_http_header(&r, "Connection");
    cr_assert(conn == NULL || strcasecmp(conn, "close") != 0, "Connection: %s", conn);
    free(conn);
    wgt_http_res_free(&r);
}

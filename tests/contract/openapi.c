/* openapi.c - the OpenAPI 3.1 document (data/openapi.json, served at
 * GET /api/openapi.json) lists exactly the routes of the route table:
 * a route missing from the document, or a documented operation with no
 * route, fails here. */
#include <criterion/criterion.h>

#include "server/server_int.h"
#include "server_test.h"
#include "wgtest.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* "/api/x/:id/y" -> "/api/x/{id}/y" */
static void to_openapi_path(char *dst, size_t cap, const char *p)
{
    size_t k = 0;
    for (; *p && k + 2 < cap; p++) {
        if (*p == ':' && p[-1] == '/') {
            dst[k++] = '{';
            while (p[1] && p[1] != '/' && k + 2 < cap)
                dst[k++] = *++p;
            dst[k++] = '}';
        } else {
            dst[k++] = *p;
        }
    }
    dst[k] = '\0';
}

static void lower(char *dst, const char *src)
{
    while ((*dst++ = (char)(*src >= 'A' && *src <= 'Z' ? *src + 32 : *src)))
        src++;
}

static json_t *load_doc(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/openapi.json", WG_SOURCE_DIR);
    json_error_t err;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    cr_assert_not_null(doc, "data/openapi.json: %s (line %d)", err.text, err.line);
    return doc;
}

Test(openapi, every_route_is_documented)
{
    json_t *doc = load_doc();
    json_t *paths = json_object_get(doc, "paths");
    wg_route_table t;
    cr_assert_eq(wg_route__table_build(&t), 0);
    for (size_t i = 0; i < t.n; i++) {
        char p[256], m[16];
        to_openapi_path(p, sizeof p, t.rows[i].route->path);
        lower(m, wg_http__method_name(t.rows[i].route->method));
        json_t *op = json_object_get(json_object_get(paths, p), m);
        cr_expect_not_null(op, "route %s %s is missing from data/openapi.json", m, p);
        if (op)
            cr_expect_not_null(json_object_get(op, "responses"), "%s %s has no responses", m, p);
    }
    wg_route__table_free(&t);
    json_decref(doc);
}

Test(openapi, every_documented_operation_has_a_route)
{
    static const char *const verbs[] = { "get", "post", "put", "patch", "delete" };
    json_t *doc = load_doc();
    wg_route_table t;
    cr_assert_eq(wg_route__table_build(&t), 0);
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(doc, "paths"), path, item) {
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
            if (!json_object_get(item, verbs[v]))
                continue;
            int found = 0;
            for (size_t i = 0; i < t.n && !found; i++) {
                char p[256];
                to_openapi_path(p, sizeof p, t.rows[i].route->path);
                found = strcmp(p, path) == 0 &&
                        strcasecmp(wg_http__method_name(t.rows[i].route->method), verbs[v]) == 0;
            }
            cr_expect(found, "data/openapi.json documents %s %s, which no route serves",
                      verbs[v], path);
        }
    }
    wg_route__table_free(&t);
    json_decref(doc);
}

Test(openapi, document_is_openapi_3_1_and_served_verbatim)
{
    json_t *doc = load_doc();
    cr_assert_str_eq(json_string_value(json_object_get(doc, "openapi")), "3.1.0");
    wgt_server s;
    wgt_server_start(&s, NULL);
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/openapi.json", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(json_equal(r.json, doc), "served document differs from data/openapi.json");
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
    json_decref(doc);
}

/* Issue #12 §2: what a client generator and an operator need of the document. */
Test(openapi, every_operation_has_a_unique_operation_id_and_declares_the_errors_any_route_can_give)
{
    static const char *const verbs[] = { "get", "post", "put", "patch", "delete" };
    /* statuses the transport can answer on any route: framing and %00 (400),
     * the Host check (403), a wrong method (405), body, path and head limits
     * (413, 414, 431), and the unexpected (500); 401 where a token is needed */
    static const char *const everywhere[] = { "400", "403", "405", "413", "414", "431", "500" };
    json_t *doc = load_doc();
    json_t *ids = json_object();
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(doc, "paths"), path, item) {
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
            json_t *op = json_object_get(item, verbs[v]);
            if (!op)
                continue;
            const char *id = json_string_value(json_object_get(op, "operationId"));
            cr_expect_not_null(id, "%s %s has no operationId", verbs[v], path);
            if (id) {
                cr_expect_null(json_object_get(ids, id), "operationId %s is used twice", id);
                json_object_set_new(ids, id, json_true());
            }
            json_t *responses = json_object_get(op, "responses");
            for (size_t k = 0; k < sizeof everywhere / sizeof *everywhere; k++)
                cr_expect_not_null(json_object_get(responses, everywhere[k]),
                                   "%s %s does not declare %s", verbs[v], path, everywhere[k]);
            json_t *security = json_object_get(op, "security");
            int open = json_is_array(security) && json_array_size(security) == 0;
            if (!open)
                cr_expect_not_null(json_object_get(responses, "401"),
                                   "%s %s needs a token but does not declare 401", verbs[v], path);
            if (strchr(path, '{'))
                cr_expect_not_null(json_object_get(responses, "404"),
                                   "%s %s has a path parameter but does not declare 404", verbs[v],
                                   path);
        }
    }
    json_decref(ids);
    json_decref(doc);
}

Test(openapi, servers_are_not_fixed_to_one_port)
{
    json_t *doc = load_doc();
    json_t *server = json_array_get(json_object_get(doc, "servers"), 0);
    const char *url = json_string_value(json_object_get(server, "url"));
    cr_assert_not_null(url);
    cr_expect_null(strstr(url, ":3333"), "servers[0].url is fixed: %s", url);
    json_t *vars = json_object_get(server, "variables");
    cr_expect_not_null(json_object_get(vars, "port"), "the port is a server variable");
    json_decref(doc);
}

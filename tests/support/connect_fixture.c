/* connect_fixture.c - see connect_fixture.h. */
#include <criterion/criterion.h>
#include <string.h>
#include "connect_fixture.h"

void wgt_connect_open(wgt_connect *f, const char *id, const char *token, int demo)
{
    memset(f, 0, sizeof *f);
    cr_assert_eq(wg_connect_memvault_new(&f->vault), 0);
    /* the test is the operator, its upstreams loopback replay servers */
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = f->vault, .demo = demo, .allow_private_upstreams = 1,
                              .allow_http_upstreams = 1 };
    cr_assert_eq(wg_registry_new(&f->reg, &o), 0);
    if (id) {
        wg_connect_request req = { .token = token, .principal = WG_PRINCIPAL_OPERATOR };
        cr_assert_eq(wg_registry_connect(f->reg, id, &req), 0, "connect %s", id);
    }
}

void wgt_connect_close(wgt_connect *f)
{
    json_decref(f->last);
    wg_registry_free(f->reg);
    wg_connect_memvault_free(f->vault);
    memset(f, 0, sizeof *f);
}

json_t *wgt_connect_call(wgt_connect *f, const char *tool, const char *args_json)
{
    json_decref(f->last);
    f->last = NULL;
    json_t *args = json_loads(args_json, 0, NULL);
    cr_assert_not_null(args, "bad test args %s", args_json);
    wg_registry_execute(&f->last, f->reg, tool, args);
    json_decref(args);
    cr_assert_not_null(f->last);
    return f->last;
}

const char *wgt_connect_error(const wgt_connect *f)
{
    const char *e = json_string_value(json_object_get(f->last, "error"));
    return e ? e : "";
}

int wgt_connect_ok(const wgt_connect *f)
{
    return json_is_true(json_object_get(f->last, "success"));
}

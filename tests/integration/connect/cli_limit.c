/* cli_limit.c - `waggle connectors connect` enforces the tier's
 * connectorLimit (reference 13 item 19; FREE = 5): the sixth connector
 * fails with exit 1 and a message naming TIER_INSUFFICIENT, the rule and
 * the tier to upgrade to, before any token is read or stored; reconnecting
 * passes; --demo connectors do not count; PRO has no limit. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgtest.h"

static char *dir;

static void setup(void)
{
    dir = wgt_tmpdir();
}

static void teardown(void)
{
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(cli_limit, .init = setup, .fini = teardown);

/* waggle --data-dir DIR connectors [--demo] connect ID, the token on stdin. */
static void connect_id(wgt_result *r, const char *id, int demo)
{
    const char *argv[] = { "--data-dir", dir, "connectors", demo ? "--demo" : "connect",
                           demo ? "connect" : id, demo ? id : NULL, NULL };
    cr_assert_eq(wgt_run_cli(r, "tok_cli_limit_0123456789\n", NULL, argv), 0);
}

static void connect_ok(const char *id, int demo)
{
    wgt_result r;
    connect_id(&r, id, demo);
    cr_assert_eq(r.status, 0, "%s: %s", id, r.err);
    wgt_result_free(&r);
}

static const char *const five[] = { "github", "slack", "discord", "linear", "notion" };

static void connect_five(int demo)
{
    for (size_t i = 0; i < sizeof five / sizeof *five; i++)
        connect_ok(five[i], demo);
}

Test(cli_limit, sixth_connector_on_free_fails_with_exit_1_and_says_why)
{
    connect_five(0);
    wgt_result r;
    connect_id(&r, "gitlab", 0);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert(strstr(r.err, "TIER_INSUFFICIENT"), "%s", r.err);
    cr_assert(strstr(r.err, "gitlab would be connector 6; the FREE tier allows 5"), "%s", r.err);
    cr_assert(strstr(r.err, "rule connector.limit.exceeded"), "%s", r.err);
    cr_assert(strstr(r.err, "This feature requires the PRO tier. You are on FREE."), "%s", r.err);
    cr_assert(strstr(r.err, "https://waggle-os.ai/upgrade"), "%s", r.err);
    cr_assert_str_eq(r.out, "", "nothing printed as connected");
    wgt_result_free(&r);

    const char *list[] = { "--data-dir", dir, "connectors", "list", "--json", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, list), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *all = json_loads(r.out, 0, NULL);
    json_t *c;
    size_t i;
    int seen = 0;
    json_array_foreach(json_is_array(all) ? all : json_object_get(all, "connectors"), i, c)
        if (!strcmp(json_string_value(json_object_get(c, "id")), "gitlab")) {
            seen = 1;
            cr_assert_str_eq(json_string_value(json_object_get(c, "status")), "disconnected");
        }
    cr_assert(seen, "%s", r.out);
    json_decref(all);
    wgt_result_free(&r);
}

Test(cli_limit, reconnect_at_the_limit_succeeds)
{
    connect_five(0);
    connect_ok("github", 0);
}

Test(cli_limit, demo_connectors_do_not_count)
{
    connect_five(1);
    wgt_result r;
    connect_id(&r, "gitlab", 1);
    cr_assert_eq(r.status, 1, "%s", r.err);
    wgt_result_free(&r);
}

Test(cli_limit, pro_has_no_limit)
{
    cr_assert_eq(wgt_write_file(dir, "config.json", "{\"tier\":\"PRO\"}"), 0);
    connect_five(0);
    connect_ok("gitlab", 0);
}

/* gateway_check.c - `waggle mcp --check-gateway FILE`: a valid file lists
 * its servers without any env/header value; a secret in clear is refused
 * (exit 2) and not echoed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wgtest.h"

static wgt_result check(const char *text)
{
    char dir[] = "/tmp/wg-gwcheck-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(wgt_write_file(dir, "gateway.json", text), 0);
    char path[64];
    snprintf(path, sizeof path, "%s/gateway.json", dir);
    const char *argv[] = { "mcp", "--check-gateway", path, NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    wgt_rmtree(dir);
    return r;
}

Test(gateway_check, lists_servers_without_values)
{
    wgt_result r = check("{\"mcpServers\":{\"fs\":{\"command\":\"npx\",\"args\":[\"-y\",\"x\"],"
                         "\"env\":{\"GH_TOKEN\":\"vault:gh-secret-name\",\"MODE\":\"plain-value\"}},"
                         "\"remote\":{\"url\":\"http://127.0.0.1:9/mcp\"}}}");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "fs\tstdio\tnpx (2 args)\tenv 2 (1 from the vault)"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "remote\thttp\thttp://127.0.0.1:9/mcp"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "2 servers: ok"), "%s", r.out);
    cr_expect_null(strstr(r.out, "plain-value"), "%s", r.out);
    cr_expect_null(strstr(r.out, "gh-secret-name"), "%s", r.out);
    wgt_result_free(&r);
}

Test(gateway_check, secret_in_clear_is_refused)
{
    wgt_result r = check("{\"mcpServers\":{\"fs\":{\"command\":\"npx\",\"env\":{\"API_KEY\":\"hunter2\"}}}}");
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_not_null(strstr(r.err, "vault:NAME"), "%s", r.err);
    cr_expect_null(strstr(r.err, "hunter2"), "%s", r.err);
    cr_expect_null(strstr(r.out, "hunter2"), "%s", r.out);
    wgt_result_free(&r);
}

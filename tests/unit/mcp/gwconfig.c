/* gwconfig.c - the gateway's mcpServers file (src/mcp/gwconfig.h): valid
 * stdio and url servers, bad names, missing command, vault references,
 * secrets in clear refused, bounded sizes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/gwconfig.h"
#include "waggle/error.h"

static int parse(wg_gw_config *c, const char *text)
{
    return wg_mcp__gw_config_parse(c, text, strlen(text));
}

Test(gwconfig, stdio_and_url_servers_parse)
{
    wg_gw_config c;
    cr_assert_eq(parse(&c,
        "{\"mcpServers\":{"
        "\"fs\":{\"command\":\"npx\",\"args\":[\"-y\",\"server-filesystem\",\"/tmp\"],"
        "        \"env\":{\"GITHUB_TOKEN\":\"vault:gh\",\"LOG_LEVEL\":\"debug\"},\"timeoutMs\":5000},"
        "\"remote\":{\"url\":\"https://example.test/mcp\",\"headers\":{\"Authorization\":\"vault:remote_bearer\"}}}}"), 0,
        "%s", wg_error_last());
    cr_assert_eq(c.n, 2);
    wg_gw_server *fs = &c.servers[0], *r = &c.servers[1];
    cr_expect_str_eq(fs->name, "fs");
    cr_expect_str_eq(fs->command, "npx");
    cr_expect_eq(fs->nargs, 3);
    cr_expect_str_eq(fs->args[2], "/tmp");
    cr_expect_eq(fs->timeout_ms, 5000);
    cr_assert_eq(fs->npairs, 2);
    cr_expect_str_eq(fs->pairs[0].key, "GITHUB_TOKEN");
    cr_expect_str_eq(fs->pairs[0].value, "gh");
    cr_expect_eq(fs->pairs[0].from_vault, 1);
    cr_expect_eq(fs->pairs[1].from_vault, 0);
    cr_expect_null(r->command);
    cr_expect_str_eq(r->url, "https://example.test/mcp");
    cr_expect_eq(r->timeout_ms, WG_GW_TIMEOUT_MS);
    cr_expect_str_eq(r->pairs[0].value, "remote_bearer");
    wg_mcp__gw_config_free(&c);
}

Test(gwconfig, bad_configs_are_refused)
{
    static const char *const bad[] = {
        "",
        "[]",
        "{}",
        "{\"mcpServers\":[]}",
        "{\"mcpServers\":{\"bad name\":{\"command\":\"x\"}}}",
        "{\"mcpServers\":{\"a__b/c\":{\"command\":\"x\"}}}",
        "{\"mcpServers\":{\"\":{\"command\":\"x\"}}}",
        "{\"mcpServers\":{\"s\":{}}}",
        "{\"mcpServers\":{\"s\":{\"args\":[\"x\"]}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"\"}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"url\":\"http://h/mcp\"}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"args\":[1]}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"env\":{\"A\":1}}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"env\":{\"A\":\"vault:\"}}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"env\":{\"A\":\"a\\nb\"}}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"timeoutMs\":0}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"timeoutMs\":\"60\"}}}",
        "{\"mcpServers\":{\"s\":{\"url\":\"file:///etc/passwd\"}}}",
        "{\"mcpServers\":{\"s\":{\"url\":\"https://u:pw@h/mcp\"}}}",
        "{\"mcpServers\":{\"s\":{\"url\":\"http://h/mcp\",\"env\":{}}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"headers\":{}}}}",
        "{\"mcpServers\":{\"s\":{\"command\":\"x\"},\"s\":{\"command\":\"y\"}}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wg_gw_config c = {0};
        cr_expect_eq(parse(&c, bad[i]), WG_EINVAL, "%s", bad[i]);
        cr_expect_eq(c.n, 0, "%s", bad[i]);
    }
    char name[WG_GW_NAME_MAX + 2];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    cr_expect_eq(wg_mcp__gw_name_ok(name), 0);
    name[WG_GW_NAME_MAX] = '\0';
    cr_expect_eq(wg_mcp__gw_name_ok(name), 1);
}

Test(gwconfig, secrets_in_clear_are_refused_without_echoing_them)
{
    static const char *const keys[] = { "API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "Authorization", "client_secret" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"env\":{\"%s\":\"hunter2-SeCrEt\"}}}}", keys[i]);
        wg_gw_config c = {0};
        cr_expect_eq(parse(&c, text), WG_EINVAL, "%s", keys[i]);
        cr_expect_not_null(strstr(wg_error_last(), "vault:"), "%s", wg_error_last());
        cr_expect_null(strstr(wg_error_last(), "hunter2"), "%s", wg_error_last());
    }
}

Test(gwconfig, huge_and_missing_files_are_refused)
{
    size_t n = WG_GW_FILE_MAX + 16;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    memset(big, ' ', n);
    memcpy(big, "{\"mcpServers\":{}}", 17);
    big[n] = '\0';
    wg_gw_config c = {0};
    cr_expect_eq(wg_mcp__gw_config_parse(&c, big, n), WG_EINVAL);
    char path[] = "/tmp/wg-gwconfig-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fwrite(big, 1, n, f);
    fclose(f);
    cr_expect_eq(wg_mcp__gw_config_load(&c, path), WG_EINVAL);
    unlink(path);
    free(big);
    cr_expect_eq(wg_mcp__gw_config_load(&c, "/nonexistent/gw.json"), WG_EIO);
}

Test(gwconfig, url_header_names_are_tokens_the_transport_does_not_set)
{
    static const char *const bad[] = { "Content-Type", "accept", "Mcp-Session-Id", "MCP-Protocol-Version", "Host",
                                       "Last-Event-ID", "X Team", "X-Team:", "X-T\\u00e9am", "" };
    char text[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "{\"mcpServers\":{\"r\":{\"url\":\"http://127.0.0.1:9/mcp\",\"headers\":"
                 "{\"%s\":\"v\"}}}}", bad[i]);
        wg_gw_config c;
        cr_expect_eq(parse(&c, text), WG_EINVAL, "%s", bad[i]);
        cr_expect_not_null(strstr(wg_error_last(), "header name"), "%s: %s", bad[i], wg_error_last());
    }
    wg_gw_config c;
    cr_assert_eq(parse(&c, "{\"mcpServers\":{\"r\":{\"url\":\"http://127.0.0.1:9/mcp\",\"headers\":"
                           "{\"X-Team\":\"blue\",\"X-Api-Key\":\"vault:k\",\"User-Agent\":\"me\"}}}}"), 0,
              "%s", wg_error_last());
    cr_expect_eq(c.servers[0].npairs, 3);
    wg_mcp__gw_config_free(&c);
    /* CR/LF in a value is refused (header injection) */
    cr_expect_eq(parse(&c, "{\"mcpServers\":{\"r\":{\"url\":\"http://127.0.0.1:9/mcp\",\"headers\":"
                           "{\"X-Team\":\"a\\r\\nX-Evil: 1\"}}}}"), WG_EINVAL);
}

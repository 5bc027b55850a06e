/* Tests for normalizeMcpId (waggle/catalog.h; vectors: original-facts 12.3). */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/catalog.h"
#include "waggle/error.h"

static const struct {
    const char *in, *out;
} vectors[] = {
    { "GitHub", "github" },
    { "github-mcp", "github" },
    { "mcp-server-github", "github" },
    { "@modelcontextprotocol/server-github", "github" },
    { "server-github", "github" },
    { "github-server", "github" },
    { "Slack MCP Server", "slack" },
    { "mcp-slack", "slack" },
    { "slack_mcp", "slack-mcp" },
    { "mcp_server_x", "mcp-server-x" },
    { "@scope/mcp-server-foo", "foo" },
    { "@scope/foo-mcp-server", "foo" },
    { "mcp", "" },
    { "MCP Server", "" },
    { "server-mcp-xyz", "xyz" },
    { "xyz-server-mcp", "xyz" },
    { "mcpserver-x", "x" },
    { "servermcp-x", "x" },
    { "Google Drive (MCP)", "google-drive" },
    { "a.b/c,d", "a-b-c-d" },
    { "  Spaces  Here ", "spaces-here" },
    { "My--Weird__Name", "my-weird-name" },
    { "Server", "server" },
    { "foo-server", "foo" },
    { "server-foo-server", "foo" },
    { "mcp-server-server-x", "server-x" },
    { "foo.mcp", "foo" },
    { "mcp.foo", "foo" },
    { "the mcpserver", "the" },
    { "\xC3\x9Cn\xC3\xAF" "code", "n-code" },
    { "uvx mcp-server-duckdb", "uvx-duckdb" },
    { "npx @upstash/context7-mcp", "npx-upstash-context7" },
    { "dall-e", "dall-e" },
    { "ai&ml", "ai-ml" },
    { "", "" },
    { "@scope/", "" },
    { "@/x", "x" },
};

Test(catalog_normalize, spec_12_3_vectors_match_the_original)
{
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        char out[128];
        int n = wg_catalog_normalize_id(out, sizeof out, vectors[i].in);
        cr_assert_geq(n, 0, "input '%s'", vectors[i].in);
        cr_assert_str_eq(out, vectors[i].out, "input '%s': got '%s', want '%s'",
                         vectors[i].in, out, vectors[i].out);
        cr_assert_eq((size_t)n, strlen(out));
    }
}

Test(catalog_normalize, output_never_longer_than_input)
{
    const char *in = "@@@ MCP---server___mcp...x";
    char out[64];
    cr_assert_geq(wg_catalog_normalize_id(out, strlen(in) + 1, in), 0);
    cr_assert_leq(strlen(out), strlen(in));
}

Test(catalog_normalize, small_buffer_or_null_is_einval)
{
    char out[4];
    cr_assert_eq(wg_catalog_normalize_id(out, sizeof out, "github"), WG_EINVAL);
    cr_assert_eq(wg_catalog_normalize_id(NULL, 10, "x"), WG_EINVAL);
    cr_assert_eq(wg_catalog_normalize_id(out, sizeof out, NULL), WG_EINVAL);
}

Test(catalog_normalize, catalog_ids_are_in_normal_form)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    for (size_t i = 0; i < wg_catalog_count(cat); i++) {
        const wg_catalog_server *s = wg_catalog_at(cat, i);
        char out[128];
        wg_catalog_normalize_id(out, sizeof out, s->id);
        cr_assert_str_eq(out, s->id);
        cr_assert_eq(wg_catalog_lookup(cat, s->id), s);
    }
    wg_catalog_free(cat);
}

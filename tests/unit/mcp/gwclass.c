/* gwclass.c - the gateway's classification table (src/mcp/gwclass.h):
 * annotations first, then write verbs over read verbs, unknown = write;
 * shell-like arguments found. */
#include <criterion/criterion.h>
#include <string.h>

#include "mcp/gwclass.h"

Test(gwclass, table)
{
    static const struct { const char *tool, *ann; wg_gw_class cls; const char *rule; } rows[] = {
        { "read_file",  NULL, WG_GW_READ,  "gateway.verb.read" },
        { "read_text_file", NULL, WG_GW_READ, "gateway.verb.read" },
        { "list_allowed_directories", NULL, WG_GW_READ, "gateway.verb.read" },
        { "search_nodes", NULL, WG_GW_READ, "gateway.verb.read" },
        { "getTinyImage", NULL, WG_GW_READ, "gateway.verb.read" },
        { "write_file", NULL, WG_GW_WRITE, "gateway.verb.write" },
        { "edit_file",  NULL, WG_GW_WRITE, "gateway.verb.write" },
        { "move_file",  NULL, WG_GW_WRITE, "gateway.verb.write" },
        { "create_entities", NULL, WG_GW_WRITE, "gateway.verb.write" },
        { "delete_relations", NULL, WG_GW_WRITE, "gateway.verb.write" },
        { "get_or_create", NULL, WG_GW_WRITE, "gateway.verb.write" },
        { "threads",   NULL, WG_GW_WRITE, "gateway.unknown" },
        { "frobnicate", NULL, WG_GW_WRITE, "gateway.unknown" },
        { "",          NULL, WG_GW_WRITE, "gateway.unknown" },
        { "write_file", "{\"readOnlyHint\":true}", WG_GW_READ, "gateway.annotation.read_only" },
        { "read_file", "{\"readOnlyHint\":true,\"destructiveHint\":true}", WG_GW_DESTRUCTIVE,
          "gateway.annotation.destructive" },
        { "read_file", "{\"destructiveHint\":true}", WG_GW_DESTRUCTIVE, "gateway.annotation.destructive" },
        { "read_file", "{\"readOnlyHint\":false}", WG_GW_READ, "gateway.verb.read" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        json_t *a = rows[i].ann ? json_loads(rows[i].ann, 0, NULL) : NULL;
        wg_gw_verdict v = wg_mcp__gw_classify(rows[i].tool, a);
        cr_expect_eq(v.cls, rows[i].cls, "%s", rows[i].tool);
        cr_expect_str_eq(v.rule, rows[i].rule, "%s", rows[i].tool);
        cr_expect_neq(v.reason[0], '\0', "%s", rows[i].tool);
        json_decref(a);
    }
    cr_expect_eq(wg_mcp__gw_classify(NULL, NULL).cls, WG_GW_WRITE);
}

Test(gwclass, shell_like_arguments)
{
    json_t *a = json_loads("{\"path\":\"/tmp\",\"command\":\"rm -rf ~\"}", 0, NULL);
    const char *key = NULL;
    cr_expect_str_eq(wg_mcp__gw_shell_arg(a, &key), "rm -rf ~");
    cr_expect_str_eq(key, "command");
    json_decref(a);
    a = json_loads("{\"path\":\"/tmp\",\"cmd\":3}", 0, NULL);
    cr_expect_null(wg_mcp__gw_shell_arg(a, NULL));
    json_decref(a);
    cr_expect_null(wg_mcp__gw_shell_arg(NULL, NULL));
}

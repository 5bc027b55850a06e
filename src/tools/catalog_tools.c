/* catalog_tools.c - agent tool definitions and execution for find_connector
 * and list_connector_categories (spec 4, original-facts 7.2). Thin: the
 * ranking and the JSON live in src/core/catalog_*.c. */
#include "waggle/catalog_tools.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

static const wg_catalogtool_def defs[] = {
    {
        "find_connector",
        "Search the catalog of MCP servers for an integration the user needs, described in "
        "plain words (e.g. \"users report crashes in the app\", \"bill my subscribers "
        "monthly\"). Returns the best matches with their install command, repository url and a "
        "match score; with no match, a hint listing the categories.",
        "{\"type\":\"object\",\"properties\":{"
        "\"query\":{\"type\":\"string\",\"description\":\"What the user wants to connect to or do.\"},"
        "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":30,\"default\":10,"
        "\"description\":\"Maximum number of matches (1-30).\"},"
        "\"category\":{\"type\":\"string\",\"enum\":[\"Database\",\"Files\",\"Web\",\"Code\","
        "\"Communication\",\"Productivity\",\"Analytics\",\"Cloud\",\"DevTools\",\"Business\","
        "\"AI & ML\",\"Security\",\"Media\",\"Utilities\"],"
        "\"description\":\"Only return servers of this category.\"}},"
        "\"required\":[\"query\"],\"additionalProperties\":false}",
        1,
    },
    {
        "list_connector_categories",
        "List every category of the MCP server catalog with the number of servers in it, plus "
        "totals. Use it before find_connector when the user's need is vague.",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
        1,
    },
};

const wg_catalogtool_def *wg_catalogtool_defs(size_t *count)
{
    if (count)
        *count = sizeof defs / sizeof defs[0];
    return defs;
}

int wg_catalogtool_execute(char **out, const wg_catalog *cat, const char *name, const json_t *args)
{
    if (!out || !cat || !name)
        return wg_error_set(WG_EINVAL, "catalog tool: NULL argument");
    json_t *result = NULL;
    int rc;
    if (strcmp(name, "find_connector") == 0)   /* written directly: no jansson objects */
        return wg_catalog_find_connector_text(out, NULL, cat, json_is_object(args) ? args : NULL);
    if (strcmp(name, "list_connector_categories") == 0)
        rc = wg_catalog_categories(&result, cat);
    else
        return wg_error_set(WG_ENOTFOUND, "unknown catalog tool \"%s\"", name);
    if (rc < 0)
        return rc;
    char *text = json_dumps(result, JSON_COMPACT);
    json_decref(result);
    if (!text)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = text;
    return 0;
}

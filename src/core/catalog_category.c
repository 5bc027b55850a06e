/* catalog_category.c - the spec's 14 MCP_CATEGORIES in order, with
 * CATEGORY_EMOJI (spec 12, original-facts 7.1). Cloud and Utilities keep the
 * original's emoji without a variation selector. */
#include "catalog_internal.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    const char *emoji;
} categories[WG_CATALOG_CATEGORY_COUNT] = {
    { "Database",      "\xF0\x9F\x92\xBE" },  /* U+1F4BE */
    { "Files",         "\xF0\x9F\x93\x81" },  /* U+1F4C1 */
    { "Web",           "\xF0\x9F\x8C\x90" },  /* U+1F310 */
    { "Code",          "\xF0\x9F\x92\xBB" },  /* U+1F4BB */
    { "Communication", "\xF0\x9F\x92\xAC" },  /* U+1F4AC */
    { "Productivity",  "\xF0\x9F\x93\x8B" },  /* U+1F4CB */
    { "Analytics",     "\xF0\x9F\x93\x8A" },  /* U+1F4CA */
    { "Cloud",         "\xE2\x98\x81" },      /* U+2601 */
    { "DevTools",      "\xF0\x9F\x94\xA7" },  /* U+1F527 */
    { "Business",      "\xF0\x9F\x92\xBC" },  /* U+1F4BC */
    { "AI & ML",       "\xF0\x9F\xA4\x96" },  /* U+1F916 */
    { "Security",      "\xF0\x9F\x94\x92" },  /* U+1F512 */
    { "Media",         "\xF0\x9F\x8E\xA8" },  /* U+1F3A8 */
    { "Utilities",     "\xE2\x9A\x99" },      /* U+2699 */
};

const char *wg_catalog_category_name(int i)
{
    if (i < 0 || i >= WG_CATALOG_CATEGORY_COUNT)
        return NULL;
    return categories[i].name;
}

int wg_catalog_category_index(const char *category)
{
    if (!category)
        return -1;
    for (int i = 0; i < WG_CATALOG_CATEGORY_COUNT; i++)
        if (strcasecmp(categories[i].name, category) == 0)
            return i;
    return -1;
}

const char *wg_catalog_category_emoji(const char *category)
{
    if (!category)
        return NULL;
    for (int i = 0; i < WG_CATALOG_CATEGORY_COUNT; i++)
        if (strcmp(categories[i].name, category) == 0)
            return categories[i].emoji;
    return NULL;
}

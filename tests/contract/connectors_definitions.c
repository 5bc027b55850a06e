/* connectors_definitions.c - GET /api/connectors against a real waggled:
 * every connector of issue 15 section 2 is listed with every
 * ConnectorDefinition field of spec 8.4 (config is nullable and never set,
 * as in the original), with the original's authType, category, action
 * names and risk levels (reference 1.3, 1.4). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "server_test.h"

static wgt_server s;

static void setup(void)
{
    static const char *const files[] = {
        "vault.key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", NULL };
    wgt_server_config cfg = { .files = files };
    wgt_server_start(&s, &cfg);
}

static void teardown(void) { wgt_server_stop(&s); }

TestSuite(connectors_definitions, .init = setup, .fini = teardown);

typedef struct {
    const char *id, *name, *service, *auth, *category;
    const char *actions;        /* "name:risk ..." in order */
} want;

static const want wants[] = {
    { "asana", "Asana", "asana.com", "bearer", "productivity",
      "list_tasks:low create_task:medium update_task:medium list_projects:low search_tasks:low" },
    { "trello", "Trello", "trello.com", "api_key", "productivity",
      "list_boards:low list_cards:low create_card:medium update_card:medium list_lists:low "
      "search_cards:low" },
    { "monday", "Monday.com", "monday.com", "bearer", "productivity",
      "list_boards:low list_items:low create_item:medium update_item:medium search_items:low" },
    { "confluence", "Confluence", "atlassian.net", "basic", "productivity",
      "search_content:low get_page:low list_spaces:low create_page:medium update_page:medium" },
    { "hubspot", "HubSpot", "hubspot.com", "bearer", "crm",
      "list_contacts:low get_contact:low create_contact:medium search_contacts:low list_deals:low "
      "create_deal:medium list_companies:low" },
    { "salesforce", "Salesforce", "salesforce.com", "bearer", "crm",
      "search:low list_contacts:low get_record:low create_record:medium update_record:medium "
      "list_opportunities:low" },
    { "pipedrive", "Pipedrive", "pipedrive.com", "api_key", "crm",
      "list_deals:low get_deal:low create_deal:medium search_deals:low list_persons:low "
      "create_person:medium list_activities:low" },
    { "airtable", "Airtable", "airtable.com", "bearer", "data",
      "list_bases:low list_records:low get_record:low create_record:medium update_record:medium "
      "search_records:low" },
    { "bitbucket", "Bitbucket", "bitbucket.org", "bearer", "development",
      "list_repos:low list_pull_requests:low get_file:low create_pull_request:medium list_issues:low" },
    { "dropbox", "Dropbox", "dropbox.com", "bearer", "storage",
      "list_folder:low get_file_metadata:low search_files:low download_file:low upload_file:medium" },
};

static json_t *find(json_t *list, const char *id)
{
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c)
        if (!strcmp(json_string_value(json_object_get(c, "id")), id))
            return c;
    return NULL;
}

static const char *str(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

Test(connectors_definitions, every_new_connector_has_every_definition_field)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/connectors", NULL);
    cr_assert_eq(r.status, 200);
    json_t *list = json_object_get(r.json, "connectors");
    cr_assert_geq(json_array_size(list), 29, "%zu connectors", json_array_size(list));
    for (size_t w = 0; w < sizeof wants / sizeof *wants; w++) {
        const want *x = &wants[w];
        json_t *c = find(list, x->id);
        cr_assert_not_null(c, "%s is not listed", x->id);
        cr_expect_str_eq(str(c, "name"), x->name);
        cr_expect_str_eq(str(c, "service"), x->service);
        cr_expect_str_eq(str(c, "authType"), x->auth, "%s", x->id);
        cr_expect_str_eq(str(c, "category"), x->category, "%s", x->id);
        cr_expect_str_eq(str(c, "status"), "disconnected");
        cr_expect_str_eq(str(c, "substrate"), "waggle");
        cr_expect_gt(strlen(str(c, "description")), 10, "%s", x->id);
        cr_expect_gt(strlen(str(c, "setupGuide")), 30, "%s", x->id);
        char logo[160];
        snprintf(logo, sizeof logo, "https://cdn.jsdelivr.net/npm/simple-icons@v11/icons/");
        cr_expect(strncmp(str(c, "logoUrl"), logo, strlen(logo)) == 0, "%s: %s", x->id,
                  str(c, "logoUrl"));
        cr_expect(json_is_array(json_object_get(c, "capabilities")) &&
                  json_array_size(json_object_get(c, "capabilities")) > 0, "%s", x->id);
        json_t *actions = json_object_get(c, "actions"), *tools = json_object_get(c, "tools");
        cr_expect_eq(json_array_size(actions), json_array_size(tools), "%s", x->id);
        /* the original's action names and risks, in order */
        char got[1024] = "";
        size_t i;
        json_t *a;
        json_array_foreach(actions, i, a) {
            char tool[160];
            snprintf(tool, sizeof tool, "connector_%s_%s", x->id, str(a, "name"));
            cr_expect_str_eq(json_string_value(json_array_get(tools, i)), tool);
            cr_expect_gt(strlen(str(a, "description")), 5);
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s:%s", i ? " " : "",
                     str(a, "name"), str(a, "riskLevel"));
        }
        cr_expect_str_eq(got, x->actions, "%s", x->id);
    }
    wgt_http_res_free(&r);
}

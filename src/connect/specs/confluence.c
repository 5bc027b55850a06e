/* confluence.c - Confluence Cloud (reference 1.3 row 12, 1.4) on the REST
 * API v2 (developer.atlassian.com/cloud/confluence/rest/v2) of the site in
 * connector:confluence:base_url (https://<site>.atlassian.net; the app may
 * give it on connect, within the upstream policy: Confluence is
 * self-hostable), Basic email:token. CQL search is a v1 API
 * (/wiki/rest/api/search): the original called a v2 path that does not
 * exist. search_content takes a CQL query, or plain text (and a space key,
 * a content type) that becomes CQL with every literal quoted and escaped. */
#include "specs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CQL_TEXT_MAX = 1024 };

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "search_content", "Search pages and other content with CQL, or by plain text",
      JSON({"properties":{"cql":{"type":"string","description":"a CQL query, e.g. type = page AND title ~ \"roadmap\""},
            "text":{"type":"string","description":"plain text instead of cql (quoted for you)"},
            "space":{"type":"string","description":"with text: a space key"},
            "type":{"type":"string","description":"with text: page, blogpost, comment, attachment"},
            "limit":{"type":"integer","description":"default 25"},"start":{"type":"integer"}}}),
      WG_RISK_LOW },
    { "get_page", "Get a page with its body",
      JSON({"properties":{"page_id":{"type":"string"},
            "body_format":{"type":"string","description":"storage (default), atlas_doc_format, view"}},
            "required":["page_id"]}), WG_RISK_LOW },
    { "list_spaces", "List spaces",
      JSON({"properties":{"limit":{"type":"integer","description":"per page, default 25"},
            "type":{"type":"string","description":"global, personal"},
            "keys":{"type":"string","description":"comma-separated space keys"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "create_page", "Create a page in a space",
      JSON({"properties":{"spaceId":{"type":"string"},"title":{"type":"string"},
            "body":{"type":"string","description":"storage format (XHTML)"},
            "parentId":{"type":"string"}},"required":["spaceId","title","body"]}), WG_RISK_MEDIUM },
    { "update_page", "Replace a page's title and body (version_number = current + 1)",
      JSON({"properties":{"page_id":{"type":"string"},"title":{"type":"string"},
            "body":{"type":"string","description":"storage format (XHTML)"},
            "version_number":{"type":"integer"},"version_message":{"type":"string"}},
            "required":["page_id","title","body","version_number"]}), WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "search_content", .method = WG_REST_GET, .path = "/search", .base = "v1",
      .query = "cql limit=25 start", .prepare = prepare_search },
    { .name = "get_page", .method = WG_REST_GET, .path = "/pages/{page_id}",
      .query = "body-format:body_format=storage" },
    { .name = "list_spaces", .method = WG_REST_GET, .path = "/spaces",
      .query = "limit=25 type keys",
      .page = { WG_REST_PAGE_LINK, "results", "_links/next", NULL, NULL, NULL } },
    { .name = "create_page", .method = WG_REST_POST, .path = "/pages",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"spaceId":"$spaceId","status":"current","title":"$title",
                             "parentId":"$parentId",
                             "body":{"representation":"storage","value":"$body"}}) },
    { .name = "update_page", .method = WG_REST_PUT, .path = "/pages/{page_id}",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"id":"$page_id","status":"current","title":"$title",
                             "body":{"representation":"storage","value":"$body"},
                             "version":{"number":"$version_number",
                                        "message":"$version_message=\"Updated via Waggle\""}}) },
};

/* A CQL clause `field op "value"` with \ and " escaped (CQL string
 * literals), appended to *cql (grown). */
static int cql_clause(char **cql, const char *field, const char *op, const char *value)
{
    char *lit = NULL;
    int rc = wg_rest_quote(&lit, value, CQL_TEXT_MAX, '"', "\"\\", '\\');
    if (rc < 0) {
        char why[160];
        snprintf(why, sizeof why, "%s", wg_error_last());
        return wg_error_set(WG_EINVAL, "%s: %s", field, why);
    }
    char *next = NULL;
    rc = asprintf(&next, "%s%s%s %s %s", *cql ? *cql : "", *cql ? " AND " : "", field, op, lit);
    free(lit);
    if (rc < 0)
        return wg_error_set(WG_ENOMEM, "out of memory");
    free(*cql);
    *cql = next;
    return 0;
}

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *cql_in = json_string_value(json_object_get(params, "cql"));
    const char *fields[][3] = { { "text", "text", "~" }, { "space", "space", "=" },
                                { "type", "type", "=" } };
    int structured = 0;
    for (size_t i = 0; i < COUNT(fields); i++)
        structured |= json_object_get(params, fields[i][0]) != NULL;
    if (cql_in && structured)
        return wg_error_set(WG_EINVAL, "give either cql or text/space/type, not both");
    if (!cql_in && !json_string_value(json_object_get(params, "text")))
        return wg_error_set(WG_EINVAL, "Missing required parameter: cql or text");
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (structured) {
        char *cql = NULL;
        for (size_t i = 0; i < COUNT(fields); i++) {
            const json_t *v = json_object_get(params, fields[i][0]);
            if (!v)
                continue;
            int rc = json_is_string(v) ? cql_clause(&cql, fields[i][1], fields[i][2],
                                                    json_string_value(v))
                                       : wg_error_set(WG_EINVAL, "%s must be a string",
                                                      fields[i][0]);
            if (rc < 0) {
                free(cql);
                json_decref(p);
                return rc;
            }
            json_object_del(p, fields[i][0]);
        }
        json_object_set_new(p, "cql", json_string(cql));
        free(cql);
    } else if (strlen(cql_in) > 4 * CQL_TEXT_MAX) {
        json_decref(p);
        return wg_error_set(WG_EINVAL, "cql longer than %d bytes", 4 * CQL_TEXT_MAX);
    }
    *out = p;
    return 0;
}

static const wg_rest_base bases[] = {
    { "v1", "/wiki/rest/api" },   /* under the stored site URL */
    { NULL, NULL },
};

static const wg_rest_spec rest = {
    .default_base = NULL,                /* the site is the person's */
    .base_suffix = "/wiki/api/v2",
    .bases = bases,
    .auth = WG_REST_AUTH_BASIC_EMAIL,
    .error_prefix = "Confluence API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/spaces?limit=1",
};

const wg_connector_spec wg_spec_confluence = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "confluence",
    .name = "Confluence",
    .description = "Search, read and write Confluence pages and spaces",
    .service = "atlassian.net",
    .auth_type = WG_AUTH_BASIC,
    .category = "productivity",
    .logo_slug = "confluence",
    .setup_guide = "Create an API token at id.atlassian.com/manage-profile/security/api-tokens, "
                   "then connect it with --email you@example.com --base-url "
                   "https://<site>.atlassian.net.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .self_hostable = 1,
};

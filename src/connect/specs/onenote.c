/* onenote.c - OneNote on Microsoft Graph v1.0. The original registered no
 * OneNote connector (reference 0.1), so the actions come from the Graph
 * OneNote reference (learn.microsoft.com/graph/api/resources/onenote-api-overview):
 * notebooks, sections and pages listed and created, pages searched by
 * title and read as HTML. A new page's HTML is built here from plain text
 * (title and paragraphs escaped), so text cannot become markup; names are
 * checked against the characters OneNote refuses; the title search is an
 * OData literal ('' doubling). Signs in through the shared Microsoft
 * connection. */
#include "specs.h"
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NOTEBOOK_NAME_MAX = 128,    /* Graph "Create notebook": displayName */
    SECTION_NAME_MAX = 50,      /* Graph "Create section": displayName */
    PAGE_TITLE_MAX = 1024,
};

static int list_sections(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int list_pages(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_name(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_page(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_notebooks", "List your OneNote notebooks",
      JSON({"properties":{"maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "create_notebook", "Create a notebook",
      JSON({"properties":{"displayName":{"type":"string"}},"required":["displayName"]}),
      WG_RISK_MEDIUM },
    { "list_sections", "List the sections of a notebook (default: of all notebooks)",
      JSON({"properties":{"notebook_id":{"type":"string"},"maxPages":{"type":"integer"}}}),
      WG_RISK_LOW },
    { "create_section", "Create a section in a notebook",
      JSON({"properties":{"notebook_id":{"type":"string"},"displayName":{"type":"string"}},
            "required":["notebook_id","displayName"]}), WG_RISK_MEDIUM },
    { "list_pages", "List the pages of a section (default: recent pages of all sections)",
      JSON({"properties":{"section_id":{"type":"string"},
            "top":{"type":"integer","description":"per page, at most 100"},
            "maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "search_pages", "Find pages whose title contains a text",
      JSON({"properties":{"query":{"type":"string"},"top":{"type":"integer"},
            "maxPages":{"type":"integer"}},"required":["query"]}), WG_RISK_LOW },
    { "get_page_content", "Get a page's content (HTML)",
      JSON({"properties":{"page_id":{"type":"string"}},"required":["page_id"]}), WG_RISK_LOW },
    { "create_page", "Create a page in a section from a title and plain text",
      JSON({"properties":{"section_id":{"type":"string"},"title":{"type":"string"},
            "content":{"type":"string","description":"plain text; lines become paragraphs"}},
            "required":["section_id","title"]}), WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_notebooks", .method = WG_REST_GET, .path = "/me/onenote/notebooks",
      .page = WG_GRAPH_PAGES },
    { .name = "create_notebook", .method = WG_REST_POST, .path = "/me/onenote/notebooks",
      .prepare = prepare_name, .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"displayName":"$displayName"}) },
    { .name = "list_sections", .method = WG_REST_GET, .path = "/me/onenote/sections",
      .custom = list_sections, .page = WG_GRAPH_PAGES },
    { .name = "create_section", .method = WG_REST_POST,
      .path = "/me/onenote/notebooks/{notebook_id}/sections", .prepare = prepare_name,
      .body = WG_REST_BODY_TEMPLATE, .body_template = JSON({"displayName":"$displayName"}) },
    { .name = "list_pages", .method = WG_REST_GET, .path = "/me/onenote/pages",
      .query = "$top:top", .custom = list_pages, .page = WG_GRAPH_PAGES },
    { .name = "search_pages", .method = WG_REST_GET, .path = "/me/onenote/pages",
      .query = "$filter:filter $top:top", .prepare = prepare_search, .page = WG_GRAPH_PAGES },
    { .name = "get_page_content", .method = WG_REST_GET, .path = "/me/onenote/pages/{page_id}/content",
      .response = WG_REST_RESP_CONTENT, .result_template = JSON({"page_id":"$page_id"}) },
    { .name = "create_page", .method = WG_REST_POST, .path = "/me/onenote/sections/{section_id}/pages",
      .prepare = prepare_page, .body = WG_REST_BODY_RAW, .body_template = "html",
      .content_type = "text/html" },
};

static int list_sections(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    if (!json_is_string(json_object_get(params, "notebook_id")))
        return wg_rest_run(out, ctx, params);
    return wg_rest_run_path(out, ctx, params, "/me/onenote/notebooks/{notebook_id}/sections");
}

static int list_pages(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    if (!json_is_string(json_object_get(params, "section_id")))
        return wg_rest_run(out, ctx, params);
    return wg_rest_run_path(out, ctx, params, "/me/onenote/sections/{section_id}/pages");
}

/* Graph refuses these in notebook and section names: ? * \ / : < > | & # ' " % ~ */
static int prepare_name(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *name = json_string_value(json_object_get(params, "displayName"));
    size_t max = strcmp(ctx->action->name, "create_section") == 0 ? SECTION_NAME_MAX
                                                                   : NOTEBOOK_NAME_MAX;
    size_t n = name ? strlen(name) : 0;
    if (!n || n > max)
        return wg_error_set(WG_EINVAL, "displayName must be 1..%zu bytes", max);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20 || strchr("?*\\/:<>|&#'\"%~", name[i]))
            return wg_error_set(WG_EINVAL, "displayName may not contain control characters or "
                                "any of ? * \\ / : < > | & # ' \" %% ~");
    *out = json_deep_copy(params);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int prepare_search(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *q = json_string_value(json_object_get(params, "query"));
    /* tolower(title) is compared with the lowered text (ASCII letters) */
    char *low = strdup(q ? q : ""), *lit = NULL, *filter = NULL;
    for (char *c = low; c && *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    int rc = low ? wg_graph__odata_literal(&lit, low) : wg_error_set(WG_ENOMEM, "out of memory");
    free(low);
    if (rc < 0)
        return rc;
    if (asprintf(&filter, "contains(tolower(title),%s)", lit) < 0)
        filter = NULL;
    free(lit);
    json_t *p = filter ? json_pack("{s:s,s:O?}", "filter", filter, "top",
                                   json_object_get(params, "top")) : NULL;
    free(filter);
    *out = p;
    return p ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* Appends text with & < > " ' as character references. */
static void escape_html(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(s[i], f);
        }
    }
}

/* Graph "Create OneNote pages": the page is an HTML document whose <title>
 * is the page title; each line of the text becomes a <p>. */
static int prepare_page(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    const char *title = json_string_value(json_object_get(params, "title"));
    const json_t *cj = json_object_get(params, "content");
    const char *content = json_string_value(cj);
    size_t tl = title ? strlen(title) : 0, cl = json_string_length(cj);
    if (tl > PAGE_TITLE_MAX)
        return wg_error_set(WG_EINVAL, "title longer than %d bytes", PAGE_TITLE_MAX);
    for (size_t i = 0; i < tl; i++)
        if ((unsigned char)title[i] < 0x20)
            return wg_error_set(WG_EINVAL, "title may not contain control characters");
    if (cl > WG_GRAPH_BODY_MAX)
        return wg_error_set(WG_EINVAL, "content longer than %d bytes", WG_GRAPH_BODY_MAX);
    char *html = NULL;
    size_t hl = 0;
    FILE *f = open_memstream(&html, &hl);
    if (!f)
        return wg_error_set(WG_ENOMEM, "out of memory");
    fputs("<!DOCTYPE html>\n<html>\n<head>\n<title>", f);
    escape_html(f, title, tl);
    fputs("</title>\n</head>\n<body>\n", f);
    for (size_t i = 0; content && i < cl;) {
        size_t n = strcspn(content + i, "\n");
        size_t line = n && content[i + n - 1] == '\r' ? n - 1 : n;
        fputs("<p>", f);
        escape_html(f, content + i, line);
        fputs("</p>\n", f);
        i += n + 1;
    }
    fputs("</body>\n</html>\n", f);
    fclose(f);
    json_t *p = json_deep_copy(params);
    json_object_set_new(p, "html", json_stringn(html, hl));
    free(html);
    *out = p;
    return p ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static const wg_rest_spec rest = {
    .default_base = WG_GRAPH_BASE,
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Microsoft Graph API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/me/onenote/notebooks?$top=1",
};

const wg_connector_spec wg_spec_onenote = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "onenote",
    .name = "OneNote",
    .description = "OneNote notebooks, sections and pages through Microsoft Graph",
    .service = "onenote.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "productivity",
    .logo_slug = "microsoftonenote",
    .setup_guide = WG_GRAPH_SETUP_GUIDE,
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "microsoft",
    .connection = "microsoft",
    .oauth_scopes = "User.Read Notes.ReadWrite",
};

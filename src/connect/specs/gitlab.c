/* gitlab.c - the GitLab connector as data (reference 1.3 row 18, 1.4).
 * PRIVATE-TOKEN header; gitlab.com or a self-hosted base URL from
 * connector:gitlab:base_url. project_id ("group/project" or a number) and
 * file_path are each one fully encoded segment, as GitLab expects. */
#include "specs.h"

static int search_code(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_projects", "List projects you are a member of",
      JSON({"properties":{"search":{"type":"string"},"per_page":{"type":"integer"},
            "page":{"type":"integer"}}}), WG_RISK_LOW },
    { "list_issues", "List issues of a project",
      JSON({"properties":{"project_id":{"type":"string","description":"id or group/project"},
            "state":{"type":"string"},"labels":{"type":"string"},"per_page":{"type":"integer"}},
            "required":["project_id"]}), WG_RISK_LOW },
    { "create_issue", "Create an issue in a project",
      JSON({"properties":{"project_id":{"type":"string"},"title":{"type":"string"},
            "description":{"type":"string"},"labels":{"type":"string","description":"comma-separated"}},
            "required":["project_id","title"]}), WG_RISK_MEDIUM },
    { "list_merge_requests", "List merge requests of a project",
      JSON({"properties":{"project_id":{"type":"string"},"state":{"type":"string"},
            "per_page":{"type":"integer"}},"required":["project_id"]}), WG_RISK_LOW },
    { "get_file", "Get a file from a project's repository",
      JSON({"properties":{"project_id":{"type":"string"},"file_path":{"type":"string"},
            "ref":{"type":"string","description":"branch, tag or commit (default main)"}},
            "required":["project_id","file_path"]}), WG_RISK_LOW },
    { "search_code", "Search code in all projects or in one project",
      JSON({"properties":{"search":{"type":"string"},"project_id":{"type":"string"},
            "per_page":{"type":"integer"}},"required":["search"]}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_projects", .method = WG_REST_GET, .path = "/projects",
      .query = "membership=true search per_page page" },
    { .name = "list_issues", .method = WG_REST_GET, .path = "/projects/{project_id}/issues",
      .query = "state labels per_page" },
    { .name = "create_issue", .method = WG_REST_POST, .path = "/projects/{project_id}/issues",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"title":"$title","description":"$description","labels":"$labels"}) },
    { .name = "list_merge_requests", .method = WG_REST_GET,
      .path = "/projects/{project_id}/merge_requests", .query = "state per_page" },
    { .name = "get_file", .method = WG_REST_GET,
      .path = "/projects/{project_id}/repository/files/{file_path}", .query = "ref=main" },
    { .name = "search_code", .custom = search_code },
};

/* Global search, or the project's search when project_id is given. */
static int search_code(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *path = json_object_get(params, "project_id") ? "/projects/{project_id}/search"
                                                              : "/search";
    wg_rest_response r = { 0 };
    int rc = wg_rest_call(&r, ctx, WG_REST_GET, path, params, "scope=blobs search per_page", NULL, 0);
    if (rc < 0) {
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    rc = wg_rest_result(out, ctx, &r, WG_REST_RESP_JSON);
    wg_rest_response_clear(&r);
    return rc;
}

static const wg_rest_spec rest = {
    .default_base = "https://gitlab.com/api/v4",
    .auth = WG_REST_AUTH_HEADER,
    .auth_name = "PRIVATE-TOKEN",
    .error_prefix = "GitLab API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/user",
};

const wg_connector_spec wg_spec_gitlab = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "gitlab",
    .name = "GitLab",
    .description = "Projects, issues, merge requests and code search on GitLab",
    .service = "gitlab.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "development",
    .logo_slug = "gitlab",
    .setup_guide = "Create a personal access token with the read_api (and api for issues) "
                   "scope under GitLab > Preferences > Access Tokens.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .self_hostable = 1,   /* Enterprise / self-managed / Data Center sites */
};

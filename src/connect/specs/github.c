/* github.c - the GitHub connector as data (reference 1.3 row 1, 1.4).
 * REST v3 at api.github.com or a GitHub Enterprise base URL from
 * connector:github:base_url. owner, repo and every file path segment are
 * encoded one by one, so "../../user" cannot reach another endpoint
 * (reference 13 item 11). */
#include "specs.h"

static const wg_connector_action actions[] = {
    { "list_repos", "List repositories of the authenticated user",
      JSON({"properties":{"type":{"type":"string","description":"all, owner, member"},
            "sort":{"type":"string","description":"created, updated, pushed, full_name"},
            "per_page":{"type":"integer"},"page":{"type":"integer"}}}), WG_RISK_LOW },
    { "search_code", "Search code across GitHub",
      JSON({"properties":{"q":{"type":"string","description":"GitHub code search query"},
            "per_page":{"type":"integer"},"page":{"type":"integer"}},"required":["q"]}), WG_RISK_LOW },
    { "list_issues", "List issues of a repository",
      JSON({"properties":{"owner":{"type":"string"},"repo":{"type":"string"},
            "state":{"type":"string","description":"open, closed, all"},"labels":{"type":"string"},
            "per_page":{"type":"integer"},"page":{"type":"integer"}},"required":["owner","repo"]}), WG_RISK_LOW },
    { "get_file", "Get a file's contents from a repository",
      JSON({"properties":{"owner":{"type":"string"},"repo":{"type":"string"},
            "path":{"type":"string","description":"file path inside the repository"},
            "ref":{"type":"string","description":"branch, tag or commit"}},
            "required":["owner","repo","path"]}), WG_RISK_LOW },
    { "create_issue", "Create an issue in a repository",
      JSON({"properties":{"owner":{"type":"string"},"repo":{"type":"string"},
            "title":{"type":"string"},"body":{"type":"string"},
            "labels":{"type":"array","items":{"type":"string"}}},
            "required":["owner","repo","title"]}), WG_RISK_MEDIUM },
    { "list_prs", "List pull requests of a repository",
      JSON({"properties":{"owner":{"type":"string"},"repo":{"type":"string"},
            "state":{"type":"string"},"per_page":{"type":"integer"},"page":{"type":"integer"}},
            "required":["owner","repo"]}), WG_RISK_LOW },
    { "create_pr", "Open a pull request",
      JSON({"properties":{"owner":{"type":"string"},"repo":{"type":"string"},
            "title":{"type":"string"},"body":{"type":"string"},
            "head":{"type":"string","description":"branch with the changes"},
            "base":{"type":"string","description":"target branch (default main)"}},
            "required":["owner","repo","title","head"]}), WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_repos", .method = WG_REST_GET, .path = "/user/repos",
      .query = "type sort per_page page" },
    { .name = "search_code", .method = WG_REST_GET, .path = "/search/code",
      .query = "q per_page page" },
    { .name = "list_issues", .method = WG_REST_GET, .path = "/repos/{owner}/{repo}/issues",
      .query = "state labels per_page page" },
    { .name = "get_file", .method = WG_REST_GET, .path = "/repos/{owner}/{repo}/contents/{+path}",
      .query = "ref" },
    { .name = "create_issue", .method = WG_REST_POST, .path = "/repos/{owner}/{repo}/issues",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"title":"$title","body":"$body","labels":"$labels"}) },
    { .name = "list_prs", .method = WG_REST_GET, .path = "/repos/{owner}/{repo}/pulls",
      .query = "state per_page page" },
    { .name = "create_pr", .method = WG_REST_POST, .path = "/repos/{owner}/{repo}/pulls",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"title":"$title","body":"$body","head":"$head","base":"$base=\"main\""}) },
};

static const char *const headers[] = {
    "Accept: application/vnd.github+json",
    "X-GitHub-Api-Version: 2022-11-28",
    NULL,
};

static const wg_rest_spec rest = {
    .default_base = "https://api.github.com",
    .auth = WG_REST_AUTH_BEARER,
    .headers = headers,
    .error_prefix = "GitHub API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/user",
};

const wg_connector_spec wg_spec_github = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "github",
    .name = "GitHub",
    .description = "Repositories, issues, pull requests and code search on GitHub",
    .service = "github.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "development",
    .logo_slug = "github",
    .setup_guide = "Create a fine-grained personal access token at github.com/settings/tokens "
                   "with repository read (and issues/pull requests write) access.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .self_hostable = 1,   /* Enterprise / self-managed / Data Center sites */
};

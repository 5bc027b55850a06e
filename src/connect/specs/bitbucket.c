/* bitbucket.c - Bitbucket Cloud (reference 1.3 row 19, 1.4) on the REST
 * API 2.0 (developer.atlassian.com/cloud/bitbucket/rest). Lists page by
 * the `next` link, followed only under api.bitbucket.org/2.0. Without a
 * workspace, list_repos asks for the repositories the user is a member of
 * (GET /repositories?role=member) instead of the original's guess that the
 * username is a workspace. The issue filter is BBQL built from a state
 * with the value quoted and escaped. */
#include "specs.h"

#include <stdio.h>
#include <stdlib.h>

static int list_repos(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_issues(json_t **out, const wg_rest_ctx *ctx, const json_t *params);
static int prepare_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

#define BB_PAGES { WG_REST_PAGE_LINK, "values", "next", NULL, NULL, NULL }
#define REPO_PROPS                                                                            \
    "\"workspace\":{\"type\":\"string\",\"description\":\"workspace slug or UUID\"},"         \
    "\"repo_slug\":{\"type\":\"string\"}"

static const wg_connector_action actions[] = {
    { "list_repos", "List repositories of a workspace (default: every one you are a member of)",
      JSON({"properties":{"workspace":{"type":"string"},"pagelen":{"type":"integer",
            "description":"per page, up to 100"},"maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "list_pull_requests", "List pull requests of a repository",
      "{\"properties\":{" REPO_PROPS ",\"state\":{\"type\":\"string\",\"description\":\"OPEN, "
      "MERGED, DECLINED, SUPERSEDED\"},\"pagelen\":{\"type\":\"integer\"},\"maxPages\":"
      "{\"type\":\"integer\"}},\"required\":[\"workspace\",\"repo_slug\"]}", WG_RISK_LOW },
    { "get_file", "Get a file's contents at a commit or branch",
      "{\"properties\":{" REPO_PROPS ",\"path\":{\"type\":\"string\"},\"commit\":{\"type\":"
      "\"string\",\"description\":\"commit hash or branch (default main)\"}},"
      "\"required\":[\"workspace\",\"repo_slug\",\"path\"]}", WG_RISK_LOW },
    { "create_pull_request", "Open a pull request",
      "{\"properties\":{" REPO_PROPS ",\"title\":{\"type\":\"string\"},\"description\":"
      "{\"type\":\"string\"},\"source_branch\":{\"type\":\"string\"},\"destination_branch\":"
      "{\"type\":\"string\",\"description\":\"default main\"},\"close_source_branch\":"
      "{\"type\":\"boolean\"}},\"required\":[\"workspace\",\"repo_slug\",\"title\","
      "\"source_branch\"]}", WG_RISK_MEDIUM },
    { "list_issues", "List issues of a repository (its issue tracker)",
      "{\"properties\":{" REPO_PROPS ",\"state\":{\"type\":\"string\",\"description\":\"new, "
      "open, resolved, on hold, invalid, duplicate, wontfix, closed\"},\"pagelen\":{\"type\":"
      "\"integer\"},\"maxPages\":{\"type\":\"integer\"}},\"required\":[\"workspace\","
      "\"repo_slug\"]}", WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_repos", .method = WG_REST_GET, .path = "/repositories/{workspace}",
      .query = "pagelen", .custom = list_repos, .page = BB_PAGES },
    { .name = "list_pull_requests", .method = WG_REST_GET,
      .path = "/repositories/{workspace}/{repo_slug}/pullrequests", .query = "state pagelen",
      .page = BB_PAGES },
    { .name = "get_file", .method = WG_REST_GET,
      .path = "/repositories/{workspace}/{repo_slug}/src/{commit}/{+path}",
      .prepare = prepare_file, .response = WG_REST_RESP_CONTENT,
      .result_template = JSON({"path":"$path","commit":"$commit"}),
      .timeout_s = 30 },
    { .name = "create_pull_request", .method = WG_REST_POST,
      .path = "/repositories/{workspace}/{repo_slug}/pullrequests",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"title":"$title","description":"$description=\"\"",
                             "source":{"branch":{"name":"$source_branch"}},
                             "destination":{"branch":{"name":"$destination_branch=\"main\""}},
                             "close_source_branch":"$close_source_branch"}) },
    { .name = "list_issues", .method = WG_REST_GET,
      .path = "/repositories/{workspace}/{repo_slug}/issues", .query = "q pagelen",
      .prepare = prepare_issues, .page = BB_PAGES },
};

static int list_repos(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    if (json_object_get(params, "workspace"))
        return wg_rest_run(out, ctx, params);
    wg_rest_action alt = *ctx->action;
    alt.custom = NULL;
    alt.path = "/repositories";
    alt.query = "role=member pagelen";
    wg_rest_ctx c2 = { ctx->call, ctx->rest, &alt };
    return wg_rest_run(out, &c2, params);
}

/* commit defaults to main, as in the original. */
static int prepare_file(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (!json_object_get(p, "commit"))
        json_object_set_new(p, "commit", json_string("main"));
    *out = p;
    return 0;
}

/* state -> q=state="..." (BBQL string literal: \ and " escaped). */
static int prepare_issues(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    (void)ctx;
    json_t *p = json_deep_copy(params);
    if (!p)
        return wg_error_set(WG_ENOMEM, "out of memory");
    const char *state = json_string_value(json_object_get(params, "state"));
    if (state) {
        char *lit = NULL, *q = NULL;
        int rc = wg_rest_quote(&lit, state, 64, '"', "\"\\", '\\');
        if (rc < 0) {
            json_decref(p);
            return rc;
        }
        rc = asprintf(&q, "state=%s", lit);
        free(lit);
        if (rc < 0) {
            json_decref(p);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
        json_object_set_new(p, "q", json_string(q));
        free(q);
        json_object_del(p, "state");
    }
    *out = p;
    return 0;
}

static const wg_rest_spec rest = {
    .default_base = "https://api.bitbucket.org/2.0",
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Bitbucket API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/user",
};

const wg_connector_spec wg_spec_bitbucket = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "bitbucket",
    .name = "Bitbucket",
    .description = "Repositories, pull requests, files and issues on Bitbucket Cloud",
    .service = "bitbucket.org",
    .auth_type = WG_AUTH_BEARER,
    .category = "development",
    .logo_slug = "bitbucket",
    .setup_guide = "Create a repository, project or workspace access token in Bitbucket "
                   "(repository read, pull request write) and connect it, or sign in with "
                   "OAuth: waggle connectors oauth bitbucket --client-id KEY.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "bitbucket",
    .oauth_scopes = "repository pullrequest:write issue account",
};

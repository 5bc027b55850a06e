/* linear.c - the Linear connector as data (reference 1.3 row 7, 1.4).
 * Every action is one constant GraphQL document; every value travels in
 * "variables", never inside the document (reference 13 item 11). */
#include "specs.h"

static const wg_connector_action actions[] = {
    { "list_issues", "List issues, optionally of one team and state",
      JSON({"properties":{"teamId":{"type":"string"},"state":{"type":"string","description":"state name"},
            "first":{"type":"integer"}}}), WG_RISK_LOW },
    { "create_issue", "Create an issue",
      JSON({"properties":{"title":{"type":"string"},"teamId":{"type":"string"},
            "description":{"type":"string"},"priority":{"type":"integer"},
            "assigneeId":{"type":"string"},"stateId":{"type":"string"},
            "labelIds":{"type":"array","items":{"type":"string"}}},
            "required":["title","teamId"]}), WG_RISK_MEDIUM },
    { "update_issue", "Update an issue",
      JSON({"properties":{"issueId":{"type":"string"},"title":{"type":"string"},
            "description":{"type":"string"},"priority":{"type":"integer"},
            "assigneeId":{"type":"string"},"stateId":{"type":"string"}},
            "required":["issueId"]}), WG_RISK_MEDIUM },
    { "search_issues", "Search issues by text",
      JSON({"properties":{"query":{"type":"string"},"first":{"type":"integer"}},
            "required":["query"]}), WG_RISK_LOW },
    { "list_projects", "List projects",
      JSON({"properties":{"first":{"type":"integer"}}}), WG_RISK_LOW },
    { "list_teams", "List teams",
      JSON({"properties":{"first":{"type":"integer"}}}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_issues", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "query ListIssues($filter: IssueFilter, $first: Int) { issues(filter: $filter, "
                       "first: $first) { nodes { id identifier title state { name } priority "
                       "assignee { name } createdAt } } }",
      .vars_template = JSON({"filter":{"team":{"$if":"teamId","id":{"eq":"$teamId"}},
                                       "state":{"$if":"state","name":{"eq":"$state"}}},
                             "first":"$first=50"}),
      .response = WG_REST_RESP_GRAPHQL },
    { .name = "create_issue", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "mutation IssueCreate($input: IssueCreateInput!) { issueCreate(input: $input) "
                       "{ success issue { id identifier title url } } }",
      .vars_template = JSON({"input":{"title":"$title","teamId":"$teamId","description":"$description",
                             "priority":"$priority","assigneeId":"$assigneeId","stateId":"$stateId",
                             "labelIds":"$labelIds"}}),
      .response = WG_REST_RESP_GRAPHQL },
    { .name = "update_issue", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "mutation IssueUpdate($id: String!, $input: IssueUpdateInput!) { "
                       "issueUpdate(id: $id, input: $input) { success issue { id identifier title "
                       "state { name } } } }",
      .vars_template = JSON({"id":"$issueId","input":{"title":"$title","description":"$description",
                             "priority":"$priority","assigneeId":"$assigneeId","stateId":"$stateId"}}),
      .response = WG_REST_RESP_GRAPHQL },
    { .name = "search_issues", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "query SearchIssues($term: String!, $first: Int) { searchIssues(term: $term, "
                       "first: $first) { nodes { id identifier title state { name } } } }",
      .vars_template = JSON({"term":"$query","first":"$first=25"}),
      .response = WG_REST_RESP_GRAPHQL },
    { .name = "list_projects", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "query ListProjects($first: Int) { projects(first: $first) { nodes { id name "
                       "state } } }",
      .vars_template = JSON({"first":"$first=50"}), .response = WG_REST_RESP_GRAPHQL },
    { .name = "list_teams", .method = WG_REST_POST, .path = "", .body = WG_REST_BODY_GRAPHQL,
      .body_template = "query ListTeams($first: Int) { teams(first: $first) { nodes { id name key } } }",
      .vars_template = JSON({"first":"$first=50"}), .response = WG_REST_RESP_GRAPHQL },
};

static const wg_rest_spec rest = {
    .default_base = "https://api.linear.app/graphql",
    .auth = WG_REST_AUTH_RAW,
    .error_prefix = "Linear API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_POST,
    .health_path = "",
    .health_body = JSON({"query":"{ viewer { id name } }"}),
    .health_response = WG_REST_RESP_GRAPHQL,
};

const wg_connector_spec wg_spec_linear = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "linear",
    .name = "Linear",
    .description = "Issues, projects and teams in Linear",
    .service = "linear.app",
    .auth_type = WG_AUTH_BEARER,
    .category = "development",
    .logo_slug = "linear",
    .setup_guide = "Create a personal API key under Linear > Settings > Security & access.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
};

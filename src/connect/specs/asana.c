/* asana.c - Asana (reference 1.3 row 8, 1.4) on the Asana REST API 1.0
 * (developers.asana.com/reference). Every read and write body is wrapped in
 * {"data": ...}; list responses page with next_page.offset, followed up to
 * maxPages. The original dropped `workspace` from list_projects (a bug:
 * GET /projects then fails or lists another workspace); it is sent here. */
#include "specs.h"

#define TASK_FIELDS "name,completed,due_on,assignee.name,projects.name"
#define PROJECT_FIELDS "name,archived,color,created_at,modified_at"
#define ASANA_PAGES { WG_REST_PAGE_TOKEN, "data", "next_page/offset", "offset", NULL, NULL }

static const wg_connector_action actions[] = {
    { "list_tasks", "List tasks of a project, or of an assignee in a workspace",
      JSON({"properties":{"project":{"type":"string","description":"project gid"},
            "assignee":{"type":"string","description":"user gid or \"me\" (with workspace)"},
            "workspace":{"type":"string","description":"workspace gid (with assignee)"},
            "completed_since":{"type":"string","description":"ISO 8601 time or \"now\" (only incomplete tasks)"},
            "limit":{"type":"integer","description":"per page, 1-100 (default 50)"},
            "offset":{"type":"string"},"maxPages":{"type":"integer"}}}), WG_RISK_LOW },
    { "create_task", "Create a task",
      JSON({"properties":{"name":{"type":"string"},"notes":{"type":"string"},
            "projects":{"type":"array","items":{"type":"string"},"description":"project gids"},
            "assignee":{"type":"string","description":"user gid or \"me\""},
            "due_on":{"type":"string","description":"YYYY-MM-DD"},
            "workspace":{"type":"string","description":"workspace gid (when no project is given)"},
            "tags":{"type":"array","items":{"type":"string"}}},"required":["name"]}),
      WG_RISK_MEDIUM },
    { "update_task", "Change fields of a task",
      JSON({"properties":{"taskId":{"type":"string","description":"task gid"},
            "name":{"type":"string"},"notes":{"type":"string"},"assignee":{"type":"string"},
            "due_on":{"type":"string"},"completed":{"type":"boolean"}},"required":["taskId"]}),
      WG_RISK_MEDIUM },
    { "list_projects", "List projects of a workspace",
      JSON({"properties":{"workspace":{"type":"string","description":"workspace gid"},
            "archived":{"type":"boolean"},"limit":{"type":"integer"},
            "offset":{"type":"string"},"maxPages":{"type":"integer"}},"required":["workspace"]}),
      WG_RISK_LOW },
    { "search_tasks", "Search tasks of a workspace by text (paid workspaces)",
      JSON({"properties":{"workspace":{"type":"string","description":"workspace gid"},
            "text":{"type":"string"},"completed":{"type":"boolean"},
            "assignee":{"type":"string","description":"comma-separated user gids or \"me\""},
            "limit":{"type":"integer","description":"1-100 (default 25)"}},
            "required":["workspace","text"]}), WG_RISK_LOW },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_tasks", .method = WG_REST_GET, .path = "/tasks",
      .query = "project assignee workspace completed_since limit=50 offset "
               "opt_fields=" TASK_FIELDS, .page = ASANA_PAGES },
    { .name = "create_task", .method = WG_REST_POST, .path = "/tasks",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"data":{"name":"$name","notes":"$notes","projects":"$projects",
                                     "assignee":"$assignee","due_on":"$due_on",
                                     "workspace":"$workspace","tags":"$tags"}}) },
    { .name = "update_task", .method = WG_REST_PUT, .path = "/tasks/{taskId}",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"data":{"name":"$name","notes":"$notes","assignee":"$assignee",
                                     "due_on":"$due_on","completed":"$completed"}}) },
    { .name = "list_projects", .method = WG_REST_GET, .path = "/projects",
      .query = "workspace archived limit=50 offset opt_fields=" PROJECT_FIELDS,
      .page = ASANA_PAGES },
    { .name = "search_tasks", .method = WG_REST_GET, .path = "/workspaces/{workspace}/tasks/search",
      .query = "text completed assignee.any:assignee limit=25 opt_fields=" TASK_FIELDS },
};

static const wg_rest_spec rest = {
    .default_base = "https://app.asana.com/api/1.0",
    .override_origin = 1,
    .auth = WG_REST_AUTH_BEARER,
    .error_prefix = "Asana API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/users/me",
};

const wg_connector_spec wg_spec_asana = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "asana",
    .name = "Asana",
    .description = "Tasks and projects in Asana workspaces",
    .service = "asana.com",
    .auth_type = WG_AUTH_BEARER,
    .category = "productivity",
    .logo_slug = "asana",
    .setup_guide = "Create a personal access token in Asana (My settings > Apps > Developer apps), "
                   "or sign in with OAuth: waggle connectors oauth asana --client-id ID.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .oauth_provider = "asana",
};

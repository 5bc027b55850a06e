/* jira.c - the Jira Cloud connector as data (reference 1.3 row 3, 1.4).
 * Basic auth with email:token against <connector:jira:base_url>/rest/api/3;
 * there is no default site. issueKey is an encoded path segment. */
#include "specs.h"

#include <string.h>
#include <strings.h>

static int transition_issue(json_t **out, const wg_rest_ctx *ctx, const json_t *params);

static const wg_connector_action actions[] = {
    { "list_issues", "List recent issues (JQL optional)",
      JSON({"properties":{"jql":{"type":"string"},"maxResults":{"type":"integer"}}}), WG_RISK_LOW },
    { "search", "Search issues with JQL",
      JSON({"properties":{"jql":{"type":"string"},"maxResults":{"type":"integer"}},
            "required":["jql"]}), WG_RISK_LOW },
    { "create_issue", "Create an issue",
      JSON({"properties":{"project":{"type":"string","description":"project key"},
            "summary":{"type":"string"},"issuetype":{"type":"string","description":"Task, Bug, Story"},
            "description":{"type":"string"},"priority":{"type":"string"},
            "labels":{"type":"array","items":{"type":"string"}}},
            "required":["project","summary","issuetype"]}), WG_RISK_MEDIUM },
    { "update_issue", "Update fields of an issue",
      JSON({"properties":{"issueKey":{"type":"string"},"fields":{"type":"object"}},
            "required":["issueKey"]}), WG_RISK_MEDIUM },
    { "transition_issue", "Move an issue to another status by transition name",
      JSON({"properties":{"issueKey":{"type":"string"},"transitionName":{"type":"string"}},
            "required":["issueKey","transitionName"]}), WG_RISK_MEDIUM },
};

static const wg_rest_action rest_actions[] = {
    { .name = "list_issues", .method = WG_REST_POST, .path = "/search",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"jql":"$jql=\"order by created DESC\"","maxResults":"$maxResults=50",
                             "fields":["summary","status","priority","assignee","created"]}) },
    { .name = "search", .method = WG_REST_POST, .path = "/search",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"jql":"$jql","maxResults":"$maxResults=50",
                             "fields":["summary","status","priority","assignee","created"]}) },
    { .name = "create_issue", .method = WG_REST_POST, .path = "/issue",
      .body = WG_REST_BODY_TEMPLATE,
      .body_template = JSON({"fields":{"project":{"key":"$project"},"summary":"$summary",
          "issuetype":{"name":"$issuetype"},
          "description":{"$if":"description","type":"doc","version":1,"content":[{"type":"paragraph",
              "content":[{"type":"text","text":"$description"}]}]},
          "priority":{"$if":"priority","name":"$priority"},"labels":"$labels"}}) },
    { .name = "update_issue", .method = WG_REST_PUT, .path = "/issue/{issueKey}",
      .body = WG_REST_BODY_TEMPLATE, .body_template = JSON({"fields":"$fields={}"}),
      .result_template = JSON({"key":"$issueKey","updated":true}) },
    { .name = "transition_issue", .custom = transition_issue },
};

/* Two calls: list the issue's transitions, then apply the one whose name
 * matches (case-insensitively). */
static int transition_issue(json_t **out, const wg_rest_ctx *ctx, const json_t *params)
{
    const char *want = json_string_value(json_object_get(params, "transitionName"));
    wg_rest_response r = { 0 };
    int rc = wg_rest_call(&r, ctx, WG_REST_GET, "/issue/{issueKey}/transitions", params, NULL,
                          NULL, 0);
    if (rc < 0) {
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    if (r.status < 200 || r.status > 299) {
        rc = wg_rest_result(out, ctx, &r, WG_REST_RESP_JSON);
        wg_rest_response_clear(&r);
        return rc;
    }
    const char *id = NULL, *name = NULL;
    char avail[512] = "";
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(r.json, "transitions"), i, t) {
        const char *n = json_string_value(json_object_get(t, "name"));
        if (!n)
            continue;
        if (!id && strcasecmp(n, want) == 0) {
            id = json_string_value(json_object_get(t, "id"));
            name = n;
        }
        size_t used = strlen(avail);
        snprintf(avail + used, sizeof avail - used, "%s%s", used ? ", " : "", n);
    }
    if (!id) {
        *out = wg_connector_fail("Transition \"%s\" not available. Available: %s", want, avail);
        wg_rest_response_clear(&r);
        return *out ? 0 : WG_ENOMEM;
    }
    json_t *body = json_pack("{s:{s:s}}", "transition", "id", id);
    json_t *done = json_pack("{s:O,s:s}", "key", json_object_get(params, "issueKey"),
                             "transitioned", name);
    wg_rest_response_clear(&r);
    rc = wg_rest_call(&r, ctx, WG_REST_POST, "/issue/{issueKey}/transitions", params, NULL, body, 0);
    json_decref(body);
    if (rc < 0) {
        json_decref(done);
        *out = wg_rest_call_failure(ctx, rc);
        return *out ? 0 : WG_ENOMEM;
    }
    rc = wg_rest_result(out, ctx, &r, WG_REST_RESP_JSON);
    if (rc == 0 && json_is_true(json_object_get(*out, "success")))
        json_object_set(*out, "data", done);
    json_decref(done);
    wg_rest_response_clear(&r);
    return rc;
}

static const char *const headers[] = { "Accept: application/json", NULL };

static const wg_rest_spec rest = {
    .default_base = NULL,
    .base_suffix = "/rest/api/3",
    .auth = WG_REST_AUTH_BASIC_EMAIL,
    .headers = headers,
    .error_prefix = "Jira API",
    .actions = rest_actions,
    .n_actions = COUNT(rest_actions),
    .health_method = WG_REST_GET,
    .health_path = "/myself",
};

const wg_connector_spec wg_spec_jira = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "jira",
    .name = "Jira",
    .description = "Search, create, update and transition Jira issues",
    .service = "atlassian.net",
    .auth_type = WG_AUTH_BEARER,
    .category = "development",
    .logo_slug = "jira",
    .setup_guide = "Create an API token at id.atlassian.com/manage-profile/security/api-tokens; "
                   "connect with your Atlassian email and your site URL "
                   "(https://<site>.atlassian.net).",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &wg_rest_ops,
    .impl = &rest,
    .self_hostable = 1,   /* Enterprise / self-managed / Data Center sites */
};

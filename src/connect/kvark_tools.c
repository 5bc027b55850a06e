/* kvark_tools.c - the four KVARK agent tools (spec 9; reference 2.4):
 * their definitions, argument checks, the reference's answer texts,
 * parseSearchResults, and the friendly degradation of each error kind.
 *
 * The texts are the original's, with two corrections (reference 13 item
 * 20): an ok:true answer whose status is "denied" says the action was
 * denied, not executed; and a kvark_action that ran without a person's
 * approval (auto-approved at YOLO) says so, because it was sent with
 * governance.userApproved:false. Arguments come from an LLM: each is
 * type-checked and bounded before anything is sent.
 */
#include "waggle/error.h"
#include "waggle/kvark.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON(...) #__VA_ARGS__

static const wg_kvark_tool_def defs[] = {
    { "kvark_search",
      "Search the organisation's enterprise documents in KVARK. Answers ranked documents with "
      "their score, a [KVARK: <type>: <title>] attribution and the document id.",
      JSON({"type":"object","properties":{
            "query":{"type":"string","description":"what to look for"},
            "limit":{"type":"integer","minimum":1,"maximum":100,"default":10},
            "offset":{"type":"integer","minimum":0}},"required":["query"]}) },
    { "kvark_feedback",
      "Tell KVARK whether a search result was useful, so its ranking improves.",
      JSON({"type":"object","properties":{
            "document_id":{"type":"integer","description":"the ID of a kvark_search result"},
            "query":{"type":"string","description":"the query that found it"},
            "useful":{"type":"boolean"},
            "reason":{"type":"string"}},"required":["document_id","query","useful"]}) },
    { "kvark_action",
      "Run a governed write through KVARK (a Jira comment, a Slack post, ...). KVARK's "
      "governance decides; it answers executed, denied or queued with an audit reference. "
      "Requires user approval.",
      JSON({"type":"object","properties":{
            "action_type":{"type":"string","description":"e.g. jira.comment"},
            "entity_type":{"type":"string"},
            "entity_id":{"type":"string"},
            "payload":{"type":"object"},
            "reason":{"type":"string","description":"why the action is needed"}},
            "required":["action_type","entity_type","entity_id","payload","reason"]}) },
    { "kvark_ask_document",
      "Ask a question about one enterprise document; answers with source references.",
      JSON({"type":"object","properties":{
            "document_id":{"type":"string"},
            "question":{"type":"string"}},"required":["document_id","question"]}) },
};

const wg_kvark_tool_def *wg_kvark_tool_defs(size_t *n)
{
    if (n)
        *n = sizeof defs / sizeof *defs;
    return defs;
}

int wg_kvark_is_tool(const char *name)
{
    for (size_t i = 0; name && i < sizeof defs / sizeof *defs; i++)
        if (strcmp(defs[i].name, name) == 0)
            return 1;
    return 0;
}

/* ---- friendly degradations (reference 2.4 handleKvarkError) ---------------- */

static const struct {
    wg_kvark_error_kind kind;
    const char *op;              /* NULL: any op */
    const char *text;
} friendly[] = {
    { WG_KVARK_ERR_UNAVAILABLE, NULL, "KVARK is not reachable. Using workspace memory only. "
                                      "Configure KVARK connection in Settings." },
    { WG_KVARK_ERR_AUTH, NULL, "KVARK authentication failed. Check KVARK credentials in "
                               "Settings." },
    { WG_KVARK_ERR_NOT_IMPLEMENTED, "ask", "Document Q&A is not yet available on this KVARK "
                                           "instance. Use kvark_search to find relevant "
                                           "documents instead." },
    { WG_KVARK_ERR_NOT_IMPLEMENTED, "feedback", "Feedback is not yet available on this KVARK "
                                                "instance. This is non-blocking — continue "
                                                "normally." },
    { WG_KVARK_ERR_NOT_IMPLEMENTED, "action", "Governed actions are not yet available on this "
                                              "KVARK instance. The action was not executed." },
    { WG_KVARK_ERR_NOT_IMPLEMENTED, NULL, "This KVARK feature is not yet available." },
    { WG_KVARK_ERR_NOT_FOUND, "ask", "Document not found. The document may have been removed "
                                     "or the ID may be incorrect." },
    { WG_KVARK_ERR_NOT_FOUND, NULL, "The requested resource was not found in KVARK." },
};

int wg_kvark_friendly(char **out, const wg_kvark_error *err, const char *op)
{
    if (!out || !err)
        return wg_error_set(WG_EINVAL, "wg_kvark_friendly: NULL argument");
    const char *text = NULL;
    for (size_t i = 0; !text && i < sizeof friendly / sizeof *friendly; i++)
        if (friendly[i].kind == err->kind && (!friendly[i].op || (op && !strcmp(op, friendly[i].op))))
            text = friendly[i].text;
    int rc;
    if (text)
        rc = (*out = strdup(text)) ? 0 : -1;
    else if (err->kind == WG_KVARK_ERR_SERVER)
        rc = asprintf(out, "KVARK server error: %s. Try again in a moment.", err->message);
    else
        rc = asprintf(out, "KVARK encountered an unexpected error. Try again or use workspace "
                           "memory.");
    return rc < 0 ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

/* ---- parseSearchResults --------------------------------------------------------- */

int wg_kvark_parse_search_results(json_t **out, const json_t *response)
{
    const json_t *results = json_object_get(response, "results");
    if (!out || !json_is_array(results))
        return wg_error_set(WG_EINVAL, "a KVARK search response has a results array");
    json_t *list = json_array();
    size_t i;
    const json_t *r;
    json_array_foreach(results, i, r) {
        const json_t *id = json_object_get(r, "document_id");
        if (!json_is_object(r) || !json_is_integer(id))
            continue;
        const char *title = json_string_value(json_object_get(r, "title"));
        const char *type = json_string_value(json_object_get(r, "document_type"));
        const char *snippet = json_string_value(json_object_get(r, "snippet"));
        const json_t *score = json_object_get(r, "score");
        char *attr = NULL;
        int n = type ? asprintf(&attr, "[KVARK: %s: %s]", type, title ? title : "")
                     : asprintf(&attr, "[KVARK: %s]", title ? title : "");
        json_t *item = n < 0 ? NULL
                     : json_pack("{s:s,s:O,s:s,s:f,s:s?,s:s}", "content", snippet ? snippet : "",
                                 "documentId", id, "title", title ? title : "", "score",
                                 json_is_number(score) ? json_number_value(score) : 0.0,
                                 "documentType", type, "attribution", attr);
        if (item && !type)
            json_object_set_new(item, "documentType", json_null());
        free(n < 0 ? NULL : attr);
        if (!item || json_array_append_new(list, item)) {
            json_decref(list);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    *out = list;
    return 0;
}

/* ---- arguments ------------------------------------------------------------------ */

typedef struct argerr {
    char text[256];
} argerr;

/* A string argument: present when required, at most max bytes, no control
 * characters except newlines and tabs where free text is allowed. */
static int str_arg(const char **out, argerr *ae, const json_t *args, const char *name,
                   int required, size_t max, int free_text)
{
    const json_t *v = json_object_get(args, name);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (!required)
            return 0;
        snprintf(ae->text, sizeof ae->text, "Invalid value for %s: required", name);
        return -1;
    }
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > max) {
        snprintf(ae->text, sizeof ae->text, "Invalid value for %s: a string of 1-%zu bytes",
                 name, max);
        return -1;
    }
    const char *s = json_string_value(v);
    for (size_t i = 0; i < json_string_length(v); i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && !(free_text && (c == '\n' || c == '\t'))) || c == 0x7f || c == 0) {
            snprintf(ae->text, sizeof ae->text, "Invalid value for %s: control characters are "
                     "not allowed", name);
            return -1;
        }
    }
    *out = s;
    return 0;
}

static int int_arg(long long *out, argerr *ae, const json_t *args, const char *name,
                   int required, long long min, long long max, long long def)
{
    const json_t *v = json_object_get(args, name);
    *out = def;
    if (!v || json_is_null(v)) {
        if (!required)
            return 0;
        snprintf(ae->text, sizeof ae->text, "Invalid value for %s: required", name);
        return -1;
    }
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        snprintf(ae->text, sizeof ae->text, "Invalid value for %s: a whole number from %lld "
                 "to %lld", name, min, max);
        return -1;
    }
    *out = json_integer_value(v);
    return 0;
}

/* ---- answers ------------------------------------------------------------------------ */

static json_t *ok_text(char *text, json_t *extra)
{
    json_t *data = extra ? extra : json_object();
    if (!text || !data || json_object_set_new(data, "text", json_string(text))) {
        free(text);
        json_decref(data);
        return NULL;
    }
    free(text);
    return json_pack("{s:b,s:o}", "success", 1, "data", data);
}

static json_t *kvark_failure(const wg_kvark_error *err, const char *op)
{
    char *text = NULL;
    if (wg_kvark_friendly(&text, err, op) < 0)
        return NULL;
    json_t *r = json_pack("{s:b,s:s,s:s}", "success", 0, "error", text, "errorKind",
                          wg_kvark_error_name(err->kind));
    free(text);
    if (r && err->status)
        json_object_set_new(r, "status", json_integer(err->status));
    if (r && err->retry_after_s >= 0)
        json_object_set_new(r, "retryAfter", json_integer(err->retry_after_s));
    return r;
}

/* Appends s to a growing text; returns -1 on ENOMEM (text then freed). */
static int cat(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cat(char **text, const char *fmt, ...)
{
    va_list ap;
    char *part = NULL, *joined = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&part, fmt, ap);
    va_end(ap);
    if (n < 0 || asprintf(&joined, "%s%s", *text ? *text : "", part) < 0) {
        free(n < 0 ? NULL : part);
        free(*text);
        *text = NULL;
        return -1;
    }
    free(part);
    free(*text);
    *text = joined;
    return 0;
}

/* The first max code points of s (UTF-8), or s whole; *cut says which. */
static size_t prefix_chars(const char *s, size_t max, int *cut)
{
    size_t chars = 0, i = 0, at = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) == 0x80)
            continue;
        if (chars == max)
            at = i;
        chars++;
    }
    *cut = chars > WG_KVARK_SNIPPET_MAX;
    return *cut ? at : i;
}

static json_t *search_answer(const char *query, const json_t *resp)
{
    json_t *structured = NULL;
    if (wg_kvark_parse_search_results(&structured, resp) < 0)
        return json_pack("{s:b,s:s,s:s}", "success", 0, "error",
                         "KVARK server error: the search answer had no results. Try again in a "
                         "moment.", "errorKind", "KvarkServerError");
    const json_t *results = json_object_get(resp, "results");
    const json_t *total = json_object_get(resp, "total");
    json_int_t n_total = json_is_integer(total) ? json_integer_value(total)
                                                : (json_int_t)json_array_size(structured);
    char *text = NULL;
    int rc = 0;
    if (json_array_size(structured) == 0) {
        rc = cat(&text, "KVARK Search: \"%s\" — no results found.", query);
    } else {
        rc = cat(&text, "KVARK Search: \"%s\" (%zu of %lld results)\n", query,
                 json_array_size(structured), (long long)n_total);
        size_t i, shown = 0;
        const json_t *r;
        json_array_foreach(results, i, r) {
            const json_t *id = json_object_get(r, "document_id");
            if (rc < 0 || !json_is_object(r) || !json_is_integer(id))
                continue;
            const char *type = json_string_value(json_object_get(r, "document_type"));
            const char *title = json_string_value(json_object_get(r, "title"));
            const char *snip = json_string_value(json_object_get(r, "snippet"));
            const json_t *score = json_object_get(r, "score");
            int cut = 0;
            size_t keep = prefix_chars(snip ? snip : "", WG_KVARK_SNIPPET_MAX - 3, &cut);
            rc = cat(&text, "%s%zu. [%s] %s (score: %.2f)\n   \"%.*s%s\"\n   ID: %lld",
                     shown ? "\n\n" : "", shown + 1, type ? type : "document", title ? title : "",
                     json_is_number(score) ? json_number_value(score) : 0.0,
                     (int)(cut ? keep : strlen(snip ? snip : "")), snip ? snip : "",
                     cut ? "..." : "", (long long)json_integer_value(id));
            shown++;
        }
    }
    json_t *data = rc < 0 ? NULL : json_pack("{s:s,s:I,s:o}", "query", query, "total",
                                             n_total, "results", structured);
    if (!data) {
        if (rc < 0)
            json_decref(structured);
        free(text);
        return NULL;
    }
    return ok_text(text, data);
}

/* ---- the tools ------------------------------------------------------------------------ */

typedef json_t *(*tool_fn)(const wg_kvark_tool_env *env, const json_t *args, argerr *ae);

static json_t *arg_failure(const argerr *ae)
{
    return json_pack("{s:b,s:s}", "success", 0, "error", ae->text);
}

/* A client call that failed: a KVARK error kind becomes its friendly text;
 * anything else (a refused input, a stored token with a line break) its
 * message; out of memory NULL. */
static json_t *client_failure(int rc, const wg_kvark_error *err, const char *op)
{
    if (err->kind)
        return kvark_failure(err, op);
    if (rc == WG_ENOMEM)
        return NULL;
    return json_pack("{s:b,s:s}", "success", 0, "error", wg_error_last());
}

static json_t *t_search(const wg_kvark_tool_env *env, const json_t *args, argerr *ae)
{
    const char *q;
    long long limit, offset;
    if (str_arg(&q, ae, args, "query", 1, WG_KVARK_QUERY_MAX, 1) < 0 ||
        int_arg(&limit, ae, args, "limit", 0, 1, WG_KVARK_LIMIT_MAX, WG_KVARK_LIMIT_DEFAULT) < 0 ||
        int_arg(&offset, ae, args, "offset", 0, 0, 1000000, 0) < 0)
        return arg_failure(ae);
    json_t *resp = NULL;
    wg_kvark_error err = { 0 };
    int rc = wg_kvark_search(&resp, &err, env->client, env->config, q, (int)limit, (int)offset);
    if (rc < 0)
        return client_failure(rc, &err, "search");
    json_t *r = search_answer(q, resp);
    json_decref(resp);
    return r;
}

static json_t *t_feedback(const wg_kvark_tool_env *env, const json_t *args, argerr *ae)
{
    long long id;
    const char *q, *reason;
    const json_t *useful = json_object_get(args, "useful");
    if (int_arg(&id, ae, args, "document_id", 1, 0, 9007199254740991LL, 0) < 0 ||
        str_arg(&q, ae, args, "query", 1, WG_KVARK_QUERY_MAX, 1) < 0 ||
        str_arg(&reason, ae, args, "reason", 0, WG_KVARK_QUERY_MAX, 1) < 0)
        return arg_failure(ae);
    if (!json_is_boolean(useful)) {
        snprintf(ae->text, sizeof ae->text, "Invalid value for useful: true or false");
        return arg_failure(ae);
    }
    json_t *resp = NULL;
    wg_kvark_error err = { 0 };
    int rc = wg_kvark_feedback(&resp, &err, env->client, env->config, id, q, json_is_true(useful),
                               reason);
    if (rc < 0)
        return client_failure(rc, &err, "feedback");
    const json_t *data = json_object_get(resp, "data");
    int stored = json_is_true(json_object_get(resp, "ok")) &&
                 !json_is_false(json_object_get(data, "stored"));
    char *text = NULL;
    rc = stored ? asprintf(&text, "Feedback recorded: %s for document #%lld.",
                           json_is_true(useful) ? "useful" : "not useful", id)
                : asprintf(&text, "Feedback was sent but KVARK did not confirm storage.");
    json_t *extra = json_pack("{s:b}", "stored", stored);
    const json_t *fid = json_object_get(data, "feedbackId");
    if (extra && fid)
        json_object_set(extra, "feedbackId", (json_t *)fid);
    json_decref(resp);
    if (rc < 0) {
        json_decref(extra);
        return NULL;
    }
    return ok_text(text, extra);
}

static json_t *action_answer(const json_t *resp, const char *type, const char *etype,
                             const char *eid, int approved)
{
    const json_t *data = json_object_get(resp, "data");
    const char *status = json_string_value(json_object_get(data, "status"));
    const char *aid = json_string_value(json_object_get(data, "actionId"));
    const char *audit = json_string_value(json_object_get(data, "auditRef"));
    char *text = NULL;
    int rc;
    if (!json_is_true(json_object_get(resp, "ok")) || (status && !strcmp(status, "denied"))) {
        const char *why = json_string_value(json_object_get(json_object_get(resp, "error"),
                                                             "message"));
        rc = cat(&text, "Action denied: %s",
                 why ? why : "Action was denied by KVARK governance policy.");
        status = "denied";
    } else {
        rc = cat(&text, "Action executed: %s on %s/%s", type, etype, eid);
    }
    if (rc == 0 && aid)
        rc = cat(&text, "\nAction ID: %s", aid);
    if (rc == 0 && audit)
        rc = cat(&text, "\nAudit reference: %s", audit);
    if (rc == 0 && status && !strcmp(status, "queued"))
        rc = cat(&text, "\nStatus: queued for execution");
    if (rc == 0 && !approved)
        rc = cat(&text, "\nSent without a person's approval (governance.userApproved false).");
    json_t *extra = rc < 0 ? NULL : json_pack("{s:s*,s:s*,s:s*,s:b}", "status", status,
                                              "actionId", aid, "auditRef", audit,
                                              "userApproved", approved);
    if (!extra) {
        free(text);
        return NULL;
    }
    return ok_text(text, extra);
}

static json_t *t_action(const wg_kvark_tool_env *env, const json_t *args, argerr *ae)
{
    const char *type, *etype, *eid, *reason;
    const json_t *payload = json_object_get(args, "payload");
    if (str_arg(&type, ae, args, "action_type", 1, WG_KVARK_ID_MAX, 0) < 0 ||
        str_arg(&etype, ae, args, "entity_type", 1, WG_KVARK_ID_MAX, 0) < 0 ||
        str_arg(&eid, ae, args, "entity_id", 1, WG_KVARK_ID_MAX, 0) < 0 ||
        str_arg(&reason, ae, args, "reason", 1, WG_KVARK_QUERY_MAX, 1) < 0)
        return arg_failure(ae);
    if (payload && !json_is_null(payload)) {
        char *dump = json_is_object(payload) ? json_dumps(payload, JSON_COMPACT) : NULL;
        size_t n = dump ? strlen(dump) : 0;
        free(dump);
        if (!json_is_object(payload) || n > WG_KVARK_PAYLOAD_MAX) {
            snprintf(ae->text, sizeof ae->text, "Invalid value for payload: an object of at most "
                     "%d bytes of JSON", WG_KVARK_PAYLOAD_MAX);
            return arg_failure(ae);
        }
    } else {
        payload = NULL;
    }
    wg_kvark_action_req a = { type, etype, eid, reason, payload, env->workspace_id,
                              env->approval_id != NULL, env->approval_id };
    json_t *resp = NULL;
    wg_kvark_error err = { 0 };
    int rc = wg_kvark_action(&resp, &err, env->client, env->config, &a);
    if (rc < 0)
        return client_failure(rc, &err, "action");
    json_t *r = action_answer(resp, type, etype, eid, a.user_approved);
    json_decref(resp);
    return r;
}

static json_t *t_ask(const wg_kvark_tool_env *env, const json_t *args, argerr *ae)
{
    const char *id, *question;
    if (str_arg(&id, ae, args, "document_id", 1, WG_KVARK_ID_MAX, 0) < 0 ||
        str_arg(&question, ae, args, "question", 1, WG_KVARK_QUERY_MAX, 1) < 0)
        return arg_failure(ae);
    json_t *resp = NULL;
    wg_kvark_error err = { 0 };
    int rc = wg_kvark_ask(&resp, &err, env->client, env->config, id, question);
    if (rc < 0)
        return client_failure(rc, &err, "ask");
    const char *answer = json_string_value(json_object_get(resp, "answer"));
    const json_t *sources = json_object_get(resp, "sources");
    char *text = NULL;
    rc = cat(&text, "KVARK Document Answer (doc #%s):\n\n%s", id, answer ? answer : "");
    size_t i, shown = 0;
    const json_t *s;
    json_array_foreach(sources, i, s) {
        if (rc == 0 && json_is_string(s))
            rc = cat(&text, "%s%s", shown++ ? ", " : "\n\nSources: ", json_string_value(s));
    }
    json_t *extra = rc < 0 ? NULL : json_pack("{s:s,s:s}", "documentId", id, "answer",
                                              answer ? answer : "");
    if (extra && json_is_array(sources))
        json_object_set(extra, "sources", (json_t *)sources);
    json_decref(resp);
    if (!extra) {
        free(text);
        return NULL;
    }
    return ok_text(text, extra);
}

static const struct {
    const char *name;
    tool_fn fn;
} tools[] = {
    { "kvark_search", t_search },
    { "kvark_feedback", t_feedback },
    { "kvark_action", t_action },
    { "kvark_ask_document", t_ask },
};

int wg_kvark_tool_execute(json_t **out, const wg_kvark_tool_env *env, const char *tool,
                          const json_t *args)
{
    if (!out || !env || !env->client || !env->config || !tool)
        return wg_error_set(WG_EINVAL, "wg_kvark_tool_execute: NULL argument");
    json_t *empty = json_is_object(args) ? NULL : json_object();
    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++) {
        if (strcmp(tools[i].name, tool) != 0)
            continue;
        argerr ae = { "" };
        json_t *r = tools[i].fn(env, empty ? empty : args, &ae);
        json_decref(empty);
        if (!r)
            return wg_error_set(WG_ENOMEM, "out of memory");
        *out = r;
        return 0;
    }
    json_decref(empty);
    return wg_error_set(WG_ENOTFOUND, "%s is not a KVARK tool", tool);
}

/* openapi_check.c - responses against data/openapi.json (openapi_check.h). */
#include "openapi_check.h"
#include "jsonschema.h"

#include <ctype.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static json_t *doc;
static pthread_once_t doc_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/openapi.json", WG_SOURCE_DIR);
    doc = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

/* How well a request path matches a template: -1 no match, else the number
 * of literal segments (more = more specific). Both start with '/'. */
static int match_score(const char *tpl, const char *path, size_t plen)
{
    int score = 0;
    const char *p = path, *end = path + plen;
    while (*tpl && p < end) {
        if (*tpl != '/' || *p != '/')
            return -1;
        tpl++;
        p++;
        const char *ts = tpl, *ps = p;
        while (*tpl && *tpl != '/')
            tpl++;
        while (p < end && *p != '/')
            p++;
        size_t tl = (size_t)(tpl - ts), pl = (size_t)(p - ps);
        if (tl > 2 && ts[0] == '{' && ts[tl - 1] == '}') {
            if (pl == 0)
                return -1;
        } else if (tl != pl || memcmp(ts, ps, tl) != 0) {
            return -1;
        } else {
            score++;
        }
    }
    return *tpl || p < end ? -1 : score;
}

static const json_t *find_item(const char *path, size_t plen, const char **tpl_out)
{
    const char *tpl, *best_tpl = NULL;
    const json_t *item, *best = NULL;
    int best_score = -1;
    json_object_foreach(json_object_get(doc, "paths"), tpl, item) {
        int s = match_score(tpl, path, plen);
        if (s > best_score) {
            best_score = s;
            best = item;
            best_tpl = tpl;
        }
    }
    *tpl_out = best_tpl;
    return best;
}

static const json_t *deref(const json_t *v)
{
    for (int i = 0; i < 8 && json_is_string(json_object_get(v, "$ref")); i++)
        v = wgt_schema_pointer(doc, json_string_value(json_object_get(v, "$ref")));
    return v;
}

/* The response object an operation declares for status, or NULL. */
static const json_t *declared_response(const json_t *op, long status)
{
    const json_t *responses = json_object_get(op, "responses");
    char key[24];
    snprintf(key, sizeof key, "%ld", status);
    const json_t *r = json_object_get(responses, key);
    if (!r) {
        snprintf(key, sizeof key, "%ldXX", status / 100);
        r = json_object_get(responses, key);
    }
    if (!r)
        r = json_object_get(responses, "default");
    return r ? deref(r) : NULL;
}

static const char *const VERBS[] = { "get", "put", "post", "delete", "options", "head", "patch" };

/* For a method the path does not have: the first operation that declares
 * status (so that 405 or 401 on a wrong method is still documented). */
static const json_t *any_declaring(const json_t *item, long status, const json_t **resp)
{
    for (size_t i = 0; i < sizeof VERBS / sizeof *VERBS; i++) {
        const json_t *op = json_object_get(item, VERBS[i]);
        char key[24];
        snprintf(key, sizeof key, "%ld", status);
        if (op && json_object_get(json_object_get(op, "responses"), key)) {
            *resp = deref(json_object_get(json_object_get(op, "responses"), key));
            return op;
        }
    }
    return NULL;
}

static int check_body(const json_t *resp, long status, const char *ctype, const char *body,
                      size_t len, char *why, size_t cap, const char *what)
{
    const json_t *content = json_object_get(resp, "content");
    if (!content || status == 204 || status == 304)
        return 1;
    if (ctype && !strncasecmp(ctype, "text/event-stream", 17)) {
        if (json_object_get(content, "text/event-stream"))
            return 1;
        snprintf(why, cap, "%s answered text/event-stream, which it does not declare", what);
        return 0;
    }
    const json_t *media = json_object_get(content, "application/json");
    if (ctype && strncasecmp(ctype, "application/json", 16) != 0) {
        /* another media type: it must be one the response declares */
        char type[128];
        snprintf(type, sizeof type, "%.*s", (int)strcspn(ctype, ";"), ctype);
        if (json_object_get(content, type))
            return 1;
        snprintf(why, cap, "%s answered %s, which it does not declare", what, type);
        return 0;
    }
    if (!media)
        return 1;
    json_error_t err;
    json_t *inst = json_loadb(body, len, JSON_DECODE_ANY, &err);
    if (!inst) {
        snprintf(why, cap, "%s declares application/json, but the body is not JSON (%s): %.120s",
                 what, err.text, body);
        return 0;
    }
    const json_t *schema = json_object_get(media, "schema");
    char detail[768];
    int ok = !schema || wgt_schema_valid(doc, schema, inst, detail, sizeof detail);
    if (!ok) {
        char *text = json_dumps(inst, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(why, cap, "%s: the body does not match its schema: %s; body: %.300s", what, detail,
                 text ? text : "?");
        free(text);
    }
    json_decref(inst);
    return ok;
}

/* libmicrohttpd answers by itself, in HTML, when a request head outgrows
 * its per-connection memory pool (docs/security.md, "what remains"): the
 * one answer that is not ours to shape. */
static int mhd_own_answer(long status, const char *ctype, const char *body)
{
    int html = ctype ? !strncasecmp(ctype, "text/html", 9) : !strncmp(body, "<html>", 6);
    return (status == 413 || status == 414 || status == 431) && html;
}

int wgt_openapi_check(const char *method, const char *path, long status,
                      const char *content_type, const char *body, size_t len,
                      char *why, size_t cap)
{
    if (mhd_own_answer(status, content_type, body))
        return 1;
    pthread_once(&doc_once, load);
    if (!doc) {
        snprintf(why, cap, "data/openapi.json cannot be loaded");
        return 0;
    }
    size_t plen = strcspn(path, "?#");
    char verb[16];
    size_t k = 0;
    for (; method[k] && k + 1 < sizeof verb; k++)
        verb[k] = (char)tolower((unsigned char)method[k]);
    verb[k] = '\0';
    char what[400];
    const char *tpl = NULL;
    const json_t *item = find_item(path, plen, &tpl);
    if (!item && strncmp(path, "/api/", 5) != 0)
        return 1;   /* the dashboard's pages and assets are not part of the JSON API */
    if (!item) {
        snprintf(what, sizeof what, "%s %.*s (no such path) -> %ld", method, (int)plen, path, status);
        if (status < 400) {
            snprintf(why, cap, "%s: a path the document does not list answered success", what);
            return 0;
        }
        const json_t *err = wgt_schema_pointer(doc, "#/components/schemas/Error");
        json_t *inst = json_loadb(body, len, 0, NULL);
        char detail[512];
        int ok = inst && err && wgt_schema_valid(doc, err, inst, detail, sizeof detail);
        if (!ok)
            snprintf(why, cap, "%s: the error body is not an Error: %s", what,
                     inst ? detail : "not JSON");
        json_decref(inst);
        return ok;
    }
    snprintf(what, sizeof what, "%s %s -> %ld", method, tpl, status);
    const json_t *op = json_object_get(item, verb);
    const json_t *resp = NULL;
    if (!op) {
        if ((!strcmp(verb, "options") || !strcmp(verb, "head")) && status < 500)
            return 1;
        if (!any_declaring(item, status, &resp)) {
            snprintf(why, cap, "%s: no operation of this path declares %ld for a method it lacks",
                     what, status);
            return 0;
        }
    } else if (!(resp = declared_response(op, status))) {
        snprintf(why, cap, "%s: the operation does not declare this status", what);
        return 0;
    }
    if (!strcmp(verb, "head"))
        return 1;
    return check_body(resp, status, content_type, body, len, why, cap, what);
}

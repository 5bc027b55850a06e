/* connect_querylang.c - fuzzes the query languages connectors build from
 * an LLM's values (issue 15): Salesforce SOQL, Airtable formulas,
 * Confluence CQL and Bitbucket BBQL. The input is a JSON object of action
 * inputs, run through each table's prepare hook. Whenever a hook accepts
 * the inputs, the query it built must have exactly one string literal per
 * string value given (a value can never close its quotes and become
 * syntax), every literal closed, and no control character anywhere. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "connect/rest.h"
#include "connect/specs/specs.h"

/* Counts the literals of q delimited by `quote` with backslash escapes
 * (with braces=1, {field references} outside literals are skipped: an
 * Airtable field name may hold a quote); aborts on a control character or
 * an unclosed literal or reference. */
static size_t literals(const char *q, char quote, int braces)
{
    size_t n = 0;
    int in = 0;
    for (const unsigned char *p = (const unsigned char *)q; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            abort();
        if (!in && braces && *p == '{') {
            const char *close = strchr((const char *)p, '}');
            if (!close)
                abort();
            p = (const unsigned char *)close;
        } else if (in && *p == '\\') {
            if (!p[1])
                abort();
            p++;
        } else if (*p == (unsigned char)quote) {
            in = !in;
            n += in;
        }
    }
    if (in)
        abort();
    return n;
}

static size_t strings_in(const json_t *o)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
        n += json_is_string(v);
    return n;
}

static const wg_rest_action *row(const wg_connector_spec *spec, const char *name)
{
    const wg_rest_spec *r = spec->impl;
    for (size_t i = 0; i < r->n_actions; i++)
        if (strcmp(r->actions[i].name, name) == 0)
            return &r->actions[i];
    abort();
}

/* Runs spec.action's prepare hook on params; the built query (borrowed
 * from *out) under key, or NULL when the inputs were refused. */
static const char *prepared(json_t **out, const wg_connector_spec *spec, const char *action,
                            const json_t *params, const char *key)
{
    wg_connector_call call = { .spec = spec };
    wg_rest_ctx ctx = { &call, spec->impl, row(spec, action) };
    *out = NULL;
    if (ctx.action->prepare(out, &ctx, params) < 0)
        return NULL;
    const char *q = json_string_value(json_object_get(*out, key));
    if (!q)
        abort();
    return q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *params = json_loadb((const char *)data, size, 0, NULL);
    if (!json_is_object(params)) {
        json_decref(params);
        return 0;
    }
    json_t *out = NULL;
    const char *q;

    /* SOQL: where/contains values are the only literals */
    if ((q = prepared(&out, &wg_spec_salesforce, "search", params, "q"))) {
        size_t want = strings_in(json_object_get(params, "where")) +
                      strings_in(json_object_get(params, "contains"));
        if (literals(q, '\'', 0) != want)
            abort();
    }
    json_decref(out);
    out = NULL;

    /* Airtable: without a caller's own formula, one literal per string */
    json_t *p = json_deep_copy(params);
    json_object_del(p, "filterByFormula");
    if ((q = prepared(&out, &wg_spec_airtable, "search_records", p, "filterByFormula"))) {
        size_t want = strings_in(json_object_get(p, "match")) +
                      strings_in(json_object_get(p, "search"));
        if (literals(q, '"', 1) != want)
            abort();
    }
    json_decref(out);
    out = NULL;
    json_decref(p);

    /* CQL from text/space/type */
    p = json_deep_copy(params);
    json_object_del(p, "cql");
    if ((q = prepared(&out, &wg_spec_confluence, "search_content", p, "cql"))) {
        size_t want = json_is_string(json_object_get(p, "text")) +
                      json_is_string(json_object_get(p, "space")) +
                      json_is_string(json_object_get(p, "type"));
        if (literals(q, '"', 0) != want)
            abort();
    }
    json_decref(out);
    out = NULL;
    json_decref(p);

    /* BBQL from state */
    if (json_is_string(json_object_get(params, "state")) &&
        (q = prepared(&out, &wg_spec_bitbucket, "list_issues", params, "q"))) {
        if (literals(q, '"', 0) != 1 || strncmp(q, "state=\"", 7))
            abort();
    }
    json_decref(out);
    out = NULL;
    json_decref(params);
    return 0;
}

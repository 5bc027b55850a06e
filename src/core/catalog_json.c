/* catalog_json.c - the agent tools' JSON (spec 4, original-facts 7.2, 12.7):
 * find_connector and list_connector_categories. Argument coercion follows
 * the original (limit: Number(x) || 10, clamped 1..30) so agents see the
 * same contract; the ranking behind it is catalog_search.c. */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const no_match_hint =
    "No matches. Try broader terms, or filter by category. Available categories: "
    "Database, Files, Web, Code, Communication, Productivity, Analytics, Cloud, DevTools, "
    "Business, AI & ML, Security, Media, Utilities. Call list_connector_categories for counts.";

/* JavaScript's Number(v) for the JSON values an agent may send; NaN when it
 * is not a number. */
static double js_number(const json_t *v)
{
    if (!v || json_is_null(v) || json_is_false(v))
        return 0;
    if (json_is_true(v))
        return 1;
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
            s++;
        if (!*s)
            return 0;
        char *end;
        double d = strtod(s, &end);
        while (*end == ' ' || (*end >= '\t' && *end <= '\r'))
            end++;
        return (*end || end == s) ? NAN : d;
    }
    return NAN;
}

static size_t clamp_limit(const json_t *v)
{
    double d = js_number(v);
    if (isnan(d) || d == 0)
        d = WG_CATALOG_LIMIT_DEFAULT;
    if (d < 1)
        d = 1;
    if (d > WG_CATALOG_LIMIT_MAX)
        d = WG_CATALOG_LIMIT_MAX;
    return (size_t)d;   /* slice() truncates a fraction */
}

/* String(args.query ?? '').trim(), accepting strings and numbers only. */
static char *query_text(const json_t *v)
{
    char buf[64];
    const char *s = NULL;
    if (json_is_string(v))
        s = json_string_value(v);
    else if (json_is_integer(v))
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v)), s = buf;
    else if (json_is_real(v))
        snprintf(buf, sizeof buf, "%.17g", json_real_value(v)), s = buf;
    if (!s)
        return strdup("");
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r')))
        n--;
    return strndup(s, n);
}

/* matchScore is rounded to eighths: binary fractions print exactly in JSON
 * ("5.375", never "5.3300000000000001"), and ranking is already decided. */
static json_t *match_json(const wg_catalog_hit *h)
{
    const wg_catalog_server *s = h->server;
    json_t *caps = json_array();
    for (size_t i = 0; caps && i < s->capability_count; i++)
        json_array_append_new(caps, json_string(s->capabilities[i]));
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:b, s:f}",
                     "id", s->id, "name", s->name, "category", s->category,
                     "description", s->description, "capabilities", caps,
                     "installCmd", s->install_cmd, "url", s->url, "official", s->official,
                     "matchScore", round(h->score * 8.0) / 8.0);
}

static int build_result(json_t **out, const wg_catalog *cat, const char *q,
                        const wg_catalog_hit *hits, size_t n)
{
    json_t *o;
    if (n == 0) {
        o = json_pack("{s:s, s:i, s:s}", "query", q, "matchCount", 0, "hint", no_match_hint);
    } else {
        json_t *matches = json_array();
        for (size_t i = 0; matches && i < n; i++)
            if (json_array_append_new(matches, match_json(&hits[i])) < 0) {
                json_decref(matches);
                matches = NULL;
            }
        o = json_pack("{s:s, s:I, s:I, s:o}", "query", q, "catalogSize", (json_int_t)cat->n,
                      "matchCount", (json_int_t)n, "matches", matches);
    }
    if (!o)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = o;
    return 0;
}

/* The coerced arguments of one find_connector call. */
typedef struct {
    char *q;               /* trimmed query, owned; may be "" */
    const char *category;  /* borrowed from args, or NULL */
    size_t limit;
} fc_args;

/* Reads args; 0 (q may be ""), WG_EINVAL (query not valid UTF-8), WG_ENOMEM. */
static int fc_prepare(fc_args *a, const json_t *args)
{
    a->q = query_text(json_object_get(args, "query"));
    if (!a->q)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (*a->q && !wg_catalog__utf8_ok(a->q, strlen(a->q))) {
        free(a->q);
        a->q = NULL;
        return wg_error_set(WG_EINVAL, "find_connector: query is not valid UTF-8");
    }
    const json_t *c = json_object_get(args, "category");
    a->category = json_is_string(c) ? json_string_value(c) : NULL;
    a->limit = clamp_limit(json_object_get(args, "limit"));
    return 0;
}

/* The empty-query answer, unless a known category was asked for: then the
 * category is listed (issue 12). */
static int fc_empty(const fc_args *a)
{
    return !*a->q && !(a->category && wg_catalog_category_index(a->category) >= 0);
}

static int fc_rank(wg_catalog_hit *hits, size_t *n, const wg_catalog *cat, const fc_args *a)
{
    *n = 0;
    /* An unknown category matches nothing: the no-match answer lists the 14. */
    if (a->category && wg_catalog_category_index(a->category) < 0)
        return 0;
    return wg_catalog_search(hits, a->limit, n, cat, a->q, a->category);
}

static const char *const empty_query_hint = "Pass a short description of the integration the user wants.";

int wg_catalog_find_connector(json_t **out, const wg_catalog *cat, const json_t *args)
{
    if (!out || !cat)
        return wg_error_set(WG_EINVAL, "find_connector: NULL argument");
    fc_args a;
    int rc = fc_prepare(&a, args);
    if (rc < 0)
        return rc;
    if (fc_empty(&a)) {
        json_t *o = json_pack("{s:s, s:s}", "error", "query is required", "hint", empty_query_hint);
        free(a.q);
        if (!o)
            return wg_error_set(WG_ENOMEM, "out of memory");
        *out = o;
        return 0;
    }
    wg_catalog_hit hits[WG_CATALOG_LIMIT_MAX];
    size_t n = 0;
    rc = fc_rank(hits, &n, cat, &a);
    if (rc == 0)
        rc = build_result(out, cat, a.q, hits, n);
    free(a.q);
    return rc;
}

/* ---- the same answer as text, without jansson objects --------------------- */

static void key(wg_catbuf *b, const char *k)
{
    wg_catbuf__puts(b, k);
}

static int str_field(wg_catbuf *b, const char *k, const char *v)
{
    key(b, k);
    return wg_catbuf__str(b, v, strlen(v), 0);
}

static int match_text(wg_catbuf *b, const wg_catalog_hit *h)
{
    const wg_catalog_server *s = h->server;
    int rc = 0;
    if ((rc = str_field(b, "{\"id\":", s->id)) < 0 || (rc = str_field(b, ",\"name\":", s->name)) < 0 ||
        (rc = str_field(b, ",\"category\":", s->category)) < 0 ||
        (rc = str_field(b, ",\"description\":", s->description)) < 0)
        return rc;
    key(b, ",\"capabilities\":[");
    for (size_t i = 0; i < s->capability_count; i++) {
        if (i)
            wg_catbuf__put(b, ",", 1);
        if ((rc = wg_catbuf__str(b, s->capabilities[i], strlen(s->capabilities[i]), 0)) < 0)
            return rc;
    }
    wg_catbuf__put(b, "]", 1);
    if ((rc = str_field(b, ",\"installCmd\":", s->install_cmd)) < 0 ||
        (rc = str_field(b, ",\"url\":", s->url)) < 0)
        return rc;
    key(b, s->official ? ",\"official\":true,\"matchScore\":" : ",\"official\":false,\"matchScore\":");
    wg_catbuf__eighths(b, round(h->score * 8.0) / 8.0);
    wg_catbuf__put(b, "}", 1);
    return 0;
}

static int result_text(wg_catbuf *b, const wg_catalog *cat, const char *q,
                       const wg_catalog_hit *hits, size_t n)
{
    int rc;
    key(b, "{\"query\":");
    if ((rc = wg_catbuf__str(b, q, strlen(q), 0)) < 0)   /* fc_prepare checked its UTF-8 */
        return rc;
    if (n == 0) {
        key(b, ",\"matchCount\":0,\"hint\":");
        rc = wg_catbuf__str(b, no_match_hint, strlen(no_match_hint), 0);
        wg_catbuf__put(b, "}", 1);
        return rc;
    }
    key(b, ",\"catalogSize\":");
    wg_catbuf__uint(b, cat->n);
    key(b, ",\"matchCount\":");
    wg_catbuf__uint(b, n);
    key(b, ",\"matches\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            wg_catbuf__put(b, ",", 1);
        if ((rc = match_text(b, &hits[i])) < 0)
            return rc;
    }
    wg_catbuf__put(b, "]}", 2);
    return 0;
}

int wg_catalog_find_connector_text(char **out, size_t *len, const wg_catalog *cat, const json_t *args)
{
    if (!out || !cat)
        return wg_error_set(WG_EINVAL, "find_connector: NULL argument");
    fc_args a;
    int rc = fc_prepare(&a, args);
    if (rc < 0)
        return rc;
    wg_catbuf b = { 0 };
    if (fc_empty(&a)) {
        wg_catbuf__puts(&b, "{\"error\":\"query is required\",\"hint\":");
        rc = wg_catbuf__str(&b, empty_query_hint, strlen(empty_query_hint), 0);
        wg_catbuf__put(&b, "}", 1);
    } else {
        wg_catalog_hit hits[WG_CATALOG_LIMIT_MAX];
        size_t n = 0;
        rc = fc_rank(hits, &n, cat, &a);
        if (rc == 0)
            rc = result_text(&b, cat, a.q, hits, n);
    }
    free(a.q);
    if (rc == WG_EINVAL)
        rc = wg_error_set(rc, "find_connector: a catalog string is not valid UTF-8");
    else if (rc < 0 || b.failed || wg_catbuf__grow(&b, 1) < 0)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc < 0) {
        free(b.p);
        return rc;
    }
    b.p[b.len] = '\0';
    if (len)
        *len = b.len;
    *out = b.p;
    return 0;
}

int wg_catalog_categories(json_t **out, const wg_catalog *cat)
{
    if (!out || !cat)
        return wg_error_set(WG_EINVAL, "list_connector_categories: NULL argument");
    size_t counts[WG_CATALOG_CATEGORY_COUNT] = { 0 };
    for (size_t i = 0; i < cat->n; i++)
        counts[cat->category[i]]++;
    json_t *list = json_array();
    for (int c = 0; list && c < WG_CATALOG_CATEGORY_COUNT; c++) {
        const char *name = wg_catalog_category_name(c);
        if (json_array_append_new(list, json_pack("{s:s, s:s, s:I}", "category", name, "emoji",
                                                  wg_catalog_category_emoji(name), "count",
                                                  (json_int_t)counts[c])) < 0) {
            json_decref(list);
            list = NULL;
        }
    }
    json_t *o = json_pack("{s:I, s:I, s:i, s:o}", "totalServers", (json_int_t)cat->n,
                          "officialServers", (json_int_t)cat->official, "categoryCount",
                          WG_CATALOG_CATEGORY_COUNT, "categories", list);
    if (!o)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = o;
    return 0;
}

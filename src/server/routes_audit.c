/* routes_audit.c - the audit log over HTTP (waggle/audit.h).
 *   GET  /api/audit?limit=&event=        {events:[{id,ts,event,actor,tool,input,
 *                                         decision,rule,hash}], count}, newest first;
 *                                         event may be a prefix ending in '*'
 *   GET  /api/audit/verify               {ok, rows, reason, firstBadId?}: the chain check
 *   POST /api/admin/audit-export {format?: "json"|"csv", limit?, event?}
 *        (TEAMS, spec 10) the same rows as a JSON document or a CSV file
 *        (Content-Disposition: attachment). CSV cells that a spreadsheet
 *        would run as a formula (= + - @) are prefixed with a quote.
 * Inputs were masked when they were written; nothing is unmasked here. */
#include "server/route.h"
#include "waggle/audit.h"
#include "waggle/engine.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LIST_DEFAULT = 50, LIST_MAX = 1000, EXPORT_DEFAULT = 1000, EXPORT_MAX = 10000 };

static int bad(wg_res *res, const char *field, const char *msg)
{
    return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                           field, "message", msg));
}

/* export: the engine lists and records the export (audit_export row). */
static int list_events(json_t **out, const wg_req *req, size_t limit, const char *event,
                       int export)
{
    wg_audit_event *ev = NULL;
    size_t n = 0;
    wg_audit_query q = { limit, event && *event ? event : NULL };
    int rc = export ? wg_engine_audit_export(&ev, &n, req->ctx->engine, &q, "api")
                    : wg_audit_list(&ev, &n, req->ctx->audit, &q);
    if (rc < 0)
        return rc;
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, wg_audit_event_json(&ev[i]));
    wg_audit_events_free(ev, n);
    *out = arr;
    return 0;
}

static int get_audit(wg_res *res, const wg_req *req)
{
    const char *ls = wg_req_query(req, "limit");
    const char *event = wg_req_query(req, "event");
    long limit = LIST_DEFAULT;
    if (ls) {
        char *end;
        limit = strtol(ls, &end, 10);
        if (*end || end == ls || limit < 1 || limit > LIST_MAX)
            return bad(res, "limit", "limit must be an integer from 1 to 1000");
    }
    if (event && strlen(event) > 200)
        return bad(res, "event", "event is longer than 200 characters");
    json_t *events = NULL;
    int rc = list_events(&events, req, (size_t)limit, event, 0);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:o,s:I}", "events", events, "count",
                                           (json_int_t)json_array_size(events)));
}

/* Appends one CSV cell (RFC 4180 quoting, formula prefixes neutralised). */
static void csv_cell(char **buf, size_t *len, size_t *cap, const char *s, int last)
{
    if (!s)
        s = "";
    size_t need = *len + strlen(s) * 2 + 8;
    if (need > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < need)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return;
        *buf = b;
        *cap = c;
    }
    char *w = *buf + *len;
    *w++ = '"';
    if (strchr("=+-@\t\r", *s) && *s)
        *w++ = '\'';
    for (; *s; s++) {
        if (*s == '"')
            *w++ = '"';
        *w++ = *s;
    }
    *w++ = '"';
    *w++ = last ? '\n' : ',';
    *len = (size_t)(w - *buf);
}

static const char *const csv_columns[] = { "id", "ts", "event", "actor", "tool", "decision",
                                           "rule", "input", "hash" };
enum { N_CSV = sizeof csv_columns / sizeof *csv_columns };

static char *to_csv(const json_t *events, size_t *out_len)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (int c = 0; c < N_CSV; c++)
        csv_cell(&buf, &len, &cap, csv_columns[c], c == N_CSV - 1);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        for (int c = 0; c < N_CSV; c++) {
            json_t *v = json_object_get(e, csv_columns[c]);
            char *text = json_is_string(v) ? NULL : (v && !json_is_null(v) ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL);
            csv_cell(&buf, &len, &cap, json_is_string(v) ? json_string_value(v) : text, c == N_CSV - 1);
            free(text);
        }
    }
    *out_len = len;
    return buf;
}

static int export_audit(wg_res *res, const wg_req *req)
{
    const char *format = "json", *event = NULL;
    long long limit = EXPORT_DEFAULT;
    if (wg_body_string(res, req, "format", 0, &format) < 0 ||
        wg_body_string(res, req, "event", 0, &event) < 0 ||
        wg_body_int(res, req, "limit", 0, &limit) < 0)
        return 0;
    int csv = strcmp(format, "csv") == 0;
    if (!csv && strcmp(format, "json") != 0)
        return bad(res, "format", "format must be json or csv");
    if (limit < 1 || limit > EXPORT_MAX)
        return bad(res, "limit", "limit must be an integer from 1 to 10000");
    json_t *events = NULL;
    int rc = list_events(&events, req, (size_t)limit, event, 1);
    if (rc < 0)
        return rc;
    if (!csv)
        return wg_res_json(res, 200, json_pack("{s:s,s:I,s:o}", "format", "json", "count",
                           (json_int_t)json_array_size(events), "events", events));
    size_t len = 0;
    char *text = to_csv(events, &len);
    json_decref(events);
    if (!text)
        return wg_error_set(WG_ENOMEM, "out of memory");
    wg_res_text(res, 200, "text/csv; charset=utf-8", text, len);
    return wg_res_header(res, "Content-Disposition", "attachment; filename=\"audit-export.csv\"");
}

/* The whole chain's check (wg_audit_verify): a broken log is a 200 with
 * ok false and the reason, as `waggle audit verify --json` prints it. */
static int verify_audit(wg_res *res, const wg_req *req)
{
    wg_audit_verify_result v;
    int rc = wg_audit_verify(&v, req->ctx->audit);
    if (rc < 0)
        return rc;
    json_t *o = json_pack("{s:b,s:I,s:s}", "ok", v.ok, "rows", (json_int_t)v.rows, "reason",
                          v.reason);
    if (o && v.first_bad_id)
        json_object_set_new(o, "firstBadId", json_integer((json_int_t)v.first_bad_id));
    return wg_res_json(res, 200, o);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,  "/api/audit",              get_audit,    WG_ROUTE_FREE,  0 },
    { WG_HTTP_GET,  "/api/audit/verify",       verify_audit, WG_ROUTE_FREE,  0 },
    { WG_HTTP_POST, "/api/admin/audit-export", export_audit, WG_ROUTE_TEAMS, 0 },
};

const wg_route_area wg_routes_audit = {
    "audit", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

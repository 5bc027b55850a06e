/* respond.c - building responses (wg_res_*), reading typed body fields with
 * errors that name the field (wg_body_*), and mapping WG_E* codes to HTTP
 * statuses. See route.h for the contract. */
#include "server/server_int.h"
#include "server/sse.h"
#include "waggle/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wg_res_clear(wg_res *res)
{
    json_decref(res->json);
    free(res->text);
    for (int i = 0; i < res->n_headers; i++)
        free(res->header_value[i]);
    if (res->stream)
        wg_sse__release(res->stream);   /* never handed to libmicrohttpd */
    memset(res, 0, sizeof *res);
}

int wg_res_json(wg_res *res, int status, json_t *body)
{
    json_decref(res->json);
    free(res->text);
    res->text = NULL;
    if (!body) {
        res->status = 500;
        res->json = json_pack("{s:s,s:s}", "error", "INTERNAL_ERROR", "message", "out of memory");
        return 0;
    }
    res->status = status;
    res->json = body;
    res->formatted = 0;
    return 0;
}

int wg_res_error(wg_res *res, int status, const char *code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A message may quote input; json_string refuses invalid UTF-8, so fall
     * back to a fixed text rather than answer nothing. */
    json_t *m = json_string(msg);
    if (!m)
        m = json_string("invalid request");
    wg_res_json(res, status, json_pack("{s:s,s:o}", "error", code, "message", m));
    res->formatted = 1;
    return 0;
}

int wg_res_text(wg_res *res, int status, const char *content_type, char *text, size_t len)
{
    json_decref(res->json);
    res->json = NULL;
    free(res->text);
    res->status = status;
    res->text = text;
    res->text_len = len;
    res->content_type = content_type;
    return 0;
}

int wg_res_header(wg_res *res, const char *name, const char *value)
{
    if (res->n_headers >= 4)
        return wg_error_set(WG_EINVAL, "too many response headers");
    char *v = strdup(value);
    if (!v)
        return wg_error_set(WG_ENOMEM, "out of memory");
    res->header_name[res->n_headers] = name;
    res->header_value[res->n_headers++] = v;
    return 0;
}

static const struct {
    int rc;
    int status;
    const char *code;
} error_map[] = {
    { WG_EINVAL,       400, "INVALID_REQUEST" },
    { WG_ENOTFOUND,    404, "NOT_FOUND" },
    { WG_EEXISTS,      409, "CONFLICT" },
    { WG_EDENIED,      403, "FORBIDDEN" },
    { WG_ETIER,        403, "TIER_INSUFFICIENT" },
    { WG_EAUTH,        401, "UNAUTHORIZED" },
    { WG_EUNSUPPORTED, 503, "UNAVAILABLE" },
    { WG_EUPSTREAM,    502, "UPSTREAM_ERROR" },
    { WG_ETIMEOUT,     504, "TIMEOUT" },
    { WG_EBUSY,        429, "BUSY" },
    { WG_EUNAVAILABLE, 503, "UNAVAILABLE" },
};

void wg_res__from_error(wg_res *res, int rc, const wg_server_ctx *ctx)
{
    for (size_t i = 0; i < sizeof error_map / sizeof *error_map; i++) {
        if (error_map[i].rc == rc) {
            const char *msg = wg_error_last();
            wg_res_error(res, error_map[i].status, error_map[i].code, "%s",
                         msg && *msg ? msg : "request failed");
            return;
        }
    }
    /* Low-level messages (store, crypto, I/O) can name files or carry
     * upstream text: log them, answer generically. */
    wg_server__logf(ctx, "error code=%s message=\"%s\"", wg_error_name(rc), wg_error_last());
    wg_res_error(res, 500, "INTERNAL_ERROR", "internal error");
}

/* ---- typed body fields ---------------------------------------------------- */

static int field_error(wg_res *res, const char *field, const char *what)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%s %s", field, what);
    wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field", field,
                                    "message", msg));
    return -1;
}

/* Finds the field; returns 1 found, 0 absent-and-optional, -1 error sent. */
static int field_get(json_t **v, wg_res *res, const wg_req *req, const char *field, int required)
{
    *v = req->body ? json_object_get(req->body, field) : NULL;
    if (*v && json_is_null(*v) && !required)
        *v = NULL;
    if (!*v)
        return required ? field_error(res, field, "is required") : 0;
    return 1;
}

int wg_body_string(wg_res *res, const wg_req *req, const char *field, int required,
                   const char **out)
{
    json_t *v;
    int f = field_get(&v, res, req, field, required);
    if (f <= 0)
        return f;
    if (!json_is_string(v))
        return field_error(res, field, "must be a string");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return field_error(res, field, "must not contain NUL characters");
    *out = json_string_value(v);
    return 0;
}

int wg_body_bool(wg_res *res, const wg_req *req, const char *field, int required, int *out)
{
    json_t *v;
    int f = field_get(&v, res, req, field, required);
    if (f <= 0)
        return f;
    if (!json_is_boolean(v))
        return field_error(res, field, "must be a boolean");
    *out = json_is_true(v);
    return 0;
}

int wg_body_int(wg_res *res, const wg_req *req, const char *field, int required,
                long long *out)
{
    json_t *v;
    int f = field_get(&v, res, req, field, required);
    if (f <= 0)
        return f;
    if (json_is_integer(v)) {
        *out = (long long)json_integer_value(v);
        return 0;
    }
    /* 1.7e12 (a ms epoch written as a real) is accepted when integral. */
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d > -9.2e18 && d < 9.2e18 && d == (double)(long long)d) {
            *out = (long long)d;
            return 0;
        }
    }
    return field_error(res, field, "must be an integer");
}

int wg_body_object(wg_res *res, const wg_req *req, const char *field, int required,
                   json_t **out)
{
    json_t *v;
    int f = field_get(&v, res, req, field, required);
    if (f <= 0)
        return f;
    if (!json_is_object(v))
        return field_error(res, field, "must be an object");
    *out = v;
    return 0;
}

int wg_body_array(wg_res *res, const wg_req *req, const char *field, int required,
                  json_t **out)
{
    json_t *v;
    int f = field_get(&v, res, req, field, required);
    if (f <= 0)
        return f;
    if (!json_is_array(v))
        return field_error(res, field, "must be an array");
    *out = v;
    return 0;
}

/* echo.c - error messages never quote the request (issue 11 section 4).
 *
 * Handlers write their error messages without input. This is the backstop
 * for the messages that come from the library through wg_res__from_error,
 * written for the CLI, where quoting the operator's own words helps: when a
 * formatted error message (wg_res_error) contains a path parameter, a query
 * value, a string of the JSON body or a key that is not a field name
 * ([A-Za-z0-9_]), at least ECHO_MIN bytes long,
 * the message is replaced by a fixed text for its status. The error code
 * and the status stay. Bodies built with wg_res_json (the spec's exact
 * bodies, tier denials) are not touched: they quote nothing.
 *
 * Cost: at most ECHO_MAX_STRINGS needles, each one strstr over a message of
 * at most 512 bytes plus its own length, so linear in the request; past
 * ECHO_MAX_STRINGS or ECHO_MAX_DEPTH the request cannot be checked whole and
 * the message is replaced (fail closed). */
#include "server/server_int.h"

#include <string.h>

enum { ECHO_MIN = 3, ECHO_MAX_STRINGS = 512, ECHO_MAX_DEPTH = 32 };

#define FIELD_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

static const struct {
    int status;
    const char *text;
} fixed_texts[] = {
    { 400, "the request is invalid" },
    { 401, "not authorized" },
    { 403, "the request is refused" },
    { 404, "not found" },
    { 409, "this conflicts with the current state" },
    { 410, "no longer available" },
    { 413, "the request is too large" },
    { 422, "the request cannot be processed" },
    { 429, "busy: try again later" },
    { 502, "the upstream service failed" },
    { 503, "unavailable" },
    { 504, "timed out" },
};

typedef struct {
    const char *msg;
    size_t budget;
    int hit;
} scan;

static void check(scan *s, const char *needle, size_t len)
{
    if (s->hit)
        return;
    if (s->budget == 0) {
        s->hit = 1;
        return;
    }
    s->budget--;
    if (len >= ECHO_MIN && strstr(s->msg, needle))
        s->hit = 1;
}

static void walk(scan *s, const json_t *v, int depth)
{
    if (s->hit || !v)
        return;
    if (depth > ECHO_MAX_DEPTH) {
        s->hit = 1;
        return;
    }
    if (json_is_string(v)) {
        check(s, json_string_value(v), json_string_length(v));
    } else if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            /* messages name fields; a key that is not a field name is input */
            if (!wg_echo__is_field_name(k))
                check(s, k, strlen(k));
            walk(s, x, depth + 1);
            if (s->hit)
                return;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            walk(s, x, depth + 1);
            if (s->hit)
                return;
        }
    }
}

int wg_echo__is_field_name(const char *s)
{
    return strspn(s, FIELD_CHARS) == strlen(s);
}

static const char *fixed_text(int status)
{
    for (size_t i = 0; i < sizeof fixed_texts / sizeof *fixed_texts; i++)
        if (fixed_texts[i].status == status)
            return fixed_texts[i].text;
    return "the request failed";
}

int wg_echo__scrub(wg_res *res, const wg_echo_sources *src)
{
    if (!res->formatted || res->status < 400 || !json_is_object(res->json))
        return 0;
    json_t *m = json_object_get(res->json, "message");
    if (!json_is_string(m))
        return 0;
    scan s = { json_string_value(m), ECHO_MAX_STRINGS, src->overflow };
    for (size_t i = 0; i < src->n_values && !s.hit; i++)
        if (src->values[i])
            check(&s, src->values[i], strlen(src->values[i]));
    walk(&s, src->body, 0);
    if (!s.hit)
        return 0;
    json_object_set_new(res->json, "message", json_string(fixed_text(res->status)));
    return 1;
}

/* graph.c - Microsoft Graph helpers shared by the Microsoft 365 tables
 * (graph.h). Values meet OData syntax only through these functions, so a
 * quote in a subject or a search can never close the literal it is in. */
#include "graph.h"
#include "connect/rfc5322.h"

#include <stdlib.h>
#include <string.h>

int wg_graph__odata_literal(char **out, const char *text)
{
    return wg_rest_quote(out, text, WG_GRAPH_TEXT_MAX, '\'', "'", 0);
}

int wg_graph__search_phrase(char **out, const char *text)
{
    return wg_rest_quote(out, text, WG_GRAPH_TEXT_MAX, '"', "\"\\", '\\');
}

int wg_graph__address_ok(const char *a)
{
    return a && wg_mail__address_ok(a, strlen(a));
}

int wg_graph__recipients(json_t **out, const json_t *list, const char *type, size_t *count,
                         const char *field)
{
    *out = NULL;
    if (!list || json_is_null(list))
        return 0;
    if (json_is_string(list)) {
        /* one address given as a string */
        json_t *one = json_pack("[O]", list);
        int rc = wg_graph__recipients(out, one, type, count, field);
        json_decref(one);
        return rc;
    }
    if (!json_is_array(list))
        return wg_error_set(WG_EINVAL, "%s must be an array of email addresses", field);
    json_t *arr = json_array();
    size_t i;
    json_t *a;
    json_array_foreach(list, i, a) {
        const char *addr = json_string_value(a);
        if (!wg_graph__address_ok(addr)) {
            json_decref(arr);
            return wg_error_set(WG_EINVAL, "%s: '%.80s' is not an email address", field,
                                addr ? addr : "(not a string)");
        }
        if (++*count > WG_GRAPH_RECIPIENTS_MAX) {
            json_decref(arr);
            return wg_error_set(WG_EINVAL, "more than %d recipients", WG_GRAPH_RECIPIENTS_MAX);
        }
        json_t *r = json_pack("{s:{s:s}}", "emailAddress", "address", addr);
        if (type)
            json_object_set_new(r, "type", json_string(type));
        json_array_append_new(arr, r);
    }
    *out = arr;
    return 0;
}

int wg_graph__item_body(json_t **out, const json_t *content, const json_t *content_type)
{
    const char *ct = json_string_value(content_type);
    if (ct && strcmp(ct, "text") && strcmp(ct, "html"))
        return wg_error_set(WG_EINVAL, "contentType must be text or html");
    if (json_string_length(content) > WG_GRAPH_BODY_MAX)
        return wg_error_set(WG_EINVAL, "body longer than %d bytes", WG_GRAPH_BODY_MAX);
    const char *text = json_string_value(content);
    *out = json_pack("{s:s,s:s%}", "contentType", ct ? ct : "text", "content", text ? text : "",
                     text ? json_string_length(content) : 0);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

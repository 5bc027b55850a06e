/* waggle/marker.h - the capability-request marker (spec 4.3).
 *
 * For sources other than the starter pack the agent does not install; it
 * writes, on its own line,
 *   <!--waggle:capability_request {"name":"<n>","source":"<s>","reason":"<why>"}-->
 * and the front end turns it into an Install card. This module emits that
 * line and finds markers (and the legacy phrase
 *   `install_capability` with name "<n>" and source "<s>"
 * ) in text.
 *
 * Pure functions; safe from any thread.
 */
#ifndef WAGGLE_MARKER_H
#define WAGGLE_MARKER_H

#include "waggle/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WG_MARKER_REASON_MAX = 140,   /* characters (code points) after sanitizing */
    WG_MARKER_FIELD_MAX = 200,    /* bytes of a name or source */
    WG_MARKER_JSON_MAX = 4096,    /* bytes of a marker's JSON object */
};

/* Sanitizes a reason: drops { } < > and control characters, drops invalid
 * UTF-8, collapses whitespace runs to one space, trims, keeps at most 140
 * code points. Idempotent. *out is new (free()). NULL reason is "".
 * Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_marker_sanitize_reason(char **out, const char *reason);

/* The marker line, followed by "\n". name and source must be 1-200 bytes of
 * valid UTF-8 without control characters, quotes, backslashes or { } < >
 * (so the comment can never be closed early); reason may be NULL.
 * *out is new (free()). Returns 0, WG_EINVAL (says which field), WG_ENOMEM. */
WG_EXTERN int wg_marker_emit(char **out, const char *name, const char *source, const char *reason);

typedef struct {
    char *name;
    char *source;
    char *reason;    /* sanitized; NULL when the marker had none */
    char *kind;      /* optional "kind" string, sanitized like reason; or NULL */
    size_t start;    /* byte span in the text */
    size_t end;
    int legacy;      /* 1: found by the legacy install_capability phrase */
} wg_marker;

typedef struct {
    wg_marker *items;
    size_t count;
} wg_marker_list;

/* Finds every marker in text[0..len), in order of appearance, de-duplicated
 * by source+name (the first one kept). Markup is matched case-insensitively,
 * with or without whitespace between "capability_request" and "{". The JSON
 * is parsed by a real parser, so "}" inside strings and nested objects are
 * fine; name and source must be non-empty strings; anything malformed is
 * left as text and skipped. A legacy phrase inside a marker is ignored.
 * out is zeroed first; free with wg_marker_list_free (also after errors).
 * Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_marker_parse(wg_marker_list *out, const char *text, size_t len);
WG_EXTERN void wg_marker_list_free(wg_marker_list *list);

#ifdef __cplusplus
}
#endif
#endif

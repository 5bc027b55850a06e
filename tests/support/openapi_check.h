/* openapi_check.h - every response a contract test receives is checked
 * against data/openapi.json (issue #12 §2), so the document and the server
 * cannot drift apart.
 *
 * wgt_http / wgt_http_ex (server_test.h) call wgt_openapi_check on every
 * answer and fail the test (cr_expect) when it does not match. A response
 * matches when:
 *   - its path (query ignored) matches one of the document's path templates
 *     (literal segments win over {params}); an unknown path under /api/ may
 *     only answer an error (status >= 400) whose body is
 *     components/schemas/Error (other unknown paths are the dashboard's
 *     static pages, not part of the JSON API);
 *   - the operation for the method exists (OPTIONS/HEAD without one are
 *     transport-level and only checked for status < 500); a method the path
 *     does not have may only answer a status that one of its operations
 *     declares (405, 401...), with that operation's schema;
 *   - the status is declared (exactly, or as 4XX/5XX, or default);
 *   - a JSON body validates against the declared application/json schema
 *     (jsonschema.h); a declared text/event-stream body is not parsed.
 *
 * The document is loaded once per process from WG_SOURCE_DIR. Thread-safe
 * (the load is guarded; checking only reads).
 */
#ifndef WGT_OPENAPI_CHECK_H
#define WGT_OPENAPI_CHECK_H

#include <stddef.h>

/* Returns 1 when the response matches the document, else 0 with why. */
int wgt_openapi_check(const char *method, const char *path, long status,
                      const char *content_type, const char *body, size_t len,
                      char *why, size_t cap);

#endif

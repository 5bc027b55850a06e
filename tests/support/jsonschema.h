/* jsonschema.h - a JSON Schema 2020-12 validator for the test suite, on
 * jansson, so that every response a contract test sees is checked against
 * the OpenAPI document (openapi_check.h).
 *
 * Keywords checked: $ref (local JSON pointers "#/..."), type (a name or an
 * array of names; "integer" accepts reals with no fraction), enum, const,
 * properties, required, additionalProperties, patternProperties,
 * propertyNames, minProperties, maxProperties, dependentRequired, items,
 * prefixItems, minItems, maxItems, uniqueItems, contains, minLength and
 * maxLength (in code points), pattern (PCRE2, unanchored as the standard
 * says), minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf,
 * allOf, anyOf, oneOf (exactly one), not, if/then/else. Annotations
 * (description, title, format, examples, readOnly, ...) are ignored.
 * Keywords this validator cannot honour (unevaluatedProperties,
 * unevaluatedItems, $dynamicRef, a remote $ref) make validation FAIL with
 * a message that names them, so a document cannot rely on a check that is
 * not made. A boolean schema is true (anything) or false (nothing).
 *
 * Not thread-safe (PCRE2 codes are compiled per call; fine for tests).
 */
#ifndef WGT_JSONSCHEMA_H
#define WGT_JSONSCHEMA_H

#include <stddef.h>
#include <jansson.h>

/* Validates instance against schema; $ref pointers resolve in root (the
 * whole document). Returns 1 when valid; 0 when not, with why set to the
 * first failure: the instance's JSON pointer, the keyword, and the reason. */
int wgt_schema_valid(const json_t *root, const json_t *schema, const json_t *instance,
                     char *why, size_t cap);

/* Resolves a local "#/a/b" pointer ("~0" = "~", "~1" = "/") in root, or NULL. */
const json_t *wgt_schema_pointer(const json_t *root, const char *ref);

#endif

/* render.h - the readable form of the CLI's answers.
 *
 * Every command that answers with data prints it readably by default and as
 * JSON with --json (the JSON is the contract for scripts; the readable form
 * is for people and may change). The readable form is built from the same
 * JSON value through a table of fields, so both always agree.
 *
 * Text from outside (catalog entries, vault names, error messages) may carry
 * terminal control sequences: every value is printed with control bytes
 * shown as \xNN, so a hostile string cannot move the cursor or retitle the
 * terminal. Values longer than a column's width are cut with "...".
 *
 * Thread-safety: none needed (the CLI is single-threaded). Nothing here
 * fails except on stdout errors, which the caller sees through ferror().
 */
#ifndef WAGGLE_CLI_RENDER_H
#define WAGGLE_CLI_RENDER_H

#include <stdio.h>
#include <jansson.h>

/* How a field's value reads. */
typedef enum {
    WG_CLI_TEXT = 0,   /* as wg_cli_show_value writes it */
    WG_CLI_TIME_MS,    /* an epoch-ms integer, shown as ISO-8601 UTC */
    WG_CLI_LIMIT       /* a number, or null read as "unlimited" */
} wg_cli_kind;

/* One field of an object: its JSON key (a dotted path such as "a.b" reaches
 * into nested objects), the label a person reads, and how it reads. Tables
 * end with a { NULL } row. */
typedef struct wg_cli_field {
    const char *key;
    const char *label;
    wg_cli_kind kind;
} wg_cli_field;

/* "Label:  value" lines for the fields of obj that are present. */
void wg_cli_show_fields(FILE *to, const json_t *obj, const wg_cli_field *fields);

/* An aligned table: a header of labels, then one row per element of arr
 * (objects). An empty array prints `empty` (e.g. "no keys") instead. */
void wg_cli_show_table(FILE *to, const json_t *arr, const wg_cli_field *cols, const char *empty);

/* Writes one value as text: strings as they are (control bytes escaped),
 * true/false as yes/no, null as "-", numbers plainly, arrays of scalars
 * joined by ", ", objects as compact JSON. At most max bytes of output
 * (0: no limit), cut with "...". */
void wg_cli_show_value(FILE *to, const json_t *v, size_t max);

/* The value at a dotted path in obj, or NULL. */
const json_t *wg_cli_path(const json_t *obj, const char *path);

#endif

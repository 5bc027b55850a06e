/* logline.h - the service's log lines as JSON (`waggle serve --log-format json`).
 *
 * waggled logs one line per event in a key=value form: an event word, then
 * fields (`access method=GET path=/api/tier status=200 us=180
 * request_id=9f2c...`; a value with spaces is "quoted" with \" and \\
 * escapes). The server writes no token, body or secret into a line (its
 * tests check this), so converting a line never adds one.
 *
 * wg_cli_log_json turns a line into one JSON object: {"ts": ISO-8601 UTC
 * with milliseconds, "level": "info"|"warn"|"error", "event": the first
 * word, then each field (digits-only values as numbers); words that are not
 * fields are joined into "msg"}. Thread-safe (no shared state).
 */
#ifndef WAGGLE_CLI_LOGLINE_H
#define WAGGLE_CLI_LOGLINE_H

#include <stdint.h>

/* A new NUL-terminated compact JSON text (free()), or NULL when out of
 * memory. now_ms is the time stamp (epoch ms). */
char *wg_cli_log_json(const char *line, int64_t now_ms);

#endif

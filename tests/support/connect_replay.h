/* connect_replay.h - a loopback replay server for connector tests.
 *
 * The server listens on 127.0.0.1 on an ephemeral port. A test gives it the
 * exchanges it expects, in order: each is {request, response}. The request
 * part is checked against what arrived:
 *   "method"     exact ("GET")
 *   "uri"        the raw request target as sent (path + query, still encoded)
 *   "uri_glob"   the same with '*' matching any run (values computed at call
 *                time, such as a default "now")
 *   "headers"    {name: value} that must be present with exactly that value;
 *                a null value means the header must be absent
 *   "body"       JSON that must equal the parsed body
 *   "body_text"  exact raw body
 *   "no_body"    true: the body must be empty
 * The response part is what the server answers: "status", "headers",
 * "body" (JSON, sent compact) or "body_text"; "{{base}}" in a response is
 * replaced by the server's own base URL (next-page links).
 *
 * A case file (tests/data/connect/<service>/<name>.json) adds what to run
 * and what to expect: {"tool", "args", "creds"?: {"token","email","extra"},
 * "exchanges": [...], "expect": {"success", "error_contains"?, "data"?
 * (a subset that must be present)}}. wgt_connect_run_case runs one against a
 * fresh registry whose connector's base URL is the replay server.
 */
#ifndef WGT_CONNECT_REPLAY_H
#define WGT_CONNECT_REPLAY_H

#include <jansson.h>

typedef struct wgt_replay wgt_replay;

/* Starts a server; NULL on failure. */
wgt_replay *wgt_replay_start(void);
void wgt_replay_stop(wgt_replay *r);

/* "http://127.0.0.1:<port>"; borrowed. */
const char *wgt_replay_base(const wgt_replay *r);

/* Replaces the expected exchanges (array, borrowed and copied). */
void wgt_replay_expect(wgt_replay *r, const json_t *exchanges);

/* NULL when every expected exchange arrived, in order, and matched, and
 * nothing else arrived; otherwise the first problem (borrowed). */
const char *wgt_replay_verdict(wgt_replay *r);

/* The raw request targets received so far, as a JSON array (borrowed). */
const json_t *wgt_replay_seen(wgt_replay *r);

/* Is `sub` contained in `full` (objects: every key of sub matches; arrays
 * and scalars: equal)? */
int wgt_json_subset(const json_t *sub, const json_t *full);

/* Runs one case file against a fresh registry. Returns NULL when it passed,
 * else a new message (free()). */
char *wgt_connect_run_case(wgt_replay *r, const char *path);

/* Runs every *.json case under tests/data/connect/<service>/ and checks
 * that each action of the connector has at least one case. Returns the
 * number of failures; messages go to stderr. *ran receives the count. */
int wgt_connect_run_service(const char *service, int *ran);

#endif

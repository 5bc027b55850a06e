/* metrics.h - GET /metrics: the service's counters in the Prometheus text
 * exposition format (version 0.0.4), behind the API token like every route.
 *
 *   waggle_http_requests_total{route,method,code}      answered requests
 *   waggle_http_request_duration_seconds{route}        latency histogram
 *   waggle_gate_decisions_total{rule,confirm}          gate decisions of the
 *                                                      HTTP faces (gate/check,
 *                                                      tools/execute)
 *   waggle_connector_calls_total{connector}            connector tool runs and
 *   waggle_connector_errors_total{connector}           failures (engine events,
 *                                                      from any face)
 *   waggle_approvals_pending                           waiting for a person
 *   waggle_pool_keys{provider,state}                   credential pools: active,
 *                                                      cooldown, disabled
 *   waggle_http_in_flight, waggle_build_info{version}
 *
 * `route` is the route's pattern ("/api/connectors/:id/health"), never the
 * requested path, so label sets stay bounded; an unmatched request counts
 * under route="(none)". Rules and connectors are bounded tables (past
 * METRICS_NAMES_MAX distinct names, the rest count as "(other)").
 *
 * Thread-safety: every recording function may be called from any thread at
 * any time (atomics, and a mutex for the named tables); rendering reads a
 * consistent-enough snapshot (each counter is exact, the set is not one
 * instant). Nothing here allocates on the request path except a first
 * sighting of a rule or connector name.
 */
#ifndef WAGGLE_SERVER_METRICS_H
#define WAGGLE_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "server/route.h"

enum { METRICS_NAMES_MAX = 256 };

typedef struct wg_metrics wg_metrics;

/* The metrics area's state (wg_server__area_state(ctx, "metrics")), or NULL
 * when the area did not start: every recording function accepts NULL. */
wg_metrics *wg_metrics__of(const wg_server_ctx *ctx);

/* One answered request: its route row (index into the server's route
 * table, or SIZE_MAX when no route matched), method name, status and
 * duration in microseconds. */
void wg_metrics__request(wg_metrics *m, size_t route, const char *method, int status,
                         uint64_t us);

/* One gate decision. */
void wg_metrics__gate(wg_metrics *m, const char *rule, int needs_confirmation);

#endif

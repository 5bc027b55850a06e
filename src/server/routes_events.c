/* routes_events.c - GET /api/events: every call's step events as
 * server-sent events (spec 7.5), token-authenticated like every /api/
 * route - a dashboard's live approval queue: `approval_required` (with the
 * approval id to answer through POST /api/approval/:id), `step`, `result`
 * and `error` for every session, as the engine's bus carries them (local
 * calls, and other replicas' once a bus feed is configured; engine.h). The
 * stream never ends on its own; ": heartbeat" comments keep it open. */
#include "server/route.h"
#include "server/sse.h"

static int events(wg_res *res, const wg_req *req)
{
    return wg_sse__events(res, req);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET, "/api/events", events, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_events = {
    "events", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

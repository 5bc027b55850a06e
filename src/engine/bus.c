/* bus.c - the engine's event bus (spec 7.5 step events): every event of
 * every call goes to the call's own callback, then to each subscriber
 * (GET /api/events, a dashboard's live approval queue), then out through
 * the bus seam (wg_engine_bus.forward) for other replicas.
 *
 * Replicas (the interface a later PostgreSQL LISTEN/NOTIFY feed plugs
 * into): a replica sets options.bus.forward to publish each event it makes
 * (NOTIFY waggle_events, '<name> <json>'), and a listener thread of its own
 * calls wg_engine_publish_remote for every notification that another
 * replica sent; remote events reach local subscribers and are never
 * forwarded again, so nothing loops. Events carry the approval id, so a
 * stream waiting for an approval on one replica sees it resolved on
 * another.
 *
 * Subscribers are called under bus_mu, so wg_engine_unsubscribe returning
 * means the callback is neither running nor will run again; callbacks must
 * therefore be quick and must not call back into the engine. */
#include "engine/engine_int.h"
#include "waggle/error.h"

#include <string.h>

static const struct {
    wg_engine_event_kind kind;
    const char *name;
} kinds[] = {
    { WG_ENGINE_EVENT_STEP, "step" },
    { WG_ENGINE_EVENT_APPROVAL_REQUIRED, "approval_required" },
    { WG_ENGINE_EVENT_RESULT, "result" },
    { WG_ENGINE_EVENT_ERROR, "error" },
};

static const char *kind_name(wg_engine_event_kind k)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].kind == k)
            return kinds[i].name;
    return "step";
}

static void deliver(wg_engine *e, const wg_engine_event *ev)
{
    pthread_mutex_lock(&e->bus_mu);
    for (size_t i = 0; i < e->n_subs; i++)
        e->subs[i].fn(e->subs[i].ud, ev);
    pthread_mutex_unlock(&e->bus_mu);
}

void wg_engine__emit(wg_engine *e, const wg_engine_ctx *ctx, wg_engine_event_kind kind,
                     const char *tool, const char *approval_id, const char *session_id,
                     const json_t *data)
{
    if (!data)
        return;   /* out of memory building it: the step is lost, the call is not */
    wg_engine_event ev = { kind, kind_name(kind), data, tool ? tool : "",
                           approval_id && *approval_id ? approval_id : NULL, session_id,
                           ctx };
    if (ctx && ctx->on_event)
        ctx->on_event(ctx->event_ud, &ev);
    deliver(e, &ev);
    if (e->bus.forward)
        e->bus.forward(e->bus.ctx, ev.name, data);
}

int wg_engine_publish_remote(wg_engine *e, const char *name, const json_t *data)
{
    if (!e || !name || !json_is_object(data))
        return wg_error_set(WG_EINVAL, "wg_engine_publish_remote: a name and an object are required");
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (strcmp(kinds[i].name, name) != 0)
            continue;
        const char *tool = json_string_value(json_object_get(data, "tool"));
        if (!tool)
            tool = json_string_value(json_object_get(data, "toolName"));
        wg_engine_event ev = { kinds[i].kind, kinds[i].name, data, tool ? tool : "",
                               json_string_value(json_object_get(data, "approvalId")),
                               json_string_value(json_object_get(data, "sessionId")), NULL };
        deliver(e, &ev);
        return 0;
    }
    return wg_error_set(WG_EINVAL, "unknown event name (step, approval_required, result, error)");
}

int wg_engine_subscribe(uint64_t *token, wg_engine *e, wg_engine_event_fn fn, void *ud)
{
    if (!token || !e || !fn)
        return wg_error_set(WG_EINVAL, "wg_engine_subscribe: NULL argument");
    pthread_mutex_lock(&e->bus_mu);
    int rc = 0;
    if (e->n_subs == ENGINE_SUBSCRIBERS_MAX) {
        rc = wg_error_set(WG_EBUSY, "at most %d event subscribers", ENGINE_SUBSCRIBERS_MAX);
    } else {
        *token = e->next_token++;
        e->subs[e->n_subs++] = (engine_sub){ *token, fn, ud };
    }
    pthread_mutex_unlock(&e->bus_mu);
    return rc;
}

void wg_engine_unsubscribe(wg_engine *e, uint64_t token)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->bus_mu);
    for (size_t i = 0; i < e->n_subs; i++) {
        if (e->subs[i].token == token) {
            e->subs[i] = e->subs[--e->n_subs];
            break;
        }
    }
    pthread_mutex_unlock(&e->bus_mu);
}

void wg_engine__bus_fini(wg_engine *e)
{
    pthread_mutex_lock(&e->bus_mu);
    e->n_subs = 0;
    pthread_mutex_unlock(&e->bus_mu);
}

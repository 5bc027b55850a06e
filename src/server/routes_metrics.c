/* routes_metrics.c - the metrics area: counters (metrics.h) and
 * GET /metrics, which renders them with the gauges read at scrape time. */
#include "core/sbuf.h"
#include "server/metrics.h"
#include "server/server_int.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/pool.h"
#include "waggle/vault.h"
#include "waggle/version.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Latency buckets, seconds (µs below). */
static const uint64_t BUCKET_US[] = { 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000,
                                      250000, 500000, 1000000, 2500000, 5000000 };
enum { N_BUCKETS = sizeof BUCKET_US / sizeof BUCKET_US[0] };

/* Statuses counted one by one; any other counts under its class. */
static const int STATUSES[] = { 200, 201, 202, 204, 304, 400, 401, 403, 404, 405, 409, 410,
                                413, 414, 429, 431, 500, 502, 503 };
enum { N_STATUS = sizeof STATUSES / sizeof STATUSES[0], N_CODES = N_STATUS + 5 /* 1xx..5xx */ };

/* Methods, as the route table knows them, plus "other". */
static const char *const METHODS[] = { "GET", "POST", "PUT", "PATCH", "DELETE", "other" };
enum { N_METHODS = sizeof METHODS / sizeof METHODS[0] };

typedef struct route_stats {
    atomic_uint_fast64_t code[N_METHODS][N_CODES];
    atomic_uint_fast64_t bucket[N_BUCKETS + 1];   /* the last is +Inf */
    atomic_uint_fast64_t sum_us, count;
} route_stats;

/* A bounded table of names (rules, connectors) with counters. */
typedef struct named {
    char *name[METRICS_NAMES_MAX];
    uint64_t a[METRICS_NAMES_MAX + 1], b[METRICS_NAMES_MAX + 1];   /* + "(other)" */
    size_t n;
} named;

struct wg_metrics {
    const wg_server_ctx *ctx;
    const wg_route_table *table;
    route_stats *routes;            /* table->n rows, then one for "(none)" */
    pthread_mutex_t lock;           /* gates, connectors */
    named gates;                    /* a: no confirmation, b: needs confirmation */
    named connectors;               /* a: calls, b: errors */
    uint64_t bus_token;
};

wg_metrics *wg_metrics__of(const wg_server_ctx *ctx)
{
    return ctx ? wg_server__area_state(ctx, "metrics") : NULL;
}

/* ---- recording ----------------------------------------------------------- */

static size_t code_slot(int status)
{
    for (size_t i = 0; i < N_STATUS; i++)
        if (STATUSES[i] == status)
            return i;
    int cls = status / 100;
    return N_STATUS + (size_t)(cls >= 1 && cls <= 5 ? cls - 1 : 4);
}

static size_t method_slot(const char *method)
{
    for (size_t i = 0; i + 1 < N_METHODS; i++)
        if (method && !strcmp(method, METHODS[i]))
            return i;
    return N_METHODS - 1;
}

void wg_metrics__request(wg_metrics *m, size_t route, const char *method, int status,
                         uint64_t us)
{
    if (!m)
        return;
    route_stats *r = &m->routes[route < m->table->n ? route : m->table->n];
    atomic_fetch_add(&r->code[method_slot(method)][code_slot(status)], 1);
    size_t b = 0;
    while (b < N_BUCKETS && us > BUCKET_US[b])
        b++;
    atomic_fetch_add(&r->bucket[b], 1);
    atomic_fetch_add(&r->sum_us, us);
    atomic_fetch_add(&r->count, 1);
}

/* The slot of name in t (added when new and room is left); caller locks. */
static size_t name_slot(named *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->name[i], name))
            return i;
    if (t->n == METRICS_NAMES_MAX || strlen(name) > 128)
        return METRICS_NAMES_MAX;
    char *copy = strdup(name);
    if (!copy)
        return METRICS_NAMES_MAX;
    t->name[t->n] = copy;
    return t->n++;
}

static void count_named(wg_metrics *m, named *t, const char *name, int second)
{
    pthread_mutex_lock(&m->lock);
    size_t i = name_slot(t, name && *name ? name : "(none)");
    if (second)
        t->b[i]++;
    else
        t->a[i]++;
    pthread_mutex_unlock(&m->lock);
}

void wg_metrics__gate(wg_metrics *m, const char *rule, int needs_confirmation)
{
    if (m)
        count_named(m, &m->gates, rule, needs_confirmation);
}

/* Engine events: a connector tool's result or error, from any face. The
 * tool is connector_<id>_<action>; ids hold no '_'. */
static void on_event(void *ud, const wg_engine_event *ev)
{
    wg_metrics *m = ud;
    if (ev->kind != WG_ENGINE_EVENT_RESULT && ev->kind != WG_ENGINE_EVENT_ERROR)
        return;
    static const char prefix[] = "connector_";
    if (strncmp(ev->tool, prefix, sizeof prefix - 1) != 0)
        return;
    const char *id = ev->tool + sizeof prefix - 1;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(id, "_"), id);
    int failed = ev->kind == WG_ENGINE_EVENT_ERROR;
    if (!failed) {
        /* a result whose connector answer says success:false is an error too */
        const json_t *result = json_object_get(ev->data, "result");
        failed = json_is_false(json_object_get(result, "success"));
    }
    count_named(m, &m->connectors, name, 0);
    if (failed)
        count_named(m, &m->connectors, name, 1);
}

/* ---- rendering ------------------------------------------------------------ */

/* A label value with \ " and newline escaped, as the format asks. */
static void put_label(wg_sbuf *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            wg_sbuf__printf(o, "\\%c", *s);
        else if (*s == '\n')
            wg_sbuf__printf(o, "\\n");
        else
            wg_sbuf__printf(o, "%c", *s);
    }
}

static const char *route_name(const wg_metrics *m, size_t i)
{
    return i < m->table->n ? m->table->rows[i].route->path : "(none)";
}

static void render_requests(wg_sbuf *o, const wg_metrics *m)
{
    wg_sbuf__printf(o, "# HELP waggle_http_requests_total Answered HTTP requests by route pattern, method "
                       "and status.\n# TYPE waggle_http_requests_total counter\n");
    for (size_t i = 0; i <= m->table->n; i++)
        for (size_t k = 0; k < N_METHODS; k++)
            for (size_t c = 0; c < N_CODES; c++) {
                uint64_t v = atomic_load(&m->routes[i].code[k][c]);
                if (!v)
                    continue;
                wg_sbuf__printf(o, "waggle_http_requests_total{route=\"");
                put_label(o, route_name(m, i));
                if (c < N_STATUS)
                    wg_sbuf__printf(o, "\",method=\"%s\",code=\"%d\"} %llu\n", METHODS[k], STATUSES[c],
                                    (unsigned long long)v);
                else
                    wg_sbuf__printf(o, "\",method=\"%s\",code=\"%zuxx\"} %llu\n", METHODS[k], c - N_STATUS + 1,
                                    (unsigned long long)v);
            }
    wg_sbuf__printf(o, "# HELP waggle_http_request_duration_seconds Time from request line to answer.\n"
                       "# TYPE waggle_http_request_duration_seconds histogram\n");
    for (size_t i = 0; i <= m->table->n; i++) {
        const route_stats *r = &m->routes[i];
        uint64_t count = atomic_load(&r->count), cum = 0;
        if (!count)
            continue;
        for (size_t b = 0; b <= N_BUCKETS; b++) {
            cum += atomic_load(&r->bucket[b]);
            wg_sbuf__printf(o, "waggle_http_request_duration_seconds_bucket{route=\"");
            put_label(o, route_name(m, i));
            if (b < N_BUCKETS)
                wg_sbuf__printf(o, "\",le=\"%g\"} %llu\n", (double)BUCKET_US[b] / 1e6, (unsigned long long)cum);
            else
                wg_sbuf__printf(o, "\",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
        }
        wg_sbuf__printf(o, "waggle_http_request_duration_seconds_sum{route=\"");
        put_label(o, route_name(m, i));
        wg_sbuf__printf(o, "\"} %.6f\n", (double)atomic_load(&r->sum_us) / 1e6);
        wg_sbuf__printf(o, "waggle_http_request_duration_seconds_count{route=\"");
        put_label(o, route_name(m, i));
        wg_sbuf__printf(o, "\"} %llu\n", (unsigned long long)count);
    }
}

/* One column of a named table as samples of metric: name{label="N"extra} v. */
static void render_named(wg_sbuf *o, const named *t, const char *metric, const char *label,
                         int column, const char *extra)
{
    for (size_t i = 0; i <= t->n; i++) {
        size_t slot = i < t->n ? i : METRICS_NAMES_MAX;
        uint64_t v = column ? t->b[slot] : t->a[slot];
        if (!v)
            continue;
        wg_sbuf__printf(o, "%s{%s=\"", metric, label);
        put_label(o, i < t->n ? t->name[i] : "(other)");
        wg_sbuf__printf(o, "\"%s} %llu\n", extra, (unsigned long long)v);
    }
}

/* Credential pools: the vault's entries that are API keys (names without
 * ':'), grouped as providers NAME, NAME-2 ... NAME-10. */
static void render_pools(wg_sbuf *o, const wg_metrics *m)
{
    wg_sbuf__printf(o, "# HELP waggle_pool_keys Credential pool keys by state.\n# TYPE waggle_pool_keys gauge\n");
    wg_vault_entry *list = NULL;
    size_t n = 0;
    if (wg_vault_list(&list, &n, m->ctx->vault_db, NULL) < 0)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *name = list[i].name;
        size_t len = strlen(name);
        const char *dash = strrchr(name, '-');
        if (strchr(name, ':') || (dash && strspn(dash + 1, "0123456789") == strlen(dash + 1) &&
                                  dash[1] != '\0'))
            continue;   /* a connector credential, or NAME-N (counted with NAME) */
        wg_pool *p = NULL;
        json_t *st = NULL;
        if (len > 128 || wg_engine_pool(&p, m->ctx->engine, name, WG_POOL_DEFAULT_MAX_KEYS) < 0 ||
            wg_pool_status(&st, p) < 0)
            continue;
        static const struct { const char *field, *state; } states[] = {
            { "activeKeys", "active" }, { "cooldownKeys", "cooldown" }, { "disabledKeys", "disabled" },
        };
        for (size_t s = 0; s < sizeof states / sizeof *states; s++) {
            wg_sbuf__printf(o, "waggle_pool_keys{provider=\"");
            put_label(o, name);
            wg_sbuf__printf(o, "\",state=\"%s\"} %lld\n", states[s].state,
                            (long long)json_integer_value(json_object_get(st, states[s].field)));
        }
        json_decref(st);
    }
    wg_vault_entries_free(list, n);
}

static int metrics(wg_res *res, const wg_req *req)
{
    wg_metrics *m = req->area_state;
    wg_sbuf o = { 0 };
    wg_sbuf__printf(&o, "# HELP waggle_build_info The running version.\n# TYPE waggle_build_info gauge\n"
                        "waggle_build_info{version=\"%s\"} 1\n", wg_version());
    const wg_server *srv = m->ctx->priv;
    wg_sbuf__printf(&o, "# TYPE waggle_http_in_flight gauge\nwaggle_http_in_flight %ld\n",
                    atomic_load(&srv->in_flight));
    render_requests(&o, m);
    wg_sbuf__printf(&o, "# HELP waggle_gate_decisions_total Gate decisions of the HTTP faces by rule and "
                        "whether a person must confirm.\n# TYPE waggle_gate_decisions_total counter\n");
    pthread_mutex_lock(&m->lock);
    render_named(&o, &m->gates, "waggle_gate_decisions_total", "rule", 0, ",confirm=\"no\"");
    render_named(&o, &m->gates, "waggle_gate_decisions_total", "rule", 1, ",confirm=\"yes\"");
    wg_sbuf__printf(&o, "# HELP waggle_connector_calls_total Connector tool runs, from any face.\n"
                        "# TYPE waggle_connector_calls_total counter\n");
    render_named(&o, &m->connectors, "waggle_connector_calls_total", "connector", 0, "");
    wg_sbuf__printf(&o, "# HELP waggle_connector_errors_total Connector tool runs that failed.\n"
                        "# TYPE waggle_connector_errors_total counter\n");
    render_named(&o, &m->connectors, "waggle_connector_errors_total", "connector", 1, "");
    pthread_mutex_unlock(&m->lock);
    wg_engine_approval *a = NULL;
    size_t pending = 0;
    if (wg_engine_approvals(&a, &pending, m->ctx->engine, 0, 100000) == 0)
        wg_engine_approvals_free(a, pending);
    wg_sbuf__printf(&o, "# HELP waggle_approvals_pending Tool calls waiting for a person.\n"
                        "# TYPE waggle_approvals_pending gauge\nwaggle_approvals_pending %zu\n", pending);
    render_pools(&o, m);
    if (o.oom) {
        free(o.p);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    return wg_res_text(res, 200, "text/plain; version=0.0.4; charset=utf-8", o.p, o.len);
}

/* ---- the area -------------------------------------------------------------- */

static int init(void **state, wg_server_ctx *ctx)
{
    const wg_server *srv = ctx->priv;
    wg_metrics *m = calloc(1, sizeof *m);
    if (!m)
        return wg_error_set(WG_ENOMEM, "out of memory");
    m->ctx = ctx;
    m->table = &srv->table;
    m->routes = calloc(srv->table.n + 1, sizeof *m->routes);
    if (!m->routes) {
        free(m);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&m->lock, NULL);
    if (wg_engine_subscribe(&m->bus_token, ctx->engine, on_event, m) < 0)
        m->bus_token = 0;   /* connector counts stay at zero; the rest works */
    *state = m;
    return 0;
}

static void fini(void *state)
{
    wg_metrics *m = state;
    if (!m)
        return;
    if (m->bus_token)
        wg_engine_unsubscribe(m->ctx->engine, m->bus_token);
    for (size_t i = 0; i < m->gates.n; i++)
        free(m->gates.name[i]);
    for (size_t i = 0; i < m->connectors.n; i++)
        free(m->connectors.name[i]);
    pthread_mutex_destroy(&m->lock);
    free(m->routes);
    free(m);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET, "/metrics", metrics, WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_metrics = {
    "metrics", routes, sizeof routes / sizeof routes[0], init, fini,
};

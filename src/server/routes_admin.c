/* routes_admin.c - team and admin views (spec 10 gated routes).
 *   POST /api/cost/events {workspaceId, costUsd, model?, inputTokens?,
 *        outputTokens?}                      records one cost event (any tier;
 *        agents report what they spent) in DATA_DIR/cost-events.jsonl
 *   GET  /api/cost/by-workspace  (TEAMS)     sums of the recorded events
 *   POST /api/cloud-sync/toggle {enabled}  (TEAMS) the cloudSync setting in
 *        config.json; there is no sync service in this subsystem, so the
 *        setting is what it changes (documented in docs/server.md)
 *   GET  /api/admin/overview     (TEAMS)     counts: connectors, skills,
 *        plugins, personas, audit rows, pool keys (vault entries outside the
 *        connector:/kvark:/team: namespaces)
 * Audit export lives in routes_audit.c. */
#include "store/files.h"
#include "store/tree.h"
#include "waggle/personas.h"
#include "server/route.h"
#include "server/tiering.h"
#include "waggle/connector.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "waggle/error.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { COST_FILE_MAX = 64 * 1024 * 1024, WORKSPACE_MAX = 128 };

typedef struct {
    pthread_mutex_t lock;       /* appends to cost-events.jsonl */
} admin_state;

static int bad_field(wg_res *res, const char *field, const char *msg)
{
    return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                           field, "message", msg));
}

/* Replicas: cost events are rows of the shared store (migration 5). */
static int store_cost(wg_store *st, const char *ws, const char *line)
{
    unsigned char r[16];
    char id[33];
    randombytes_buf(r, sizeof r);
    sodium_bin2hex(id, sizeof id, r, sizeof r);
    wg_store_value p[4] = { WG_SV_TEXT(id), WG_SV_INT(wg_tiering__now_ms()), WG_SV_TEXT(ws),
                            WG_SV_TEXT(line) };
    return wg_store_exec(st, "INSERT INTO cost_events (id, created_ms, workspace_id, body)"
                         " VALUES (?, ?, ?, ?)", p, 4, NULL, NULL);
}

/* The shared store's events as the file's lines (at most COST_FILE_MAX bytes). */
static int load_costs(char **out, wg_store *st)
{
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(st, "SELECT body FROM cost_events ORDER BY created_ms, id", NULL, 0,
                           &rows, NULL);
    if (rc < 0)
        return rc;
    size_t total = 1, n = wg_store_rows_count(rows);
    for (size_t i = 0; i < n; i++)
        total += strlen(wg_store_rows_text(rows, i, 0)) + 1;
    if (total > COST_FILE_MAX) {
        wg_store_rows_free(rows);
        return wg_error_set(WG_EINVAL, "more than %d bytes of cost events", COST_FILE_MAX);
    }
    char *text = malloc(total), *w = text;
    for (size_t i = 0; text && i < n; i++) {
        size_t l = strlen(wg_store_rows_text(rows, i, 0));
        memcpy(w, wg_store_rows_text(rows, i, 0), l);
        w += l;
        *w++ = '\n';
    }
    if (text)
        *w = '\0';
    wg_store_rows_free(rows);
    if (!text)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = text;
    return 0;
}

static int record_cost(wg_res *res, const wg_req *req)
{
    admin_state *st = req->area_state;
    const char *ws = NULL, *model = NULL;
    long long in = 0, out = 0;
    json_t *cost = json_object_get(req->body, "costUsd");
    if (wg_body_string(res, req, "workspaceId", 1, &ws) < 0 ||
        wg_body_string(res, req, "model", 0, &model) < 0 ||
        wg_body_int(res, req, "inputTokens", 0, &in) < 0 ||
        wg_body_int(res, req, "outputTokens", 0, &out) < 0)
        return 0;
    if (!*ws || strlen(ws) > WORKSPACE_MAX)
        return bad_field(res, "workspaceId", "workspaceId must be 1-128 characters");
    if (!json_is_number(cost) || json_number_value(cost) < 0 || json_number_value(cost) > 1e9)
        return bad_field(res, "costUsd", "costUsd must be a number between 0 and 1e9");
    if (in < 0 || out < 0)
        return bad_field(res, in < 0 ? "inputTokens" : "outputTokens", "token counts must be >= 0");
    json_t *ev = json_pack("{s:s,s:f,s:I,s:I,s:s?,s:I}", "workspaceId", ws, "costUsd",
                           json_number_value(cost), "inputTokens", (json_int_t)in, "outputTokens",
                           (json_int_t)out, "model", model, "at", (json_int_t)wg_tiering__now_ms());
    char *line = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
    json_decref(ev);
    if (!line)
        return wg_error_set(WG_ENOMEM, "out of memory");
    wg_store *shared = req->ctx->store && wg_store_is_shared(req->ctx->store) ? req->ctx->store
                                                                              : NULL;
    if (shared) {
        int rc = store_cost(shared, ws, line);
        free(line);
        return rc < 0 ? rc : wg_res_json(res, 201, json_pack("{s:b}", "recorded", 1));
    }
    char *path = wg_files__join(req->ctx->data_dir, "cost-events.jsonl", NULL);
    size_t ll = strlen(line);
    line[ll] = '\n';      /* the NUL's byte carries the newline; the length is passed */
    pthread_mutex_lock(&st->lock);
    /* 0600, never through a symlink or into a FIFO (store/files.h). */
    int ok = path && wg_files__append(path, line, ll + 1) == 0;
    pthread_mutex_unlock(&st->lock);
    free(path);
    free(line);
    if (!ok)
        return wg_error_set(WG_EIO, "cannot record the cost event");
    return wg_res_json(res, 201, json_pack("{s:b}", "recorded", 1));
}

static int cost_by_workspace(wg_res *res, const wg_req *req)
{
    char *text = NULL;
    int rc;
    if (req->ctx->store && wg_store_is_shared(req->ctx->store)) {
        rc = load_costs(&text, req->ctx->store);
    } else {
        char *path = wg_files__join(req->ctx->data_dir, "cost-events.jsonl", NULL);
        rc = path ? wg_files__read(&text, NULL, path, COST_FILE_MAX) : WG_ENOMEM;
        free(path);
    }
    if (rc < 0 && rc != WG_ENOTFOUND)
        return rc;
    json_t *by = json_object();   /* workspaceId -> totals, in first-seen order */
    double total = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        json_t *ev = json_loads(line, 0, NULL);
        const char *ws = json_string_value(json_object_get(ev, "workspaceId"));
        if (ws) {
            json_t *t = json_object_get(by, ws);
            if (!t) {
                t = json_pack("{s:s,s:i,s:f,s:i,s:i}", "workspaceId", ws, "events", 0, "costUsd",
                              0.0, "inputTokens", 0, "outputTokens", 0);
                json_object_set_new(by, ws, t);
            }
            double c = json_number_value(json_object_get(ev, "costUsd"));
            total += c;
            json_object_set_new(t, "events", json_integer(json_integer_value(json_object_get(t, "events")) + 1));
            json_object_set_new(t, "costUsd", json_real(json_real_value(json_object_get(t, "costUsd")) + c));
            static const char *const counts[] = { "inputTokens", "outputTokens" };
            for (int i = 0; i < 2; i++)
                json_object_set_new(t, counts[i], json_integer(
                    json_integer_value(json_object_get(t, counts[i])) +
                    json_integer_value(json_object_get(ev, counts[i]))));
        }
        json_decref(ev);
    }
    free(text);
    json_t *list = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(by, k, v)
        json_array_append(list, v);
    json_decref(by);
    return wg_res_json(res, 200, json_pack("{s:o,s:f}", "workspaces", list, "totalCostUsd", total));
}

static void set_sync(json_t *cfg, const void *arg)
{
    json_object_set_new(cfg, "cloudSync", json_pack("{s:b,s:I}", "enabled", *(const int *)arg,
                        "updatedAt", (json_int_t)wg_tiering__now_ms()));
}

static int cloud_sync(wg_res *res, const wg_req *req)
{
    int enabled = 0;
    if (wg_body_bool(res, req, "enabled", 1, &enabled) < 0)
        return 0;
    int rc = wg_server__config_edit(req->ctx, set_sync, &enabled);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:{s:b}}", "cloudSync", "enabled", enabled));
}

/* Regular files under DATA_DIR/<sub> whose name ends with suffix (or
 * directories when suffix is NULL). */
static int count_entries(const char *data_dir, const char *sub, const char *suffix)
{
    char *dir = wg_files__join(data_dir, sub, NULL);
    DIR *d = dir ? opendir(dir) : NULL;
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!wg_files__name_ok(e->d_name))
            continue;
        size_t l = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
        if (suffix ? (l > sl && strcmp(e->d_name + l - sl, suffix) == 0) : e->d_type == DT_DIR)
            n++;
    }
    if (d)
        closedir(d);
    free(dir);
    return n;
}

/* The same for replicas: the shared store's documents (store/tree.h); 0
 * when the store cannot list them. */
static int count_shared(wg_store *st, const char *sub, const char *leaf)
{
    char **names = NULL;
    size_t n = 0;
    if (wg_tree__list(&names, &n, st, NULL, sub, leaf) < 0) {
        wg_error_clear();
        return 0;
    }
    wg_store_doc_names_free(names);
    return (int)n;
}

/* Rows in the audit log; -1 when the store cannot say. */
static long long audit_rows(const wg_req *req)
{
    wg_store_rows *rows = NULL;
    long long n = -1;
    if (wg_store_exec(req->ctx->store, "SELECT COUNT(*) FROM audit_log", NULL, 0, &rows, NULL) == 0 &&
        wg_store_rows_count(rows) == 1)
        n = wg_store_rows_int(rows, 0, 0);
    wg_store_rows_free(rows);
    return n;
}

/* Provider API keys for the credential pool: vault entries outside the
 * connector:, kvark: and team: namespaces (spec 13 names them provider,
 * provider-2, ...). -1 when the vault cannot be listed. */
static long long pool_keys(const wg_req *req)
{
    static const char *const other[] = { "connector:", "kvark:", "team:" };
    wg_vault_entry *list = NULL;
    size_t n = 0;
    if (wg_vault_list(&list, &n, req->ctx->vault_db, NULL) < 0)
        return -1;
    long long keys = 0;
    for (size_t i = 0; i < n; i++) {
        int skip = 0;
        for (size_t k = 0; k < sizeof other / sizeof *other; k++)
            skip |= strncmp(list[i].name, other[k], strlen(other[k])) == 0;
        keys += !skip;
    }
    wg_vault_entries_free(list, n);
    return keys;
}

static json_t *count_or_null(long long n)
{
    return n < 0 ? json_null() : json_integer(n);
}

static int overview(wg_res *res, const wg_req *req)
{
    const wg_registry *reg = req->ctx->registry;
    size_t total = wg_registry_count(reg), connected = 0;
    for (size_t i = 0; i < total; i++)
        connected += (size_t)wg_registry_is_connected(reg, wg_registry_at(reg, i)->id);
    json_t *personas = NULL;
    int custom = 0;
    if (wg_personas_list_in(&personas, req->ctx->store, req->ctx->data_dir) == 0) {
        size_t i;
        json_t *p;
        json_array_foreach(personas, i, p)
            custom += json_is_true(json_object_get(p, "custom"));
    }
    json_decref(personas);
    wg_tier_info tier;
    wg_tiering__read(&tier, req->ctx);
    int shared = wg_tree__shared(req->ctx->store);
    int skills = shared ? count_shared(req->ctx->store, "skills", ".md")
                        : count_entries(req->ctx->data_dir, "skills", ".md");
    int plugins = shared ? count_shared(req->ctx->store, "plugins", "plugin.json")
                         : count_entries(req->ctx->data_dir, "plugins", NULL);
    return wg_res_json(res, 200, json_pack(
        "{s:s,s:{s:I,s:I},s:i,s:i,s:i,s:o,s:o}",
        "tier", tier.effective_name,
        "connectors", "total", (json_int_t)total, "connected", (json_int_t)connected,
        "skills", skills,
        "plugins", plugins,
        "customPersonas", custom,
        "auditEvents", count_or_null(audit_rows(req)),
        "poolKeys", count_or_null(pool_keys(req))));
}

static int init(void **state, wg_server_ctx *ctx)
{
    (void)ctx;
    admin_state *st = calloc(1, sizeof *st);
    if (!st)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&st->lock, NULL);
    *state = st;
    return 0;
}

static void fini(void *state)
{
    admin_state *st = state;
    if (!st)
        return;
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/api/cost/events",       record_cost,       WG_ROUTE_FREE,  0 },
    { WG_HTTP_GET,  "/api/cost/by-workspace", cost_by_workspace, WG_ROUTE_TEAMS, 0 },
    { WG_HTTP_POST, "/api/cloud-sync/toggle", cloud_sync,        WG_ROUTE_TEAMS, 0 },
    { WG_HTTP_GET,  "/api/admin/overview",    overview,          WG_ROUTE_TEAMS, 0 },
};

const wg_route_area wg_routes_admin = {
    "admin", routes, sizeof routes / sizeof routes[0], init, fini,
};

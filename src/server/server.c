/* server.c - the server handle (waggle/server.h): listen address parsing,
 * tokens, the route areas' start-up and shutdown, then http.c serves. */
#include "server/server_int.h"
#include "mcp/gateway.h"
#include "server/session.h"
#include "server/sse.h"
#include "engine/engine_int.h"
#include "store/config.h"
#include "store/files.h"
#include "waggle/datadir.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/token.h"
#include "waggle/version.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { DEFAULT_PORT = 3333, DEFAULT_TIMEOUT_S = 30 };

/* Splits "HOST:PORT", "[v6]:PORT", ":PORT" or "PORT". *host is new. */
static int parse_listen(char **host, unsigned *port, const char *listen)
{
    const char *h = "127.0.0.1";
    size_t hl = strlen(h);
    const char *p = NULL;
    if (!listen || !*listen) {
        *port = DEFAULT_PORT;
    } else if (listen[0] == '[') {
        const char *close = strchr(listen, ']');
        if (!close || close[1] != ':')
            return wg_error_set(WG_EINVAL, "listen address %s: expected [IPv6]:PORT", listen);
        h = listen + 1;
        hl = (size_t)(close - h);
        p = close + 2;
    } else if (strchr(listen, ':')) {
        const char *colon = strrchr(listen, ':');
        if (colon != listen) {
            h = listen;
            hl = (size_t)(colon - listen);
        }
        p = colon + 1;
    } else {
        p = listen;
    }
    if (p) {
        if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5 || atol(p) > 65535)
            return wg_error_set(WG_EINVAL, "listen address %s: the port must be 0-65535", listen);
        *port = (unsigned)atol(p);
    }
    if (hl == 9 && strncmp(h, "localhost", 9) == 0) {
        h = "127.0.0.1";
        hl = 9;
    }
    char *copy = strndup(h, hl);
    if (!copy)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *host = copy;
    return 0;
}

static char **copy_list(const char *const *list)
{
    size_t n = 0;
    while (list && list[n])
        n++;
    char **out = calloc(n + 1, sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(out[i] = strdup(list[i]))) {
            for (size_t j = 0; j < i; j++)
                free(out[j]);
            free(out);
            return NULL;
        }
    }
    return out;
}

static void free_list(char **list)
{
    for (char **p = list; p && *p; p++)
        free(*p);
    free(list);
}

static void release(wg_server *srv)
{
    for (size_t a = srv->n_areas_inited; a-- > 0;)
        if (wg_server__areas[a]->fini)
            wg_server__areas[a]->fini(srv->area_state[a]);
    free(srv->area_state);
    wg_replica__stop(srv);
    wg_sse__hub_free(srv->sse);
    wg_mcp__gateway_free(srv->ctx.gateway);   /* its children, before the engine they use */
    wg_engine_free(srv->engine);
    wg_route__table_free(&srv->table);
    free_list(srv->allowed_hosts);
    free_list(srv->cors_origins);
    free_list(srv->obsidian_roots);
    if (srv->api_token)
        sodium_memzero(srv->api_token, strlen(srv->api_token));
    if (srv->admin_token)
        sodium_memzero(srv->admin_token, strlen(srv->admin_token));
    free(srv->api_token);
    free(srv->admin_token);
    free(srv->listen_host);
    free(srv->data_dir);
    pthread_mutex_destroy(&srv->config_lock);
    free(srv);
}

static int init_tokens(wg_server *srv, const char *given)
{
    int rc;
    if (given && *given) {
        if ((rc = wg_token_check(given, "the API token (WAGGLE_API_TOKEN)")) < 0)
            return rc;
        if (!(srv->api_token = strdup(given)))
            return wg_error_set(WG_ENOMEM, "out of memory");
    } else if ((rc = wg_token__load_or_create(&srv->api_token, srv->data_dir, "api-token")) < 0) {
        return rc;
    }
    if ((rc = wg_token__load_or_create(&srv->admin_token, srv->data_dir, "admin-token")) < 0)
        return rc;
    if (strcmp(srv->api_token, srv->admin_token) == 0)
        return wg_error_set(WG_EINVAL, "the API token and the admin token must differ");
    crypto_generichash(srv->api_hash, sizeof srv->api_hash,
                       (const unsigned char *)srv->api_token, strlen(srv->api_token), NULL, 0);
    crypto_generichash(srv->admin_hash, sizeof srv->admin_hash,
                       (const unsigned char *)srv->admin_token, strlen(srv->admin_token),
                       NULL, 0);
    return 0;
}

static void log_engine(void *ud, const char *line)
{
    wg_server *srv = ud;
    wg_server__logf(&srv->ctx, "%s", line);
}

/* An MCP gateway upstream's state change (mcp/gateway.h): one log line,
 * the quote and backslash of its text made '\'' so the value stays one. */
static void log_upstream(void *ud, const char *server, const char *line)
{
    wg_server *srv = ud;
    char text[400];
    size_t i = 0;
    for (; line[i] && i + 1 < sizeof text; i++)
        text[i] = line[i] == '"' || line[i] == '\\' ? '\'' : line[i];
    text[i] = '\0';
    wg_server__logf(&srv->ctx, "gateway server=%s message=\"%s\"", server, text);
}

/* The engine (waggle/engine.h) owns every handle; the server opens them
 * all at start (a service uses every part, and a broken store should stop
 * it at once) and lends them to the areas through wg_server_ctx. */
static int init_handles(wg_server *srv, const wg_server_options *opt)
{
    wg_engine_options eo = WG_ENGINE_OPTIONS_INIT;
    eo.data_dir = srv->data_dir;
    eo.actor = "api";
    eo.demo = opt->demo;
    eo.autonomy_cap_ms = opt->autonomy_cap_ms;
    eo.approval_ttl_ms = (int64_t)opt->approval_ttl_s * 1000;
    eo.never_autopass = opt->never_autopass;
    eo.allow_private_upstreams = srv->allow_private_upstreams;
    eo.allow_http_upstreams = srv->allow_http_upstreams;
    eo.allow_privileged_db_roles = srv->allow_privileged_db_roles;
    eo.obsidian_roots = (const char *const *)srv->obsidian_roots;
    eo.log = log_engine;
    eo.log_ud = srv;
    wg_replica__bus(srv, &eo.bus);
    int rc = 0;
    if (opt->max_autonomy && wg_autonomy_parse(&eo.max_autonomy, opt->max_autonomy) < 0)
        return wg_error_set(WG_EINVAL, "max_autonomy must be normal, trusted or yolo");
    wg_engine *e = NULL;
    if ((rc = wg_engine_open(&e, &eo)) < 0)
        return rc;
    srv->engine = e;
    srv->ctx.engine = e;
    if (opt->gateway) {
        wg_gw_config cfg;
        if ((rc = wg_mcp__gw_config_load(&cfg, opt->gateway)) < 0)
            return rc;
        wg_gateway_options go = { .stderr_fd = -1, .log = log_upstream, .log_ud = srv };
        rc = wg_mcp__gateway_start(&srv->ctx.gateway, e, &cfg, &go);
        wg_mcp__gw_config_free(&cfg);
        if (rc < 0)
            return rc;
        /* so the first GET /api/tools already has their tools */
        wg_mcp__gateway_wait(srv->ctx.gateway, 15000);
    }
    wg_registry *reg = NULL;
    if ((rc = wg_engine_trust(&srv->ctx.trust, e)) < 0 ||
        (rc = wg_engine_starter(&srv->ctx.starter, e)) < 0 ||
        (rc = wg_engine_catalog(&srv->ctx.catalog, e)) < 0 ||
        (rc = wg_engine_store(&srv->ctx.store, e)) < 0 ||
        (rc = wg_engine_vault(&srv->ctx.vault_db, e)) < 0 ||
        (rc = wg_engine_audit(&srv->ctx.audit, e)) < 0 ||
        (rc = wg_engine_registry(&reg, e)) < 0)
        return rc;
    srv->ctx.registry = reg;
    wg_connect_vault_of(&srv->vault_seam, srv->ctx.vault_db);
    srv->ctx.vault = &srv->vault_seam;
    wg_autonomy_policy pol;
    wg_engine_autonomy_policy(&pol, e);
    srv->ctx.autonomy_cap_ms = pol.cap_ms;
    return 0;
}

static int init_areas(wg_server *srv)
{
    size_t n = 0;
    while (wg_server__areas[n])
        n++;
    srv->n_areas = n;
    if (!(srv->area_state = calloc(n ? n : 1, sizeof *srv->area_state)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t a = 0; a < n; a++) {
        const wg_route_area *area = wg_server__areas[a];
        if (area->init) {
            int rc = area->init(&srv->area_state[a], &srv->ctx);
            if (rc < 0)
                return rc;
        }
        srv->n_areas_inited = a + 1;
    }
    return 0;
}

int wg_server_start(wg_server **out, const wg_server_options *opt)
{
    if (!out || !opt || !opt->data_dir || !*opt->data_dir)
        return wg_error_set(WG_EINVAL, "wg_server_start: data_dir is required");
    if (opt->version != WG_SERVER_OPTIONS_VERSION)
        return wg_error_set(WG_EINVAL, "wg_server_options version %u, this library knows %d "
                            "(start from WG_SERVER_OPTIONS_INIT)", opt->version,
                            WG_SERVER_OPTIONS_VERSION);
    if (opt->autonomy_cap_ms < 0)
        return wg_error_set(WG_EINVAL, "the autonomy cap must be positive (0 = the default "
                            "8 h); a cap is never unlimited");
    if (sodium_init() < 0)
        return wg_error_set(WG_EINTERNAL, "libsodium failed to initialise");
    wg_server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc;
    srv->log = opt->log;
    srv->log_ud = opt->log_ud;
    srv->data_dir = strdup(opt->data_dir);
    srv->allowed_hosts = copy_list(opt->allowed_hosts);
    srv->cors_origins = copy_list(opt->cors_origins);
    srv->obsidian_roots = copy_list(opt->obsidian_roots);
    if (!srv->data_dir || !srv->allowed_hosts || !srv->cors_origins || !srv->obsidian_roots) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto fail;
    }
    srv->ctx.data_dir = srv->data_dir;
    srv->ctx.demo = opt->demo;
    srv->allow_private_upstreams = opt->allow_private_upstreams != 0;
    srv->allow_http_upstreams = opt->allow_http_upstreams != 0;
    srv->allow_privileged_db_roles = opt->allow_privileged_db_roles != 0;
    srv->ctx.log = opt->log;
    srv->ctx.log_ud = opt->log_ud;
    srv->ctx.priv = srv;
    pthread_mutex_init(&srv->config_lock, NULL);

    unsigned port = DEFAULT_PORT;
    if ((rc = parse_listen(&srv->listen_host, &port, opt->listen)) < 0)
        goto fail;
    /* The data dir's own hygiene first (docs/security.md section 6). */
    if ((rc = wg_datadir_secure(srv->data_dir)) < 0 ||
        (rc = init_tokens(srv, opt->api_token)) < 0)
        goto fail;
    if ((rc = wg_route__table_build(&srv->table)) < 0)
        goto fail;
    if ((rc = init_handles(srv, opt)) < 0 || (rc = wg_replica__start(srv)) < 0)
        goto fail;
    if ((rc = wg_sse__hub_start(&srv->sse, srv->engine, opt->sse_heartbeat_ms,
                                 opt->sse_max_streams)) < 0)
        goto fail;
    srv->ctx.sse = srv->sse;
    if ((rc = init_areas(srv)) < 0)
        goto fail;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = opt->threads ? opt->threads : (cores > 0 ? (unsigned)cores : 1);
    wg_http_limits lim = { threads, opt->timeout_s ? opt->timeout_s : DEFAULT_TIMEOUT_S,
                           opt->max_connections, opt->max_connections_per_ip,
                           opt->request_deadline_s, opt->trusted_proxies, 0 };
    while (lim.trusted && lim.trusted[lim.n_trusted])
        lim.n_trusted++;
    if ((rc = wg_http__start(srv, srv->listen_host, port, &lim)) < 0)
        goto fail;
    wg_server__logf(&srv->ctx, "waggled %s listening on http://%s%s%s:%u data_dir=%s threads=%u",
                    wg_version(), strchr(srv->listen_host, ':') ? "[" : "", srv->listen_host,
                    strchr(srv->listen_host, ':') ? "]" : "", srv->port, srv->data_dir, threads);
    *out = srv;
    return 0;
fail:
    release(srv);
    return rc;
}

unsigned wg_server_port(const wg_server *srv)
{
    return srv ? srv->port : 0;
}

const char *wg_server_token(const wg_server *srv)
{
    return srv ? srv->api_token : NULL;
}

int wg_server_login_token(char **token, struct wg_store *st)
{
    if (!token || !st)
        return wg_error_set(WG_EINVAL, "wg_server_login_token: NULL argument");
    return wg_session__login_new(token, st, wg_session__now_ms());
}

int wg_server_login_url(char **url, wg_server *srv)
{
    if (!url || !srv)
        return wg_error_set(WG_EINVAL, "wg_server_login_url: NULL argument");
    const char *h = srv->listen_host;
    if (strcmp(h, "0.0.0.0") == 0)
        h = "127.0.0.1";
    else if (strcmp(h, "::") == 0)
        h = "::1";
    int v6 = strchr(h, ':') != NULL;
    char *tok = NULL;
    int rc = wg_server_login_token(&tok, srv->ctx.store);
    if (rc < 0)
        return rc;
    size_t cap = strlen(h) + strlen(tok) + 48;
    char *u = malloc(cap);
    if (u)
        snprintf(u, cap, "http://%s%s%s:%u/login#t=%s", v6 ? "[" : "", h, v6 ? "]" : "",
                 srv->port, tok);
    sodium_memzero(tok, strlen(tok));
    free(tok);
    if (!u)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *url = u;
    return 0;
}

void wg_server_stop(wg_server *srv)
{
    if (!srv)
        return;
    wg_http__stop(srv);
    wg_server__logf(&srv->ctx, "waggled stopped");
    release(srv);
}

/* The settings beside the tier (cloudSync, the team server): the store's
 * config module (store/config.h) edits DATA_DIR/config.json under flock
 * on config.json.lock, or the shared store's config under its write lock,
 * so no edit is lost between processes or replicas. */
typedef struct config_edit {
    void (*edit)(json_t *cfg, const void *arg);
    const void *arg;
} config_edit;

static int apply_edit(json_t *cfg, void *arg)
{
    const config_edit *ce = arg;
    ce->edit(cfg, ce->arg);
    return 0;
}

int wg_server__config_edit(const wg_server_ctx *ctx, void (*edit)(json_t *cfg, const void *arg),
                           const void *arg)
{
    wg_server *srv = ctx->priv;
    wg_store *st = NULL;
    int rc = wg_engine__shared_store(&st, srv->engine);
    if (rc < 0)
        return rc;
    config_edit ce = { edit, arg };
    pthread_mutex_lock(&srv->config_lock);
    rc = wg_config__edit(st, ctx->data_dir, apply_edit, &ce);
    pthread_mutex_unlock(&srv->config_lock);
    return rc;
}

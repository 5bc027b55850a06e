/* server.c - the server handle (waggle/server.h): listen address parsing,
 * tokens, the route areas' start-up and shutdown, then http.c serves. */
#include "server/server_int.h"
#include "store/files.h"
#include "waggle/catalog.h"
#include "waggle/acquire.h"
#include "waggle/audit.h"
#include "waggle/connector.h"
#include "waggle/datadir.h"
#include "waggle/gate.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "waggle/error.h"
#include "waggle/token.h"
#include "waggle/skills.h"
#include "waggle/trust.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { DEFAULT_PORT = 3333, DEFAULT_TIMEOUT_S = 30 };
static const long long DEFAULT_AUTONOMY_CAP_MS = 8LL * 3600 * 1000;
static const unsigned DEFAULT_APPROVAL_TTL_S = 300;   /* spec 7: pending approvals wait 5 min */

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
    /* Users of the store go first: gate and registry, then audit, vault
     * and the store itself (closed cleanly on shutdown). */
    wg_gate_free(srv->gate);
    wg_registry_free(srv->ctx.registry);
    wg_audit_free(srv->audit);
    wg_vault_free(srv->vault_db);
    wg_store_free(srv->store);
    wg_trust_free(srv->trust);
    wg_skillset_free(srv->starter);
    wg_catalog_free(srv->catalog);
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

/* Gate hooks: risk from the registry's table and the trust model, never
 * from call arguments (ARCHITECTURE decisions). */
static wg_risk_level hook_connector_risk(void *ctx, const char *tool)
{
    wg_server *srv = ctx;
    wg_risk_level r = WG_RISK_UNKNOWN;
    if (wg_registry_action_risk(&r, srv->ctx.registry, tool) < 0)
        return WG_RISK_UNKNOWN;
    return r;
}

static wg_risk_level hook_install_risk(void *ctx, const char *name, const char *source)
{
    wg_server *srv = ctx;
    return wg_acquire_install_risk(srv->trust, srv->starter, name, source);
}

/* The handles every area shares (route.h, wg_server_ctx). */
static int init_handles(wg_server *srv)
{
    int rc = wg_trust_new(&srv->trust);
    if (rc < 0 || (rc = wg_skillset_load_starter(&srv->starter)) < 0)
        return rc;
    srv->ctx.trust = srv->trust;
    srv->ctx.starter = srv->starter;
    /* A broken local catalog.json must not keep the service down: serve the
     * embedded catalog and say why in the log. */
    if (wg_catalog_open(&srv->catalog, srv->data_dir) < 0) {
        wg_server_logf(&srv->ctx, "warning: %s; serving the embedded catalog only", wg_error_last());
        if ((rc = wg_catalog_open_embedded(&srv->catalog)) < 0)
            return rc;
    }
    srv->ctx.catalog = srv->catalog;
    if ((rc = wg_store_open(&srv->store, srv->data_dir)) < 0 ||
        (rc = wg_vault_open(&srv->vault_db, srv->store)) < 0 ||
        (rc = wg_audit_open(&srv->audit, srv->store, srv->vault_db)) < 0)
        return rc;
    srv->ctx.store = srv->store;
    srv->ctx.vault_db = srv->vault_db;
    srv->ctx.audit = srv->audit;
    wg_connect_vault_of(&srv->vault_seam, srv->vault_db);
    srv->audit_seam = (wg_connect_audit){ srv->audit, wg_audit_seam_log };
    wg_registry_options ro = { 0 };
    ro.vault = &srv->vault_seam;
    ro.audit = &srv->audit_seam;
    ro.demo = srv->ctx.demo;
    ro.allow_private_upstreams = srv->allow_private_upstreams;
    ro.allow_http_upstreams = srv->allow_http_upstreams;
    ro.obsidian_roots = (const char *const *)srv->obsidian_roots;
    ro.data_dir = srv->data_dir;
    ro.allow_privileged_db_roles = srv->allow_privileged_db_roles;
    srv->ctx.vault = &srv->vault_seam;
    if ((rc = wg_registry_new(&srv->ctx.registry, &ro)) < 0)
        return rc;
    if ((rc = wg_registry_load(srv->ctx.registry)) < 0)
        return rc;
    wg_gate_hooks hooks = { srv, hook_connector_risk, hook_install_risk };
    if ((rc = wg_gate_new(&srv->gate, &hooks)) < 0)
        return rc;
    srv->ctx.gate = srv->gate;
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
    srv->ctx.autonomy_cap_ms = opt->autonomy_cap_ms > 0 ? opt->autonomy_cap_ms
                                                        : DEFAULT_AUTONOMY_CAP_MS;
    srv->ctx.approval_ttl_ms = (long long)(opt->approval_ttl_s > 0 ? opt->approval_ttl_s
                                                                   : DEFAULT_APPROVAL_TTL_S) * 1000;
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
    if ((rc = init_handles(srv)) < 0)
        goto fail;
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
    wg_server_logf(&srv->ctx, "waggled %s listening on http://%s%s%s:%u data_dir=%s threads=%u",
                   WAGGLE_VERSION, strchr(srv->listen_host, ':') ? "[" : "", srv->listen_host,
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

void wg_server_stop(wg_server *srv)
{
    if (!srv)
        return;
    wg_http__stop(srv);
    wg_server_logf(&srv->ctx, "waggled stopped");
    release(srv);
}

#define CONFIG_MAX (1 << 20)   /* as the tier module's config.json limit */

/* config.json is also written by the store's tier module (and by other
 * processes): both take flock on DATA_DIR/config.json.lock, so no edit is
 * lost between them. */
static int lock_config(const char *data_dir)
{
    char *path = wg_files__join(data_dir, "config.json.lock", NULL);
    int fd = path ? wg_files__lock(path) : wg_error_set(WG_ENOMEM, "out of memory");
    free(path);
    return fd;
}

int wg_server_config_edit(const wg_server_ctx *ctx, void (*edit)(json_t *cfg, const void *arg),
                          const void *arg)
{
    wg_server *srv = ctx->priv;
    char *path = wg_files__join(ctx->data_dir, "config.json", NULL);
    if (!path)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_lock(&srv->config_lock);
    int fd = lock_config(ctx->data_dir);
    if (fd < 0) {
        pthread_mutex_unlock(&srv->config_lock);
        free(path);
        return fd;
    }
    char *old = NULL;
    size_t old_len = 0;
    /* Never through a symlink or blocking on a FIFO; missing or broken is {}. */
    json_t *cfg = wg_files__read(&old, &old_len, path, CONFIG_MAX) == 0
                ? json_loadb(old, old_len, 0, NULL) : NULL;
    free(old);
    wg_error_clear();
    if (!json_is_object(cfg)) {
        json_decref(cfg);
        cfg = json_object();
    }
    edit(cfg, arg);
    char *text = json_dumps(cfg, JSON_INDENT(2));
    json_decref(cfg);
    int rc = text ? wg_files__write_atomic(path, text, strlen(text))
                  : wg_error_set(WG_ENOMEM, "out of memory");
    wg_files__unlock(fd);
    pthread_mutex_unlock(&srv->config_lock);
    free(text);
    free(path);
    return rc;
}

int wg_server_audit(const wg_server_ctx *ctx, const char *event, const char *tool,
                    const json_t *input, const char *decision, const char *rule)
{
    wg_audit_record rec = { event, "api", tool, input, decision, rule, 0 };
    int rc = wg_audit_append(ctx->audit, &rec, NULL);
    if (rc < 0)
        wg_server_logf(ctx, "error audit event=%s not written: %s", event, wg_error_last());
    return rc;
}

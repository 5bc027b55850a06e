/* engine.c - the engine handle (waggle/engine.h): options, the lazily
 * opened parts and the gate's hooks. Each part is opened once, under the
 * handle's mutex, on first use, and published so later calls read it
 * without the lock. The gate needs neither the store nor the catalog: its
 * connector-risk hook reads the registry when one is open and the built-in
 * connector tables otherwise (the same declared risk either way). */
#include "engine/engine_int.h"
#include "store/tree.h"
#include "store/config.h"
#include "waggle/acquire.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "waggle/sys/store.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char DEFAULT_ACTOR[] = "library";

#define LOAD(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define PUBLISH(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* ---- options ------------------------------------------------------------------ */

static char *dup_opt(const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static int check_tool_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= WG_ENGINE_TOOL_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
            return 0;
    return 1;
}

static int copy_never(wg_engine *e, const char *const *list)
{
    size_t n = 0;
    while (list && list[n])
        n++;
    if (n > WG_ENGINE_NEVER_AUTOPASS_MAX)
        return wg_error_set(WG_EINVAL, "at most %d never-autopass tools, not %zu",
                            WG_ENGINE_NEVER_AUTOPASS_MAX, n);
    if (!(e->never_autopass = calloc(n + 1, sizeof *e->never_autopass)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!check_tool_name(list[i]))
            return wg_error_set(WG_EINVAL, "never-autopass entry %zu is not a tool name "
                                "(1..%d printable bytes)", i + 1, WG_ENGINE_TOOL_MAX - 1);
        if (!(e->never_autopass[i] = strdup(list[i])))
            return wg_error_set(WG_ENOMEM, "out of memory");
    }
    return 0;
}

static int copy_roots(wg_engine *e, const char *const *list)
{
    size_t n = 0;
    while (list[n])
        n++;
    if (!(e->obsidian_roots = calloc(n + 1, sizeof *e->obsidian_roots)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (!(e->obsidian_roots[i] = strdup(list[i])))
            return wg_error_set(WG_ENOMEM, "out of memory");
    return 0;
}

int wg_engine_open(wg_engine **out, const wg_engine_options *o)
{
    if (!out || !o)
        return wg_error_set(WG_EINVAL, "wg_engine_open: NULL argument");
    if (o->version != WG_ENGINE_OPTIONS_VERSION)
        return wg_error_set(WG_EINVAL, "wg_engine_open: options version %u, this library "
                            "knows %d", o->version, WG_ENGINE_OPTIONS_VERSION);
    if (!o->data_dir || !*o->data_dir)
        return wg_error_set(WG_EINVAL, "wg_engine_open: a data dir is required");
    if (o->autonomy_cap_ms < 0)
        return wg_error_set(WG_EINVAL, "the autonomy cap must be positive (0 = 8 h); a cap "
                            "is never unlimited");
    if (o->approval_ttl_ms < 0)
        return wg_error_set(WG_EINVAL, "the approval TTL must be positive (0 = 5 min)");
    if (o->max_autonomy < WG_AUTONOMY_NORMAL || o->max_autonomy > WG_AUTONOMY_YOLO)
        return wg_error_set(WG_EINVAL, "max_autonomy must be normal, trusted or yolo");
    if (sodium_init() < 0)
        return wg_error_set(WG_EINTERNAL, "libsodium failed to initialise");
    wg_engine *e = calloc(1, sizeof *e);
    if (!e)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->bus_mu, NULL);
    pthread_mutex_init(&e->market_mu, NULL);
    int oom = 0;
    e->data_dir = dup_opt(o->data_dir, &oom);
    e->store_url = dup_opt(o->store_url && *o->store_url ? o->store_url : NULL, &oom);
    e->actor = dup_opt(o->actor ? o->actor : DEFAULT_ACTOR, &oom);
    e->demo = o->demo;
    e->policy = (wg_autonomy_policy)WG_AUTONOMY_POLICY_INIT;
    e->policy.cap_ms = o->autonomy_cap_ms ? o->autonomy_cap_ms : WG_AUTONOMY_DEFAULT_CAP_MS;
    e->policy.max_level = o->max_autonomy;
    e->approval_ttl_ms = o->approval_ttl_ms ? o->approval_ttl_ms
                                            : WG_ENGINE_DEFAULT_APPROVAL_TTL_MS;
    e->max_pending = o->max_pending ? o->max_pending : WG_ENGINE_DEFAULT_MAX_PENDING;
    e->max_pending_bytes = o->max_pending_bytes ? o->max_pending_bytes
                                                : WG_ENGINE_DEFAULT_MAX_PENDING_BYTES;
    e->allow_private_upstreams = o->allow_private_upstreams;
    e->allow_http_upstreams = o->allow_http_upstreams;
    e->allow_privileged_db_roles = o->allow_privileged_db_roles;
    e->resolver = o->resolver;
    e->clock = o->clock;
    e->bus = o->bus;
    e->log = o->log;
    e->log_ud = o->log_ud;
    e->next_token = 1;
    int rc = oom ? wg_error_set(WG_ENOMEM, "out of memory") : copy_never(e, o->never_autopass);
    if (rc == 0 && o->obsidian_roots)
        rc = copy_roots(e, o->obsidian_roots);
    if (rc < 0) {
        wg_engine_free(e);
        return rc;
    }
    *out = e;
    return 0;
}

void wg_engine_free(wg_engine *e)
{
    if (!e)
        return;
    wg_engine__bus_fini(e);
    /* users of the store first: pools, gate, registry; then audit, vault, store */
    for (size_t i = 0; i < e->n_pools; i++) {
        wg_pool_free(e->pools[i].pool);
        free(e->pools[i].provider);
    }
    wg_gate_free(e->gate);
    wg_kvark_free(e->kvark);
    wg_registry_free(e->registry);
    wg_audit_free(e->audit);
    wg_vault_free(e->vault);
    wg_store_free(e->store);
    wg_catalog_free(e->catalog);
    wg_skillset_free(e->starter);
    free(e->install_risk);
    wg_trust_free(e->trust);
    for (char **p = e->never_autopass; p && *p; p++)
        free(*p);
    free(e->never_autopass);
    for (char **p = e->obsidian_roots; p && *p; p++)
        free(*p);
    free(e->obsidian_roots);
    free(e->data_dir);
    free(e->store_url);
    free(e->actor);
    pthread_mutex_destroy(&e->bus_mu);
    pthread_mutex_destroy(&e->market_mu);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

const char *wg_engine_data_dir(const wg_engine *e)
{
    return e ? e->data_dir : NULL;
}

void wg_engine_autonomy_policy(wg_autonomy_policy *out, const wg_engine *e)
{
    *out = e->policy;
}

int64_t wg_engine_now(const wg_engine *e)
{
    return wg_clock_now(e ? &e->clock : NULL);
}

int64_t wg_engine_approval_ttl_ms(const wg_engine *e)
{
    return e ? e->approval_ttl_ms : 0;
}

const char *wg_engine__actor(const wg_engine *e, const wg_engine_ctx *ctx)
{
    return ctx && ctx->actor && *ctx->actor ? ctx->actor : e->actor;
}

void wg_engine__logf(const wg_engine *e, const char *fmt, ...)
{
    if (!e->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    e->log(e->log_ud, line);
}

int wg_engine__never_autopass(const wg_engine *e, const char *tool)
{
    for (char **p = e->never_autopass; p && *p; p++) {
        size_t n = strlen(*p);
        if ((*p)[n - 1] == '*' ? strncmp(*p, tool, n - 1) == 0 : strcmp(*p, tool) == 0)
            return 1;
    }
    return 0;
}

/* ---- the parts ------------------------------------------------------------------ */

static int open_store(wg_engine *e)
{
    if (e->store)
        return 0;
    /* The data dir is made (0700) only now that something is stored. */
    char *dir = NULL;
    int rc = wg_datadir_open(&dir, e->data_dir);
    free(dir);
    if (rc < 0)
        return rc;
    wg_store *st = NULL;
    rc = e->store_url ? wg_store_open_backend(&st, wg_store_postgres_backend(), e->store_url,
                                              e->data_dir)
                      : wg_store_open(&st, e->data_dir);
    wg_tree_import imp;
    /* Replicas: this data dir's skills, packs and plugin manifests join the
     * shared store once (names it holds already are left as they are). */
    if (rc == 0 && (rc = wg_tree__import(&imp, st, e->data_dir)) < 0)
        wg_store_free(st);
    if (rc == 0 && imp.imported)
        wg_engine__logf(e, "shared store: imported %zu of this data dir's skills, packs and "
                        "plugins", imp.imported);
    if (rc == 0 && imp.refused)
        wg_engine__logf(e, "warning: shared store: %zu file(s) of the data dir not imported "
                        "(they stay where they are): %s", imp.refused, imp.first_refusal);
    if (rc == 0)
        PUBLISH(e->store, st);
    return rc;
}

static int open_vault(wg_engine *e)
{
    if (e->vault)
        return 0;
    int rc = open_store(e);
    wg_vault *v = NULL;
    if (rc == 0 && (rc = wg_vault_open(&v, e->store)) == 0) {
        wg_connect_vault_of(&e->vault_seam, v);
        PUBLISH(e->vault, v);
    }
    return rc;
}

static int open_audit(wg_engine *e)
{
    if (e->audit)
        return 0;
    int rc = open_vault(e);
    wg_audit *a = NULL;
    if (rc == 0 && (rc = wg_audit_open(&a, e->store, e->vault)) == 0) {
        e->audit_seam = (wg_connect_audit){ WG_CONNECT_AUDIT_VERSION, a, wg_audit_seam_log };
        PUBLISH(e->audit, a);
    }
    return rc;
}

static int open_registry(wg_engine *e)
{
    if (e->registry)
        return 0;
    int rc = open_audit(e);
    if (rc < 0)
        return rc;
    wg_registry_options ro = WG_REGISTRY_OPTIONS_INIT;
    ro.vault = &e->vault_seam;
    ro.audit = &e->audit_seam;
    ro.demo = e->demo;
    ro.allow_private_upstreams = e->allow_private_upstreams;
    ro.allow_http_upstreams = e->allow_http_upstreams;
    ro.allow_privileged_db_roles = e->allow_privileged_db_roles;
    ro.obsidian_roots = (const char *const *)e->obsidian_roots;
    ro.resolver = e->resolver;
    ro.data_dir = e->data_dir;
    wg_registry *reg = NULL;
    if ((rc = wg_registry_new(&reg, &ro)) == 0)
        PUBLISH(e->registry, reg);
    return rc;
}

static int open_trust(wg_engine *e)
{
    if (e->trust)
        return 0;
    wg_trust *t = NULL;
    int rc = wg_trust_new(&t);
    if (rc == 0)
        PUBLISH(e->trust, t);
    return rc;
}

static int open_starter(wg_engine *e)
{
    if (e->starter)
        return 0;
    wg_skillset *s = NULL;
    int rc = wg_skillset_load_starter(&s);
    if (rc < 0)
        return rc;
    size_t n = wg_skillset_count(s);
    if (!(e->install_risk = malloc(n ? n : 1))) {
        wg_skillset_free(s);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    memset(e->install_risk, (signed char)WG_RISK_UNKNOWN, n ? n : 1);
    PUBLISH(e->starter, s);
    return 0;
}

static int open_catalog(wg_engine *e)
{
    if (e->catalog)
        return 0;
    wg_catalog *c = NULL;
    /* Replicas: the local entries are the shared store's (caller holds mu,
     * so the store is opened here, not through wg_engine_store). */
    const char *url = getenv("WAGGLE_DATABASE_URL");
    int rc = e->store_url || (url && *url) ? open_store(e) : 0;
    if (rc < 0)
        return rc;
    /* A broken local catalog must not take the engine down: the embedded
     * catalog is served and the log says why. An unreachable store is an
     * error (nothing is cached; the next use tries again). */
    if ((rc = wg_catalog_open_in(&c, e->store, e->data_dir)) == WG_EUNAVAILABLE ||
        rc == WG_ESTORE || rc == WG_ENOMEM)
        return rc;
    if (rc < 0) {
        wg_engine__logf(e, "warning: %s; serving the embedded catalog only", wg_error_last());
        rc = wg_catalog_open_embedded(&c);
        if (rc < 0)
            return rc;
    }
    PUBLISH(e->catalog, c);
    return 0;
}

/* The connector risk the registry declares, from the built-in tables while
 * no registry is open (the registry holds exactly these specs, plus what an
 * embedder registered on it - which needs an open registry). */
static wg_risk_level table_risk(const wg_engine *e, const char *tool)
{
    static const char prefix[] = "connector_";
    if (strncmp(tool, prefix, sizeof prefix - 1) != 0)
        return WG_RISK_UNKNOWN;
    const char *rest = tool + sizeof prefix - 1;
    for (int demo = 0; demo <= e->demo; demo++) {
        size_t n = 0;
        const wg_connector_spec *const *specs = demo ? wg_connector_demo_specs(&n)
                                                     : wg_connector_builtin_specs(&n);
        for (size_t i = 0; i < n; i++) {
            size_t il = strlen(specs[i]->id);
            if (strncmp(rest, specs[i]->id, il) != 0 || rest[il] != '_')
                continue;
            const wg_connector_action *a = wg_connector_find_action(specs[i], rest + il + 1);
            if (a)
                return a->risk;
        }
    }
    return WG_RISK_UNKNOWN;
}

static wg_risk_level hook_connector_risk(void *ctx, const char *tool)
{
    wg_engine *e = ctx;
    wg_registry *reg = LOAD(e->registry);
    return reg ? wg_registry_connector_risk(reg, tool) : table_risk(e, tool);
}

/* The trust model's regexes over a skill take tens of microseconds, and
 * the starter set and the model never change while the engine lives: each
 * starter skill is assessed once, on the first install_capability call that
 * names it, and the answer is kept per skill (a --batch corpus full of
 * install calls spent 65 % of its time here before). A name that is not an
 * installable starter skill is answered without the trust model. */
static wg_risk_level hook_install_risk(void *ctx, const char *name, const char *source)
{
    wg_engine *e = ctx;
    const wg_trust *t = NULL;
    const wg_skillset *s = NULL;
    const wg_skill *sk = NULL;
    if (wg_engine_starter(&s, e) < 0)
        return WG_RISK_HIGH;   /* fail closed */
    if (wg_skills_validate_install(&sk, s, NULL, name, source) < 0) {
        wg_error_clear();
        return WG_RISK_HIGH;
    }
    size_t i = (size_t)(sk - wg_skillset_get(s, 0));
    signed char known = __atomic_load_n(&e->install_risk[i], __ATOMIC_RELAXED);
    if (known != WG_RISK_UNKNOWN)
        return (wg_risk_level)known;
    if (wg_engine_trust(&t, e) < 0)
        return WG_RISK_HIGH;
    wg_risk_level r = wg_acquire_install_risk(t, s, name, source);
    __atomic_store_n(&e->install_risk[i], (signed char)r, __ATOMIC_RELAXED);
    return r;
}

static int open_gate(wg_engine *e)
{
    if (e->gate)
        return 0;
    wg_gate_hooks hooks = { WG_GATE_HOOKS_VERSION, e, hook_connector_risk, hook_install_risk };
    wg_gate *g = NULL;
    int rc = wg_gate_new(&g, &hooks);
    if (rc == 0)
        PUBLISH(e->gate, g);
    return rc;
}

/* Runs opener under the mutex (the caller saw the part unpublished). */
static int locked(wg_engine *e, int (*opener)(wg_engine *))
{
    pthread_mutex_lock(&e->mu);
    int rc = opener(e);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

static int bad_args(void)
{
    return wg_error_set(WG_EINVAL, "wg_engine: NULL argument");
}

int wg_engine_store(wg_store **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->store))
        rc = locked(e, open_store);
    if (rc == 0)
        *out = LOAD(e->store);
    return rc;
}

int wg_engine_vault(wg_vault **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->vault))
        rc = locked(e, open_vault);
    if (rc == 0)
        *out = LOAD(e->vault);
    return rc;
}

int wg_engine_audit(wg_audit **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->audit))
        rc = locked(e, open_audit);
    if (rc == 0)
        *out = LOAD(e->audit);
    return rc;
}

int wg_engine_registry(wg_registry **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->registry))
        rc = locked(e, open_registry);
    if (rc == 0)
        *out = LOAD(e->registry);
    return rc;
}

int wg_engine_gate(const wg_gate **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->gate))
        rc = locked(e, open_gate);
    if (rc == 0)
        *out = LOAD(e->gate);
    return rc;
}

int wg_engine_trust(const wg_trust **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->trust))
        rc = locked(e, open_trust);
    if (rc == 0)
        *out = LOAD(e->trust);
    return rc;
}

int wg_engine_starter(const wg_skillset **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->starter))
        rc = locked(e, open_starter);
    if (rc == 0)
        *out = LOAD(e->starter);
    return rc;
}

int wg_engine_catalog(const wg_catalog **out, wg_engine *e)
{
    int rc = e && out ? 0 : bad_args();
    if (rc == 0 && !LOAD(e->catalog))
        rc = locked(e, open_catalog);
    if (rc == 0)
        *out = LOAD(e->catalog);
    return rc;
}

static int64_t pool_clock(void *ctx)
{
    return wg_engine_now(ctx);
}

int wg_engine_pool(wg_pool **out, wg_engine *e, const char *provider, int max_keys)
{
    if (!out || !e || !provider || !*provider)
        return wg_error_set(WG_EINVAL, "wg_engine_pool: a provider is required");
    pthread_mutex_lock(&e->mu);
    int rc = 0;
    for (size_t i = 0; i < e->n_pools; i++) {
        if (strcmp(e->pools[i].provider, provider) == 0) {
            *out = e->pools[i].pool;
            pthread_mutex_unlock(&e->mu);
            return 0;
        }
    }
    if (e->n_pools == ENGINE_POOLS_MAX) {
        rc = wg_error_set(WG_EBUSY, "at most %d credential pools per engine", ENGINE_POOLS_MAX);
    } else if ((rc = open_vault(e)) == 0) {
        wg_pool_options po = WG_POOL_OPTIONS_INIT;
        po.now = pool_clock;
        po.now_ctx = e;
        wg_pool *p = NULL;
        char *name = strdup(provider);
        if (!name)
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        else if ((rc = wg_pool_load(&p, e->vault, provider, max_keys, e->store, &po)) < 0)
            free(name);
        else {
            e->pools[e->n_pools++] = (engine_pool){ name, p };
            *out = p;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int wg_engine__shared_store(wg_store **out, wg_engine *e)
{
    *out = NULL;
    const char *url = getenv("WAGGLE_DATABASE_URL");
    if (!e->store_url && !(url && *url))
        return 0;   /* SQLite: the data dir is what this machine's processes share */
    wg_store *st = NULL;
    int rc = wg_engine_store(&st, e);
    if (rc == 0 && wg_store_is_shared(st))
        *out = st;
    return rc;
}

int wg_engine_tier_get(wg_tier_status *out, wg_engine *e)
{
    if (!out || !e)
        return wg_error_set(WG_EINVAL, "wg_engine_tier_get: NULL argument");
    wg_store *st = NULL;
    int rc = wg_engine__shared_store(&st, e);
    if (rc < 0) {
        wg_tier_evaluate(out, NULL, NULL, wg_engine_now(e));
        return rc;
    }
    return wg_tier__read_in(out, st, e->data_dir, wg_engine_now(e));
}

void wg_engine_tier(wg_tier_status *out, wg_engine *e)
{
    (void)wg_engine_tier_get(out, e);
    wg_error_clear();
}

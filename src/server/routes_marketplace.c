/* routes_marketplace.c - the local marketplace (spec 10 gated routes).
 *
 * The original's marketplace is a remote service; this one is its smallest
 * real form: a directory DATA_DIR/marketplace/<pack>/ holding pack.json
 * {name, description, skills:[...]} and one <skill>.md per skill.
 *   GET  /api/marketplace                   {packs:[{name,description,skills}]}
 *   POST /api/marketplace/install {name}    (PRO) copies the pack's skills into
 *        DATA_DIR/skills/, each with its trust assessment; 404 unknown pack,
 *        409 a skill is already installed (nothing is copied then)
 *   POST /api/marketplace/publish {name, description?} (PRO) packages the
 *        installed skill DATA_DIR/skills/<name>.md as pack <name>; 409 if the
 *        pack exists
 *   GET  /api/marketplace/enterprise-packs  (ENTERPRISE) reference 8.3: without
 *        a kvark:connection in the vault {packs:[],total:0,kvarkRequired:true,hint}
 * Names are checked with wg_files__name_ok before they touch a path. */
#include "store/files.h"
#include "server/route.h"
#include "server/skilltrust.h"
#include "waggle/connector.h"
#include "waggle/error.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SKILL_MAX = 256 * 1024, MAX_SKILLS = 64 };

typedef struct {
    pthread_mutex_t lock;   /* install/publish check-then-write */
} market_state;

static char *market_dir(const wg_req *req)
{
    return wg_files__join(req->ctx->data_dir, "marketplace", NULL);
}

/* The pack's manifest, or one built from its *.md files. New or NULL. */
static json_t *load_pack(const char *dir, const char *name)
{
    char *pdir = wg_files__join(dir, name, NULL);
    char *mpath = pdir ? wg_files__join(pdir, "pack.json", NULL) : NULL;
    char *text = NULL;
    json_t *pack = NULL;
    if (mpath && wg_files__read(&text, NULL, mpath, SKILL_MAX) == 0) {
        pack = json_loads(text, 0, NULL);
        if (!json_is_object(pack) || !json_is_array(json_object_get(pack, "skills"))) {
            json_decref(pack);
            pack = NULL;
        }
    } else if (pdir) {
        DIR *d = opendir(pdir);
        if (d) {
            json_t *skills = json_array();
            for (struct dirent *e; (e = readdir(d));) {
                size_t l = strlen(e->d_name);
                if (l > 3 && strcmp(e->d_name + l - 3, ".md") == 0 && wg_files__name_ok(e->d_name))
                    json_array_append_new(skills, json_stringn(e->d_name, l - 3));
            }
            closedir(d);
            pack = json_pack("{s:s,s:s,s:o}", "name", name, "description", "", "skills", skills);
        }
    }
    if (pack)
        json_object_set_new(pack, "name", json_string(name));
    free(text);
    free(mpath);
    free(pdir);
    return pack;
}

static int list(wg_res *res, const wg_req *req)
{
    char *dir = market_dir(req);
    json_t *packs = json_array();
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!wg_files__name_ok(e->d_name))
            continue;
        json_t *p = load_pack(dir, e->d_name);
        if (p)
            json_array_append_new(packs, p);
    }
    if (d)
        closedir(d);
    free(dir);
    return wg_res_json(res, 200, json_pack("{s:o,s:I}", "packs", packs, "total",
                                           (json_int_t)json_array_size(packs)));
}

static int install(wg_res *res, const wg_req *req)
{
    market_state *st = req->area_state;
    const char *name = NULL;
    if (wg_body_string(res, req, "name", 1, &name) < 0)
        return 0;
    if (!wg_files__name_ok(name))
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                           "name", "message", "name must be a pack name ([A-Za-z0-9._-])"));
    char *dir = market_dir(req);
    json_t *pack = dir ? load_pack(dir, name) : NULL;
    if (!pack) {
        free(dir);
        return wg_res_error(res, 404, "NOT_FOUND", "no marketplace pack by that name");
    }
    json_t *skills = json_object_get(pack, "skills");
    size_t n = json_array_size(skills);
    int rc = 0;
    char *texts[MAX_SKILLS] = { 0 };
    char *dests[MAX_SKILLS] = { 0 };
    json_t *installed = json_array();
    if (n == 0 || n > MAX_SKILLS) {
        rc = wg_error_set(WG_EINVAL, "the pack lists %zu skills (1-%d allowed)", n, MAX_SKILLS);
        goto done;
    }
    pthread_mutex_lock(&st->lock);
    /* Check everything first so a refused install leaves nothing behind. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *skill = json_string_value(json_array_get(skills, i));
        char file[80];
        if (!skill || !wg_files__name_ok(skill)) {
            rc = wg_error_set(WG_EINVAL, "the pack lists an invalid skill name");
            break;
        }
        snprintf(file, sizeof file, "%s.md", skill);
        char *src = wg_files__join(dir, name, file);
        dests[i] = wg_files__join(req->ctx->data_dir, "skills", file);
        if (!src || !dests[i]) {
            free(src);
            rc = wg_error_set(WG_ENOMEM, "out of memory");
            break;
        }
        if ((rc = wg_files__read(&texts[i], NULL, src, SKILL_MAX)) < 0)
            rc = wg_error_set(WG_EINVAL, "skill %zu of the pack is missing or too large", i + 1);
        free(src);
        char *existing = NULL;
        if (rc == 0 && wg_files__read(&existing, NULL, dests[i], SKILL_MAX) != WG_ENOTFOUND) {
            rc = wg_error_set(WG_EEXISTS, "skill %zu of the pack is already installed", i + 1);
        }
        free(existing);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *skill = json_string_value(json_array_get(skills, i));
        if ((rc = wg_files__write_atomic(dests[i], texts[i], strlen(texts[i]))) < 0)
            break;
        json_array_append_new(installed, json_pack("{s:s,s:o?}", "name", skill, "trust",
                                                   wg_skilltrust__assess(req->ctx->trust, texts[i], "marketplace")));
    }
    pthread_mutex_unlock(&st->lock);
    if (rc == 0)
        wg_server_logf(req->ctx, "marketplace_install pack=%s skills=%zu", name, n);
done:
    for (size_t i = 0; i < MAX_SKILLS; i++) {
        free(texts[i]);
        free(dests[i]);
    }
    free(dir);
    json_decref(pack);
    if (rc < 0) {
        json_decref(installed);
        return rc;
    }
    return wg_res_json(res, 200, json_pack("{s:b,s:s,s:o}", "ok", 1, "name", name,
                                           "installed", installed));
}

static int publish(wg_res *res, const wg_req *req)
{
    market_state *st = req->area_state;
    const char *name = NULL, *description = "";
    if (wg_body_string(res, req, "name", 1, &name) < 0 ||
        wg_body_string(res, req, "description", 0, &description) < 0)
        return 0;
    if (!wg_files__name_ok(name))
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                           "name", "message", "name must be a skill name ([A-Za-z0-9._-])"));
    if (strlen(description) > 2000)
        return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                           "description", "message", "description is longer than 2000 characters"));
    char file[80];
    snprintf(file, sizeof file, "%s.md", name);
    char *src = wg_files__join(req->ctx->data_dir, "skills", file);
    char *dir = market_dir(req);
    char *dst = dir ? wg_files__join(dir, name, file) : NULL;
    char *manifest = dir ? wg_files__join(dir, name, "pack.json") : NULL;
    char *text = NULL, *mtext = NULL;
    json_t *pack = NULL;
    int rc = 0;
    if (!src || !dst || !manifest) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    if (wg_files__read(&text, NULL, src, SKILL_MAX) < 0) {
        rc = wg_error_set(WG_ENOTFOUND, "no installed skill by that name");
        goto done;
    }
    pthread_mutex_lock(&st->lock);
    if (wg_files__read(&mtext, NULL, manifest, SKILL_MAX) != WG_ENOTFOUND) {
        rc = wg_error_set(WG_EEXISTS, "a marketplace pack by that name already exists");
    } else {
        pack = json_pack("{s:s,s:s,s:[s]}", "name", name, "description", description, "skills", name);
        char *pj = pack ? json_dumps(pack, JSON_INDENT(2)) : NULL;
        rc = pj ? wg_files__write_atomic(dst, text, strlen(text)) : wg_error_set(WG_ENOMEM, "out of memory");
        if (rc == 0)
            rc = wg_files__write_atomic(manifest, pj, strlen(pj));
        free(pj);
    }
    pthread_mutex_unlock(&st->lock);
done:
    free(src);
    free(dst);
    free(manifest);
    free(dir);
    free(text);
    free(mtext);
    if (rc < 0) {
        json_decref(pack);
        return rc;
    }
    return wg_res_json(res, 201, json_pack("{s:b,s:s,s:o}", "ok", 1, "name", name, "pack", pack));
}

/* Shown once KVARK is connected. The packs themselves live in KVARK; this
 * table names what the service can offer (reference 8.3 ENTERPRISE_PACKS). */
static const struct {
    const char *id, *name, *description;
} enterprise_packs[] = {
    { "kvark-research", "Enterprise research", "Cited answers from the organisation's documents through KVARK retrieval." },
    { "kvark-governed-actions", "Governed actions", "Jira comments, Slack posts and other writes through KVARK governance, with audit references." },
    { "kvark-document-qa", "Document Q&A", "Questions answered from one enterprise document with source references." },
};

static int enterprise(wg_res *res, const wg_req *req)
{
    char *value = NULL;
    json_t *meta = NULL;
    const wg_connect_vault *v = req->ctx->vault;
    int configured = v && v->get(v->ctx, "kvark:connection", &value, &meta) == 0 && value && *value;
    free(value);
    json_decref(meta);
    if (!configured)
        return wg_res_json(res, 200, json_pack("{s:[],s:i,s:b,s:s}", "packs", "total", 0,
            "kvarkRequired", 1, "hint",
            "Enterprise packs require a KVARK connection. Configure KVARK credentials in the vault to unlock."));
    json_t *packs = json_array();
    for (size_t i = 0; i < sizeof enterprise_packs / sizeof *enterprise_packs; i++)
        json_array_append_new(packs, json_pack("{s:s,s:s,s:s}", "id", enterprise_packs[i].id,
                              "name", enterprise_packs[i].name, "description",
                              enterprise_packs[i].description));
    return wg_res_json(res, 200, json_pack("{s:o,s:I,s:b}", "packs", packs, "total",
                       (json_int_t)json_array_size(packs), "kvarkRequired", 0));
}

static int init(void **state, wg_server_ctx *ctx)
{
    (void)ctx;
    market_state *st = calloc(1, sizeof *st);
    if (!st)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&st->lock, NULL);
    *state = st;
    return 0;
}

static void fini(void *state)
{
    market_state *st = state;
    if (!st)
        return;
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,  "/api/marketplace",                  list,       WG_ROUTE_FREE,       0 },
    { WG_HTTP_POST, "/api/marketplace/install",          install,    WG_ROUTE_PRO,        0 },
    { WG_HTTP_POST, "/api/marketplace/publish",          publish,    WG_ROUTE_PRO,        0 },
    { WG_HTTP_GET,  "/api/marketplace/enterprise-packs", enterprise, WG_ROUTE_ENTERPRISE, 0 },
};

const wg_route_area wg_routes_marketplace = {
    "marketplace", routes, sizeof routes / sizeof routes[0], init, fini,
};

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
 * A thin face over waggle/marketplace.h: the engine reads the data dir,
 * checks names before they touch a path, installs all or nothing and
 * writes the audit rows. */
#include "server/route.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/marketplace.h"

#include <string.h>

static int bad(wg_res *res, const char *field, int rc)
{
    if (rc != WG_EINVAL)
        return rc;
    return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                           field, "message", wg_error_last()));
}

static int list(wg_res *res, const wg_req *req)
{
    json_t *out = NULL;
    int rc = wg_marketplace_list(&out, req->ctx->engine);
    return rc < 0 ? rc : wg_res_json(res, 200, out);
}

static int install(wg_res *res, const wg_req *req)
{
    const char *name = NULL;
    if (wg_body_string(res, req, "name", 1, &name) < 0)
        return 0;
    json_t *installed = NULL;
    int rc = wg_marketplace_install(&installed, req->ctx->engine, name, "api");
    if (rc == WG_ENOTFOUND)
        return wg_res_error(res, 404, "NOT_FOUND", "no marketplace pack by that name");
    if (rc == WG_EINVAL && strstr(wg_error_last(), "pack name"))
        return bad(res, "name", rc);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:b,s:s,s:o}", "ok", 1, "name", name,
                                           "installed", installed));
}

static int publish(wg_res *res, const wg_req *req)
{
    const char *name = NULL, *description = "";
    if (wg_body_string(res, req, "name", 1, &name) < 0 ||
        wg_body_string(res, req, "description", 0, &description) < 0)
        return 0;
    json_t *pack = NULL;
    int rc = wg_marketplace_publish(&pack, req->ctx->engine, name, description, "api");
    if (rc == WG_EINVAL)
        return bad(res, strstr(wg_error_last(), "description") ? "description" : "name", rc);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 201, json_pack("{s:b,s:s,s:o}", "ok", 1, "name", name, "pack", pack));
}

static int enterprise(wg_res *res, const wg_req *req)
{
    json_t *out = NULL;
    int rc = wg_marketplace_enterprise_packs(&out, req->ctx->engine);
    return rc < 0 ? rc : wg_res_json(res, 200, out);
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,  "/api/marketplace",                  list,       WG_ROUTE_FREE,       0 },
    { WG_HTTP_POST, "/api/marketplace/install",          install,    WG_ROUTE_PRO,        0 },
    { WG_HTTP_POST, "/api/marketplace/publish",          publish,    WG_ROUTE_PRO,        0 },
    { WG_HTTP_GET,  "/api/marketplace/enterprise-packs", enterprise, WG_ROUTE_ENTERPRISE, 0 },
};

const wg_route_area wg_routes_marketplace = {
    "marketplace", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

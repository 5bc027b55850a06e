/* routes_personas.c - personas (spec 10: POST routes gated at PRO).
 *   GET  /api/personas           {personas:[...]}          (any tier: listing)
 *   POST /api/personas           201 {persona}             (PRO) saves a custom persona
 *   POST /api/personas/generate  {persona}                 (PRO) builds one, not saved
 * The work is in personas.c. */
#include "waggle/personas.h"
#include "server/route.h"

static int list(wg_res *res, const wg_req *req)
{
    json_t *all = NULL;
    int rc = wg_personas_list_in(&all, req->ctx->store, req->ctx->data_dir);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:o}", "personas", all));
}

static int create(wg_res *res, const wg_req *req)
{
    json_t *p = NULL;
    int rc = wg_personas_create_in(&p, req->ctx->store, req->ctx->data_dir, req->body);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 201, json_pack("{s:o}", "persona", p));
}

static int generate(wg_res *res, const wg_req *req)
{
    const char *description = NULL, *name = NULL;
    if (wg_body_string(res, req, "description", 1, &description) < 0 ||
        wg_body_string(res, req, "name", 0, &name) < 0)
        return 0;
    json_t *p = NULL;
    int rc = wg_personas_generate_in(&p, req->ctx->store, req->ctx->data_dir, description, name);
    if (rc < 0)
        return rc;
    return wg_res_json(res, 200, json_pack("{s:o}", "persona", p));
}

static const wg_http_route routes[] = {
    { WG_HTTP_GET,  "/api/personas",          list,     WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/personas",          create,   WG_ROUTE_PRO,  0 },
    { WG_HTTP_POST, "/api/personas/generate", generate, WG_ROUTE_PRO,  0 },
};

const wg_route_area wg_routes_personas = {
    "personas", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

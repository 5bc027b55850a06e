/* routes_team.c - team server connection and governance (spec 10).
 *   POST /api/team/connect {serverUrl, token}  (TEAMS) the token goes to the
 *        vault as team:server (metadata {serverUrl}); config.json keeps only
 *        the non-secret teamsServerUrl. The answer never echoes the token.
 *   GET  /api/team/governance/permissions    (ENTERPRISE) the persona/tool
 *        permission matrix: every tool any persona may use, and per persona
 *        which of them it is allowed, plus whether it is read-only. */
#include "waggle/personas.h"
#include "server/route.h"
#include "waggle/connector.h"
#include "waggle/error.h"

#include <string.h>
#include <strings.h>

enum { URL_MAX = 2048, TOKEN_MAX = 4096 };

static int bad_field(wg_res *res, const char *field, const char *msg)
{
    return wg_res_json(res, 400, json_pack("{s:s,s:s,s:s}", "error", "INVALID_FIELD", "field",
                                           field, "message", msg));
}

/* http(s)://host[...], no spaces or control characters. */
static int url_ok(const char *u)
{
    size_t n = strlen(u);
    if (n > URL_MAX)
        return 0;
    const char *host = strncasecmp(u, "https://", 8) == 0 ? u + 8
                     : strncasecmp(u, "http://", 7) == 0 ? u + 7 : NULL;
    if (!host || !*host || *host == '/')
        return 0;
    for (const unsigned char *s = (const unsigned char *)u; *s; s++)
        if (*s <= 0x20 || *s == 0x7F)
            return 0;
    return 1;
}

static void set_url(json_t *cfg, const void *arg)
{
    json_object_set_new(cfg, "teamsServerUrl", json_string(arg));
}

static int team_connect(wg_res *res, const wg_req *req)
{
    const char *url = NULL, *token = NULL;
    if (wg_body_string(res, req, "serverUrl", 1, &url) < 0 ||
        wg_body_string(res, req, "token", 1, &token) < 0)
        return 0;
    if (!url_ok(url))
        return bad_field(res, "serverUrl", "serverUrl must be an http:// or https:// URL");
    if (!*token || strlen(token) > TOKEN_MAX)
        return bad_field(res, "token", "token must be 1-4096 characters");
    const wg_connect_vault *v = req->ctx->vault;
    json_t *meta = json_pack("{s:s,s:s}", "type", "bearer", "serverUrl", url);
    int rc = meta ? v->set(v->ctx, "team:server", token, meta) : wg_error_set(WG_ENOMEM, "out of memory");
    json_decref(meta);
    if (rc < 0)
        return rc;
    if ((rc = wg_server__config_edit(req->ctx, set_url, url)) < 0)
        return rc;
    wg_server__logf(req->ctx, "team_connect stored=vault:team:server");
    return wg_res_json(res, 200, json_pack("{s:b,s:s}", "connected", 1, "serverUrl", url));
}

static int governance(wg_res *res, const wg_req *req)
{
    json_t *personas = NULL;
    int rc = wg_personas_list_in(&personas, req->ctx->store, req->ctx->data_dir);
    if (rc < 0)
        return rc;
    json_t *tools = json_array();
    size_t i, j;
    json_t *p, *t;
    json_array_foreach(personas, i, p) {
        json_array_foreach(json_object_get(p, "tools"), j, t) {
            int seen = 0;
            size_t k;
            json_t *u;
            json_array_foreach(tools, k, u)
                seen |= json_equal(u, t);
            if (!seen)
                json_array_append(tools, t);
        }
    }
    json_t *rows = json_array();
    json_array_foreach(personas, i, p) {
        json_t *allowed = json_object();
        json_t *own = json_object_get(p, "tools");
        json_array_foreach(tools, j, t) {
            int yes = 0;
            size_t k;
            json_t *u;
            json_array_foreach(own, k, u)
                yes |= json_equal(u, t);
            json_object_set_new(allowed, json_string_value(t), json_boolean(yes));
        }
        json_array_append_new(rows, json_pack("{s:O?,s:O?,s:O?,s:O?,s:o}", "id",
            json_object_get(p, "id"), "name", json_object_get(p, "name"), "custom",
            json_object_get(p, "custom"), "readOnly", json_object_get(p, "readOnly"),
            "allowed", allowed));
    }
    json_decref(personas);
    return wg_res_json(res, 200, json_pack("{s:o,s:o}", "tools", tools, "personas", rows));
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/api/team/connect",                team_connect, WG_ROUTE_TEAMS,      0 },
    { WG_HTTP_GET,  "/api/team/governance/permissions", governance,   WG_ROUTE_ENTERPRISE, 0 },
};

const wg_route_area wg_routes_team = {
    "team", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

/* routes_dashboard.c - the dashboard's sign-in (docs/server.md, "The
 * dashboard"); the screens themselves use only the public API.
 *   POST /api/dashboard/login {token}   (no bearer) uses up a one-time login
 *        token from `waggle dashboard` / `waggle serve` and answers a session
 *        cookie: HttpOnly; SameSite=Strict; Path=/ (Secure unless the Host is
 *        loopback). The Origin must be this service's own (login CSRF).
 *   GET  /api/dashboard/session         who is asking: {authenticated, via:
 *        "cookie"|"bearer", expiresAt?, autonomyCapMs, maxAutonomy}
 *   POST /api/dashboard/logout          ends the cookie's session, clears it.
 * Sessions live in the store (session.h), so replicas share them. */
#include "server/route.h"
#include "server/server_int.h"
#include "server/session.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/types.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int origin_refused(wg_res *res, const wg_req *req)
{
    const char *site = wg_req_header(req, "Sec-Fetch-Site");
    if ((!site || strcmp(site, "same-origin") == 0) &&
        wg_guard__same_origin(wg_req_header(req, "Origin"), wg_req_header(req, "Host")))
        return 0;
    wg_res_error(res, 403, "ORIGIN_NOT_ALLOWED",
                 "sign in from the dashboard's own page (the Origin header must name this "
                 "service)");
    return 1;
}

static int set_cookie(wg_res *res, const wg_req *req, const char *value, long long max_age_s)
{
    char cookie[256];
    int secure = !wg_guard__host_is_loopback(wg_req_header(req, "Host"));
    snprintf(cookie, sizeof cookie, "%s=%s; HttpOnly; SameSite=Strict; Path=/; Max-Age=%lld%s",
             WG_SESSION_COOKIE, value, max_age_s, secure ? "; Secure" : "");
    return wg_res_header(res, "Set-Cookie", cookie);
}

static int login(wg_res *res, const wg_req *req)
{
    if (origin_refused(res, req))
        return 0;
    const char *token = NULL;
    if (wg_body_string(res, req, "token", 1, &token) < 0)
        return 0;
    int64_t now = wg_session__now_ms();
    int rc = wg_session__login_use(req->ctx->store, token, now);
    if (rc == WG_EAUTH)
        return wg_res_error(res, 401, "LOGIN_INVALID",
                            "this login link is unknown, used or expired: run `waggle "
                            "dashboard` for a new one");
    if (rc < 0)
        return rc;
    char *sid = NULL;
    int64_t expires = 0;
    if ((rc = wg_session__new(&sid, &expires, req->ctx->store, now)) < 0)
        return rc;
    wg_res_json(res, 200, json_pack("{s:b,s:s,s:I}", "authenticated", 1, "via", "cookie",
                                    "expiresAt", (json_int_t)expires));
    set_cookie(res, req, sid, (long long)(WG_SESSION_TTL_MS / 1000));
    sodium_memzero(sid, strlen(sid));
    free(sid);
    return 0;
}

/* With the operator's autonomy policy, which the Autonomy screen shows
 * before a person picks a level (spec 7.5: the server caps expiresAt). */
static int session(wg_res *res, const wg_req *req)
{
    wg_autonomy_policy pol;
    wg_engine_autonomy_policy(&pol, req->ctx->engine);
    json_t *o = json_pack("{s:b,s:s,s:I,s:s}", "authenticated", 1, "via", "bearer",
                          "autonomyCapMs", (json_int_t)pol.cap_ms, "maxAutonomy",
                          wg_autonomy_name(pol.max_level));
    if (!o || wg_req_header(req, "Authorization"))
        return wg_res_json(res, 200, o);
    int64_t expires = 0;
    int rc = wg_session__check(&expires, req->ctx->store,
                               wg_req_cookie(req, WG_SESSION_COOKIE), wg_session__now_ms());
    if (rc < 0) {
        json_decref(o);
        return rc;
    }
    json_object_set_new(o, "via", json_string("cookie"));
    json_object_set_new(o, "expiresAt", json_integer((json_int_t)expires));
    return wg_res_json(res, 200, o);
}

static int logout(wg_res *res, const wg_req *req)
{
    const char *sid = wg_req_cookie(req, WG_SESSION_COOKIE);
    int rc = sid ? wg_session__end(req->ctx->store, sid) : 0;
    if (rc < 0)
        return rc;
    wg_res_json(res, 200, json_pack("{s:b}", "loggedOut", 1));
    return set_cookie(res, req, "", 0);
}

static const wg_http_route routes[] = {
    { WG_HTTP_POST, "/api/dashboard/login",   login,   WG_ROUTE_FREE, WG_ROUTE_PUBLIC },
    { WG_HTTP_GET,  "/api/dashboard/session", session, WG_ROUTE_FREE, 0 },
    { WG_HTTP_POST, "/api/dashboard/logout",  logout,  WG_ROUTE_FREE, 0 },
};

const wg_route_area wg_routes_dashboard = {
    "dashboard", routes, sizeof routes / sizeof routes[0], NULL, NULL,
};

/* dashboard.c - the dashboard's contract (docs/server.md, "The dashboard"):
 * the embedded files at / with their types and browser-hardening headers
 * (a strict CSP, nosniff, no referrer, no framing, ETag/304); the one-time
 * login link exchanged for an HttpOnly SameSite=Strict cookie, exactly once;
 * the Origin check (CSRF) on every state-changing request a cookie
 * authenticates; the bearer API unchanged; the bounds on live tokens. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server_int.h"
#include "server/session.h"
#include "server/web.h"
#include "raw_http.h"
#include "server_test.h"
#include "waggle/error.h"
#include "waggle/store.h"

static wgt_server s;
static char origin[96];

static const char *const hosts[] = { "waggle.example", NULL };

static void setup(void)
{
    wgt_server_config cfg = { .allowed_hosts = hosts };
    wgt_server_start(&s, &cfg);
    snprintf(origin, sizeof origin, "Origin: %s", s.base);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(dashboard, .init = setup, .fini = teardown);

static wg_store *store(void)
{
    return s.srv->ctx.store;
}

static char *login_token(void)
{
    char *t = NULL;
    cr_assert_eq(wg_server_login_token(&t, store()), 0, "%s", wg_error_last());
    cr_assert_eq(strlen(t), WG_SESSION_TOKEN_LEN);
    return t;
}

/* POST /api/dashboard/login with the given extra headers; no bearer. */
static void post_login(wgt_http_res *r, const char *token, const char *const *headers)
{
    char body[160];
    snprintf(body, sizeof body, "{\"token\":\"%s\"}", token);
    wgt_http_ex(r, &s, "POST", "/api/dashboard/login", body, strlen(body), WGT_AUTH_NONE, headers);
}

/* Signs in and returns "Cookie: waggle_session=..." (new). */
static char *sign_in(void)
{
    char *t = login_token();
    const char *h[] = { origin, NULL };
    wgt_http_res r;
    post_login(&r, t, h);
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *set = wgt_http_header(&r, "Set-Cookie");
    cr_assert(set);
    size_t n = strcspn(set, ";");
    char *cookie = malloc(n + 16);
    snprintf(cookie, n + 16, "Cookie: %.*s", (int)n, set);
    free(set);
    free(t);
    wgt_http_res_free(&r);
    return cookie;
}

static long with_cookie(const char *method, const char *path, const char *body,
                        const char *const *headers, wgt_http_res *keep)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, method, path, body, body ? strlen(body) : 0, WGT_AUTH_NONE, headers);
    long st = r.status;
    if (keep)
        *keep = r;
    else
        wgt_http_res_free(&r);
    return st;
}

static void expect_header(const wgt_http_res *r, const char *name, const char *value)
{
    char *v = wgt_http_header(r, name);
    cr_assert(v, "no %s header", name);
    cr_assert_str_eq(v, value, "%s: %s", name, v);
    free(v);
}

Test(dashboard, page_is_served_with_a_strict_csp_and_hardening_headers)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "<!doctype html>") || strstr(r.body, "<!DOCTYPE html>"));
    expect_header(&r, "Content-Type", "text/html; charset=utf-8");
    expect_header(&r, "Content-Security-Policy", WG_WEB_CSP);
    expect_header(&r, "X-Content-Type-Options", "nosniff");
    expect_header(&r, "Referrer-Policy", "no-referrer");
    expect_header(&r, "X-Frame-Options", "DENY");
    expect_header(&r, "Cache-Control", "no-cache");
    char *csp = wgt_http_header(&r, "Content-Security-Policy");
    cr_assert(strstr(csp, "default-src 'self'") && strstr(csp, "frame-ancestors 'none'"));
    cr_assert_null(strstr(csp, "unsafe-inline"));
    cr_assert_null(strstr(csp, "unsafe-eval"));
    free(csp);
    /* the page has no inline script or style for the CSP to refuse */
    cr_assert_null(strstr(r.body, "<script>"));
    cr_assert_null(strstr(r.body, "<style"));
    cr_assert_null(strstr(r.body, " style="));
    cr_assert_null(strstr(r.body, " onclick="));
    char *etag = wgt_http_header(&r, "ETag");
    cr_assert(etag && etag[0] == '"');
    char inm[128];
    snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
    const char *h[] = { inm, NULL };
    wgt_http_res r2;
    wgt_http_ex(&r2, &s, "GET", "/", NULL, 0, WGT_AUTH_NONE, h);
    cr_assert_eq(r2.status, 304);
    cr_assert_eq(r2.len, 0);
    free(etag);
    wgt_http_res_free(&r2);
    wgt_http_res_free(&r);
    wgt_http_ex(&r, &s, "GET", "/login", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 200);
    expect_header(&r, "Content-Type", "text/html; charset=utf-8");
    wgt_http_res_free(&r);
}

Test(dashboard, every_embedded_file_has_its_type_and_no_other_path_is_a_file)
{
    cr_assert_gt(wg_web__n_assets, 0);
    for (size_t i = 0; i < wg_web__n_assets; i++) {
        const wg_web_asset *a = &wg_web__assets[i];
        cr_assert_neq(strcmp(wg_web__content_type(a->path), "application/octet-stream"), 0,
                      "%s has no known type", a->path);
        if (i)
            cr_assert_lt(strcmp(wg_web__assets[i - 1].path, a->path), 0, "rows sorted");
        cr_assert_eq(wg_web__find(a->path), a);
    }
    static const char *const none[] = { "/js/../index.html", "/index.html/", "//index.html",
                                        "/INDEX.HTML", "/.git/config", "/favicon.ico", "" };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        cr_assert_null(wg_web__find(none[i]), "%s", none[i]);
    cr_assert_str_eq(wg_web__content_type("/js/app.js"), "text/javascript; charset=utf-8");
    cr_assert_str_eq(wg_web__content_type("/x.css"), "text/css; charset=utf-8");
    cr_assert_str_eq(wg_web__content_type("/img/a.svg"), "image/svg+xml");
    cr_assert_str_eq(wg_web__content_type("/js.d/noext"), "application/octet-stream");
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/nothing-here.js", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
    /* a non-GET on a page path is not a file */
    wgt_http_ex(&r, &s, "POST", "/", "{}", 2, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 404);
    wgt_http_res_free(&r);
}

Test(dashboard, login_token_works_once_and_gives_an_httponly_strict_cookie)
{
    char *t = login_token();
    const char *h[] = { origin, NULL };
    wgt_http_res r;
    post_login(&r, t, h);
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *set = wgt_http_header(&r, "Set-Cookie");
    cr_assert(set);
    cr_assert(strncmp(set, "waggle_session=", 15) == 0, "%s", set);
    cr_assert(strstr(set, "; HttpOnly"), "%s", set);
    cr_assert(strstr(set, "; SameSite=Strict"), "%s", set);
    cr_assert(strstr(set, "; Path=/"), "%s", set);
    cr_assert_null(strstr(set, "Secure"), "loopback http: no Secure (%s)", set);
    cr_assert_null(strstr(r.body, t), "the login token is never echoed");
    cr_assert_eq(json_integer_value(json_object_get(r.json, "expiresAt")) > 0, 1);
    free(set);
    wgt_http_res_free(&r);
    post_login(&r, t, h);
    cr_assert_eq(r.status, 401, "a used token: %s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "LOGIN_INVALID");
    wgt_http_res_free(&r);
    free(t);
}

Test(dashboard, login_refuses_malformed_expired_and_cross_origin_tokens)
{
    const char *h[] = { origin, NULL };
    static const char *const bad[] = {
        "", "00", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",   /* 63 */
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",           /* 65 */
        "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",            /* case */
        "../../../../etc/passwd\\r\\nX: y" };
    wgt_http_res r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        post_login(&r, bad[i], h);
        cr_assert_eq(r.status, 401, "%s: %s", bad[i], r.body);
        wgt_http_res_free(&r);
    }
    /* expired: made 11 minutes ago, live for 10 */
    char *old = NULL;
    cr_assert_eq(wg_session__login_new(&old, store(), wg_session__now_ms() - 11 * 60 * 1000), 0);
    post_login(&r, old, h);
    cr_assert_eq(r.status, 401);
    wgt_http_res_free(&r);
    free(old);
    /* a good token without Origin, from another origin, or cross-site, is
     * refused and stays usable */
    char *t = login_token();
    const char *none[] = { NULL };
    const char *other[] = { "Origin: http://127.0.0.1:1", NULL };
    const char *evil[] = { "Origin: http://evil.example", NULL };
    const char *site[] = { origin, "Sec-Fetch-Site: same-site", NULL };
    const char *const *refuse[] = { none, other, evil, site };
    for (size_t i = 0; i < 4; i++) {
        post_login(&r, t, refuse[i]);
        cr_assert_eq(r.status, 403, "%zu: %s", i, r.body);
        cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")),
                         "ORIGIN_NOT_ALLOWED");
        wgt_http_res_free(&r);
    }
    post_login(&r, t, h);
    cr_assert_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    free(t);
}

Test(dashboard, cookie_reads_freely_but_changes_state_only_from_this_origin)
{
    char *cookie = sign_in();
    const char *plain[] = { cookie, NULL };
    cr_assert_eq(with_cookie("GET", "/api/tier", NULL, plain, NULL), 200);
    cr_assert_eq(with_cookie("GET", "/api/dashboard/session", NULL, plain, NULL), 200);
    const char *gate = "{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}}";
    const char *other[] = { cookie, "Origin: http://localhost:1", NULL };
    const char *evil[] = { cookie, "Origin: https://evil.example", NULL };
    const char *null_o[] = { cookie, "Origin: null", NULL };
    const char *site[] = { cookie, origin, "Sec-Fetch-Site: cross-site", NULL };
    const char *const *refuse[] = { plain, other, evil, null_o, site };
    for (size_t i = 0; i < 5; i++) {
        wgt_http_res r;
        cr_assert_eq(with_cookie("POST", "/api/gate/check", gate, refuse[i], &r), 403, "%zu", i);
        cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")),
                         "ORIGIN_NOT_ALLOWED");
        wgt_http_res_free(&r);
    }
    const char *same[] = { cookie, origin, "Sec-Fetch-Site: same-origin", NULL };
    cr_assert_eq(with_cookie("POST", "/api/gate/check", gate, same, NULL), 200);
    /* a cookie has the API token's rights, never the admin's */
    wgt_http_res r;
    cr_assert_eq(with_cookie("PATCH", "/api/tier", "{\"tier\":\"PRO\"}", same, &r), 403);
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "error")), "ADMIN_REQUIRED");
    wgt_http_res_free(&r);
    /* programs: the bearer token needs no Origin, as before */
    wgt_http(&r, &s, "POST", "/api/gate/check", gate);
    cr_assert_eq(r.status, 200);
    wgt_http_res_free(&r);
    /* a wrong bearer is not rescued by a good cookie */
    const char *both[] = { cookie, "Authorization: Bearer nope", NULL };
    cr_assert_eq(with_cookie("GET", "/api/tier", NULL, both, NULL), 401);
    free(cookie);
}

Test(dashboard, logout_ends_the_session_everywhere)
{
    char *cookie = sign_in();
    const char *same[] = { cookie, origin, NULL };
    wgt_http_res r;
    cr_assert_eq(with_cookie("POST", "/api/dashboard/logout", NULL, same, &r), 200);
    char *set = wgt_http_header(&r, "Set-Cookie");
    cr_assert(set && strstr(set, "Max-Age=0"), "%s", set ? set : "");
    free(set);
    wgt_http_res_free(&r);
    const char *plain[] = { cookie, NULL };
    cr_assert_eq(with_cookie("GET", "/api/tier", NULL, plain, NULL), 401);
    cr_assert_eq(with_cookie("GET", "/api/events", NULL, plain, NULL), 401);
    const char *forged[] = {
        "Cookie: waggle_session=0000000000000000000000000000000000000000000000000000000000000000",
        NULL };
    cr_assert_eq(with_cookie("GET", "/api/tier", NULL, forged, NULL), 401);
    free(cookie);
}

Test(dashboard, cookie_is_secure_when_the_host_is_not_loopback)
{
    char *t = login_token();
    const char *h[] = { "Host: waggle.example", "Origin: https://waggle.example", NULL };
    wgt_http_res r;
    post_login(&r, t, h);
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *set = wgt_http_header(&r, "Set-Cookie");
    cr_assert(set && strstr(set, "; Secure"), "%s", set ? set : "");
    free(set);
    wgt_http_res_free(&r);
    free(t);
}

Test(dashboard, live_login_tokens_are_bounded_at_16)
{
    char *t[WG_SESSION_LOGIN_MAX + 1] = { 0 };
    int64_t now = wg_session__now_ms();
    for (int i = 0; i < WG_SESSION_LOGIN_MAX - 1; i++)            /* N-1 */
        cr_assert_eq(wg_session__login_new(&t[i], store(), now), 0);
    cr_assert_eq(wg_session__login_new(&t[WG_SESSION_LOGIN_MAX - 1], store(), now), 0);   /* N */
    char *extra = NULL;
    cr_assert_eq(wg_session__login_new(&extra, store(), now), WG_EBUSY);                  /* N+1 */
    cr_assert_null(extra);
    /* using one makes room; expired ones are purged */
    cr_assert_eq(wg_session__login_use(store(), t[0], now), 0);
    cr_assert_eq(wg_session__login_new(&extra, store(), now), 0);
    free(extra);
    extra = NULL;
    cr_assert_eq(wg_session__login_new(&extra, store(), now + WG_SESSION_LOGIN_TTL_MS + 1), 0);
    free(extra);
    for (int i = 0; i < WG_SESSION_LOGIN_MAX; i++)
        free(t[i]);
}

Test(dashboard, unauthenticated_api_paths_still_answer_401_before_404)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/api/no/such/route", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 401);
    wgt_http_res_free(&r);
    wgt_http_ex(&r, &s, "GET", "/api/dashboard/login", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_assert_eq(r.status, 401, "405 only for a client with a token");
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/audit/verify", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(json_is_true(json_object_get(r.json, "ok")), "%s", r.body);
    wgt_http_res_free(&r);
}

Test(dashboard, head_answers_the_headers_without_a_body)
{
    int fd = wgt_raw_connect(s.port, NULL);
    cr_assert_geq(fd, 0);
    static const char req[] = "HEAD /css/app.css HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "Connection: close\r\n\r\n";
    cr_assert_eq(wgt_raw_send(fd, req, sizeof req - 1), 0);
    char buf[8192];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf - 1 && (got = recv(fd, buf + n, sizeof buf - 1 - n, 0)) > 0)
        n += (size_t)got;
    buf[n] = '\0';
    close(fd);
    cr_assert(strncmp(buf, "HTTP/1.1 200", 12) == 0, "%s", buf);
    cr_assert(strstr(buf, "Content-Type: text/css; charset=utf-8\r\n"), "%s", buf);
    cr_assert(strstr(buf, "Content-Security-Policy: " WG_WEB_CSP "\r\n"), "%s", buf);
    const char *end = strstr(buf, "\r\n\r\n");
    cr_assert(end && end[4] == '\0', "HEAD sent a body: %s", buf);
}

typedef struct {
    const char *token;
    long status;
} racer;

static void *race_login(void *arg)
{
    racer *r = arg;
    const char *h[] = { origin, NULL };
    wgt_http_res res;
    post_login(&res, r->token, h);
    r->status = res.status;
    wgt_http_res_free(&res);
    return NULL;
}

Test(dashboard, eight_browsers_racing_one_login_token_get_one_session)
{
    enum { RACERS = 8 };
    char *t = login_token();
    pthread_t th[RACERS];
    racer rs[RACERS];
    for (int i = 0; i < RACERS; i++) {
        rs[i] = (racer){ t, 0 };
        pthread_create(&th[i], NULL, race_login, &rs[i]);
    }
    int won = 0, lost = 0;
    for (int i = 0; i < RACERS; i++) {
        pthread_join(th[i], NULL);
        won += rs[i].status == 200;
        lost += rs[i].status == 401;
    }
    cr_assert_eq(won, 1, "%d sessions from one token", won);
    cr_assert_eq(lost, RACERS - 1);
    free(t);
}

Test(dashboard, a_replica_on_the_same_store_honours_the_link_once_and_the_session)
{
    /* Two waggled on one data dir (one store): the link is used up on the
     * second, the session it gave works on the first, and a logout on the
     * first ends it on the second. */
    wgt_server b;
    wgt_server_config cfg = { .data_dir = s.dir };
    wgt_server_start(&b, &cfg);
    char *t = login_token();                      /* made through s's store */
    char bo[96];
    snprintf(bo, sizeof bo, "Origin: %s", b.base);
    const char *hb[] = { bo, NULL };
    char body[160];
    snprintf(body, sizeof body, "{\"token\":\"%s\"}", t);
    wgt_http_res r;
    wgt_http_ex(&r, &b, "POST", "/api/dashboard/login", body, strlen(body), WGT_AUTH_NONE, hb);
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *set = wgt_http_header(&r, "Set-Cookie");
    wgt_http_res_free(&r);
    const char *ha[] = { origin, NULL };
    post_login(&r, t, ha);
    cr_assert_eq(r.status, 401, "used on the replica already");
    wgt_http_res_free(&r);
    char cookie[128];
    snprintf(cookie, sizeof cookie, "Cookie: %.*s", (int)strcspn(set, ";"), set);
    free(set);
    const char *plain[] = { cookie, NULL };
    cr_assert_eq(with_cookie("GET", "/api/tier", NULL, plain, NULL), 200);
    const char *out[] = { cookie, origin, NULL };
    cr_assert_eq(with_cookie("POST", "/api/dashboard/logout", NULL, out, NULL), 200);
    wgt_http_ex(&r, &b, "GET", "/api/tier", NULL, 0, WGT_AUTH_NONE, plain);
    cr_assert_eq(r.status, 401, "logged out on the other replica");
    wgt_http_res_free(&r);
    free(t);
    /* b shares s's data dir: stopping b must not remove it */
    free(b.dir);
    b.dir = NULL;
    wgt_server_stop(&b);
}

Test(dashboard, no_file_of_the_dashboard_uses_an_html_sink)
{
    /* Server text reaches the page only as text nodes (web/js/dom.js):
     * none of the DOM's markup or code sinks appears in any file. */
    static const char *const sinks[] = { "innerHTML", "outerHTML", "insertAdjacentHTML",
                                         "document.write", "eval(", "new Function",
                                         "javascript:", "setTimeout('", "setTimeout(\"" };
    for (size_t i = 0; i < wg_web__n_assets; i++) {
        const wg_web_asset *a = &wg_web__assets[i];
        for (size_t k = 0; k < sizeof sinks / sizeof *sinks; k++)
            cr_assert_null(memmem(a->data, a->len, sinks[k], strlen(sinks[k])), "%s uses %s",
                           a->path, sinks[k]);
    }
}

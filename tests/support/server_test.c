/* server_test.c - an in-process waggled for contract tests (server_test.h). */
#include "server_test.h"
#include "openapi_check.h"
#include "wgtest.h"

#include "waggle/error.h"

#include <criterion/criterion.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void read_token(char *dst, size_t cap, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *t = wgt_read_file(path);
    dst[0] = '\0';
    if (t) {
        t[strcspn(t, "\r\n")] = '\0';
        snprintf(dst, cap, "%s", t);
        free(t);
    }
}

/* The contract check of every answer (openapi_check.h). A failure seen on
 * another thread than the test's is kept and reported by wgt_server_stop,
 * because Criterion's assertions belong to the test's thread. */
static pthread_t test_thread;
static pthread_mutex_t late_lock = PTHREAD_MUTEX_INITIALIZER;
static char late_failure[1200];

static void check_contract(const wgt_http_res *r, const char *method, const char *path)
{
    if (!r->status)
        return;
    char why[1200];
    char *ctype = wgt_http_header(r, "Content-Type");
    int ok = wgt_openapi_check(method, path, r->status, ctype, r->body, r->len, why, sizeof why);
    free(ctype);
    if (ok)
        return;
    if (pthread_equal(pthread_self(), test_thread)) {
        cr_expect(ok, "response does not match data/openapi.json: %s", why);
        return;
    }
    pthread_mutex_lock(&late_lock);
    if (!late_failure[0])
        snprintf(late_failure, sizeof late_failure, "%s", why);
    pthread_mutex_unlock(&late_lock);
}

void wgt_server_start(wgt_server *s, const wgt_server_config *cfg)
{
    pthread_once(&curl_once, curl_init);
    test_thread = pthread_self();
    memset(s, 0, sizeof *s);
    s->dir = cfg && cfg->data_dir ? strdup(cfg->data_dir) : wgt_tmpdir();
    for (const char *const *f = cfg ? cfg->files : NULL; f && f[0] && f[1]; f += 2)
        wgt_write_file(s->dir, f[0], f[1]);
    wg_server_options opt = WG_SERVER_OPTIONS_INIT;
    opt.data_dir = s->dir;
    opt.listen = "127.0.0.1:0";
    opt.threads = 2;
    if (cfg) {
        opt.cors_origins = cfg->cors_origins;
        opt.allowed_hosts = cfg->allowed_hosts;
        opt.timeout_s = cfg->timeout_s;
        opt.demo = cfg->demo;
        opt.allow_private_upstreams = cfg->allow_private_upstreams;
        opt.allow_http_upstreams = cfg->allow_http_upstreams;
        opt.obsidian_roots = cfg->obsidian_roots;
        opt.approval_ttl_s = cfg->approval_ttl_s;
        opt.max_autonomy = cfg->max_autonomy;
        opt.never_autopass = cfg->never_autopass;
        opt.sse_heartbeat_ms = cfg->sse_heartbeat_ms;
        opt.sse_max_streams = cfg->sse_max_streams;
        if (cfg->threads)
            opt.threads = cfg->threads;
        opt.max_connections = cfg->max_connections;
        opt.max_connections_per_ip = cfg->max_connections_per_ip;
        opt.request_deadline_s = cfg->request_deadline_s;
        opt.trusted_proxies = cfg->trusted_proxies;
        if (cfg->listen)
            opt.listen = cfg->listen;
        opt.log = cfg->log;
        opt.log_ud = cfg->log_ud;
    }
    int rc = wg_server_start(&s->srv, &opt);
    if (rc < 0) {
        fprintf(stderr, "wgt_server_start: %s\n", wg_error_last());
        abort();
    }
    s->port = wg_server_port(s->srv);
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%u", s->port);
    snprintf(s->token, sizeof s->token, "%s", wg_server_token(s->srv));
    read_token(s->admin, sizeof s->admin, s->dir, "admin-token");
}

void wgt_server_stop(wgt_server *s)
{
    pthread_mutex_lock(&late_lock);
    cr_expect(!late_failure[0], "a response (on a client thread) does not match "
              "data/openapi.json: %s", late_failure);
    late_failure[0] = '\0';
    pthread_mutex_unlock(&late_lock);
    wg_server_stop(s->srv);
    s->srv = NULL;
    wgt_rmtree(s->dir);
    free(s->dir);
    s->dir = NULL;
}

void wgt_server_config_json(const wgt_server *s, const char *json)
{
    wgt_write_file(s->dir, "config.json", json);
}

typedef struct {
    char *p;
    size_t n;
} buf;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
    buf *b = ud;
    size_t n = size * nmemb;
    char *p = realloc(b->p, b->n + n + 1);
    if (!p)
        return 0;
    memcpy(p + b->n, ptr, n);
    b->n += n;
    p[b->n] = '\0';
    b->p = p;
    return n;
}

void wgt_http_ex(wgt_http_res *r, const wgt_server *s, const char *method, const char *path,
                 const char *body, size_t body_len, int auth, const char *const *headers)
{
    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    size_t ulen = strlen(s->base) + strlen(path) + 1;
    char *url = malloc(ulen);
    snprintf(url, ulen, "%s%s", s->base, path);
    buf b = { 0 }, h = { 0 };
    struct curl_slist *hl = NULL;
    char authz[256];
    if (auth != WGT_AUTH_NONE) {
        snprintf(authz, sizeof authz, "Authorization: Bearer %s",
                 auth == WGT_AUTH_ADMIN ? s->admin : s->token);
        hl = curl_slist_append(hl, authz);
    }
    hl = curl_slist_append(hl, "Expect:");
    for (const char *const *x = headers; x && *x; x++)
        hl = curl_slist_append(hl, *x);
    if (body)
        hl = curl_slist_append(hl, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    }
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    free(url);
    r->body = b.p ? b.p : strdup("");
    r->len = b.n;
    r->headers = h.p ? h.p : strdup("");
    r->json = json_loadb(r->body, r->len, 0, NULL);
    check_contract(r, method, path);
}

void wgt_http(wgt_http_res *r, const wgt_server *s, const char *method, const char *path,
              const char *body)
{
    wgt_http_ex(r, s, method, path, body, body ? strlen(body) : 0, WGT_AUTH_API, NULL);
}

char *wgt_http_header(const wgt_http_res *r, const char *name)
{
    size_t nl = strlen(name);
    for (const char *line = r->headers; line && *line;) {
        const char *end = strstr(line, "\r\n");
        size_t ll = end ? (size_t)(end - line) : strlen(line);
        if (ll > nl && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            const char *v = line + nl + 1;
            while (*v == ' ')
                v++;
            return strndup(v, ll - (size_t)(v - line));
        }
        if (!end)
            break;
        line = end + 2;
    }
    return NULL;
}

void wgt_http_res_free(wgt_http_res *r)
{
    free(r->body);
    free(r->headers);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

/* connect_replay.c - loopback replay server and case runner for connector
 * tests (see connect_replay.h). libmicrohttpd on 127.0.0.1, one polling
 * thread; state behind a mutex. */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connect_replay.h"
#include "wgtest.h"
#include "waggle/connector.h"

struct wgt_replay {
    struct MHD_Daemon *d;
    char base[64];
    pthread_mutex_t mu;
    json_t *expect;     /* array of exchanges */
    size_t next;
    char problem[2048];
    json_t *seen;
};

typedef struct {
    char *uri;
    char *body;
    size_t len;
    int started;
} conn;

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    conn *k = calloc(1, sizeof *k);
    k->uri = strdup(uri);
    return k;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)c;
    (void)t;
    conn *k = *con_cls;
    if (k) {
        free(k->uri);
        free(k->body);
        free(k);
    }
    *con_cls = NULL;
}

static void note(wgt_replay *r, const char *fmt, const char *a, const char *b)
{
    if (!r->problem[0])
        snprintf(r->problem, sizeof r->problem, fmt, a, b);
}

/* '*' matches any run of characters (values computed at call time, such as
 * "now"); everything else matches itself. Iterative, linear-ish. */
static int glob_match(const char *g, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*g == '*') {
            star = g++;
            resume = s;
        } else if (*g == *s) {
            g++;
            s++;
        } else if (star) {
            g = star + 1;
            s = ++resume;
        } else {
            return 0;
        }
    }
    while (*g == '*')
        g++;
    return *g == 0;
}

static int match(wgt_replay *r, struct MHD_Connection *c, const char *method, conn *k,
                 const json_t *req)
{
    char where[256];
    snprintf(where, sizeof where, "exchange %zu", r->next);
    const char *m = json_string_value(json_object_get(req, "method"));
    if (m && strcmp(m, method)) {
        note(r, "%s: method %s", where, method);
        return 0;
    }
    const char *uri = json_string_value(json_object_get(req, "uri"));
    const char *glob = json_string_value(json_object_get(req, "uri_glob"));
    if (glob && !glob_match(glob, k->uri)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "expected uri like %s, got", glob);
        note(r, "%s %s", msg, k->uri);
        return 0;
    }
    if (uri && strcmp(uri, k->uri)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "expected uri %s, got", uri);
        note(r, "%s %s", msg, k->uri);
        return 0;
    }
    const char *name;
    json_t *want;
    json_object_foreach(json_object_get(req, "headers"), name, want) {
        const char *got = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
        if (json_is_null(want) ? got != NULL
                               : (!got || strcmp(got, json_string_value(want)))) {
            char msg[512];
            snprintf(msg, sizeof msg, "header %s: got", name);
            note(r, "%s %s", msg, got ? got : "(absent)");
            return 0;
        }
    }
    const json_t *body = json_object_get(req, "body");
    if (body) {
        json_t *got = k->len ? json_loadb(k->body, k->len, JSON_DECODE_ANY, NULL) : NULL;
        int ok = got && json_equal(got, body);
        if (!ok) {
            char *w = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
            char *g = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
            char msg[1024];
            snprintf(msg, sizeof msg, "body mismatch: want %.900s", w);
            note(r, "%s got %s", msg, g ? g : (k->body ? k->body : "(empty)"));
            free(w);
            free(g);
        }
        json_decref(got);
        if (!ok)
            return 0;
    }
    const char *text = json_string_value(json_object_get(req, "body_text"));
    if (text && (k->len != strlen(text) || memcmp(k->body, text, k->len))) {
        note(r, "body_text mismatch: want %s got %s", text, k->body ? k->body : "");
        return 0;
    }
    if (json_is_true(json_object_get(req, "no_body")) && k->len) {
        note(r, "%s: unexpected body %s", where, k->body);
        return 0;
    }
    return 1;
}

/* Replaces every "{{base}}" in text (freed) with base: next-page links in
 * recorded responses name the replay server itself. */
static char *with_base(char *text, const char *base)
{
    static const char mark[] = "{{base}}";
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, mark)); p += sizeof mark - 1)
        n++;
    if (!n)
        return text;
    size_t bl = strlen(base), len = strlen(text) + n * bl + 1;
    char *o = malloc(len), *w = o;
    for (const char *p = text, *q; (q = strstr(p, mark)) || *p; p = q + sizeof mark - 1) {
        if (!q) {
            strcpy(w, p);
            w += strlen(p);
            break;
        }
        memcpy(w, p, (size_t)(q - p));
        w += q - p;
        memcpy(w, base, bl);
        w += bl;
    }
    *w = 0;
    free(text);
    return o;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version,
                               const char *upload, size_t *upload_size, void **con_cls)
{
    (void)url;
    (void)version;
    wgt_replay *r = cls;
    conn *k = *con_cls;
    if (!k->started) {
        k->started = 1;
        return MHD_YES;
    }
    if (*upload_size) {
        k->body = realloc(k->body, k->len + *upload_size + 1);
        memcpy(k->body + k->len, upload, *upload_size);
        k->len += *upload_size;
        k->body[k->len] = 0;
        *upload_size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&r->mu);
    json_array_append_new(r->seen, json_pack("{s:s,s:s}", "method", method, "uri", k->uri));
    json_t *ex = json_array_get(r->expect, r->next);
    unsigned status = 599;
    char *payload = strdup("{\"error\":\"replay: unexpected request\"}");
    json_t *hdrs = NULL;
    if (!ex) {
        note(r, "unexpected extra request %s %s", method, k->uri);
    } else if (match(r, c, method, k, json_object_get(ex, "request"))) {
        json_t *resp = json_object_get(ex, "response");
        r->next++;
        status = (unsigned)json_integer_value(json_object_get(resp, "status"));
        if (!status)
            status = 200;
        free(payload);
        const json_t *b = json_object_get(resp, "body");
        const char *bt = json_string_value(json_object_get(resp, "body_text"));
        payload = bt ? strdup(bt) : (b && !json_is_null(b)) ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("");
        payload = with_base(payload, r->base);
        hdrs = json_incref(json_object_get(resp, "headers"));
    } else {
        r->next++;
    }
    pthread_mutex_unlock(&r->mu);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(payload), payload, MHD_RESPMEM_MUST_FREE);
    int has_ct = 0;
    const char *hn;
    json_t *hv;
    json_object_foreach(hdrs, hn, hv) {
        char *value = with_base(strdup(json_string_value(hv)), r->base);
        MHD_add_response_header(resp, hn, value);
        free(value);
        has_ct |= strcasecmp(hn, "Content-Type") == 0;
    }
    if (!has_ct)
        MHD_add_response_header(resp, "Content-Type", "application/json; charset=utf-8");
    json_decref(hdrs);
    enum MHD_Result ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

wgt_replay *wgt_replay_start(void)
{
    wgt_replay *r = calloc(1, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    r->expect = json_array();
    r->seen = json_array();
    struct sockaddr_in sa = { 0 };
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = 0;
    r->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL,
                            handler, r, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, r,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, r, MHD_OPTION_END);
    if (!r->d) {
        wgt_replay_stop(r);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(r->d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(r->base, sizeof r->base, "http://127.0.0.1:%u", (unsigned)info->port);
    return r;
}

void wgt_replay_stop(wgt_replay *r)
{
    if (!r)
        return;
    if (r->d)
        MHD_stop_daemon(r->d);
    json_decref(r->expect);
    json_decref(r->seen);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

const char *wgt_replay_base(const wgt_replay *r) { return r->base; }

void wgt_replay_expect(wgt_replay *r, const json_t *exchanges)
{
    pthread_mutex_lock(&r->mu);
    json_decref(r->expect);
    r->expect = exchanges ? json_deep_copy(exchanges) : json_array();
    r->next = 0;
    r->problem[0] = 0;
    json_array_clear(r->seen);
    pthread_mutex_unlock(&r->mu);
}

const char *wgt_replay_verdict(wgt_replay *r)
{
    pthread_mutex_lock(&r->mu);
    if (!r->problem[0] && r->next < json_array_size(r->expect))
        snprintf(r->problem, sizeof r->problem, "only %zu of %zu expected requests arrived",
                 r->next, json_array_size(r->expect));
    pthread_mutex_unlock(&r->mu);
    return r->problem[0] ? r->problem : NULL;
}

const json_t *wgt_replay_seen(wgt_replay *r) { return r->seen; }

int wgt_json_subset(const json_t *sub, const json_t *full)
{
    if (json_is_object(sub)) {
        if (!json_is_object(full))
            return 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)sub, k, v)
            if (!wgt_json_subset(v, json_object_get(full, k)))
                return 0;
        return 1;
    }
    if (json_is_array(sub)) {
        if (!json_is_array(full) || json_array_size(full) < json_array_size(sub))
            return 0;
        for (size_t i = 0; i < json_array_size(sub); i++)
            if (!wgt_json_subset(json_array_get(sub, i), json_array_get(full, i)))
                return 0;
        return 1;
    }
    return full && json_equal(sub, full);
}

/* ---- case runner ------------------------------------------------------ */

static char *failf(const char *path, const char *what, const char *detail)
{
    char *m = NULL;
    if (asprintf(&m, "%s: %s%s%s", path, what, detail ? ": " : "", detail ? detail : "") < 0)
        return strdup("out of memory");
    return m;
}

static int excluded(const char *text, const json_t *list)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        if (text && strstr(text, json_string_value(v)))
            return 1;
    return 0;
}

char *wgt_connect_run_case(wgt_replay *r, const char *path)
{
    json_error_t e;
    json_t *c = json_load_file(path, 0, &e);
    if (!c)
        return failf(path, "bad case file", e.text);
    const char *tool = json_string_value(json_object_get(c, "tool"));
    const char *id = json_string_value(json_object_get(c, "connector"));
    json_t *creds = json_object_get(c, "creds");
    wg_connect_vault *v = NULL;
    wg_registry *reg = NULL;
    char *msg = NULL;
    wg_connect_memvault_new(&v);
    /* the replay server is http://127.0.0.1: the operator's override */
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = v, .allow_private_upstreams = 1, .allow_http_upstreams = 1 };
    if (wg_registry_new(&reg, &o) < 0) {
        msg = failf(path, "registry", NULL);
        goto done;
    }
    if (!id) {
        static char idbuf[64];
        sscanf(tool, "connector_%63[^_]", idbuf);
        id = idbuf;
    }
    wg_connect_request req = {
        .token = json_string_value(json_object_get(creds, "token")),
        .email = json_string_value(json_object_get(creds, "email")),
        .base_url = wgt_replay_base(r),
        .principal = WG_PRINCIPAL_OPERATOR,   /* any connector may then take a base URL */
    };
    if (!req.token)
        req.token = "test-token-0123456789";
    if (wg_registry_connect(reg, id, &req) < 0) {
        msg = failf(path, "connect failed", NULL);
        goto done;
    }
    const char *extra = json_string_value(json_object_get(creds, "extra"));
    const wg_connector_spec *spec = wg_registry_get(reg, id);
    if (extra && spec && spec->extra_key) {
        char name[128];
        snprintf(name, sizeof name, "connector:%s:%s", id, spec->extra_key);
        v->set(v->ctx, name, extra, NULL);
    }
    wgt_replay_expect(r, json_object_get(c, "exchanges"));
    json_t *res = NULL;
    wg_registry_execute(&res, reg, tool, json_object_get(c, "args"));
    const char *verdict = wgt_replay_verdict(r);
    json_t *expect = json_object_get(c, "expect");
    char *got = json_dumps(res, JSON_COMPACT);
    if (verdict) {
        msg = failf(path, verdict, got);
    } else if (json_is_boolean(json_object_get(expect, "success")) &&
               json_boolean_value(json_object_get(expect, "success")) !=
                   json_is_true(json_object_get(res, "success"))) {
        msg = failf(path, "unexpected success value", got);
    } else if (json_object_get(expect, "error_contains") &&
               !strstr(json_string_value(json_object_get(res, "error")) ? json_string_value(json_object_get(res, "error")) : "",
                       json_string_value(json_object_get(expect, "error_contains")))) {
        msg = failf(path, "error text", got);
    } else if (excluded(json_string_value(json_object_get(res, "error")),
                        json_object_get(expect, "error_excludes"))) {
        msg = failf(path, "error text holds an excluded string", got);
    } else if (json_object_get(expect, "data") &&
               !wgt_json_subset(json_object_get(expect, "data"), json_object_get(res, "data"))) {
        msg = failf(path, "data mismatch", got);
    } else if (json_object_get(expect, "result") &&
               !wgt_json_subset(json_object_get(expect, "result"), res)) {
        msg = failf(path, "result mismatch", got);
    }
    free(got);
    json_decref(res);
done:
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    json_decref(c);
    return msg;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int wgt_connect_run_service(const char *service, int *ran)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/connect/%s", WG_TEST_DATA_DIR, service);
    DIR *d = opendir(dir);
    int failures = 0;
    *ran = 0;
    if (!d) {
        fprintf(stderr, "no case directory %s\n", dir);
        return 1;
    }
    char *names[512];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 512)
        if (strstr(de->d_name, ".json"))
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    wgt_replay *r = wgt_replay_start();
    for (size_t i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *msg = wgt_connect_run_case(r, path);
        (*ran)++;
        if (msg) {
            fprintf(stderr, "FAIL %s\n", msg);
            failures++;
            free(msg);
        }
    }
    wgt_replay_stop(r);
    /* every action has at least one case named <action>*.json */
    wg_registry *reg = NULL;
    wg_registry_options o = WG_REGISTRY_OPTIONS_INIT;
    wg_registry_new(&reg, &o);
    const wg_connector_spec *spec = wg_registry_get(reg, service);
    for (size_t a = 0; spec && a < spec->n_actions; a++) {
        size_t len = strlen(spec->actions[a].name);
        int found = 0;
        for (size_t i = 0; i < n && !found; i++)
            found = strncmp(names[i], spec->actions[a].name, len) == 0 &&
                    (names[i][len] == '.' || names[i][len] == '-');
        if (!found) {
            fprintf(stderr, "FAIL %s: no replay case for action %s\n", service,
                    spec->actions[a].name);
            failures++;
        }
    }
    if (!spec) {
        fprintf(stderr, "FAIL no connector %s\n", service);
        failures++;
    }
    wg_registry_free(reg);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return failures;
}

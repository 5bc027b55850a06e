/* concurrency.c - many clients at once on the worker threads: every answer
 * is the right one (no cross-talk between requests), writes to the store
 * and config.json from several threads lose nothing. */
#include <criterion/criterion.h>

#include "server_test.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { THREADS = 8, ROUNDS = 25 };

static wgt_server s;

typedef struct {
    int id;
    int failures;
} worker;

static void *run(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < ROUNDS; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"workspaceId\":\"ws-%d\",\"costUsd\":1}", w->id);
        wgt_http_res r;
        wgt_http(&r, &s, "POST", "/api/cost/events", body);
        w->failures += r.status != 201;
        wgt_http_res_free(&r);
        snprintf(body, sizeof body, "{\"query\":\"thread-%d-%d\"}", w->id, i);
        wgt_http(&r, &s, "POST", "/api/capabilities/resolve", body);
        char want[64];
        snprintf(want, sizeof want, "thread-%d-%d", w->id, i);
        const char *q = json_string_value(json_object_get(r.json, "query"));
        w->failures += r.status != 200 || !q || strcmp(q, want) != 0;
        wgt_http_res_free(&r);
        wgt_http(&r, &s, "GET", "/api/capabilities/status", NULL);
        w->failures += r.status != 200;
        wgt_http_res_free(&r);
    }
    return NULL;
}

Test(concurrency, parallel_clients_get_their_own_answers)
{
    static const char *const files[] = { "config.json", "{\"tier\":\"TEAMS\"}", NULL };
    wgt_server_config cfg = { .files = files };
    wgt_server_start(&s, &cfg);
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){ i, 0 };
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        cr_expect_eq(w[i].failures, 0, "worker %d had %d wrong answers", i, w[i].failures);
    }
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/cost/by-workspace", NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(json_array_size(json_object_get(r.json, "workspaces")), THREADS);
    cr_assert_float_eq(json_number_value(json_object_get(r.json, "totalCostUsd")),
                       (double)THREADS * ROUNDS, 1e-9);
    wgt_http_res_free(&r);
    wgt_server_stop(&s);
}

/* The credential pool shared by threads of one process (waggle/pool.h:
 * "one pool may be shared by threads"): every get_key is one step of one
 * round-robin, so N calls hand out each of 3 keys N/3 times, in memory and
 * through the store. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/error.h"
#include "waggle/pool.h"
#include "waggle/store.h"
#include "wgtest.h"

enum { THREADS = 4, EACH = 150 };

typedef struct {
    wg_pool *p;
    int counts[3];
    int failures;
} shared;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    shared *s = arg;
    for (int i = 0; i < EACH; i++) {
        const char *k = NULL;
        int rc = wg_pool_get_key(s->p, &k, NULL);
        pthread_mutex_lock(&mu);
        if (rc < 0)
            s->failures++;
        else
            s->counts[k[1] - '1']++;
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

static void run(wg_store *st)
{
    shared s = { 0 };
    cr_assert_eq(wg_pool_new(&s.p, "threads", st, NULL), 0);
    wg_pool_add(s.p, "a", "k1");
    wg_pool_add(s.p, "b", "k2");
    wg_pool_add(s.p, "c", "k3");
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, &s);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(s.failures, 0);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(s.counts[k], THREADS * EACH / 3, "key %d handed out %d times", k + 1, s.counts[k]);
    wg_pool_free(s.p);
}

Test(pool_threads, memory_pool_round_robin_exact_under_threads)
{
    run(NULL);
}

Test(pool_threads, store_pool_round_robin_exact_under_threads)
{
    char *dir = wgt_tmpdir();
    wg_store *st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    run(st);
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

Test(pool_threads, retry_after_never_revives_a_401)
{
    wg_pool *p = NULL;
    cr_assert_eq(wg_pool_new(&p, "x", NULL, NULL), 0);
    wg_pool_add(p, "a", "k1");
    int avail = 1;
    cr_assert_eq(wg_pool_report_error(p, "k1", 401, NULL, 0, &avail), 0);
    cr_assert_eq(avail, 0, "401 disables even with Retry-After: 0");
    const char *k = NULL;
    cr_assert_eq(wg_pool_get_key(p, &k, NULL), WG_ENOTFOUND);
    wg_pool_free(p);
}

/* One catalog handle searched from several threads at once gives the same
 * answers as one thread (waggle/catalog.h: searches never modify the handle).
 * Run under ASan/UBSan in CI; no timing is asserted. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "waggle/catalog.h"

static const char *const queries[] = {
    "users report crashes in the app", "bill my subscribers monthly", "read this paragraph aloud",
    "vector database", "kube", "mcp-server-github", "send email", "deploy my nextjs site",
};
#define NQ (sizeof queries / sizeof queries[0])

typedef struct {
    const wg_catalog *cat;
    const wg_catalog_server *expect[NQ][5];
    int mismatches;
} shared;

static void *worker(void *arg)
{
    shared *s = arg;
    for (int round = 0; round < 200; round++)
        for (size_t q = 0; q < NQ; q++) {
            wg_catalog_hit h[5];
            size_t n = 0;
            wg_catalog_search(h, 5, &n, s->cat, queries[q], NULL);
            for (size_t i = 0; i < 5; i++)
                if ((i < n ? h[i].server : NULL) != s->expect[q][i])
                    __atomic_add_fetch(&s->mismatches, 1, __ATOMIC_RELAXED);
        }
    return NULL;
}

Test(catalog_threads, concurrent_searches_match_single_threaded_results)
{
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&cat), 0);
    shared s;
    memset(&s, 0, sizeof s);
    s.cat = cat;
    for (size_t q = 0; q < NQ; q++) {
        wg_catalog_hit h[5];
        size_t n = 0;
        cr_assert_eq(wg_catalog_search(h, 5, &n, cat, queries[q], NULL), 0);
        for (size_t i = 0; i < n; i++)
            s.expect[q][i] = h[i].server;
    }
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, worker, &s), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(s.mismatches, 0);
    wg_catalog_free(cat);
}

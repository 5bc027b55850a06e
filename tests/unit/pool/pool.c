/* Tests for the credential pool (waggle/pool.h; spec §13, reference §6,
 * vectors §12.5), in memory and shared through the store. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "waggle/error.h"
#include "waggle/pool.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "wgtest.h"

static int64_t fake_now;
static int64_t clock_fn(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static const wg_pool_options opts = { .version = WG_POOL_OPTIONS_VERSION, .now = clock_fn };

static wg_pool *abc(wg_store *st)
{
    wg_pool *p = NULL;
    cr_assert_eq(wg_pool_new(&p, "anthropic", st, &opts), 0);
    cr_assert_eq(wg_pool_add(p, "a", "k1"), 0);
    cr_assert_eq(wg_pool_add(p, "b", "k2"), 0);
    cr_assert_eq(wg_pool_add(p, "c", "k3"), 0);
    return p;
}

static const char *next(wg_pool *p)
{
    const char *k = NULL;
    cr_assert_eq(wg_pool_get_key(p, &k, NULL), 0, "%s", wg_error_last());
    return k;
}

static void rotation_vector(wg_store *st)
{
    fake_now = 1000000;
    wg_pool *p = abc(st);
    cr_assert_str_eq(next(p), "k1");
    cr_assert_str_eq(next(p), "k2");
    int avail = -1;
    cr_assert_eq(wg_pool_report_error(p, "k3", 503, NULL, -1, &avail), 0);
    cr_assert_eq(avail, 1);
    cr_assert_str_eq(next(p), "k1");
    cr_assert_str_eq(next(p), "k2");
    cr_assert_str_eq(next(p), "k1");
    fake_now += 300000;
    cr_assert_str_eq(next(p), "k2");
    cr_assert_str_eq(next(p), "k3");
    cr_assert_str_eq(next(p), "k1");
    wg_pool_free(p);
}

Test(pool, rotation_skips_cooldown_and_recovers_at_5_min)
{
    rotation_vector(NULL);
}

Test(pool, rotation_vector_holds_with_store_state)
{
    char *dir = wgt_tmpdir();
    wg_store *st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    rotation_vector(st);
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

Test(pool, unknown_key_report_changes_nothing)
{
    fake_now = 5;
    wg_pool *p = abc(NULL);
    int avail = 0;
    cr_assert_eq(wg_pool_report_error(p, "zzz", 429, NULL, -1, &avail), 0);
    cr_assert_eq(avail, 1);
    json_t *s = NULL;
    cr_assert_eq(wg_pool_status(&s, p), 0);
    cr_assert_eq(json_integer_value(json_object_get(s, "activeKeys")), 3);
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(s, "entries"), i, e)
        cr_assert_eq(json_integer_value(json_object_get(e, "errorCount")), 0);
    json_decref(s);
    wg_pool_free(p);
}

Test(pool, duplicate_name_is_ignored)
{
    wg_pool *p = abc(NULL);
    cr_assert_eq(wg_pool_add(p, "a", "different"), 0);
    cr_assert_eq(wg_pool_size(p), 3);
    cr_assert_str_eq(wg_pool_key_for_name(p, "a"), "k1");
    wg_pool_free(p);
}

Test(pool, duplicate_key_401_disables_first_only)
{
    wg_pool *p = NULL;
    cr_assert_eq(wg_pool_new(&p, "x", NULL, &opts), 0);
    wg_pool_add(p, "a", "same");
    wg_pool_add(p, "b", "same");
    cr_assert_eq(wg_pool_report_error(p, "same", 401, NULL, -1, NULL), 0);
    json_t *s = NULL;
    cr_assert_eq(wg_pool_status(&s, p), 0);
    json_t *en = json_object_get(s, "entries");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(en, 0), "status")), "disabled");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(en, 1), "status")), "active");
    cr_assert(json_is_null(json_object_get(json_array_get(en, 0), "cooldownUntil")));
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(en, 0), "lastError")), "HTTP 401");
    json_decref(s);
    cr_assert_str_eq(wg_pool_name_for_key(p, "same"), "a");
    wg_pool_free(p);
}

Test(pool, three_429s_leave_nothing_available)
{
    fake_now = 0;
    wg_pool *p = abc(NULL);
    int a1, a2, a3;
    wg_pool_report_error(p, "k1", 429, NULL, -1, &a1);
    wg_pool_report_error(p, "k2", 429, NULL, -1, &a2);
    wg_pool_report_error(p, "k3", 429, NULL, -1, &a3);
    cr_assert_eq(a1, 1);
    cr_assert_eq(a2, 1);
    cr_assert_eq(a3, 0);
    const char *k = NULL;
    cr_assert_eq(wg_pool_get_key(p, &k, NULL), WG_ENOTFOUND);
    cr_assert(strstr(wg_error_last(), "cooling down"));
    fake_now += WG_POOL_RATE_LIMIT_COOLDOWN_MS;
    cr_assert_str_eq(next(p), "k1");
    wg_pool_free(p);
}

Test(pool, payment_402_cools_24h)
{
    fake_now = 777;
    wg_pool *p = abc(NULL);
    wg_pool_report_error(p, "k2", 402, "payment required", -1, NULL);
    json_t *s = NULL;
    wg_pool_status(&s, p);
    json_t *b = json_array_get(json_object_get(s, "entries"), 1);
    cr_assert_eq(json_integer_value(json_object_get(b, "cooldownUntil")), 777 + 86400000LL);
    cr_assert_str_eq(json_string_value(json_object_get(b, "lastError")), "payment required");
    cr_assert_eq(json_integer_value(json_object_get(s, "cooldownKeys")), 1);
    json_decref(s);
    wg_pool_free(p);
}

Test(pool, retry_after_overrides_policy_and_is_capped)
{
    fake_now = 0;
    wg_pool *p = abc(NULL);
    wg_pool_report_error(p, "k1", 429, NULL, 30000, NULL);
    wg_pool_report_error(p, "k2", 503, NULL, 10LL * 86400000, NULL);
    json_t *s = NULL;
    wg_pool_status(&s, p);
    json_t *en = json_object_get(s, "entries");
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(en, 0), "cooldownUntil")), 30000);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(en, 1), "cooldownUntil")),
                 WG_POOL_RETRY_AFTER_MAX_MS);
    json_decref(s);
    fake_now = 30000;
    cr_assert_str_eq(next(p), "k1");
    wg_pool_free(p);
}

Test(pool, empty_pool_has_no_key)
{
    wg_pool *p = NULL;
    cr_assert_eq(wg_pool_new(&p, "none", NULL, NULL), 0);
    const char *k = "x";
    cr_assert_eq(wg_pool_get_key(p, &k, NULL), WG_ENOTFOUND);
    int avail = 1;
    cr_assert_eq(wg_pool_has_available(p, &avail), 0);
    cr_assert_eq(avail, 0);
    wg_pool_free(p);
}

Test(pool, success_counts)
{
    wg_pool *p = abc(NULL);
    wg_pool_report_success(p, "k2");
    wg_pool_report_success(p, "k2");
    json_t *s = NULL;
    wg_pool_status(&s, p);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(s, "entries"), 1),
                                                    "successCount")), 2);
    json_decref(s);
    wg_pool_free(p);
}

Test(pool, extract_status_code_vectors_12_5)
{
    static const struct { wg_pool_error_info e; int want; } v[] = {
        { { 1, 429, 0, 0, NULL }, 429 },
        { { 0, 0, 1, 402, NULL }, 402 },
        { { 0, 0, 0, 0, NULL }, -1 },                 /* {status:'429'}: a string */
        { { 1, 0, 0, 0, NULL }, 0 },
        { { 0, 0, 0, 0, "Server returned 401 Unauthorized" }, 401 },
        { { 0, 0, 0, 0, "HTTP 429 Too Many Requests" }, 429 },
        { { 0, 0, 0, 0, "status=503" }, 503 },
        { { 0, 0, 0, 0, "error 404 not found" }, -1 },
        { { 0, 0, 0, 0, "HTTP 504 gateway" }, -1 },
        { { 0, 0, 0, 0, "code 5030" }, -1 },
        { { 0, 0, 0, 0, "Network timeout" }, -1 },
        { { 1, 401, 0, 0, "x 500" }, 401 },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        cr_assert_eq(wg_pool_extract_status_code(&v[i].e), v[i].want, "vector %zu", i);
    cr_assert_eq(wg_pool_extract_status_code(NULL), -1);
}

/* ---- loadCredentialPool ---- */

static wg_vault *vault_with(wg_store **st, char **dir, const char *const *names)
{
    *dir = wgt_tmpdir();
    cr_assert_eq(wg_store_open(st, *dir), 0);
    unsigned char key[32] = { 1 };
    wg_vault *v = NULL;
    cr_assert_eq(wg_vault_open_key(&v, *st, key), 0);
    for (; *names; names++)
        cr_assert_eq(wg_vault_set(v, *names, "val-xxxx", 8, NULL), 0);
    return v;
}

static size_t loaded(const char *const *names, const char *provider, int max)
{
    wg_store *st = NULL;
    char *dir = NULL;
    wg_vault *v = vault_with(&st, &dir, names);
    wg_pool *p = NULL;
    cr_assert_eq(wg_pool_load(&p, v, provider, max, NULL, NULL), 0, "%s", wg_error_last());
    size_t n = wg_pool_size(p);
    wg_pool_free(p);
    wg_vault_free(v);
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
    return n;
}

Test(pool, load_stops_at_first_gap)
{
    const char *a[] = { "openai", "openai-2", "openai-4", NULL };
    cr_assert_eq(loaded(a, "openai", 10), 2);
    const char *b[] = { "openai-2", NULL };
    cr_assert_eq(loaded(b, "openai", 10), 1);
    const char *c[] = { "test", "test-2", "test-3", "test-4", "test-5", "test-6", "test-7", NULL };
    cr_assert_eq(loaded(c, "test", 5), 5);
}

Test(pool, state_shared_across_processes)
{
    char *dir = wgt_tmpdir();
    wg_store *st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    fake_now = 1000;
    pid_t pid = fork();
    if (pid == 0) {
        wg_store *s2 = NULL;
        wg_pool *p2 = NULL;
        if (wg_store_open(&s2, dir) < 0 || wg_pool_new(&p2, "anthropic", s2, &opts) < 0)
            _exit(10);
        wg_pool_add(p2, "a", "k1");
        wg_pool_add(p2, "b", "k2");
        wg_pool_add(p2, "c", "k3");
        const char *k = NULL;
        if (wg_pool_get_key(p2, &k, NULL) < 0 || strcmp(k, "k1"))
            _exit(11);
        if (wg_pool_report_error(p2, "k2", 429, NULL, -1, NULL) < 0)
            _exit(12);
        wg_pool_free(p2);
        wg_store_free(s2);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed %d", status);
    wg_pool *p = abc(st);
    /* The child took k1 and cooled k2: this process continues at k3. */
    cr_assert_str_eq(next(p), "k3");
    cr_assert_str_eq(next(p), "k1");
    cr_assert_str_eq(next(p), "k3");
    json_t *s = NULL;
    cr_assert_eq(wg_pool_status(&s, p), 0);
    cr_assert_eq(json_integer_value(json_object_get(s, "cooldownKeys")), 1);
    char *txt = json_dumps(s, 0);
    cr_assert_null(strstr(txt, "k2\""), "no key values in status: %s", txt);
    free(txt);
    json_decref(s);
    wg_pool_free(p);
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

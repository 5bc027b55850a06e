/* store_bench.c - what the store's guarantees cost, baseline and waggle
 * measured in the same run on the same SQLite file (STYLE §13):
 *   pool_get_key   baseline: the original's in-memory pool;
 *                  waggle: state in the store (shared by every process)
 *   audit_append   baseline: a plain INSERT of the same row;
 *                  waggle: masked, hash-chained, sealed append in a write
 *                  transaction that checks and moves the anchor, then the
 *                  data dir's witness
 *   vault_get      baseline: SELECT of the sealed row;
 *                  waggle: SELECT + XChaCha20-Poly1305 open + metadata parse
 * One line per case, median of 7 runs after a warm-up.
 * Usage: store_bench [ops per run, default 2000] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "waggle/audit.h"
#include "waggle/error.h"
#include "waggle/pool.h"
#include "waggle/store.h"
#include "waggle/vault.h"

#define RUNS 7

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*op_fn)(void *ctx, int ops);

static double median(op_fn f, void *ctx, int ops)
{
    double t[RUNS];
    f(ctx, ops / 10 ? ops / 10 : 1);   /* warm-up */
    for (int r = 0; r < RUNS; r++) {
        double a = now_ms();
        f(ctx, ops);
        t[r] = now_ms() - a;
    }
    qsort(t, RUNS, sizeof *t, cmp);
    return t[RUNS / 2];
}

static void line(const char *name, int ops, double base, double ours)
{
    printf("%-14s ops=%-6d baseline=%.3fms  waggle=%.3fms  ratio=%.2fx  (median of %d)\n",
           name, ops, base, ours, ours / base, RUNS);
}

static void pool_ops(void *ctx, int ops)
{
    const char *k;
    for (int i = 0; i < ops; i++)
        if (wg_pool_get_key(ctx, &k, NULL) < 0)
            abort();
}

typedef struct {
    wg_store *st;
    wg_audit *au;
    json_t *in;
} audit_ctx;

static void plain_insert(void *vctx, int ops)
{
    audit_ctx *c = vctx;
    char *txt = json_dumps(c->in, JSON_COMPACT);
    for (int i = 0; i < ops; i++) {
        wg_store_value p[3] = { WG_SV_TEXT("approval_auto"), WG_SV_TEXT(txt), WG_SV_TEXT("x") };
        if (wg_store_exec(c->st, "INSERT INTO bench_plain (event, input, hash) VALUES (?, ?, ?)",
                          p, 3, NULL, NULL) < 0)
            abort();
    }
    free(txt);
}

static void chained_append(void *vctx, int ops)
{
    audit_ctx *c = vctx;
    for (int i = 0; i < ops; i++) {
        wg_audit_record r = { .event = "approval_auto", .actor = "bench", .input = c->in };
        if (wg_audit_append(c->au, &r, NULL) < 0)
            abort();
    }
}

typedef struct {
    wg_store *st;
    wg_vault *v;
} vault_ctx;

static void raw_select(void *vctx, int ops)
{
    vault_ctx *c = vctx;
    wg_store_value p = WG_SV_TEXT("connector:github");
    for (int i = 0; i < ops; i++) {
        wg_store_rows *rows = NULL;
        if (wg_store_exec(c->st, "SELECT name, nonce, ciphertext, updated_at FROM vault_entries"
                          " WHERE name = ?", &p, 1, &rows, NULL) < 0)
            abort();
        wg_store_rows_free(rows);
    }
}

static void vault_get(void *vctx, int ops)
{
    vault_ctx *c = vctx;
    for (int i = 0; i < ops; i++) {
        wg_vault_entry *e = NULL;
        if (wg_vault_get(&e, c->v, "connector:github") < 0)
            abort();
        wg_vault_entry_free(e);
    }
}

int main(int argc, char **argv)
{
    int ops = argc > 1 ? atoi(argv[1]) : 2000;
    char dir[] = "/tmp/waggle-bench.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    wg_store *st = NULL;
    wg_vault *v = NULL;
    wg_audit *au = NULL;
    /* The audit log derives its seal key from DATA_DIR/vault.key too. */
    if (wg_store_open(&st, dir) < 0 || wg_vault_open(&v, st) < 0 ||
        wg_audit_open(&au, st, NULL) < 0) {
        fprintf(stderr, "store_bench: %s\n", wg_error_last());
        return 1;
    }

    wg_pool *mem = NULL, *shared = NULL;
    wg_pool_new(&mem, "bench", NULL, NULL);
    wg_pool_new(&shared, "bench", st, NULL);
    static const char *const names[] = { "bench", "bench-2", "bench-3" };
    for (int i = 0; i < 3; i++) {
        wg_pool_add(mem, names[i], "sk-xxxxxxxxxxxxxxxx");
        wg_pool_add(shared, names[i], "sk-xxxxxxxxxxxxxxxx");
    }
    line("pool_get_key", ops, median(pool_ops, mem, ops), median(pool_ops, shared, ops));

    wg_store_exec(st, "CREATE TABLE bench_plain (event TEXT, input TEXT, hash TEXT)", NULL, 0, NULL, NULL);
    audit_ctx ac = { st, au, json_pack("{s:s,s:s,s:{s:s}}", "command", "git status", "apiKey", "sk-1",
                                       "headers", "Authorization", "Bearer x") };
    line("audit_append", ops, median(plain_insert, &ac, ops), median(chained_append, &ac, ops));
    json_decref(ac.in);

    json_t *meta = json_pack("{s:s,s:s,s:[s]}", "credentialType", "bearer", "expiresAt",
                             "2030-01-01T00:00:00Z", "scopes", "repo");
    wg_vault_set(v, "connector:github", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 40, meta);
    json_decref(meta);
    vault_ctx vc = { st, v };
    line("vault_get", ops, median(raw_select, &vc, ops), median(vault_get, &vc, ops));

    wg_pool_free(mem);
    wg_pool_free(shared);
    wg_audit_free(au);
    wg_vault_free(v);
    wg_store_free(st);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}

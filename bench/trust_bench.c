/* trust_bench.c - permission detection over the whole starter pack.
 * Baseline: the original's approach - one regex per row, interpreted, tried
 * in order (a permission's remaining rows skipped once one hits). Ours: the
 * trust handle - the same rows, JIT-compiled. Same patterns,
 * same inputs, same run; warm-up, then the median of 7.
 * Also times a full acquisition proposal (no baseline: absolute figure).
 * Not run by ctest: build/bench/trust */
#include "waggle/acquire.h"
#include "core/trust_internal.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 7, ROUNDS = 40 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double detect_ms(const wg_trust *t, const wg_skillset *s)
{
    double start = now_ms();
    for (int r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < wg_skillset_count(s); i++) {
            const wg_skill *sk = wg_skillset_get(s, i);
            int perms[WG_PERM_COUNT];
            if (wg_trust_detect(perms, NULL, t, sk->content, sk->length) != 0)
                exit(1);
        }
    return now_ms() - start;
}

typedef struct {
    pcre2_code **code;
    int *perm;
    size_t n;
} rows;

static void rows_make(rows *r)
{
    r->n = wg_trust__pattern_count();
    r->code = calloc(r->n, sizeof *r->code);
    r->perm = calloc(r->n, sizeof *r->perm);
    for (size_t i = 0; i < r->n; i++) {
        int err;
        PCRE2_SIZE off;
        r->code[i] = pcre2_compile((PCRE2_SPTR)wg_trust__pattern(i, &r->perm[i]),
                                   PCRE2_ZERO_TERMINATED, PCRE2_CASELESS, &err, &off, NULL);
        if (!r->code[i])
            exit(1);
    }
}

static double rows_ms(const rows *r, const wg_skillset *s)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    double start = now_ms();
    for (int k = 0; k < ROUNDS; k++)
        for (size_t i = 0; i < wg_skillset_count(s); i++) {
            const wg_skill *sk = wg_skillset_get(s, i);
            int perms[WG_PERM_COUNT] = { 0 };
            for (size_t j = 0; j < r->n; j++)
                if (!perms[r->perm[j]] &&
                    pcre2_match(r->code[j], (PCRE2_SPTR)sk->content, sk->length, 0, 0, md, NULL) >= 0)
                    perms[r->perm[j]] = 1;
        }
    double t = now_ms() - start;
    pcre2_match_data_free(md);
    return t;
}

static double median(double *v)
{
    qsort(v, RUNS, sizeof *v, cmp);
    return v[RUNS / 2];
}

int main(void)
{
    wg_skillset *s = NULL;
    wg_trust *jit = NULL, *interp = NULL;
    if (wg_skillset_load_starter(&s) || wg_trust__new(&jit, 1) || wg_trust__new(&interp, 0))
        return 1;
    size_t bytes = 0;
    for (size_t i = 0; i < wg_skillset_count(s); i++)
        bytes += wg_skillset_get(s, i)->length;

    rows base_rows;
    rows_make(&base_rows);
    double base[RUNS], mid[RUNS], ours[RUNS];
    rows_ms(&base_rows, s);
    detect_ms(interp, s);
    detect_ms(jit, s);
    for (int r = 0; r < RUNS; r++) {
        base[r] = rows_ms(&base_rows, s);
        mid[r] = detect_ms(interp, s);
        ours[r] = detect_ms(jit, s);
    }
    double b = median(base), m = median(mid), o = median(ours);
    printf("trust_detect  skills=%zu bytes=%zu rounds=%d  baseline(%zu regexes, interpreted)=%.2fms  "
           "waggle(rows, jit)=%.2fms  ratio=%.1fx  (median of %d)\n",
           wg_skillset_count(s), bytes, ROUNDS, base_rows.n, b, o, b / o, RUNS);
    printf("trust_detect  handle without the jit (control, should be ~1x): %.2fms  "
           "ratio=%.1fx  (median of %d)\n", m, b / m, RUNS);
    for (size_t i = 0; i < base_rows.n; i++)
        pcre2_code_free(base_rows.code[i]);
    free(base_rows.code);
    free(base_rows.perm);

    size_t n_native;
    const wg_native_tool *nt = wg_acquire_native_tools(&n_native);
    const char **names = calloc(n_native, sizeof *names);
    for (size_t i = 0; i < n_native; i++)
        names[i] = nt[i].name;
    double acq[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double start = now_ms();
        for (int k = 0; k < 100; k++) {
            wg_acquire_input in = { "assess the risks of my project", names, n_native, NULL, s,
                                    NULL, 0, jit };
            wg_proposal p;
            if (wg_acquire_search(&p, &in) != 0)
                return 1;
            wg_proposal_free(&p);
        }
        acq[r] = (now_ms() - start) / 100;
    }
    printf("acquire_search  need=\"assess the risks of my project\" candidates=native %zu + starter %zu  "
           "waggle=%.3fms per proposal  (median of %d)\n", n_native, wg_skillset_count(s),
           median(acq), RUNS);
    free(names);
    wg_trust_free(jit);
    wg_trust_free(interp);
    wg_skillset_free(s);
    return 0;
}

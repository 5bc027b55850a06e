/* bench/gate.c - in-process cost of the gate (issue #2 §5).
 *
 * Loads a JSON-lines corpus of tool calls (bench/gate_corpus.jsonl) and
 * measures, after a warm-up, the median of 7 runs:
 *   bash_ns    ns per bash decision, command already extracted
 *              (wg_gate_check_bash: the full shell analysis, all four answers);
 *              bash_best the fastest of the 7 runs (least disturbed by load)
 *   bash_p50   median over the commands of each command's own ns/decision
 *   all_ns     ns per call from JSON argument text (wg_gate_check), every tool
 *   line_ns    ns per --batch line (wg_gate_check_line: JSON line -> decision)
 * (CPU time of the thread) and prints one "key value" line each; bench/gate.sh sets them against the
 * JavaScript baseline (bench/gate_baseline.js) measured in the same run.
 *   readonly_p50  the same median over tests/data/gate/readonly.txt
 *   big_64k_ms, big_256k_ms, big_1m_ms  one bash decision on a `git add` of
 *              64 KiB, 256 KiB (the longest the model parses) and 1 MiB
 *              (fails closed after one scan), ms, median of 7 (issue #10)
 * Usage: gate_bench CORPUS [READONLY_TXT]
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "waggle/gate.h"

typedef struct {
    char *tool, *args, *line, *cmd;
    size_t args_len, line_len, cmd_len;
    wg_autonomy level;
} call;

/* CPU time of this thread: the machine is shared, and wall time would count
 * the time other processes hold the CPU. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile int sink;

enum { REPS = 7 };

typedef void (*run_fn)(const wg_gate *g, call *c, size_t n);

static void run_bash(const wg_gate *g, call *c, size_t n)
{
    wg_gate_decision d;
    for (size_t i = 0; i < n; i++)
        if (c[i].cmd) {
            wg_gate_check_bash(&d, g, c[i].cmd, c[i].cmd_len, c[i].level);
            sink += d.needs_confirmation;
        }
}

static void run_all(const wg_gate *g, call *c, size_t n)
{
    wg_gate_decision d;
    for (size_t i = 0; i < n; i++) {
        wg_gate_check(&d, g, c[i].tool, c[i].args, c[i].args_len, c[i].level);
        sink += d.needs_confirmation;
    }
}

static void run_line(const wg_gate *g, call *c, size_t n)
{
    wg_gate_decision d;
    char tool[256];
    for (size_t i = 0; i < n; i++) {
        wg_gate_check_line(&d, g, c[i].line, c[i].line_len, WG_AUTONOMY_NORMAL, tool, sizeof tool);
        sink += d.needs_confirmation;
    }
}

static double best;     /* the fastest of the last median_ns's runs */

static double median_ns(const wg_gate *g, call *c, size_t n, size_t count, run_fn fn, int iters)
{
    double r[REPS];
    fn(g, c, n);                                    /* warm-up */
    for (int k = 0; k < REPS; k++) {
        double t0 = now_ns();
        for (int i = 0; i < iters; i++)
            fn(g, c, n);
        r[k] = (now_ns() - t0) / ((double)iters * (double)count);
    }
    qsort(r, REPS, sizeof *r, cmp_double);
    best = r[0];
    return r[REPS / 2];
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gate_bench CORPUS.jsonl [READONLY.txt]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t cap = 2048, n = 0, nbash = 0;
    call *calls = calloc(cap, sizeof *calls);
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        json_t *j = json_loads(line, 0, NULL);
        if (!j)
            continue;
        if (n == cap)
            calls = realloc(calls, (cap *= 2) * sizeof *calls);
        call *c = &calls[n++];
        memset(c, 0, sizeof *c);
        c->tool = strdup(json_string_value(json_object_get(j, "tool")));
        c->args = json_dumps(json_object_get(j, "args"), JSON_COMPACT);
        c->args_len = strlen(c->args);
        c->line = strdup(line);
        c->line_len = (size_t)len;
        const char *lv = json_string_value(json_object_get(j, "level"));
        c->level = lv && strcmp(lv, "yolo") == 0 ? WG_AUTONOMY_YOLO
                 : lv && strcmp(lv, "trusted") == 0 ? WG_AUTONOMY_TRUSTED : WG_AUTONOMY_NORMAL;
        json_t *cmd = json_object_get(json_object_get(j, "args"), "command");
        if (strcmp(c->tool, "bash") == 0 && json_is_string(cmd)) {
            c->cmd_len = json_string_length(cmd);
            c->cmd = malloc(c->cmd_len + 1);
            memcpy(c->cmd, json_string_value(cmd), c->cmd_len + 1);
            nbash++;
        }
        json_decref(j);
    }
    free(line);
    fclose(f);
    wg_gate *g;
    if (wg_gate_new(&g, NULL) != 0)
        return 1;

    printf("bash_calls %zu\nall_calls %zu\n", nbash, n);
    printf("bash_ns %.1f\n", median_ns(g, calls, n, nbash, run_bash, 200));
    printf("bash_best %.1f\n", best);
    /* each command's own cost, then the median over commands */
    double *per = calloc(nbash, sizeof *per);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (calls[i].cmd)
            per[k++] = median_ns(g, &calls[i], 1, 1, run_bash, 200);
    qsort(per, nbash, sizeof *per, cmp_double);
    printf("bash_p50 %.1f\nbash_p90 %.1f\n", per[nbash / 2], per[nbash * 9 / 10]);
    /* everyday read-only commands alone (tests/data/gate/readonly.txt) */
    if (argc > 2 && (f = fopen(argv[2], "r")) != NULL) {
        call ro[256];
        double rt[256];
        size_t nr = 0;
        char *l = NULL;
        size_t lc = 0;
        ssize_t ll;
        while ((ll = getline(&l, &lc, f)) > 0 && nr < 256) {
            while (ll > 0 && l[ll - 1] == '\n')
                l[--ll] = '\0';
            if (ll == 0 || l[0] == '#')
                continue;
            memset(&ro[nr], 0, sizeof ro[nr]);
            ro[nr].cmd = strdup(l);
            ro[nr].cmd_len = (size_t)ll;
            nr++;
        }
        free(l);
        fclose(f);
        for (size_t i = 0; i < nr; i++)
            rt[i] = median_ns(g, &ro[i], 1, 1, run_bash, 200);
        qsort(rt, nr, sizeof *rt, cmp_double);
        printf("readonly_calls %zu\nreadonly_p50 %.1f\n", nr, nr ? rt[nr / 2] : 0.0);
        for (size_t i = 0; i < nr; i++)
            free(ro[i].cmd);
    }
    /* long commands: git add with paths up to the size */
    static const struct { const char *key; size_t bytes; } big[] = {
        { "big_64k_ms", 65536 }, { "big_256k_ms", 262000 }, { "big_1m_ms", 1u << 20 },
    };
    for (size_t b = 0; b < sizeof big / sizeof *big; b++) {
        call bc;
        memset(&bc, 0, sizeof bc);
        size_t cap = big[b].bytes + 128, m = 0;
        bc.cmd = malloc(cap);
        m = (size_t)snprintf(bc.cmd, cap, "git add");
        for (unsigned i = 0; m < big[b].bytes; i++)
            m += (size_t)snprintf(bc.cmd + m, cap - m, " src/module_%03u/file_%05u.c", i % 1000, i);
        bc.cmd_len = m;
        printf("%s %.3f\n", big[b].key, median_ns(g, &bc, 1, 1, run_bash, 3) / 1e6);
        free(bc.cmd);
    }
    printf("all_ns %.1f\n", median_ns(g, calls, n, n, run_all, 100));
    printf("line_ns %.1f\n", median_ns(g, calls, n, n, run_line, 100));
    free(per);
    for (size_t i = 0; i < n; i++) {
        free(calls[i].tool);
        free(calls[i].args);
        free(calls[i].line);
        free(calls[i].cmd);
    }
    free(calls);
    wg_gate_free(g);
    return 0;
}

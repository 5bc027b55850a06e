/* bench/gate_rates.c - prints the gate's three soundness rates (issue #10 §3).
 *
 * Usage: gate_rates [-v] [--fail-at PCT] [FILE...]
 * Without files: every corpus under tests/data/gate/ (attack.jsonl, then the
 * older corpora), each on its own. -v lists every miss. With --fail-at the
 * exit status is 1 when an overall rate of some file is at or above PCT. */
#include <stdlib.h>
#include <string.h>

#include "gate_rates.h"

static const char *const default_files[] = {
    "attack.jsonl", "attack_gate5.jsonl", "attack_gate6.jsonl", "attack_gate6b.jsonl",
    "attack_gate7.jsonl", "attack_gate7b.jsonl", "attack_gate8.jsonl", "model_never_autopass.jsonl", "model_dangerous_normal.jsonl",
    "model_readonly_normal.jsonl", "destructive.jsonl", "readonly.txt",
};

static int run(const char *path, const char *title, int verbose, double fail_at)
{
    gatet_rates r;
    memset(&r, 0, sizeof r);
    if (gatet_rates_add_file(&r, path, verbose ? stdout : NULL) != 0)
        return 2;
    gatet_rates_print(&r, title, stdout);
    for (int w = 0; w < GATET_NWANT; w++)
        if (fail_at >= 0 && r.n[w] && gatet_rate(&r, w) >= fail_at)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int verbose = 0, first = 1, rc = 0;
    double fail_at = -1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "-v") == 0)
            verbose = 1;
        else if (strcmp(argv[first], "--fail-at") == 0 && first + 1 < argc)
            fail_at = atof(argv[++first]);
        else {
            fprintf(stderr, "usage: gate_rates [-v] [--fail-at PCT] [FILE...]\n");
            return 2;
        }
    }
    if (first < argc) {
        for (int i = first; i < argc; i++) {
            int k = run(argv[i], argv[i], verbose, fail_at);
            rc = k > rc ? k : rc;
        }
        return rc;
    }
    for (size_t i = 0; i < sizeof default_files / sizeof default_files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/gate/%s", WG_TEST_DATA_DIR, default_files[i]);
        int k = run(path, default_files[i], verbose, fail_at);
        rc = k > rc ? k : rc;
    }
    return rc;
}

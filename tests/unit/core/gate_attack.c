/* The three soundness rates of issue #10 §3 on the gate's adversarial
 * corpus (tests/data/gate/attack.jsonl, written fresh for the gate) and on
 * the older corpora: never-autopass commands passing at YOLO, dangerous
 * commands running silently at Normal, read-only commands prompting at
 * Normal. Each overall rate must stay below MAX_RATE percent; the table per
 * class is printed on stderr (bench/gate_rates prints the same, -v lists
 * the misses). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "gate_rates.h"

#ifndef MAX_RATE
#define MAX_RATE 5.0
#endif

static const double attack_max[GATET_NWANT] = { MAX_RATE, MAX_RATE, MAX_RATE };
static const double older_max[GATET_NWANT] = { MAX_RATE, MAX_RATE, MAX_RATE };

static void rates(const char *name, const double *max, size_t min_lines)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/gate/%s", WG_TEST_DATA_DIR, name);
    gatet_rates r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(gatet_rates_add_file(&r, path, stderr), 0, "%s", path);
    gatet_rates_print(&r, name, stderr);
    cr_assert_geq(r.n[0] + r.n[1] + r.n[2], min_lines, "%s", name);
    for (int w = 0; w < GATET_NWANT; w++)
        cr_expect_lt(gatet_rate(&r, w), max[w], "%s: %s %.1f%% (%zu of %zu)", name, gatet_want_name(w),
                     gatet_rate(&r, w), r.miss[w], r.n[w]);
}

Test(gate_attack, corpus_has_every_class_of_issue_10)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/gate/attack.jsonl", WG_TEST_DATA_DIR);
    gatet_rates r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(gatet_rates_add_file(&r, path, NULL), 0);
    static const char *const never[] = {
        "launcher", "interp", "expansion", "wrapper_opts", "target", "delete_other", "raw_disk",
        "privilege", "hidden_text", "persist", "force_push", "fork_bomb", "syntax", "windows",
    };
    for (size_t k = 0; k < sizeof never / sizeof never[0]; k++) {
        size_t n = 0;
        for (size_t i = 0; i < r.ncls; i++)
            if (r.cls[i].want == GATET_NEVER && strcmp(r.cls[i].name, never[k]) == 0)
                n = r.cls[i].n;
        cr_expect_geq(n, 30, "class %s has %zu cases", never[k], n);
    }
    cr_expect_geq(r.n[GATET_NEVER], 500);
    cr_expect_geq(r.n[GATET_ASK], 200);
    cr_expect_geq(r.n[GATET_SILENT], 200);
}

Test(gate_attack, attack_corpus)
{
    rates("attack.jsonl", attack_max, 1000);
}

/* the remainders of issue 10 §2 (code-hosting clients, name references,
 * Windows targets, raw disks, start-up files, network reads, env counts),
 * written before their rules' last round was measured on them */
Test(gate_attack, gate5_corpus)
{
    rates("attack_gate5.jsonl", attack_max, 450);
}

/* issue 10 §2 again, every class, written fresh for the gate6 round before
 * any of its rules (lines equal to an older corpus's left out) */
Test(gate_attack, gate6_corpus)
{
    rates("attack_gate6.jsonl", attack_max, 800);
}

/* written after the gate6 rules, never tuned on before its first run */
Test(gate_attack, gate6b_corpus)
{
    rates("attack_gate6b.jsonl", attack_max, 140);
}

/* issue 10 §2, redteam2 round: agent-style chains, macOS/Windows, cloud,
 * container and database CLIs, pagers; written before any of its rules */
Test(gate_attack, gate7_corpus)
{
    rates("attack_gate7.jsonl", attack_max, 550);
}

/* written after the redteam2 rules, never tuned on before its first run */
Test(gate_attack, gate7b_corpus)
{
    rates("attack_gate7b.jsonl", attack_max, 100);
}

/* the lead's held-out probes of the session after redteam2 (disguises,
 * shell syntax, system tools, credential stores, agent-session reads),
 * each run once on main before the rules it found were written */
Test(gate_attack, gate8_corpus)
{
    rates("attack_gate8.jsonl", attack_max, 700);
}

Test(gate_attack, older_corpora)
{
    rates("model_never_autopass.jsonl", older_max, 200);
    rates("model_dangerous_normal.jsonl", older_max, 30);
    rates("model_readonly_normal.jsonl", older_max, 60);
    rates("destructive.jsonl", older_max, 300);
    rates("readonly.txt", older_max, 100);
}

/* gate_rates.h - the gate's three soundness rates over a corpus (issue #10 §3).
 *
 * For each corpus line the expectation is one of:
 *   GATET_NEVER   never-autopass: a miss when it runs unasked at YOLO
 *   GATET_ASK     dangerous: a miss when it runs silently at Normal
 *   GATET_SILENT  read-only: a miss when it asks at Normal
 * taken from the line's "want" (never|ask|silent), else its "expect"
 * (destructive.jsonl: critical = never, anything else = ask), else the file
 * name (…never…, …dangerous…, …readonly…; a .txt file is one read-only
 * command per line). Rows are grouped by the line's "class" (or "cat").
 *
 * Plain C with jansson and libwaggle only (no Criterion): linked into the
 * unit tests and into the bench/gate_rates tool. Not thread-safe (a result
 * struct per caller). */
#ifndef WAGGLE_TEST_GATE_RATES_H
#define WAGGLE_TEST_GATE_RATES_H

#include <stddef.h>
#include <stdio.h>

enum { GATET_NEVER, GATET_ASK, GATET_SILENT, GATET_NWANT };
enum { GATET_MAX_CLASSES = 64 };

typedef struct {
    char name[32];
    int want;
    size_t n, miss;
} gatet_class_rate;

typedef struct {
    gatet_class_rate cls[GATET_MAX_CLASSES];
    size_t ncls;
    size_t n[GATET_NWANT], miss[GATET_NWANT];
} gatet_rates;

/* Adds the lines of the corpus at path to *r (zero it first). Each miss is
 * printed to misses ("never [class] cmd -> rule: reason") unless NULL.
 * Returns 0, or -1 when the file cannot be read or a line is not JSON
 * (message on stderr). */
int gatet_rates_add_file(gatet_rates *r, const char *path, FILE *misses);

/* Miss rate in percent of one expectation (0 when it has no lines). */
double gatet_rate(const gatet_rates *r, int want);

/* Prints a table: one line per class, then the three overall rates. */
void gatet_rates_print(const gatet_rates *r, const char *title, FILE *out);

/* "never-autopass passing at YOLO", ... */
const char *gatet_want_name(int want);

#endif

/* catalog_baseline.h - the original find_connector ranking (original-facts
 * 7.2), reimplemented as the benchmark's baseline. Not part of libwaggle. */
#ifndef WAGGLE_BENCH_CATALOG_BASELINE_H
#define WAGGLE_BENCH_CATALOG_BASELINE_H

#include <stddef.h>
#include "waggle/catalog.h"

typedef struct bl_catalog bl_catalog;

/* Lower-cased copies of the fields the original reads. with_keywords appends
 * our keywords to the description, to show what the data alone buys. */
bl_catalog *bl_build(const wg_catalog *cat, int with_keywords);
void bl_free(bl_catalog *b);

/* Ranks like the original: substring points, stable sort, score > 0.
 * Writes up to limit catalog indexes to out. Returns how many. */
size_t bl_search(const bl_catalog *b, const char *query, size_t limit, size_t *out);

#endif

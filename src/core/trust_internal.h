/* trust_internal.h - for benchmarks: a trust handle with or without the
 * PCRE2 JIT, to measure what the JIT buys on the same patterns. Internal. */
#ifndef WAGGLE_TRUST_INTERNAL_H
#define WAGGLE_TRUST_INTERNAL_H

#include "waggle/trust.h"

int wg_trust__new(wg_trust **out, int use_jit);

/* The pattern table, row by row (the original tried one regex per row):
 * the regex text and its permission; NULL past the end. */
size_t wg_trust__pattern_count(void);
const char *wg_trust__pattern(size_t i, int *perm);

#endif

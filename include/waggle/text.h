/* waggle/text.h - the small text helpers capability matching shares:
 * keyword extraction with the STOP_WORDS table (spec 3.2), folding, and
 * word-bounded matching that tolerates common inflections.
 *
 * Pure functions, no global state, safe from any thread. Inputs are
 * NUL-terminated byte strings; non-ASCII bytes never match a letter.
 */
#ifndef WAGGLE_TEXT_H
#define WAGGLE_TEXT_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Keywords of a need, in order, duplicates kept (spec 3.2). */
typedef struct {
    char **items;   /* owned */
    size_t count;
} wg_keywords;

/* Splits text on whitespace, lowercases ASCII, drops every byte outside
 * [a-z0-9_-] from each token, keeps tokens of length >= 3 that are not stop
 * words. out is filled (free with wg_keywords_free, also after an error:
 * it is zeroed first). text NULL is treated as "". Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_text_keywords(wg_keywords *out, const char *text);
WG_EXTERN void wg_keywords_free(wg_keywords *kw);

/* True when word (lowercase) is in STOP_WORDS. */
WG_EXTERN int wg_text_is_stop_word(const char *word);
/* The table itself, for tests and documentation. Static strings. */
WG_EXTERN size_t wg_text_stop_word_count(void);
WG_EXTERN const char *wg_text_stop_word(size_t i);

/* Folds s for matching: ASCII lowercase, every byte outside [a-z0-9]
 * (hyphen, underscore, punctuation, non-ASCII) becomes one space, runs of
 * spaces collapse, ends trimmed. "Risk-Assessment_v2!" -> "risk assessment v2".
 * *out is new (free()). Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_text_fold(char **out, const char *s);

/* Word-bounded match of two folded strings: needle occurs in hay starting at
 * a word start and ending at a word end, or followed only by an inflection
 * suffix (s, es, ed, ing, ment, ...), or needle itself is such an inflection
 * of a word in hay ("risks" ~ "risk", "assess" ~ "assessment",
 * "plan" ~ "planning"). "memo" does not match "memory", "data" does not
 * match "database", "plan" does not match "planet". Empty needle: 0. */
WG_EXTERN int wg_text_word_match(const char *folded_hay, const char *folded_needle);

/* One display line: control characters and whitespace runs become one
 * space, invalid UTF-8 bytes become '?', ends trimmed, cut to at most
 * max_bytes at a character boundary. *out is new (free()). NULL s is "".
 * Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_text_one_line(char **out, const char *s, size_t max_bytes);

/* A JSON string that never fails on bad bytes: s as is when it is valid
 * UTF-8, else a copy with invalid bytes as '?'. NULL s gives "". New
 * reference, NULL only when out of memory. */
WG_EXTERN json_t *wg_text_json_string(const char *s);

#ifdef __cplusplus
}
#endif
#endif

/* gate_corpus.h - loads the gate's data-file corpora (tests/data/gate/). */
#ifndef WAGGLE_TEST_GATE_CORPUS_H
#define WAGGLE_TEST_GATE_CORPUS_H

#include <jansson.h>

/* The JSON objects of a JSON-lines file under tests/data/gate/, as one
 * array (new reference; json_decref). Blank lines and lines starting with
 * '#' are skipped. Aborts the test on a bad line. */
json_t *gatet_load_jsonl(const char *name);

/* The non-blank, non-# lines of a text file under tests/data/gate/, as a
 * JSON array of strings (new reference). */
json_t *gatet_load_lines(const char *name);

#endif

/* gate_internal.h - the gate's JSON field reader (gate_json.c), shared with
 * gate.c. Not installed. */
#ifndef WAGGLE_GATE_INTERNAL_H
#define WAGGLE_GATE_INTERNAL_H

#include <stddef.h>

typedef enum { GA_ABSENT = 0, GA_STRING, GA_TRUE, GA_FALSE, GA_NULL, GA_NUMBER,
               GA_OBJECT, GA_ARRAY } ga_type;

/* A JSON value inside the caller's text. For strings p/n is the raw content
 * between the quotes and esc says whether it holds escapes; for numbers esc
 * says whether the value is non-zero. */
typedef struct {
    ga_type type;
    const char *p;
    size_t n;
    int esc;
} ga_val;

/* The arguments the gate reads. dup: one of them was given twice. */
typedef struct {
    ga_val command, risk, name, source, force, branch;
    int dup;
} gate_args;

void gate_args_empty(gate_args *a);
/* 0, or -1 when s is not one JSON object. */
int gate_args_parse(gate_args *a, const char *s, size_t n);
/* 0; -1 not one JSON object; -2 "args" is not an object. */
int gate_line_parse(ga_val *tool, gate_args *args, ga_val *level, int *dup, const char *s, size_t n);
/* Unescapes a string value into buf (NUL-terminated when it fits); returns
 * the decoded length (may exceed cap: then it did not fit). */
size_t ga_decode(const ga_val *v, char *buf, size_t cap);

#endif

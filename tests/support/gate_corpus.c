/* gate_corpus.c - loaders for the gate corpora (gate_corpus.h). */
#include "gate_corpus.h"
#include "wgtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_data(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/gate/%s", WG_TEST_DATA_DIR, name);
    char *text = wgt_read_file(path);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        abort();
    }
    return text;
}

static json_t *each_line(const char *name, int as_json)
{
    char *text = read_data(name);
    json_t *arr = json_array();
    char *save = NULL;
    int lineno = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (line[0] == '\0' || line[0] == '#')
            continue;
        if (!as_json) {
            json_array_append_new(arr, json_string(line));
            continue;
        }
        json_error_t err;
        json_t *v = json_loads(line, 0, &err);
        if (!v) {
            fprintf(stderr, "%s: bad line %d: %s\n", name, lineno, err.text);
            abort();
        }
        json_array_append_new(arr, v);
    }
    free(text);
    return arr;
}

json_t *gatet_load_jsonl(const char *name)
{
    return each_line(name, 1);
}

json_t *gatet_load_lines(const char *name)
{
    return each_line(name, 0);
}

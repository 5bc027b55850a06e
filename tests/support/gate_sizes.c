/* gate_sizes.c - the long commands of issue #10 §1 (gate_sizes.h). */
#include "gate_sizes.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gatet_git_add(size_t bytes, size_t *len)
{
    size_t cap = bytes + 128, n = 0;
    char *s = malloc(cap);
    if (!s)
        abort();
    n = (size_t)snprintf(s, cap, "git add");
    for (unsigned i = 0; n < bytes; i++)
        n += (size_t)snprintf(s + n, cap - n, " src/module_%03u/file_with_long_name_%03u.c",
                              i % 1000, i);
    *len = n;
    return s;
}

char *gatet_command_json(const char *cmd)
{
    json_t *o = json_pack("{s:s}", "command", cmd);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!text)
        abort();
    return text;
}

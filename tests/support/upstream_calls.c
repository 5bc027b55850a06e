/* upstream_calls.c - see upstream_calls.h. */
#define _POSIX_C_SOURCE 200809L
#include "upstream_calls.h"

#include <time.h>

int wgt_up_call(wg_upstream *u, const char *tool, const char *args_json, long timeout, json_t **r)
{
    json_t *a = args_json ? json_loads(args_json, 0, NULL) : NULL;
    *r = NULL;
    int rc = wg_mcp__up_call(u, tool, a, timeout, r);
    json_decref(a);
    return rc;
}

const char *wgt_up_first_text(const json_t *r)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
}

void wgt_sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

/* error.c - the per-thread last error (waggle/error.h). Thread-local storage,
 * no locks, no allocation: messages are truncated to fit the buffer. */
#include "waggle/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[512];
static _Thread_local int last_code;

static const char *const code_names[] = {
    "ok", "einval", "enomem", "enotfound", "eio", "eexists", "ecrypto",
    "estore", "edenied", "etier", "eupstream", "etimeout", "eunsupported",
    "ebusy", "eauth", "einternal", "eunavailable",
};

const char *wg_error_last(void) { return last_message; }

int wg_error_last_code(void) { return last_code; }

const char *wg_error_name(int code)
{
    int i = -code;
    if (i < 0 || i >= (int)(sizeof code_names / sizeof code_names[0]))
        return "unknown";
    return code_names[i];
}

int wg_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    last_code = code;
    return code;
}

void wg_error_clear(void)
{
    last_message[0] = '\0';
    last_code = WG_OK;
}

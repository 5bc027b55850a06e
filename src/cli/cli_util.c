/* cli_util.c - helpers every subcommand shares (cli.h): error printing,
 * reading input, printing JSON. */
#include "cli.h"
#include "waggle/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void vreport(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "waggle %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int wg_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'waggle %s --help'.\n", cmd);
    return WG_EXIT_USAGE;
}

int wg_cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    return WG_EXIT_FAIL;
}

int wg_cli_error(const char *cmd, int rc)
{
    const char *msg = wg_error_last();
    fprintf(stderr, "waggle %s: %s\n", cmd, *msg ? msg : wg_error_name(rc));
    return rc == WG_EINVAL ? WG_EXIT_USAGE : WG_EXIT_FAIL;
}

int wg_cli_read_all(char **out, size_t *len, const char *path, size_t max_bytes)
{
    int use_stdin = !path || strcmp(path, "-") == 0;
    FILE *f = use_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return wg_error_set(WG_EIO, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int rc = 0;
    if (!buf) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                rc = wg_error_set(WG_ENOMEM, "out of memory");
                goto done;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n > max_bytes) {
            rc = wg_error_set(WG_EINVAL, "%s is larger than %zu bytes",
                              use_stdin ? "standard input" : path, max_bytes);
            goto done;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        rc = wg_error_set(WG_EIO, "cannot read %s", use_stdin ? "standard input" : path);
        goto done;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    buf = NULL;
done:
    free(buf);
    if (!use_stdin)
        fclose(f);
    return rc;
}

int wg_cli_print_json(const json_t *value, int pretty)
{
    size_t flags = JSON_ENSURE_ASCII * 0 | (pretty ? JSON_INDENT(2) : JSON_COMPACT);
    if (json_dumpf(value, stdout, flags) != 0)
        return WG_EXIT_FAIL;
    fputc('\n', stdout);
    return WG_EXIT_OK;
}

int wg_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

int wg_cli_answer(const json_t *value, int json, void (*show)(const json_t *value))
{
    if (!value)
        return WG_EXIT_FAIL;
    if (json) {
        if (json_dumpf(value, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) != 0)
            return WG_EXIT_FAIL;
        fputc('\n', stdout);
    } else {
        show(value);
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? WG_EXIT_OK : WG_EXIT_FAIL;
}

/* render.c - readable output (render.h). */
#include "render.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { COLUMN_MAX = 48, BUF_MAX = 512 };

const json_t *wg_cli_path(const json_t *obj, const char *path)
{
    const json_t *v = obj;
    while (v && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        v = json_is_object(v) ? json_object_getn(v, path, n) : NULL;
        path += n + (dot != NULL);
    }
    return v;
}

/* Appends text to buf (cap bytes, always NUL-terminated), escaping C0 and
 * C1 control characters and DEL; returns the new length. */
static size_t put_text(char *buf, size_t len, size_t cap, const char *s, size_t n)
{
    for (size_t i = 0; i < n && len + 7 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        if (c < 0x20 || c == 0x7f) {
            len += (size_t)snprintf(buf + len, cap - len, "\\x%02x", c);
        } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {
            /* U+0080..U+009F: C1 controls (U+009B is a CSI to some terminals) */
            len += (size_t)snprintf(buf + len, cap - len, "\\u%04x", next);
            i++;
        } else {
            buf[len++] = (char)c;
        }
    }
    buf[len] = '\0';
    return len;
}

static size_t put_scalar(char *buf, size_t len, size_t cap, const json_t *v)
{
    char num[64];
    switch (json_typeof(v)) {
    case JSON_STRING:
        return put_text(buf, len, cap, json_string_value(v), json_string_length(v));
    case JSON_TRUE:
        return put_text(buf, len, cap, "yes", 3);
    case JSON_FALSE:
        return put_text(buf, len, cap, "no", 2);
    case JSON_NULL:
        return put_text(buf, len, cap, "-", 1);
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return put_text(buf, len, cap, num, strlen(num));
    case JSON_REAL:
        snprintf(num, sizeof num, "%.4g", json_real_value(v));
        return put_text(buf, len, cap, num, strlen(num));
    default: {
        char *s = json_dumps(v, JSON_COMPACT);
        if (s)
            len = put_text(buf, len, cap, s, strlen(s));
        free(s);
        return len;
    }
    }
}

/* An epoch-ms integer as ISO-8601 UTC; false when v is not one. */
static int time_text(char *buf, size_t cap, const json_t *v)
{
    if (!json_is_integer(v))
        return 0;
    json_int_t ms = json_integer_value(v);
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    if (ms < 0 || !gmtime_r(&secs, &tm))
        return 0;
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    return n && snprintf(buf + n, cap - n, ".%03dZ", (int)(ms % 1000)) > 0;
}

/* The text of v in buf; arrays of scalars joined by ", ". */
static void value_text(char *buf, size_t cap, const json_t *v, wg_cli_kind kind)
{
    size_t len = 0;
    buf[0] = '\0';
    if (kind == WG_CLI_TIME_MS && time_text(buf, cap, v))
        return;
    if (kind == WG_CLI_LIMIT && json_is_null(v)) {
        put_text(buf, 0, cap, "unlimited", 9);
        return;
    }
    if (!v) {
        put_text(buf, 0, cap, "-", 1);
        return;
    }
    if (!json_is_array(v)) {
        put_scalar(buf, 0, cap, v);
        return;
    }
    if (json_array_size(v) == 0) {
        put_text(buf, 0, cap, "-", 1);
        return;
    }
    size_t i;
    const json_t *e;
    json_array_foreach(v, i, e) {
        if (i)
            len = put_text(buf, len, cap, ", ", 2);
        len = put_scalar(buf, len, cap, e);
    }
}

/* Width in terminal columns, counting UTF-8 sequences as one each. */
static size_t columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Cuts s to at most max columns, ending it with "..." when it was longer. */
static void cut(char *s, size_t max)
{
    if (!max || columns(s) <= max)
        return;
    size_t cols = 0, i = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && ++cols > max - 3)
            break;
    }
    memcpy(s + i, "...", 4);
}

void wg_cli_show_value(FILE *to, const json_t *v, size_t max)
{
    char buf[BUF_MAX];
    value_text(buf, sizeof buf, v, WG_CLI_TEXT);
    cut(buf, max);
    fputs(buf, to);
}

void wg_cli_show_fields(FILE *to, const json_t *obj, const wg_cli_field *fields)
{
    size_t width = 0;
    for (const wg_cli_field *f = fields; f->key; f++)
        if (wg_cli_path(obj, f->key) && strlen(f->label) > width)
            width = strlen(f->label);
    for (const wg_cli_field *f = fields; f->key; f++) {
        const json_t *v = wg_cli_path(obj, f->key);
        if (!v)
            continue;
        char buf[BUF_MAX];
        value_text(buf, sizeof buf, v, f->kind);
        fprintf(to, "%s:%*s %s\n", f->label, (int)(width - strlen(f->label)), "", buf);
    }
}

static void pad(FILE *to, const char *s, size_t width, int last)
{
    fputs(s, to);
    if (!last)
        fprintf(to, "%*s", (int)(width - columns(s) + 2), "");
}

void wg_cli_show_table(FILE *to, const json_t *arr, const wg_cli_field *cols, const char *empty)
{
    size_t ncols = 0;
    while (cols[ncols].key)
        ncols++;
    size_t rows = json_array_size(arr);
    if (!rows) {
        fprintf(to, "%s\n", empty);
        return;
    }
    size_t ncells = rows * ncols;
    char *cells = calloc(ncells ? ncells : 1, BUF_MAX);
    size_t *width = calloc(ncols ? ncols : 1, sizeof *width);
    if (!cells || !width) {
        free(cells);
        free(width);
        return;
    }
    for (size_t c = 0; c < ncols; c++)
        width[c] = strlen(cols[c].label);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < ncols; c++) {
            char *cell = cells + (r * ncols + c) * BUF_MAX;
            value_text(cell, BUF_MAX, wg_cli_path(json_array_get(arr, r), cols[c].key), cols[c].kind);
            cut(cell, COLUMN_MAX);
            if (columns(cell) > width[c])
                width[c] = columns(cell);
        }
    for (size_t c = 0; c < ncols; c++)
        pad(to, cols[c].label, width[c], c + 1 == ncols);
    fputc('\n', to);
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < ncols; c++)
            pad(to, cells + (r * ncols + c) * BUF_MAX, width[c], c + 1 == ncols);
        fputc('\n', to);
    }
    free(cells);
    free(width);
}

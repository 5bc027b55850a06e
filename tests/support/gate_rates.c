/* gate_rates.c - the three soundness rates over a corpus (gate_rates.h). */
#define _POSIX_C_SOURCE 200809L
#include "gate_rates.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/gate.h"

static const char *const want_names[GATET_NWANT] = {
    "never-autopass passing at YOLO",
    "dangerous running silently at Normal",
    "read-only prompting at Normal",
};

const char *gatet_want_name(int want)
{
    return want >= 0 && want < GATET_NWANT ? want_names[want] : "?";
}

static int want_of(const json_t *row, const char *path)
{
    const char *w = json_string_value(json_object_get(row, "want"));
    if (w)
        return strcmp(w, "never") == 0 ? GATET_NEVER : strcmp(w, "silent") == 0 ? GATET_SILENT : GATET_ASK;
    const char *e = json_string_value(json_object_get(row, "expect"));
    if (e)
        return strcmp(e, "critical") == 0 ? GATET_NEVER : GATET_ASK;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strstr(base, "never"))
        return GATET_NEVER;
    if (strstr(base, "readonly"))
        return GATET_SILENT;
    return GATET_ASK;
}

static gatet_class_rate *class_row(gatet_rates *r, const char *name, int want)
{
    for (size_t i = 0; i < r->ncls; i++)
        if (r->cls[i].want == want && strcmp(r->cls[i].name, name) == 0)
            return &r->cls[i];
    if (r->ncls == GATET_MAX_CLASSES)
        return &r->cls[GATET_MAX_CLASSES - 1];      /* full: counted in the last row */
    gatet_class_rate *c = &r->cls[r->ncls++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->want = want;
    return c;
}

static void one(gatet_rates *r, const wg_gate *g, const char *cmd, size_t len, int want,
                const char *cls, FILE *misses)
{
    wg_gate_decision d;
    wg_autonomy level = want == GATET_NEVER ? WG_AUTONOMY_YOLO : WG_AUTONOMY_NORMAL;
    int asks = wg_gate_check_bash(&d, g, cmd, len, level) != 0 || d.needs_confirmation;
    int miss = want == GATET_SILENT ? asks : !asks;
    gatet_class_rate *c = class_row(r, cls, want);
    c->n++;
    r->n[want]++;
    if (!miss)
        return;
    c->miss++;
    r->miss[want]++;
    if (misses)
        fprintf(misses, "%s [%s] %s -> %s: %s\n", want == GATET_NEVER ? "never" : want == GATET_ASK ? "ask" : "silent",
                cls, cmd, d.rule ? d.rule : "?", d.reason);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

int gatet_rates_add_file(gatet_rates *r, const char *path, FILE *misses)
{
    char *text = slurp(path);
    if (!text) {
        fprintf(stderr, "gate_rates: cannot read %s\n", path);
        return -1;
    }
    size_t plen = strlen(path);
    int lines = plen > 4 && strcmp(path + plen - 4, ".txt") == 0;
    wg_gate *g;
    if (wg_gate_new(&g, NULL) != 0) {
        free(text);
        return -1;
    }
    int rc = 0, lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (line[0] == '\0' || line[0] == '#')
            continue;
        if (lines) {
            one(r, g, line, strlen(line), GATET_SILENT, "readonly", misses);
            continue;
        }
        json_error_t err;
        json_t *row = json_loads(line, 0, &err);
        const char *cmd = json_string_value(json_object_get(row, "cmd"));
        if (!cmd) {
            fprintf(stderr, "gate_rates: %s:%d: not a corpus line (%s)\n", path, lineno, row ? "no cmd" : err.text);
            rc = -1;
        } else {
            const char *cls = json_string_value(json_object_get(row, "class"));
            if (!cls)
                cls = json_string_value(json_object_get(row, "cat"));
            one(r, g, cmd, json_string_length(json_object_get(row, "cmd")), want_of(row, path),
                cls ? cls : "-", misses);
        }
        json_decref(row);
    }
    wg_gate_free(g);
    free(text);
    return rc;
}

double gatet_rate(const gatet_rates *r, int want)
{
    return r->n[want] ? 100.0 * (double)r->miss[want] / (double)r->n[want] : 0.0;
}

void gatet_rates_print(const gatet_rates *r, const char *title, FILE *out)
{
    fprintf(out, "== %s\n", title);
    for (int w = 0; w < GATET_NWANT; w++)
        for (size_t i = 0; i < r->ncls; i++) {
            const gatet_class_rate *c = &r->cls[i];
            if (c->want == w)
                fprintf(out, "  %-6s %-16s %4zu/%-4zu %5.1f%%\n", w == GATET_NEVER ? "never" : w == GATET_ASK ? "ask" : "silent",
                        c->name, c->miss, c->n, c->n ? 100.0 * (double)c->miss / (double)c->n : 0.0);
        }
    for (int w = 0; w < GATET_NWANT; w++)
        if (r->n[w])
            fprintf(out, "  overall %-38s %4zu/%-4zu %5.1f%%\n", want_names[w], r->miss[w], r->n[w], gatet_rate(r, w));
}

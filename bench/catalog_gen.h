/* catalog_gen.h - a deterministic synthetic catalog in the official MCP
 * registry's list format ({"servers":[{"server":{...},"_meta":{...}}],
 * "metadata":{"count":N}}), for scale tests and bench/catalog.
 *
 * Words come from the real catalog's descriptions, names and keywords, so
 * the generated servers look like real ones to the tokenizer. Names are
 * io.github.<owner>/<repo> with a unique repo per entry; packages rotate
 * through npm, pypi, oci and remotes. Header-only (static functions) so a
 * test and the benchmark share it without a library of their own.
 */
#ifndef WG_CATALOG_GEN_H
#define WG_CATALOG_GEN_H

#include "waggle/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char **w;
    size_t n, cap;
} wggen_words;

static void wggen_collect(wggen_words *v, const char *text)
{
    const char *p = text;
    while (*p) {
        while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            p++;
        size_t len = 0;
        while ((p[len] >= 'a' && p[len] <= 'z') || (p[len] >= 'A' && p[len] <= 'Z'))
            len++;
        if (len >= 3 && len < 16) {
            if (v->n == v->cap) {
                v->cap = v->cap ? v->cap * 2 : 1024;
                v->w = realloc(v->w, v->cap * sizeof *v->w);
            }
            v->w[v->n] = malloc(len + 1);
            for (size_t i = 0; i < len; i++)
                v->w[v->n][i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
            v->w[v->n++][len] = '\0';
        }
        p += len;
    }
}

static unsigned wggen_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xFFFFFF;
}

/* Appends k random words joined by sep to buf (cap bytes). */
static void wggen_phrase(char *buf, size_t cap, const wggen_words *v, unsigned *seed, int k,
                         const char *sep)
{
    size_t len = strlen(buf);
    for (int i = 0; i < k; i++) {
        const char *w = v->w[wggen_rand(seed) % v->n];
        int n = snprintf(buf + len, cap - len, "%s%s", i ? sep : "", w);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
}

/* The registry list document with count servers, as new JSON text (free()). */
static char *wggen_registry(const wg_catalog *real, size_t count)
{
    wggen_words v = { 0 };
    for (size_t i = 0; i < wg_catalog_count(real); i++) {
        const wg_catalog_server *s = wg_catalog_at(real, i);
        wggen_collect(&v, s->description);
        wggen_collect(&v, s->name);
        for (size_t k = 0; k < s->keyword_count; k++)
            wggen_collect(&v, s->keywords[k]);
    }
    size_t cap = count * 900 + 256, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    len += (size_t)snprintf(out, cap, "{\"servers\":[\n");
    unsigned seed = 20000;
    for (size_t i = 0; i < count; i++) {
        char owner[64] = "", repo[96] = "", title[96] = "", desc[128] = "";
        wggen_phrase(owner, sizeof owner, &v, &seed, 1, "");
        snprintf(owner + strlen(owner), sizeof owner - strlen(owner), "%zu", i % 997);
        wggen_phrase(repo, sizeof repo, &v, &seed, 2, "-");
        snprintf(repo + strlen(repo), sizeof repo - strlen(repo), "-%zu-mcp", i);
        wggen_phrase(title, sizeof title, &v, &seed, 2, " ");
        /* registry descriptions are at most 100 characters */
        wggen_phrase(desc, 100, &v, &seed, 9, " ");
        char pkg[320];
        switch (i % 4) {
        case 0:
            snprintf(pkg, sizeof pkg, "\"packages\":[{\"registryType\":\"npm\",\"registryBaseUrl\":"
                     "\"https://registry.npmjs.org\",\"identifier\":\"@%s/%s\",\"version\":\"1.%zu.0\","
                     "\"transport\":{\"type\":\"stdio\"}}]", owner, repo, i % 9);
            break;
        case 1:
            snprintf(pkg, sizeof pkg, "\"packages\":[{\"registryType\":\"pypi\",\"identifier\":\"%s\","
                     "\"version\":\"0.%zu.1\",\"transport\":{\"type\":\"stdio\"}}]", repo, i % 7);
            break;
        case 2:
            snprintf(pkg, sizeof pkg, "\"packages\":[{\"registryType\":\"oci\",\"identifier\":"
                     "\"ghcr.io/%s/%s:1.0.%zu\",\"transport\":{\"type\":\"stdio\"}}]", owner, repo, i % 5);
            break;
        default:
            snprintf(pkg, sizeof pkg, "\"remotes\":[{\"type\":\"streamable-http\",\"url\":"
                     "\"https://mcp.%s.example.com/%s\"}]", owner, repo);
            break;
        }
        if (cap - len < 2048) {
            cap *= 2;
            char *n = realloc(out, cap);
            if (!n) {
                free(out);
                return NULL;
            }
            out = n;
        }
        len += (size_t)snprintf(out + len, cap - len,
            "%s{\"server\":{\"$schema\":\"https://static.modelcontextprotocol.io/schemas/2025-12-11/"
            "server.schema.json\",\"name\":\"io.github.%s/%s\",\"title\":\"%s\",\"description\":\"%s\","
            "\"version\":\"1.0.%zu\",\"repository\":{\"url\":\"https://github.com/%s/%s\",\"source\":"
            "\"github\"},%s},\"_meta\":{\"io.modelcontextprotocol.registry/official\":{\"status\":"
            "\"active\",\"publishedAt\":\"2025-09-%02zuT10:30:00Z\",\"updatedAt\":"
            "\"2025-10-01T11:00:00Z\",\"isLatest\":true}}}\n",
            i ? "," : "", owner, repo, title, desc, i % 10, owner, repo, pkg, 1 + i % 28);
    }
    snprintf(out + len, cap - len, "],\"metadata\":{\"count\":%zu}}\n", count);
    for (size_t i = 0; i < v.n; i++)
        free(v.w[i]);
    free(v.w);
    return out;
}

#endif

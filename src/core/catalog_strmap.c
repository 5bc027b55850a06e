/* catalog_strmap.c - a small string -> uint32 hash map (open addressing,
 * linear probing, FNV-1a) for ids, urls and index terms. Not thread-safe
 * while being filled; lookups on a finished map are read-only. */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

uint64_t wg_strmap__hash(const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void wg_strmap__init(wg_strmap *m, int own_keys)
{
    memset(m, 0, sizeof *m);
    m->own_keys = own_keys;
}

void wg_strmap__free(wg_strmap *m)
{
    if (!m)
        return;
    if (m->own_keys)
        for (size_t i = 0; i < m->cap; i++)
            free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static int key_eq(const char *k, const char *key, size_t len)
{
    return strncmp(k, key, len) == 0 && k[len] == '\0';
}

uint32_t wg_strmap__get(const wg_strmap *m, const char *key, size_t len)
{
    if (m->cap == 0)
        return UINT32_MAX;
    size_t mask = m->cap - 1;
    for (size_t i = wg_strmap__hash(key, len) & mask;; i = (i + 1) & mask) {
        if (!m->keys[i])
            return UINT32_MAX;
        if (key_eq(m->keys[i], key, len))
            return m->vals[i];
    }
}

static int grow(wg_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    char **keys = calloc(cap, sizeof *keys);
    uint32_t *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = wg_strmap__hash(m->keys[i], strlen(m->keys[i])) & (cap - 1);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int wg_strmap__put(wg_strmap *m, const char *key, size_t len, uint32_t val, uint32_t *existing)
{
    if ((m->n + 1) * 2 > m->cap) {
        int rc = grow(m);
        if (rc < 0)
            return rc;
    }
    size_t mask = m->cap - 1;
    size_t i = wg_strmap__hash(key, len) & mask;
    for (; m->keys[i]; i = (i + 1) & mask) {
        if (key_eq(m->keys[i], key, len)) {
            if (existing)
                *existing = m->vals[i];
            return 0;
        }
    }
    char *k;
    if (m->own_keys) {
        k = malloc(len + 1);
        if (!k)
            return wg_error_set(WG_ENOMEM, "out of memory");
        memcpy(k, key, len);
        k[len] = '\0';
    } else {
        k = (char *)key;  /* borrowed: caller guarantees NUL at len */
    }
    m->keys[i] = k;
    m->vals[i] = val;
    m->n++;
    if (existing)
        *existing = UINT32_MAX;
    return 0;
}

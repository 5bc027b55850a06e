/* respcache.h - a small memo of response bodies for read-only routes whose
 * answer depends only on the key and a caller-computed tag (a fingerprint
 * of the files behind it). Direct-mapped: a new key simply replaces the
 * slot's old one. Thread-safe (one mutex; held only to compare and copy).
 * Internal to src/server. */
#ifndef WAGGLE_SERVER_RESPCACHE_H
#define WAGGLE_SERVER_RESPCACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct wg_respcache wg_respcache;

/* Returns 0 or WG_ENOMEM. */
int wg_respcache__new(wg_respcache **out, size_t slots);
void wg_respcache__free(wg_respcache *c);

/* A new copy (malloc) of the body stored for key with this tag, its length
 * in *len; NULL when absent, stale or out of memory. */
char *wg_respcache__get(wg_respcache *c, const char *key, uint64_t tag, size_t *len);

/* Stores a copy of body for key and tag (silently skipped when out of
 * memory or larger than 1 MiB). */
void wg_respcache__put(wg_respcache *c, const char *key, uint64_t tag, const char *body,
                       size_t len);

/* FNV-1a, for keys and fingerprints. */
uint64_t wg_respcache__hash(uint64_t h, const void *data, size_t len);

#endif

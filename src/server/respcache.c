/* respcache.c - memo of response bodies (respcache.h). */
#include "server/respcache.h"
#include "waggle/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { BODY_MAX = 1024 * 1024 };

typedef struct {
    char *key;
    uint64_t tag;
    char *body;
    size_t len;
} slot;

struct wg_respcache {
    pthread_mutex_t lock;
    slot *slots;
    size_t n;
};

uint64_t wg_respcache__hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    if (!h)
        h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

int wg_respcache__new(wg_respcache **out, size_t slots)
{
    wg_respcache *c = calloc(1, sizeof *c);
    if (!c || !(c->slots = calloc(slots ? slots : 1, sizeof *c->slots))) {
        free(c);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    c->n = slots ? slots : 1;
    pthread_mutex_init(&c->lock, NULL);
    *out = c;
    return 0;
}

void wg_respcache__free(wg_respcache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->slots[i].key);
        free(c->slots[i].body);
    }
    free(c->slots);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static slot *slot_for(wg_respcache *c, const char *key)
{
    return &c->slots[wg_respcache__hash(0, key, strlen(key)) % c->n];
}

char *wg_respcache__get(wg_respcache *c, const char *key, uint64_t tag, size_t *len)
{
    char *copy = NULL;
    pthread_mutex_lock(&c->lock);
    slot *s = slot_for(c, key);
    if (s->key && s->tag == tag && strcmp(s->key, key) == 0 && (copy = malloc(s->len + 1))) {
        memcpy(copy, s->body, s->len + 1);
        *len = s->len;
    }
    pthread_mutex_unlock(&c->lock);
    return copy;
}

void wg_respcache__put(wg_respcache *c, const char *key, uint64_t tag, const char *body,
                       size_t len)
{
    if (len > BODY_MAX)
        return;
    char *k = strdup(key);
    char *b = malloc(len + 1);
    if (!k || !b) {
        free(k);
        free(b);
        return;
    }
    memcpy(b, body, len);
    b[len] = '\0';
    pthread_mutex_lock(&c->lock);
    slot *s = slot_for(c, key);
    free(s->key);
    free(s->body);
    s->key = k;
    s->tag = tag;
    s->body = b;
    s->len = len;
    pthread_mutex_unlock(&c->lock);
}

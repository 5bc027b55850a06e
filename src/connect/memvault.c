/* memvault.c - a wg_connect_vault kept in memory (tests and embedders that
 * bring no store). Same contract as the store's vault: names map to a value
 * and JSON metadata; get on an absent name is WG_ENOTFOUND. Not encrypted,
 * not persistent; guarded by a mutex. Its lease locks serialise the threads
 * of this process only (there is no other process to share them with). */
#include "waggle/connector.h"
#include "waggle/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct item {
    char *name, *value;
    json_t *meta;
    struct item *next;
} item;

/* A lease lock: name, holder, until (ms, CLOCK_REALTIME). */
typedef struct lease {
    char *name, *owner;
    long long until_ms;
    struct lease *next;
} lease;

typedef struct memvault {
    wg_connect_vault face;     /* first: the handle given out */
    item *head;
    lease *leases;
    pthread_mutex_t mu;
} memvault;

static item **slot(memvault *m, const char *name)
{
    item **p = &m->head;
    while (*p && strcmp((*p)->name, name))
        p = &(*p)->next;
    return p;
}

static void item_free(item *it)
{
    memset(it->value, 0, strlen(it->value));
    free(it->name);
    free(it->value);
    json_decref(it->meta);
    free(it);
}

static int mv_get(void *ctx, const char *name, char **value, json_t **meta)
{
    memvault *m = ctx;
    pthread_mutex_lock(&m->mu);
    item *it = *slot(m, name);
    int rc = 0;
    if (!it) {
        rc = wg_error_set(WG_ENOTFOUND, "no vault entry %s", name);
    } else {
        if (value && !(*value = strdup(it->value)))
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        if (meta)
            *meta = it->meta ? json_deep_copy(it->meta) : NULL;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static item *item_new(const char *name, const char *value, const json_t *meta)
{
    item *it = calloc(1, sizeof *it);
    if (!it || !(it->name = strdup(name)) || !(it->value = strdup(value))) {
        if (it) {
            free(it->name);
            free(it);
        }
        return NULL;
    }
    it->meta = meta ? json_deep_copy(meta) : NULL;
    return it;
}

/* Puts it in place of name's item (caller holds the mutex). */
static void put_locked(memvault *m, item *it)
{
    item **p = slot(m, it->name);
    if (*p) {
        it->next = (*p)->next;
        item_free(*p);
    }
    *p = it;
}

static void del_locked(memvault *m, const char *name)
{
    item **p = slot(m, name);
    if (*p) {
        item *it = *p;
        *p = it->next;
        item_free(it);
    }
}

static int mv_set(void *ctx, const char *name, const char *value, const json_t *meta)
{
    memvault *m = ctx;
    item *it = item_new(name, value, meta);
    if (!it)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_lock(&m->mu);
    put_locked(m, it);
    pthread_mutex_unlock(&m->mu);
    return 0;
}

/* All items are built first, then swapped in under one lock hold: readers
 * see either none or all of the writes. */
static int mv_set_many(void *ctx, const wg_connect_vault_item *items, size_t n)
{
    memvault *m = ctx;
    item **fresh = calloc(n ? n : 1, sizeof *fresh);
    int rc = fresh ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (items[i].value && !(fresh[i] = item_new(items[i].name, items[i].value, items[i].meta)))
            rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0) {
        pthread_mutex_lock(&m->mu);
        for (size_t i = 0; i < n; i++) {
            if (fresh[i])
                put_locked(m, fresh[i]);
            else
                del_locked(m, items[i].name);
            fresh[i] = NULL;
        }
        pthread_mutex_unlock(&m->mu);
    }
    for (size_t i = 0; fresh && i < n; i++)
        if (fresh[i])
            item_free(fresh[i]);
    free(fresh);
    return rc;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int mv_lock(void *ctx, const char *name, const char *owner, long ttl_ms)
{
    memvault *m = ctx;
    if (!name || !owner || ttl_ms < 1)
        return wg_error_set(WG_EINVAL, "lock name, owner and a ttl are required");
    long long now = now_ms();
    int rc = 0;
    pthread_mutex_lock(&m->mu);
    lease *l = m->leases;
    while (l && strcmp(l->name, name))
        l = l->next;
    if (l && l->until_ms > now && strcmp(l->owner, owner)) {
        rc = wg_error_set(WG_EBUSY, "lock %s is held", name);
    } else if (l) {
        char *o = strdup(owner);
        if (o) {
            free(l->owner);
            l->owner = o;
            l->until_ms = now + ttl_ms;
        } else {
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        }
    } else if ((l = calloc(1, sizeof *l)) && (l->name = strdup(name)) &&
               (l->owner = strdup(owner))) {
        l->until_ms = now + ttl_ms;
        l->next = m->leases;
        m->leases = l;
    } else {
        if (l)
            free(l->name);
        free(l);
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static int mv_unlock(void *ctx, const char *name, const char *owner)
{
    memvault *m = ctx;
    pthread_mutex_lock(&m->mu);
    for (lease **p = &m->leases; *p; p = &(*p)->next)
        if (strcmp((*p)->name, name) == 0 && strcmp((*p)->owner, owner) == 0) {
            lease *l = *p;
            *p = l->next;
            free(l->name);
            free(l->owner);
            free(l);
            break;
        }
    pthread_mutex_unlock(&m->mu);
    return 0;
}

static int mv_del(void *ctx, const char *name)
{
    memvault *m = ctx;
    pthread_mutex_lock(&m->mu);
    item **p = slot(m, name);
    int rc = 0;
    if (!*p) {
        rc = wg_error_set(WG_ENOTFOUND, "no vault entry %s", name);
    } else {
        item *it = *p;
        *p = it->next;
        item_free(it);
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* The bounded counter: check and add under the one mutex, so threads never
 * take more than limit. The value is decimal text like the store's. */
static int mv_take(void *ctx, const char *name, long limit, long *count)
{
    memvault *m = ctx;
    if (limit < 1)
        return wg_error_set(WG_EINVAL, "a counter limit >= 1 is required");
    char num[32];
    int rc = 0;
    pthread_mutex_lock(&m->mu);
    item *it = *slot(m, name);
    long n = it ? strtol(it->value, NULL, 10) : 0;
    if (n >= limit) {
        rc = wg_error_set(WG_EDENIED, "counter %s reached its limit %ld", name, limit);
    } else {
        snprintf(num, sizeof num, "%ld", ++n);
        char *v = strdup(num);
        item *fresh = it ? NULL : calloc(1, sizeof *fresh);
        if (!v || (!it && (!fresh || !(fresh->name = strdup(name))))) {
            free(v);
            if (fresh)
                free(fresh->name);
            free(fresh);
            n--;
            rc = wg_error_set(WG_ENOMEM, "out of memory");
        } else if (it) {
            free(it->value);
            it->value = v;
        } else {
            fresh->value = v;
            fresh->next = m->head;
            m->head = fresh;
        }
    }
    pthread_mutex_unlock(&m->mu);
    if (count)
        *count = n;
    return rc;
}

static int mv_list(void *ctx, const char *prefix, char ***names, size_t *n)
{
    memvault *m = ctx;
    size_t k = 0, len = strlen(prefix);
    pthread_mutex_lock(&m->mu);
    for (item *it = m->head; it; it = it->next)
        k += strncmp(it->name, prefix, len) == 0;
    char **v = calloc(k + 1, sizeof *v);
    size_t j = 0;
    for (item *it = m->head; v && it; it = it->next)
        if (strncmp(it->name, prefix, len) == 0)
            v[j++] = strdup(it->name);
    pthread_mutex_unlock(&m->mu);
    if (!v)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *names = v;
    *n = j;
    return 0;
}

int wg_connect_memvault_new(wg_connect_vault **out)
{
    memvault *m = calloc(1, sizeof *m);
    if (!m)
        return wg_error_set(WG_ENOMEM, "out of memory");
    pthread_mutex_init(&m->mu, NULL);
    m->face = (wg_connect_vault){ WG_CONNECT_VAULT_VERSION, m, mv_get, mv_set, mv_del, mv_list,
                                  mv_take, mv_set_many, mv_lock, mv_unlock };
    *out = &m->face;
    return 0;
}

void wg_connect_memvault_free(wg_connect_vault *v)
{
    if (!v)
        return;
    memvault *m = (memvault *)v;
    while (m->head) {
        item *it = m->head;
        m->head = it->next;
        item_free(it);
    }
    while (m->leases) {
        lease *l = m->leases;
        m->leases = l->next;
        free(l->name);
        free(l->owner);
        free(l);
    }
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* catalog_unique.c - uniqueness of catalog entries (spec 12 assertCatalogUnique,
 * hardened per original-facts 7.1 / 13 item 23).
 *
 * The original let exact duplicates and one id with two urls through, and
 * compared urls byte for byte. Here, for each entry in order:
 *   1. the same id again: "duplicate entry" when the urls agree, else
 *      "id used twice with different urls";
 *   2. a different id with the same normalized key: "normalized id collision";
 *   3. a different id whose url is equal ignoring case and trailing slashes:
 *      "duplicate url";
 *   4. an id that is not in normal form (so lookups by any spelling work).
 * Every message names both entries (id and where it is). O(n) with hashing.
 */
#include "catalog_internal.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

char *wg_catalog__url_key(const char *url)
{
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        n--;
    char *k = malloc(n + 1);
    if (!k)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = url[i];
        k[i] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
    }
    k[n] = '\0';
    return k;
}

typedef struct {
    wg_strmap ids, norms, urls;
    char **url_keys;   /* per entry, owned */
    char **norm_keys;  /* per entry, owned */
    size_t n;
} checker;

static void checker_free(checker *c)
{
    wg_strmap__free(&c->ids);
    wg_strmap__free(&c->norms);
    wg_strmap__free(&c->urls);
    for (size_t i = 0; i < c->n; i++) {
        free(c->url_keys[i]);
        free(c->norm_keys[i]);
    }
    free(c->url_keys);
    free(c->norm_keys);
}

static int check_one(checker *c, const wg_catalog_server *s, char *const *where, size_t i)
{
    const wg_catalog_server *e = &s[i];
    size_t idlen = strlen(e->id);
    char *norm = malloc(idlen + 1);
    char *ukey = wg_catalog__url_key(e->url);
    c->norm_keys[i] = norm;
    c->url_keys[i] = ukey;
    if (!norm || !ukey)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int nlen = wg_catalog_normalize_id(norm, idlen + 1, e->id);
    if (nlen <= 0)
        return wg_error_set(WG_EINVAL, "%s: id \"%s\" normalizes to an empty key; "
                            "give the server a distinctive id", where[i], e->id);
    uint32_t j;
    int rc;
    if ((rc = wg_strmap__put(&c->ids, e->id, idlen, (uint32_t)i, &j)) < 0)
        return rc;
    if (j != UINT32_MAX) {
        if (strcmp(c->url_keys[j], ukey) == 0)
            return wg_error_set(WG_EINVAL, "duplicate entry: \"%s\" (%s) and \"%s\" (%s) are "
                                "the same server (%s); remove one", s[j].id, where[j], e->id,
                                where[i], e->url);
        return wg_error_set(WG_EINVAL, "id \"%s\" is used by two entries with different urls: "
                            "%s (%s) and %s (%s); keep one id per server", e->id, where[j],
                            s[j].url, where[i], e->url);
    }
    if ((rc = wg_strmap__put(&c->norms, norm, (size_t)nlen, (uint32_t)i, &j)) < 0)
        return rc;
    if (j != UINT32_MAX)
        return wg_error_set(WG_EINVAL, "normalized id collision: \"%s\" (%s) and \"%s\" (%s) "
                            "both normalize to \"%s\"; if they are different servers, rename one",
                            s[j].id, where[j], e->id, where[i], norm);
    if ((rc = wg_strmap__put(&c->urls, ukey, strlen(ukey), (uint32_t)i, &j)) < 0)
        return rc;
    if (j != UINT32_MAX)
        return wg_error_set(WG_EINVAL, "duplicate url: \"%s\" (%s) and \"%s\" (%s) both point "
                            "at %s (urls compared ignoring case and trailing slashes)",
                            s[j].id, where[j], e->id, where[i], e->url);
    if ((size_t)nlen != idlen || strcmp(norm, e->id) != 0)
        return wg_error_set(WG_EINVAL, "%s: id \"%s\" is not in normal form; use \"%s\"",
                            where[i], e->id, norm);
    return 0;
}

int wg_catalog__check_unique(const wg_catalog_server *servers, char *const *where, size_t n)
{
    checker c;
    memset(&c, 0, sizeof c);
    wg_strmap__init(&c.ids, 0);
    wg_strmap__init(&c.norms, 0);
    wg_strmap__init(&c.urls, 0);
    c.url_keys = calloc(n + 1, sizeof *c.url_keys);
    c.norm_keys = calloc(n + 1, sizeof *c.norm_keys);
    int rc = 0;
    if (!c.url_keys || !c.norm_keys)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        c.n = i + 1;
        rc = check_one(&c, servers, where, i);
    }
    checker_free(&c);
    return rc;
}

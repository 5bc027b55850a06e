/* Tests for the catalog's blob (src/core/catalog_blob.c) and its cache in
 * the data dir (src/store/catalog_local.c): a catalog loaded from its blob
 * answers exactly as the one built from JSON; the loader refuses a damaged
 * or forged blob - every byte changed, every length truncated, each with the
 * checksum fixed up so the deeper checks are reached - and never reads out
 * of bounds (run under ASan); the cache is used when catalog.json is
 * unchanged, rebuilt when it changed or the cache is bad, refreshed after a
 * touch, and not mapped when others may write it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/catalog_internal.h"
#include "waggle/catalog_tools.h"
#include "waggle/error.h"
#include "wgtest.h"

static const char *const queries[] = {
    "users report crashes in the app", "postgres", "send email", "storm warnings", "test",
    "Alpha", "qqqzzz", "vector search", "mcp-server-github",
};

/* find_connector's text for every query, joined. */
static char *answers(const wg_catalog *cat)
{
    size_t cap = 1 << 20, len = 0;
    char *all = calloc(cap, 1);
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        json_t *args = json_pack("{s:s, s:i}", "query", queries[i], "limit", 30);
        char *t = NULL;
        cr_assert_eq(wg_catalog_find_connector_text(&t, NULL, cat, args), 0);
        size_t n = strlen(t);
        cr_assert_lt(len + n + 2, cap);
        memcpy(all + len, t, n);
        len += n;
        all[len++] = '\n';
        free(t);
        json_decref(args);
    }
    return all;
}

/* A copy of a blob in an 8-byte aligned buffer. */
static void *copy_blob(const void *blob, size_t len)
{
    void *p = NULL;
    cr_assert_eq(posix_memalign(&p, 8, len ? len : 8), 0);
    memcpy(p, blob, len);
    return p;
}

static wg_catalog *small_catalog(void)
{
    char *text = wgt_read_file(WG_TEST_DATA_DIR "/catalog/good_small.json");
    cr_assert_not_null(text);
    const char *docs[1] = { text };
    size_t lens[1] = { strlen(text) };
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_parse(&cat, docs, lens, NULL, 1), 0, "%s", wg_error_last());
    free(text);
    return cat;
}

/* Loads a (possibly damaged) blob; when it is accepted, uses it fully. */
static int try_blob(const void *blob, size_t len)
{
    wg_catalog *c = NULL;
    int rc = wg_catalog__from_blob(&c, copy_blob(blob, len), len, wg_catalog__blob_free);
    if (rc == 0) {
        free(answers(c));
        for (size_t i = 0; i < wg_catalog_count(c); i++) {
            const wg_catalog_server *s = wg_catalog_at(c, i);
            wg_catalog_lookup(c, s->id);   /* may miss in a forged table, never crash */
            json_t *j = NULL;
            cr_assert_eq(wg_catalog_server_json(&j, s), 0);
            json_decref(j);
        }
        wg_catalog_free(c);
    } else {
        cr_assert_eq(rc, WG_EINVAL, "rc %d", rc);
        cr_assert_not_null(strstr(wg_error_last(), "catalog index"), "%s", wg_error_last());
    }
    return rc;
}

Test(catalog_index, the_embedded_blob_answers_like_a_fresh_build)
{
    /* the embedded catalog was built at build time; building the same data
     * now must give the same bytes and the same answers */
    wg_catalog *emb = NULL, *fresh = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&emb), 0, "%s", wg_error_last());
    char *text = wgt_read_file(WG_SOURCE_DIR "/data/mcp-catalog.json");
    const char *docs[1] = { text };
    size_t lens[1] = { strlen(text) };
    cr_assert_eq(wg_catalog_parse(&fresh, docs, lens, NULL, 1), 0, "%s", wg_error_last());
    cr_assert_eq(emb->blob_len, fresh->blob_len);
    cr_assert(memcmp(emb->blob, fresh->blob, emb->blob_len) == 0, "blob bytes differ");
    char *a = answers(emb), *b = answers(fresh);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    free(text);
    wg_catalog_free(emb);
    wg_catalog_free(fresh);
}

Test(catalog_index, every_changed_byte_is_refused_or_harmless)
{
    wg_catalog *cat = small_catalog();
    size_t len = cat->blob_len;
    unsigned char *b = copy_blob(cat->blob, len);
    static const unsigned char values[] = { 0x00, 0xFF, 0x7F, 0x80, 0x01 };
    size_t refused = 0, total = 0;
    for (size_t i = 0; i < len; i++)
        for (size_t v = 0; v < sizeof values; v++) {
            if (b[i] == values[v])
                continue;
            unsigned char keep = b[i];
            b[i] = values[v];
            wg_catalog__blob_reseal(b, len);   /* reach the checks behind the checksum */
            refused += try_blob(b, len) != 0;
            total++;
            memcpy(b, cat->blob, len);
            (void)keep;
        }
    cr_log_info("%zu of %zu single-byte changes refused", refused, total);
    cr_assert_gt(refused, total / 2);
    /* without resealing, any change to the checked sections is refused */
    b[len / 3] ^= 0x5A;
    cr_assert_eq(try_blob(b, len), WG_EINVAL);
    free(b);
    wg_catalog_free(cat);
}

Test(catalog_index, every_truncation_and_extension_is_refused)
{
    wg_catalog *cat = small_catalog();
    size_t len = cat->blob_len;
    for (size_t n = 0; n < len; n++)
        cr_assert_eq(try_blob(cat->blob, n), WG_EINVAL, "length %zu", n);
    unsigned char *longer = calloc(1, len + 8);
    memcpy(longer, cat->blob, len);
    cr_assert_eq(try_blob(longer, len + 8), WG_EINVAL);
    cr_assert_eq(try_blob(cat->blob, len), 0);   /* N itself is fine */
    free(longer);
    wg_catalog_free(cat);
}

Test(catalog_index, an_overlay_blob_of_another_embedded_catalog_is_refused)
{
    char *dir = wgt_tmpdir();
    cr_assert_eq(wgt_write_file(dir, "catalog.json", wgt_read_file(WG_TEST_DATA_DIR
                                "/catalog/good_small.json")), 0);
    wg_catalog *cat = NULL;
    cr_assert_eq(wg_catalog_open(&cat, dir), 0, "%s", wg_error_last());
    cr_assert_eq(cat->n_base, wg_catalog_count(cat) - 2);
    unsigned char *b = copy_blob(cat->blob, cat->blob_len);
    size_t len = cat->blob_len;
    /* base_sum is at offset 32 of the header, n_base at 96 */
    b[32] ^= 1;
    wg_catalog__blob_reseal(b, len);
    cr_assert_eq(try_blob(b, len), WG_EINVAL);
    cr_assert_not_null(strstr(wg_error_last(), "another embedded catalog"), "%s", wg_error_last());
    memcpy(b, cat->blob, len);
    b[96] ^= 1;
    wg_catalog__blob_reseal(b, len);
    cr_assert_eq(try_blob(b, len), WG_EINVAL);
    free(b);
    wg_catalog_free(cat);
    wgt_rmtree(dir);
    free(dir);
}

/* ---- the cache in the data dir --------------------------------------------- */

static char *index_path(const char *dir)
{
    char *p = NULL;
    cr_assert_geq(asprintf(&p, "%s/catalog.idx", dir), 0);
    return p;
}

static int mapped(const wg_catalog *cat)
{
    return cat->release && cat->release != wg_catalog__blob_free;
}

Test(catalog_index, the_cache_is_written_then_used_and_answers_the_same)
{
    char *dir = wgt_tmpdir(), *idx = index_path(dir);
    wg_catalog *none = NULL;
    cr_assert_eq(wg_catalog_open(&none, dir), 0);   /* no catalog.json: embedded, nothing written */
    cr_assert_neq(access(idx, F_OK), 0);
    char *text = wgt_read_file(WG_TEST_DATA_DIR "/catalog/good_small.json");
    cr_assert_eq(wgt_write_file(dir, "catalog.json", text), 0);
    usleep(150 * 1000);   /* past the racy window */
    wg_catalog *first = NULL, *second = NULL;
    cr_assert_eq(wg_catalog_open(&first, dir), 0, "%s", wg_error_last());
    cr_assert(!mapped(first));
    cr_assert_eq(access(idx, F_OK), 0, "catalog.idx was not written");
    struct stat st;
    cr_assert_eq(stat(idx, &st), 0);
    cr_assert_eq(st.st_mode & 077, 0, "mode %o", st.st_mode & 0777);
    cr_assert_eq(wg_catalog_open(&second, dir), 0, "%s", wg_error_last());
    cr_assert(mapped(second), "the second open rebuilt instead of using the cache");
    cr_assert_eq(wg_catalog_count(second), wg_catalog_count(none) + 2);
    char *a = answers(first), *b = answers(second);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    wg_catalog_free(first);
    wg_catalog_free(second);
    wg_catalog_free(none);
    free(text);
    free(idx);
    wgt_rmtree(dir);
    free(dir);
}

Test(catalog_index, a_changed_catalog_or_a_bad_cache_is_rebuilt)
{
    char *dir = wgt_tmpdir(), *idx = index_path(dir);
    char *text = wgt_read_file(WG_TEST_DATA_DIR "/catalog/good_small.json");
    cr_assert_eq(wgt_write_file(dir, "catalog.json", text), 0);
    usleep(150 * 1000);
    wg_catalog *c = NULL;
    cr_assert_eq(wg_catalog_open(&c, dir), 0);
    wg_catalog_free(c);
    /* same size, different bytes: the new entry is seen */
    char *changed = strdup(text), *p = strstr(changed, "\"alpha\"");
    cr_assert_not_null(p);
    memcpy(p, "\"alphb\"", 7);
    cr_assert_eq(wgt_write_file(dir, "catalog.json", changed), 0);
    cr_assert_eq(wg_catalog_open(&c, dir), 0, "%s", wg_error_last());
    cr_assert_not_null(wg_catalog_lookup(c, "alphb"));
    cr_assert_null(wg_catalog_lookup(c, "alpha"));
    wg_catalog_free(c);
    /* garbage, an empty file and a directory in place of the cache */
    static const char *const junk[] = { "garbage that is not an index", "" };
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(wgt_write_file(dir, "catalog.idx", junk[i]), 0);
        cr_assert_eq(wg_catalog_open(&c, dir), 0, "%s", wg_error_last());
        cr_assert_not_null(wg_catalog_lookup(c, "alphb"));
        wg_catalog_free(c);
        struct stat st;
        cr_assert_eq(stat(idx, &st), 0);
        cr_assert_gt(st.st_size, 128, "the cache was not rewritten");
    }
    /* a cache others may write is not mapped, and is written back private */
    chmod(idx, 0666);
    cr_assert_eq(wg_catalog_open(&c, dir), 0);
    cr_assert(!mapped(c));
    wg_catalog_free(c);
    struct stat st;
    cr_assert_eq(stat(idx, &st), 0);
    cr_assert_eq(st.st_mode & 077, 0);
    free(changed);
    free(text);
    free(idx);
    wgt_rmtree(dir);
    free(dir);
}

Test(catalog_index, a_touched_catalog_keeps_its_cache_after_one_hash)
{
    char *dir = wgt_tmpdir();
    char *text = wgt_read_file(WG_TEST_DATA_DIR "/catalog/good_small.json");
    cr_assert_eq(wgt_write_file(dir, "catalog.json", text), 0);
    usleep(150 * 1000);
    wg_catalog *c = NULL;
    cr_assert_eq(wg_catalog_open(&c, dir), 0);
    wg_catalog_free(c);
    cr_assert_eq(wgt_write_file(dir, "catalog.json", text), 0);   /* same bytes, new inode/mtime */
    usleep(150 * 1000);
    cr_assert_eq(wg_catalog_open(&c, dir), 0);
    cr_assert(mapped(c), "same bytes must not rebuild");
    wg_catalog_free(c);
    cr_assert_eq(wg_catalog_open(&c, dir), 0);
    cr_assert(mapped(c));
    wg_catalog_free(c);
    free(text);
    wgt_rmtree(dir);
    free(dir);
}

Test(catalog_index, an_invalid_catalog_json_is_still_an_error_with_a_cache)
{
    char *dir = wgt_tmpdir();
    char *text = wgt_read_file(WG_TEST_DATA_DIR "/catalog/good_small.json");
    cr_assert_eq(wgt_write_file(dir, "catalog.json", text), 0);
    wg_catalog *c = NULL;
    cr_assert_eq(wg_catalog_open(&c, dir), 0);
    wg_catalog_free(c);
    cr_assert_eq(wgt_write_file(dir, "catalog.json", "[{\"id\":\"x\"}]"), 0);
    cr_assert_eq(wg_catalog_open(&c, dir), WG_EINVAL);
    cr_assert_not_null(strstr(wg_error_last(), "catalog.json"), "%s", wg_error_last());
    free(text);
    wgt_rmtree(dir);
    free(dir);
}

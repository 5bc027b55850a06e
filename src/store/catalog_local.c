/* catalog_local.c - the data dir's own catalog (DATA_DIR/catalog.json),
 * overlaid on the embedded one, and its cached index DATA_DIR/catalog.idx
 * (waggle/catalog.h wg_catalog_open, wg_catalog_import_local).
 *
 * catalog.json is a JSON array in the catalog's format; it is written whole
 * to a temporary file and renamed, so a crash never leaves half a catalog.
 * Parsing, checking and indexing a large one costs hundreds of
 * milliseconds, so the result (entries + index, catalog_blob.c) is cached in
 * catalog.idx, keyed by the hash of catalog.json's bytes and by its size,
 * modification time, inode and device. A load whose stat matches reads the
 * index without reading catalog.json; a stat that differs (or a file changed
 * within RACY_NS of the index being written, when the timestamp cannot be
 * trusted) costs one hash of catalog.json, and a hash that differs rebuilds.
 * The index is validated strictly on every load (catalog_blob.c); anything
 * wrong with it - damaged, truncated, another version, another embedded
 * catalog, forged - means a rebuild from catalog.json, never an error. The
 * cache is best effort: a data dir that cannot be written still works.
 *
 * The index is mapped, not copied, and only when it is a regular file owned
 * by this user that nobody else may write: then nobody but this user (who
 * could as well attach a debugger) can change the pages after they were
 * validated. Otherwise it is rebuilt, and written back with safe modes.
 */
#include "waggle/catalog.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "core/catalog_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCAL_NAME "catalog.json"
#define INDEX_NAME "catalog.idx"
#define LOCAL_MAX  ((size_t)64 << 20)   /* largest catalog.json accepted */
#define RACY_NS    100000000ULL        /* a file this close to its index's writing is re-hashed */

/* Reads a whole regular file of at most max bytes into a new buffer (NUL
 * appended); st receives its fstat. Returns 0, 1 when it does not exist,
 * WG_EINVAL (too large, not a regular file), WG_EIO, WG_ENOMEM. */
static int read_file(char **text, size_t *len, struct stat *st, const char *path, size_t max)
{
    /* Never through a symlink, never blocking on a FIFO (then refused
     * below as not a regular file). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? 1
             : errno == ELOOP ? wg_error_set(WG_EINVAL, "%s: a symbolic link, not a regular file", path)
             : wg_error_set(WG_EIO, "cannot open %s: %s", path, strerror(errno));
    int rc = 0;
    char *buf = NULL;
    if (fstat(fd, st) != 0)
        rc = wg_error_set(WG_EIO, "cannot stat %s: %s", path, strerror(errno));
    else if (!S_ISREG(st->st_mode))
        rc = wg_error_set(WG_EINVAL, "%s: not a regular file", path);
    else if ((uint64_t)st->st_size > max)
        rc = wg_error_set(WG_EINVAL, "%s: larger than %zu MiB", path, max >> 20);
    else if (!(buf = malloc((size_t)st->st_size + 1)))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    size_t n = 0;
    while (rc == 0 && n < (size_t)st->st_size) {
        ssize_t got = read(fd, buf + n, (size_t)st->st_size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)   /* shrank while reading, or failed */
            rc = wg_error_set(WG_EIO, "cannot read %s: %s", path, got ? strerror(errno) : "short read");
        else
            n += (size_t)got;
    }
    close(fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int paths(char **json, char **index, const char *data_dir)
{
    *json = *index = NULL;
    int rc = wg_datadir_path(json, data_dir, LOCAL_NAME);
    if (rc == 0 && (rc = wg_datadir_path(index, data_dir, INDEX_NAME)) < 0) {
        free(*json);
        *json = NULL;
    }
    return rc;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The key of catalog.json as it is now (content hash and stat). */
static uint64_t ns_of(const struct timespec *t)
{
    return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

/* ctime is in the key too: nobody can set it, so an edit that restores
 * the size and mtime is still seen. */
static wg_catblob_source key_of(const char *text, size_t len, const struct stat *st)
{
    uint64_t changed = ns_of(&st->st_mtim) > ns_of(&st->st_ctim) ? ns_of(&st->st_mtim)
                                                                    : ns_of(&st->st_ctim);
    return (wg_catblob_source){
        .hash = wg_catalog__hash(text, len), .size = (uint64_t)st->st_size,
        .mtime_ns = ns_of(&st->st_mtim), .ctime_ns = ns_of(&st->st_ctim),
        .ino = (uint64_t)st->st_ino, .dev = (uint64_t)st->st_dev,
        .racy = changed + RACY_NS >= now_ns(),
    };
}

static int stat_matches(const wg_catblob_source *k, const struct stat *st)
{
    return !k->racy && k->size == (uint64_t)st->st_size && k->mtime_ns == ns_of(&st->st_mtim) &&
           k->ctime_ns == ns_of(&st->st_ctim) && k->ino == (uint64_t)st->st_ino &&
           k->dev == (uint64_t)st->st_dev;
}

/* Writes head (hlen bytes) then data to a temporary file, renamed over path. */
static int write_atomic2(const char *path, const void *head, size_t hlen, const void *data,
                         size_t len)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        return wg_error_set(WG_ENOMEM, "out of memory");
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    /* A private new file, never a link or an old file someone left at the
     * temp name (a stale one of a crashed process is removed first). */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    /* exactly 0600 whatever the process's umask: a library must not change
     * the umask, which every thread of the program shares */
    if (fd >= 0 && fchmod(fd, 0600) != 0) {
        close(fd);
        unlink(tmp);
        fd = -1;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f && fd >= 0)
        close(fd);
    int rc = 0;
    if (!f) {
        rc = wg_error_set(WG_EIO, "cannot write %s: %s", tmp, strerror(errno));
    } else {
        int bad = hlen && fwrite(head, 1, hlen, f) != hlen;
        bad |= len && fwrite(data, 1, len, f) != len;
        bad |= fclose(f) != 0;
        if (bad || rename(tmp, path) != 0) {
            rc = wg_error_set(WG_EIO, "cannot write %s: %s", path, strerror(errno));
            unlink(tmp);
        }
    }
    free(tmp);
    return rc;
}

static int write_atomic(const char *path, const void *data, size_t len)
{
    return write_atomic2(path, NULL, 0, data, len);
}

/* Writes cat's blob with key k as the index; failures are ignored (the next
 * load rebuilds), and so is a catalog.json that changed meanwhile. */
static void cache_store(const wg_catalog *cat, const char *index_path, const wg_catblob_source *k)
{
    size_t hs = wg_catalog__blob_header_size();
    unsigned char hdr[256];
    if (!cat->blob || cat->blob_len < hs || hs > sizeof hdr)
        return;
    memcpy(hdr, cat->blob, hs);
    wg_catalog__blob_set_source(hdr, k);
    int saved = wg_error_last_code();
    char msg[256];
    snprintf(msg, sizeof msg, "%s", wg_error_last());
    /* the index is mapped only when nobody else may write it: 0600 */
    write_atomic2(index_path, hdr, hs, cat->blob + hs, cat->blob_len - hs);
    if (saved)   /* a failed cache write must not replace the caller's message */
        wg_error_set(saved, "%s", msg);
    else
        wg_error_clear();
}

static void unmap(void *p, size_t len)
{
    munmap(p, len);
}

/* Maps the index read-only when it is safe to (see the file comment):
 * 0 with *blob and *len, 1 when it is absent, unsafe or unusable. */
static int map_index(void **blob, size_t *len, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 1;
    struct stat st;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
             !(st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_size > 0 &&
             (uint64_t)st.st_size <= WG_CATBLOB_MAX;
    void *p = ok ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED)
        return 1;
    *blob = p;
    *len = (size_t)st.st_size;
    return 0;
}

/* The cached index when it is valid for catalog.json as it is now: 0 with
 * *out, 1 when it must be rebuilt, WG_ENOMEM. */
static int cache_load(wg_catalog **out, const char *index_path, const char *json_path,
                      const struct stat *st)
{
    void *blob = NULL;
    size_t len = 0;
    if (map_index(&blob, &len, index_path) != 0)
        return 1;
    wg_catblob_source k;
    if (wg_catalog__blob_source(&k, blob, len) < 0) {
        munmap(blob, len);
        return 1;
    }
    int refresh = 0;
    if (!stat_matches(&k, st)) {   /* touched, copied or racy: compare the bytes */
        char *text = NULL;
        size_t tlen = 0;
        struct stat now;
        if (read_file(&text, &tlen, &now, json_path, LOCAL_MAX) != 0) {
            munmap(blob, len);
            return 1;
        }
        wg_catblob_source cur = key_of(text, tlen, &now);
        free(text);
        if (cur.hash != k.hash || cur.size != k.size) {
            munmap(blob, len);
            return 1;
        }
        k = cur;
        refresh = 1;
    }
    int rc = wg_catalog__from_blob(out, blob, len, unmap);
    if (rc == WG_ENOMEM)
        return rc;
    if (rc < 0)
        return 1;
    if (refresh)
        cache_store(*out, index_path, &k);
    return 0;
}

int wg_catalog_open(wg_catalog **out, const char *data_dir)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "catalog: NULL argument");
    if (!data_dir)
        return wg_catalog_open_embedded(out);
    char *path = NULL, *index = NULL, *text = NULL;
    size_t len = 0;
    struct stat st;
    int rc = paths(&path, &index, data_dir);
    if (rc < 0)
        return rc;
    if (stat(path, &st) != 0) {
        rc = errno == ENOENT ? wg_catalog_open_embedded(out)
                             : wg_error_set(WG_EIO, "cannot stat %s: %s", path, strerror(errno));
        goto done;
    }
    if ((rc = cache_load(out, index, path, &st)) != 1)
        goto done;
    if ((rc = read_file(&text, &len, &st, path, LOCAL_MAX)) == 1) {   /* removed meanwhile */
        rc = wg_catalog_open_embedded(out);
        goto done;
    }
    if (rc < 0)
        goto done;
    const char *docs[1] = { text };
    size_t lens[1] = { len };
    const char *origins[1] = { path };
    if ((rc = wg_catalog__build(out, 1, docs, lens, origins, 1)) == 0) {
        wg_catblob_source k = key_of(text, len, &st);
        cache_store(*out, index, &k);
    }
done:
    free(text);
    free(path);
    free(index);
    return rc;
}

int wg_catalog_import_local(size_t *added, const char *data_dir, const json_t *entries)
{
    if (!added || !data_dir || !json_is_array(entries))
        return wg_error_set(WG_EINVAL, "catalog import: expected a data dir and an array of servers");
    char *text = NULL, *path = NULL, *index = NULL;
    size_t len = 0;
    struct stat st;
    int rc = paths(&path, &index, data_dir);
    if (rc == 0 && (rc = read_file(&text, &len, &st, path, LOCAL_MAX)) == 1)
        rc = 0;   /* no local catalog yet */
    json_t *merged = NULL;
    char *merged_text = NULL, *incoming = NULL;
    wg_catalog *check = NULL;
    if (rc < 0)
        goto done;
    json_error_t jerr;
    merged = text ? json_loadb(text, len, 0, &jerr) : json_array();
    if (!json_is_array(merged)) {
        rc = wg_error_set(WG_EINVAL, "%s: not a JSON array of servers", path);
        goto done;
    }
    incoming = json_dumps(entries, JSON_COMPACT);
    if (!incoming) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    /* Check embedded + local + incoming together before writing anything. */
    const char *docs[2] = { text ? text : "[]", incoming };
    size_t lens[2] = { text ? len : 2, strlen(incoming) };
    const char *origins[2] = { path, "imported" };
    if ((rc = wg_catalog__build(&check, 1, docs, lens, origins, 2)) < 0)
        goto done;
    if (json_array_extend(merged, (json_t *)entries) < 0 ||
        !(merged_text = json_dumps(merged, JSON_INDENT(2)))) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto done;
    }
    size_t mlen = strlen(merged_text);
    if ((rc = write_atomic(path, merged_text, mlen)) < 0)
        goto done;
    *added = json_array_size(entries);
    /* The checked catalog is exactly what catalog.json now holds, in order:
     * its blob is the index, so the next load need not rebuild. */
    if (stat(path, &st) == 0) {
        wg_catblob_source k = key_of(merged_text, mlen, &st);
        cache_store(check, index, &k);
    }
done:
    wg_catalog_free(check);
    json_decref(merged);
    free(merged_text);
    free(incoming);
    free(text);
    free(path);
    free(index);
    return rc;
}

/* tree.c - the shared subtrees: files of the data dir on one machine,
 * documents of shared_docs on a shared store (tree.h). */
#include "store/tree.h"
#include "store/files.h"
#include "waggle/error.h"
#include "waggle/time.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PART_MAX = 80, REL_MAX = 200 };

int wg_tree__shared(const wg_store *st)
{
    return st && wg_store_is_shared(st);
}

/* One component: [A-Za-z0-9._-], 1..PART_MAX bytes, no leading '.'. */
static int part_ok(const char *s, size_t n)
{
    if (n == 0 || n > PART_MAX || s[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static int rel_ok(const char *rel)
{
    if (!rel || !*rel || strlen(rel) > REL_MAX)
        return 0;
    for (const char *s = rel;;) {
        const char *slash = strchr(s, '/');
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        if (!part_ok(s, n))
            return 0;
        if (!slash)
            return 1;
        s = slash + 1;
    }
}

static int bad_rel(const char *rel)
{
    return wg_error_set(WG_EINVAL, "a shared file name is components of [A-Za-z0-9._-] "
                        "(1-%d bytes, no leading '.') joined by '/'; got %s", PART_MAX,
                        rel && strlen(rel) <= REL_MAX ? rel : "(too long)");
}

static char *file_of(const char *data_dir, const char *rel)
{
    return wg_files__join(data_dir, rel, NULL);
}

int wg_tree__read(char **out, size_t *len, wg_store *st, const char *data_dir, const char *rel,
                  size_t max)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "wg_tree__read: NULL argument");
    if (!rel_ok(rel))
        return bad_rel(rel);
    if (!wg_tree__shared(st)) {
        if (!data_dir)
            return wg_error_set(WG_EINVAL, "no data dir");
        char *path = file_of(data_dir, rel);
        if (!path)
            return wg_error_set(WG_ENOMEM, "out of memory");
        int rc = wg_files__read(out, len, path, max);
        free(path);
        return rc;
    }
    char *text = NULL;
    size_t n = 0;
    int rc = wg_store_doc_get(&text, &n, st, rel);
    if (rc < 0)
        return rc;
    if (n > max) {
        free(text);
        return wg_error_set(WG_EDENIED, "%s in the shared store is %zu bytes, at most %zu allowed",
                            rel, n, max);
    }
    *out = text;
    if (len)
        *len = n;
    return 0;
}

int wg_tree__exists(wg_store *st, const char *data_dir, const char *rel)
{
    if (!rel_ok(rel))
        return bad_rel(rel);
    if (!wg_tree__shared(st)) {
        char *path = data_dir ? file_of(data_dir, rel) : NULL;
        if (!path)
            return wg_error_set(data_dir ? WG_ENOMEM : WG_EINVAL,
                                data_dir ? "out of memory" : "no data dir");
        struct stat sb;
        int there = lstat(path, &sb) == 0;
        int err = errno;
        free(path);
        if (!there && err != ENOENT && err != ENOTDIR)
            return wg_error_set(WG_EIO, "cannot look at %s: %s", rel, strerror(err));
        return there;
    }
    wg_store_value k = WG_SV_TEXT(rel);
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(st, "SELECT 1 FROM shared_docs WHERE name = ?", &k, 1, &rows, NULL);
    if (rc < 0)
        return rc;
    rc = wg_store_rows_count(rows) > 0;
    wg_store_rows_free(rows);
    return rc;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* mkdir -p of rel's parents below data_dir (0700; existing ones kept). */
static int make_parents(const char *data_dir, const char *rel)
{
    char *path = file_of(data_dir, rel);
    if (!path)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t base = strlen(data_dir);
    int rc = 0;
    if (mkdir(data_dir, 0700) != 0 && errno != EEXIST)
        rc = wg_error_set(WG_EIO, "cannot create %s: %s", data_dir, strerror(errno));
    for (char *s = path + base + 1; rc == 0 && (s = strchr(s, '/')); s++) {
        *s = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            rc = wg_error_set(WG_EIO, "cannot create %s: %s", path, strerror(errno));
        *s = '/';
    }
    free(path);
    return rc;
}

/* Temporary file + fsync, then link() (EEXIST when another writer won),
 * then fsync of the directory: an existing file is never replaced. */
static int create_file(const char *data_dir, const char *rel, const char *body, size_t len)
{
    int rc = make_parents(data_dir, rel);
    if (rc < 0)
        return rc;
    char *final = file_of(data_dir, rel), *tmp = NULL, *dir = final ? strdup(final) : NULL;
    char *base = dir ? strrchr(dir, '/') : NULL;
    if (base)
        *base++ = '\0';
    /* the temporary name starts with '.', which no listing returns */
    if (!base || asprintf(&tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
        free(final);
        free(dir);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = wg_error_set(WG_EIO, "cannot create a file in %s: %s", dir, strerror(errno));
        goto done;
    }
    if (fchmod(fd, 0600) != 0 || write_all(fd, body, len) != 0 || fsync(fd) != 0) {
        rc = wg_error_set(WG_EIO, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    close(fd);
    fd = -1;
    if (link(tmp, final) != 0) {
        rc = errno == EEXIST ? wg_error_set(WG_EEXISTS, "%s already exists", final)
                             : wg_error_set(WG_EIO, "cannot create %s: %s", final, strerror(errno));
        goto done;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
done:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    free(dir);
    free(final);
    return rc;
}

int wg_tree__create(wg_store *st, const char *data_dir, const char *rel, const char *body,
                    size_t len)
{
    if (!body && len)
        return wg_error_set(WG_EINVAL, "wg_tree__create: NULL body");
    if (!rel_ok(rel))
        return bad_rel(rel);
    if (len > WG_STORE_DOC_MAX)
        return wg_error_set(WG_EINVAL, "%s is %zu bytes, at most %u allowed", rel, len,
                            WG_STORE_DOC_MAX);
    if (!wg_tree__shared(st))
        return data_dir ? create_file(data_dir, rel, body ? body : "", len)
                        : wg_error_set(WG_EINVAL, "no data dir");
    wg_store_value p[3] = { WG_SV_TEXT(rel), WG_SV_BLOB(body ? body : "", len),
                            WG_SV_INT(wg_time_now_ms()) };
    int64_t changes = 0;
    int rc = wg_store_exec(st, "INSERT INTO shared_docs (name, body, updated_ms) VALUES (?, ?, ?)"
                           " ON CONFLICT (name) DO NOTHING", p, 3, NULL, &changes);
    if (rc < 0)
        return rc;
    return changes ? 0 : wg_error_set(WG_EEXISTS, "%s already exists in the shared store", rel);
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends a copy of s[0..n) to the growing list; WG_EINVAL past the bound. */
static int push(char ***list, size_t *count, size_t *cap, const char *s, size_t n)
{
    if (*count >= WG_TREE_LIST_MAX)
        return wg_error_set(WG_EINVAL, "more than %d entries to list", WG_TREE_LIST_MAX);
    if (*count + 1 >= *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        char **g = realloc(*list, nc * sizeof *g);
        if (!g)
            return wg_error_set(WG_ENOMEM, "out of memory");
        *list = g;
        *cap = nc;
    }
    if (!((*list)[*count] = strndup(s, n)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    (*list)[++*count] = NULL;
    return 0;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int list_files(char ***list, size_t *count, size_t *cap, const char *data_dir,
                      const char *dir, const char *leaf)
{
    char *path = file_of(data_dir, dir);
    if (!path)
        return wg_error_set(WG_ENOMEM, "out of memory");
    DIR *d = opendir(path);
    if (!d) {
        int rc = errno == ENOENT || errno == ENOTDIR
               ? 0 : wg_error_set(WG_EIO, "cannot read %s: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    int flat = leaf[0] == '.', rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (flat && !ends_with(e->d_name, n, leaf))
            continue;
        size_t stem = flat ? n - strlen(leaf) : n;
        if (part_ok(e->d_name, n) && part_ok(e->d_name, stem))
            rc = push(list, count, cap, e->d_name, stem);
    }
    closedir(d);
    free(path);
    return rc;
}

/* Documents "dir/<stem>.md" or "dir/<child>/leaf", found by one query on
 * the prefix and the ending (substr, never LIKE: '_' means itself). */
static int list_docs(char ***list, size_t *count, size_t *cap, wg_store *st, const char *dir,
                     const char *leaf)
{
    int flat = leaf[0] == '.';
    char prefix[REL_MAX + 2], suffix[PART_MAX + 2];
    snprintf(prefix, sizeof prefix, "%s/", dir);
    snprintf(suffix, sizeof suffix, "%s%s", flat ? "" : "/", leaf);
    size_t pl = strlen(prefix), sl = strlen(suffix);
    wg_store_value p[6] = { WG_SV_INT((int64_t)pl), WG_SV_TEXT(prefix), WG_SV_INT((int64_t)sl),
                            WG_SV_INT((int64_t)sl), WG_SV_TEXT(suffix),
                            WG_SV_INT(WG_TREE_LIST_MAX + 1) };
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(st, "SELECT name FROM shared_docs WHERE substr(name, 1, ?) = ?"
                           " AND length(name) > ? AND substr(name, length(name) - ? + 1) = ?"
                           " ORDER BY name LIMIT ?", p, 6, &rows, NULL);
    if (rc < 0)
        return rc;
    size_t nrows = wg_store_rows_count(rows);
    if (nrows > WG_TREE_LIST_MAX)
        rc = wg_error_set(WG_EINVAL, "more than %d entries under %s in the shared store",
                          WG_TREE_LIST_MAX, prefix);
    for (size_t r = 0; rc == 0 && r < nrows; r++) {
        const char *name = wg_store_rows_text(rows, r, 0);
        size_t n = name ? strlen(name) : 0;
        if (n < pl + sl)
            continue;
        const char *child = name + pl;
        size_t cn = n - pl - sl;
        /* exactly one component between the prefix and the ending */
        if (memchr(child, '/', cn) || !part_ok(child, cn) ||
            (flat && !part_ok(child, cn + sl)))
            continue;
        rc = push(list, count, cap, child, cn);
    }
    wg_store_rows_free(rows);
    return rc;
}

int wg_tree__list(char ***names, size_t *n, wg_store *st, const char *data_dir, const char *dir,
                  const char *leaf)
{
    if (!names || !leaf || !*leaf)
        return wg_error_set(WG_EINVAL, "wg_tree__list: NULL argument");
    if (!rel_ok(dir))
        return bad_rel(dir);
    if (leaf[0] == '.' ? !part_ok(leaf + 1, strlen(leaf + 1)) : !part_ok(leaf, strlen(leaf)))
        return bad_rel(leaf);
    char **list = NULL;
    size_t count = 0, cap = 0;
    int rc;
    if (wg_tree__shared(st))
        rc = list_docs(&list, &count, &cap, st, dir, leaf);
    else
        rc = data_dir ? list_files(&list, &count, &cap, data_dir, dir, leaf)
                      : wg_error_set(WG_EINVAL, "no data dir");
    if (rc == 0 && !list && !(list = calloc(1, sizeof *list)))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc < 0) {
        wg_store_doc_names_free(list);
        return rc;
    }
    qsort(list, count, sizeof *list, by_bytes);
    *names = list;
    if (n)
        *n = count;
    return 0;
}

int wg_tree__begin(wg_store *st)
{
    return wg_tree__shared(st) ? wg_store_begin(st, WG_STORE_TX_WRITE) : 0;
}

int wg_tree__end(wg_store *st, int rc)
{
    if (!wg_tree__shared(st))
        return rc;
    if (rc < 0) {
        int saved = wg_error_last_code();
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wg_error_last());
        wg_store_rollback(st);
        if (saved)
            wg_error_set(saved, "%s", msg);
        return rc;
    }
    return wg_store_commit(st);
}

char *wg_tree__where(const wg_store *st, const char *data_dir, const char *rel)
{
    char *s = NULL;
    if (wg_tree__shared(st) ? asprintf(&s, "the shared store (%s)", rel) < 0
                            : asprintf(&s, "%s/%s", data_dir ? data_dir : ".", rel) < 0)
        return NULL;
    return s;
}

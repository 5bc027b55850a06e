/* obsidian.c - the Obsidian connector: Markdown notes in a local vault
 * directory (reference 1.3 row 13, 1.4; reference 13 item 12).
 *
 * The credential is the vault's absolute path. Every note path is resolved
 * with realpath and must be the vault root itself or lie under "<root>/" -
 * the separator matters: "/home/u/vault-secrets" starts with
 * "/home/u/vault" but is not inside it. Symlinks are resolved before the
 * check, so one pointing out of the vault is refused. Writes go to a temp
 * file in the same directory and are linked (create: fails if the note
 * appeared meanwhile) or renamed (update) into place, so a reader never sees
 * half a note. Directory walks skip dot entries and never follow symlinks.
 */
#include "waggle/connector.h"
#include "waggle/error.h"
#include "connect/specs/specs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sodium.h>

enum {
    MAX_SCAN = 1000,               /* files looked at by a search */
    MAX_NOTE = 10 * 1024 * 1024,   /* bytes read or written per note */
};

static const char traversal_msg[] = "Invalid path \xe2\x80\x94 path traversal not allowed";

static const wg_connector_action actions[] = {
    { "search_notes", "Search notes by name and content",
      JSON({"properties":{"query":{"type":"string"},"limit":{"type":"integer"}},
            "required":["query"]}), WG_RISK_LOW },
    { "get_note", "Read a note",
      JSON({"properties":{"path":{"type":"string","description":"path inside the vault, e.g. Daily/2024-01-01.md"}},
            "required":["path"]}), WG_RISK_LOW },
    { "list_notes", "List notes",
      JSON({"properties":{"folder":{"type":"string"},"limit":{"type":"integer"}}}), WG_RISK_LOW },
    { "create_note", "Create a new note",
      JSON({"properties":{"path":{"type":"string"},"content":{"type":"string"}},
            "required":["path","content"]}), WG_RISK_MEDIUM },
    { "update_note", "Replace the content of an existing note",
      JSON({"properties":{"path":{"type":"string"},"content":{"type":"string"}},
            "required":["path","content"]}), WG_RISK_MEDIUM },
    { "list_folders", "List folders of the vault",
      JSON({"properties":{}}), WG_RISK_LOW },
};

/* ---- confinement ------------------------------------------------------- */

static int inside(const char *root, const char *p)
{
    size_t n = strlen(root);
    return strncmp(p, root, n) == 0 && (p[n] == 0 || p[n] == '/');
}

/* The vault root, resolved. NULL (and *fail) when it is not a directory. */
static char *vault_root(const wg_connector_call *call, json_t **fail)
{
    char *root = realpath(call->creds->token, NULL);
    struct stat st;
    if (!root || stat(root, &st) < 0) {
        *fail = wg_connector_fail("Vault path not accessible");
        free(root);
        return NULL;
    }
    if (!S_ISDIR(st.st_mode)) {
        *fail = wg_connector_fail("Vault path exists but is not a directory");
        free(root);
        return NULL;
    }
    return root;
}

static int bad_rel(const char *rel)
{
    return !rel || !*rel || rel[0] == '/' || strlen(rel) > PATH_MAX / 2;
}

/* realpath of an existing root/rel, confined. NULL with errno ENOENT when
 * missing, EACCES when outside. */
static char *resolve(const char *root, const char *rel)
{
    char *joined = NULL, *real = NULL;
    if (asprintf(&joined, "%s/%s", root, rel) < 0)
        return NULL;
    real = realpath(joined, NULL);
    free(joined);
    if (real && !inside(root, real)) {
        free(real);
        errno = EACCES;
        return NULL;
    }
    return real;
}

/* Creates the parent folders of rel inside root, checking each one. Returns
 * the resolved parent (new) and sets *name to the last component. */
static char *make_parent(const char *root, const char *rel, const char **name, json_t **fail)
{
    char *copy = strdup(rel);
    char *slash = strrchr(copy, '/');
    *name = slash ? rel + (slash - copy) + 1 : rel;
    char *parent = strdup(root);
    if (slash) {
        *slash = 0;
        for (char *seg = copy, *next; seg && parent; seg = next) {
            next = strchr(seg, '/');
            if (next)
                *next++ = 0;
            if (!*seg || !strcmp(seg, "."))
                continue;
            char *step = NULL;
            if (asprintf(&step, "%s/%s", parent, seg) < 0)
                break;
            if (mkdir(step, 0755) < 0 && errno != EEXIST) {
                *fail = wg_connector_fail("Cannot create folder: %s", strerror(errno));
                free(step);
                free(parent);
                parent = NULL;
                break;
            }
            char *real = realpath(step, NULL);
            free(step);
            free(parent);
            parent = NULL;
            struct stat st;
            if (!real || !inside(root, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
                *fail = wg_connector_fail("%s", traversal_msg);
                free(real);
                break;
            }
            parent = real;
        }
    }
    free(copy);
    if (parent && (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))) {
        *fail = wg_connector_fail("%s", traversal_msg);
        free(parent);
        parent = NULL;
    }
    return parent;
}

/* ---- small helpers -------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_NOTE) {
        close(fd);
        return NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (buf)
        buf[got] = 0;
    *len = got;
    return buf;
}

static void iso_time(char *out, size_t n, time_t t)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static json_t *note_name(const char *rel)
{
    const char *b = base_name(rel);
    size_t n = strlen(b);
    if (n > 3 && strcmp(b + n - 3, ".md") == 0)
        n -= 3;
    return json_stringn(b, n);
}

/* Writes content to a temp file in dir, then links (create) or renames
 * (replace) it to name. */
static json_t *atomic_write(const char *dir, const char *name, const char *content, int create,
                            const char *rel)
{
    char *tmp = NULL, *final = NULL;
    json_t *fail = NULL;
    if (asprintf(&tmp, "%s/.waggle-%ld-%d.tmp", dir, (long)getpid(), (int)(randombytes_random() & 0x7fffffff)) < 0 ||
        asprintf(&final, "%s/%s", dir, name) < 0) {
        free(tmp);
        return NULL;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    size_t len = strlen(content), put = 0;
    while (fd >= 0 && put < len) {
        ssize_t n = write(fd, content + put, len - put);
        if (n <= 0)
            break;
        put += (size_t)n;
    }
    if (fd < 0 || put < len || fsync(fd) < 0) {
        fail = wg_connector_fail("Cannot write note: %s", strerror(errno));
    } else if (create && link(tmp, final) < 0) {
        fail = errno == EEXIST ? wg_connector_fail("Note already exists: %s", rel)
                               : wg_connector_fail("Cannot write note: %s", strerror(errno));
    } else if (!create && rename(tmp, final) < 0) {
        fail = wg_connector_fail("Cannot write note: %s", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    if (create || fail)
        unlink(tmp);
    free(tmp);
    free(final);
    return fail;
}

/* ---- directory walk ---------------------------------------------------- */

typedef struct walk {
    const char *root;
    size_t scanned;
    int dirs;                   /* collect folders instead of notes */
    void (*visit)(struct walk *w, const char *rel, const struct stat *st);
    json_t *acc;
    const char *query;          /* search: lowercased query */
    size_t limit;
} walk;

static void walk_dir(walk *w, const char *rel)
{
    char *abs = NULL;
    if (asprintf(&abs, "%s%s%s", w->root, *rel ? "/" : "", rel) < 0)
        return;
    DIR *d = opendir(abs);
    free(abs);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) && w->scanned < MAX_SCAN && json_array_size(w->acc) < w->limit) {
        if (de->d_name[0] == '.')
            continue;
        char *child = NULL, *cabs = NULL;
        struct stat st;
        if (asprintf(&child, "%s%s%s", rel, *rel ? "/" : "", de->d_name) < 0)
            break;
        if (asprintf(&cabs, "%s/%s", w->root, child) < 0 || lstat(cabs, &st) < 0) {
            free(child);
            free(cabs);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (w->dirs)
                w->visit(w, child, &st);
            walk_dir(w, child);
        } else if (S_ISREG(st.st_mode) && !w->dirs) {
            size_t n = strlen(de->d_name);
            if (n > 3 && strcmp(de->d_name + n - 3, ".md") == 0) {
                w->scanned++;
                w->visit(w, child, &st);
            }
        }
        free(child);
        free(cabs);
    }
    closedir(d);
}

static void visit_note(walk *w, const char *rel, const struct stat *st)
{
    char mod[40];
    iso_time(mod, sizeof mod, st->st_mtime);
    json_array_append_new(w->acc, json_pack("{s:s,s:o,s:I,s:s}", "path", rel, "name",
                                            note_name(rel), "size", (json_int_t)st->st_size,
                                            "modified", mod));
}

static void visit_folder(walk *w, const char *rel, const struct stat *st)
{
    (void)st;
    json_array_append_new(w->acc, json_pack("{s:s,s:s}", "name", base_name(rel), "path", rel));
}

static char *lower(const char *s, size_t n)
{
    char *o = malloc(n + 1);
    for (size_t i = 0; o && i < n; i++)
        o[i] = (char)tolower((unsigned char)s[i]);
    if (o)
        o[n] = 0;
    return o;
}

static void visit_search(walk *w, const char *rel, const struct stat *st)
{
    (void)st;
    json_t *name = note_name(rel);
    char *lname = lower(json_string_value(name), strlen(json_string_value(name)));
    char *abs = NULL;
    size_t len = 0;
    char *text = asprintf(&abs, "%s/%s", w->root, rel) < 0 ? NULL : read_file(abs, &len);
    free(abs);
    char *snippet = NULL;
    if (lname && strstr(lname, w->query)) {
        snippet = text ? strndup(text, 200) : strdup("");
    } else if (text) {
        char *ltext = lower(text, len);
        char *hit = ltext ? strstr(ltext, w->query) : NULL;
        if (hit) {
            size_t at = (size_t)(hit - ltext), ql = strlen(w->query);
            size_t from = at > 50 ? at - 50 : 0, to = at + ql + 150 < len ? at + ql + 150 : len;
            if (asprintf(&snippet, "%s%.*s%s", from ? "..." : "", (int)(to - from), text + from,
                         to < len ? "..." : "") < 0)
                snippet = NULL;
        }
        free(ltext);
    }
    if (snippet)
        json_array_append_new(w->acc, json_pack("{s:s,s:O,s:s}", "path", rel, "name", name,
                                                "snippet", snippet));
    free(snippet);
    free(text);
    free(lname);
    json_decref(name);
}

/* ---- actions ------------------------------------------------------------- */

static json_t *act_search(const char *root, const json_t *p)
{
    const char *q = json_string_value(json_object_get(p, "query"));
    json_int_t limit = json_integer_value(json_object_get(p, "limit"));
    char *lq = lower(q, strlen(q));
    walk w = { root, 0, 0, visit_search, json_array(), lq, limit > 0 ? (size_t)limit : 20 };
    walk_dir(&w, "");
    free(lq);
    return wg_connector_ok(json_pack("{s:o,s:I}", "results", w.acc, "total",
                                     (json_int_t)json_array_size(w.acc)));
}

static json_t *act_get(const char *root, const json_t *p)
{
    const char *rel = json_string_value(json_object_get(p, "path"));
    if (bad_rel(rel))
        return wg_connector_fail("%s", traversal_msg);
    char *real = resolve(root, rel);
    if (!real)
        return errno == EACCES ? wg_connector_fail("%s", traversal_msg)
                               : wg_connector_fail("Note not found: %s", rel);
    size_t len = 0;
    struct stat st;
    char *text = stat(real, &st) == 0 ? read_file(real, &len) : NULL;
    free(real);
    if (!text)
        return wg_connector_fail("Note not found: %s", rel);
    char mod[40];
    iso_time(mod, sizeof mod, st.st_mtime);
    json_t *out = wg_connector_ok(json_pack("{s:s,s:o,s:s%,s:I,s:s}", "path", rel, "name",
                                            note_name(rel), "content", text, len, "size",
                                            (json_int_t)len, "modified", mod));
    free(text);
    return out;
}

static json_t *act_list(const char *root, const json_t *p, int folders)
{
    const char *folder = json_string_value(json_object_get(p, "folder"));
    json_int_t limit = json_integer_value(json_object_get(p, "limit"));
    char *start = NULL;
    if (folder && *folder) {
        if (bad_rel(folder))
            return wg_connector_fail("%s", traversal_msg);
        char *real = resolve(root, folder);
        if (!real)
            return errno == EACCES ? wg_connector_fail("%s", traversal_msg)
                                   : wg_connector_fail("Folder not found: %s", folder);
        start = strdup(real + strlen(root) + (real[strlen(root)] == '/'));
        free(real);
    }
    walk w = { root, 0, folders, folders ? visit_folder : visit_note, json_array(), NULL,
               limit > 0 ? (size_t)limit : folders ? 1000 : 100 };
    walk_dir(&w, start ? start : "");
    free(start);
    return wg_connector_ok(json_pack("{s:o,s:I}", folders ? "folders" : "notes", w.acc, "total",
                                     (json_int_t)json_array_size(w.acc)));
}

static json_t *act_write(const char *root, const json_t *p, int create)
{
    const char *rel = json_string_value(json_object_get(p, "path"));
    const char *content = json_string_value(json_object_get(p, "content"));
    if (bad_rel(rel))
        return wg_connector_fail("%s", traversal_msg);
    if (strlen(content) > MAX_NOTE)
        return wg_connector_fail("Note too large (over %d bytes)", MAX_NOTE);
    if (!create) {
        char *real = resolve(root, rel);
        if (!real)
            return errno == EACCES ? wg_connector_fail("%s", traversal_msg)
                                   : wg_connector_fail("Note not found: %s", rel);
        free(real);
    }
    json_t *fail = NULL;
    const char *name;
    char *dir = make_parent(root, rel, &name, &fail);
    if (!dir)
        return fail ? fail : wg_connector_fail("%s", traversal_msg);
    fail = atomic_write(dir, name, content, create, rel);
    free(dir);
    if (fail)
        return fail;
    return wg_connector_ok(json_pack("{s:s,s:o,s:b}", "path", rel, "name", note_name(rel),
                                     create ? "created" : "updated", 1));
}

static json_t *act_list_notes(const char *root, const json_t *p) { return act_list(root, p, 0); }
static json_t *act_list_folders(const char *root, const json_t *p) { return act_list(root, p, 1); }
static json_t *act_create(const char *root, const json_t *p) { return act_write(root, p, 1); }
static json_t *act_update(const char *root, const json_t *p) { return act_write(root, p, 0); }

static const struct {
    const char *name;
    json_t *(*fn)(const char *root, const json_t *params);
} handlers[] = {
    { "search_notes", act_search },
    { "get_note", act_get },
    { "list_notes", act_list_notes },
    { "create_note", act_create },
    { "update_note", act_update },
    { "list_folders", act_list_folders },
};

static int obs_execute(json_t **out, const wg_connector_call *call,
                       const wg_connector_action *action, const json_t *params)
{
    json_t *fail = NULL;
    char *root = vault_root(call, &fail);
    if (!root) {
        *out = fail;
        return *out ? 0 : WG_ENOMEM;
    }
    *out = NULL;
    for (size_t i = 0; i < COUNT(handlers); i++)
        if (strcmp(handlers[i].name, action->name) == 0)
            *out = handlers[i].fn(root, params);
    if (!*out)
        *out = wg_connector_fail("Unknown action: %s", action->name);
    free(root);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int obs_health(char **error, const wg_connector_call *call)
{
    json_t *fail = NULL;
    char *root = vault_root(call, &fail);
    if (root && access(root, R_OK) == 0) {
        free(root);
        return 0;
    }
    free(root);
    const char *e = json_string_value(json_object_get(fail, "error"));
    *error = strdup(e ? e : "Vault path not readable");
    json_decref(fail);
    return WG_EUPSTREAM;
}

static const wg_connector_ops ops = { obs_execute, obs_health };

const wg_connector_spec wg_spec_obsidian = {
    .id = "obsidian",
    .name = "Obsidian",
    .description = "Search, read and write Markdown notes in a local Obsidian vault",
    .service = "local",
    .auth_type = WG_AUTH_API_KEY,
    .category = "productivity",
    .logo_slug = "obsidian",
    .setup_guide = "Give the absolute path of your vault folder (the one that holds .obsidian/).",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &ops,
};

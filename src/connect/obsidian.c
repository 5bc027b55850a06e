/* obsidian.c - the Obsidian connector: Markdown notes in a local vault
 * directory (reference 1.3 row 13, 1.4; reference 13 item 12; issue 11).
 *
 * The credential is the vault's absolute path, and a path is the
 * operator's to allow (docs/security.md 2.1): the vault must be a directory
 * the operator connected itself (CLI, admin token: credential metadata
 * setBy "operator"), or lie under one of the operator's roots
 * (wg_connect_grants.obsidian_roots, waggle serve --obsidian-root). The
 * file system root, the data dir, anything inside it and its parents are
 * never a vault, whoever asks. Checked on connect and again on every call.
 *
 * Every note path is resolved with realpath and must be the vault root
 * itself or lie under "<root>/" - the separator matters:
 * "/home/u/vault-secrets" starts with "/home/u/vault" but is not inside it.
 * Symlinks are resolved before the check, so one pointing out of the vault
 * is refused. No component of a note path, as given or as resolved, may
 * start with '.' (no "..", no .obsidian/ - plugins there are code Obsidian
 * runs -, no .git/, .ssh/, .env), and files named like credentials (keys,
 * tokens, keystores) are never read or written. A note that is not text
 * (NUL bytes, invalid UTF-8) is an error, not an empty success. Writes go to
 * a temp file in the same directory and are linked (create: fails if the
 * note appeared meanwhile) or renamed (update) into place, so a reader never
 * sees half a note. Directory walks skip dot entries and never follow
 * symlinks.
 */
#include "waggle/connector.h"
#include "waggle/error.h"
#include "connect/paths.h"
#include "connect/specs/specs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sodium.h>

enum {
    MAX_SCAN = 1000,               /* files looked at by a search */
    MAX_NOTE = 10 * 1024 * 1024,   /* bytes read or written per note */
};

static const char traversal_msg[] = "Invalid path \xe2\x80\x94 path traversal not allowed";
static const char hidden_msg[] =
    "Invalid path \xe2\x80\x94 hidden files and folders (starting with '.') are not served";
static const char secret_msg[] =
    "Invalid path \xe2\x80\x94 files named like credentials (keys, tokens) are not served";

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

static int inside(const char *root, const char *p) { return wg_paths__inside(root, p); }

/* Is dir one of the operator's roots or under one? */
static int granted(const char *dir, const wg_connect_grants *g)
{
    for (size_t i = 0; g && g->obsidian_roots && g->obsidian_roots[i]; i++)
        if (inside(g->obsidian_roots[i], dir))
            return 1;
    return 0;
}

/* The vault root, resolved and allowed. NULL when it is not: *fail is the
 * result to give and *code the error for connect (WG_EINVAL: not a
 * directory; WG_EDENIED: not the operator's to serve). Messages never
 * quote the path (it came from a request body). */
static char *vault_root(const wg_connector_call *call, json_t **fail, int *code)
{
    char *root = realpath(call->creds->token, NULL);
    struct stat st;
    const char *msg = NULL;
    *code = WG_EINVAL;
    if (!root || stat(root, &st) < 0) {
        msg = "Vault path not accessible";
    } else if (!S_ISDIR(st.st_mode)) {
        msg = "Vault path exists but is not a directory";
    } else {
        const wg_connect_grants *g = call->grants;
        const char *why = wg_paths__forbidden_root(root, g ? g->data_dir : NULL);
        *code = WG_EDENIED;
        if (why) {
            *fail = wg_connector_fail("Vault path is %s: never served as a vault", why);
            free(root);
            return NULL;
        }
        if (call->creds->token_by != WG_PRINCIPAL_OPERATOR && !granted(root, g))
            msg = "Vault path is not under a root the operator allows (waggle serve "
                  "--obsidian-root DIR), and the operator did not connect it";
    }
    if (msg) {
        *fail = wg_connector_fail("%s", msg);
        free(root);
        return NULL;
    }
    return root;
}

/* Names never read or written, whatever the folder: keys, keystores and the
 * files waggle itself keeps its secrets in (compared case-insensitively). */
static const char *const secret_names[] = {
    "admin-token", "api-token", "vault.key", "waggle.db", "id_rsa", "id_dsa", "id_ecdsa",
    "id_ed25519", "credentials", "credentials.json", "authorized_keys", "known_hosts",
    "shadow", "netrc", "pgpass",
};
static const char *const secret_suffixes[] = {
    ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk", ".gpg",
    ".db", ".sqlite", ".sqlite3", ".token",
};

static int secret_name(const char *name, size_t n)
{
    for (size_t i = 0; i < COUNT(secret_names); i++)
        if (strlen(secret_names[i]) == n && strncasecmp(name, secret_names[i], n) == 0)
            return 1;
    for (size_t i = 0; i < COUNT(secret_suffixes); i++) {
        size_t k = strlen(secret_suffixes[i]);
        if (n > k && strncasecmp(name + n - k, secret_suffixes[i], k) == 0)
            return 1;
    }
    return 0;
}

/* NULL when every '/'-separated component of rel may be served; else the
 * message. Empty components ("a//b") are harmless and skipped. */
static const char *components_msg(const char *rel)
{
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return traversal_msg;
        if (n && p[0] == '.')
            return hidden_msg;          /* ".obsidian", ".git", ".ssh", ".env" */
        if (n && secret_name(p, n))
            return secret_msg;
        p += n;
        while (*p == '/')
            p++;
    }
    return NULL;
}

/* A note path as given by the agent: NULL when acceptable, else the
 * message. Relative, bounded, no control characters, no hidden or
 * credential-named component. */
static const char *rel_msg(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/' || strlen(rel) > PATH_MAX / 2)
        return traversal_msg;
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return traversal_msg;
    return components_msg(rel);
}

/* realpath of an existing root/rel, confined: inside the root and, as
 * resolved, still free of hidden or credential-named components (a symlink
 * inside the vault may point at .obsidian/). NULL with errno ENOENT when
 * missing, EACCES when refused (*msg says why). */
static char *resolve(const char *root, const char *rel, const char **msg)
{
    char *joined = NULL, *real = NULL;
    *msg = traversal_msg;
    if (asprintf(&joined, "%s/%s", root, rel) < 0)
        return NULL;
    real = realpath(joined, NULL);
    free(joined);
    if (real && !inside(root, real)) {
        free(real);
        errno = EACCES;
        return NULL;
    }
    const char *m = real ? components_msg(real + strlen(root)) : NULL;
    if (m) {
        *msg = m;
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
            const char *hidden = real && inside(root, real) ? components_msg(real + strlen(root))
                                                            : NULL;
            if (!real || !inside(root, real) || hidden || stat(real, &st) < 0 ||
                !S_ISDIR(st.st_mode)) {
                *fail = wg_connector_fail("%s", hidden ? hidden : traversal_msg);
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

/* i moved back to the first byte of a UTF-8 sequence: a snippet cut never
 * splits a character (JSON would refuse the snippet). i <= len of s. */
static size_t utf8_floor(const char *s, size_t i)
{
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i--;
    return i;
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
        snippet = text ? strndup(text, len > 200 ? utf8_floor(text, 200) : len) : strdup("");
    } else if (text) {
        char *ltext = lower(text, len);
        char *hit = ltext ? strstr(ltext, w->query) : NULL;
        if (hit) {
            size_t at = (size_t)(hit - ltext), ql = strlen(w->query);
            size_t from = utf8_floor(text, at > 50 ? at - 50 : 0);
            size_t to = at + ql + 150 < len ? utf8_floor(text, at + ql + 150) : len;
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
    const char *msg = rel_msg(rel);
    if (msg)
        return wg_connector_fail("%s", msg);
    char *real = resolve(root, rel, &msg);
    if (!real)
        return errno == EACCES ? wg_connector_fail("%s", msg)
                               : wg_connector_fail("Note not found: %s", rel);
    size_t len = 0;
    struct stat st;
    char *text = stat(real, &st) == 0 ? read_file(real, &len) : NULL;
    free(real);
    if (!text)
        return wg_connector_fail("Note not found: %s", rel);
    /* JSON carries text: a note with NUL bytes or invalid UTF-8 (an image,
     * a PDF) is refused by name, never turned into an empty success */
    json_t *content = memchr(text, 0, len) ? NULL : json_stringn(text, len);
    free(text);
    if (!content)
        return wg_connector_fail("Note is not text (binary content or invalid UTF-8): %s", rel);
    char mod[40];
    iso_time(mod, sizeof mod, st.st_mtime);
    json_t *data = json_pack("{s:s,s:o,s:o,s:I,s:s}", "path", rel, "name", note_name(rel),
                             "content", content, "size", (json_int_t)len, "modified", mod);
    return data ? wg_connector_ok(data) : NULL;
}

static json_t *act_list(const char *root, const json_t *p, int folders)
{
    const char *folder = json_string_value(json_object_get(p, "folder"));
    json_int_t limit = json_integer_value(json_object_get(p, "limit"));
    char *start = NULL;
    if (folder && *folder) {
        const char *msg = rel_msg(folder);
        if (msg)
            return wg_connector_fail("%s", msg);
        char *real = resolve(root, folder, &msg);
        if (!real)
            return errno == EACCES ? wg_connector_fail("%s", msg)
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
    const char *msg = rel_msg(rel);
    if (msg)
        return wg_connector_fail("%s", msg);
    if (strlen(content) > MAX_NOTE)
        return wg_connector_fail("Note too large (over %d bytes)", MAX_NOTE);
    if (!create) {
        char *real = resolve(root, rel, &msg);
        if (!real)
            return errno == EACCES ? wg_connector_fail("%s", msg)
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
    int code;
    char *root = vault_root(call, &fail, &code);
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
    int code;
    char *root = vault_root(call, &fail, &code);
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

/* On connect: the same root rules, before anything is stored. */
static int obs_validate(const wg_connector_call *call)
{
    json_t *fail = NULL;
    int code;
    char *root = vault_root(call, &fail, &code);
    if (root) {
        free(root);
        return 0;
    }
    const char *e = json_string_value(json_object_get(fail, "error"));
    int rc = wg_error_set(code, "%s", e ? e : "Vault path refused");
    json_decref(fail);
    return rc;
}

static const wg_connector_ops ops = { obs_execute, obs_health, obs_validate };

const wg_connector_spec wg_spec_obsidian = {
    .version = WG_CONNECTOR_SPEC_VERSION,
    .id = "obsidian",
    .name = "Obsidian",
    .description = "Search, read and write Markdown notes in a local Obsidian vault",
    .service = "local",
    .auth_type = WG_AUTH_API_KEY,
    .category = "productivity",
    .logo_slug = "obsidian",
    .setup_guide = "Give the absolute path of your vault folder (the one that holds .obsidian/). "
                   "It must lie under a folder the operator allows (waggle serve "
                   "--obsidian-root DIR), or be connected from the CLI.",
    .actions = actions,
    .n_actions = COUNT(actions),
    .ops = &ops,
};

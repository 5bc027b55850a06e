/* skills.c - skill front matter, skill names, skill sets built from memory,
 * and install validation (spec 3.3; original-facts 3.3-3.4).
 * No I/O here: reading directories and installing live in
 * src/store/skills_store.c. */
#include "waggle/skills.h"
#include "waggle/error.h"
#include "core/skills_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- front matter ------------------------------------------------------ */

void wg_skill_meta_clear(wg_skill_meta *m)
{
    if (!m)
        return;
    free(m->name);
    free(m->description);
    memset(m, 0, sizeof *m);
}

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static const char *trim_end(const char *start, const char *end)
{
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    return end;
}

/* A scalar value without surrounding quotes. New string or NULL. */
static char *scalar(const char *v, const char *end)
{
    v = skip_blank(v, end);
    end = trim_end(v, end);
    if (end - v >= 2 && ((*v == '"' && end[-1] == '"') || (*v == '\'' && end[-1] == '\''))) {
        v++;
        end--;
    }
    return strndup(v, (size_t)(end - v));
}

static int is_true(const char *v, const char *end)
{
    v = skip_blank(v, end);
    end = trim_end(v, end);
    size_t n = (size_t)(end - v);
    return (n == 4 && strncmp(v, "true", 4) == 0) || (n == 3 && strncmp(v, "yes", 3) == 0);
}

static void set_perm(wg_permission_set *set, const char *k, size_t n, int on)
{
    char key[32];
    if (n == 0 || n >= sizeof key)
        return;
    memcpy(key, k, n);
    key[n] = '\0';
    wg_permission p;
    /* An unknown key is ignored: the heuristics still run over the body,
     * so a typo cannot lower the risk below what the text shows. */
    if (wg_permission_parse(&p, key) == 0)
        set->perms[p] = on;
    wg_error_clear();
}

/* `[network, fileSystem]` */
static void inline_list(wg_permission_set *set, const char *v, const char *end)
{
    v = skip_blank(v, end);
    if (v >= end || *v != '[')
        return;
    v++;
    while (v < end && *v != ']') {
        v = skip_blank(v, end);
        const char *k = v;
        while (v < end && *v != ',' && *v != ']' && *v != ' ')
            v++;
        const char *kk = k, *ke = v;
        if (ke - kk >= 2 && (*kk == '"' || *kk == '\'')) {
            kk++;
            ke--;
        }
        set_perm(set, kk, (size_t)(ke - kk), 1);
        v = skip_blank(v, end);
        if (v < end && *v == ',')
            v++;
    }
}

int wg_skill_meta_parse(wg_skill_meta *out, const char *content)
{
    memset(out, 0, sizeof *out);
    if (!content || strncmp(content, "---", 3) != 0)
        return 0;
    const char *p = content + 3;
    p += strspn(p, " \t\r");
    if (*p != '\n')
        return 0;   /* "----" or "--- title": a rule, not front matter */
    p++;
    int in_perms = 0;
    while (*p) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *next = eol ? eol + 1 : end;
        if (strncmp(p, "---", 3) == 0 && trim_end(p, end) == p + 3) {
            out->body_offset = (size_t)(next - content);
            return 0;
        }
        int indented = (*p == ' ' || *p == '\t');
        const char *k = skip_blank(p, end);
        const char *colon = memchr(k, ':', (size_t)(end - k));
        if (colon && k < colon && *k != '#') {
            size_t kn = (size_t)(trim_end(k, colon) - k);
            const char *v = colon + 1;
            if (indented && in_perms) {
                set_perm(&out->permissions, k, kn, is_true(v, end));
            } else if (!indented) {
                in_perms = 0;
                if (kn == 4 && strncmp(k, "name", 4) == 0 && !out->name) {
                    if (!(out->name = scalar(v, end)))
                        goto nomem;
                } else if (kn == 11 && strncmp(k, "description", 11) == 0 && !out->description) {
                    if (!(out->description = scalar(v, end)))
                        goto nomem;
                } else if (kn == 11 && strncmp(k, "permissions", 11) == 0) {
                    out->permissions.present = 1;
                    in_perms = 1;
                    inline_list(&out->permissions, v, end);
                }
            }
        }
        p = next;
    }
    wg_skill_meta_clear(out);
    return wg_error_set(WG_EINVAL, "front matter opened with --- but never closed");
nomem:
    wg_skill_meta_clear(out);
    return wg_error_set(WG_ENOMEM, "out of memory");
}

/* ---- names ------------------------------------------------------------ */

int wg_skill_name_check(const char *name)
{
    if (!name || !*name)
        return wg_error_set(WG_EINVAL, "Invalid capability name: empty");
    size_t n = strlen(name);
    if (n > WG_SKILL_NAME_MAX || strstr(name, "..") || strchr(name, '/') || strchr(name, '\\'))
        return wg_error_set(WG_EINVAL, "Invalid capability name.");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '-' && c != '_' && c != '.')))
            return wg_error_set(WG_EINVAL, "Invalid capability name.");
    }
    return 0;
}

/* ---- skill sets --------------------------------------------------------- */

void wg_skillset_free(wg_skillset *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free((char *)s->items[i].name);
        free((char *)s->items[i].content);
        free((char *)s->items[i].description);
    }
    free(s->items);
    free(s->dir);
    free(s);
}

int wg_skillset__new(wg_skillset **out, const char *dir)
{
    wg_skillset *s = calloc(1, sizeof *s);
    if (!s || (dir && !(s->dir = strdup(dir)))) {
        free(s);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    *out = s;
    return 0;
}

/* First non-empty Markdown line with leading '#'s and blanks stripped. */
static char *first_line(const char *body)
{
    const char *p = body;
    while (*p) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *s = p;
        while (s < end && (*s == '#' || *s == ' ' || *s == '\t'))
            s++;
        const char *e = trim_end(s, end);
        if (e > s)
            return strndup(s, (size_t)(e - s));
        if (!eol)
            break;
        p = eol + 1;
    }
    return NULL;
}

int wg_skillset__add(wg_skillset *s, const char *name, const char *data, size_t len)
{
    char *content = strndup(data, len);
    char *nm = strdup(name);
    wg_skill_meta meta;
    int rc = 0;
    if (!content || !nm) {
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto fail;
    }
    /* A skill whose front matter never closes is still a skill: its text
     * is scanned as is and it declares nothing. */
    if (wg_skill_meta_parse(&meta, content) == WG_ENOMEM) {
        rc = WG_ENOMEM;
        goto fail;
    }
    wg_error_clear();
    char *desc = meta.description ? strdup(meta.description) : first_line(content + meta.body_offset);
    if (!desc && asprintf(&desc, "Skill \"%s\"", name) < 0)
        desc = NULL;
    wg_skill *grown = desc ? realloc(s->items, (s->count + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(desc);
        wg_skill_meta_clear(&meta);
        rc = wg_error_set(WG_ENOMEM, "out of memory");
        goto fail;
    }
    s->items = grown;
    s->items[s->count++] = (wg_skill){ nm, content, len, desc, meta.permissions };
    wg_skill_meta_clear(&meta);
    return 0;
fail:
    free(content);
    free(nm);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const wg_skill *)a)->name, ((const wg_skill *)b)->name);
}

void wg_skillset__sort(wg_skillset *s)
{
    if (s->count > 1)
        qsort(s->items, s->count, sizeof *s->items, by_name);
}

size_t wg_skillset_count(const wg_skillset *s)
{
    return s ? s->count : 0;
}

const wg_skill *wg_skillset_get(const wg_skillset *s, size_t i)
{
    return s && i < s->count ? &s->items[i] : NULL;
}

const wg_skill *wg_skillset_find(const wg_skillset *s, const char *name)
{
    for (size_t i = 0; s && name && i < s->count; i++)
        if (strcmp(s->items[i].name, name) == 0)
            return &s->items[i];
    return NULL;
}

const char *wg_skillset_dir(const wg_skillset *s)
{
    return s ? s->dir : NULL;
}

/* ---- validateInstallCandidate -------------------------------------------- */

int wg_skills_validate_install(const wg_skill **starter_out, const wg_skillset *starter,
                               const wg_skillset *installed, const char *name,
                               const char *source)
{
    int rc = wg_skill_name_check(name);
    if (rc < 0)
        return rc;
    if (!source || strcmp(source, WG_SKILLS_STARTER_SOURCE) != 0)
        return wg_error_set(WG_EUNSUPPORTED, "Source \"%s\" is not supported for installation. "
                            "Only \"starter-pack\" skills can be installed.",
                            source ? source : "");
    const wg_skill *sk = wg_skillset_find(starter, name);
    if (!sk)
        return wg_error_set(WG_ENOTFOUND, "Skill \"%s\" not found in the starter pack.", name);
    if (wg_skillset_find(installed, name))
        return wg_error_set(WG_EEXISTS, "Skill \"%s\" is already installed and active.", name);
    if (starter_out)
        *starter_out = sk;
    return 0;
}

/* tree_import.c - the strict pack.json parser and the one-time import of a
 * data dir's skills, marketplace packs and plugin manifests into a shared
 * store (tree.h). The files are read through the same tree functions with
 * no store, so what is imported is exactly what this machine would load. */
#include "store/tree.h"
#include "waggle/error.h"
#include "waggle/marketplace.h"
#include "waggle/plugins.h"
#include "waggle/skills.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wg_tree__pack_parse(json_t **out, const char *text, size_t len, const char *name)
{
    if (!out || !text || !name)
        return wg_error_set(WG_EINVAL, "wg_tree__pack_parse: NULL argument");
    if (len > WG_PACK_MANIFEST_MAX)
        return wg_error_set(WG_EINVAL, "pack %s: pack.json is %zu bytes, at most %d allowed", name,
                            len, WG_PACK_MANIFEST_MAX);
    json_error_t err;
    json_t *p = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!json_is_object(p)) {
        json_decref(p);
        /* the position, never the text: jansson's message may quote it */
        return wg_error_set(WG_EINVAL, "pack %s: pack.json is not one JSON object (line %d, "
                            "column %d)", name, err.line, err.column);
    }
    int rc = 0;
    const char *key;
    json_t *v;
    json_object_foreach(p, key, v) {
        if (strcmp(key, "skills") == 0 || !(json_is_object(v) || json_is_array(v)))
            continue;
        rc = wg_error_set(WG_EINVAL, "pack %s: pack.json has a nested field; only \"skills\" "
                          "may be an array, and of names", name);
        break;
    }
    json_t *skills = json_object_get(p, "skills");
    size_t n = json_array_size(skills);
    if (rc == 0 && (!json_is_array(skills) || n == 0 || n > WG_MARKETPLACE_SKILLS_MAX))
        rc = wg_error_set(WG_EINVAL, "pack %s: \"skills\" must list 1-%d skill names", name,
                          WG_MARKETPLACE_SKILLS_MAX);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *s = json_string_value(json_array_get(skills, i));
        if (!s || wg_skill_name_check(s) < 0) {
            rc = wg_error_set(WG_EINVAL, "pack %s: skill %zu is not a skill name", name, i + 1);
            break;
        }
        for (size_t j = 0; j < i && rc == 0; j++)
            if (strcmp(s, json_string_value(json_array_get(skills, j))) == 0)
                rc = wg_error_set(WG_EINVAL, "pack %s: skill %s is listed twice", name, s);
    }
    json_t *d = json_object_get(p, "description");
    if (rc == 0 && d && !json_is_null(d) &&
        (!json_is_string(d) || json_string_length(d) > WG_MARKETPLACE_DESCRIPTION_MAX))
        rc = wg_error_set(WG_EINVAL, "pack %s: \"description\" must be a string of at most %d "
                          "characters", name, WG_MARKETPLACE_DESCRIPTION_MAX);
    if (rc == 0 && json_object_set_new(p, "name", json_string(name)) < 0)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc < 0) {
        json_decref(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* ---- import ----------------------------------------------------------------------- */

void wg_tree__refuse(wg_tree_import *rep, const char *fmt, ...)
{
    if (!rep->refused++) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rep->first_refusal, sizeof rep->first_refusal, fmt, ap);
        va_end(ap);
    }
    wg_error_clear();
}

/* A local file that cannot be used is a refusal; memory is an error. */
static int local_read(char **out, size_t *len, wg_tree_import *rep, const char *dir,
                      const char *rel, size_t max)
{
    int rc = wg_tree__read(out, len, NULL, dir, rel, max);
    if (rc == WG_ENOMEM || rc == 0)
        return rc;
    wg_tree__refuse(rep, "%s: %s", rel, rc == WG_EDENIED ? "a symlink, not a regular file, or larger "
                                                   "than allowed" : wg_error_last());
    return 1;
}

static int put(wg_tree_import *rep, wg_store *st, const char *rel, const char *text, size_t len)
{
    int rc = wg_tree__create(st, NULL, rel, text, len);
    if (rc == 0)
        rep->imported++;
    else if (rc == WG_EEXISTS)
        rep->present++;
    else if (rc == WG_EINVAL)
        wg_tree__refuse(rep, "%s: %s", rel, wg_error_last());
    else
        return rc;
    wg_error_clear();
    return 0;
}

static int import_skills(wg_tree_import *rep, wg_store *st, const char *dir)
{
    char **names = NULL;
    size_t n = 0;
    int rc = wg_tree__list(&names, &n, NULL, dir, "skills", ".md");
    if (rc < 0) {
        wg_tree__refuse(rep, "skills: %s", wg_error_last());
        return rc == WG_ENOMEM ? rc : 0;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char rel[128], *text = NULL;
        size_t len = 0;
        snprintf(rel, sizeof rel, "skills/%s.md", names[i]);
        if (wg_skill_name_check(names[i]) < 0) {
            wg_tree__refuse(rep, "%s: not a skill name", rel);
            continue;
        }
        if ((rc = local_read(&text, &len, rep, dir, rel, WG_SKILL_MAX_BYTES)) == 0)
            rc = put(rep, st, rel, text, len);
        rc = rc == 1 ? 0 : rc;
        free(text);
    }
    wg_store_doc_names_free(names);
    return rc;
}

static int import_plugins(wg_tree_import *rep, wg_store *st, const char *dir)
{
    char **names = NULL;
    size_t n = 0;
    int rc = wg_tree__list(&names, &n, NULL, dir, "plugins", "plugin.json");
    if (rc < 0) {
        wg_tree__refuse(rep, "plugins: %s", wg_error_last());
        return rc == WG_ENOMEM ? rc : 0;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char rel[128], *text = NULL;
        size_t len = 0;
        snprintf(rel, sizeof rel, "plugins/%s/plugin.json", names[i]);
        if ((rc = local_read(&text, &len, rep, dir, rel, WG_PLUGIN_MAX_BYTES)) == 0) {
            wg_plugin p;
            if (wg_plugin_parse(&p, text, len, names[i]) == 0) {
                wg_plugin_clear(&p);
                rc = put(rep, st, rel, text, len);
            } else {
                wg_tree__refuse(rep, "%s: %s", rel, wg_error_last());
            }
        }
        rc = rc == 1 ? 0 : rc;
        free(text);
    }
    wg_store_doc_names_free(names);
    return rc;
}

/* Custom personas (personas/<id>.json, JSON objects): moved to the store
 * in migration 5 without an import; the same once-only copy here. */
enum { PERSONA_MAX = 256 * 1024 };

static int import_personas(wg_tree_import *rep, wg_store *st, const char *dir)
{
    char **names = NULL;
    size_t n = 0;
    int rc = wg_tree__list(&names, &n, NULL, dir, "personas", ".json");
    if (rc < 0) {
        wg_tree__refuse(rep, "personas: %s", wg_error_last());
        return rc == WG_ENOMEM ? rc : 0;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char rel[128], *text = NULL;
        size_t len = 0;
        snprintf(rel, sizeof rel, "personas/%s.json", names[i]);
        if ((rc = local_read(&text, &len, rep, dir, rel, PERSONA_MAX)) == 0) {
            json_t *p = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
            if (json_is_object(p))
                rc = put(rep, st, rel, text, len);
            else
                wg_tree__refuse(rep, "%s: not a JSON object", rel);
            json_decref(p);
        }
        rc = rc == 1 ? 0 : rc;
        free(text);
    }
    wg_store_doc_names_free(names);
    return rc;
}

/* The pack's manifest: its pack.json, or one made from its <skill>.md
 * files. 0 with *out, 1 refused, or an error. */
static int local_pack(json_t **out, wg_tree_import *rep, const char *dir, const char *pack)
{
    char rel[128], *text = NULL;
    size_t len = 0;
    snprintf(rel, sizeof rel, "marketplace/%s/pack.json", pack);
    int rc = wg_tree__read(&text, &len, NULL, dir, rel, WG_PACK_MANIFEST_MAX);
    if (rc == 0) {
        rc = wg_tree__pack_parse(out, text, len, pack);
        free(text);
        if (rc == WG_ENOMEM)
            return rc;
        if (rc < 0)
            wg_tree__refuse(rep, "%s: %s", rel, wg_error_last());
        return rc < 0 ? 1 : 0;
    }
    if (rc != WG_ENOTFOUND) {
        if (rc == WG_ENOMEM)
            return rc;
        wg_tree__refuse(rep, "%s: unreadable, a symlink, or larger than %d bytes", rel,
               WG_PACK_MANIFEST_MAX);
        return 1;
    }
    wg_error_clear();
    snprintf(rel, sizeof rel, "marketplace/%s", pack);
    char **names = NULL;
    size_t n = 0;
    if ((rc = wg_tree__list(&names, &n, NULL, dir, rel, ".md")) < 0) {
        if (rc == WG_ENOMEM)
            return rc;
        wg_tree__refuse(rep, "%s: %s", rel, wg_error_last());
        return 1;
    }
    json_t *skills = json_array();
    for (size_t i = 0; skills && i < n; i++)
        json_array_append_new(skills, json_string(names[i]));
    wg_store_doc_names_free(names);
    json_t *m = json_pack("{s:s,s:s,s:o}", "name", pack, "description", "", "skills", skills);
    char *mt = m ? json_dumps(m, JSON_COMPACT) : NULL;
    json_decref(m);
    if (!mt)
        return wg_error_set(WG_ENOMEM, "out of memory");
    /* the same checks as a written pack.json: a pack of 0 or too many skills is refused */
    rc = wg_tree__pack_parse(out, mt, strlen(mt), pack);
    free(mt);
    if (rc == WG_ENOMEM)
        return rc;
    if (rc < 0)
        wg_tree__refuse(rep, "%s: %s", rel, wg_error_last());
    return rc < 0 ? 1 : 0;
}

/* One pack, whole or not at all: every file read and bounded first, then
 * its skills and its manifest in one transaction. */
static int import_pack(wg_tree_import *rep, wg_store *st, const char *dir, const char *pack)
{
    char mrel[128];
    snprintf(mrel, sizeof mrel, "marketplace/%s/pack.json", pack);
    int rc = wg_tree__exists(st, NULL, mrel);
    if (rc != 0) {
        rep->present += rc > 0;
        return rc > 0 ? 0 : rc;
    }
    json_t *m = NULL;
    if ((rc = local_pack(&m, rep, dir, pack)) != 0)
        return rc == 1 ? 0 : rc;
    json_t *skills = json_object_get(m, "skills");
    size_t n = json_array_size(skills), total = 0;
    char *texts[WG_MARKETPLACE_SKILLS_MAX] = { 0 };
    size_t lens[WG_MARKETPLACE_SKILLS_MAX] = { 0 };
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char rel[200];
        snprintf(rel, sizeof rel, "marketplace/%s/%s.md", pack,
                 json_string_value(json_array_get(skills, i)));
        rc = local_read(&texts[i], &lens[i], rep, dir, rel, WG_MARKETPLACE_SKILL_BYTES);
        total += lens[i];
        if (rc == 0 && total > WG_PACK_BYTES_MAX) {
            wg_tree__refuse(rep, "marketplace/%s: its skills are more than %u bytes together", pack,
                   WG_PACK_BYTES_MAX);
            rc = 1;
        }
    }
    char *mt = rc == 0 ? json_dumps(m, JSON_INDENT(2)) : NULL;
    if (rc == 0 && !mt)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0 && (rc = wg_tree__begin(st)) == 0) {
        size_t before = rep->imported;
        for (size_t i = 0; rc == 0 && i < n; i++) {
            char rel[200];
            snprintf(rel, sizeof rel, "marketplace/%s/%s.md", pack,
                     json_string_value(json_array_get(skills, i)));
            rc = wg_tree__create(st, NULL, rel, texts[i], lens[i]);
            if (rc == WG_EEXISTS) {   /* a skill file left without its manifest: keep it */
                wg_error_clear();
                rc = 0;
            }
        }
        if (rc == 0)
            rc = wg_tree__create(st, NULL, mrel, mt, strlen(mt));
        if (rc == WG_EEXISTS) {   /* another replica imported it meanwhile */
            rep->present++;
            rc = WG_EEXISTS;
        }
        rc = wg_tree__end(st, rc);
        if (rc == 0)
            rep->imported = before + 1;
        else if (rc == WG_EEXISTS)
            rc = 0;
        wg_error_clear();
    }
    rc = rc == 1 ? 0 : rc;
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
    free(mt);
    json_decref(m);
    return rc;
}

static int import_market(wg_tree_import *rep, wg_store *st, const char *dir)
{
    char **names = NULL;
    size_t n = 0;
    int rc = wg_tree__list(&names, &n, NULL, dir, "marketplace", "pack.json");
    if (rc < 0) {
        wg_tree__refuse(rep, "marketplace: %s", wg_error_last());
        return rc == WG_ENOMEM ? rc : 0;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = import_pack(rep, st, dir, names[i]);
    wg_store_doc_names_free(names);
    return rc;
}

int wg_tree__import(wg_tree_import *rep, wg_store *st, const char *data_dir)
{
    if (!rep)
        return wg_error_set(WG_EINVAL, "wg_tree__import: NULL argument");
    memset(rep, 0, sizeof *rep);
    if (!wg_tree__shared(st) || !data_dir)
        return 0;
    int rc = import_skills(rep, st, data_dir);
    if (rc == 0)
        rc = import_market(rep, st, data_dir);
    if (rc == 0)
        rc = import_plugins(rep, st, data_dir);
    if (rc == 0)
        rc = import_personas(rep, st, data_dir);
    if (rc == 0)
        rc = wg_tree__import_catalog(rep, st, data_dir);
    return rc;
}

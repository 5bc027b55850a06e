/* marketplace.c - the local marketplace (waggle/marketplace.h): listing
 * packs, installing one all or nothing, publishing an installed skill, and
 * the enterprise packs KVARK unlocks. Moved below the server so that no
 * face reads the data dir or decides what an install means on its own. */
#include "engine/engine_int.h"
#include "engine/skilltrust.h"
#include "store/files.h"
#include "waggle/error.h"
#include "waggle/marketplace.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *market_dir(const wg_engine *e)
{
    return wg_files__join(e->data_dir, "marketplace", NULL);
}

/* The pack's manifest, or one built from its *.md files. New or NULL. */
static json_t *load_pack(const char *dir, const char *name)
{
    char *pdir = wg_files__join(dir, name, NULL);
    char *mpath = pdir ? wg_files__join(pdir, "pack.json", NULL) : NULL;
    char *text = NULL;
    json_t *pack = NULL;
    if (mpath && wg_files__read(&text, NULL, mpath, WG_MARKETPLACE_SKILL_BYTES) == 0) {
        pack = json_loads(text, 0, NULL);
        if (!json_is_object(pack) || !json_is_array(json_object_get(pack, "skills"))) {
            json_decref(pack);
            pack = NULL;
        }
    } else if (pdir) {
        DIR *d = opendir(pdir);
        if (d) {
            json_t *skills = json_array();
            for (struct dirent *de; (de = readdir(d));) {
                size_t l = strlen(de->d_name);
                if (l > 3 && strcmp(de->d_name + l - 3, ".md") == 0 && wg_files__name_ok(de->d_name))
                    json_array_append_new(skills, json_stringn(de->d_name, l - 3));
            }
            closedir(d);
            pack = json_pack("{s:s,s:s,s:o}", "name", name, "description", "", "skills", skills);
        }
    }
    if (pack)
        json_object_set_new(pack, "name", json_string(name));
    free(text);
    free(mpath);
    free(pdir);
    return pack;
}

int wg_marketplace_list(json_t **out, wg_engine *e)
{
    if (!out || !e)
        return wg_error_set(WG_EINVAL, "wg_marketplace_list: NULL argument");
    char *dir = market_dir(e);
    json_t *packs = json_array();
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!wg_files__name_ok(de->d_name))
            continue;
        json_t *p = load_pack(dir, de->d_name);
        if (p)
            json_array_append_new(packs, p);
    }
    if (d)
        closedir(d);
    free(dir);
    *out = json_pack("{s:o,s:I}", "packs", packs, "total", (json_int_t)json_array_size(packs));
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* Every check first, so a refused install leaves nothing behind; caller
 * holds e->market_mu. */
static int install_locked(json_t *installed, wg_engine *e, const char *dir, const char *name,
                          const json_t *skills, const wg_trust *trust)
{
    size_t n = json_array_size(skills);
    char *texts[WG_MARKETPLACE_SKILLS_MAX] = { 0 };
    char *dests[WG_MARKETPLACE_SKILLS_MAX] = { 0 };
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *skill = json_string_value(json_array_get(skills, i));
        char file[80];
        if (!skill || !wg_files__name_ok(skill)) {
            rc = wg_error_set(WG_EINVAL, "the pack lists an invalid skill name");
            break;
        }
        snprintf(file, sizeof file, "%s.md", skill);
        char *src = wg_files__join(dir, name, file);
        dests[i] = wg_files__join(e->data_dir, "skills", file);
        if (!src || !dests[i]) {
            free(src);
            rc = wg_error_set(WG_ENOMEM, "out of memory");
            break;
        }
        if ((rc = wg_files__read(&texts[i], NULL, src, WG_MARKETPLACE_SKILL_BYTES)) < 0)
            rc = wg_error_set(WG_EINVAL, "skill %zu of the pack is missing or too large", i + 1);
        free(src);
        char *existing = NULL;
        if (rc == 0 && wg_files__read(&existing, NULL, dests[i], WG_MARKETPLACE_SKILL_BYTES) !=
                           WG_ENOTFOUND)
            rc = wg_error_set(WG_EEXISTS, "skill %zu of the pack is already installed", i + 1);
        free(existing);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *skill = json_string_value(json_array_get(skills, i));
        if ((rc = wg_files__write_atomic(dests[i], texts[i], strlen(texts[i]))) < 0)
            break;
        json_array_append_new(installed, json_pack("{s:s,s:o?}", "name", skill, "trust",
                                                   wg_skilltrust__assess(trust, texts[i],
                                                                         "marketplace")));
    }
    for (size_t i = 0; i < WG_MARKETPLACE_SKILLS_MAX; i++) {
        free(texts[i]);
        free(dests[i]);
    }
    return rc;
}

int wg_marketplace_install(json_t **out, wg_engine *e, const char *name, const char *actor)
{
    if (!out || !e || !name)
        return wg_error_set(WG_EINVAL, "wg_marketplace_install: NULL argument");
    if (!wg_files__name_ok(name))
        return wg_error_set(WG_EINVAL, "name must be a pack name ([A-Za-z0-9._-])");
    const wg_trust *trust = NULL;
    int rc = wg_engine_trust(&trust, e);
    if (rc < 0)
        return rc;
    char *dir = market_dir(e);
    json_t *pack = dir ? load_pack(dir, name) : NULL;
    if (!pack) {
        free(dir);
        return wg_error_set(WG_ENOTFOUND, "no marketplace pack by that name");
    }
    json_t *skills = json_object_get(pack, "skills");
    size_t n = json_array_size(skills);
    json_t *installed = json_array();
    if (n == 0 || n > WG_MARKETPLACE_SKILLS_MAX) {
        rc = wg_error_set(WG_EINVAL, "the pack lists %zu skills (1-%d allowed)", n,
                          WG_MARKETPLACE_SKILLS_MAX);
    } else {
        pthread_mutex_lock(&e->market_mu);
        rc = install_locked(installed, e, dir, name, skills, trust);
        pthread_mutex_unlock(&e->market_mu);
    }
    free(dir);
    json_decref(pack);
    if (rc < 0) {
        json_decref(installed);
        return rc;
    }
    json_t *in = json_pack("{s:s,s:I}", "pack", name, "skills", (json_int_t)n);
    wg_engine__note(e, "marketplace_installed", actor, NULL, in, "ok", NULL);
    json_decref(in);
    *out = installed;
    return 0;
}

int wg_marketplace_publish(json_t **out, wg_engine *e, const char *name, const char *description,
                           const char *actor)
{
    if (!out || !e || !name)
        return wg_error_set(WG_EINVAL, "wg_marketplace_publish: NULL argument");
    if (!description)
        description = "";
    if (!wg_files__name_ok(name))
        return wg_error_set(WG_EINVAL, "name must be a skill name ([A-Za-z0-9._-])");
    if (strlen(description) > WG_MARKETPLACE_DESCRIPTION_MAX)
        return wg_error_set(WG_EINVAL, "description is longer than %d characters",
                            WG_MARKETPLACE_DESCRIPTION_MAX);
    char file[80];
    snprintf(file, sizeof file, "%s.md", name);
    char *src = wg_files__join(e->data_dir, "skills", file);
    char *dir = market_dir(e);
    char *dst = dir ? wg_files__join(dir, name, file) : NULL;
    char *manifest = dir ? wg_files__join(dir, name, "pack.json") : NULL;
    char *text = NULL, *mtext = NULL;
    json_t *pack = NULL;
    int rc = 0;
    if (!src || !dst || !manifest)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    else if (wg_files__read(&text, NULL, src, WG_MARKETPLACE_SKILL_BYTES) < 0)
        rc = wg_error_set(WG_ENOTFOUND, "no installed skill by that name");
    if (rc == 0) {
        pthread_mutex_lock(&e->market_mu);
        if (wg_files__read(&mtext, NULL, manifest, WG_MARKETPLACE_SKILL_BYTES) != WG_ENOTFOUND) {
            rc = wg_error_set(WG_EEXISTS, "a marketplace pack by that name already exists");
        } else {
            pack = json_pack("{s:s,s:s,s:[s]}", "name", name, "description", description,
                             "skills", name);
            char *pj = pack ? json_dumps(pack, JSON_INDENT(2)) : NULL;
            rc = pj ? wg_files__write_atomic(dst, text, strlen(text))
                    : wg_error_set(WG_ENOMEM, "out of memory");
            if (rc == 0)
                rc = wg_files__write_atomic(manifest, pj, strlen(pj));
            free(pj);
        }
        pthread_mutex_unlock(&e->market_mu);
    }
    free(src);
    free(dst);
    free(manifest);
    free(dir);
    free(text);
    free(mtext);
    if (rc < 0) {
        json_decref(pack);
        return rc;
    }
    json_t *in = json_pack("{s:s}", "pack", name);
    wg_engine__note(e, "marketplace_published", actor, NULL, in, "ok", NULL);
    json_decref(in);
    *out = pack;
    return 0;
}

/* The packs KVARK unlocks: data/enterprise-packs.json, embedded at build
 * time (cmake/enterprise_packs.cmake). The packs live in KVARK; each row
 * names one. */
extern const unsigned char wg_marketplace__enterprise_packs_json[];
extern const unsigned long wg_marketplace__enterprise_packs_json_len;

enum { ENTERPRISE_PACKS_MAX = 64, PACK_FIELD_MAX = 512 };

static int pack_field_ok(const json_t *p, const char *name)
{
    const json_t *v = json_object_get(p, name);
    return json_is_string(v) && json_string_length(v) > 0 &&
           json_string_length(v) <= PACK_FIELD_MAX;
}

/* The rows {id, name, description}, checked: a broken file fails closed. */
static int enterprise_rows(json_t **out)
{
    json_t *doc = json_loadb((const char *)wg_marketplace__enterprise_packs_json,
                             wg_marketplace__enterprise_packs_json_len, 0, NULL);
    const json_t *rows = json_object_get(doc, "packs");
    json_t *packs = json_array();
    int rc = json_is_array(rows) && json_array_size(rows) <= ENTERPRISE_PACKS_MAX && packs
           ? 0 : WG_EINTERNAL;
    size_t i;
    const json_t *p;
    json_array_foreach(rows, i, p) {
        if (rc == 0 && (!pack_field_ok(p, "id") || !pack_field_ok(p, "name") ||
                        !pack_field_ok(p, "description")))
            rc = WG_EINTERNAL;
        if (rc == 0 && json_array_append_new(packs, json_pack("{s:O,s:O,s:O}", "id",
                                             json_object_get(p, "id"), "name",
                                             json_object_get(p, "name"), "description",
                                             json_object_get(p, "description"))))
            rc = WG_ENOMEM;
    }
    json_decref(doc);
    if (rc < 0) {
        json_decref(packs);
        return wg_error_set(rc, rc == WG_ENOMEM ? "out of memory"
                                : "the embedded data/enterprise-packs.json is malformed");
    }
    *out = packs;
    return 0;
}

int wg_marketplace_enterprise_packs(json_t **out, wg_engine *e)
{
    if (!out || !e)
        return wg_error_set(WG_EINVAL, "wg_marketplace_enterprise_packs: NULL argument");
    wg_engine_kvark_state st;
    int rc = wg_engine_kvark_status(&st, e);
    if (rc < 0)
        return rc;
    if (!st.valid) {
        char hint[384];
        snprintf(hint, sizeof hint, "Enterprise packs require a KVARK connection. Configure KVARK "
                 "credentials in the vault to unlock.%s%s", st.configured ? " " : "",
                 st.configured ? st.reason : "");
        *out = json_pack("{s:[],s:i,s:b,s:s}", "packs", "total", 0, "kvarkRequired", 1, "hint",
                         hint);
    } else {
        json_t *packs = NULL;
        if ((rc = enterprise_rows(&packs)) < 0)
            return rc;
        *out = json_pack("{s:o,s:I,s:b}", "packs", packs, "total",
                         (json_int_t)json_array_size(packs), "kvarkRequired", 0);
    }
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

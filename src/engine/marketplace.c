/* marketplace.c - the local marketplace (waggle/marketplace.h): listing
 * packs, installing one all or nothing, publishing an installed skill, and
 * the enterprise packs KVARK unlocks. Moved below the server so that no
 * face reads the data dir or decides what an install means on its own.
 * Packs and installed skills are store/tree.h's: files of the data dir on
 * one machine, documents of the shared store for replicas (one write
 * transaction per install or publish, so replicas never interleave). */
#include "engine/engine_int.h"
#include "engine/skilltrust.h"
#include "store/files.h"
#include "store/tree.h"
#include "waggle/error.h"
#include "waggle/marketplace.h"
#include "waggle/skills.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The store when the marketplace is shared (replicas), else NULL. */
static int shared_of(wg_store **st, wg_engine *e)
{
    return wg_engine__shared_store(st, e);
}

/* The pack's manifest (*out new): its pack.json, parsed strictly
 * (store/tree.h), or - for files only - one built from its *.md files.
 * WG_ENOTFOUND when there is no such pack; WG_EINVAL when it is there but
 * refused (the message says why). */
static int load_pack(json_t **out, wg_store *st, const char *data_dir, const char *name)
{
    char rel[128], *text = NULL;
    size_t len = 0;
    snprintf(rel, sizeof rel, "marketplace/%s/pack.json", name);
    int rc = wg_tree__read(&text, &len, st, data_dir, rel, WG_PACK_MANIFEST_MAX);
    if (rc == 0) {
        rc = wg_tree__pack_parse(out, text, len, name);
        free(text);
        return rc;
    }
    if (rc == WG_EDENIED)
        return wg_error_set(WG_EINVAL, "pack %s: pack.json is not a regular file or is larger "
                            "than %d bytes", name, WG_PACK_MANIFEST_MAX);
    if (rc != WG_ENOTFOUND || wg_tree__shared(st))
        return rc;
    snprintf(rel, sizeof rel, "marketplace/%s", name);
    if ((rc = wg_tree__exists(st, data_dir, rel)) <= 0)
        return rc < 0 ? rc : wg_error_set(WG_ENOTFOUND, "no marketplace pack by that name");
    char **names = NULL;
    size_t n = 0;
    if ((rc = wg_tree__list(&names, &n, st, data_dir, rel, ".md")) < 0)
        return rc;
    json_t *skills = json_array();
    for (size_t i = 0; skills && i < n; i++)
        json_array_append_new(skills, json_string(names[i]));
    wg_store_doc_names_free(names);
    *out = json_pack("{s:s,s:s,s:o}", "name", name, "description", "", "skills", skills);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

int wg_marketplace_list(json_t **out, wg_engine *e)
{
    if (!out || !e)
        return wg_error_set(WG_EINVAL, "wg_marketplace_list: NULL argument");
    wg_store *st = NULL;
    char **names = NULL;
    size_t n = 0;
    int rc = shared_of(&st, e);
    if (rc == 0)
        rc = wg_tree__list(&names, &n, st, e->data_dir, "marketplace", "pack.json");
    if (rc < 0)
        return rc;
    json_t *packs = json_array();
    for (size_t i = 0; rc == 0 && i < n; i++) {
        json_t *p = NULL;
        int prc = load_pack(&p, st, e->data_dir, names[i]);
        if (prc == 0)
            json_array_append_new(packs, p);
        else if (prc == WG_ENOMEM || prc == WG_EUNAVAILABLE || prc == WG_ESTORE)
            rc = prc;
        else
            wg_error_clear();   /* a refused pack is not listed; install says why */
    }
    wg_store_doc_names_free(names);
    if (rc < 0) {
        json_decref(packs);
        return rc;
    }
    *out = json_pack("{s:o,s:I}", "packs", packs, "total", (json_int_t)json_array_size(packs));
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* Every check first, so a refused install leaves nothing behind; caller
 * holds e->market_mu, and when shared the store's write lock (one step
 * across replicas). */
static int install_locked(json_t *installed, wg_engine *e, wg_store *st, const char *name,
                          const json_t *skills, const wg_trust *trust)
{
    size_t n = json_array_size(skills), total = 0;
    char *texts[WG_MARKETPLACE_SKILLS_MAX] = { 0 };
    size_t lens[WG_MARKETPLACE_SKILLS_MAX] = { 0 };
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *skill = json_string_value(json_array_get(skills, i));
        char src[200], dst[128];
        if (!skill || wg_skill_name_check(skill) < 0) {
            rc = wg_error_set(WG_EINVAL, "the pack lists an invalid skill name");
            break;
        }
        snprintf(src, sizeof src, "marketplace/%s/%s.md", name, skill);
        snprintf(dst, sizeof dst, "skills/%s.md", skill);
        rc = wg_tree__read(&texts[i], &lens[i], st, e->data_dir, src, WG_MARKETPLACE_SKILL_BYTES);
        if (rc == WG_ENOMEM || rc == WG_EUNAVAILABLE || rc == WG_ESTORE)
            break;
        if (rc < 0)
            rc = wg_error_set(WG_EINVAL, "skill %zu of the pack is missing or too large", i + 1);
        total += lens[i];
        if (rc == 0 && total > WG_PACK_BYTES_MAX)
            rc = wg_error_set(WG_EINVAL, "the pack's skills are more than %u bytes together",
                              WG_PACK_BYTES_MAX);
        int there = rc == 0 ? wg_tree__exists(st, e->data_dir, dst) : 0;
        if (there < 0)
            rc = there;
        else if (there)
            rc = wg_error_set(WG_EEXISTS, "skill %zu of the pack is already installed", i + 1);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *skill = json_string_value(json_array_get(skills, i));
        char dst[128];
        snprintf(dst, sizeof dst, "skills/%s.md", skill);
        if ((rc = wg_tree__create(st, e->data_dir, dst, texts[i], lens[i])) < 0)
            break;
        json_array_append_new(installed, json_pack("{s:s,s:o?}", "name", skill, "trust",
                                                   wg_skilltrust__assess(trust, texts[i],
                                                                         "marketplace")));
    }
    for (size_t i = 0; i < WG_MARKETPLACE_SKILLS_MAX; i++)
        free(texts[i]);
    return rc;
}

int wg_marketplace_install(json_t **out, wg_engine *e, const char *name, const char *actor)
{
    if (!out || !e || !name)
        return wg_error_set(WG_EINVAL, "wg_marketplace_install: NULL argument");
    if (!wg_files__name_ok(name))
        return wg_error_set(WG_EINVAL, "name must be a pack name ([A-Za-z0-9._-])");
    const wg_trust *trust = NULL;
    wg_store *st = NULL;
    int rc = wg_engine_trust(&trust, e);
    if (rc == 0)
        rc = shared_of(&st, e);
    if (rc < 0)
        return rc;
    json_t *pack = NULL;
    if ((rc = load_pack(&pack, st, e->data_dir, name)) < 0)
        return rc;
    json_t *skills = json_object_get(pack, "skills");
    size_t n = json_array_size(skills);
    json_t *installed = json_array();
    if (n == 0 || n > WG_MARKETPLACE_SKILLS_MAX) {
        rc = wg_error_set(WG_EINVAL, "the pack lists %zu skills (1-%d allowed)", n,
                          WG_MARKETPLACE_SKILLS_MAX);
    } else {
        pthread_mutex_lock(&e->market_mu);
        if ((rc = wg_tree__begin(st)) == 0)
            rc = wg_tree__end(st, install_locked(installed, e, st, name, skills, trust));
        pthread_mutex_unlock(&e->market_mu);
    }
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

/* Writes the new pack (its one skill, then its manifest); caller holds
 * e->market_mu and, when shared, the store's write lock. */
static int publish_locked(json_t **pack, wg_engine *e, wg_store *st, const char *name,
                          const char *description, const char *text, size_t len)
{
    char dir[128], skill[200], manifest[128];
    snprintf(dir, sizeof dir, "marketplace/%s", name);
    snprintf(skill, sizeof skill, "marketplace/%s/%s.md", name, name);
    snprintf(manifest, sizeof manifest, "marketplace/%s/pack.json", name);
    /* one machine: a directory by that name is a pack even without pack.json */
    int there = wg_tree__exists(st, e->data_dir, wg_tree__shared(st) ? manifest : dir);
    if (there < 0)
        return there;
    if (there)
        return wg_error_set(WG_EEXISTS, "a marketplace pack by that name already exists");
    *pack = json_pack("{s:s,s:s,s:[s]}", "name", name, "description", description, "skills",
                      name);
    char *pj = *pack ? json_dumps(*pack, JSON_INDENT(2)) : NULL;
    int rc = pj ? wg_tree__create(st, e->data_dir, skill, text, len)
                : wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0)
        rc = wg_tree__create(st, e->data_dir, manifest, pj, strlen(pj));
    if (rc == WG_EEXISTS)
        rc = wg_error_set(WG_EEXISTS, "a marketplace pack by that name already exists");
    free(pj);
    return rc;
}

int wg_marketplace_publish(json_t **out, wg_engine *e, const char *name, const char *description,
                           const char *actor)
{
    if (!out || !e || !name)
        return wg_error_set(WG_EINVAL, "wg_marketplace_publish: NULL argument");
    if (!description)
        description = "";
    if (!wg_files__name_ok(name) || wg_skill_name_check(name) < 0)
        return wg_error_set(WG_EINVAL, "name must be a skill name ([A-Za-z0-9._-])");
    if (strlen(description) > WG_MARKETPLACE_DESCRIPTION_MAX)
        return wg_error_set(WG_EINVAL, "description is longer than %d characters",
                            WG_MARKETPLACE_DESCRIPTION_MAX);
    wg_store *st = NULL;
    int rc = shared_of(&st, e);
    if (rc < 0)
        return rc;
    char src[128], *text = NULL;
    size_t len = 0;
    snprintf(src, sizeof src, "skills/%s.md", name);
    rc = wg_tree__read(&text, &len, st, e->data_dir, src, WG_MARKETPLACE_SKILL_BYTES);
    if (rc == WG_ENOMEM || rc == WG_EUNAVAILABLE || rc == WG_ESTORE)
        return rc;
    if (rc < 0)
        return wg_error_set(WG_ENOTFOUND, "no installed skill by that name");
    json_t *pack = NULL;
    pthread_mutex_lock(&e->market_mu);
    if ((rc = wg_tree__begin(st)) == 0)
        rc = wg_tree__end(st, publish_locked(&pack, e, st, name, description, text, len));
    pthread_mutex_unlock(&e->market_mu);
    free(text);
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

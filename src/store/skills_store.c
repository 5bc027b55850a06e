/* skills_store.c - skills on disk: loading a directory of <name>.md files,
 * the starter pack (embedded, or $WAGGLE_STARTER_SKILLS_DIR), and the atomic
 * install of a starter skill into DATA_DIR/skills - or, for replicas on a
 * shared store, into its documents skills/<name>.md (waggle/skills.h,
 * store/tree.h). */
#include "waggle/skills.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "core/skills_internal.h"
#include "core/skills_embedded.h"
#include "store/files.h"
#include "store/tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wg_skillset_load_dir(wg_skillset **out, const char *dir)
{
    wg_skillset *s;
    int rc = wg_skillset__new(&s, dir);
    if (rc < 0)
        return rc;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) {
            *out = s;
            return 0;
        }
        rc = wg_error_set(WG_EIO, "cannot read %s: %s", dir, strerror(errno));
        wg_skillset_free(s);
        return rc;
    }
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".md") != 0)
            continue;
        char name[WG_SKILL_NAME_MAX + 1];
        if (n - 3 > WG_SKILL_NAME_MAX)
            continue;
        memcpy(name, e->d_name, n - 3);
        name[n - 3] = '\0';
        if (wg_skill_name_check(name) < 0) {
            wg_error_clear();
            continue;
        }
        char *path = NULL, *data = NULL;
        size_t len = 0;
        if ((rc = wg_datadir_path(&path, dir, e->d_name)) < 0)
            break;
        rc = wg_files__read(&data, &len, path, WG_SKILL_MAX_BYTES);
        free(path);
        if (rc == WG_EDENIED) {     /* a symlink, not a file, or too large: skip it */
            wg_error_clear();
            rc = 0;
            continue;
        }
        if (rc == 0)
            rc = wg_skillset__add(s, name, data, len);
        free(data);
    }
    closedir(d);
    if (rc < 0) {
        wg_skillset_free(s);
        return rc;
    }
    wg_skillset__sort(s);
    *out = s;
    return 0;
}

int wg_skillset_load_starter(wg_skillset **out)
{
    const char *dir = getenv(WG_SKILLS_STARTER_ENV);
    if (dir && *dir) {
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return wg_error_set(WG_ENOTFOUND, "%s=%s is not a directory",
                                WG_SKILLS_STARTER_ENV, dir);
        return wg_skillset_load_dir(out, dir);
    }
    wg_skillset *s;
    int rc = wg_skillset__new(&s, NULL);
    for (size_t i = 0; rc == 0 && i < wg_skills__starter_count; i++)
        rc = wg_skillset__add(s, wg_skills__starter[i].name,
                              (const char *)wg_skills__starter[i].data,
                              wg_skills__starter[i].length);
    if (rc < 0) {
        wg_skillset_free(s);
        return rc;
    }
    wg_skillset__sort(s);
    *out = s;
    return 0;
}

int wg_skillset_load_active(wg_skillset **out, const char *data_dir)
{
    char *dir = NULL;
    int rc = wg_datadir_path(&dir, data_dir, "skills");
    if (rc == 0)
        rc = wg_skillset_load_dir(out, dir);
    free(dir);
    return rc;
}

/* Replicas: skills/<name>.md documents of the shared store. */
static int load_shared(wg_skillset **out, wg_store *st)
{
    wg_skillset *s;
    int rc = wg_skillset__new(&s, NULL);
    if (rc < 0)
        return rc;
    char **names = NULL;
    size_t n = 0;
    rc = wg_tree__list(&names, &n, st, NULL, "skills", ".md");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (wg_skill_name_check(names[i]) < 0) {
            wg_error_clear();
            continue;
        }
        char rel[WG_SKILL_NAME_MAX + 16], *data = NULL;
        size_t len = 0;
        snprintf(rel, sizeof rel, "skills/%s.md", names[i]);
        rc = wg_tree__read(&data, &len, st, NULL, rel, WG_SKILL_MAX_BYTES);
        if (rc == WG_EDENIED || rc == WG_ENOTFOUND) {   /* too large, or deleted meanwhile */
            wg_error_clear();
            rc = 0;
            continue;
        }
        if (rc == 0)
            rc = wg_skillset__add(s, names[i], data, len);
        free(data);
    }
    wg_store_doc_names_free(names);
    if (rc < 0) {
        wg_skillset_free(s);
        return rc;
    }
    wg_skillset__sort(s);
    *out = s;
    return 0;
}

int wg_skillset_load_active_in(wg_skillset **out, wg_store *st, const char *data_dir)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "wg_skillset_load_active_in: NULL argument");
    return wg_tree__shared(st) ? load_shared(out, st) : wg_skillset_load_active(out, data_dir);
}

int wg_skills_install(char **path_out, const char *data_dir, const wg_skillset *starter,
                      const char *name, const char *source)
{
    return wg_skills_install_in(path_out, NULL, data_dir, starter, name, source);
}

int wg_skills_install_in(char **path_out, wg_store *st, const char *data_dir,
                         const wg_skillset *starter, const char *name, const char *source)
{
    if ((!data_dir && !wg_tree__shared(st)) || !starter)
        return wg_error_set(WG_EINVAL, "wg_skills_install: NULL argument");
    wg_skillset *active = NULL;
    int rc = wg_skillset_load_active_in(&active, st, data_dir);
    if (rc < 0)
        return rc;
    const wg_skill *sk = NULL;
    rc = wg_skills_validate_install(&sk, starter, active, name, source);
    wg_skillset_free(active);
    if (rc < 0)
        return rc;
    char rel[WG_SKILL_NAME_MAX + 16];
    snprintf(rel, sizeof rel, "skills/%s.md", name);
    /* create, never replace: of two installs at once (threads, processes,
     * replicas) exactly one wins and the other is "already installed" */
    rc = wg_tree__create(st, data_dir, rel, sk->content, sk->length);
    if (rc == WG_EEXISTS)
        return wg_error_set(WG_EEXISTS, "Skill \"%s\" is already installed and active.", name);
    if (rc < 0)
        return rc;
    if (path_out && !(*path_out = wg_tree__where(st, data_dir, rel)))
        return wg_error_set(WG_ENOMEM, "out of memory");
    return 0;
}

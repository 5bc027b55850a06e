/* waggle/skills.h - skills on disk and in the starter pack: front matter,
 * loading sets of skills, install validation (spec 3.3) and the atomic
 * install of a starter skill into the active set.
 *
 * A skill is a Markdown file <name>.md. It may begin with front matter:
 *   ---
 *   name: risk-assessment
 *   description: Identify, score and plan responses to project risks
 *   permissions:
 *     fileSystem: false
 *     network: true
 *   ---
 * (or `permissions: [network, fileSystem]`, or `permissions: none`).
 * Active skills live in DATA_DIR/skills/<name>.md (replicas: in the shared
 * store, the _in variants). The starter pack is
 * embedded in the library at build time; the environment variable
 * WAGGLE_STARTER_SKILLS_DIR, when set, replaces it with a directory.
 *
 * Skill sets are immutable once loaded and may be shared between threads.
 */
#ifndef WAGGLE_SKILLS_H
#define WAGGLE_SKILLS_H

#include "waggle/export.h"

#include <stddef.h>
#include "waggle/store.h"
#include "waggle/trust.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WG_SKILL_NAME_MAX = 64,           /* bytes */
    WG_SKILL_MAX_BYTES = 256 * 1024,  /* larger files are not loaded */
};

/* The installable source (spec 3.3: only "starter-pack" installs by tool). */
#define WG_SKILLS_STARTER_SOURCE "starter-pack"
#define WG_SKILLS_STARTER_ENV "WAGGLE_STARTER_SKILLS_DIR"

typedef struct {
    char *name;          /* front matter name, or NULL */
    char *description;   /* front matter description, or NULL */
    wg_permission_set permissions;  /* .present when a permissions key exists */
    size_t body_offset;  /* where the Markdown after the front matter starts */
} wg_skill_meta;

/* Parses front matter at the start of content (none is fine: all zero).
 * out is zeroed first; clear with wg_skill_meta_clear. Returns 0,
 * WG_EINVAL (front matter opened but never closed), WG_ENOMEM. */
WG_EXTERN int wg_skill_meta_parse(wg_skill_meta *out, const char *content);
WG_EXTERN void wg_skill_meta_clear(wg_skill_meta *m);

/* One skill of a set. All fields owned by the set. */
typedef struct {
    const char *name;         /* file name without .md */
    const char *content;      /* the whole file, NUL-terminated */
    size_t length;
    const char *description;  /* front matter description, else the first
                                 non-empty Markdown line without '#'s, else
                                 "Skill \"<name>\"" */
    wg_permission_set declared;
} wg_skill;

typedef struct wg_skillset wg_skillset;

/* Loads every <name>.md of dir whose name is valid, sorted by name.
 * A missing dir gives an empty set. *out is new (wg_skillset_free).
 * Returns 0, WG_EIO, WG_ENOMEM. */
WG_EXTERN int wg_skillset_load_dir(wg_skillset **out, const char *dir);

/* The starter pack: the directory in $WAGGLE_STARTER_SKILLS_DIR when set
 * (WG_ENOTFOUND if it is not a directory), else the embedded copy. */
WG_EXTERN int wg_skillset_load_starter(wg_skillset **out);

/* The active skills of a data dir (DATA_DIR/skills). */
WG_EXTERN int wg_skillset_load_active(wg_skillset **out, const char *data_dir);

WG_EXTERN void wg_skillset_free(wg_skillset *s);
WG_EXTERN size_t wg_skillset_count(const wg_skillset *s);
/* Borrowed, valid while the set lives; NULL when out of range / absent. */
WG_EXTERN const wg_skill *wg_skillset_get(const wg_skillset *s, size_t i);
WG_EXTERN const wg_skill *wg_skillset_find(const wg_skillset *s, const char *name);
/* The directory the set came from, or NULL (embedded). Borrowed. */
WG_EXTERN const char *wg_skillset_dir(const wg_skillset *s);

/* 0 when name is a safe skill name: 1-64 bytes of [A-Za-z0-9._-], starting
 * with a letter or digit, no "..". Else WG_EINVAL "Invalid capability name"
 * (traversal like "../x", "a/b", "a\\b" is refused here, not only by tools). */
WG_EXTERN int wg_skill_name_check(const char *name);

/* validateInstallCandidate (spec 3.3), first failure wins:
 *   WG_EINVAL        invalid name
 *   WG_EUNSUPPORTED  source is not "starter-pack"
 *   WG_ENOTFOUND     not in the starter pack
 *   WG_EEXISTS       already in installed (may be NULL)
 * On 0, *starter_out (may be NULL) is the starter skill, borrowed. */
WG_EXTERN int wg_skills_validate_install(const wg_skill **starter_out, const wg_skillset *starter,
                                         const wg_skillset *installed, const char *name,
                                         const char *source);

/* Validates, then copies the starter skill to DATA_DIR/skills/<name>.md
 * atomically (temporary file, fsync, link into place so an existing file is
 * never replaced, fsync of the directory). *path_out (may be NULL) is the
 * new file's path (free()). Returns 0, the validation codes, WG_EIO, WG_ENOMEM. */
WG_EXTERN int wg_skills_install(char **path_out, const char *data_dir, const wg_skillset *starter,
                                const char *name, const char *source);

/* The same over a store (docs/replicas.md). When st is shared (replicas on
 * PostgreSQL) the active skills are its documents skills/<name>.md, which
 * every replica sees: install creates the document (of two installs at
 * once exactly one wins, the other is WG_EEXISTS) and *path_out reads
 * "the shared store (skills/<name>.md)"; an unreachable store is
 * WG_EUNAVAILABLE. Otherwise (st NULL or SQLite) DATA_DIR/skills as above. */
WG_EXTERN int wg_skillset_load_active_in(wg_skillset **out, wg_store *st, const char *data_dir);
WG_EXTERN int wg_skills_install_in(char **path_out, wg_store *st, const char *data_dir,
                                   const wg_skillset *starter, const char *name,
                                   const char *source);

#ifdef __cplusplus
}
#endif
#endif

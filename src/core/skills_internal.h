/* skills_internal.h - the skill set's layout, shared by src/core/skills.c
 * (memory) and src/store/skills_store.c (disk). Internal. */
#ifndef WAGGLE_SKILLS_INTERNAL_H
#define WAGGLE_SKILLS_INTERNAL_H

#include "waggle/skills.h"

struct wg_skillset {
    wg_skill *items;
    size_t count;
    char *dir;   /* NULL for the embedded pack */
};

int wg_skillset__new(wg_skillset **out, const char *dir);
/* Copies name and data[0..len); parses front matter and description. */
int wg_skillset__add(wg_skillset *s, const char *name, const char *data, size_t len);
void wg_skillset__sort(wg_skillset *s);

#endif

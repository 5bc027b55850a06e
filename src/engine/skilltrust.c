/* skilltrust.c - trust assessment of skill text to be installed
 * (skilltrust.h): front matter permissions count as declared. */
#include "engine/skilltrust.h"
#include "waggle/skills.h"
#include "waggle/trust.h"

json_t *wg_skilltrust__assess(const wg_trust *trust, const char *content, const char *source)
{
    wg_skill_meta meta;
    if (wg_skill_meta_parse(&meta, content) < 0)
        return NULL;
    wg_trust_input in = { "skill", source, content, meta.permissions.present ? &meta.permissions : NULL };
    wg_trust_assessment a;
    json_t *out = wg_trust_assess(&a, trust, &in) == 0 ? wg_trust_assessment_json(&a) : NULL;
    wg_skill_meta_clear(&meta);
    return out;
}

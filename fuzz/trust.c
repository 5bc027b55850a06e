/* trust.c - libFuzzer target for skill text: front matter parsing and the
 * trust assessment over arbitrary bytes. Checks invariants: risk matches
 * the points, approval matches the risk, evidence is printable, the
 * summary and JSON always build. */
#include "waggle/skills.h"
#include "waggle/trust.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static wg_trust *T;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!T && wg_trust_new(&T) != 0)
        abort();
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    wg_skill_meta m;
    int have_meta = wg_skill_meta_parse(&m, s) == 0;
    if (have_meta && m.body_offset > strlen(s))
        abort();
    static const char *const sources[] = { "starter-pack", "installed", "marketplace", "", "x" };
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        wg_trust_input in = { "skill", sources[i], s, have_meta ? &m.permissions : NULL };
        wg_trust_assessment a;
        if (wg_trust_assess(&a, T, &in) != 0)
            continue;
        if (a.risk != wg_trust_classify(a.points) || a.approval != wg_approval_for_risk(a.risk))
            abort();
        for (int p = 0; p < WG_PERM_COUNT; p++)
            for (const char *c = a.evidence[p]; *c; c++)
                if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                    abort();
        char *sum = NULL;
        if (wg_trust_format_summary(&sum, &a) != 0)
            abort();
        free(sum);
        json_t *j = wg_trust_assessment_json(&a);
        if (!j || !json_object_get(j, "riskLevel"))
            abort();
        json_decref(j);
    }
    if (have_meta)
        wg_skill_meta_clear(&m);
    free(s);
    return 0;
}

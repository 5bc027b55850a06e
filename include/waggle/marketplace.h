/* waggle/marketplace.h - the local marketplace (spec 10's gated routes),
 * owned by the engine so every face installs and publishes the same way.
 *
 * The original's marketplace is a remote service; this is its smallest real
 * form: DATA_DIR/marketplace/<pack>/ holds pack.json {name, description,
 * skills:[...]} (or just <skill>.md files) and one <skill>.md per skill.
 * Install copies a pack's skills into DATA_DIR/skills/ - all or nothing -
 * each with its trust assessment (source "marketplace"), and writes the
 * audit row marketplace_installed; publish packages an installed skill as a
 * pack (marketplace_published). Names are [A-Za-z0-9._-] before they touch
 * a path. Checks and writes are serialised per engine. Replicas on a shared
 * store keep packs and skills as its documents under the same names
 * (docs/replicas.md), each install or publish one write transaction. A
 * pack.json is parsed strictly: at most 64 KiB, nothing nested but its
 * skills list, and a pack's skills at most 4 MiB together (WG_EINVAL with
 * the reason).
 *
 * Every returned json_t is new. Errors: WG_EINVAL (a bad name, a pack with
 * 0 or more than WG_MARKETPLACE_SKILLS_MAX skills, a missing skill file),
 * WG_ENOTFOUND (no such pack / installed skill), WG_EEXISTS (a skill is
 * already installed; a pack by that name exists), WG_EIO, WG_ENOMEM.
 */
#ifndef WAGGLE_MARKETPLACE_H
#define WAGGLE_MARKETPLACE_H

#include "waggle/export.h"

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

struct wg_engine;

#define WG_MARKETPLACE_SKILLS_MAX 64
#define WG_MARKETPLACE_SKILL_BYTES (256 * 1024)
#define WG_MARKETPLACE_DESCRIPTION_MAX 2000

/* {packs:[{name, description, skills}], total}. */
WG_EXTERN int wg_marketplace_list(json_t **out, struct wg_engine *e);
/* *installed: [{name, trust}] in the pack's order. */
WG_EXTERN int wg_marketplace_install(json_t **installed, struct wg_engine *e, const char *pack,
                                     const char *actor);
/* *pack: the new pack's manifest. description may be NULL. */
WG_EXTERN int wg_marketplace_publish(json_t **pack, struct wg_engine *e, const char *skill,
                                     const char *description, const char *actor);
/* {packs, total, kvarkRequired[, hint]}: the packs of the embedded
 * data/enterprise-packs.json once kvark:connection is a valid KVARK
 * configuration (waggle/kvark.h wg_kvark_config_parse; reference 8.3 - the
 * original unlocked on any non-empty value). Otherwise no packs,
 * kvarkRequired true and a hint that says why an invalid value is not
 * accepted (never quoting it). The route's tier (ENTERPRISE) is the
 * caller's. Returns 0, WG_EINTERNAL (the embedded file is malformed),
 * WG_ENOMEM, WG_E* from the vault. */
WG_EXTERN int wg_marketplace_enterprise_packs(json_t **out, struct wg_engine *e);

#ifdef __cplusplus
}
#endif
#endif

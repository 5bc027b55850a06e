/* skilltrust.h - the trust assessment (spec 5) of a piece of skill text
 * about to be installed, as the TrustAssessment JSON. Internal to
 * src/engine (marketplace installs). */
#ifndef WAGGLE_ENGINE_SKILLTRUST_H
#define WAGGLE_ENGINE_SKILLTRUST_H

#include <jansson.h>

/* New TrustAssessment object, or NULL when it cannot be computed.
 * Front matter permissions count as declared. source is the CapabilityCandidate source label ("marketplace",
 * "starter-pack", "installed"). */
struct wg_trust;
json_t *wg_skilltrust__assess(const struct wg_trust *trust, const char *content,
                              const char *source);

#endif

/* skilltrust.h - the trust assessment (spec 5) of a piece of skill text the
 * service is about to install, as the TrustAssessment JSON. Internal seam
 * over the trust module so routes do not repeat the mapping. */
#ifndef WAGGLE_SERVER_SKILLTRUST_H
#define WAGGLE_SERVER_SKILLTRUST_H

#include <jansson.h>

/* New TrustAssessment object, or NULL when it cannot be computed.
 * Front matter permissions count as declared. source is the CapabilityCandidate source label ("marketplace",
 * "starter-pack", "installed"). */
struct wg_trust;
json_t *wg_skilltrust__assess(const struct wg_trust *trust, const char *content,
                              const char *source);

#endif

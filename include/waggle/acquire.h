/* waggle/acquire.h - capability acquisition (spec 3): searchCapabilities
 * turns a need into an AcquisitionProposal over native tools, active skills,
 * the starter pack and pre-fetched marketplace candidates, each scored by
 * keyword overlap and carrying a trust assessment, with one recommendation
 * and a Markdown summary for the agent.
 *
 * Pure apart from what the caller passes in; safe from many threads when
 * the inputs are not modified meanwhile.
 */
#ifndef WAGGLE_ACQUIRE_H
#define WAGGLE_ACQUIRE_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>
#include "waggle/text.h"
#include "waggle/trust.h"
#include "waggle/skills.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thresholds (spec 3.2). */
#define WG_ACQUIRE_NATIVE_MIN 0.15
#define WG_ACQUIRE_INSTALLED_MIN 0.1
#define WG_ACQUIRE_STARTER_MIN 0.1
#define WG_ACQUIRE_MARKETPLACE_MIN 0.1
#define WG_ACQUIRE_BEST_ACTIVE_MIN 0.3
#define WG_ACQUIRE_HANDLED_MIN 0.4
#define WG_ACQUIRE_TIE_WINDOW 0.05
#define WG_ACQUIRE_NAME_POINTS 2
#define WG_ACQUIRE_CONTENT_POINTS 1
enum { WG_ACQUIRE_MAX_CANDIDATES = 8, WG_ACQUIRE_SUMMARY_LIST = 3,
       WG_ACQUIRE_DESCRIPTION_MAX = 300 /* bytes of a candidate description */ };

/* CapabilitySourceType (spec 3.1). */
typedef enum {
    WG_CAPTYPE_NATIVE = 0, WG_CAPTYPE_SKILL, WG_CAPTYPE_PLUGIN, WG_CAPTYPE_MCP,
    WG_CAPTYPE_CONNECTOR, WG_CAPTYPE_MARKETPLACE
} wg_capability_type;

/* CapabilityAvailability (spec 3.1), in tie-break order. */
typedef enum {
    WG_AVAIL_ACTIVE = 0, WG_AVAIL_INSTALLED_INACTIVE, WG_AVAIL_INSTALLABLE, WG_AVAIL_UNAVAILABLE
} wg_availability;

/* A native tool and its NATIVE_TOOL_HINTS words (hints NULL: the name's words). */
typedef struct {
    const char *name;
    const char *hints;
} wg_native_tool;

/* The local installation's native tools: the 18 NATIVE_TOOL_HINTS tools
 * first, then the platform's other tools. Static table. */
WG_EXTERN const wg_native_tool *wg_acquire_native_tools(size_t *count);
/* NATIVE_TOOL_HINTS lookup; NULL when the tool has none. */
WG_EXTERN const char *wg_acquire_native_hints(const char *tool);

/* A marketplace search hit fetched beforehand (score < 0: none given). */
typedef struct {
    const char *name;
    const char *description;
    double score;
} wg_market_hit;

typedef struct {
    const char *need;
    const char *const *native_tools;  size_t n_native_tools;
    const wg_skillset *active;        /* may be NULL */
    const wg_skillset *starter;       /* may be NULL */
    const wg_market_hit *marketplace; size_t n_marketplace;
    const wg_trust *trust;            /* required */
} wg_acquire_input;

/* CapabilityCandidate (spec 3.1). Strings owned by the proposal. */
typedef struct {
    char *name;
    wg_capability_type type;
    wg_availability availability;
    char *description;
    const char *source;          /* static: native-tools, installed, starter-pack, marketplace */
    double match_score;          /* in [0, 1] */
    double match_raw;            /* the score before clamping to 1 (tie-break) */
    char *match_reason;
    int install_action;          /* 1: "install_capability", 0: null */
    wg_trust_assessment trust;
} wg_candidate;

/* AcquisitionProposal (spec 3.1). */
typedef struct {
    char *need;
    int gap_detected;
    int already_handled;
    char *summary;                       /* Markdown */
    wg_candidate *candidates;            /* sorted; first `count` are reported */
    size_t count;                        /* <= WG_ACQUIRE_MAX_CANDIDATES */
    size_t total;                        /* all candidates found */
    const wg_candidate *recommendation;  /* into candidates[0..total), or NULL */
} wg_proposal;

/* scoreMatch: each keyword (folded, so "risk-assessment" is two words) that
 * matches a word of name scores 2, else one of content scores 1; the sum is
 * divided by the number of keywords and clamped to 1. reason (may be NULL)
 * gets "name matches: a, b; content mentions: c" or "" (new, free()).
 * Returns the score in [0, 1]; 0 on allocation failure. */
WG_EXTERN double wg_acquire_score(const wg_keywords *kw, const char *name, const char *content,
                                  char **reason);
/* The same score before clamping (may exceed 1). */
WG_EXTERN double wg_acquire_score_raw(const wg_keywords *kw, const char *name, const char *content,
                                      char **reason);

/* searchCapabilities. out is zeroed first; free with wg_proposal_free.
 * Returns 0, WG_EINVAL (NULL need or trust), WG_ENOMEM, or a trust error. */
WG_EXTERN int wg_acquire_search(wg_proposal *out, const wg_acquire_input *in);
WG_EXTERN void wg_proposal_free(wg_proposal *p);

/* The spec's JSON: {need, gapDetected, summary, candidates, recommendation,
 * alreadyHandled}; candidates carry trust. New reference or NULL. */
WG_EXTERN json_t *wg_proposal_json(const wg_proposal *p);
WG_EXTERN json_t *wg_candidate_json(const wg_candidate *c);

WG_EXTERN const char *wg_capability_type_name(wg_capability_type t);
WG_EXTERN const char *wg_availability_name(wg_availability a);

/* The risk the trust model computes for installing (name, source), for the
 * gate's install_risk hook: the real starter skill's content and declared
 * permissions assessed as starter-pack. Fails closed: an invalid name, a
 * source other than "starter-pack", a name not in the pack, a missing
 * trust handle or any error gives WG_RISK_HIGH. */
WG_EXTERN wg_risk_level wg_acquire_install_risk(const wg_trust *trust, const wg_skillset *starter,
                                                const char *name, const char *source);

#ifdef __cplusplus
}
#endif
#endif

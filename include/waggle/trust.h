/* waggle/trust.h - the trust model (spec 5): provenance risk plus execution
 * risk of a capability's content, summed into a RiskLevel and ApprovalClass.
 *
 * Permissions are detected in the content by PCRE2 pattern sets (compiled
 * once, with JIT, when the handle is made) and OR-merged with the ones the
 * capability declares. Each detected permission keeps the phrase that
 * triggered it (its evidence), so a person can see why.
 *
 * Thread-safety: a wg_trust handle is immutable after wg_trust_new and may be
 * used from many threads at once. Assessments are plain values (no heap).
 */
#ifndef WAGGLE_TRUST_H
#define WAGGLE_TRUST_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>
#include "waggle/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PermissionSummary keys, in the spec's order (which is also factor order). */
typedef enum {
    WG_PERM_FILE_SYSTEM = 0,
    WG_PERM_NETWORK,
    WG_PERM_CODE_EXECUTION,
    WG_PERM_EXTERNAL_SERVICES,
    WG_PERM_SECRETS,
    WG_PERM_BROWSER_AUTOMATION,
    WG_PERM_COUNT
} wg_permission;

/* TrustSource (spec 5.1). */
typedef enum {
    WG_TRUST_SOURCE_BUILTIN = 0,
    WG_TRUST_SOURCE_STARTER_PACK,
    WG_TRUST_SOURCE_LOCAL_USER,
    WG_TRUST_SOURCE_THIRD_PARTY_VERIFIED,
    WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED,
    WG_TRUST_SOURCE_UNKNOWN,
    WG_TRUST_SOURCE_COUNT
} wg_trust_source;

/* AssessmentMode (spec 5.1). */
typedef enum {
    WG_ASSESS_DECLARED = 0,
    WG_ASSESS_HEURISTIC,
    WG_ASSESS_MIXED
} wg_assessment_mode;

/* RiskFactor (spec 5.1). */
typedef enum {
    WG_FACTOR_LOCAL_CODE_EXECUTION = 0,
    WG_FACTOR_FILESYSTEM_ACCESS,
    WG_FACTOR_NETWORK_ACCESS,
    WG_FACTOR_EXTERNAL_SERVICE_ACCESS,
    WG_FACTOR_SECRET_ACCESS,
    WG_FACTOR_BROWSER_AUTOMATION,
    WG_FACTOR_UNKNOWN_SOURCE,
    WG_FACTOR_MISSING_METADATA,
    WG_FACTOR_UNVERIFIED_PUBLISHER,
    WG_FACTOR_COUNT
} wg_risk_factor;

/* Points and thresholds (spec 5.2). */
enum {
    WG_TRUST_LOW_MAX_POINTS = 2,        /* <= 2 low */
    WG_TRUST_MEDIUM_MAX_POINTS = 4,     /* <= 4 medium, else high */
    WG_TRUST_MISSING_METADATA_POINTS = 1,
    WG_TRUST_EVIDENCE_MAX = 64,         /* bytes kept of a triggering phrase, NUL included */
    WG_TRUST_EXPLANATION_MAX = 512,
};

/* A set of declared permissions: present says whether the capability
 * declared any at all (even an empty set counts, as in the spec). */
typedef struct {
    int present;
    int perms[WG_PERM_COUNT];   /* 0 or 1 */
} wg_permission_set;

typedef struct {
    const char *capability_type;  /* "skill", "plugin", "native", "mcp", ...; NULL = "" */
    const char *source;           /* "starter-pack", "installed", ...; NULL = "" */
    const char *content;          /* text to scan; NULL = "" */
    const wg_permission_set *declared;  /* NULL = nothing declared */
} wg_trust_input;

typedef struct {
    wg_risk_level risk;
    wg_trust_source source;
    int permissions[WG_PERM_COUNT];      /* effective: detected OR declared */
    int declared[WG_PERM_COUNT];         /* as declared */
    /* The phrase that set a detected permission ("" when only declared),
     * control bytes as spaces, non-ASCII bytes as "?" (always printable). */
    char evidence[WG_PERM_COUNT][WG_TRUST_EVIDENCE_MAX];
    wg_approval_class approval;
    wg_assessment_mode mode;
    int points;
    wg_risk_factor factors[WG_FACTOR_COUNT];
    size_t n_factors;
    char explanation[WG_TRUST_EXPLANATION_MAX];
} wg_trust_assessment;

typedef struct wg_trust wg_trust;

/* Compiles every pattern set (PCRE2, JIT when the platform has it).
 * *out is new: free with wg_trust_free. Returns 0, WG_ENOMEM, WG_EINTERNAL
 * (a pattern failed to compile: a bug, the message names it). */
WG_EXTERN int wg_trust_new(wg_trust **out);
WG_EXTERN void wg_trust_free(wg_trust *t);

/* assessTrust (spec 5.2). out is written on success only.
 * Returns 0, WG_EINVAL (NULL argument), WG_ENOMEM, WG_EINTERNAL (matcher failure). */
WG_EXTERN int wg_trust_assess(wg_trust_assessment *out, const wg_trust *t, const wg_trust_input *in);

/* Heuristic permission detection alone; evidence may be NULL.
 * Returns 0 or the codes of wg_trust_assess. */
WG_EXTERN int wg_trust_detect(int perms[WG_PERM_COUNT],
                              char evidence[WG_PERM_COUNT][WG_TRUST_EVIDENCE_MAX],
                              const wg_trust *t, const char *content, size_t len);

/* resolveTrustSource (original-facts 4.1, with "marketplace" and "mcp"
 * mapped to third_party_unverified instead of unknown). NULLs are "". */
WG_EXTERN wg_trust_source wg_trust_resolve_source(const char *capability_type, const char *source);

/* classifyRisk: <= 2 low, <= 4 medium, else high. */
WG_EXTERN wg_risk_level wg_trust_classify(int points);

/* The spec's points tables. */
WG_EXTERN int wg_trust_source_points(wg_trust_source s);
WG_EXTERN int wg_trust_permission_points(wg_permission p);

/* Spellings: "builtin", "fileSystem", "file system", "filesystem_access",
 * "heuristic", source labels ("Waggle curated starter pack"). Static strings;
 * out-of-range values give "unknown". */
WG_EXTERN const char *wg_trust_source_name(wg_trust_source s);
WG_EXTERN const char *wg_trust_source_label(wg_trust_source s);
WG_EXTERN const char *wg_permission_key(wg_permission p);
WG_EXTERN const char *wg_permission_label(wg_permission p);
WG_EXTERN const char *wg_risk_factor_name(wg_risk_factor f);
WG_EXTERN const char *wg_assessment_mode_name(wg_assessment_mode m);

/* Parses a permission key ("fileSystem", ...). Returns 0 or WG_EINVAL. */
WG_EXTERN int wg_permission_parse(wg_permission *out, const char *key);

/* formatTrustSummary (spec 5.2):
 *   Risk: **High** (heuristic) | Source: <label> | Approval: Critical
 *   Permissions: file system, secrets/credentials
 *   Evidence: file system: "write_file"; secrets/credentials: declared
 * The Evidence line is present only when some permission is active.
 * *out is new (free()). Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_trust_format_summary(char **out, const wg_trust_assessment *a);

/* The spec's TrustAssessment JSON: riskLevel, trustSource, permissions{...},
 * approvalClass, assessmentMode, explanation, factors, plus evidence
 * {permissionKey: phrase|"declared"} for active permissions. New reference,
 * or NULL when out of memory. */
WG_EXTERN json_t *wg_trust_assessment_json(const wg_trust_assessment *a);

#ifdef __cplusplus
}
#endif
#endif

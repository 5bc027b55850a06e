/* waggle/types.h - the small enums every module shares, and their spellings.
 *
 * Strings are parsed once at the edge (JSON, argv) with wg_*_parse and
 * printed with wg_*_name; inside the library these are always enums.
 * Parsers are exact and case-sensitive (the spec's spellings) and return
 * WG_EINVAL, with a message naming the accepted values, on anything else.
 */
#ifndef WAGGLE_TYPES_H
#define WAGGLE_TYPES_H

#include "waggle/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RiskLevel (spec 5.1) and connector action riskLevel (spec 8.1).
 * WG_RISK_UNKNOWN means "not declared"; callers treat it as the worst case
 * where a decision depends on it. */
typedef enum {
    WG_RISK_UNKNOWN = -1,
    WG_RISK_LOW = 0,
    WG_RISK_MEDIUM = 1,
    WG_RISK_HIGH = 2
} wg_risk_level;

/* ApprovalClass (spec 5.1, 7.2). Ordered: a larger value is stricter. */
typedef enum {
    WG_APPROVAL_STANDARD = 0,
    WG_APPROVAL_ELEVATED = 1,
    WG_APPROVAL_CRITICAL = 2
} wg_approval_class;

/* AutonomyLevel (spec 7.3). */
typedef enum {
    WG_AUTONOMY_NORMAL = 0,
    WG_AUTONOMY_TRUSTED = 1,
    WG_AUTONOMY_YOLO = 2
} wg_autonomy;

/* "low" | "medium" | "high"; WG_RISK_UNKNOWN -> "unknown". Static strings. */
WG_EXTERN const char *wg_risk_name(wg_risk_level r);
/* "standard" | "elevated" | "critical". */
WG_EXTERN const char *wg_approval_name(wg_approval_class c);
/* "normal" | "trusted" | "yolo". */
WG_EXTERN const char *wg_autonomy_name(wg_autonomy a);

/* Each returns 0 and writes *out, or WG_EINVAL (NULL or unknown spelling). */
WG_EXTERN int wg_risk_parse(wg_risk_level *out, const char *s);
WG_EXTERN int wg_approval_parse(wg_approval_class *out, const char *s);
WG_EXTERN int wg_autonomy_parse(wg_autonomy *out, const char *s);

/* The approval class the spec derives from a risk level (spec 5.2:
 * low -> standard, medium -> elevated, high -> critical; unknown -> critical). */
WG_EXTERN wg_approval_class wg_approval_for_risk(wg_risk_level r);

#ifdef __cplusplus
}
#endif
#endif

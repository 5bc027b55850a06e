/* waggle/permissions.h - the permissions sandbox (spec 6): a static allow/deny
 * filter over tool names, used to put an agent into read-only mode. Distinct
 * from the per-call confirmation gate (waggle/gate.h).
 *
 * isAllowed(name) = not blacklisted and (no whitelist, or whitelisted).
 * Names compare exactly (case-sensitive). A wg_permissions is immutable after
 * creation and safe to share between threads.
 */
#ifndef WAGGLE_PERMISSIONS_H
#define WAGGLE_PERMISSIONS_H

#include "waggle/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_permissions wg_permissions;

/* READONLY_TOOLS (spec 6), in the spec's order. Static; *count gets 18. */
WG_EXTERN const char *const *wg_permissions_readonly_tools(size_t *count);

/* *out is new (wg_permissions_free). blacklist/whitelist are arrays of n
 * names, copied; whitelist NULL means "no whitelist" (an empty non-NULL
 * whitelist allows nothing). Returns 0, WG_EINVAL (a NULL name), WG_ENOMEM. */
WG_EXTERN int wg_permissions_new(wg_permissions **out, const char *const *blacklist, size_t nblack,
                                 const char *const *whitelist, size_t nwhite);

/* PermissionManager.sandbox(): a whitelist of READONLY_TOOLS. */
WG_EXTERN int wg_permissions_sandbox(wg_permissions **out);

WG_EXTERN void wg_permissions_free(wg_permissions *pm);

/* 1 when name may be used, else 0 (NULL name: 0). */
WG_EXTERN int wg_permissions_is_allowed(const wg_permissions *pm, const char *name);

/* filterTools: writes to out[] the allowed names of tools[0..n), in their
 * original order (borrowed pointers), and their count to *nout. out must
 * have room for n entries. Returns 0 or WG_EINVAL. */
WG_EXTERN int wg_permissions_filter(const wg_permissions *pm, const char *const *tools, size_t n,
                                    const char **out, size_t *nout);

#ifdef __cplusplus
}
#endif
#endif

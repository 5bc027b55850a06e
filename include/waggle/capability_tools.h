/* waggle/capability_tools.h - the agent tools acquire_capability and
 * install_capability (spec 4): their definitions (name, description, JSON
 * Schema parameters) and their execution.
 *
 * install_capability is always confirmation-gated (spec 7.1 ALWAYS_CONFIRM):
 * the gate runs before wg_captool_execute. Its approval class is the larger
 * of the call's _riskLevel and the trust the server computes for the named
 * starter skill (ARCHITECTURE.md Decisions) - wg_captool_install_risk gives
 * the latter for the gate's install_risk hook.
 *
 * Thread-safety: the env's members are read-only here; concurrent calls are
 * safe as long as two installs of the same name may race (the second one
 * fails with "already installed", never overwrites).
 */
#ifndef WAGGLE_CAPABILITY_TOOLS_H
#define WAGGLE_CAPABILITY_TOOLS_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>
#include "waggle/trust.h"
#include "waggle/skills.h"
#include "waggle/router.h"
#include "waggle/connector.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;
    const char *description;
    const char *parameters;   /* JSON Schema of the arguments, as JSON text */
} wg_captool_def;

/* Audit hook: action is "proposed", "installed", "failed" or "rejected";
 * trust may be NULL. Called synchronously; must not call back into the tool. */
typedef void (*wg_captool_audit_fn)(void *ctx, const char *action, const char *name,
                                    const char *source, const wg_trust_assessment *trust);

typedef struct {
    const wg_trust *trust;                 /* required */
    const wg_skillset *starter;            /* required: the starter pack */
    const char *data_dir;                  /* required: active skills in data_dir/skills */
    const char *const *native_tools;       /* NULL: wg_acquire_native_tools() */
    size_t n_native_tools;
    wg_captool_audit_fn audit;             /* optional */
    void *audit_ctx;
    wg_store *store;                       /* optional: when shared (replicas), the active
                                              skills are its documents (waggle/skills.h) */
} wg_captool_env;

/* The two definitions, in a static table. */
WG_EXTERN const wg_captool_def *wg_captool_defs(size_t *count);

/* Runs tool `name` ("acquire_capability" or "install_capability") with args
 * (a JSON object; borrowed). *out is new text for the agent (free()):
 *   acquire_capability: the proposal summary (Markdown), or "Error: ...";
 *   install_capability: "## Skill Installed Successfully ..." with the trust
 *     summary and the skill's content, or "Error: ..." (invalid name,
 *     unsupported source, not in the pack, already installed).
 * Returns 0 whenever *out was written (including "Error:" answers),
 * WG_ENOTFOUND for an unknown tool, WG_EINVAL for NULL env/args,
 * WG_ENOMEM, WG_EIO (writing the skill failed; *out says so too). */
WG_EXTERN int wg_captool_execute(char **out, const wg_captool_env *env, const char *name,
                                 const json_t *args);

/* The trust-model risk of installing args.name from args.source: the real
 * starter skill's content; unknown or invalid name / other source /
 * missing args: WG_RISK_HIGH (fail closed). */
WG_EXTERN wg_risk_level wg_captool_install_risk(const wg_captool_env *env, const json_t *args);

/* The same as a plain callback for the gate's install_risk hook:
 * ctx is a const wg_captool_env *. NULL ctx or any failure: WG_RISK_HIGH. */
WG_EXTERN wg_risk_level wg_captool_install_risk_hook(void *ctx, const char *name, const char *source);

/* Approval class for an install_capability call: the larger of
 * args._riskLevel (high->critical, medium->elevated, else standard) and
 * the class of wg_captool_install_risk. */
WG_EXTERN wg_approval_class wg_captool_install_approval(const wg_captool_env *env, const json_t *args);

/* The registry's connectors as router input (spec 2.2 step 1.5): id, name,
 * service, connected (wg_registry_is_connected) and action names. *out is
 * new (wg_captool_connectors_free); strings are borrowed from the specs,
 * which are static or outlive the registry. Returns 0 or WG_ENOMEM. */
WG_EXTERN int wg_captool_connectors(wg_router_connector **out, size_t *n, const wg_registry *reg);
WG_EXTERN void wg_captool_connectors_free(wg_router_connector *c, size_t n);

#ifdef __cplusplus
}
#endif
#endif

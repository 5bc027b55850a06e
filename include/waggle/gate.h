/* waggle/gate.h - the per-call confirmation gate (spec 7.1-7.4, 14).
 *
 * For one tool call (tool name + JSON arguments) and an autonomy level, the
 * gate answers the spec's four questions at once:
 *   needsConfirmation              (base gate, = the answer at Normal)
 *   needsConfirmationWithAutonomy  (at the level asked)
 *   getApprovalClass               (standard | elevated | critical)
 *   isCriticalNeverAutopass        (prompts even at YOLO)
 * and says which rule decided and why, in a sentence.
 *
 * bash is analysed with a real shell model (waggle/shell.h). Connector risk
 * comes from the tool name and, through a hook, from the registry's declared
 * riskLevel of that action - never from call arguments. Deviations from the
 * spec and the original are listed in docs/gate.md. Invariants, for every
 * call: Normal == the base gate; a call that needs no confirmation at Normal
 * needs none at any level; a never-autopass call needs confirmation at every
 * level; gating is monotone (normal >= trusted >= yolo).
 *
 * Thread-safety: a wg_gate is immutable after wg_gate_new and may be shared
 * by any number of threads; hooks must then be thread-safe themselves.
 * Allocation: wg_gate_check* allocate nothing, except when a JSON command
 * string with escapes is longer than 16 KiB (one temporary buffer).
 */
#ifndef WAGGLE_GATE_H
#define WAGGLE_GATE_H

#include "waggle/export.h"

#include <stddef.h>

#include "waggle/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wg_gate wg_gate;

/* Facts only upper layers know. Any function may be NULL. */
#define WG_GATE_HOOKS_VERSION 1

typedef struct wg_gate_hooks {
    unsigned int version;      /* WG_GATE_HOOKS_VERSION */
    void *ctx;
    /* Declared riskLevel of the connector action behind tool_name
     * ("connector_<id>_<action>") in the registry, or WG_RISK_UNKNOWN when
     * the registry has no such action. A non-low action always needs
     * confirmation at Normal; its approval class is at least the one its
     * risk maps to (medium -> elevated, high -> critical). */
    wg_risk_level (*connector_risk)(void *ctx, const char *tool_name);
    /* Trust risk the server computes for an install_capability candidate
     * (name, source as given in the call; either may be ""). The class is the
     * larger of this and args._riskLevel; WG_RISK_UNKNOWN counts as high. */
    wg_risk_level (*install_risk)(void *ctx, const char *name, const char *source);
} wg_gate_hooks;

#define WG_GATE_HOOKS_INIT { .version = WG_GATE_HOOKS_VERSION }

/* *out is new: free with wg_gate_free. hooks may be NULL (spec behaviour from
 * the name alone) and is copied. Returns 0, WG_EINVAL (hooks of another
 * version), WG_ENOMEM. */
WG_EXTERN int wg_gate_new(wg_gate **out, const wg_gate_hooks *hooks);
WG_EXTERN void wg_gate_free(wg_gate *gate);

#define WG_GATE_REASON_MAX 240

typedef struct wg_gate_decision {
    int needs_confirmation;       /* needsConfirmationWithAutonomy(level) */
    int needs_confirmation_base;  /* needsConfirmation (= at Normal) */
    int critical;                 /* isCriticalNeverAutopass */
    int auto_approved;            /* base gate asked, the level pre-approved */
    wg_approval_class approval_class;   /* getApprovalClass */
    wg_autonomy level;
    const char *rule;             /* stable id, static (docs/gate.md) */
    char reason[WG_GATE_REASON_MAX];    /* one sentence, NUL-terminated */
} wg_gate_decision;

/* Decides tool(args_json) at level. args_json is the call's arguments as
 * JSON text of length len (NULL or len 0 means {}); it must be an object.
 * Fills *out. Returns 0; WG_EINVAL for a NULL argument, an empty tool name,
 * an unknown level or malformed JSON (message in wg_error_last()). */
WG_EXTERN int wg_gate_check(wg_gate_decision *out, const wg_gate *gate, const char *tool,
                            const char *args_json, size_t len, wg_autonomy level);

/* The same with arguments already parsed by jansson (args may be NULL = {}).
 * Declared as void * to keep jansson out of this header: pass a json_t *. */
WG_EXTERN int wg_gate_check_json(wg_gate_decision *out, const wg_gate *gate, const char *tool,
                                 const void *args, wg_autonomy level);

/* bash with the command already extracted (no JSON): the in-process hot path. */
WG_EXTERN int wg_gate_check_bash(wg_gate_decision *out, const wg_gate *gate,
                                 const char *command, size_t len, wg_autonomy level);

/* One line of `waggle gate --batch`: {"tool":..., "args":{...}, "level":...}
 * (level defaults to default_level). tool receives the tool name
 * (NUL-terminated, at most tool_cap - 1 bytes). Returns 0, or WG_EINVAL for a
 * malformed line. */
WG_EXTERN int wg_gate_check_line(wg_gate_decision *out, const wg_gate *gate, const char *line,
                                 size_t len, wg_autonomy default_level, char *tool, size_t tool_cap);

/* The spec's four functions, one answer each. args_json as in wg_gate_check.
 * Return 0 or WG_EINVAL. */
WG_EXTERN int wg_gate_needs_confirmation(int *out, const wg_gate *gate, const char *tool,
                                         const char *args_json);
WG_EXTERN int wg_gate_needs_confirmation_with_autonomy(int *out, const wg_gate *gate, const char *tool,
                                                       const char *args_json, wg_autonomy level);
WG_EXTERN int wg_gate_approval_class(wg_approval_class *out, const wg_gate *gate, const char *tool,
                                     const char *args_json);
WG_EXTERN int wg_gate_is_critical(int *out, const wg_gate *gate, const char *tool, const char *args_json);

#ifdef __cplusplus
}
#endif
#endif

/* waggle/router.h - CapabilityRouter.resolve (spec 2): where could a
 * capability come from? Ranks native tools, connectors, skills, plugins,
 * MCP servers and sub-agent roles by the spec's fixed confidences.
 *
 * Matching is case-insensitive and by word (waggle/text.h), not by raw
 * substring: a query of fewer than 3 letters never matches partially, and
 * role keywords match words ("plan" is not in "planet"). Confidences are
 * exactly the spec's. Pure; safe from any thread; deps are borrowed.
 */
#ifndef WAGGLE_ROUTER_H
#define WAGGLE_ROUTER_H

#include "waggle/export.h"

#include <stddef.h>
#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CapabilitySource (spec 2.1). */
typedef enum {
    WG_CAPSRC_NATIVE = 0,
    WG_CAPSRC_SKILL,
    WG_CAPSRC_PLUGIN,
    WG_CAPSRC_MCP,
    WG_CAPSRC_SUBAGENT,
    WG_CAPSRC_CONNECTOR,
    WG_CAPSRC_MISSING
} wg_capability_source;

/* Confidences (spec 2.2). */
#define WG_ROUTE_NATIVE_EXACT 1.0
#define WG_ROUTE_NATIVE_PARTIAL 0.8
#define WG_ROUTE_CONNECTOR 0.75
#define WG_ROUTE_SKILL_NAME 0.7
#define WG_ROUTE_PLUGIN 0.6
#define WG_ROUTE_SKILL_CONTENT 0.5
#define WG_ROUTE_MCP 0.45
#define WG_ROUTE_SUBAGENT 0.4
#define WG_ROUTE_MISSING 0.0
/* Shortest needle that may match partially (fixes original-facts 13 item 25). */
#define WG_ROUTE_MIN_PARTIAL 3

typedef struct {
    const char *name;
    const char *content;
} wg_router_skill;

typedef struct {
    const char *name;
    const char *description;
    const char *const *skills;       size_t n_skills;
    const char *const *mcp_servers;  size_t n_mcp_servers;
} wg_router_plugin;

/* ConnectorInfo (spec 2.1). */
typedef struct {
    const char *id;
    const char *name;
    const char *service;
    int connected;
    const char *const *actions;  size_t n_actions;
} wg_router_connector;

/* CapabilityRouterDeps (spec 2.1). Every array may be NULL with count 0.
 * mcp_healthy: NULL means every server is assumed healthy. connectors is
 * optional (the connector registry fills it when it exists). */
typedef struct {
    const char *const *tool_names;       size_t n_tool_names;
    const wg_router_skill *skills;       size_t n_skills;
    const wg_router_plugin *plugins;     size_t n_plugins;
    const char *const *mcp_servers;      size_t n_mcp_servers;
    const char *const *subagent_roles;   size_t n_subagent_roles;
    int (*mcp_healthy)(void *ctx, const char *server);
    void *mcp_ctx;
    const wg_router_connector *connectors;  size_t n_connectors;
} wg_router_deps;

/* CapabilityRoute (spec 2.1). Strings owned by the list. */
typedef struct {
    wg_capability_source source;
    char *name;
    double confidence;
    char *description;
    int available;
    char *suggestion;   /* NULL when none */
} wg_route;

typedef struct {
    wg_route *items;
    size_t count;
} wg_route_list;

/* resolve(query): every match in the spec's scan order, stably sorted by
 * confidence (descending); a single "missing" route when nothing matches
 * (also for an empty or blank query). out is zeroed first; free with
 * wg_route_list_free. Returns 0, WG_EINVAL (NULL deps), WG_ENOMEM. */
WG_EXTERN int wg_router_resolve(wg_route_list *out, const wg_router_deps *deps, const char *query);
WG_EXTERN void wg_route_list_free(wg_route_list *list);

/* "native", "skill", "plugin", "mcp", "subagent", "connector", "missing". */
WG_EXTERN const char *wg_capability_source_name(wg_capability_source s);

/* ROLE_KEYWORDS: the trigger words of a role (lower-case name), NULL-terminated,
 * or NULL for an unknown role. */
WG_EXTERN const char *const *wg_router_role_keywords(const char *role);

/* The route as spec JSON {source,name,confidence,description,available[,suggestion]}. */
WG_EXTERN json_t *wg_route_json(const wg_route *r);
WG_EXTERN json_t *wg_route_list_json(const wg_route_list *list);

#ifdef __cplusplus
}
#endif
#endif

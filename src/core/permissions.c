/* permissions.c - the permissions sandbox (spec 6): READONLY_TOOLS and a
 * blacklist/whitelist filter over tool names that keeps order. Note: the
 * sandbox includes web_fetch (the spec's list), which reaches the network. */
#include "waggle/permissions.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>

static const char *const readonly_tools[] = {
    "read_file", "search_files", "search_content", "git_status", "git_diff", "git_log",
    "web_search", "web_fetch", "show_plan", "search_memory", "get_identity", "get_awareness",
    "query_knowledge", "query_audit", "list_skills", "search_skills", "list_connectors",
    "list_harnesses",
};

struct wg_permissions {
    char **black;
    size_t nblack;
    char **white;               /* NULL: no whitelist */
    size_t nwhite;
};

const char *const *wg_permissions_readonly_tools(size_t *count)
{
    if (count)
        *count = sizeof readonly_tools / sizeof *readonly_tools;
    return readonly_tools;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; l && i < n; i++)
        free(l[i]);
    free(l);
}

static int copy_list(char ***out, const char *const *src, size_t n)
{
    char **l = calloc(n ? n : 1, sizeof *l);
    if (!l)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!src[i]) {
            free_list(l, n);
            return wg_error_set(WG_EINVAL, "a tool name in the list is NULL");
        }
        if (!(l[i] = strdup(src[i]))) {
            free_list(l, n);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    *out = l;
    return 0;
}

int wg_permissions_new(wg_permissions **out, const char *const *blacklist, size_t nblack,
                       const char *const *whitelist, size_t nwhite)
{
    if (!out || (nblack && !blacklist))
        return wg_error_set(WG_EINVAL, "wg_permissions_new: NULL argument");
    wg_permissions *pm = calloc(1, sizeof *pm);
    if (!pm)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = copy_list(&pm->black, blacklist, nblack);
    if (rc == 0 && whitelist)
        rc = copy_list(&pm->white, whitelist, nwhite);
    if (rc < 0) {
        wg_permissions_free(pm);
        return rc;
    }
    pm->nblack = nblack;
    pm->nwhite = whitelist ? nwhite : 0;
    *out = pm;
    return 0;
}

int wg_permissions_sandbox(wg_permissions **out)
{
    return wg_permissions_new(out, NULL, 0, readonly_tools,
                              sizeof readonly_tools / sizeof *readonly_tools);
}

void wg_permissions_free(wg_permissions *pm)
{
    if (!pm)
        return;
    free_list(pm->black, pm->nblack);
    free_list(pm->white, pm->nwhite);
    free(pm);
}

static int member(char *const *l, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(l[i], name) == 0)
            return 1;
    return 0;
}

int wg_permissions_is_allowed(const wg_permissions *pm, const char *name)
{
    if (!pm || !name)
        return 0;
    if (member(pm->black, pm->nblack, name))
        return 0;
    if (pm->white && !member(pm->white, pm->nwhite, name))
        return 0;
    return 1;
}

int wg_permissions_filter(const wg_permissions *pm, const char *const *tools, size_t n,
                          const char **out, size_t *nout)
{
    if (!pm || (n && (!tools || !out)) || !nout)
        return wg_error_set(WG_EINVAL, "wg_permissions_filter: NULL argument");
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (wg_permissions_is_allowed(pm, tools[i]))
            out[k++] = tools[i];
    *nout = k;
    return 0;
}

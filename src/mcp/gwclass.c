/* mcp/gwclass.c - upstream tool classification (mcp/gwclass.h). */
#include "mcp/gwclass.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const WRITE_VERBS[] = {
    "write", "edit", "move", "rename", "delete", "del", "remove", "rm", "create", "update",
    "set", "put", "post", "patch", "insert", "upsert", "add", "append", "drop", "truncate",
    "kill", "exec", "execute", "run", "install", "uninstall", "send", "push", "merge",
    "commit", "deploy", "destroy", "purge", "reset", "modify", "replace", "upload",
    "mkdir", "copy", "cp", "mv", "chmod", "chown", "start", "stop", "restart", "apply",
};
static const char *const READ_VERBS[] = {
    "read", "get", "list", "search", "find", "show", "describe", "fetch", "view", "query",
    "lookup", "inspect", "info", "stat", "status", "count", "echo", "tree", "head", "tail",
    "open", "nodes", "allowed", "directory", "diff", "log", "ping", "check",
};
static const char *const SHELL_KEYS[] = {
    "command", "cmd", "script", "shell", "bash", "sh", "code", "commandline", "command_line",
};

static int in(const char *const *tab, size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(tab[i], w))
            return 1;
    return 0;
}

/* Calls back on each word of name; returns the first table hit class. */
static int scan(const char *name, const char *const *tab, size_t n, char *hit, size_t hitsz)
{
    char w[64];
    size_t k = 0;
    for (const char *p = name;; p++) {
        int boundary = !*p || *p == '_' || *p == '-' || *p == '.' || *p == ' ' || *p == '/' ||
                       (k && isupper((unsigned char)*p) && islower((unsigned char)w[k - 1]));
        if (boundary && k) {
            w[k] = '\0';
            if (in(tab, n, w)) {
                snprintf(hit, hitsz, "%s", w);
                return 1;
            }
            k = 0;
        }
        if (!*p)
            return 0;
        if (*p == '_' || *p == '-' || *p == '.' || *p == ' ' || *p == '/')
            continue;
        if (k < sizeof w - 1)
            w[k++] = *p;
    }
}

wg_gw_verdict wg_mcp__gw_classify(const char *tool, const json_t *ann)
{
    wg_gw_verdict v = { WG_GW_WRITE, "gateway.unknown", "" };
    const char *name = tool ? tool : "";
    char hit[64];
    if (json_is_true(json_object_get(ann, "destructiveHint"))) {
        v.cls = WG_GW_DESTRUCTIVE;
        v.rule = "gateway.annotation.destructive";
        snprintf(v.reason, sizeof v.reason, "the upstream marks this tool destructive (destructiveHint)");
    } else if (json_is_true(json_object_get(ann, "readOnlyHint"))) {
        v.cls = WG_GW_READ;
        v.rule = "gateway.annotation.read_only";
        snprintf(v.reason, sizeof v.reason, "the upstream marks this tool read-only (readOnlyHint)");
    } else if (scan(name, WRITE_VERBS, sizeof WRITE_VERBS / sizeof *WRITE_VERBS, hit, sizeof hit)) {
        v.rule = "gateway.verb.write";
        snprintf(v.reason, sizeof v.reason, "the tool name has the write verb \"%.40s\"", hit);
    } else if (scan(name, READ_VERBS, sizeof READ_VERBS / sizeof *READ_VERBS, hit, sizeof hit)) {
        v.cls = WG_GW_READ;
        v.rule = "gateway.verb.read";
        snprintf(v.reason, sizeof v.reason, "the tool name has the read verb \"%.40s\"", hit);
    } else {
        snprintf(v.reason, sizeof v.reason, "no annotation and no known verb: treated as a write");
    }
    return v;
}

const char *wg_mcp__gw_shell_arg(const json_t *args, const char **key)
{
    const char *k;
    json_t *v;
    if (!json_is_object(args))
        return NULL;
    json_object_foreach((json_t *)args, k, v) {
        if (json_is_string(v) && in(SHELL_KEYS, sizeof SHELL_KEYS / sizeof *SHELL_KEYS, k)) {
            if (key)
                *key = k;
            return json_string_value(v);
        }
    }
    return NULL;
}

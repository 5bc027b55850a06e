/* plugins.c - parsing plugin.json (waggle/plugins.h). Pure; the directory
 * walk is in src/store/plugins_store.c. */
#include "waggle/plugins.h"
#include "waggle/skills.h"
#include "waggle/error.h"
#include "waggle/text.h"

#include <stdlib.h>
#include <string.h>

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void wg_plugin_clear(wg_plugin *p)
{
    if (!p)
        return;
    free(p->name);
    free(p->description);
    free_strv(p->skills, p->n_skills);
    free_strv(p->mcp_servers, p->n_mcp_servers);
    free_strv(p->tools, p->n_tools);
    memset(p, 0, sizeof *p);
}

void wg_plugin_list_free(wg_plugin_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        wg_plugin_clear(&list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* An optional array of strings under key. */
static int strv(char ***out, size_t *n, json_t *obj, const char *key)
{
    json_t *a = json_object_get(obj, key);
    *out = NULL;
    *n = 0;
    if (!a)
        return 0;
    if (!json_is_array(a))
        return wg_error_set(WG_EINVAL, "plugin.json: \"%s\" must be an array of strings", key);
    size_t len = json_array_size(a);
    if (len == 0)
        return 0;
    char **v = calloc(len, sizeof *v);
    if (!v)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < len; i++) {
        json_t *s = json_array_get(a, i);
        if (!json_is_string(s)) {
            free_strv(v, i);
            return wg_error_set(WG_EINVAL, "plugin.json: \"%s\" must be an array of strings", key);
        }
        if (!(v[i] = strdup(json_string_value(s)))) {
            free_strv(v, i);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    *out = v;
    *n = len;
    return 0;
}

int wg_plugin_parse(wg_plugin *out, const char *json_text, size_t len, const char *dir_name)
{
    memset(out, 0, sizeof *out);
    json_error_t err;
    json_t *o = json_loadb(json_text, len, JSON_REJECT_DUPLICATES, &err);
    if (!json_is_object(o)) {
        json_decref(o);
        return wg_error_set(WG_EINVAL, "plugin.json is not a JSON object (%s)", err.text);
    }
    wg_plugin p = { 0 };
    int rc = 0;
    json_t *name = json_object_get(o, "name"), *desc = json_object_get(o, "description");
    if ((name && !json_is_string(name)) || (desc && !json_is_string(desc)))
        rc = wg_error_set(WG_EINVAL, "plugin.json: name and description must be strings");
    const char *nm = json_is_string(name) ? json_string_value(name) : dir_name;
    if (rc == 0)
        rc = wg_skill_name_check(nm);
    if (rc == 0 && (!(p.name = strdup(nm)) ||
                    !(p.description = strdup(desc ? json_string_value(desc) : ""))))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0)
        rc = strv(&p.skills, &p.n_skills, o, "skills");
    if (rc == 0)
        rc = strv(&p.mcp_servers, &p.n_mcp_servers, o, "mcpServers");
    if (rc == 0)
        rc = strv(&p.tools, &p.n_tools, o, "tools");
    json_decref(o);
    if (rc < 0) {
        wg_plugin_clear(&p);
        return rc;
    }
    *out = p;
    return 0;
}

static json_t *strv_json(char **v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, wg_text_json_string(v[i]));
    return a;
}

json_t *wg_plugin_json(const wg_plugin *p)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "name", wg_text_json_string(p->name));
    json_object_set_new(o, "description", wg_text_json_string(p->description));
    json_object_set_new(o, "skills", strv_json(p->skills, p->n_skills));
    json_object_set_new(o, "mcpServers", strv_json(p->mcp_servers, p->n_mcp_servers));
    json_object_set_new(o, "tools", strv_json(p->tools, p->n_tools));
    return o;
}

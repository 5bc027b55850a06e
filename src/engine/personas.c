/* personas.c - built-in and custom personas, and generating one from a
 * description (personas.h). The original's persona-data.ts is not part of
 * the reference; these built-ins follow spec 4.2: some personas may acquire
 * and install capabilities, read-only ones (planner, reviewer) cannot. */
#include "waggle/personas.h"
#include "store/files.h"
#include "store/tree.h"
#include "waggle/error.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TOOLS = 128, MAX_PERSONAS = 500, PERSONA_FILE_MAX = 256 * 1024 };

/* Spec 6: READONLY_TOOLS. */
static const char *const readonly_tools[] = {
    "read_file", "search_files", "search_content", "git_status", "git_diff", "git_log",
    "web_search", "web_fetch", "show_plan", "search_memory", "get_identity", "get_awareness",
    "query_knowledge", "query_audit", "list_skills", "search_skills", "list_connectors",
    "list_harnesses", NULL,
};

typedef struct {
    const char *id, *name, *description;
    int read_only;
    const char *const *tools;
} builtin;

static const char *const t_researcher[] = { "web_search", "web_fetch", "search_memory",
    "query_knowledge", "read_file", "search_files", "search_content", "acquire_capability",
    "find_connector", NULL };
static const char *const t_writer[] = { "read_file", "write_file", "edit_file",
    "generate_docx", "search_memory", "web_search", NULL };
static const char *const t_coder[] = { "read_file", "write_file", "edit_file", "search_files",
    "search_content", "bash", "git_status", "git_diff", "git_log", "git_commit",
    "acquire_capability", "install_capability", "find_connector", NULL };
static const char *const t_analyst[] = { "read_file", "search_files", "query_knowledge",
    "search_memory", "web_search", "query_audit", "generate_docx", NULL };
static const char *const t_reviewer[] = { "read_file", "search_files", "search_content",
    "git_status", "git_diff", "git_log", "show_plan", NULL };
static const char *const t_planner[] = { "show_plan", "search_memory", "query_knowledge",
    "list_skills", "search_skills", "list_connectors", "read_file", NULL };

static const builtin builtins[] = {
    { "researcher", "Researcher", "Finds and cross-checks information from the web and memory.", 0, t_researcher },
    { "writer", "Writer", "Drafts and edits documents.", 0, t_writer },
    { "coder", "Coder", "Reads, changes and commits code; may install capabilities (with approval).", 0, t_coder },
    { "analyst", "Analyst", "Answers questions from knowledge, files and the audit log.", 0, t_analyst },
    { "reviewer", "Reviewer", "Reviews changes without modifying anything.", 1, t_reviewer },
    { "planner", "Planner", "Plans work; read-only, cannot install capabilities.", 1, t_planner },
};
enum { N_BUILTINS = sizeof builtins / sizeof builtins[0] };

int wg_personas_tool_readonly(const char *tool)
{
    for (const char *const *t = readonly_tools; *t; t++)
        if (strcmp(*t, tool) == 0)
            return 1;
    return 0;
}

static json_t *string_array(const char *const *list)
{
    json_t *a = json_array();
    for (; a && *list; list++)
        json_array_append_new(a, json_string(*list));
    return a;
}

static json_t *builtin_json(const builtin *b)
{
    char prompt[256];
    snprintf(prompt, sizeof prompt, "You are the %s. %s", b->name, b->description);
    return json_pack("{s:s,s:s,s:s,s:s,s:o,s:b,s:b}", "id", b->id, "name", b->name,
                     "description", b->description, "systemPrompt", prompt, "tools",
                     string_array(b->tools), "readOnly", b->read_only, "custom", 0);
}

static char *personas_dir(const char *data_dir)
{
    return wg_files__join(data_dir, "personas", NULL);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replicas: custom personas are the store's documents personas/<id>.json. */
static int list_shared(json_t *all, wg_store *st)
{
    char **names = NULL;
    size_t n = 0;
    int rc = wg_store_doc_list(&names, &n, st, "personas/");
    for (size_t i = 0; rc == 0 && i < n && i < MAX_PERSONAS; i++) {
        char *text = NULL;
        if (wg_store_doc_get(&text, NULL, st, names[i]) == 0) {
            json_t *p = json_loads(text, 0, NULL);
            if (json_is_object(p))
                json_array_append_new(all, p);
            else
                json_decref(p);
        } else if (wg_error_last_code() != WG_ENOTFOUND) {
            rc = wg_error_last_code();
        }
        free(text);
    }
    wg_store_doc_names_free(names);
    return rc;
}

int wg_personas_list(json_t **out, const char *data_dir)
{
    return wg_personas_list_in(out, NULL, data_dir);
}

int wg_personas_list_in(json_t **out, wg_store *st, const char *data_dir)
{
    json_t *all = json_array();
    if (!all)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < N_BUILTINS; i++)
        json_array_append_new(all, builtin_json(&builtins[i]));
    if (st && wg_store_is_shared(st)) {
        int rc = list_shared(all, st);
        if (rc < 0) {
            json_decref(all);
            return rc;
        }
        *out = all;
        return 0;
    }
    char *dir = personas_dir(data_dir);
    DIR *d = dir ? opendir(dir) : NULL;
    char *names[MAX_PERSONAS];
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d)) && n < MAX_PERSONAS;) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0 && wg_files__name_ok(e->d_name))
            if ((names[n] = strdup(e->d_name)))
                n++;
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, name_cmp);   /* stable order for clients and tests */
    for (size_t i = 0; i < n; i++) {
        char *path = wg_files__join(dir, names[i], NULL);
        char *text = NULL;
        if (path && wg_files__read(&text, NULL, path, PERSONA_FILE_MAX) == 0) {
            json_t *p = json_loads(text, 0, NULL);
            if (json_is_object(p))
                json_array_append_new(all, p);
            else
                json_decref(p);
        }
        free(text);
        free(path);
        free(names[i]);
    }
    free(dir);
    *out = all;
    return 0;
}

/* "My Research Bot" -> "my-research-bot"; "" when nothing usable remains. */
static void slugify(char *dst, size_t cap, const char *name)
{
    size_t k = 0;
    int dash = 0;
    for (const unsigned char *s = (const unsigned char *)name; *s && k + 1 < cap; s++) {
        if (isalnum(*s) && *s < 0x80) {
            if (dash && k)
                dst[k++] = '-';
            dash = 0;
            if (k + 1 < cap)
                dst[k++] = (char)tolower(*s);
        } else {
            dash = 1;
        }
    }
    dst[k] = '\0';
}

static int is_builtin(const char *id)
{
    for (size_t i = 0; i < N_BUILTINS; i++)
        if (strcmp(builtins[i].id, id) == 0)
            return 1;
    return 0;
}

static int tool_name_ok(const char *t)
{
    size_t n = strlen(t);
    return n > 0 && n <= 128 &&
           strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789_:-.") == n;
}

static int opt_string(const json_t *body, const char *field, size_t max, const char **out)
{
    json_t *v = json_object_get(body, field);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return wg_error_set(WG_EINVAL, "%s must be a string", field);
    if (json_string_length(v) > max)
        return wg_error_set(WG_EINVAL, "%s is longer than %zu characters", field, max);
    *out = json_string_value(v);
    return 0;
}

int wg_personas_create(json_t **out, const char *data_dir, const json_t *body)
{
    return wg_personas_create_in(out, NULL, data_dir, body);
}

/* Saves a new persona document; the write lock makes "absent, then
 * written" one step across replicas. */
static int create_shared(wg_store *st, const char *id, const char *text)
{
    char name[96];
    snprintf(name, sizeof name, "personas/%s.json", id);
    int rc = wg_store_begin(st, WG_STORE_TX_WRITE);
    if (rc < 0)
        return rc;
    char *existing = NULL;
    rc = wg_store_doc_get(&existing, NULL, st, name);
    free(existing);
    if (rc == 0)
        rc = wg_error_set(WG_EEXISTS, "a persona with this name already exists");
    else if (rc == WG_ENOTFOUND)
        rc = wg_store_doc_put(st, name, text, strlen(text));
    if (rc < 0) {
        wg_store_rollback(st);
        return rc;
    }
    return wg_store_commit(st);
}

int wg_personas_create_in(json_t **out, wg_store *st, const char *data_dir, const json_t *body)
{
    const char *name = NULL, *description = "", *prompt = "";
    int rc;
    if ((rc = opt_string(body, "name", 100, &name)) < 0 ||
        (rc = opt_string(body, "description", 2000, &description)) < 0 ||
        (rc = opt_string(body, "systemPrompt", 20000, &prompt)) < 0)
        return rc;
    if (!name || !*name)
        return wg_error_set(WG_EINVAL, "name is required");
    json_t *ro = json_object_get(body, "readOnly");
    if (ro && !json_is_boolean(ro))
        return wg_error_set(WG_EINVAL, "readOnly must be a boolean");
    int read_only = ro && json_is_true(ro);
    json_t *tools = json_object_get(body, "tools");
    if (!json_is_array(tools))
        return wg_error_set(WG_EINVAL, "tools must be an array of tool names");
    if (json_array_size(tools) > MAX_TOOLS)
        return wg_error_set(WG_EINVAL, "tools has more than %d entries", MAX_TOOLS);
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) {
        if (!json_is_string(t) || !tool_name_ok(json_string_value(t)))
            return wg_error_set(WG_EINVAL, "tools[%zu] must be a tool name ([a-z0-9_:-.])", i);
        if (read_only && !wg_personas_tool_readonly(json_string_value(t)))
            return wg_error_set(WG_EINVAL, "tools[%zu] is not a read-only tool, but readOnly is true",
                                i);
    }
    char id[65];
    slugify(id, sizeof id, name);
    if (!*id)
        return wg_error_set(WG_EINVAL, "name must contain letters or digits");
    if (is_builtin(id))
        return wg_error_set(WG_EEXISTS, "a built-in persona has this name");
    if (st && wg_store_is_shared(st)) {
        json_t *p = json_pack("{s:s,s:s,s:s,s:s,s:O,s:b,s:b}", "id", id, "name", name,
                              "description", description, "systemPrompt", prompt, "tools", tools,
                              "readOnly", read_only, "custom", 1);
        char *text = p ? json_dumps(p, JSON_INDENT(2)) : NULL;
        rc = text ? create_shared(st, id, text) : wg_error_set(WG_ENOMEM, "out of memory");
        free(text);
        if (rc < 0) {
            json_decref(p);
            return rc;
        }
        *out = p;
        return 0;
    }
    char file[80];
    snprintf(file, sizeof file, "%s.json", id);
    char *dir = personas_dir(data_dir);
    char *path = dir ? wg_files__join(dir, file, NULL) : NULL;
    free(dir);
    if (!path)
        return wg_error_set(WG_ENOMEM, "out of memory");
    char *existing = NULL;
    if (wg_files__read(&existing, NULL, path, PERSONA_FILE_MAX) == 0) {
        free(existing);
        free(path);
        return wg_error_set(WG_EEXISTS, "a persona with this name already exists");
    }
    json_t *p = json_pack("{s:s,s:s,s:s,s:s,s:O,s:b,s:b}", "id", id, "name", name,
                          "description", description, "systemPrompt", prompt, "tools", tools,
                          "readOnly", read_only, "custom", 1);
    char *text = p ? json_dumps(p, JSON_INDENT(2)) : NULL;
    rc = text ? wg_files__write_atomic(path, text, strlen(text))
              : wg_error_set(WG_ENOMEM, "out of memory");
    free(text);
    free(path);
    if (rc < 0) {
        json_decref(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* ---- generation -------------------------------------------------------- */

typedef struct {
    const char *label;            /* names a generated persona: "<label> assistant" */
    const char *const *stems;     /* a word starting with a stem triggers the row */
    const char *const *tools;
} keyword_row;

static const char *const s_research[] = { "research", "investigat", "search", "find", "learn", "source", NULL };
static const char *const k_research[] = { "web_search", "web_fetch", "search_memory", "query_knowledge", NULL };
static const char *const s_code[] = { "code", "coding", "program", "develop", "implement", "bug", "refactor", "software", NULL };
static const char *const k_code[] = { "read_file", "write_file", "edit_file", "search_files", "search_content", "bash", "git_status", "git_diff", "git_log", "git_commit", NULL };
static const char *const s_write[] = { "writ", "draft", "document", "report", "blog", "edit", "copy", NULL };
static const char *const k_write[] = { "read_file", "write_file", "edit_file", "generate_docx", NULL };
static const char *const s_review[] = { "review", "audit", "check", "inspect", "complian", NULL };
static const char *const k_review[] = { "read_file", "search_files", "search_content", "git_diff", "git_log", "query_audit", NULL };
static const char *const s_plan[] = { "plan", "organi", "schedul", "roadmap", "priorit", NULL };
static const char *const k_plan[] = { "show_plan", "search_memory", "list_skills", NULL };
static const char *const s_data[] = { "data", "analy", "metric", "sql", "statistic", "spreadsheet", NULL };
static const char *const k_data[] = { "query_knowledge", "read_file", "search_files", NULL };
static const char *const s_connect[] = { "connect", "integrat", "slack", "github", "jira", "email", "crm", NULL };
static const char *const k_connect[] = { "list_connectors", "find_connector", "acquire_capability", NULL };

static const keyword_row keyword_table[] = {
    { "Research", s_research, k_research }, { "Coding", s_code, k_code },
    { "Writing", s_write, k_write },        { "Review", s_review, k_review },
    { "Planning", s_plan, k_plan },         { "Data", s_data, k_data },
    { "Integration", s_connect, k_connect },
};

static const char *const base_tools[] = { "search_memory", "get_identity", NULL };
static const char *const readonly_phrases[] = { "read-only", "readonly", "read only",
    "without modifying", "cannot modify", "no changes", "must not change", NULL };

/* Lower-cased words of at least 3 letters, into words[] (pointers into buf). */
static size_t words_of(char *buf, const char **words, size_t max)
{
    size_t n = 0;
    for (char *s = buf; *s;) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        char *start = s;
        while (*s && isalnum((unsigned char)*s)) {
            *s = (char)tolower((unsigned char)*s);
            s++;
        }
        if (*s)
            *s++ = '\0';
        if (s - start >= 3 && n < max)
            words[n++] = start;
    }
    return n;
}

static void add_tool(json_t *tools, const char *t, int read_only)
{
    if (read_only && !wg_personas_tool_readonly(t))
        return;
    size_t i;
    json_t *v;
    json_array_foreach(tools, i, v)
        if (strcmp(json_string_value(v), t) == 0)
            return;
    json_array_append_new(tools, json_string(t));
}

/* Installed skills whose name shares a word with the description:
 * DATA_DIR/skills/<name>.md, or the shared store's skills for replicas. */
static int word_match(const char *base, const char **words, size_t n)
{
    char lower[96];
    size_t l = strlen(base);
    if (l >= sizeof lower)
        return 0;
    for (size_t i = 0; i <= l; i++)
        lower[i] = (char)tolower((unsigned char)base[i]);
    for (size_t i = 0; i < n; i++)
        if (strstr(lower, words[i]))
            return 1;
    return 0;
}

/* Replicas: the shared store's skills/<name>.md documents (store/tree.h). */
static json_t *matching_shared(wg_store *st, const char **words, size_t n)
{
    json_t *out = json_array();
    char **names = NULL;
    size_t count = 0;
    if (wg_tree__list(&names, &count, st, NULL, "skills", ".md") < 0)
        wg_error_clear();   /* suggestions only: none when the store cannot say */
    for (size_t i = 0; out && i < count; i++)
        if (word_match(names[i], words, n))
            json_array_append_new(out, json_string(names[i]));
    wg_store_doc_names_free(names);
    return out;
}

static json_t *matching_skills(wg_store *st, const char *data_dir, const char **words, size_t n)
{
    if (wg_tree__shared(st))
        return matching_shared(st, words, n);
    json_t *out = json_array();
    char *dir = wg_files__join(data_dir, "skills", NULL);
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".md") != 0 || !wg_files__name_ok(e->d_name))
            continue;
        char base[80];
        snprintf(base, sizeof base, "%.*s", (int)(l - 3), e->d_name);
        if (word_match(base, words, n))
            json_array_append_new(out, json_string(base));
    }
    if (d)
        closedir(d);
    free(dir);
    return out;
}

int wg_personas_generate(json_t **out, const char *data_dir, const char *description,
                          const char *name)
{
    return wg_personas_generate_in(out, NULL, data_dir, description, name);
}

int wg_personas_generate_in(json_t **out, wg_store *st, const char *data_dir,
                            const char *description, const char *name)
{
    if (!description || !*description)
        return wg_error_set(WG_EINVAL, "description is required");
    if (strlen(description) > 4000)
        return wg_error_set(WG_EINVAL, "description is longer than 4000 characters");
    char *buf = strdup(description);
    if (!buf)
        return wg_error_set(WG_ENOMEM, "out of memory");
    char *lower = strdup(description);
    for (char *s = lower; s && *s; s++)
        *s = (char)tolower((unsigned char)*s);
    int read_only = 0;
    for (const char *const *p = readonly_phrases; lower && *p; p++)
        if (strstr(lower, *p))
            read_only = 1;
    free(lower);
    const char *words[256];
    size_t n = words_of(buf, words, 256);
    json_t *tools = json_array();
    json_t *matched = json_array();
    const char *label = NULL;
    for (const char *const *t = base_tools; *t; t++)
        add_tool(tools, *t, read_only);
    for (size_t r = 0; r < sizeof keyword_table / sizeof *keyword_table; r++) {
        int hit = 0;
        for (size_t w = 0; w < n && !hit; w++)
            for (const char *const *s = keyword_table[r].stems; *s && !hit; s++)
                if (strncmp(words[w], *s, strlen(*s)) == 0) {
                    hit = 1;
                    json_array_append_new(matched, json_string(*s));
                }
        if (hit && !label)
            label = keyword_table[r].label;
        if (hit)
            for (const char *const *t = keyword_table[r].tools; *t; t++)
                add_tool(tools, *t, read_only);
    }
    json_t *skills = matching_skills(st, data_dir, words, n);
    char gen_name[128];
    if (!name || !*name) {
        snprintf(gen_name, sizeof gen_name, "%s assistant%s", label ? label : "Custom",
                 read_only ? " (read-only)" : "");
        name = gen_name;
    }
    char id[65];
    slugify(id, sizeof id, name);
    char prompt[4400];
    snprintf(prompt, sizeof prompt, "You are %s. Your job: %s%s", name, description,
             read_only ? "\nYou are read-only: never modify files, repositories or services." : "");
    free(buf);
    json_t *p = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:b,s:b,s:o}", "id", id, "name", name,
                          "description", description, "systemPrompt", prompt, "tools", tools,
                          "skills", skills, "readOnly", read_only, "custom", 1,
                          "matchedKeywords", matched);
    if (!p)
        return wg_error_set(WG_EINVAL, "description must be valid UTF-8 text");
    *out = p;
    return 0;
}

/* serve_config.c - `waggle serve --config FILE` (serve_config.h). */
#include "serve_config.h"
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys that must not be in a file: the token is a secret, and a config
 * naming another config would be a loop. */
static const char *const REFUSED[] = { "config", "api-token", "token" };

typedef struct argv_buf {
    char **v;
    int n, cap;
} argv_buf;

static int push(argv_buf *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        int cap = a->cap ? a->cap * 2 : 16;
        char **v = realloc(a->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    if (!(a->v[a->n] = strdup(s)))
        return -1;
    a->v[++a->n] = NULL;
    return 0;
}

static const struct option *find_option(const struct option *longopts, const char *name)
{
    for (const struct option *o = longopts; o->name; o++)
        if (!strcmp(o->name, name))
            return o;
    return NULL;
}

/* One scalar value as a flag argument: a string, or a whole number. */
static int scalar_text(char *buf, size_t cap, const json_t *v)
{
    if (json_is_string(v)) {
        if (json_string_length(v) >= cap || strlen(json_string_value(v)) != json_string_length(v))
            return -1;
        snprintf(buf, cap, "%s", json_string_value(v));
        return 0;
    }
    if (json_is_integer(v)) {
        snprintf(buf, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return 0;
    }
    return -1;
}

static int bad(const char *cmd, const char *path, const char *key, const char *why)
{
    return wg_cli_usage(cmd, "%s: \"%s\" %s", path, key, why);
}

/* Appends the flags of one key. Returns 0 or an exit code. */
static int add_key(argv_buf *a, const char *cmd, const char *path, const char *key,
                   const json_t *v, const struct option *longopts)
{
    for (size_t i = 0; i < sizeof REFUSED / sizeof *REFUSED; i++)
        if (!strcmp(key, REFUSED[i]))
            return bad(cmd, path, key, !strcmp(key, "config")
                       ? "cannot be set in a config file"
                       : "is a secret: use $WAGGLE_API_TOKEN or DATA_DIR/api-token, never the file");
    const struct option *o = find_option(longopts, key);
    if (!o)
        return bad(cmd, path, key, "is not an option of waggle serve (see waggle serve --help)");
    char flag[96], value[4096];
    snprintf(flag, sizeof flag, "--%s", key);
    if (o->has_arg == no_argument) {
        if (!json_is_boolean(v))
            return bad(cmd, path, key, "takes true or false");
        return json_is_true(v) && push(a, flag) < 0 ? WG_EXIT_FAIL : 0;
    }
    const json_t *items = v;
    json_t *one = NULL;
    if (!json_is_array(v)) {
        one = json_array();
        json_array_append(one, (json_t *)v);
        items = one;
    }
    size_t i;
    const json_t *item;
    int rc = 0;
    json_array_foreach(items, i, item) {
        if (scalar_text(value, sizeof value, item) < 0) {
            rc = bad(cmd, path, key, "takes a string or a whole number (or an array of them)");
            break;
        }
        if (push(a, flag) < 0 || push(a, value) < 0) {
            rc = WG_EXIT_FAIL;
            break;
        }
    }
    json_decref(one);
    return rc;
}

int serve_config_argv(char ***out, int *argc_out, const char *cmd, const char *path,
                      const struct option *longopts)
{
    char *text = NULL;
    size_t len = 0;
    int rrc = wg_cli_read_all(&text, &len, path, SERVE_CONFIG_MAX_BYTES);
    if (rrc < 0)
        return wg_cli_error(cmd, rrc);
    json_error_t err;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return doc ? wg_cli_usage(cmd, "%s: the config must be a JSON object", path)
                   : wg_cli_usage(cmd, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    }
    argv_buf a = { 0 };
    int rc = push(&a, cmd) < 0 ? WG_EXIT_FAIL : 0;
    const char *key;
    const json_t *v;
    json_object_foreach(doc, key, v) {
        if (rc)
            break;
        rc = add_key(&a, cmd, path, key, v, longopts);
    }
    json_decref(doc);
    if (rc) {
        serve_config_free(a.v, a.n);
        return rc == WG_EXIT_FAIL ? wg_cli_fail(cmd, "out of memory reading %s", path) : rc;
    }
    *out = a.v;
    *argc_out = a.n;
    return 0;
}

void serve_config_free(char **argv, int argc)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

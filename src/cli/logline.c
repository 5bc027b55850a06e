/* logline.c - key=value log lines as JSON (logline.h). */
#include "logline.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Events whose lines are warnings or errors; everything else is info. */
static const struct { const char *event, *level; } LEVELS[] = {
    { "error", "error" }, { "mhd", "warn" }, { "watch", "warn" }, { "refused", "warn" },
};

static const char *level_of(const char *event)
{
    for (size_t i = 0; i < sizeof LEVELS / sizeof *LEVELS; i++)
        if (!strcmp(LEVELS[i].event, event))
            return LEVELS[i].level;
    return "info";
}

/* A field name: [a-z0-9_]+ */
static int is_key(const char *s, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

/* Reads one value at *p (quoted or bare) into a new string; advances *p. */
static char *read_value(const char **p)
{
    const char *s = *p;
    size_t cap = strlen(s) + 1, k = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    if (*s == '"') {
        for (s++; *s && *s != '"'; s++) {
            if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
                s++;
            out[k++] = *s;
        }
        if (*s == '"')
            s++;
    } else {
        while (*s && *s != ' ')
            out[k++] = *s++;
    }
    out[k] = '\0';
    *p = s;
    return out;
}

static json_t *value_json(const char *v)
{
    size_t n = strlen(v);
    if (n && n < 16 && strspn(v, "0123456789") == n)
        return json_integer(strtoll(v, NULL, 10));
    json_t *s = json_string(v);
    return s ? s : json_string("(not UTF-8)");
}

static void iso_ms(char *buf, size_t cap, int64_t ms)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, cap - n, ".%03dZ", (int)(ms % 1000));
}

char *wg_cli_log_json(const char *line, int64_t now_ms)
{
    char ts[40];
    iso_ms(ts, sizeof ts, now_ms);
    const char *p = line;
    size_t ev = strcspn(p, " ");
    char event[64];
    snprintf(event, sizeof event, "%.*s", (int)(ev < sizeof event ? ev : sizeof event - 1), p);
    json_t *o = json_pack("{s:s,s:s,s:s}", "ts", ts, "level", level_of(event), "event", event);
    if (!o)
        return NULL;
    p += ev;
    char *msg = calloc(1, strlen(line) + 1);
    while (msg && *p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t word = strcspn(p, " =");
        if (p[word] == '=' && is_key(p, word)) {
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)(word < sizeof key ? word : sizeof key - 1), p);
            p += word + 1;
            char *v = read_value(&p);
            if (v && strcmp(key, "ts") && strcmp(key, "level") && strcmp(key, "event"))
                json_object_set_new(o, key, value_json(v));
            free(v);
        } else {
            size_t n = strcspn(p, " ");
            if (*msg)
                strcat(msg, " ");
            strncat(msg, p, n);
            p += n;
        }
    }
    if (msg && *msg)
        json_object_set_new(o, "msg", value_json(msg));
    free(msg);
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

/* connector.c - the connector SDK helpers (spec 8.1): capability tags,
 * ConnectorDefinition, ConnectorResult builders and safeErrorText.
 *
 * safeErrorText is the last line of defence between an upstream error body
 * and the LLM context: it truncates, and it redacts anything that looks like
 * a credential (reference 13 item 14), not only the one we sent.
 */
#include "waggle/connector.h"
#include "waggle/error.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const auth_names[] = { "bearer", "oauth2", "api_key", "basic" };

const char *wg_auth_type_name(wg_auth_type t)
{
    if ((unsigned)t >= sizeof auth_names / sizeof auth_names[0])
        return "bearer";
    return auth_names[t];
}

const wg_connector_action *wg_connector_find_action(const wg_connector_spec *spec,
                                                    const char *name)
{
    if (!spec || !name)
        return NULL;
    for (size_t i = 0; i < spec->n_actions; i++)
        if (strcmp(spec->actions[i].name, name) == 0)
            return &spec->actions[i];
    return NULL;
}

static int add_tag(json_t *arr, const char *tag)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
        if (strcmp(json_string_value(v), tag) == 0)
            return 0;
    return json_array_append_new(arr, json_string(tag));
}

int wg_connector_capabilities(json_t **out, const wg_connector_spec *spec)
{
    static const char *const search_words[] = { "search", "find", "list" };
    json_t *arr = json_array();
    if (!arr)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (size_t i = 0; i < spec->n_actions; i++) {
        const wg_connector_action *a = &spec->actions[i];
        int rc = add_tag(arr, a->risk == WG_RISK_LOW ? "read" : "write");
        for (size_t w = 0; w < 3 && rc == 0; w++)
            if (strstr(a->name, search_words[w]))
                rc = add_tag(arr, "search");
        if (rc) {
            json_decref(arr);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    *out = arr;
    return 0;
}

int wg_connector_definition(json_t **out, const wg_connector_spec *spec, const char *status)
{
    json_t *caps = NULL, *tools = json_array(), *actions = json_array();
    json_t *def = NULL;
    if (!tools || !actions || wg_connector_capabilities(&caps, spec) < 0)
        goto nomem;
    for (size_t i = 0; i < spec->n_actions; i++) {
        const wg_connector_action *a = &spec->actions[i];
        char name[256];
        snprintf(name, sizeof name, "connector_%s_%s", spec->id, a->name);
        if (json_array_append_new(tools, json_string(name)) ||
            json_array_append_new(actions, json_pack("{s:s,s:s,s:s}", "name", a->name,
                                  "description", a->description,
                                  "riskLevel", wg_risk_name(a->risk))))
            goto nomem;
    }
    def = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:O,s:O}",
                    "id", spec->id, "name", spec->name, "description", spec->description,
                    "service", spec->service, "authType", wg_auth_type_name(spec->auth_type),
                    "status", status, "capabilities", caps, "substrate", "waggle",
                    "tools", tools, "actions", actions);
    if (!def)
        goto nomem;
    if (spec->logo_slug) {
        char logo[256];
        snprintf(logo, sizeof logo, "https://cdn.jsdelivr.net/npm/simple-icons@v11/icons/%s.svg",
                 spec->logo_slug);
        json_object_set_new(def, "logoUrl", json_string(logo));
    }
    if (spec->category)
        json_object_set_new(def, "category", json_string(spec->category));
    if (spec->setup_guide)
        json_object_set_new(def, "setupGuide", json_string(spec->setup_guide));
    json_decref(caps);
    json_decref(tools);
    json_decref(actions);
    *out = def;
    return 0;
nomem:
    json_decref(caps);
    json_decref(tools);
    json_decref(actions);
    json_decref(def);
    return wg_error_set(WG_ENOMEM, "out of memory");
}

json_t *wg_connector_ok(json_t *data)
{
    json_t *r = json_pack("{s:b}", "success", 1);
    if (!r) {
        json_decref(data);
        return NULL;
    }
    json_object_set_new(r, "data", data ? data : json_null());
    return r;
}

json_t *wg_connector_fail(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return json_pack("{s:b,s:s}", "success", 0, "error", buf);
}

/* ---- safeErrorText ------------------------------------------------------ */

/* Token prefixes of well-known credential formats (GitHub, GitLab, Slack,
 * Linear, Notion, SendGrid, OpenAI-style, AWS, JWT). */
static const char *const secret_prefixes[] = {
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-",
    "xoxa-", "xoxs-", "xapp-", "lin_api_", "secret_", "ntn_", "SG.", "sk-", "AKIA", "eyJ",
};

/* A word naming a secret, followed by ':' or '=' (quotes allowed), makes the
 * next value a secret. */
static const char *const secret_keys[] = {
    "token", "secret", "password", "passwd", "api_key", "apikey", "api-key",
    "authorization", "access_key", "private-token", "private_token", "x-api-key", "key",
};

/* Words that introduce a credential in an auth header value. */
static const char *const auth_schemes[] = { "bearer ", "basic ", "bot ", "token " };

static int tok_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '-' || c == '.' || c == '=' || c == '+' ||
           c == '/' || c == '~';
}

typedef struct {
    char *buf;
    size_t len, cap;
} sbuf;

static int sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->buf, cap);
        if (!p)
            return -1;
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = 0;
    return 0;
}

/* Length of the secret value starting at s (after optional quotes/space). */
static size_t skip_value(const char *s, size_t n, size_t *lead)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '"' || s[i] == '\''))
        i++;
    *lead = i;
    size_t j = i;
    while (j < n && tok_char((unsigned char)s[j]))
        j++;
    return j - i;
}

static size_t match_prefix(const char *s, size_t n, const char *word, int nocase)
{
    size_t w = strlen(word);
    if (w > n)
        return 0;
    if (nocase ? strncasecmp(s, word, w) : strncmp(s, word, w))
        return 0;
    return w;
}

/* One scrubbing step at position i; returns bytes consumed (0 = none). */
static size_t scrub_at(sbuf *o, const char *s, size_t n, size_t i, int *err)
{
    int boundary = i == 0 || !tok_char((unsigned char)s[i - 1]);
    if (!boundary)
        return 0;
    for (size_t k = 0; k < sizeof secret_prefixes / sizeof *secret_prefixes; k++) {
        size_t w = match_prefix(s + i, n - i, secret_prefixes[k], 0);
        if (!w)
            continue;
        size_t j = i + w;
        while (j < n && tok_char((unsigned char)s[j]))
            j++;
        if (j - i < w + 6)        /* too short to be a credential */
            continue;
        *err |= sb_put(o, "[redacted]", 10);
        return j - i;
    }
    for (size_t k = 0; k < sizeof auth_schemes / sizeof *auth_schemes; k++) {
        size_t w = match_prefix(s + i, n - i, auth_schemes[k], 1), lead;
        if (!w)
            continue;
        size_t v = skip_value(s + i + w, n - i - w, &lead);
        if (v < 6)
            continue;
        *err |= sb_put(o, s + i, w + lead);
        *err |= sb_put(o, "[redacted]", 10);
        return w + lead + v;
    }
    for (size_t k = 0; k < sizeof secret_keys / sizeof *secret_keys; k++) {
        size_t w = match_prefix(s + i, n - i, secret_keys[k], 1);
        if (!w)
            continue;
        size_t j = i + w;
        while (j < n && (s[j] == '"' || s[j] == '\'' || s[j] == ' '))
            j++;
        if (j >= n || (s[j] != ':' && s[j] != '='))
            continue;
        j++;
        size_t lead, v = skip_value(s + j, n - j, &lead);
        if (v == 0)
            continue;
        /* "Authorization: Bearer <t>": the scheme word stays, the token goes */
        for (size_t a = 0; a < sizeof auth_schemes / sizeof *auth_schemes; a++) {
            size_t w2 = match_prefix(s + j + lead, n - j - lead, auth_schemes[a], 1), lead2;
            if (!w2)
                continue;
            size_t v2 = skip_value(s + j + lead + w2, n - j - lead - w2, &lead2);
            *err |= sb_put(o, s + i, j - i + lead + w2 + lead2);
            *err |= sb_put(o, "[redacted]", 10);
            return j - i + lead + w2 + lead2 + v2;
        }
        *err |= sb_put(o, s + i, j - i + lead);
        *err |= sb_put(o, "[redacted]", 10);
        return j - i + lead + v;
    }
    return 0;
}

static char *scrub(const char *text, size_t len, const char *const *secrets)
{
    sbuf o = { 0 };
    int err = sb_put(&o, "", 0);
    for (size_t i = 0; i < len && !err;) {
        int hit = 0;
        for (size_t k = 0; secrets && secrets[k]; k++) {
            size_t w = strlen(secrets[k]);
            if (w >= 4 && w <= len - i && memcmp(text + i, secrets[k], w) == 0) {
                err |= sb_put(&o, "[redacted]", 10);
                i += w;
                hit = 1;
                break;
            }
        }
        if (hit)
            continue;
        size_t used = scrub_at(&o, text, len, i, &err);
        if (used) {
            i += used;
            continue;
        }
        unsigned char c = (unsigned char)text[i];
        char ch = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
        err |= sb_put(&o, &ch, 1);
        i++;
    }
    if (err) {
        free(o.buf);
        return NULL;
    }
    return o.buf;
}

int wg_connector_safe_error(char **out, const char *prefix, long status,
                            const char *text, size_t len, const char *const *secrets)
{
    enum { LIMIT = 500 };
    char *clean = scrub(text ? text : "", text ? len : 0, secrets);
    if (!clean)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t n = strlen(clean);
    const char *tail = "";
    if (n > LIMIT) {
        n = LIMIT;
        while (n > 0 && ((unsigned char)clean[n] & 0xC0) == 0x80)
            n--;              /* do not cut a UTF-8 sequence in half */
        tail = "...[truncated]";
    }
    char *msg = NULL;
    int rc;
    if (n == 0)
        rc = asprintf(&msg, "%s %ld", prefix, status);
    else
        rc = asprintf(&msg, "%s %ld: %.*s%s", prefix, status, (int)n, clean, tail);
    free(clean);
    if (rc < 0)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = msg;
    return 0;
}

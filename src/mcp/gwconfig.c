/* mcp/gwconfig.c - the gateway's mcpServers file (mcp/gwconfig.h). */
#include "mcp/gwconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "waggle/error.h"

/* Key fragments that name a secret: such a value must come from the vault. */
static const char *const SECRET_KEYS[] = {
    "token", "key", "secret", "password", "passwd", "auth", "credential",
};

static int secret_key(const char *k)
{
    for (size_t i = 0; i < sizeof SECRET_KEYS / sizeof *SECRET_KEYS; i++)
        if (strcasestr(k, SECRET_KEYS[i]))
            return 1;
    return 0;
}

int wg_mcp__gw_name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > WG_GW_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* Headers the Streamable HTTP transport sets itself (mcp/uphttp.h), or that
 * describe the message rather than the caller: a configured one would
 * contradict them. */
static const char *const RESERVED_HEADERS[] = {
    "content-type", "content-length", "accept", "host", "transfer-encoding", "connection", "expect",
    "mcp-session-id", "mcp-protocol-version", "last-event-id",
};

/* An HTTP field name (RFC 9110 5.1: a token) the transport does not own. */
static int header_name_ok(const char *k)
{
    for (const char *p = k; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("!#$%&'*+-.^_`|~", c)))
            return 0;
    }
    for (size_t i = 0; i < sizeof RESERVED_HEADERS / sizeof *RESERVED_HEADERS; i++)
        if (!strcasecmp(k, RESERVED_HEADERS[i]))
            return 0;
    return *k != '\0';
}

static int text_ok(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 && *s != '\t')
            return 0;
    return 1;
}

static int pairs_parse(wg_gw_server *s, const json_t *obj, const char *what)
{
    if (!obj)
        return 0;
    if (!json_is_object(obj) || json_object_size(obj) > WG_GW_PAIRS_MAX)
        return wg_error_set(WG_EINVAL, "gateway: server %s: %s must be an object of at most %d strings",
                            s->name, what, WG_GW_PAIRS_MAX);
    s->pairs = calloc(json_object_size(obj) + 1, sizeof *s->pairs);
    if (!s->pairs)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        if (!json_is_string(v) || !*k || strlen(k) > 256 || !text_ok(k) || strchr(k, '='))
            return wg_error_set(WG_EINVAL, "gateway: server %s: %s entry is not a valid name/string", s->name, what);
        const char *val = json_string_value(v);
        if (strlen(val) != json_string_length(v) || !text_ok(val))
            return wg_error_set(WG_EINVAL, "gateway: server %s: %s %s has a control character", s->name, what, k);
        int vault = strncmp(val, WG_GW_VAULT_PREFIX, strlen(WG_GW_VAULT_PREFIX)) == 0;
        const char *stored = vault ? val + strlen(WG_GW_VAULT_PREFIX) : val;
        if (vault && !*stored)
            return wg_error_set(WG_EINVAL, "gateway: server %s: %s %s: empty vault reference", s->name, what, k);
        if (!vault && *val && secret_key(k))
            return wg_error_set(WG_EINVAL,
                "gateway: server %s: %s %s looks like a secret in clear; store it with `waggle vault set` "
                "and write \"vault:NAME\"", s->name, what, k);
        wg_gw_pair *p = &s->pairs[s->npairs];
        p->key = strdup(k);
        p->value = strdup(stored);
        p->from_vault = vault;
        if (!p->key || !p->value) {
            free(p->key);
            free(p->value);
            return wg_error_set(WG_ENOMEM, "gateway: out of memory");
        }
        s->npairs++;
    }
    return 0;
}

static int args_parse(wg_gw_server *s, const json_t *a)
{
    if (!a)
        return 0;
    if (!json_is_array(a) || json_array_size(a) > WG_GW_ARGS_MAX)
        return wg_error_set(WG_EINVAL, "gateway: server %s: args must be an array of at most %d strings",
                            s->name, WG_GW_ARGS_MAX);
    s->args = calloc(json_array_size(a) + 1, sizeof *s->args);
    if (!s->args)
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
            return wg_error_set(WG_EINVAL, "gateway: server %s: args[%zu] is not a string", s->name, i);
        if (!(s->args[s->nargs] = strdup(json_string_value(v))))
            return wg_error_set(WG_ENOMEM, "gateway: out of memory");
        s->nargs++;
    }
    return 0;
}

static int server_parse(wg_gw_server *s, const char *name, const json_t *o)
{
    if (!wg_mcp__gw_name_ok(name))
        return wg_error_set(WG_EINVAL, "gateway: server name must be 1..%d of [A-Za-z0-9_-]", WG_GW_NAME_MAX);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->timeout_ms = WG_GW_TIMEOUT_MS;
    if (!json_is_object(o))
        return wg_error_set(WG_EINVAL, "gateway: server %s must be an object", name);
    const json_t *cmd = json_object_get(o, "command"), *url = json_object_get(o, "url");
    if (!!cmd == !!url)
        return wg_error_set(WG_EINVAL, "gateway: server %s needs exactly one of \"command\" or \"url\"", name);
    const json_t *t = json_object_get(o, "timeoutMs");
    if (t) {
        if (!json_is_integer(t) || json_integer_value(t) < 1 || json_integer_value(t) > WG_GW_TIMEOUT_MAX)
            return wg_error_set(WG_EINVAL, "gateway: server %s: timeoutMs must be 1..%d", name, WG_GW_TIMEOUT_MAX);
        s->timeout_ms = (long)json_integer_value(t);
    }
    if (cmd) {
        if (!json_is_string(cmd) || !*json_string_value(cmd) ||
            strlen(json_string_value(cmd)) != json_string_length(cmd) || !text_ok(json_string_value(cmd)))
            return wg_error_set(WG_EINVAL, "gateway: server %s: command must be a non-empty string", name);
        if (json_object_get(o, "headers"))
            return wg_error_set(WG_EINVAL, "gateway: server %s: headers belong to a url server", name);
        if (!(s->command = strdup(json_string_value(cmd))))
            return wg_error_set(WG_ENOMEM, "gateway: out of memory");
        int rc = args_parse(s, json_object_get(o, "args"));
        return rc ? rc : pairs_parse(s, json_object_get(o, "env"), "env");
    }
    const char *u = json_is_string(url) ? json_string_value(url) : "";
    if ((strncmp(u, "http://", 7) && strncmp(u, "https://", 8)) || strlen(u) > 2048 || !text_ok(u) ||
        strchr(u, ' '))
        return wg_error_set(WG_EINVAL, "gateway: server %s: url must be an http(s) URL", name);
    if (strchr(u, '@'))   /* user:password@host is a secret in clear */
        return wg_error_set(WG_EINVAL, "gateway: server %s: url must not carry credentials; use a header "
                            "with a \"vault:NAME\" value", name);
    if (json_object_get(o, "args") || json_object_get(o, "env"))
        return wg_error_set(WG_EINVAL, "gateway: server %s: args/env belong to a command server", name);
    if (!(s->url = strdup(u)))
        return wg_error_set(WG_ENOMEM, "gateway: out of memory");
    const json_t *hs = json_object_get(o, "headers");
    const char *k;
    json_t *v;
    if (json_is_object(hs))
        json_object_foreach((json_t *)hs, k, v)
            if (strlen(k) > 256 || !header_name_ok(k))
                return wg_error_set(WG_EINVAL, "gateway: server %s: a header name must be an HTTP token and not "
                                    "one the transport sets (Content-Type, Accept, Host, Mcp-Session-Id, "
                                    "MCP-Protocol-Version, ...)", name);
    return pairs_parse(s, hs, "header");
}

int wg_mcp__gw_config_parse(wg_gw_config *out, const char *text, size_t len)
{
    if (!out || !text)
        return wg_error_set(WG_EINVAL, "gateway: no configuration");
    if (len > WG_GW_FILE_MAX)
        return wg_error_set(WG_EINVAL, "gateway: configuration larger than %u bytes", WG_GW_FILE_MAX);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return wg_error_set(WG_EINVAL, "gateway: configuration is not JSON (line %d: %s)", jerr.line, jerr.text);
    const json_t *ms = json_object_get(root, "mcpServers");
    wg_gw_config c = {0};
    int rc = 0;
    if (!json_is_object(ms) || json_object_size(ms) > WG_GW_SERVERS_MAX)
        rc = wg_error_set(WG_EINVAL, "gateway: \"mcpServers\" must be an object of at most %d servers",
                          WG_GW_SERVERS_MAX);
    else if (!(c.servers = calloc(json_object_size(ms) + 1, sizeof *c.servers)))
        rc = wg_error_set(WG_ENOMEM, "gateway: out of memory");
    const char *k;
    json_t *v;
    if (!rc)
        json_object_foreach((json_t *)ms, k, v) {
            rc = server_parse(&c.servers[c.n++], k, v);
            if (rc)
                break;
        }
    json_decref(root);
    if (rc) {
        wg_mcp__gw_config_free(&c);
        return rc;
    }
    *out = c;
    return 0;
}

int wg_mcp__gw_config_load(wg_gw_config *out, const char *path)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return wg_error_set(WG_EIO, "gateway: cannot open the configuration file");
    char *buf = malloc(WG_GW_FILE_MAX + 1);
    size_t n = buf ? fread(buf, 1, WG_GW_FILE_MAX + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (!buf)
        rc = wg_error_set(WG_ENOMEM, "gateway: out of memory");
    else if (bad)
        rc = wg_error_set(WG_EIO, "gateway: cannot read the configuration file");
    else
        rc = wg_mcp__gw_config_parse(out, buf, n);
    free(buf);
    return rc;
}

void wg_mcp__gw_config_free(wg_gw_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        wg_gw_server *s = &c->servers[i];
        free(s->command);
        free(s->url);
        for (size_t j = 0; j < s->nargs; j++)
            free(s->args[j]);
        free(s->args);
        for (size_t j = 0; j < s->npairs; j++) {
            free(s->pairs[j].key);
            free(s->pairs[j].value);
        }
        free(s->pairs);
    }
    free(c->servers);
    c->servers = NULL;
    c->n = 0;
}

/* mcp/gwconfig.h - the gateway's configuration: the Claude Desktop/Cursor
 * "mcpServers" file (issue 14 §2), parsed and validated, fail closed.
 *
 *   {"mcpServers": {"NAME": {"command": "...", "args": [...], "env": {...},
 *                            "timeoutMs": 60000}
 *                 | {"url": "https://.../mcp", "headers": {...}}}}
 *
 * NAME: 1..WG_GW_NAME_MAX of [A-Za-z0-9_-] (it prefixes the tools as
 * NAME__tool). Exactly one of command / url. An env or header value is
 * either plain text or "vault:SECRET" (read from waggle's vault when the
 * upstream starts); a value under a key that names a secret (token, key,
 * secret, password, auth, credential) must be a vault reference - a secret
 * in clear in the file is refused, and so is a url with user:password@. The file is at most WG_GW_FILE_MAX bytes.
 * Values are never put in error messages (only key names).
 *
 * Thread-safety: none needed (pure functions on owned data). */
#ifndef WAGGLE_MCP_GWCONFIG_H
#define WAGGLE_MCP_GWCONFIG_H

#include <stddef.h>
#include <jansson.h>

#define WG_GW_NAME_MAX     64
#define WG_GW_SERVERS_MAX  64
#define WG_GW_ARGS_MAX     256
#define WG_GW_PAIRS_MAX    128
#define WG_GW_FILE_MAX     (1u << 20)
#define WG_GW_TIMEOUT_MS   60000
#define WG_GW_TIMEOUT_MAX  3600000
#define WG_GW_VAULT_PREFIX "vault:"

typedef struct {
    char *key;
    char *value;      /* the plain value, or the vault secret's name */
    int   from_vault; /* 1: value names a vault secret */
} wg_gw_pair;

typedef struct {
    char        name[WG_GW_NAME_MAX + 1];
    char       *command;   /* stdio upstream, or NULL */
    char      **args;      /* nargs strings */
    size_t      nargs;
    char       *url;       /* Streamable HTTP upstream, or NULL */
    wg_gw_pair *pairs;     /* env (stdio) or headers (url) */
    size_t      npairs;
    long        timeout_ms;
} wg_gw_server;

typedef struct {
    wg_gw_server *servers;
    size_t        n;
} wg_gw_config;

/* Parses text (len bytes). *out filled (free with wg_mcp__gw_config_free).
 * Returns 0, or WG_EINVAL with the reason (server and key names only). */
int wg_mcp__gw_config_parse(wg_gw_config *out, const char *text, size_t len);
/* Reads and parses a file (WG_EIO when unreadable, WG_EINVAL when larger
 * than WG_GW_FILE_MAX or invalid). */
int wg_mcp__gw_config_load(wg_gw_config *out, const char *path);
void wg_mcp__gw_config_free(wg_gw_config *c);

/* 1 when s is a valid server name. */
int wg_mcp__gw_name_ok(const char *s);

#endif

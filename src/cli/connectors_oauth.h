/* connectors_oauth.h - `waggle connectors oauth ID` (cmd_connectors.c hands
 * over to connectors_oauth.c). */
#ifndef WAGGLE_CLI_CONNECTORS_OAUTH_H
#define WAGGLE_CLI_CONNECTORS_OAUTH_H

#include "waggle/connector.h"

typedef struct wg_cli_oauth_opts {
    const char *client_id;       /* the client secret is then read from stdin */
    const char *tenant;          /* Microsoft: stored as connector:C:tenant */
    const char *scopes;          /* instead of the union of the connectors' */
    const char *authorize_url;   /* operator overrides, stored in the vault */
    const char *token_url;
    int port;                    /* loopback port, 0 = any free one */
    int paste;                   /* also accept the redirect pasted on stdin */
    int timeout_s;               /* how long to wait for the redirect */
    int allow_private, allow_http;   /* the upstream policy (operator) */
} wg_cli_oauth_opts;

/* Runs the flow for connector or connection `id`. Returns an exit code. */
int wg_cli_connectors_oauth(wg_registry *reg, const wg_connect_vault *cv, const char *data_dir,
                            const char *id, const wg_cli_oauth_opts *o);

#endif

/* oauth_int.h - what oauth.c (providers, token manager) and oauth_flow.c
 * (authorization code, loopback) share inside src/connect. */
#ifndef WG_CONNECT_OAUTH_INT_H
#define WG_CONNECT_OAUTH_INT_H

#include "waggle/oauth.h"

/* One vault value of connection conn ("connector:<conn>[:<sub>]"), new or
 * NULL when absent. meta (may be NULL) receives its metadata. */
char *wg_oauth__vault_get(const wg_connect_vault *v, const char *conn, const char *sub,
                          json_t **meta);

/* The endpoint of kind "token_url" / "authorize_url" for conn: the vault
 * override or the row's, with {tenant} replaced. *out new. Returns 0 or
 * WG_EINVAL (bad override URL or tenant), WG_ENOMEM. */
int wg_oauth__endpoint(char **out, const wg_connect_vault *v, const char *conn,
                       const wg_oauth_provider *p, const char *kind, const char *tenant);

/* POSTs a token request (grant fields in pairs, a JSON array of [key,
 * value] string pairs, sent in order; client authentication as
 * the row says) and parses the answer. On 2xx, *ok is the JSON object.
 * On an OAuth error answer, returns WG_EUPSTREAM with *err_code set to the
 * error field (new, e.g. "invalid_grant") and the message set; transport
 * failures are WG_EIO / WG_ETIMEOUT; an endpoint the upstream policy
 * (NULL = strict) refuses is WG_EDENIED and nothing is sent. */
int wg_oauth__post(json_t **ok, char **err_code, const wg_oauth_provider *p, const char *url,
                   json_t *pairs, const char *client_id, const char *client_secret,
                   const wg_upstream_policy *upstream);

/* Builds the vault writes for a token response tok of connection conn:
 * the access token with metadata (from old_meta, updated), a rotated
 * refresh token, keep_fields; plus extra items (client id/secret). Writes
 * them in one set_many (or one by one without it). Returns 0 or WG_E*. */
int wg_oauth__store(const wg_connect_vault *v, const char *conn, const wg_oauth_provider *p,
                    const json_t *tok, const json_t *old_meta,
                    const wg_connect_vault_item *extra, size_t n_extra);

/* Wipes the secrets of a token response (access, refresh and id tokens) and
 * releases it. NULL is a no-op. */
void wg_oauth__token_free(json_t *tok);

/* Appends "k=v" percent-encoded (form) to a growing string; NULL on ENOMEM. */
char *wg_oauth__form_append(char *s, const char *k, const char *v);

#endif

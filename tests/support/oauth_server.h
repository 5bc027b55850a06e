/* oauth_server.h - a loopback OAuth2 authorization server and resource
 * server for tests, written from RFC 6749 (4.1 authorization code, 5.1/5.2
 * token responses and errors, 6 refresh), RFC 7636 (PKCE S256) and the
 * providers' pages (Google, Microsoft identity platform v2.0, Atlassian
 * JSON token requests, Pipedrive/Bitbucket Basic client authentication).
 *
 * Endpoints on http://127.0.0.1:<port>:
 *   GET  .../authorize  (any path ending so: a tenant path works) checks response_type=code, client_id, a loopback
 *                     redirect_uri (RFC 8252 7.3), state, S256 challenge;
 *                     answers 302 to redirect_uri?code=..&state=.. (or
 *                     error=access_denied when cfg.deny)
 *   POST .../token    (any path ending in /token, so a tenant path such as
 *                     /contoso/oauth2/v2.0/token works) authorization_code (code once, same redirect_uri,
 *                     SHA256(code_verifier) == challenge) and refresh_token
 *                     grants; client authentication as configured; an
 *                     unknown or used-up refresh token is 400 invalid_grant
 *   GET  /api/...     a resource: 200 with a current access token, else
 *                     401 (Graph's InvalidAuthenticationToken shape)
 * Every protocol violation is recorded (wgt_oauth_problem) and answered 400.
 * Connections are served one thread each, so concurrent callers race for
 * real.
 */
#ifndef WGT_OAUTH_SERVER_H
#define WGT_OAUTH_SERVER_H

typedef struct wgt_oauth_config {
    const char *client_id;          /* required in every request */
    const char *client_secret;      /* NULL: a public client (PKCE only) */
    int client_basic;               /* client auth by HTTP Basic, not the body */
    int json_body;                  /* token requests are JSON (Atlassian) */
    int rotate;                     /* every refresh issues a new refresh token
                                       and revokes the one used */
    int expires_in;                 /* of issued access tokens; 0 = 3600 */
    int deny;                       /* /authorize answers error=access_denied */
    int delay_ms;                   /* /token waits this long before answering */
    const char *keep_field;         /* an extra token-response field ... */
    const char *keep_value;         /* ... with this value (instance_url) */
    const char *require_scope;      /* refresh requests must carry this scope */
    int refuse_api;                 /* the resource answers 401 to every token */
} wgt_oauth_config;

typedef struct wgt_oauth_server wgt_oauth_server;

/* Starts the server (cfg copied). NULL on failure. */
wgt_oauth_server *wgt_oauth_start(const wgt_oauth_config *cfg);
void wgt_oauth_stop(wgt_oauth_server *s);

/* "http://127.0.0.1:<port>" (borrowed). */
const char *wgt_oauth_base(const wgt_oauth_server *s);

/* Seeds a refresh token the server accepts and an access token it no
 * longer accepts (the one in the vault, "expired"). */
void wgt_oauth_seed(wgt_oauth_server *s, const char *refresh_token, const char *stale_access);

/* Marks every access token issued so far as revoked (the resource answers
 * 401 to them), as when a provider revokes a session early. */
void wgt_oauth_revoke_access(wgt_oauth_server *s);

/* Counters: "code" (code exchanges), "refresh" (refresh requests, any
 * outcome), "refresh_ok", "invalid_grant", "api" (resource calls), "api_401". */
long wgt_oauth_count(wgt_oauth_server *s, const char *what);

/* The first protocol violation seen, or NULL (borrowed). */
const char *wgt_oauth_problem(wgt_oauth_server *s);

/* The refresh token most recently issued, or the seeded one (new copy). */
char *wgt_oauth_last_refresh(wgt_oauth_server *s);

/* The path of the last token request (new copy), or NULL. */
char *wgt_oauth_last_token_path(wgt_oauth_server *s);

#endif

/* connectors_oauth.c - `waggle connectors oauth ID`: the operator signs a
 * connection in with the provider's authorization-code flow (PKCE S256,
 * state), the redirect arriving on a loopback port (RFC 8252) or pasted on
 * stdin, and the tokens go to the vault (waggle/oauth.h). The client
 * secret is read from stdin, never from argv. */
#include "cli.h"
#include "connectors_oauth.h"
#include "waggle/error.h"
#include "waggle/oauth.h"
#include "waggle/tier.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { LINE_MAX_BYTES = 8192 };

static const char cmd[] = "connectors";

/* One line of stdin without its end (new), or NULL at EOF. */
static char *read_line(void)
{
    char *line = malloc(LINE_MAX_BYTES + 2);
    if (!line || !fgets(line, LINE_MAX_BYTES + 2, stdin)) {
        free(line);
        return NULL;
    }
    line[strcspn(line, "\r\n")] = 0;
    return line;
}

static void wipe_free(char *s)
{
    if (s) {
        memset(s, 0, strlen(s));
        free(s);
    }
}

/* A connector that signs in through conn, for the tier's limit check. */
static const char *member_of(const wg_registry *reg, const char *conn)
{
    for (size_t i = 0; i < wg_registry_count(reg); i++) {
        const wg_connector_spec *s = wg_registry_at(reg, i);
        if (s->oauth_provider && strcmp(s->connection ? s->connection : s->id, conn) == 0)
            return s->id;
    }
    return NULL;
}

/* "gcal, gmail, ..." of the connectors served by conn. */
static void members(char *buf, size_t cap, const wg_registry *reg, const char *conn)
{
    buf[0] = 0;
    for (size_t i = 0; i < wg_registry_count(reg); i++) {
        const wg_connector_spec *s = wg_registry_at(reg, i);
        if (!s->oauth_provider || strcmp(s->connection ? s->connection : s->id, conn))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", s->id);
    }
}

static int store_setting(const wg_connect_vault *cv, const char *conn, const char *name,
                         const char *value)
{
    char key[160];
    snprintf(key, sizeof key, "connector:%s:%s", conn, name);
    for (const char *c = value; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return wg_cli_usage(cmd, "--%s may not contain control characters", name);
    int rc = cv->set(cv->ctx, key, value, NULL);
    return rc < 0 ? wg_cli_error(cmd, rc) : WG_EXIT_OK;
}

/* The redirect: from the loopback listener, or (with paste) a line on
 * stdin, whichever comes first. *out new. */
static int wait_redirect(char **out, wg_oauth_loopback *lb, int paste, int timeout_s)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = timeout_s * 1000L - ((now.tv_sec - t0.tv_sec) * 1000L +
                                         (now.tv_nsec - t0.tv_nsec) / 1000000L);
        if (left <= 0)
            return wg_error_set(WG_ETIMEOUT, "no sign-in redirect within %d s", timeout_s);
        struct pollfd p[2] = { { wg_oauth_loopback_fd(lb), POLLIN, 0 },
                               { STDIN_FILENO, POLLIN, 0 } };
        int n = poll(p, paste ? 2 : 1, (int)left);
        if (n < 0)
            continue;
        if (n == 0)
            continue;
        if (paste && (p[1].revents & (POLLIN | POLLHUP))) {
            char *line = read_line();
            if (!line)
                return wg_error_set(WG_EINVAL, "stdin ended before a redirect was pasted");
            if (*line) {
                *out = line;
                return 0;
            }
            free(line);
            continue;
        }
        if (p[0].revents & POLLIN) {
            int rc = wg_oauth_loopback_wait(out, lb, "/callback", (int)left);
            if (rc == 0 || !paste)
                return rc;
        }
    }
}

int wg_cli_connectors_oauth(wg_registry *reg, const wg_connect_vault *cv, const char *data_dir,
                            const char *id, const wg_cli_oauth_opts *o)
{
    const wg_oauth_provider *p = NULL;
    const char *conn = wg_oauth_connection(reg, id, &p);
    if (!conn)
        return wg_cli_usage(cmd, "%s", wg_error_last());
    /* the tier's connector limit, before anyone types a secret */
    const char *member = member_of(reg, conn);
    wg_tier_status tier;
    wg_tier_read(&tier, data_dir, 0);
    wg_connector_limit_decision lim;
    if (member && wg_registry_check_limit(&lim, reg, member, tier.effective) == 0 && !lim.allowed)
        return wg_cli_fail(cmd, "%s: %s (rule %s)\n%s Upgrade: %s", lim.denial.error, lim.reason,
                           lim.rule, lim.denial.message, lim.denial.upgrade_url);
    int rc;
    if (o->authorize_url && (rc = store_setting(cv, conn, "authorize_url", o->authorize_url)))
        return rc;
    if (o->token_url && (rc = store_setting(cv, conn, "token_url", o->token_url)))
        return rc;
    if (o->tenant && (rc = store_setting(cv, conn, "tenant", o->tenant)))
        return rc;
    char *secret = NULL;
    if (o->client_id) {
        if (isatty(STDIN_FILENO))
            fprintf(stderr, "paste the client secret of %s (empty for a public client), then "
                            "press Enter:\n", o->client_id);
        secret = read_line();
        if (!secret && !(secret = strdup("")))
            return wg_cli_error(cmd, WG_ENOMEM);
    }
    char *scopes = NULL;
    if (o->scopes)
        scopes = strdup(o->scopes);
    else if (wg_oauth_scopes(&scopes, reg, conn, p) < 0)
        scopes = NULL;
    wg_oauth_loopback *lb = NULL;
    wg_oauth_flow f;
    memset(&f, 0, sizeof f);
    char redirect_uri[64];
    int exit_code = WG_EXIT_FAIL;
    if (!scopes || (rc = wg_oauth_loopback_open(&lb, o->port)) < 0) {
        exit_code = wg_cli_error(cmd, scopes ? rc : WG_ENOMEM);
        goto done;
    }
    snprintf(redirect_uri, sizeof redirect_uri, "http://127.0.0.1:%d/callback",
             wg_oauth_loopback_port(lb));
    wg_oauth_flow_params fp = { .provider = p, .connection = conn, .client_id = o->client_id,
                                .client_secret = secret, .tenant = o->tenant, .scopes = scopes,
                                .redirect_uri = redirect_uri };
    if ((rc = wg_oauth_flow_begin(&f, cv, &fp)) < 0) {
        exit_code = wg_cli_error(cmd, rc);
        goto done;
    }
    printf("Open this address in a browser to sign in to %s (connection %s):\n\n  %s\n\n",
           p->name, conn, f.url);
    fflush(stdout);
    fprintf(stderr, "waiting up to %d s for the redirect to %s%s\n", o->timeout_s, redirect_uri,
            o->paste ? ", or paste the address the browser was sent to and press Enter" : "");
    char *redirect = NULL, *code = NULL;
    if ((rc = wait_redirect(&redirect, lb, o->paste, o->timeout_s)) == 0)
        rc = wg_oauth_flow_redirect(&code, &f, redirect);
    wipe_free(redirect);
    int has_refresh = 0;
    if (rc == 0) {
        wg_upstream_policy up = { .allow_private = o->allow_private, .allow_http = o->allow_http };
        rc = wg_oauth_flow_finish(&f, cv, code, &up, &has_refresh);
    }
    wipe_free(code);
    if (rc < 0) {
        exit_code = wg_cli_fail(cmd, "%s", wg_error_last());
        goto done;
    }
    char served[512];
    members(served, sizeof served, reg, conn);
    printf("signed in to %s: connection %s now serves %s\n", p->name, conn, served);
    if (!has_refresh)
        fprintf(stderr, "warning: %s issued no refresh token; the connection stops working when "
                        "its access token expires\n", p->name);
    exit_code = WG_EXIT_OK;
done:
    wg_oauth_flow_clear(&f);
    wg_oauth_loopback_free(lb);
    wipe_free(secret);
    free(scopes);
    return exit_code;
}

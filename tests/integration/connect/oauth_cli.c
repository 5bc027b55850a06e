/* oauth_cli.c - `waggle connectors oauth ID` end to end: the real CLI binary,
 * a loopback authorization server written from the providers' pages
 * (tests/support/oauth_server.c) and this test as the browser. It follows
 * the printed address to the authorization server, takes the 302 there and
 * delivers it to the CLI's loopback port (RFC 8252) or pastes it on stdin.
 * Proves: PKCE S256 and state in the address, the code exchanged once with
 * its verifier, tokens and client stored in the vault, the shared
 * connection then serving all five Google connectors; a wrong state and an
 * error redirect are refused with nothing exchanged or stored; Microsoft's
 * tenant goes into the endpoint path and offline_access into the scopes. */
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oauth_server.h"
#include "waggle/connector.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "wgtest.h"

static char *dir;
static wgt_oauth_server *auth;

static void setup(void)
{
    dir = wgt_tmpdir();
    wgt_write_file(dir, "vault.key",
                   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
}

static void teardown(void)
{
    wgt_oauth_stop(auth);
    auth = NULL;
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(connect_oauth_cli, .init = setup, .fini = teardown, .timeout = 90);

typedef struct {
    pid_t pid;
    int in, out, err;
    char outbuf[16384], errbuf[16384];
    size_t outlen, errlen;
} child;

static void spawn(child *c, const char *const *args)
{
    int pi[2], po[2], pe[2];
    cr_assert(pipe(pi) == 0 && pipe(po) == 0 && pipe(pe) == 0);
    memset(c, 0, sizeof *c);
    c->pid = fork();
    cr_assert_neq(c->pid, -1);
    if (c->pid == 0) {
        dup2(pi[0], 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(pi[1]);
        close(po[0]);
        close(pe[0]);
        const char *argv[32] = { WG_CLI_PATH, "--data-dir", dir, "connectors",
                                 "--allow-private-upstreams", "--allow-http-upstreams" };
        int n = 6;
        for (int i = 0; args[i] && n < 31; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execv(WG_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    close(pi[0]);
    close(po[1]);
    close(pe[1]);
    c->in = pi[1];
    c->out = po[0];
    c->err = pe[0];
}

/* Reads whatever is there (or waits up to ms) into the buffers. */
static void pump(child *c, int ms)
{
    struct pollfd p[2] = { { c->out, POLLIN, 0 }, { c->err, POLLIN, 0 } };
    if (poll(p, 2, ms) <= 0)
        return;
    if (p[0].revents & (POLLIN | POLLHUP)) {
        ssize_t n = read(c->out, c->outbuf + c->outlen, sizeof c->outbuf - 1 - c->outlen);
        if (n > 0)
            c->outlen += (size_t)n;
        c->outbuf[c->outlen] = 0;
    }
    if (p[1].revents & (POLLIN | POLLHUP)) {
        ssize_t n = read(c->err, c->errbuf + c->errlen, sizeof c->errbuf - 1 - c->errlen);
        if (n > 0)
            c->errlen += (size_t)n;
        c->errbuf[c->errlen] = 0;
    }
}

/* The authorization address the CLI printed (new), waiting for it. */
static char *printed_url(child *c)
{
    for (int i = 0; i < 1000; i++) {
        char *at = strstr(c->outbuf, "\n  http");
        if (at && strchr(at + 3, '\n')) {
            at += 3;
            return strndup(at, strcspn(at, "\n"));
        }
        pump(c, 20);
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    cr_assert_fail("no address printed; stdout: %s stderr: %s", c->outbuf, c->errbuf);
    return NULL;
}

static int finish(child *c)
{
    close(c->in);
    int status = 0;
    /* a guard against a hung CLI, not a timing assertion: 30 s */
    for (int i = 0; i < 3000; i++) {
        pump(c, 10);
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
        pid_t w = waitpid(c->pid, &status, WNOHANG);
        if (w == c->pid) {
            for (int k = 0; k < 5; k++)
                pump(c, 20);
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        }
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, &status, 0);
    cr_assert_fail("the CLI did not finish; stderr: %s", c->errbuf);
    return -1;
}

/* GET url without following redirects; the Location in *location (new). */
static long browse(const char *url, char **location)
{
    CURL *h = curl_easy_init();
    long status = 0;
    char *loc = NULL;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, fwrite);
    FILE *sink = fopen("/dev/null", "w");
    curl_easy_setopt(h, CURLOPT_WRITEDATA, sink);
    CURLcode cc = curl_easy_perform(h);
    cr_assert_eq(cc, CURLE_OK, "%s: %s", url, curl_easy_strerror(cc));
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc);
    if (location)
        *location = loc ? strdup(loc) : NULL;
    fclose(sink);
    curl_easy_cleanup(h);
    return status;
}

static char *vault_value(const char *name)
{
    wg_store *st = NULL;
    wg_vault *v = NULL;
    char *val = NULL;
    cr_assert_eq(wg_store_open(&st, dir), 0);
    cr_assert_eq(wg_vault_open(&v, st), 0);
    wg_connect_vault cv;
    wg_connect_vault_of(&cv, v);
    if (cv.get(cv.ctx, name, &val, NULL) < 0)
        val = NULL;
    wg_vault_free(v);
    wg_store_free(st);
    return val;
}

static void start_server(int deny)
{
    wgt_oauth_config cfg = { .client_id = "client-g", .client_secret = "secret-g", .deny = deny };
    auth = wgt_oauth_start(&cfg);
    cr_assert_not_null(auth);
}

static void endpoints(char *authz, char *token, size_t n, const char *prefix)
{
    snprintf(authz, n, "%s%s/authorize", wgt_oauth_base(auth), prefix);
    snprintf(token, n, "%s%s/token", wgt_oauth_base(auth), prefix);
}

Test(connect_oauth_cli, loopback_redirect_signs_google_in)
{
    start_server(0);
    char authz[256], token[256];
    endpoints(authz, token, sizeof authz, "");
    const char *args[] = { "oauth", "google", "--client-id", "client-g", "--authorize-url", authz,
                           "--token-url", token, "--timeout", "60", NULL };
    child c;
    spawn(&c, args);
    cr_assert_eq(write(c.in, "secret-g\n", 9), 9);
    char *url = printed_url(&c);
    cr_assert(strncmp(url, authz, strlen(authz)) == 0, "%s", url);
    const char *must[] = { "response_type=code", "client_id=client-g",
                           "redirect_uri=http%3A%2F%2F127.0.0.1%3A", "%2Fcallback",
                           "code_challenge_method=S256", "access_type=offline", "prompt=consent",
                           "https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fgmail.send",
                           "https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fspreadsheets" };
    for (size_t i = 0; i < sizeof must / sizeof *must; i++)
        cr_assert(strstr(url, must[i]), "%s lacks %s", url, must[i]);
    const char *st = strstr(url, "state=");
    cr_assert_eq(strcspn(st + 6, "&"), 43, "32 random bytes of state, base64url");
    char *loc = NULL;
    cr_assert_eq(browse(url, &loc), 302);
    cr_assert(loc && strncmp(loc, "http://127.0.0.1:", 17) == 0, "%s", loc);
    cr_assert_eq(browse(loc, NULL), 200, "the CLI's loopback page");
    int code = finish(&c);
    cr_assert_eq(code, 0, "stdout: %s\nstderr: %s", c.outbuf, c.errbuf);
    cr_assert(strstr(c.outbuf, "connection google now serves gcal, gmail, gdocs, gdrive, gsheets"),
              "%s", c.outbuf);
    cr_assert_null(wgt_oauth_problem(auth), "%s", wgt_oauth_problem(auth));
    cr_assert_eq(wgt_oauth_count(auth, "code"), 1);
    char *access = vault_value("connector:google"), *refresh = vault_value("connector:google:refresh");
    char *issued = wgt_oauth_last_refresh(auth);
    cr_assert(access && strncmp(access, "access-", 7) == 0, "%s", access);
    cr_assert_str_eq(refresh, issued);
    char *cid = vault_value("connector:google:client_id"), *sec = vault_value("connector:google:client_secret");
    cr_assert_str_eq(cid, "client-g");
    cr_assert_str_eq(sec, "secret-g");
    free(access), free(refresh), free(issued), free(cid), free(sec), free(url), free(loc);
    /* every Google connector is connected now */
    wgt_result r;
    const char *list[] = { "--data-dir", dir, "connectors", "list", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, list), 0);
    const char *ids[] = { "gcal ", "gmail ", "gdocs ", "gdrive ", "gsheets " };
    for (size_t i = 0; i < 5; i++) {
        const char *row = strstr(r.out, ids[i]);
        cr_assert(row && strncmp(row + strspn(row + strlen(ids[i]), " ") + strlen(ids[i]),
                                 "connected", 9) == 0, "%s in %s", ids[i], r.out);
    }
    wgt_result_free(&r);
}

Test(connect_oauth_cli, a_wrong_state_is_refused_and_nothing_is_exchanged)
{
    start_server(0);
    char authz[256], token[256];
    endpoints(authz, token, sizeof authz, "");
    const char *args[] = { "oauth", "gmail", "--client-id", "client-g", "--authorize-url", authz,
                           "--token-url", token, "--timeout", "60", NULL };
    child c;
    spawn(&c, args);
    cr_assert_eq(write(c.in, "secret-g\n", 9), 9);
    char *url = printed_url(&c), *loc = NULL;
    cr_assert_eq(browse(url, &loc), 302);
    /* an attacker's redirect: the right port, someone else's state */
    char *st = strstr(loc, "state=");
    cr_assert_not_null(st);
    st[6] = st[6] == 'A' ? 'B' : 'A';
    browse(loc, NULL);
    int code = finish(&c);
    cr_assert_eq(code, 1, "stderr: %s", c.errbuf);
    cr_assert(strstr(c.errbuf, "state does not match"), "%s", c.errbuf);
    cr_assert_eq(wgt_oauth_count(auth, "code"), 0, "the code was never exchanged");
    char *access = vault_value("connector:google");
    cr_assert_null(access, "nothing stored");
    free(url);
    free(loc);
}

Test(connect_oauth_cli, an_error_redirect_is_reported)
{
    start_server(1);
    char authz[256], token[256];
    endpoints(authz, token, sizeof authz, "");
    const char *args[] = { "oauth", "google", "--client-id", "client-g", "--authorize-url", authz,
                           "--token-url", token, "--timeout", "60", NULL };
    child c;
    spawn(&c, args);
    cr_assert_eq(write(c.in, "secret-g\n", 9), 9);
    char *url = printed_url(&c), *loc = NULL;
    cr_assert_eq(browse(url, &loc), 302);
    cr_assert(strstr(loc, "error=access_denied"), "%s", loc);
    browse(loc, NULL);
    int code = finish(&c);
    cr_assert_eq(code, 1);
    cr_assert(strstr(c.errbuf, "Google refused the sign-in: access_denied: The user denied access"),
              "%s", c.errbuf);
    cr_assert_eq(wgt_oauth_count(auth, "code"), 0);
    cr_assert_null(vault_value("connector:google"));
    free(url);
    free(loc);
}

Test(connect_oauth_cli, a_pasted_redirect_works_and_microsoft_gets_its_tenant)
{
    start_server(0);
    char authz[256], token[256];
    endpoints(authz, token, sizeof authz, "/{tenant}/oauth2/v2.0");
    const char *args[] = { "oauth", "onenote", "--client-id", "client-g", "--tenant", "contoso",
                           "--authorize-url", authz, "--token-url", token, "--paste",
                           "--timeout", "60", NULL };
    child c;
    spawn(&c, args);
    cr_assert_eq(write(c.in, "secret-g\n", 9), 9);
    char *url = printed_url(&c), *loc = NULL;
    char want[256];
    snprintf(want, sizeof want, "%s/contoso/oauth2/v2.0/authorize?", wgt_oauth_base(auth));
    cr_assert(strncmp(url, want, strlen(want)) == 0, "%s", url);
    cr_assert(strstr(url, "scope=offline_access%20User.Read%20Team.ReadBasic.All"), "%s", url);
    cr_assert(strstr(url, "Notes.ReadWrite"), "%s", url);
    cr_assert(strstr(url, "response_mode=query"), "%s", url);
    cr_assert_eq(browse(url, &loc), 302);
    /* the browser could not reach the port (another machine): paste it */
    char line[2048];
    int n = snprintf(line, sizeof line, "%s\n", loc);
    cr_assert_eq(write(c.in, line, (size_t)n), n);
    int code = finish(&c);
    cr_assert_eq(code, 0, "stdout: %s\nstderr: %s", c.outbuf, c.errbuf);
    cr_assert(strstr(c.outbuf, "connection microsoft now serves ms-teams, outlook, onedrive, onenote"),
              "%s", c.outbuf);
    char *path = wgt_oauth_last_token_path(auth);
    cr_assert_str_eq(path, "/contoso/oauth2/v2.0/token");
    free(path);
    char *tenant = vault_value("connector:microsoft:tenant");
    cr_assert_str_eq(tenant, "contoso");
    free(tenant);
    char *access = vault_value("connector:microsoft");
    cr_assert_not_null(access);
    free(access);
    free(url);
    free(loc);
}

Test(connect_oauth_cli, connectors_without_oauth_are_refused)
{
    wgt_result r;
    const char *args[] = { "--data-dir", dir, "connectors", "oauth", "github", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, args), 0);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "does not sign in with OAuth2"), "%s", r.err);
    wgt_result_free(&r);
    const char *nope[] = { "--data-dir", dir, "connectors", "oauth", "nope", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, nope), 0);
    cr_assert_eq(r.status, 2);
    wgt_result_free(&r);
    /* no client id anywhere */
    const char *bare[] = { "--data-dir", dir, "connectors", "oauth", "google", "--timeout", "5", NULL };
    cr_assert_eq(wgt_run_cli(&r, "", NULL, bare), 0);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert(strstr(r.err, "--client-id"), "%s", r.err);
    wgt_result_free(&r);
}

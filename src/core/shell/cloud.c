/* cloud.c - cloud providers' command-line tools (aws, gcloud, az, doctl,
 * hcloud, linode-cli, oci, gsutil; issue #10 §2, "needless prompts").
 *
 * Their commands are paths of words before the options: `aws ec2
 * describe-instances`, `gcloud compute instances list`, `az vm show -g g -n
 * n`, `gsutil ls gs://b`. A path that holds a read verb (list, ls, describe,
 * show, get, view, info, status, whoami, cat, du, stat) or, for aws, an
 * operation named describe-*, list-* or get-*, and no verb that changes
 * anything, runs silently at Normal. Everything else asks, and so does a
 * read of a secret: any word (options and values included) naming a
 * secret, token, password, credential, decryption, login, private or access
 * key, kubeconfig or connection string (`aws secretsmanager
 * get-secret-value`, `gcloud auth print-access-token`, `az account
 * get-access-token`, `aws ssm get-parameter --with-decryption`). An
 * expansion anywhere asks too: its value may be any of these.
 */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

enum { CLOUD_PATH_MAX = 6 };    /* path words looked at */

static const char *const read_verbs[] = {
    "list", "ls", "describe", "show", "get", "view", "info", "status", "whoami", "cat", "du",
    "stat", "version", "help", "get-value", "tail", NULL,
};
static const char *const read_ops[] = { "describe-", "list-", "get-", NULL };   /* aws */
static const char *const write_verbs[] = {
    "create", "delete", "update", "put", "set", "remove", "rm", "mv", "cp", "sync", "start",
    "stop", "restart", "run", "exec", "ssh", "scp", "deploy", "apply", "attach", "detach",
    "invoke", "send", "publish", "reboot", "terminate", "modify", "import", "reset", "rotate",
    "enable", "disable", "add", "cancel", "login", "logout", "init", "configure", "connect",
    "tunnel", "port-forward", "copy", "upload", "download", "rsync", "mb", "rb", "acl",
    "setmeta", "rewrite", "compose", "resize", "patch", "edit", "kill", "purge", "wipe", NULL,
};
static const char *const secret_marks[] = {
    "secret", "token", "password", "passwd", "credential", "decrypt", "login", "private",
    "access-key", "accesskey", "access_key", "kubeconfig", "connection-string", "sas", "signed-url",
    "presign", NULL,
};

static int has_prefix_in(const char *t, const char *const *set)
{
    for (; *set; set++)
        if (strncmp(t, *set, strlen(*set)) == 0)
            return 1;
    return 0;
}

/* Case-insensitive substring over a word and a marker list. */
static int names_secret(const char *t)
{
    for (const char *const *m = secret_marks; *m; m++)
        if (strcasestr(t, *m))
            return 1;
    return 0;
}

void sh_rule_cloud(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;
    int reads = 0, writes = 0, secret = 0, opaque = 0, path = 0, in_path = 1;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        opaque |= (FL(j) & SH_W_OPAQUE) != 0;
        secret |= names_secret(t);
        if (t[0] == '-') {
            /* --profile NAME before the path: skip the value */
            if (path == 0 && t[1] == '-' && !strchr(t, '=') && j + 1 < v->end && W(j + 1)[0] != '-')
                j++;
            else if (path > 0)
                in_path = 0;
            continue;
        }
        if (!in_path || path >= CLOUD_PATH_MAX)
            continue;
        path++;
        reads |= in_set(t, read_verbs) || (strcmp(p->name, "aws") == 0 && has_prefix_in(t, read_ops));
        writes |= in_set(t, write_verbs);
    }
    sh_probe_args(cx, v, v->i + 1);     /* gcloud compute ssh vm --command='sudo reboot' */
    if (cx->out->cls == WG_SHELL_CRITICAL || (reads && !writes && !secret && !opaque))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
               secret && reads ? " reads a secret or a credential"
                               : " with these arguments may change cloud resources",
               NULL, v->via);
}

/* forge.c - the command-line clients of code-hosting services: gh
 * (GitHub), glab (GitLab) and hub's own verbs (issue #10 §2, "GitHub CLI
 * destruction").
 *
 * A subcommand is GROUP VERB (`gh repo delete`, `glab release delete`).
 * Its effect comes from two tables: a row for the pairs that are special
 * (deleting a repository, a forced sync, printing the token) and, for
 * every other pair, the verb alone (`delete`/`remove` of anything deletes,
 * `list`/`view`/`status` read, any other verb writes to the service). The
 * `api` subcommand is read from its method (-X/--method, POST when fields
 * are given) and its endpoint: DELETE of `repos/OWNER/REPO` (GitLab:
 * `projects/ID`), of an organisation or group, or of an endpoint the model
 * cannot see deletes a repository; GraphQL's deleteRepository too.
 *
 * Classes: reading runs silently, writing is risky, deleting is
 * destructive, deleting a repository or force-syncing a fork's default
 * branch is never-autopass (critical.repo_delete,
 * critical.force_push_protected). Pure functions of the view; one pass
 * over the words. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

enum { F_READ, F_WRITE, F_DELETE, F_REPO_DELETE, F_FORCE_SYNC, F_TOKEN, F_RUNS };

typedef struct {
    const char *group;      /* NULL: any group */
    const char *verb;
    const char *opt;        /* only with this option (prefix of a word), or NULL */
    int effect;
} forge_pair;

/* Pairs whose effect is not the verb's own (first match wins). */
static const forge_pair pairs[] = {
    { "repo", "delete", NULL, F_REPO_DELETE },
    { "project", "delete", NULL, F_DELETE },
    { "repo", "sync", "--force", F_FORCE_SYNC },
    { "repo", "archive", NULL, F_DELETE },
    { "repo", "rename", NULL, F_DELETE },
    { "repo", "transfer", NULL, F_DELETE },
    { "repo", "edit", "--visibility", F_DELETE },  /* a private repository made public */
    { "repo", "edit", "--default-branch", F_DELETE },
    { "issue", "transfer", NULL, F_DELETE },
    { "auth", "token", NULL, F_TOKEN },
    { "auth", "status", "--show-token", F_TOKEN },
    { "auth", "status", "-t", F_TOKEN },
    { "codespace", "ssh", NULL, F_RUNS },
    { "cs", "ssh", NULL, F_RUNS },
    { "extension", "exec", NULL, F_RUNS },
    { "ext", "exec", NULL, F_RUNS },
    { "alias", "set", NULL, F_RUNS },
    { "config", "set", NULL, F_RUNS },             /* editor, pager, browser: programs */
    { "release", "download", NULL, F_WRITE },
    { "run", "download", NULL, F_WRITE },
    { "repo", "clone", NULL, F_WRITE },
    { "pr", "checkout", NULL, F_WRITE },
    { "mr", "checkout", NULL, F_WRITE },
};

/* Verbs, for every group. */
static const char *const delete_verbs[] = {
    "delete", "delete-asset", "remove", "rm", "destroy", "purge", "prune", NULL,
};
static const char *const read_verbs[] = {
    "list", "ls", "view", "show", "status", "diff", "checks", "get", "search", "browse",
    "watch", "verify", "issues", "prs", "repos", "code", "commits", "field-list", "item-list",
    "check", NULL,
};
/* Subcommands with no verb that only read. */
static const char *const read_groups[] = {
    "status", "browse", "search", "help", "version", "completion", "--version", "--help",
    "-h", NULL,
};
/* Groups: the first of these words is the subcommand (options before it are skipped). */
static const char *const groups[] = {
    "alias", "api", "attestation", "auth", "browse", "cache", "ci", "cluster", "codespace",
    "completion", "config", "cs", "deploy-key", "extension", "ext", "gist", "gpg-key", "help",
    "incident", "issue", "job", "label", "mr", "org", "pr", "project", "release", "repo",
    "ruleset", "run", "schedule", "search", "secret", "snippet", "ssh-key", "status",
    "variable", "version", "workflow", NULL,
};

static int in_list_ci(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcasecmp(s, *list) == 0)
            return 1;
    return 0;
}

static int has_opt(const sh_view *v, int from, const char *opt)
{
    size_t k = strlen(opt);
    for (int j = from; j < v->end; j++)
        if (strncmp(W(j), opt, k) == 0 && (W(j)[k] == '\0' || W(j)[k] == '=' || opt[1] != '-'))
            return 1;
    return 0;
}

/* The endpoint of an api call without its host, leading '/' and query. */
static void endpoint_span(const char *t, const char **s, size_t *n)
{
    const char *e = strstr(t, "://");
    if (e) {
        e = strchr(e + 3, '/');
        t = e ? e : "";
    }
    while (*t == '/')
        t++;
    if (strncasecmp(t, "api/v4/", 7) == 0)
        t += 7;                         /* https://gitlab.example/api/v4/projects/1 */
    else if (strncasecmp(t, "api/v3/", 7) == 0)
        t += 7;                         /* GitHub Enterprise */
    size_t k = strcspn(t, "?#");
    while (k > 0 && t[k - 1] == '/')
        k--;
    *s = t;
    *n = k;
}

/* Segments of the endpoint: repos/O/R -> 3. */
static int segments(const char *s, size_t n)
{
    int k = n > 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/' && i + 1 < n && s[i + 1] != '/')
            k++;
    return k;
}

static int seg0_is(const char *s, size_t n, const char *name)
{
    size_t k = strlen(name);
    return n >= k && strncasecmp(s, name, k) == 0 && (n == k || s[k] == '/');
}

/* DELETE of this endpoint deletes a repository, an organisation or a group. */
static int repo_endpoint(const char *s, size_t n)
{
    int segs = segments(s, n);
    return (seg0_is(s, n, "repos") && segs == 3) || (seg0_is(s, n, "orgs") && segs == 2) ||
           (seg0_is(s, n, "projects") && segs == 2) || (seg0_is(s, n, "groups") && segs == 2) ||
           (seg0_is(s, n, "enterprises") && segs == 2) || (seg0_is(s, n, "user") && segs == 1);
}

int sh_forge_repo_url(const char *t)
{
    const char *sch = strstr(t, "://");
    if (!sch)
        return 0;
    const char *host = sch + 3;
    int api = strncasecmp(host, "api.github.com/", 15) == 0 || strcasestr(host, "/api/v4/") ||
              strcasestr(host, "/api/v3/");
    if (!api)
        return 0;
    const char *es;
    size_t en;
    endpoint_span(t, &es, &en);
    return repo_endpoint(es, en);
}

static void api_call(sh_ctx *cx, const sh_view *v, const sh_program *p, int from)
{
    static const char *const argopts = "XHfFqtpR";
    static const char *const longargs[] = {
        "method", "header", "field", "raw-field", "input", "jq", "template", "hostname",
        "preview", "cache", "repo", NULL,
    };
    const char *method = NULL, *endpoint = NULL;
    int fields = 0, opaque = 0, sends_file = 0, delete_repo_gql = 0, mutation = 0, stdin_in = 0, force_field = 0;
    for (int j = from; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE)
            opaque = 1;
        if (t[0] != '-' || !t[1]) {
            if (!endpoint)
                endpoint = t;
            continue;
        }
        const char *arg = NULL;
        char opt = 0;
        if (t[1] == '-') {
            const char *eq = strchr(t, '=');
            size_t len = eq ? (size_t)(eq - t - 2) : strlen(t + 2);
            int takes = 0;
            for (const char *const *l = longargs; *l; l++)
                if (strlen(*l) == len && strncmp(*l, t + 2, len) == 0)
                    takes = 1;
            if (!takes)
                continue;
            arg = eq ? eq + 1 : (j + 1 < v->end ? W(++j) : "");
            if (j < v->end && (FL(j) & SH_W_OPAQUE))
                opaque = 1;
            opt = strncmp(t + 2, "method", 6) == 0 ? 'X'
                : strncmp(t + 2, "input", 5) == 0 ? 'i'
                : (strncmp(t + 2, "field", 5) == 0 || strncmp(t + 2, "raw-field", 9) == 0) ? 'f' : 'o';
        } else {
            if (!strchr(argopts, t[1]))
                continue;
            opt = t[1];
            arg = t[2] ? t + 2 : (j + 1 < v->end ? W(++j) : "");
            if (j < v->end && (FL(j) & SH_W_OPAQUE))
                opaque = 1;
            if (opt == 'F')
                opt = 'f';
            else if (opt != 'X' && opt != 'f')
                opt = 'o';
        }
        if (opt == 'X')
            method = arg;
        else if (opt == 'i') {
            fields = 1;
            if (strcmp(arg, "-") == 0)
                stdin_in = 1;
            else
                sends_file = 1;
        } else if (opt == 'f') {
            fields = 1;
            const char *eq = strchr(arg, '=');
            if (eq && eq[1] == '@' && strcmp(eq + 1, "@-") != 0)
                sends_file = 1;
            if (eq && eq - arg == 5 && strncmp(arg, "force", 5) == 0 && strcmp(eq + 1, "true") == 0)
                force_field = 1;        /* -F force=true: the ref moves even if not a fast-forward */
            if (strcasestr(arg, "deleteRepository") || strcasestr(arg, "deleteProject"))
                delete_repo_gql = 1;
            if (strcasestr(arg, "mutation"))
                mutation = 1;
        }
    }
    if (stdin_in && v->c->piped_in)
        mutation = 1;
    int is_delete = method && strcasecmp(method, "DELETE") == 0;
    /* repos/O/R/git/refs/heads/main with force=true (PATCH) or DELETE: the API
     * form of git push --force / --delete on a protected branch */
    const char *hd = endpoint ? strstr(endpoint, "git/refs/heads/") : NULL;
    if (hd && (force_field || is_delete) && sh_git_protected_branch(hd + 15, strlen(hd + 15))) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.force_push_protected", p->name,
                   " api rewrites or deletes a protected branch (git/refs/heads/..., force or DELETE)",
                   NULL, v->via);
        return;
    }
    int is_get = (!method && !fields) || (method && (strcasecmp(method, "GET") == 0 ||
                                                     strcasecmp(method, "HEAD") == 0));
    const char *es = "";
    size_t en = 0;
    if (endpoint)
        endpoint_span(endpoint, &es, &en);
    int graphql = endpoint && en == 7 && strncasecmp(es, "graphql", 7) == 0;
    if (delete_repo_gql || (is_delete && (!endpoint || opaque || repo_endpoint(es, en)))) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.repo_delete", p->name,
                   delete_repo_gql ? " api runs a GraphQL mutation that deletes a repository"
                   : " api -X DELETE deletes a repository, an organisation or an endpoint it cannot see",
                   NULL, v->via);
        return;
    }
    if (en >= 9 && strncasecmp(es + en - 9, "/transfer", 9) == 0 && !is_get) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.destructive", p->name,
                   " api gives a repository away (transfer)", NULL, v->via);
        return;
    }
    if (sends_file) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.exfiltration", p->name,
                   " api sends a local file to the service (-F key=@file, --input)", NULL, v->via);
        return;
    }
    if (opaque) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_write", p->name,
                   " api sends a request built from an expansion it cannot see", NULL, v->via);
        return;
    }
    if (is_delete) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.network_write", p->name,
                   " api -X DELETE deletes a resource of the service", NULL, v->via);
        return;
    }
    if (graphql && !mutation && !method)
        return;                         /* a query (gh sends it as POST) */
    if (!is_get)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.network_write", p->name,
                   " api changes a resource of the service (a method other than GET)", NULL, v->via);
    else if (!endpoint)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
                   " api without an endpoint it can read", NULL, v->via);
}

/* gh alias set NAME EXPANSION: a later `gh NAME` runs `gh EXPANSION`
 * (`repo delete --yes`), or the shell text with --shell or a leading `!`.
 * The expansion is analysed as that command now; 1 when it was. */
static int alias_expansion(sh_ctx *cx, const sh_view *v, const sh_program *p, int vj)
{
    int shell = 0, name = -1, exp = -1;
    for (int j = vj + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] == '-' && t[1]) {
            shell |= strcmp(t, "--shell") == 0 || strcmp(t, "-s") == 0;
            continue;
        }
        if (name < 0)
            name = j;
        else if (exp < 0)
            exp = j;
    }
    if (exp < 0)
        return 0;
    if (FL(exp) & SH_W_OPAQUE) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.hidden_program", p->name,
                   " alias set defines an alias it cannot see", NULL, v->via);
        return 1;
    }
    const char *t = W(exp);
    size_t n = v->c->w[exp].len;
    if (shell || t[0] == '!') {
        if (t[0] == '!')
            t++, n--;
        sh_run_script(cx, t, n, "in a gh alias");
        return 1;
    }
    uint32_t mark;
    size_t pl = strlen(p->name);
    char *buf = sh_scratch(cx, pl + 1 + n + 1, &mark);
    if (!buf)
        return 1;                       /* sh_overflow: the decision fails closed */
    memcpy(buf, p->name, pl);
    buf[pl] = ' ';
    memcpy(buf + pl + 1, t, n);
    buf[pl + 1 + n] = '\0';
    sh_run_script(cx, buf, pl + 1 + n, "in a gh alias");
    sh_scratch_release(cx, mark);
    return 1;
}

static void effect(sh_ctx *cx, const sh_view *v, const sh_program *p, int e, const char *grp,
                   const char *verb, int vj)
{
    switch (e) {
    case F_READ:
        return;
    case F_REPO_DELETE:
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.repo_delete", p->name,
                   " deletes a repository (and its issues, releases and wiki) on the service",
                   NULL, v->via);
        return;
    case F_FORCE_SYNC:
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.force_push_protected", p->name,
                   " repo sync --force overwrites the default branch (it may be main)", NULL, v->via);
        return;
    case F_TOKEN:
        sh_verdict(cx, WG_SHELL_RISKY, "bash.reads_secret", p->name,
                   " prints the service's access token", NULL, v->via);
        return;
    case F_DELETE:
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.destructive", p->name, " deletes or gives away ",
                   grp, v->via);
        return;
    case F_RUNS:
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name, " ", verb,
                   v->via);
        if (strcasecmp(grp, "alias") == 0 && strcasecmp(verb, "set") == 0 && alias_expansion(cx, v, p, vj))
            return;
        sh_probe_args(cx, v, vj + 1);
        return;
    default:
        sh_verdict(cx, WG_SHELL_RISKY, "bash.network_write", p->name,
                   " changes something on the code-hosting service", NULL, v->via);
    }
}

/* gh secret set X < ~/.aws/credentials: a credential file sent to the service. */
static void sends_secret(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int k = 0; k < v->c->nr; k++) {
        const sh_redir *r = &v->c->r[k];
        if (r->op != SH_R_IN && r->op != SH_R_RDWR)
            continue;
        const char *what = sh_secret_path(v->c->text + r->target.off, r->target.len);
        if (what) {
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.exfiltration", p->name, " sends ", what, v->via);
            return;
        }
    }
}

void sh_rule_forge(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;
    if (v->c->nr > 0)
        sends_secret(cx, v, p);         /* the subcommand's verdict can only add to it */
    int hub = strcmp(p->name, "hub") == 0;
    if (hub) {
        int j = v->i + 1;
        while (j < v->end && W(j)[0] == '-')
            j++;
        if (j < v->end && strcmp(W(j), "delete") == 0) {
            effect(cx, v, p, F_REPO_DELETE, "repo", "delete", j);
            return;
        }
        if (j < v->end && strcmp(W(j), "api") == 0) {
            api_call(cx, v, p, j + 1);
            return;
        }
        sh_rule_git(cx, v, p);
        return;
    }
    /* the group: the first word that names one (option values before it are skipped) */
    int gj = -1;
    for (int j = v->i + 1; j < v->end && gj < 0; j++) {
        if (FL(j) & SH_W_OPAQUE) {
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.hidden_program", p->name,
                       " runs a subcommand it cannot see", NULL, v->via);
            /* the worst it could be: a repository delete is spelled out */
            if (j + 1 < v->end && strcmp(W(j + 1), "delete") == 0)
                effect(cx, v, p, F_REPO_DELETE, "repo", "delete", j);
            return;
        }
        if (in_list_ci(W(j), groups))
            gj = j;
    }
    if (gj < 0) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
                   " runs a subcommand it does not know (an extension or alias)", NULL, v->via);
        sh_probe_args(cx, v, v->i + 1);
        return;
    }
    const char *grp = W(gj);
    if (strcasecmp(grp, "api") == 0) {
        api_call(cx, v, p, gj + 1);
        return;
    }
    if (in_list_ci(grp, read_groups))
        return;
    /* the verb: the next word that is not an option; deploy-key and the
     * like are nested groups (repo deploy-key delete) */
    int vj = gj + 1;
    while (vj < v->end && W(vj)[0] == '-')
        vj++;
    if (vj < v->end && in_list_ci(W(vj), groups) && strcasecmp(W(vj), grp) != 0) {
        int k = vj + 1;
        while (k < v->end && W(k)[0] == '-')
            k++;
        if (k < v->end) {
            grp = W(vj);
            vj = k;
        }
    }
    if (vj >= v->end) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name, " ", grp, v->via);
        return;
    }
    const char *verb = W(vj);
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        const forge_pair *r = &pairs[k];
        if (strcasecmp(r->group, grp) != 0 || strcasecmp(r->verb, verb) != 0)
            continue;
        if (r->opt && !has_opt(v, vj + 1, r->opt))
            continue;
        effect(cx, v, p, r->effect, grp, verb, vj);
        return;
    }
    int e = in_list_ci(verb, delete_verbs) ? F_DELETE : in_list_ci(verb, read_verbs) ? F_READ : F_WRITE;
    effect(cx, v, p, e, grp, verb, vj);
}

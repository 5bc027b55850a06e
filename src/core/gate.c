/* gate.c - the per-call confirmation gate (spec 7.1-7.4, 14; issue #2 §2).
 *
 * needsConfirmation, getApprovalClass, isCriticalNeverAutopass and
 * needsConfirmationWithAutonomy in one pass that fills a caller-provided
 * decision. Pure apart from the hooks: no I/O, no clock, no heap on the hot
 * path. Tool sets are tables; bash goes to the shell model (shell.h).
 * Where this differs from the spec or the original, docs/gate.md says why.
 */
#include "waggle/gate.h"
#include "waggle/error.h"
#include "waggle/shell.h"
#include "core/gate_internal.h"
#include "core/shell/rules.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct wg_gate {
    wg_gate_hooks hooks;
};

/* spec 7.1 */
static const char *const always_confirm[] = {
    "write_file", "edit_file", "generate_docx", "git_commit", "git_push", "git_pr",
    "git_merge", "install_capability", "read_other_workspace", "list_workspace_files",
    "read_other_workspace_file",
};
/* spec 7.3 */
static const char *const trusted_autopass[] = {
    "write_file", "edit_file", "generate_docx", "read_other_workspace",
    "read_other_workspace_file",
};
/* spec 7.1: CONNECTOR_HIGH_RISK_ACTIONS and the write verbs */
static const char *const high_risk_actions[] = { "send_email", "send_template" };
static const char *const write_verbs[] = {
    "create", "update", "delete", "send", "post", "transition", "remove", "add", "set", "put",
};

#define COUNT(a) (sizeof (a) / sizeof *(a))

static int in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[0] == list[i][0] && strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

int wg_gate_new(wg_gate **out, const wg_gate_hooks *hooks)
{
    if (!out)
        return wg_error_set(WG_EINVAL, "wg_gate_new: out is NULL");
    if (hooks && hooks->version != WG_GATE_HOOKS_VERSION)
        return wg_error_set(WG_EINVAL, "wg_gate_hooks version %u, this library knows %d "
                            "(start from WG_GATE_HOOKS_INIT)", hooks->version, WG_GATE_HOOKS_VERSION);
    wg_gate *g = calloc(1, sizeof *g);
    if (!g)
        return wg_error_set(WG_ENOMEM, "wg_gate_new: out of memory");
    if (hooks)
        g->hooks = *hooks;
    *out = g;
    return 0;
}

void wg_gate_free(wg_gate *gate)
{
    free(gate);
}

static void set_reason(wg_gate_decision *d, const char *a, const char *b, const char *c)
{
    size_t k = 0, cap = sizeof d->reason;
    const char *parts[3] = { a, b, c };
    for (int i = 0; i < 3; i++)
        for (const char *s = parts[i]; s && *s && k + 1 < cap; s++)
            d->reason[k++] = *s;
    d->reason[k] = '\0';
}

/* ---- per tool ------------------------------------------------------------- */

static int truthy(const ga_val *v)
{
    switch (v->type) {
    case GA_TRUE: case GA_OBJECT: case GA_ARRAY: return 1;
    case GA_STRING: return v->n > 0;
    case GA_NUMBER: return v->esc;
    default: return 0;
    }
}

/* A bash command: the shell model's class decides all three levels. */
static int decide_bash(wg_gate_decision *d, const char *cmd, size_t len, wg_shell_class *cls)
{
    wg_shell_verdict v;
    wg_shell_analyze(&v, cmd, len);
    *cls = v.cls;
    d->needs_confirmation_base = v.cls != WG_SHELL_SAFE;
    d->critical = v.cls == WG_SHELL_CRITICAL;
    d->rule = v.rule;
    /* the whole buffer, NUL included (the model always terminates it):
     * a fixed-size copy is a few vector moves, where strnlen and a copy of
     * that length cost a call and a `rep movs` */
    _Static_assert(sizeof d->reason >= sizeof v.reason, "the shell reason fits the gate's");
    memcpy(d->reason, v.reason, sizeof v.reason);
    return 0;
}

static void bash_args(wg_gate_decision *d, const gate_args *a, wg_shell_class *cls)
{
    if (a->dup || a->command.type != GA_STRING) {
        *cls = WG_SHELL_CRITICAL;
        d->needs_confirmation_base = 1;
        d->critical = 1;
        d->rule = "bash.args_malformed";
        set_reason(d, a->dup ? "the bash call gives \"command\" twice"
                             : "the bash call has no \"command\" string",
                   "; the gate cannot see what would run", NULL);
        return;
    }
    if (!a->command.esc) {
        decide_bash(d, a->command.p, a->command.n, cls);
        return;
    }
    char stackbuf[16384];
    char *buf = stackbuf;
    if (a->command.n >= sizeof stackbuf) {
        buf = malloc(a->command.n + 1);
        if (!buf) {
            *cls = WG_SHELL_CRITICAL;
            d->needs_confirmation_base = d->critical = 1;
            d->rule = "bash.args_malformed";
            set_reason(d, "out of memory while reading the command", NULL, NULL);
            return;
        }
    }
    size_t n = ga_decode(&a->command, buf, a->command.n + 1);
    decide_bash(d, buf, n, cls);
    if (buf != stackbuf)
        free(buf);
}

static void connector(wg_gate_decision *d, const wg_gate *g, const char *tool)
{
    /* actionPart = everything after the second '_' (spec 7.1) */
    const char *first = strchr(tool, '_');
    const char *second = first ? strchr(first + 1, '_') : NULL;
    const char *action = second ? second + 1 : "";
    int high = in_list(action, high_risk_actions, COUNT(high_risk_actions));
    int write = 0;
    /* the write verbs as whole '_'-separated segments after "connector" */
    for (const char *s = first ? first + 1 : ""; *s && !write;) {
        size_t len = strcspn(s, "_");
        for (size_t i = 0; i < COUNT(write_verbs); i++)
            if (strlen(write_verbs[i]) == len && memcmp(write_verbs[i], s, len) == 0)
                write = 1;
        s += len;
        if (*s == '_')
            s++;
    }
    wg_risk_level declared = g->hooks.connector_risk
                           ? g->hooks.connector_risk(g->hooks.ctx, tool) : WG_RISK_UNKNOWN;
    wg_approval_class cls = high ? WG_APPROVAL_CRITICAL : write ? WG_APPROVAL_ELEVATED
                                                                : WG_APPROVAL_STANDARD;
    int gated = high || write;
    if (declared == WG_RISK_MEDIUM || declared == WG_RISK_HIGH) {
        wg_approval_class dc = wg_approval_for_risk(declared);
        if (dc > cls)
            cls = dc;
        gated = 1;
    }
    d->needs_confirmation_base = gated;
    d->approval_class = cls;
    if (high) {
        d->rule = "connector.high_risk_action";
        set_reason(d, "the connector action ", action, " sends mail on the user's behalf");
    } else if (gated && !write) {
        d->rule = "connector.declared_risk";
        set_reason(d, "the registry declares this connector action ", wg_risk_name(declared), " risk");
    } else if (write) {
        d->rule = "connector.write_verb";
        set_reason(d, "the connector action ", action, " writes to an external service");
    } else {
        d->rule = "connector.read";
        set_reason(d, "the connector action ", action[0] ? action : tool, " only reads");
    }
}

static int risk_of(const ga_val *v, wg_risk_level *out)
{
    char buf[16];
    if (v->type != GA_STRING)
        return -1;
    size_t n = ga_decode(v, buf, sizeof buf);
    if (n >= sizeof buf)
        return -1;
    char *s = buf;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        s[--len] = '\0';
    if (strcasecmp(s, "high") == 0) *out = WG_RISK_HIGH;
    else if (strcasecmp(s, "medium") == 0) *out = WG_RISK_MEDIUM;
    else if (strcasecmp(s, "low") == 0) *out = WG_RISK_LOW;
    else return -1;
    return 0;
}

static void install(wg_gate_decision *d, const wg_gate *g, const gate_args *a)
{
    wg_risk_level risk = WG_RISK_LOW, r;
    const char *why = "install_capability always asks";
    if (risk_of(&a->risk, &r) == 0 && r > risk) {
        risk = r;
        why = "the call declares _riskLevel ";
    }
    if (g->hooks.install_risk) {
        char name[256], source[256];
        size_t nn = a->name.type == GA_STRING ? ga_decode(&a->name, name, sizeof name) : 0;
        size_t sn = a->source.type == GA_STRING ? ga_decode(&a->source, source, sizeof source) : 0;
        if (nn >= sizeof name || sn >= sizeof source || a->dup) {
            r = WG_RISK_UNKNOWN;
        } else {
            name[nn] = source[sn] = '\0';
            r = g->hooks.install_risk(g->hooks.ctx, name, source);
        }
        if (r == WG_RISK_UNKNOWN)
            r = WG_RISK_HIGH;            /* cannot be assessed: worst case */
        if (r > risk) {
            risk = r;
            why = "the trust model rates this candidate ";
        }
    }
    d->needs_confirmation_base = 1;
    d->approval_class = wg_approval_for_risk(risk);
    d->critical = risk == WG_RISK_HIGH;
    d->rule = d->critical ? "install.risk_high" : "tool.always_confirm";
    if (risk == WG_RISK_LOW)
        set_reason(d, why, NULL, NULL);
    else
        set_reason(d, why, wg_risk_name(risk), " risk");
}

static void git_push_tool(wg_gate_decision *d, const gate_args *a)
{
    d->needs_confirmation_base = 1;
    d->rule = "tool.always_confirm";
    set_reason(d, "git_push always asks below yolo", NULL, NULL);
    if (!truthy(&a->force))
        return;
    char buf[128];
    int unseen = a->branch.type != GA_STRING || a->dup;
    const char *dst = buf;
    size_t n = 0;
    if (!unseen) {
        n = ga_decode(&a->branch, buf, sizeof buf);
        if (n >= sizeof buf) {
            unseen = 1;
        } else {
            while (n && (*dst == ' ' || *dst == '\t' || *dst == '+'))
                dst++, n--;
            const char *colon = memchr(dst, ':', n);
            if (colon) {
                n -= (size_t)(colon + 1 - dst);
                dst = colon + 1;
            }
            while (n && (dst[n - 1] == ' ' || dst[n - 1] == '\t'))
                n--;
            unseen = n == 0 || (n == 4 && strncasecmp(dst, "HEAD", 4) == 0);
        }
    }
    if (unseen || sh_git_protected_branch(dst, n)) {
        d->critical = 1;
        d->rule = "git_push.force_protected";
        set_reason(d, "git_push with force ", unseen ? "to a branch it cannot see (it may be main)"
                                                     : "to a protected branch (main, master or production)",
                   NULL);
    }
}

/* ---- the decision -------------------------------------------------------------- */

/* The checks and the fields every decision starts from; 0 or WG_EINVAL. */
static int decide_begin(wg_gate_decision *d, const wg_gate *g, const char *tool, wg_autonomy level)
{
    if (!d || !g || !tool || !*tool)
        return wg_error_set(WG_EINVAL, "wg_gate_check: NULL argument or empty tool name");
    if (level != WG_AUTONOMY_NORMAL && level != WG_AUTONOMY_TRUSTED && level != WG_AUTONOMY_YOLO)
        return wg_error_set(WG_EINVAL, "wg_gate_check: unknown autonomy level %d", (int)level);
    d->needs_confirmation_base = 0;
    d->critical = 0;
    d->approval_class = WG_APPROVAL_STANDARD;
    d->level = level;
    return 0;
}

/* needsConfirmation at the level from the base answer (spec 7.3). */
static void decide_end(wg_gate_decision *d, const char *tool, int is_bash, wg_shell_class bash_cls)
{
    int need;
    if (!d->needs_confirmation_base)
        need = 0;
    else if (d->level == WG_AUTONOMY_NORMAL || d->critical)
        need = 1;
    else if (d->level == WG_AUTONOMY_YOLO)
        need = 0;
    else if (is_bash)                   /* not in trusted_autopass */
        need = bash_cls >= WG_SHELL_DESTRUCTIVE;   /* docs/gate.md: Trusted and bash */
    else if (in_list(tool, trusted_autopass, COUNT(trusted_autopass)))
        need = 0;
    else
        need = 1;
    d->needs_confirmation = need;
    d->auto_approved = d->needs_confirmation_base && !need;
}

static int decide(wg_gate_decision *d, const wg_gate *g, const char *tool, const gate_args *a,
                  wg_autonomy level)
{
    int rc = decide_begin(d, g, tool, level);
    if (rc < 0)
        return rc;
    wg_shell_class bash_cls = WG_SHELL_SAFE;
    int is_bash = strcmp(tool, "bash") == 0;
    if (is_bash) {
        bash_args(d, a, &bash_cls);
    } else if (strncmp(tool, "connector_", 10) == 0) {
        connector(d, g, tool);
    } else if (strcmp(tool, "install_capability") == 0) {
        install(d, g, a);
    } else if (strcmp(tool, "git_push") == 0) {
        git_push_tool(d, a);
    } else if (strcmp(tool, "kvark_action") == 0) {
        d->needs_confirmation_base = 1;
        d->approval_class = WG_APPROVAL_ELEVATED;
        d->rule = "kvark.governed_write";
        set_reason(d, "kvark_action is a governed write to an enterprise system", NULL, NULL);
    } else if (in_list(tool, always_confirm, COUNT(always_confirm))) {
        d->needs_confirmation_base = 1;
        d->rule = "tool.always_confirm";
        set_reason(d, tool, " is in ALWAYS_CONFIRM", NULL);
    } else {
        d->rule = "tool.not_gated";
        set_reason(d, tool, " does not need confirmation", NULL);
    }
    decide_end(d, tool, is_bash, bash_cls);
    return 0;
}

int wg_gate_check(wg_gate_decision *out, const wg_gate *gate, const char *tool,
                  const char *args_json, size_t len, wg_autonomy level)
{
    gate_args a;
    if (!args_json || len == 0)
        gate_args_empty(&a);
    else if (gate_args_parse(&a, args_json, len) < 0)
        return wg_error_set(WG_EINVAL, "the arguments are not one valid JSON object");
    return decide(out, gate, tool, &a, level);
}

static void from_json(ga_val *v, const json_t *j)
{
    v->esc = 0;
    if (!j) {
        v->type = GA_ABSENT;
    } else if (json_is_string(j)) {
        v->type = GA_STRING;
        v->p = json_string_value(j);
        v->n = json_string_length(j);
    } else if (json_is_true(j)) {
        v->type = GA_TRUE;
    } else if (json_is_false(j)) {
        v->type = GA_FALSE;
    } else if (json_is_null(j)) {
        v->type = GA_NULL;
    } else if (json_is_number(j)) {
        v->type = GA_NUMBER;
        v->esc = json_number_value(j) != 0.0;
    } else {
        v->type = json_is_array(j) ? GA_ARRAY : GA_OBJECT;
    }
}

int wg_gate_check_json(wg_gate_decision *out, const wg_gate *gate, const char *tool,
                       const void *args, wg_autonomy level)
{
    const json_t *j = args;
    gate_args a;
    gate_args_empty(&a);
    if (j && !json_is_object(j))
        return wg_error_set(WG_EINVAL, "the arguments are not a JSON object");
    if (j) {
        from_json(&a.command, json_object_get(j, "command"));
        from_json(&a.risk, json_object_get(j, "_riskLevel"));
        from_json(&a.name, json_object_get(j, "name"));
        from_json(&a.source, json_object_get(j, "source"));
        from_json(&a.force, json_object_get(j, "force"));
        from_json(&a.branch, json_object_get(j, "branch"));
        /* jansson strings may hold NUL: the shell model sees the full length */
    }
    return decide(out, gate, tool, &a, level);
}

int wg_gate_check_bash(wg_gate_decision *out, const wg_gate *gate,
                       const char *command, size_t len, wg_autonomy level)
{
    if (!command) {                     /* the malformed-call answer, as from JSON */
        gate_args a;                    /* bash reads only command and dup */
        a.dup = 0;
        a.command.type = GA_ABSENT;
        a.command.p = NULL;
        a.command.n = 0;
        a.command.esc = 0;
        return decide(out, gate, "bash", &a, level);
    }
    /* the same steps as decide for a bash string without escapes, without
     * the tool name's dispatch */
    int rc = decide_begin(out, gate, "bash", level);
    if (rc < 0)
        return rc;
    wg_shell_class cls;
    decide_bash(out, command, len, &cls);
    decide_end(out, "bash", 1, cls);
    return 0;
}

int wg_gate_check_line(wg_gate_decision *out, const wg_gate *gate, const char *line,
                       size_t len, wg_autonomy default_level, char *tool, size_t tool_cap)
{
    ga_val t, lv;
    gate_args a;
    int dup;
    if (!line || !tool || tool_cap == 0)
        return wg_error_set(WG_EINVAL, "wg_gate_check_line: NULL argument");
    tool[0] = '\0';
    int prc = gate_line_parse(&t, &a, &lv, &dup, line, len);
    if (prc == -2)
        return wg_error_set(WG_EINVAL, "\"args\" must be a JSON object");
    if (prc < 0)
        return wg_error_set(WG_EINVAL, "not a valid JSON object");
    if (dup)
        return wg_error_set(WG_EINVAL, "\"tool\", \"args\" or \"level\" is given twice");
    if (t.type != GA_STRING)
        return wg_error_set(WG_EINVAL, "\"tool\" must be a string");
    size_t n = ga_decode(&t, tool, tool_cap);
    if (n >= tool_cap || n == 0 || memchr(tool, '\0', n)) {
        tool[0] = '\0';
        return wg_error_set(WG_EINVAL, "\"tool\" must be a non-empty name shorter than %zu bytes",
                            tool_cap);
    }
    wg_autonomy level = default_level;
    if (lv.type != GA_ABSENT) {
        char lb[16];
        if (lv.type != GA_STRING || ga_decode(&lv, lb, sizeof lb) >= sizeof lb ||
            wg_autonomy_parse(&level, lb) < 0)
            return wg_error_set(WG_EINVAL, "\"level\" must be \"normal\", \"trusted\" or \"yolo\"");
    }
    return decide(out, gate, tool, &a, level);
}

/* ---- the spec's four functions ------------------------------------------------ */

static int one(wg_gate_decision *d, const wg_gate *gate, const char *tool, const char *args,
               wg_autonomy level)
{
    return wg_gate_check(d, gate, tool, args, args ? strlen(args) : 0, level);
}

int wg_gate_needs_confirmation(int *out, const wg_gate *gate, const char *tool, const char *args_json)
{
    wg_gate_decision d;
    int rc;
    if (!out)
        return wg_error_set(WG_EINVAL, "out is NULL");
    if ((rc = one(&d, gate, tool, args_json, WG_AUTONOMY_NORMAL)) < 0)
        return rc;
    *out = d.needs_confirmation_base;
    return 0;
}

int wg_gate_needs_confirmation_with_autonomy(int *out, const wg_gate *gate, const char *tool,
                                             const char *args_json, wg_autonomy level)
{
    wg_gate_decision d;
    int rc;
    if (!out)
        return wg_error_set(WG_EINVAL, "out is NULL");
    if ((rc = one(&d, gate, tool, args_json, level)) < 0)
        return rc;
    *out = d.needs_confirmation;
    return 0;
}

int wg_gate_approval_class(wg_approval_class *out, const wg_gate *gate, const char *tool,
                           const char *args_json)
{
    wg_gate_decision d;
    int rc;
    if (!out)
        return wg_error_set(WG_EINVAL, "out is NULL");
    if ((rc = one(&d, gate, tool, args_json, WG_AUTONOMY_NORMAL)) < 0)
        return rc;
    *out = d.approval_class;
    return 0;
}

int wg_gate_is_critical(int *out, const wg_gate *gate, const char *tool, const char *args_json)
{
    wg_gate_decision d;
    int rc;
    if (!out)
        return wg_error_set(WG_EINVAL, "out is NULL");
    if ((rc = one(&d, gate, tool, args_json, WG_AUTONOMY_NORMAL)) < 0)
        return rc;
    *out = d.critical;
    return 0;
}

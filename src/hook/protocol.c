/* protocol.c - reading and answering the agents' hook JSON (protocol.h). */
#include "hook/protocol.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    wg_agent agent;
    const char *event;      /* hook_event_name this face answers */
} face;

static const face faces[] = {
    { WG_AGENT_CLAUDE_CODE, "PreToolUse" },
    { WG_AGENT_CODEX, "PreToolUse" },
    { WG_AGENT_GEMINI, "BeforeTool" },
};

static const face *face_of(wg_agent a)
{
    for (size_t i = 0; i < sizeof faces / sizeof faces[0]; i++)
        if (faces[i].agent == a)
            return &faces[i];
    return NULL;
}

static void malformed(wg_hook_reply *r, const char *what)
{
    r->exit_code = 2;
    snprintf(r->err, sizeof r->err,
             "waggle hook: denied: the hook input is malformed (%s); waggle cannot see what "
             "the call would do\n", what);
}

/* "waggle asks (rule bash.rm_recursive at normal): <reason>" */
static void reason_text(char *buf, size_t cap, const wg_hook_verdict *v, const wg_hook_policy *p)
{
    const wg_gate_decision *d = &v->d;
    const char *verb = v->outcome == WG_HOOK_ALLOW ? "allows" : v->outcome == WG_HOOK_ASK
                                                                   ? "asks" : "denies";
    const char *tail = "";
    if (v->outcome == WG_HOOK_DENY)
        tail = "; never-autopass: denied at every autonomy level (the operator may choose "
               "--never-autopass ask)";
    else if (v->outcome == WG_HOOK_ASK && d->critical)
        tail = "; never-autopass: asks at every autonomy level";
    snprintf(buf, cap, "waggle %s (rule %s at %s): %s%s", verb, d->rule,
             wg_autonomy_name(p->level), d->reason, tail);
}

static char *dump(json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return s;
}

static char *answer_claude(const char *decision, const char *reason)
{
    return dump(json_pack("{s:{s:s,s:s,s:s}}", "hookSpecificOutput", "hookEventName",
                          "PreToolUse", "permissionDecision", decision,
                          "permissionDecisionReason", reason));
}

static char *answer_gemini(const wg_hook_verdict *v, const char *reason)
{
    const char *decision = wg_hook_outcome_name(v->outcome);
    if (v->outcome == WG_HOOK_ASK)
        return dump(json_pack("{s:s,s:s,s:s}", "decision", decision, "reason", reason,
                              "systemMessage", reason));
    return dump(json_pack("{s:s,s:s}", "decision", decision, "reason", reason));
}

/* Codex honours only deny: allow and (with --ask-as defer) ask say nothing. */
static char *answer_codex(const wg_hook_verdict *v, const wg_hook_options *o, const char *reason)
{
    if (v->outcome == WG_HOOK_ALLOW || (v->outcome == WG_HOOK_ASK && o->ask_defer))
        return NULL;
    char buf[1024];
    if (v->outcome == WG_HOOK_ASK) {
        snprintf(buf, sizeof buf, "%s; a Codex hook cannot ask a person, so the call is "
                 "denied: run it yourself, or raise the autonomy level", reason);
        reason = buf;
    }
    return answer_claude("deny", reason);
}

static const char *check_input(const json_t *j, const face *f, const char **tool,
                               const json_t **input, const char **cwd)
{
    if (!json_is_object(j))
        return "not one JSON object";
    const json_t *ev = json_object_get(j, "hook_event_name");
    if (ev && (!json_is_string(ev) || strcmp(json_string_value(ev), f->event) != 0))
        return f->agent == WG_AGENT_GEMINI ? "hook_event_name is not BeforeTool"
                                           : "hook_event_name is not PreToolUse";
    const json_t *t = json_object_get(j, "tool_name");
    if (!json_is_string(t) || json_string_length(t) == 0)
        return "no tool_name string";
    if (json_string_length(t) > WG_HOOK_TOOL_NAME_MAX ||
        strlen(json_string_value(t)) != json_string_length(t))
        return "tool_name longer than 256 bytes or holding a NUL byte";
    const json_t *in = json_object_get(j, "tool_input");
    if (in && !json_is_object(in))
        return "tool_input is not a JSON object";
    const json_t *c = json_object_get(j, "cwd");
    if (c && !json_is_string(c))
        return "cwd is not a string";
    *tool = json_string_value(t);
    *input = in;
    *cwd = c ? json_string_value(c) : NULL;
    if (*cwd && strlen(*cwd) != json_string_length(c))
        return "cwd holds a NUL byte";
    return NULL;
}

void wg_hook_respond(wg_hook_reply *r, const wg_gate *gate, const wg_hook_options *o,
                     const char *in, size_t n)
{
    memset(r, 0, sizeof *r);
    const face *f = face_of(o->policy.agent);
    if (!f) {
        malformed(r, "no agent chosen");
        return;
    }
    if (n > WG_HOOK_INPUT_MAX) {
        malformed(r, "more than 16 MiB");
        return;
    }
    json_error_t jerr;
    json_t *j = json_loadb(in, n, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        char what[200];
        snprintf(what, sizeof what, "invalid JSON: %s", jerr.text);
        malformed(r, what);
        return;
    }
    const char *tool = NULL, *cwd = NULL;
    const json_t *input = NULL;
    const char *bad = check_input(j, f, &tool, &input, &cwd);
    if (bad) {
        malformed(r, bad);
        json_decref(j);
        return;
    }
    const json_t *mcp = f->agent == WG_AGENT_GEMINI ? json_object_get(j, "mcp_context") : NULL;
    if (wg_hook_decide(&r->v, gate, &o->policy, tool, input, mcp, cwd) < 0) {
        malformed(r, wg_error_last());
        json_decref(j);
        return;
    }
    json_decref(j);
    r->decided = 1;
    char reason[WG_GATE_REASON_MAX + 400];
    reason_text(reason, sizeof reason, &r->v, &o->policy);
    if (r->v.outcome == WG_HOOK_ALLOW && o->allow_defer)
        r->out = NULL;
    else if (f->agent == WG_AGENT_CLAUDE_CODE)
        r->out = answer_claude(wg_hook_outcome_name(r->v.outcome), reason);
    else if (f->agent == WG_AGENT_GEMINI)
        r->out = answer_gemini(&r->v, reason);
    else
        r->out = answer_codex(&r->v, o, reason);
    int wanted = !(r->v.outcome == WG_HOOK_ALLOW && o->allow_defer) &&
                 !(f->agent == WG_AGENT_CODEX &&
                   (r->v.outcome == WG_HOOK_ALLOW || (r->v.outcome == WG_HOOK_ASK && o->ask_defer)));
    if (wanted && !r->out) {
        r->decided = 0;
        malformed(r, "out of memory while answering");
    }
}

void wg_hook_reply_clear(wg_hook_reply *r)
{
    if (r) {
        free(r->out);
        r->out = NULL;
    }
}

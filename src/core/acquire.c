/* acquire.c - searchCapabilities, scoreMatch and the proposal summary
 * (spec 3.1-3.2; original-facts 3.2, 12.6, 13 item 22).
 *
 * Differences from the original, all on the safe side: keywords match by
 * word (so "memo" no longer hits "search_memory", and "risk-assessment"
 * now hits the skill of that name), skill descriptions come from the front
 * matter instead of a literal "---", and a marketplace recommendation tells
 * the agent to emit the capability-request marker (spec 4.3) instead of
 * calling install_capability, which only installs the starter pack.
 */
#include "waggle/acquire.h"
#include "core/sbuf.h"
#include "waggle/marker.h"
#include "waggle/error.h"
#include "waggle/text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NATIVE_TOOL_HINTS (original-facts 3.2), then the platform's other tools. */
static const wg_native_tool NATIVE_TOOLS[] = {
    { "web_search", "search internet web browse lookup find information online" },
    { "web_fetch", "fetch download webpage url content read website" },
    { "search_memory", "memory recall remember past history context previous" },
    { "save_memory", "memory store remember save persist note" },
    { "read_file", "file read open content text code source" },
    { "write_file", "file write create save output generate" },
    { "edit_file", "file edit modify change update patch" },
    { "search_files", "file find search locate discover pattern" },
    { "search_content", "grep search content text pattern find code" },
    { "bash", "command terminal shell run execute script process" },
    { "git_status", "git version control status changes modified" },
    { "git_diff", "git diff changes compare difference" },
    { "git_log", "git history log commits recent changes" },
    { "git_commit", "git commit save snapshot version" },
    { "generate_docx", "document word docx report generate create write format" },
    { "create_plan", "plan planning steps strategy organize breakdown" },
    { "spawn_agent", "agent delegate specialist sub-agent team parallel" },
    { "query_knowledge", "knowledge graph entity relation concept" },
    /* The platform's other native tools (spec 4, 6, 7.1); scored by name. */
    { "git_push", NULL },
    { "git_pr", NULL },
    { "git_merge", NULL },
    { "show_plan", NULL },
    { "get_identity", NULL },
    { "get_awareness", NULL },
    { "query_audit", NULL },
    { "list_skills", NULL },
    { "search_skills", NULL },
    { "create_skill", NULL },
    { "list_connectors", NULL },
    { "list_harnesses", NULL },
    { "acquire_capability", NULL },
    { "install_capability", NULL },
    { "find_connector", NULL },
    { "list_connector_categories", NULL },
};
enum { N_NATIVE = sizeof NATIVE_TOOLS / sizeof NATIVE_TOOLS[0], N_HINTED = 18 };

const wg_native_tool *wg_acquire_native_tools(size_t *count)
{
    if (count)
        *count = N_NATIVE;
    return NATIVE_TOOLS;
}

const char *wg_acquire_native_hints(const char *tool)
{
    for (size_t i = 0; tool && i < N_HINTED; i++)
        if (strcmp(NATIVE_TOOLS[i].name, tool) == 0)
            return NATIVE_TOOLS[i].hints;
    return NULL;
}

static const char *const TYPE_NAMES[] = { "native", "skill", "plugin", "mcp", "connector", "marketplace" };
static const char *const AVAIL_NAMES[] = { "active", "installed_inactive", "installable", "unavailable" };

const char *wg_capability_type_name(wg_capability_type t)
{
    return (unsigned)t <= WG_CAPTYPE_MARKETPLACE ? TYPE_NAMES[t] : "unknown";
}

const char *wg_availability_name(wg_availability a)
{
    return (unsigned)a <= WG_AVAIL_UNAVAILABLE ? AVAIL_NAMES[a] : "unknown";
}

/* ---- scoreMatch ---------------------------------------------------------- */

double wg_acquire_score(const wg_keywords *kw, const char *name, const char *content,
                        char **reason)
{
    double s = wg_acquire_score_raw(kw, name, content, reason);
    return s > 1.0 ? 1.0 : s;
}

double wg_acquire_score_raw(const wg_keywords *kw, const char *name, const char *content,
                            char **reason)
{
    if (reason)
        *reason = NULL;
    if (!kw || kw->count == 0)
        return reason ? ((*reason = strdup("")), 0.0) : 0.0;
    char *fname = NULL, *fcontent = NULL;
    if (wg_text_fold(&fname, name) < 0 || wg_text_fold(&fcontent, content) < 0) {
        free(fname);
        return 0.0;
    }
    wg_sbuf names = { 0 }, contents = { 0 };
    int total = 0;
    for (size_t i = 0; i < kw->count; i++) {
        char *k = NULL;
        if (wg_text_fold(&k, kw->items[i]) < 0) {
            names.oom = 1;
            break;
        }
        if (wg_text_word_match(fname, k)) {
            total += WG_ACQUIRE_NAME_POINTS;
            wg_sbuf__printf(&names, "%s%s", names.len ? ", " : "", kw->items[i]);
        } else if (wg_text_word_match(fcontent, k)) {
            total += WG_ACQUIRE_CONTENT_POINTS;
            wg_sbuf__printf(&contents, "%s%s", contents.len ? ", " : "", kw->items[i]);
        }
        free(k);
    }
    free(fname);
    free(fcontent);
    double score = (double)total / (double)kw->count;
    if (reason && !names.oom && !contents.oom) {
        wg_sbuf r = { 0 };
        if (names.len)
            wg_sbuf__printf(&r, "name matches: %s", names.p);
        if (contents.len)
            wg_sbuf__printf(&r, "%scontent mentions: %s", r.len ? "; " : "", contents.p);
        *reason = wg_sbuf__take(&r);
    }
    free(names.p);
    free(contents.p);
    return score;
}

/* ---- candidates ---------------------------------------------------------- */

static void candidate_clear(wg_candidate *c)
{
    free(c->name);
    free(c->description);
    free(c->match_reason);
}

void wg_proposal_free(wg_proposal *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->total; i++)
        candidate_clear(&p->candidates[i]);
    free(p->candidates);
    free(p->need);
    free(p->summary);
    memset(p, 0, sizeof *p);
}

typedef struct {
    const char *type, *source, *content;
    const wg_permission_set *declared;
} trust_args;

/* Adds a candidate; takes ownership of reason. Returns 0 or <0. */
static int push(wg_proposal *p, const wg_acquire_input *in, const char *name,
                wg_capability_type type, wg_availability avail, const char *description,
                const char *source, double raw, char *reason, const char *fallback_reason,
                trust_args ta)
{
    wg_candidate c = { 0 };
    double score = raw > 1.0 ? 1.0 : raw;
    c.match_raw = raw;
    c.type = type;
    c.availability = avail;
    c.source = source;
    c.match_score = score;
    c.install_action = avail == WG_AVAIL_INSTALLABLE;
    c.name = strdup(name);
    /* Descriptions come from files and marketplace listings: one line,
     * bounded, so they cannot restructure the summary the agent reads. */
    if (wg_text_one_line(&c.description, description, WG_ACQUIRE_DESCRIPTION_MAX) < 0)
        c.description = NULL;
    c.match_reason = (reason && *reason) ? reason : strdup(fallback_reason);
    if (c.match_reason != reason)
        free(reason);
    if (!c.name || !c.description || !c.match_reason) {
        candidate_clear(&c);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    wg_trust_input ti = { ta.type, ta.source, ta.content, ta.declared };
    int rc = wg_trust_assess(&c.trust, in->trust, &ti);
    if (rc < 0) {
        candidate_clear(&c);
        return rc;
    }
    wg_candidate *g = realloc(p->candidates, (p->total + 1) * sizeof *g);
    if (!g) {
        candidate_clear(&c);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    p->candidates = g;
    p->candidates[p->total++] = c;
    return 0;
}

static int add_natives(wg_proposal *p, const wg_acquire_input *in, const wg_keywords *kw)
{
    for (size_t i = 0; i < in->n_native_tools; i++) {
        const char *t = in->native_tools[i];
        if (!t)
            continue;
        const char *hints = wg_acquire_native_hints(t);
        char *words = NULL;
        if (!hints && wg_text_fold(&words, t) < 0)
            return WG_ENOMEM;
        const char *h = hints ? hints : words;
        char *reason = NULL;
        double s = wg_acquire_score_raw(kw, t, h, &reason);
        int rc = 0;
        if (s >= WG_ACQUIRE_NATIVE_MIN) {
            char desc[256];
            snprintf(desc, sizeof desc, "Built-in tool \"%s\"", t);
            rc = push(p, in, t, WG_CAPTYPE_NATIVE, WG_AVAIL_ACTIVE, desc, "native-tools", s,
                      reason, "general relevance",
                      (trust_args){ "native", "native-tools", h, NULL });
        } else {
            free(reason);
        }
        free(words);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int add_skills(wg_proposal *p, const wg_acquire_input *in, const wg_keywords *kw,
                      const wg_skillset *set, int starter)
{
    for (size_t i = 0; i < wg_skillset_count(set); i++) {
        const wg_skill *sk = wg_skillset_get(set, i);
        if (starter && wg_skillset_find(in->active, sk->name))
            continue;
        char *reason = NULL;
        double s = wg_acquire_score_raw(kw, sk->name, sk->content, &reason);
        double min = starter ? WG_ACQUIRE_STARTER_MIN : WG_ACQUIRE_INSTALLED_MIN;
        if (s < min) {
            free(reason);
            continue;
        }
        const char *src = starter ? WG_SKILLS_STARTER_SOURCE : "installed";
        int rc = push(p, in, sk->name, WG_CAPTYPE_SKILL,
                      starter ? WG_AVAIL_INSTALLABLE : WG_AVAIL_ACTIVE, sk->description, src, s,
                      reason, "general relevance",
                      (trust_args){ "skill", src, sk->content, &sk->declared });
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int add_marketplace(wg_proposal *p, const wg_acquire_input *in, const wg_keywords *kw)
{
    for (size_t i = 0; i < in->n_marketplace; i++) {
        const wg_market_hit *m = &in->marketplace[i];
        if (!m->name || !*m->name || wg_skillset_find(in->active, m->name) ||
            wg_skillset_find(in->starter, m->name))
            continue;
        const char *desc = m->description ? m->description : "";
        char *reason = NULL;
        double s = wg_acquire_score_raw(kw, m->name, desc, &reason);
        /* A supplied score only counts when it is a number in [0, 1]. */
        if (m->score >= 0.0 && m->score <= 1.0 && m->score > s)
            s = m->score;
        if (!(s >= WG_ACQUIRE_MARKETPLACE_MIN)) {
            free(reason);
            continue;
        }
        int rc = push(p, in, m->name, WG_CAPTYPE_MARKETPLACE, WG_AVAIL_INSTALLABLE,
                      *desc ? desc : m->name, "marketplace", s, reason, "marketplace search match",
                      (trust_args){ "skill", "marketplace", desc, NULL });
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Score descending; within WG_ACQUIRE_TIE_WINDOW, availability order (spec
 * 3.2); then, for the same availability, the unclamped score, so a skill
 * whose name matches every keyword beats one that scores 1.0 only because
 * of the clamp. The relation is not transitive, so the algorithm is part of
 * the contract: a stable insertion sort. */
static int before(const wg_candidate *a, const wg_candidate *b)
{
    double d = a->match_score - b->match_score;
    if (fabs(d) <= WG_ACQUIRE_TIE_WINDOW + 1e-9) {
        if (a->availability != b->availability)
            return a->availability < b->availability;
        return a->match_raw > b->match_raw + 1e-9;
    }
    return d > 0;
}

static void sort_candidates(wg_candidate *c, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        wg_candidate x = c[i];
        size_t j = i;
        while (j > 0 && before(&x, &c[j - 1])) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
}

/* ---- summary ------------------------------------------------------------- */

static const char *const RISK_CAP[] = { "Low", "Medium", "High" };

static const char *risk_cap(wg_risk_level r)
{
    return r >= WG_RISK_LOW && r <= WG_RISK_HIGH ? RISK_CAP[r] : "High";
}

static void add_indented(wg_sbuf *b, const char *text)
{
    wg_sbuf__puts(b, "  ");
    for (const char *p = text; *p; p++) {
        if (*p == '\n')
            wg_sbuf__puts(b, "\n  ");
        else
            wg_sbuf__put(b, p, 1);
    }
}

static void summary_gap(wg_sbuf *b, const wg_proposal *p)
{
    wg_sbuf__printf(b, "## Capability Gap Detected\n\nYou don't have a specialized capability for: **%s**",
                   p->need);
    size_t shown = 0;
    for (size_t i = 0; i < p->total && shown < WG_ACQUIRE_SUMMARY_LIST; i++) {
        const wg_candidate *c = &p->candidates[i];
        if (c->availability != WG_AVAIL_ACTIVE)
            continue;
        if (shown++ == 0)
            wg_sbuf__printf(b, "\n\n### Already Available\n");
        wg_sbuf__printf(b, "\n- **%s** (%s) — %s", c->name,
                       c->type == WG_CAPTYPE_NATIVE ? "built-in tool" : "active skill", c->description);
    }
    shown = 0;
    for (size_t i = 0; i < p->total && shown < WG_ACQUIRE_SUMMARY_LIST; i++) {
        const wg_candidate *c = &p->candidates[i];
        if (c->availability != WG_AVAIL_INSTALLABLE)
            continue;
        if (shown++ == 0)
            wg_sbuf__printf(b, "\n\n### Available to Install\n");
        char *ts = NULL;
        if (wg_trust_format_summary(&ts, &c->trust) < 0) {
            b->oom = 1;
            return;
        }
        wg_sbuf__printf(b, "\n- **%s** (%s) — %s\n", c->name, c->source, c->description);
        add_indented(b, ts);
        free(ts);
    }
    const wg_candidate *r = p->recommendation;
    if (!r)
        return;
    if (r->availability != WG_AVAIL_INSTALLABLE) {
        wg_sbuf__printf(b, "\n\n### Recommendation\n\nUse your existing %s **%s** — it partially covers "
                       "this need.", r->type == WG_CAPTYPE_NATIVE ? "tool" : "skill", r->name);
        return;
    }
    wg_sbuf__printf(b, "\n\n### Recommendation\n\nInstall **%s** from the %s.\n- **Why**: %s\n"
                   "- **What it does**: %s\n- **Risk level**: %s (%s)\n- **Trust**: %s\n"
                   "- **Approval required**: Yes — user must approve before installation.\n\n",
                   r->name, r->source, r->match_reason, r->description, risk_cap(r->trust.risk),
                   wg_assessment_mode_name(r->trust.mode), r->trust.explanation);
    if (strcmp(r->source, WG_SKILLS_STARTER_SOURCE) == 0) {
        wg_sbuf__printf(b, "To install, call: `install_capability` with name \"%s\" and source \"%s\".",
                       r->name, r->source);
        return;
    }
    /* install_capability only installs the starter pack (spec 3.3); other
     * sources go through the user's Install card (spec 4.3). */
    char *why = NULL, *line = NULL;
    if (asprintf(&why, "Needed for: %s", p->need) < 0)
        why = NULL;
    if (why && wg_marker_emit(&line, r->name, r->source, why) == 0) {
        wg_sbuf__printf(b, "This is not a starter-pack skill, so do not call `install_capability`. "
                       "To offer it to the user, write this line on its own:\n\n%s", line);
        if (!b->oom && b->len > 0 && b->p[b->len - 1] == '\n')
            b->p[--b->len] = '\0';
    } else {
        wg_error_clear();
        wg_sbuf__printf(b, "This is not a starter-pack skill: ask the user to install **%s** from the %s.",
                       r->name, r->source);
    }
    free(why);
    free(line);
}

static char *build_summary(const wg_proposal *p, size_t n_keywords)
{
    wg_sbuf b = { 0 };
    const wg_candidate *r = p->recommendation;
    if (n_keywords == 0)
        wg_sbuf__printf(&b, "Could not extract meaningful keywords from the need description. Try rephrasing.");
    else if (p->total == 0)
        wg_sbuf__printf(&b, "No capabilities found for \"%s\". You may need to create a custom skill with "
                       "create_skill, or approach this task using your general abilities.", p->need);
    else if (p->already_handled && r->type == WG_CAPTYPE_NATIVE)
        wg_sbuf__printf(&b, "You already have a built-in tool for this: **%s**. No installation needed — "
                       "use it directly.", r->name);
    else if (p->already_handled)
        wg_sbuf__printf(&b, "You already have an active skill for this: **%s** — \"%s\". No installation "
                       "needed.", r->name, r->description);
    else
        summary_gap(&b, p);
    return wg_sbuf__take(&b);
}

/* ---- searchCapabilities -------------------------------------------------- */

/* bestActive is the first active candidate scoring >= 0.3 (spec 3.2). It
 * only counts as handling the need when no installable candidate ranks
 * above it: that is what the original's verified vectors show (a strong
 * marketplace hit beats a weak built-in search tool), and it keeps a
 * partial built-in match from hiding a better capability. */
static void decide(wg_proposal *p)
{
    size_t best_active = p->total, first_installable = p->total;
    for (size_t i = 0; i < p->total; i++) {
        const wg_candidate *c = &p->candidates[i];
        if (best_active == p->total && c->availability == WG_AVAIL_ACTIVE &&
            c->match_score >= WG_ACQUIRE_BEST_ACTIVE_MIN)
            best_active = i;
        if (first_installable == p->total && c->availability == WG_AVAIL_INSTALLABLE)
            first_installable = i;
    }
    p->already_handled = best_active < first_installable &&
                         p->candidates[best_active].match_score >= WG_ACQUIRE_HANDLED_MIN;
    if (!p->already_handled && first_installable < p->total)
        p->recommendation = &p->candidates[first_installable];
    else if (p->already_handled)
        p->recommendation = &p->candidates[best_active];
    else
        p->recommendation = p->total ? &p->candidates[0] : NULL;
    p->gap_detected = !p->already_handled && first_installable < p->total;
}

int wg_acquire_search(wg_proposal *out, const wg_acquire_input *in)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->need || !in->trust)
        return wg_error_set(WG_EINVAL, "\"need\" is required — describe what capability you "
                            "are looking for.");
    wg_proposal p = { 0 };
    wg_keywords kw;
    int rc = wg_text_keywords(&kw, in->need);
    if (rc < 0)
        return rc;
    if (!(p.need = strdup(in->need)))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc == 0 && kw.count > 0) {
        if ((rc = add_natives(&p, in, &kw)) == 0 &&
            (rc = add_skills(&p, in, &kw, in->active, 0)) == 0 &&
            (rc = add_skills(&p, in, &kw, in->starter, 1)) == 0)
            rc = add_marketplace(&p, in, &kw);
        if (rc == 0) {
            sort_candidates(p.candidates, p.total);
            decide(&p);
        }
    }
    if (rc == 0 && !(p.summary = build_summary(&p, kw.count)))
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    wg_keywords_free(&kw);
    if (rc < 0) {
        wg_proposal_free(&p);
        return rc == WG_ENOMEM ? wg_error_set(WG_ENOMEM, "out of memory") : rc;
    }
    p.count = p.total < WG_ACQUIRE_MAX_CANDIDATES ? p.total : WG_ACQUIRE_MAX_CANDIDATES;
    *out = p;
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

json_t *wg_candidate_json(const wg_candidate *c)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "name", wg_text_json_string(c->name));
    json_object_set_new(o, "type", json_string(wg_capability_type_name(c->type)));
    json_object_set_new(o, "availability", json_string(wg_availability_name(c->availability)));
    json_object_set_new(o, "description", wg_text_json_string(c->description));
    json_object_set_new(o, "source", json_string(c->source));
    json_object_set_new(o, "matchScore", json_real(c->match_score));
    json_object_set_new(o, "matchReason", wg_text_json_string(c->match_reason));
    json_object_set_new(o, "installAction",
                        c->install_action ? json_string("install_capability") : json_null());
    json_object_set_new(o, "trust", wg_trust_assessment_json(&c->trust));
    return o;
}

json_t *wg_proposal_json(const wg_proposal *p)
{
    json_t *o = json_object(), *cands = json_array();
    if (!o || !cands) {
        json_decref(o);
        json_decref(cands);
        return NULL;
    }
    for (size_t i = 0; i < p->count; i++)
        json_array_append_new(cands, wg_candidate_json(&p->candidates[i]));
    json_object_set_new(o, "need", wg_text_json_string(p->need));
    json_object_set_new(o, "gapDetected", json_boolean(p->gap_detected));
    json_object_set_new(o, "summary", wg_text_json_string(p->summary));
    json_object_set_new(o, "candidates", cands);
    json_object_set_new(o, "recommendation",
                        p->recommendation ? wg_candidate_json(p->recommendation) : json_null());
    json_object_set_new(o, "alreadyHandled", json_boolean(p->already_handled));
    return o;
}

/* ---- install risk (gate hook) --------------------------------------------- */

wg_risk_level wg_acquire_install_risk(const wg_trust *trust, const wg_skillset *starter,
                                      const char *name, const char *source)
{
    const wg_skill *sk = NULL;
    if (!trust || wg_skills_validate_install(&sk, starter, NULL, name, source) < 0) {
        wg_error_clear();
        return WG_RISK_HIGH;
    }
    wg_trust_input ti = { "skill", WG_SKILLS_STARTER_SOURCE, sk->content, &sk->declared };
    wg_trust_assessment a;
    if (wg_trust_assess(&a, trust, &ti) < 0) {
        wg_error_clear();
        return WG_RISK_HIGH;
    }
    return a.risk;
}

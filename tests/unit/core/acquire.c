/* Tests for searchCapabilities and scoreMatch (spec 3; original-facts 3.2,
 * 12.6, 13 item 22), against the real starter pack. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/acquire.h"
#include "waggle/error.h"
#include "core/skills_internal.h"

static wg_trust *T;
static wg_skillset *STARTER, *NONE;
static const char **NATIVE;
static size_t N_NATIVE;

static void setup(void)
{
    cr_assert_eq(wg_trust_new(&T), 0);
    cr_assert_eq(wg_skillset_load_dir(&STARTER, WG_SOURCE_DIR "/data/skills"), 0);
    cr_assert_eq(wg_skillset__new(&NONE, NULL), 0);
    const wg_native_tool *t = wg_acquire_native_tools(&N_NATIVE);
    NATIVE = calloc(N_NATIVE, sizeof *NATIVE);
    for (size_t i = 0; i < N_NATIVE; i++)
        NATIVE[i] = t[i].name;
}

static void teardown(void)
{
    wg_trust_free(T);
    wg_skillset_free(STARTER);
    wg_skillset_free(NONE);
    free(NATIVE);
}

TestSuite(acquire, .init = setup, .fini = teardown);

static wg_proposal search(const char *need, const wg_skillset *active,
                          const wg_market_hit *mkt, size_t n_mkt)
{
    wg_acquire_input in = { need, NATIVE, N_NATIVE, active ? active : NONE, STARTER,
                            mkt, n_mkt, T };
    wg_proposal p;
    cr_assert_eq(wg_acquire_search(&p, &in), 0, "%s", wg_error_last());
    return p;
}

static wg_keywords kws(const char *const *w, size_t n)
{
    wg_keywords k = { calloc(n ? n : 1, sizeof(char *)), n };
    for (size_t i = 0; i < n; i++)
        k.items[i] = strdup(w[i]);
    return k;
}

Test(acquire, thresholds_are_the_spec_constants)
{
    cr_expect_eq(WG_ACQUIRE_NATIVE_MIN, 0.15);
    cr_expect_eq(WG_ACQUIRE_INSTALLED_MIN, 0.1);
    cr_expect_eq(WG_ACQUIRE_STARTER_MIN, 0.1);
    cr_expect_eq(WG_ACQUIRE_MARKETPLACE_MIN, 0.1);
    cr_expect_eq(WG_ACQUIRE_HANDLED_MIN, 0.4);
    cr_expect_eq(WG_ACQUIRE_BEST_ACTIVE_MIN, 0.3);
    cr_expect_eq(WG_ACQUIRE_TIE_WINDOW, 0.05);
    cr_expect_eq(WG_ACQUIRE_SUMMARY_LIST, 3);
    cr_expect_eq(WG_ACQUIRE_MAX_CANDIDATES, 8);
    cr_expect_eq(WG_ACQUIRE_NAME_POINTS, 2);
    cr_expect_eq(WG_ACQUIRE_CONTENT_POINTS, 1);
}

Test(acquire, native_tool_hints_has_18_entries)
{
    size_t n;
    const wg_native_tool *t = wg_acquire_native_tools(&n);
    size_t hinted = 0;
    for (size_t i = 0; i < n; i++)
        hinted += t[i].hints != NULL;
    cr_expect_eq(hinted, 18);
    cr_expect_str_eq(wg_acquire_native_hints("web_search"),
                     "search internet web browse lookup find information online");
    cr_expect_null(wg_acquire_native_hints("acquire_capability"));
}

Test(acquire, score_match_reference_vectors)
{
    char *reason = NULL;
    wg_keywords k = kws((const char *[]){ "risk", "assessment", "project" }, 3);
    cr_expect_eq(wg_acquire_score(&k, "risk-assessment", "# Risk Assessment — Project", &reason), 1.0);
    cr_expect_str_eq(reason, "name matches: risk, assessment; content mentions: project");
    free(reason);
    wg_keywords_free(&k);
    k = kws((const char *[]){ "a", "b" }, 2);
    cr_expect_eq(wg_acquire_score(&k, "x", "a", NULL), 0.5);
    wg_keywords_free(&k);
}

Test(acquire, hyphenated_keyword_matches_the_name)
{
    /* original: 0 (13 item 22) */
    wg_keywords k = kws((const char *[]){ "risk-assessment" }, 1);
    cr_expect_eq(wg_acquire_score(&k, "risk-assessment", "content", NULL), 1.0);
    wg_keywords_free(&k);
}

Test(acquire, memo_does_not_match_memory)
{
    /* original: 1 (13 item 22) */
    wg_keywords k = kws((const char *[]){ "memo" }, 1);
    cr_expect_eq(wg_acquire_score(&k, "search_memory", "memory recall remember", NULL), 0.0);
    wg_keywords_free(&k);
}

Test(acquire, scores_stay_in_unit_interval)
{
    const char *needs[] = { "risk risk risk risk", "a", "plan plan plan the planning of plans",
                            "search search web web fetch", "x y z", "code review code review" };
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
        wg_proposal p = search(needs[i], NULL, NULL, 0);
        for (size_t c = 0; c < p.total; c++) {
            cr_expect(p.candidates[c].match_score >= 0.0 && p.candidates[c].match_score <= 1.0);
            cr_expect_geq(p.candidates[c].match_raw, p.candidates[c].match_score);
        }
        wg_proposal_free(&p);
    }
}

Test(acquire, risk_assessment_for_my_project_is_a_gap_with_starter_recommendation)
{
    wg_proposal p = search("risk assessment for my project", NULL, NULL, 0);
    cr_expect(p.gap_detected);
    cr_expect(!p.already_handled);
    cr_assert_not_null(p.recommendation);
    cr_expect_str_eq(p.recommendation->name, "risk-assessment");
    cr_expect_str_eq(p.recommendation->source, "starter-pack");
    cr_expect_eq(p.recommendation->availability, WG_AVAIL_INSTALLABLE);
    cr_expect(p.recommendation->install_action);
    cr_expect_eq(p.recommendation->match_score, 1.0);
    cr_expect_str_eq(p.recommendation->match_reason,
                     "name matches: risk, assessment; content mentions: project");
    cr_expect_eq(p.recommendation->trust.source, WG_TRUST_SOURCE_STARTER_PACK);
    cr_expect_eq(p.recommendation->trust.risk, WG_RISK_LOW);
    static const char install_line[] =
        "To install, call: `install_capability` with name \"risk-assessment\" "
        "and source \"starter-pack\".";
    const char *parts[] = { "## Capability Gap Detected", "### Available to Install",
                            "### Recommendation", "Approval required", "Risk level",
                            install_line };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        cr_expect_not_null(strstr(p.summary, parts[i]), "%s", parts[i]);
    wg_proposal_free(&p);
}

Test(acquire, done_when_need_recommends_risk_assessment)
{
    wg_proposal p = search("assess the risks of my project", NULL, NULL, 0);
    cr_expect(p.gap_detected);
    cr_assert_not_null(p.recommendation);
    cr_expect_str_eq(p.recommendation->name, "risk-assessment");
    cr_expect_not_null(strstr(p.summary, "Risk: **Low**"));
    wg_proposal_free(&p);
}

Test(acquire, search_the_web_is_handled_by_native)
{
    wg_proposal p = search("search the web", NULL, NULL, 0);
    cr_expect(p.already_handled);
    cr_expect(!p.gap_detected);
    cr_expect_str_eq(p.recommendation->name, "web_search");
    cr_expect_eq(p.recommendation->install_action, 0);
    cr_expect_eq(p.recommendation->trust.source, WG_TRUST_SOURCE_BUILTIN);
    cr_expect_str_eq(p.summary, "You already have a built-in tool for this: **web_search**. "
                     "No installation needed — use it directly.");
    wg_proposal_free(&p);
}

Test(acquire, frontmatter_description_is_used_not_dashes)
{
    wg_proposal p = search("code review checklist", NULL, NULL, 0);
    cr_expect_str_eq(p.recommendation->name, "code-review");
    cr_expect_str_neq(p.recommendation->description, "---");
    cr_expect_null(strstr(p.summary, "—  ---"));
    cr_expect_eq(p.recommendation->trust.mode, WG_ASSESS_MIXED);
    cr_expect(p.recommendation->trust.declared[WG_PERM_FILE_SYSTEM]);
    wg_proposal_free(&p);
}

Test(acquire, no_keywords_and_no_candidates_texts)
{
    wg_proposal p = search("the a an", NULL, NULL, 0);
    cr_expect_eq(p.total, 0);
    cr_expect_null(p.recommendation);
    cr_expect(!p.gap_detected && !p.already_handled);
    cr_expect_str_eq(p.summary, "Could not extract meaningful keywords from the need description. Try rephrasing.");
    wg_proposal_free(&p);
    p = search("astrophysics quantum calculations", NULL, NULL, 0);
    cr_expect_eq(p.total, 0);
    cr_expect_not_null(strstr(p.summary, "create_skill"));
    wg_proposal_free(&p);
}

Test(acquire, installed_skill_handles_and_starter_copy_is_skipped)
{
    wg_skillset *active = NULL;
    cr_assert_eq(wg_skillset__new(&active, NULL), 0);
    const char *c = "# Risk Assessment — identify risks\n";
    cr_assert_eq(wg_skillset__add(active, "risk-assessment", c, strlen(c)), 0);
    wg_proposal p = search("risk assessment", active, NULL, 0);
    cr_expect(p.already_handled);
    cr_expect_str_eq(p.recommendation->name, "risk-assessment");
    cr_expect_str_eq(p.recommendation->source, "installed");
    cr_expect_eq(p.recommendation->install_action, 0);
    cr_expect_eq(p.recommendation->trust.source, WG_TRUST_SOURCE_LOCAL_USER);
    cr_expect_str_eq(p.summary, "You already have an active skill for this: **risk-assessment** — "
                     "\"Risk Assessment — identify risks\". No installation needed.");
    for (size_t i = 0; i < p.total; i++)
        cr_expect(!(strcmp(p.candidates[i].name, "risk-assessment") == 0 &&
                    p.candidates[i].availability == WG_AVAIL_INSTALLABLE));
    wg_proposal_free(&p);
    wg_skillset_free(active);
}

Test(acquire, marketplace_candidate_uses_the_marker_not_install_tool)
{
    wg_market_hit m = { "pubmed-search", "Search PubMed literature", 0.9 };
    wg_proposal p = search("pubmed literature search", NULL, &m, 1);
    cr_expect(p.gap_detected);
    cr_assert_not_null(p.recommendation);
    cr_expect_str_eq(p.recommendation->name, "pubmed-search");
    cr_expect_str_eq(p.recommendation->source, "marketplace");
    cr_expect_eq(p.recommendation->trust.source, WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED);
    cr_expect_eq(p.recommendation->trust.risk, WG_RISK_MEDIUM);
    cr_expect_null(strstr(p.summary, "install_capability` with name \"pubmed-search\""));
    cr_expect_not_null(strstr(p.summary, "<!--waggle:capability_request {\"name\":\"pubmed-search\","
                              "\"source\":\"marketplace\",\"reason\":\"Needed for: pubmed literature search\"}-->"));
    wg_proposal_free(&p);
}

Test(acquire, marketplace_score_is_clamped_and_nan_ignored)
{
    wg_market_hit m[] = { { "zz-one", "nothing", 7.0 }, { "zz-two", "nothing", NAN },
                          { "zz-three", "nothing", -1 }, { "risk-assessment", "dup", 0.9 } };
    wg_proposal p = search("quantum zzz", NULL, m, 4);
    cr_expect_eq(p.total, 0);
    wg_proposal_free(&p);
}

Test(acquire, candidates_are_capped_at_8_and_summary_lists_3)
{
    wg_proposal p = search("review plan notes project risks meeting status", NULL, NULL, 0);
    cr_expect_gt(p.total, 8);
    cr_expect_eq(p.count, 8);
    json_t *j = wg_proposal_json(&p);
    cr_expect_eq(json_array_size(json_object_get(j, "candidates")), 8);
    cr_expect_not_null(json_object_get(j, "recommendation"));
    json_decref(j);
    wg_proposal_free(&p);
}

Test(acquire, sort_is_by_score_then_availability_and_stable)
{
    wg_proposal p = search("plan my day", NULL, NULL, 0);
    cr_expect(p.already_handled);
    cr_expect_str_eq(p.recommendation->name, "create_plan");
    for (size_t i = 1; i < p.total; i++) {
        const wg_candidate *a = &p.candidates[i - 1], *b = &p.candidates[i];
        cr_expect(a->match_score + 0.05 + 1e-9 >= b->match_score, "%zu", i);
    }
    /* Same input twice gives the same order. */
    wg_proposal q = search("plan my day", NULL, NULL, 0);
    cr_assert_eq(p.total, q.total);
    for (size_t i = 0; i < p.total; i++)
        cr_expect_str_eq(p.candidates[i].name, q.candidates[i].name);
    wg_proposal_free(&q);
    wg_proposal_free(&p);
}

Test(acquire, trust_does_not_change_ranking)
{
    wg_proposal p = search("changelog", NULL, NULL, 0);
    cr_assert_not_null(p.recommendation);
    cr_expect_str_eq(p.recommendation->name, "changelog-from-git");
    cr_expect_eq(p.recommendation->trust.risk, WG_RISK_MEDIUM);
    wg_proposal_free(&p);
}

Test(acquire, json_shape_has_spec_fields)
{
    wg_proposal p = search("risk assessment for my project", NULL, NULL, 0);
    json_t *j = wg_proposal_json(&p);
    const char *keys[] = { "need", "gapDetected", "summary", "candidates", "recommendation", "alreadyHandled" };
    for (size_t i = 0; i < 6; i++)
        cr_expect_not_null(json_object_get(j, keys[i]), "%s", keys[i]);
    json_t *r = json_object_get(j, "recommendation");
    const char *ck[] = { "name", "type", "availability", "description", "source", "matchScore",
                         "matchReason", "installAction", "trust" };
    for (size_t i = 0; i < 9; i++)
        cr_expect_not_null(json_object_get(r, ck[i]), "%s", ck[i]);
    cr_expect_str_eq(json_string_value(json_object_get(r, "installAction")), "install_capability");
    json_decref(j);
    wg_proposal_free(&p);
}

Test(acquire, install_risk_fails_closed)
{
    cr_expect_eq(wg_acquire_install_risk(T, STARTER, "risk-assessment", "starter-pack"), WG_RISK_LOW);
    cr_expect_eq(wg_acquire_install_risk(T, STARTER, "changelog-from-git", "starter-pack"), WG_RISK_MEDIUM);
    cr_expect_eq(wg_acquire_install_risk(T, STARTER, "no-such-skill", "starter-pack"), WG_RISK_HIGH);
    cr_expect_eq(wg_acquire_install_risk(T, STARTER, "risk-assessment", "marketplace"), WG_RISK_HIGH);
    cr_expect_eq(wg_acquire_install_risk(T, STARTER, "../risk-assessment", "starter-pack"), WG_RISK_HIGH);
    cr_expect_eq(wg_acquire_install_risk(NULL, STARTER, "risk-assessment", "starter-pack"), WG_RISK_HIGH);
    cr_expect_eq(wg_acquire_install_risk(T, NULL, "risk-assessment", "starter-pack"), WG_RISK_HIGH);
    cr_expect_eq(wg_acquire_install_risk(T, STARTER, NULL, NULL), WG_RISK_HIGH);
}

Test(acquire, null_need_is_einval)
{
    wg_acquire_input in = { .trust = T };
    wg_proposal p;
    cr_expect_eq(wg_acquire_search(&p, &in), WG_EINVAL);
    in.need = "x";
    in.trust = NULL;
    cr_expect_eq(wg_acquire_search(&p, &in), WG_EINVAL);
}

Test(acquire, property_sort_respects_the_tie_window_and_is_deterministic)
{
    /* Marketplace hits with chosen scores: within 0.05 the active native
     * must come first; otherwise score order; equal keys keep input order. */
    const char *tools[] = { "zeta_tool" };
    wg_market_hit m[] = { { "m-one", "nothing", 0.62 }, { "m-two", "nothing", 0.62 },
                          { "m-three", "nothing", 0.9 }, { "m-four", "nothing", 0.2 } };
    wg_acquire_input in = { "zeta thing", tools, 1, NONE, NULL, m, 4, T };
    wg_proposal p;
    cr_assert_eq(wg_acquire_search(&p, &in), 0);
    /* zeta_tool scores 2/1 -> 1.0 (name hit); m-three 0.9; m-one/m-two 0.62; m-four 0.2 */
    const char *want[] = { "zeta_tool", "m-three", "m-one", "m-two", "m-four" };
    cr_assert_eq(p.total, 5);
    for (size_t i = 0; i < 5; i++)
        cr_expect_str_eq(p.candidates[i].name, want[i], "position %zu", i);
    wg_proposal_free(&p);
    wg_market_hit close[] = { { "m-close", "nothing", 0.97 } };
    in.marketplace = close;
    in.n_marketplace = 1;
    cr_assert_eq(wg_acquire_search(&p, &in), 0);
    cr_expect_str_eq(p.candidates[0].name, "zeta_tool", "active wins within the 0.05 window");
    cr_expect(p.already_handled);
    wg_proposal_free(&p);
}

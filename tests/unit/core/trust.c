/* Tests for the trust model (spec 5; original-facts 4, 12.2, 13 item 21). */
#include <criterion/criterion.h>
#include <string.h>
#include <stdlib.h>

#include "waggle/error.h"
#include "waggle/trust.h"

static wg_trust *T;

static void setup(void) { cr_assert_eq(wg_trust_new(&T), 0); }
static void teardown(void) { wg_trust_free(T); }

TestSuite(trust, .init = setup, .fini = teardown);

static wg_trust_assessment assess(const char *type, const char *source, const char *content,
                                  const wg_permission_set *declared)
{
    wg_trust_assessment a;
    wg_trust_input in = { type, source, content, declared };
    cr_assert_eq(wg_trust_assess(&a, T, &in), 0, "%s", wg_error_last());
    return a;
}

static void perms_are(const char *text, int fs, int net, int exec, int ext, int sec, int br)
{
    int p[WG_PERM_COUNT];
    cr_assert_eq(wg_trust_detect(p, NULL, T, text, strlen(text)), 0);
    int want[WG_PERM_COUNT] = { fs, net, exec, ext, sec, br };
    for (int i = 0; i < WG_PERM_COUNT; i++)
        cr_expect_eq(p[i], want[i], "\"%s\": %s is %d, want %d", text,
                     wg_permission_key((wg_permission)i), p[i], want[i]);
}

static char *factors(const wg_trust_assessment *a)
{
    static char buf[256];
    buf[0] = '\0';
    for (size_t i = 0; i < a->n_factors; i++) {
        if (i)
            strcat(buf, ",");
        strcat(buf, wg_risk_factor_name(a->factors[i]));
    }
    return buf;
}

/* ---- constants (spec 5.2) ---- */

Test(trust, source_points_are_the_spec_table)
{
    int want[] = { 0, 0, 1, 2, 4, 5 };
    const char *names[] = { "builtin", "starter_pack", "local_user", "third_party_verified",
                            "third_party_unverified", "unknown" };
    for (int s = 0; s < WG_TRUST_SOURCE_COUNT; s++) {
        cr_expect_eq(wg_trust_source_points((wg_trust_source)s), want[s]);
        cr_expect_str_eq(wg_trust_source_name((wg_trust_source)s), names[s]);
    }
}

Test(trust, permission_points_are_the_spec_table)
{
    int want[] = { 1, 1, 2, 1, 2, 1 };
    const char *keys[] = { "fileSystem", "network", "codeExecution", "externalServices",
                           "secrets", "browserAutomation" };
    for (int p = 0; p < WG_PERM_COUNT; p++) {
        cr_expect_eq(wg_trust_permission_points((wg_permission)p), want[p]);
        cr_expect_str_eq(wg_permission_key((wg_permission)p), keys[p]);
        wg_permission back;
        cr_expect_eq(wg_permission_parse(&back, keys[p]), 0);
        cr_expect_eq((int)back, p);
    }
    wg_permission x;
    cr_expect_eq(wg_permission_parse(&x, "filesystem"), WG_EINVAL);
}

Test(trust, classify_thresholds_vector_27)
{
    cr_expect_eq(wg_trust_classify(0), WG_RISK_LOW);
    cr_expect_eq(wg_trust_classify(2), WG_RISK_LOW);
    cr_expect_eq(wg_trust_classify(3), WG_RISK_MEDIUM);
    cr_expect_eq(wg_trust_classify(4), WG_RISK_MEDIUM);
    cr_expect_eq(wg_trust_classify(5), WG_RISK_HIGH);
    cr_expect_eq(wg_trust_classify(10), WG_RISK_HIGH);
}

Test(trust, approval_class_follows_risk)
{
    wg_trust_assessment a = assess("skill", "starter-pack", "# Plan", NULL);
    cr_expect_eq(a.approval, WG_APPROVAL_STANDARD);
    a = assess("skill", "installed", "Use bash to run commands and web_fetch results", NULL);
    cr_expect_eq(a.approval, WG_APPROVAL_ELEVATED);
    a = assess("plugin", "some-registry", "", NULL);
    cr_expect_eq(a.approval, WG_APPROVAL_CRITICAL);
}

/* ---- resolveTrustSource (4.1, vectors 1-3) ---- */

Test(trust, resolve_source_table)
{
    cr_expect_eq(wg_trust_resolve_source("native", "anything"), WG_TRUST_SOURCE_BUILTIN);
    cr_expect_eq(wg_trust_resolve_source("skill", "native-tools"), WG_TRUST_SOURCE_BUILTIN);
    cr_expect_eq(wg_trust_resolve_source("skill", "starter-pack"), WG_TRUST_SOURCE_STARTER_PACK);
    cr_expect_eq(wg_trust_resolve_source("skill", "installed"), WG_TRUST_SOURCE_LOCAL_USER);
    cr_expect_eq(wg_trust_resolve_source("skill", "user-created"), WG_TRUST_SOURCE_LOCAL_USER);
    cr_expect_eq(wg_trust_resolve_source("skill", "third-party-verified"),
                 WG_TRUST_SOURCE_THIRD_PARTY_VERIFIED);
    cr_expect_eq(wg_trust_resolve_source("skill", "third-party"),
                 WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED);
    cr_expect_eq(wg_trust_resolve_source("skill", "Starter-Pack"), WG_TRUST_SOURCE_UNKNOWN);
    cr_expect_eq(wg_trust_resolve_source("skill", ""), WG_TRUST_SOURCE_UNKNOWN);
    cr_expect_eq(wg_trust_resolve_source(NULL, NULL), WG_TRUST_SOURCE_UNKNOWN);
}

Test(trust, marketplace_is_unverified_third_party_not_unknown)
{
    /* Deviation from vectors 2/21 (original-facts 13 item 21). */
    cr_expect_eq(wg_trust_resolve_source("skill", "marketplace"),
                 WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED);
    wg_trust_assessment a = assess("skill", "marketplace", "Simple instruction", NULL);
    cr_expect_eq(a.risk, WG_RISK_MEDIUM);
    cr_expect_str_eq(factors(&a), "unverified_publisher");
    a = assess("skill", "marketplace", "Simple instruction that reads the api_key", NULL);
    cr_expect_eq(a.risk, WG_RISK_HIGH);
}

/* ---- detection (vectors 4-13, with the fixes of 13 item 21) ---- */

Test(trust, detect_is_case_insensitive)
{
    perms_are("Bash it", 0, 0, 1, 0, 0, 0);     /* original: none */
    perms_are("BASH", 0, 0, 1, 0, 0, 0);
    perms_are("run bash", 0, 0, 1, 0, 0, 0);
    perms_are("Curl it", 0, 1, 0, 0, 0, 0);     /* original: none */
    perms_are("curl it", 0, 1, 0, 0, 0, 0);
}

Test(trust, detect_dot_env_on_its_own)
{
    perms_are("the .env file", 0, 0, 0, 0, 1, 0);   /* original: none */
    perms_are("config.env", 0, 0, 0, 0, 1, 0);
    perms_are("process.env.KEY", 0, 0, 0, 0, 1, 0);
    perms_are("this environment", 0, 0, 0, 0, 0, 0);
}

Test(trust, detect_plural_tokens_and_oauth)
{
    perms_are("tokens", 0, 0, 0, 0, 1, 0);
    perms_are("token", 0, 0, 0, 0, 1, 0);
    perms_are("oauth", 0, 0, 0, 0, 1, 0);
    perms_are("auth flow", 0, 0, 0, 0, 1, 0);
}

Test(trust, automation_and_deploy_alone_do_not_trip)
{
    perms_are("automation", 0, 0, 0, 0, 0, 0);
    perms_are("test automation of the release", 0, 0, 0, 0, 0, 0);
    perms_are("deploy the app", 0, 0, 0, 0, 0, 0);
    perms_are("deployment checklist", 0, 0, 0, 0, 0, 0);
    perms_are("deploy the app to production", 0, 0, 0, 1, 0, 0);
    perms_are("use browser automation", 0, 0, 0, 0, 0, 1);
    perms_are("automate the browser", 0, 0, 0, 0, 0, 1);
}

Test(trust, detect_reference_vectors_that_hold)
{
    perms_are("see http://x.y", 0, 1, 0, 0, 0, 0);
    perms_are("spawn_agent helps", 0, 0, 1, 0, 0, 0);
    perms_are("Use write_file to save the output", 1, 0, 0, 0, 0, 0);
    perms_are("# Plan\n\n1. Review", 0, 0, 0, 0, 0, 0);
}

Test(trust, detect_is_word_bounded)
{
    perms_are("bashful", 0, 0, 0, 0, 0, 0);
    perms_are("secretary", 0, 0, 0, 0, 0, 0);
    perms_are("the slackers", 0, 0, 0, 0, 0, 0);
    perms_are("shell injection in the form", 0, 0, 0, 0, 0, 0);
}

Test(trust, evidence_keeps_the_triggering_phrase)
{
    int p[WG_PERM_COUNT];
    char ev[WG_PERM_COUNT][WG_TRUST_EVIDENCE_MAX];
    const char *t = "Please use BASH, then read the .env file and post to #general";
    cr_assert_eq(wg_trust_detect(p, ev, T, t, strlen(t)), 0);
    cr_expect_str_eq(ev[WG_PERM_CODE_EXECUTION], "BASH");
    cr_expect_str_eq(ev[WG_PERM_SECRETS], ".env");
    cr_expect_str_eq(ev[WG_PERM_EXTERNAL_SERVICES], "post to");
    cr_expect_str_eq(ev[WG_PERM_FILE_SYSTEM], "");
}

Test(trust, evidence_is_printable_and_bounded)
{
    int p[WG_PERM_COUNT];
    char ev[WG_PERM_COUNT][WG_TRUST_EVIDENCE_MAX];
    char t[400];
    memset(t, 'k', sizeof t);
    memcpy(t, "env\x01\xff", 5);
    t[sizeof t - 4] = ' ';
    memcpy(t + sizeof t - 3, "key", 3);
    cr_assert_eq(wg_trust_detect(p, ev, T, t, sizeof t), 0);
    cr_assert(p[WG_PERM_SECRETS]);
    cr_expect_eq(strlen(ev[WG_PERM_SECRETS]), WG_TRUST_EVIDENCE_MAX - 1);
    for (const char *c = ev[WG_PERM_SECRETS]; *c; c++)
        cr_expect((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f);
}

/* ---- assessTrust vectors 14-26 ---- */

Test(trust, vector_14_plain_starter_is_low_instruction_only)
{
    wg_trust_assessment a = assess("skill", "starter-pack", "# Plan\n\n1. Review", NULL);
    cr_expect_eq(a.risk, WG_RISK_LOW);
    cr_expect_eq(a.source, WG_TRUST_SOURCE_STARTER_PACK);
    cr_expect_eq(a.mode, WG_ASSESS_HEURISTIC);
    cr_expect_eq(a.n_factors, 0);
    cr_expect_str_eq(a.explanation, "Waggle curated starter pack. No elevated permissions "
                     "detected (detected heuristically from content). Instruction-only capability.");
}

Test(trust, vector_15_summary_form)
{
    wg_trust_assessment a = assess("skill", "starter-pack", "Use write_file to save the output", NULL);
    cr_expect_eq(a.points, 1);
    char *s = NULL;
    cr_assert_eq(wg_trust_format_summary(&s, &a), 0);
    cr_expect_str_eq(s, "Risk: **Low** (heuristic) | Source: Waggle curated starter pack | "
                     "Approval: Standard\nPermissions: file system\n"
                     "Evidence: file system: \"write_file\"");
    free(s);
}

Test(trust, vectors_16_17_18_points_add_up)
{
    wg_trust_assessment a = assess("skill", "installed", "Call web_search to find information", NULL);
    cr_expect_eq(a.points, 2);
    cr_expect_eq(a.risk, WG_RISK_LOW);
    a = assess("skill", "installed", "Use bash to run commands and web_fetch results", NULL);
    cr_expect_eq(a.points, 4);
    cr_expect_eq(a.risk, WG_RISK_MEDIUM);
    cr_expect_str_eq(factors(&a), "network_access,local_code_execution");
    /* "deploy," has no target any more: 6 points instead of 7, still high. */
    a = assess("skill", "installed",
               "Run bash to deploy, use the api_key from .env, then write_file the log", NULL);
    cr_expect_eq(a.points, 6);
    cr_expect_eq(a.risk, WG_RISK_HIGH);
    cr_expect_eq(a.approval, WG_APPROVAL_CRITICAL);
    cr_expect_str_eq(factors(&a), "filesystem_access,local_code_execution,secret_access");
}

Test(trust, vector_19_unknown_empty_explains_without_empty_list)
{
    wg_trust_assessment a = assess("plugin", "some-registry", "", NULL);
    cr_expect_eq(a.points, 6);
    cr_expect_eq(a.risk, WG_RISK_HIGH);
    cr_expect_str_eq(factors(&a), "unknown_source,missing_metadata");
    cr_expect_null(strstr(a.explanation, "may use:  "));
    cr_expect_str_eq(a.explanation, "Unknown source. Elevated risk from the source alone — no "
                     "elevated permissions detected (detected heuristically from content). "
                     "Carefully review before approving.");
}

Test(trust, vector_20_third_party_network_is_high)
{
    wg_trust_assessment a = assess("plugin", "third-party", "Fetch data from https://api.example.com", NULL);
    cr_expect_eq(a.points, 5);
    cr_expect_eq(a.risk, WG_RISK_HIGH);
    cr_expect_str_eq(factors(&a), "unverified_publisher,network_access");
}

Test(trust, vectors_22_23_missing_metadata_except_builtin)
{
    wg_trust_assessment a = assess("native", "native-tools", "", NULL);
    cr_expect_eq(a.risk, WG_RISK_LOW);
    cr_expect_eq(a.n_factors, 0);
    a = assess("skill", "starter-pack", "", NULL);
    cr_expect_eq(a.points, 1);
    cr_expect_str_eq(factors(&a), "missing_metadata");
}

Test(trust, vector_24_browser_is_medium)
{
    wg_trust_assessment a = assess("skill", "third-party-verified",
                                   "Use browser automation with playwright and take a screenshot", NULL);
    cr_expect_eq(a.points, 3);
    cr_expect_eq(a.risk, WG_RISK_MEDIUM);
    cr_expect_eq(a.approval, WG_APPROVAL_ELEVATED);
}

Test(trust, vector_25_declared_merges_as_mixed)
{
    wg_permission_set d = { .present = 1, .perms = { [WG_PERM_NETWORK] = 1 } };
    wg_trust_assessment a = assess("skill", "starter-pack", "Some content", &d);
    cr_expect_eq(a.mode, WG_ASSESS_MIXED);
    cr_expect_eq(a.risk, WG_RISK_LOW);
    cr_expect(a.permissions[WG_PERM_NETWORK]);
    char *s = NULL;
    cr_assert_eq(wg_trust_format_summary(&s, &a), 0);
    cr_expect_str_eq(s, "Risk: **Low** (mixed) | Source: Waggle curated starter pack | "
                     "Approval: Standard\nPermissions: network\nEvidence: network: declared");
    free(s);
}

Test(trust, vector_26_empty_declared_is_declared_mode)
{
    wg_permission_set d = { .present = 1 };
    wg_trust_assessment a = assess("skill", "starter-pack", "", &d);
    cr_expect_eq(a.mode, WG_ASSESS_DECLARED);
    cr_expect_eq(a.risk, WG_RISK_LOW);
    cr_expect_str_eq(factors(&a), "missing_metadata");
    cr_expect_str_eq(a.explanation, "Waggle curated starter pack. No elevated permissions "
                     "detected. Instruction-only capability.");
}

Test(trust, declared_cannot_lower_detected)
{
    wg_permission_set d = { .present = 1 };   /* declares nothing */
    wg_trust_assessment a = assess("skill", "installed", "run bash and read the api key", &d);
    cr_expect(a.permissions[WG_PERM_CODE_EXECUTION]);
    cr_expect(a.permissions[WG_PERM_SECRETS]);
    cr_expect_eq(a.risk, WG_RISK_HIGH);
}

Test(trust, json_has_spec_field_names)
{
    wg_trust_assessment a = assess("skill", "installed", "run bash", NULL);
    json_t *j = wg_trust_assessment_json(&a);
    cr_assert_not_null(j);
    const char *keys[] = { "riskLevel", "trustSource", "permissions", "approvalClass",
                           "assessmentMode", "explanation", "factors", "evidence" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_expect_not_null(json_object_get(j, keys[i]), "%s", keys[i]);
    cr_expect_str_eq(json_string_value(json_object_get(j, "riskLevel")), "medium");
    cr_expect_str_eq(json_string_value(json_object_get(j, "trustSource")), "local_user");
    cr_expect(json_is_true(json_object_get(json_object_get(j, "permissions"), "codeExecution")));
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "evidence"),
                                                       "codeExecution")), "bash");
    json_decref(j);
}

Test(trust, null_arguments_are_einval)
{
    wg_trust_assessment a;
    wg_trust_input in = { 0 };
    cr_expect_eq(wg_trust_assess(NULL, T, &in), WG_EINVAL);
    cr_expect_eq(wg_trust_assess(&a, NULL, &in), WG_EINVAL);
    cr_expect_eq(wg_trust_assess(&a, T, NULL), WG_EINVAL);
    wg_trust_free(NULL);
}

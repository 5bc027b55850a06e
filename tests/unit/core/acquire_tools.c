/* Tests for the acquire_capability / install_capability agent tools
 * (spec 4; original-facts 3.3, 13 item 6). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/capability_tools.h"
#include "waggle/error.h"
#include "wgtest.h"

static wg_trust *T;
static wg_skillset *S;
static char *DIR_;
static char EVENTS[512];

static void on_audit(void *ctx, const char *action, const char *name, const char *source,
                     const wg_trust_assessment *t)
{
    (void)ctx;
    (void)source;
    strcat(EVENTS, action);
    strcat(EVENTS, ":");
    strcat(EVENTS, name);
    strcat(EVENTS, t ? "+trust;" : ";");
}

static wg_captool_env ENV;

static void setup(void)
{
    cr_assert_eq(wg_trust_new(&T), 0);
    cr_assert_eq(wg_skillset_load_dir(&S, WG_SOURCE_DIR "/data/skills"), 0);
    DIR_ = wgt_tmpdir();
    EVENTS[0] = '\0';
    ENV = (wg_captool_env){ .trust = T, .starter = S, .data_dir = DIR_, .audit = on_audit };
}

static void teardown(void)
{
    wg_trust_free(T);
    wg_skillset_free(S);
    wgt_rmtree(DIR_);
    free(DIR_);
}

TestSuite(captool, .init = setup, .fini = teardown);

static char *run(const char *tool, const char *args_json, int want_rc)
{
    json_t *args = json_loads(args_json, 0, NULL);
    cr_assert_not_null(args);
    char *out = NULL;
    cr_assert_eq(wg_captool_execute(&out, &ENV, tool, args), want_rc, "%s", wg_error_last());
    json_decref(args);
    return out;
}

Test(captool, definitions_have_json_schema)
{
    size_t n;
    const wg_captool_def *d = wg_captool_defs(&n);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(d[0].name, "acquire_capability");
    cr_expect_str_eq(d[1].name, "install_capability");
    for (size_t i = 0; i < n; i++) {
        json_error_t e;
        json_t *s = json_loads(d[i].parameters, 0, &e);
        cr_assert_not_null(s, "%s: %s", d[i].name, e.text);
        cr_expect_str_eq(json_string_value(json_object_get(s, "type")), "object");
        cr_expect(json_is_array(json_object_get(s, "required")));
        json_decref(s);
    }
}

Test(captool, acquire_returns_summary_and_audits_proposal)
{
    char *out = run("acquire_capability", "{\"need\":\"assess the risks of my project\"}", 0);
    cr_expect_not_null(strstr(out, "## Capability Gap Detected"));
    cr_expect_str_eq(EVENTS, "proposed:risk-assessment+trust;");
    free(out);
}

Test(captool, acquire_without_need_is_an_error_text)
{
    char *out = run("acquire_capability", "{\"need\":\"  \"}", 0);
    cr_expect_str_eq(out, "Error: \"need\" is required — describe what capability you are looking for.");
    free(out);
}

Test(captool, install_writes_skill_and_returns_content)
{
    char *out = run("install_capability", "{\"name\":\"risk-assessment\",\"source\":\"starter-pack\"}", 0);
    cr_expect_eq(strncmp(out, "## Skill Installed Successfully", 31), 0);
    cr_expect_not_null(strstr(out, "Risk: **Low**"));
    cr_expect_not_null(strstr(out, "# Risk Assessment"));
    cr_expect_str_eq(EVENTS, "installed:risk-assessment+trust;");
    free(out);
    out = run("install_capability", "{\"name\":\"risk-assessment\",\"source\":\"starter-pack\"}", 0);
    cr_expect_str_eq(out, "Error: Skill \"risk-assessment\" is already installed and active.");
    free(out);
    /* now it is active: acquire says it is handled */
    out = run("acquire_capability", "{\"need\":\"risk assessment\"}", 0);
    cr_expect_not_null(strstr(out, "You already have an active skill for this: **risk-assessment**"));
    free(out);
}

Test(captool, install_rejects_traversal_and_other_sources)
{
    char *out = run("install_capability", "{\"name\":\"../../etc/passwd\",\"source\":\"starter-pack\"}", 0);
    cr_expect_str_eq(out, "Error: Invalid capability name.");
    free(out);
    out = run("install_capability", "{\"name\":\"a\\\\b\",\"source\":\"starter-pack\"}", 0);
    cr_expect_str_eq(out, "Error: Invalid capability name.");
    free(out);
    out = run("install_capability", "{\"name\":\"pubmed\",\"source\":\"marketplace\"}", 0);
    cr_expect_not_null(strstr(out, "is not supported for installation"));
    free(out);
    out = run("install_capability", "{\"source\":\"starter-pack\"}", 0);
    cr_expect_str_eq(out, "Error: Invalid capability name.");
    free(out);
    cr_expect_str_eq(EVENTS, "rejected:../../etc/passwd;rejected:a\\b;rejected:pubmed;rejected:;");
}

Test(captool, unknown_tool_is_enotfound)
{
    char *out = run("rm_rf", "{}", WG_ENOTFOUND);
    cr_expect_null(out);
}

Test(captool, approval_is_the_larger_of_claim_and_server_risk)
{
    json_t *a = json_pack("{s:s, s:s}", "name", "risk-assessment", "source", "starter-pack");
    cr_expect_eq(wg_captool_install_approval(&ENV, a), WG_APPROVAL_STANDARD);
    json_object_set_new(a, "_riskLevel", json_string("high"));
    cr_expect_eq(wg_captool_install_approval(&ENV, a), WG_APPROVAL_CRITICAL);
    json_object_set_new(a, "_riskLevel", json_string("low"));
    json_object_set_new(a, "name", json_string("changelog-from-git"));
    /* the LLM says low; the server computes medium from the real skill */
    cr_expect_eq(wg_captool_install_approval(&ENV, a), WG_APPROVAL_ELEVATED);
    json_object_set_new(a, "name", json_string("no-such-skill"));
    cr_expect_eq(wg_captool_install_approval(&ENV, a), WG_APPROVAL_CRITICAL);
    json_object_set_new(a, "_riskLevel", json_string("bogus"));
    cr_expect_eq(wg_captool_install_risk(&ENV, a), WG_RISK_HIGH);
    json_decref(a);
    cr_expect_eq(wg_captool_install_risk(&ENV, NULL), WG_RISK_HIGH);
    cr_expect_eq(wg_captool_install_risk_hook(&ENV, "risk-assessment", "starter-pack"), WG_RISK_LOW);
    cr_expect_eq(wg_captool_install_risk_hook(&ENV, "changelog-from-git", "starter-pack"), WG_RISK_MEDIUM);
    cr_expect_eq(wg_captool_install_risk_hook(&ENV, "x", "starter-pack"), WG_RISK_HIGH);
    cr_expect_eq(wg_captool_install_risk_hook(NULL, "risk-assessment", "starter-pack"), WG_RISK_HIGH);
}

#include "waggle/gate.h"

Test(captool, gate_hook_raises_install_approval_from_server_trust)
{
    wg_gate_hooks hooks = { .version = WG_GATE_HOOKS_VERSION,
                            .ctx = &ENV, .install_risk = wg_captool_install_risk_hook };
    wg_gate *g = NULL;
    cr_assert_eq(wg_gate_new(&g, &hooks), 0, "%s", wg_error_last());
    wg_gate_decision d;
    const char *low = "{\"name\":\"changelog-from-git\",\"source\":\"starter-pack\",\"_riskLevel\":\"low\"}";
    cr_assert_eq(wg_gate_check(&d, g, "install_capability", low, strlen(low), WG_AUTONOMY_NORMAL), 0);
    cr_expect(d.needs_confirmation);
    cr_expect_eq(d.approval_class, WG_APPROVAL_ELEVATED, "rule %s: %s", d.rule, d.reason);
    const char *unknown = "{\"name\":\"../x\",\"source\":\"starter-pack\"}";
    cr_assert_eq(wg_gate_check(&d, g, "install_capability", unknown, strlen(unknown), WG_AUTONOMY_YOLO), 0);
    cr_expect_eq(d.approval_class, WG_APPROVAL_CRITICAL);
    cr_expect(d.needs_confirmation, "an unknown install never auto-passes: %s", d.reason);
    wg_gate_free(g);
}

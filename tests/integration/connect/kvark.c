/* kvark.c - the KVARK client and its four tools end to end (spec 9;
 * reference 2.2-2.4, 12.9), through the engine's one gated executor, against
 * a loopback replay server shaped like KVARK's HTTP contract that checks
 * every request (method, raw URI, headers, JSON body) and that nothing else
 * arrived. Proves: the tools exist exactly when kvark:connection is valid on
 * TEAMS, ENTERPRISE or an active TRIAL (4, else 0), in wg_engine_tools and
 * the CLI; login once, token reused, re-login once on a 401; every error
 * kind and its friendly text; a 501 from ask-document; 429/5xx retried with
 * Retry-After; the upstream policy; kvark_action waits for a person and
 * sends userApproved:true only after a real approval - a denial sends
 * nothing. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect_replay.h"
#include "mcp/tools.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/kvark.h"
#include "wgtest.h"

static char *dir;
static wgt_replay *up;

static void setup(void)
{
    dir = wgt_tmpdir();
    up = wgt_replay_start();
    cr_assert_not_null(up);
}

static void teardown(void)
{
    wgt_replay_stop(up);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(kvark, .init = setup, .fini = teardown, .timeout = 60);

static wg_engine *open_engine(int allow_private)
{
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    /* the replay KVARK is plain http on loopback: only the operator allows it */
    o.allow_private_upstreams = allow_private;
    o.allow_http_upstreams = 1;
    wg_engine *e = NULL;
    cr_assert_eq(wg_engine_open(&e, &o), 0, "%s", wg_error_last());
    return e;
}

static void set_value(wg_engine *e, const char *name, const char *value)
{
    cr_assert_eq(wg_engine_vault_set(e, name, value, strlen(value), NULL, "test"), 0, "%s",
                 wg_error_last());
}

/* kvark:connection at the replay server, written with a trailing slash
 * (the original's login URL kept it). */
static void configure(wg_engine *e, const char *base)
{
    char v[512];
    snprintf(v, sizeof v, "{\"baseUrl\":\"%s/\",\"identifier\":\"analyst@corp.example\","
             "\"password\":\"hunter2-pw\",\"timeoutMs\":5000}", base);
    set_value(e, "kvark:connection", v);
}

static wg_engine *enterprise(void)
{
    wg_engine *e = open_engine(1);
    cr_assert_eq(wg_engine_tier_set(e, WG_TIER_ENTERPRISE, "test"), 0);
    configure(e, wgt_replay_base(up));
    return e;
}

static void expect(const char *json)
{
    json_t *ex = json_loads(json, 0, NULL);
    cr_assert_not_null(ex, "bad exchanges JSON");
    wgt_replay_expect(up, ex);
    json_decref(ex);
}

static void verdict(void)
{
    const char *v = wgt_replay_verdict(up);
    cr_assert_null(v, "replay: %s", v);
}

#define LOGIN_OK(tok)                                                                          \
    "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/auth/login\",\"headers\":{"            \
    "\"Accept\":\"application/json\",\"Content-Type\":\"application/json\","                 \
    "\"Authorization\":null},\"body\":{\"identifier\":\"analyst@corp.example\","             \
    "\"password\":\"hunter2-pw\"}},\"response\":{\"status\":200,\"body\":{\"success\":true,"  \
    "\"access_token\":\"" tok "\",\"token_type\":\"bearer\",\"user\":{\"id\":7,"             \
    "\"identifier\":\"analyst@corp.example\"},\"error\":null}}}"

#define AUTH(tok) "\"Authorization\":\"Bearer " tok "\",\"Accept\":\"application/json\""

/* Runs tool at Normal; expects it ran; returns the result (owned by *o). */
static const json_t *run(wg_engine *e, wg_engine_outcome *o, const char *tool, const char *args)
{
    json_t *a = json_loads(args, 0, NULL);
    cr_assert_not_null(a);
    wg_engine_call c = WG_ENGINE_CALL_INIT;
    c.tool = tool;
    c.args = a;
    int rc = wg_engine_execute(e, &c, NULL, NULL, o);
    json_decref(a);
    cr_assert_eq(rc, 0, "%s", wg_error_last());
    cr_assert_eq(o->status, WG_ENGINE_RAN);
    return o->result;
}

static const char *text_of(const json_t *r)
{
    return json_string_value(json_object_get(json_object_get(r, "data"), "text"));
}

static const char *err_of(const json_t *r)
{
    return json_string_value(json_object_get(r, "error"));
}

static size_t kvark_tool_count(wg_engine *e)
{
    json_t *tools = NULL;
    wg_engine_tool_counts c;
    cr_assert_eq(wg_engine_tools(&tools, &c, e, WG_ENGINE_TOOLS_ALL), 0, "%s", wg_error_last());
    size_t named = 0, i;
    json_t *t;
    json_array_foreach(tools, i, t)
        named += strncmp(json_string_value(json_object_get(t, "name")), "kvark_", 6) == 0;
    json_decref(tools);
    cr_assert_eq(named, c.kvark);
    return c.kvark;
}

/* ---- registration ------------------------------------------------------------ */

Test(kvark, spec_9_four_tools_exactly_when_valid_on_teams_enterprise_or_trial)
{
    wg_engine *e = open_engine(1);
    static const struct { wg_tier tier; size_t tools; } tiers[] = {
        { WG_TIER_FREE, 0 }, { WG_TIER_PRO, 0 }, { WG_TIER_TEAMS, 4 }, { WG_TIER_ENTERPRISE, 4 },
    };
    /* not configured: none on any tier */
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(wg_engine_tier_set(e, tiers[i].tier, "test"), 0);
        cr_assert_eq(kvark_tool_count(e), 0);
    }
    configure(e, wgt_replay_base(up));
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(wg_engine_tier_set(e, tiers[i].tier, "test"), 0);
        cr_assert_eq(kvark_tool_count(e), tiers[i].tools, "tier %d", (int)tiers[i].tier);
        wg_engine_kvark_state st;
        cr_assert_eq(wg_engine_kvark_status(&st, e), 0);
        cr_assert(st.configured && st.valid);
        cr_assert_eq(st.active, tiers[i].tools == 4);
        if (!st.active)
            cr_assert(strstr(st.reason, "TEAMS or ENTERPRISE"), "%s", st.reason);
    }
    /* an active trial counts */
    cr_assert_eq(wg_engine_tier_set(e, WG_TIER_FREE, "test"), 0);
    cr_assert_eq(wg_engine_trial_start(e, "test"), 0, "%s", wg_error_last());
    cr_assert_eq(kvark_tool_count(e), 4);
    /* an invalid value (the original unlocked on any non-empty one) */
    cr_assert_eq(wg_engine_tier_set(e, WG_TIER_ENTERPRISE, "test"), 0);
    set_value(e, "kvark:connection", "{\"baseUrl\":\"https://kvark.corp\",\"identifier\":\"\","
              "\"password\":\"hunter2-pw\"}");
    cr_assert_eq(kvark_tool_count(e), 0);
    wg_engine_kvark_state st;
    cr_assert_eq(wg_engine_kvark_status(&st, e), 0);
    cr_assert(st.configured && !st.valid && !st.active);
    cr_assert(strstr(st.reason, "identifier is empty"), "%s", st.reason);
    cr_assert_null(strstr(st.reason, "hunter2"));
    /* not registered = not a tool: nothing is sent */
    expect("[]");
    wg_engine_outcome o;
    wg_engine_call c = WG_ENGINE_CALL_INIT;
    c.tool = "kvark_search";
    json_t *a = json_pack("{s:s}", "query", "q");
    c.args = a;
    cr_assert_eq(wg_engine_execute(e, &c, NULL, NULL, &o), WG_ENOTFOUND);
    cr_assert(strstr(wg_error_last(), "not registered"), "%s", wg_error_last());
    json_decref(a);
    verdict();
    wg_engine_free(e);
}

Test(kvark, the_cli_lists_the_tools_only_when_registered)
{
    wg_engine *e = open_engine(1);
    configure(e, wgt_replay_base(up));
    wg_engine_free(e);
    const char *argv[] = { "connectors", "--data-dir", dir, "tools", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_null(strstr(r.out, "kvark_"), "FREE lists KVARK tools: %s", r.out);
    wgt_result_free(&r);
    const char *tier[] = { "tier", "--data-dir", dir, "set", "ENTERPRISE", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, tier), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, argv), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *tools = json_loads(r.out, 0, NULL);
    cr_assert(json_is_array(tools), "%s", r.out);
    const char *names[] = { "kvark_search", "kvark_feedback", "kvark_action", "kvark_ask_document" };
    for (size_t i = 0; i < 4; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(tools, i), "name")),
                         names[i]);
    json_decref(tools);
    wgt_result_free(&r);
}

/* ---- search, login, token -------------------------------------------------------- */

Test(kvark, reference_12_9_search_logs_in_once_reuses_the_token_and_formats)
{
    wg_engine *e = enterprise();
    char snippet[251];
    memset(snippet, 's', 250);
    snippet[250] = 0;
    char ex[4096];
    snprintf(ex, sizeof ex, "[" LOGIN_OK("tok-1") ","
             "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=a%%20b&limit=5\","
             "\"headers\":{" AUTH("tok-1") ",\"Content-Type\":null},\"no_body\":true},"
             "\"response\":{\"status\":200,\"body\":{\"results\":[{\"document_id\":42,"
             "\"title\":\"T\",\"snippet\":\"%s\",\"score\":0.9249,\"document_type\":null},"
             "{\"document_id\":43,\"title\":\"Project Status Update\",\"snippet\":\"short\","
             "\"score\":0.5,\"document_type\":\"pdf\"}],\"total\":7,\"query\":\"a b\"}}},"
             "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=%%22x%%22%%26y%%3D1%%0A&limit=10&offset=20\","
             "\"headers\":{" AUTH("tok-1") "}},"
             "\"response\":{\"status\":200,\"body\":{\"results\":[],\"total\":0,\"query\":\"x\"}}}]",
             snippet);
    expect(ex);
    wg_engine_outcome o;
    const json_t *r = run(e, &o, "kvark_search", "{\"query\":\"a b\",\"limit\":5}");
    cr_assert(json_is_true(json_object_get(r, "success")), "%s", json_dumps(r, 0));
    char want[1024];
    snprintf(want, sizeof want, "KVARK Search: \"a b\" (2 of 7 results)\n"
             "1. [document] T (score: 0.92)\n   \"%.197s...\"\n   ID: 42\n\n"
             "2. [pdf] Project Status Update (score: 0.50)\n   \"short\"\n   ID: 43", snippet);
    cr_assert_str_eq(text_of(r), want);
    const json_t *res = json_object_get(json_object_get(r, "data"), "results");
    cr_assert_eq(json_array_size(res), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(res, 1), "attribution")),
                     "[KVARK: pdf: Project Status Update]");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(res, 0), "attribution")),
                     "[KVARK: T]");
    wg_engine_outcome_clear(&o);
    /* hostile query text is one encoded value; the token is reused */
    r = run(e, &o, "kvark_search", "{\"query\":\"\\\"x\\\"&y=1\\n\",\"offset\":20}");
    cr_assert_str_eq(text_of(r), "KVARK Search: \"\"x\"&y=1\n\" — no results found.");
    wg_engine_outcome_clear(&o);
    verdict();
    wg_engine_free(e);
}

Test(kvark, reference_12_9_a_401_logs_in_again_once_then_fails_as_auth)
{
    wg_engine *e = enterprise();
    expect("[" LOGIN_OK("tok-1") ","
           "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/auth/me\",\"headers\":{" AUTH("tok-1") "}},"
           "\"response\":{\"status\":200,\"body\":{\"id\":7}}}," LOGIN_OK("tok-1") ","
           "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\",\"headers\":{" AUTH("tok-1") "}},"
           "\"response\":{\"status\":401,\"body\":{\"detail\":\"expired\"}}}," LOGIN_OK("tok-2") ","
           "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\",\"headers\":{" AUTH("tok-2") "}},"
           "\"response\":{\"status\":200,\"body\":{\"results\":[],\"total\":0}}},"
           "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\",\"headers\":{" AUTH("tok-2") "}},"
           "\"response\":{\"status\":401,\"body\":{\"detail\":\"no\"}}}," LOGIN_OK("tok-3") ","
           "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\",\"headers\":{" AUTH("tok-3") "}},"
           "\"response\":{\"status\":401,\"body\":{\"detail\":\"no\"}}}]");
    /* the health probe through the same client */
    wg_kvark *k = NULL;
    cr_assert_eq(wg_kvark_new(&k, &(wg_kvark_options){ .version = WG_KVARK_OPTIONS_VERSION,
                 .upstream = { .allow_private = 1, .allow_http = 1 } }), 0);
    wg_kvark_config cfg;
    char v[256];
    snprintf(v, sizeof v, "{\"baseUrl\":\"%s\",\"identifier\":\"analyst@corp.example\","
             "\"password\":\"hunter2-pw\"}", wgt_replay_base(up));
    cr_assert_eq(wg_kvark_config_parse(&cfg, v, strlen(v)), 0);
    json_t *me = NULL;
    wg_kvark_error err;
    cr_assert_eq(wg_kvark_me(&me, &err, k, &cfg), 0, "%s", err.message);
    cr_assert_eq(json_integer_value(json_object_get(me, "id")), 7);
    json_decref(me);
    wg_kvark_config_clear(&cfg);
    wg_kvark_free(k);
    /* the engine's own client: one login, a 401, one re-login, the retry */
    wg_engine_outcome o;
    const json_t *r = run(e, &o, "kvark_search", "{\"query\":\"q\"}");
    cr_assert(json_is_true(json_object_get(r, "success")), "%s", err_of(r));
    wg_engine_outcome_clear(&o);
    r = run(e, &o, "kvark_search", "{\"query\":\"q\"}");
    cr_assert(json_is_false(json_object_get(r, "success")));
    cr_assert_str_eq(json_string_value(json_object_get(r, "errorKind")), "KvarkAuthError");
    cr_assert_str_eq(err_of(r), "KVARK authentication failed. Check KVARK credentials in Settings.");
    wg_engine_outcome_clear(&o);
    verdict();
    wg_engine_free(e);
}

/* ---- every error kind ---------------------------------------------------------- */

typedef struct {
    const char *name;
    const char *tool, *args;
    const char *exchanges;      /* after a successful login */
    const char *kind;
    const char *error;          /* exact friendly text */
} kind_case;

Test(kvark, spec_9_each_error_kind_maps_to_its_friendly_degradation)
{
    static const kind_case cases[] = {
        { "501 from ask-document", "kvark_ask_document", "{\"document_id\":\"d-1\",\"question\":\"why?\"}",
          "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/chat/ask\",\"headers\":{" AUTH("tok-1")
          ",\"Content-Type\":\"application/json\"},\"body\":{\"document_id\":\"d-1\",\"question\":\"why?\"}},"
          "\"response\":{\"status\":501,\"body\":{\"detail\":\"Not implemented\"}}}",
          "KvarkNotImplementedError",
          "Document Q&A is not yet available on this KVARK instance. Use kvark_search to find relevant documents instead." },
        { "404 from ask-document", "kvark_ask_document", "{\"document_id\":\"d-9\",\"question\":\"q\"}",
          "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/chat/ask\"},"
          "\"response\":{\"status\":404,\"body\":{\"detail\":\"no such document\"}}}",
          "KvarkNotFoundError",
          "Document not found. The document may have been removed or the ID may be incorrect." },
        { "501 from feedback", "kvark_feedback", "{\"document_id\":42,\"query\":\"q\",\"useful\":false}",
          "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/feedback\"},"
          "\"response\":{\"status\":501,\"body\":{\"detail\":\"later\"}}}",
          "KvarkNotImplementedError",
          "Feedback is not yet available on this KVARK instance. This is non-blocking — continue normally." },
        { "403", "kvark_search", "{\"query\":\"q\"}",
          "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\"},"
          "\"response\":{\"status\":403,\"body\":{\"detail\":\"nope\"}}}",
          "KvarkServerError", "KVARK server error: KVARK access denied (forbidden): nope. Try again in a moment." },
        { "400 with a credential in the body", "kvark_search", "{\"query\":\"q\"}",
          "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\"},"
          "\"response\":{\"status\":400,\"body\":{\"detail\":\"bad token tok-1 for hunter2-pw\"}}}",
          "KvarkServerError", "KVARK server error: KVARK error (400): bad token [redacted] for [redacted]. Try again in a moment." },
        { "429 three times", "kvark_search", "{\"query\":\"q\"}",
          "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\"},"
          "\"response\":{\"status\":429,\"headers\":{\"Retry-After\":\"0\"},\"body_text\":\"30\"}},"
          "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\"},"
          "\"response\":{\"status\":429,\"headers\":{\"Retry-After\":\"0\"},\"body_text\":\"30\"}},"
          "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\"},"
          "\"response\":{\"status\":429,\"headers\":{\"Retry-After\":\"0\"},\"body_text\":\"30\"}}",
          "KvarkServerError", "KVARK server error: KVARK rate limit exceeded after 2 retries. Try again in a moment." },
        { "500 from action", "kvark_feedback", "{\"document_id\":1,\"query\":\"q\",\"useful\":true}",
          "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/feedback\"},"
          "\"response\":{\"status\":500,\"headers\":{\"Retry-After\":\"0\"},\"body\":{\"detail\":\"db down\"}}},"
          "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/feedback\"},"
          "\"response\":{\"status\":502,\"headers\":{\"Retry-After\":\"0\"},\"body_text\":\"gateway\"}},"
          "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/feedback\"},"
          "\"response\":{\"status\":500,\"headers\":{\"Retry-After\":\"0\"},\"body\":{\"detail\":\"db down\"}}}",
          "KvarkServerError", "KVARK server error: db down. Try again in a moment." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wg_engine *e = enterprise();   /* a fresh engine: a fresh login each case */
        char ex[4096];
        snprintf(ex, sizeof ex, "[" LOGIN_OK("tok-1") ",%s]", cases[i].exchanges);
        expect(ex);
        wg_engine_outcome o;
        const json_t *r = run(e, &o, cases[i].tool, cases[i].args);
        cr_assert(json_is_false(json_object_get(r, "success")), "%s", cases[i].name);
        cr_assert_str_eq(json_string_value(json_object_get(r, "errorKind")), cases[i].kind,
                         "%s", cases[i].name);
        cr_assert_str_eq(err_of(r), cases[i].error, "%s", cases[i].name);
        wg_engine_outcome_clear(&o);
        verdict();
        wg_engine_free(e);
    }
}

Test(kvark, spec_9_login_refused_unreachable_and_refused_by_the_policy)
{
    /* login refused: auth */
    wg_engine *e = enterprise();
    expect("[{\"request\":{\"method\":\"POST\",\"uri\":\"/api/auth/login\"},"
           "\"response\":{\"status\":200,\"body\":{\"success\":false,\"access_token\":null,"
           "\"error\":\"Invalid credentials\"}}}]");
    wg_engine_outcome o;
    const json_t *r = run(e, &o, "kvark_search", "{\"query\":\"q\"}");
    cr_assert_str_eq(json_string_value(json_object_get(r, "errorKind")), "KvarkAuthError");
    wg_engine_outcome_clear(&o);
    verdict();
    /* a transient 503 is retried (Retry-After 0), then it works */
    expect("[{\"request\":{\"method\":\"POST\",\"uri\":\"/api/auth/login\"},"
           "\"response\":{\"status\":503,\"body_text\":\"down\"}}]");
    r = run(e, &o, "kvark_search", "{\"query\":\"q\"}");
    cr_assert_str_eq(json_string_value(json_object_get(r, "errorKind")), "KvarkUnavailableError");
    wg_engine_outcome_clear(&o);
    verdict();
    expect("[" LOGIN_OK("tok-1") ","
           "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\"},"
           "\"response\":{\"status\":503,\"headers\":{\"Retry-After\":\"0\"},\"body_text\":\"busy\"}},"
           "{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q&limit=10\"},"
           "\"response\":{\"status\":200,\"body\":{\"results\":[],\"total\":0}}}]");
    r = run(e, &o, "kvark_search", "{\"query\":\"q\"}");
    cr_assert(json_is_true(json_object_get(r, "success")), "%s", err_of(r));
    wg_engine_outcome_clear(&o);
    verdict();
    /* nobody listening: unavailable */
    configure(e, "http://127.0.0.1:1");
    r = run(e, &o, "kvark_search", "{\"query\":\"q\"}");
    cr_assert_str_eq(json_string_value(json_object_get(r, "errorKind")), "KvarkUnavailableError");
    cr_assert_str_eq(err_of(r), "KVARK is not reachable. Using workspace memory only. "
                                "Configure KVARK connection in Settings.");
    wg_engine_outcome_clear(&o);
    wg_engine_free(e);
    /* an on-premises KVARK on loopback without the operator's override:
     * refused before anything is sent */
    e = open_engine(0);
    cr_assert_eq(wg_engine_tier_set(e, WG_TIER_ENTERPRISE, "test"), 0);
    configure(e, wgt_replay_base(up));
    expect("[]");
    r = run(e, &o, "kvark_search", "{\"query\":\"q\"}");
    cr_assert_str_eq(json_string_value(json_object_get(r, "errorKind")), "KvarkUnavailableError");
    wg_engine_outcome_clear(&o);
    verdict();
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    wg_engine_free(e);
}

Test(kvark, hostile_arguments_are_refused_before_anything_is_sent)
{
    wg_engine *e = enterprise();
    expect("[]");
    static const struct { const char *tool, *args, *error; } bad[] = {
        { "kvark_search", "{}", "Invalid value for query: required" },
        { "kvark_search", "{\"query\":\"\"}", "Invalid value for query" },
        { "kvark_search", "{\"query\":\"q\",\"limit\":0}", "Invalid value for limit" },
        { "kvark_search", "{\"query\":\"q\",\"limit\":101}", "Invalid value for limit" },
        { "kvark_search", "{\"query\":\"q\",\"limit\":\"5\"}", "Invalid value for limit" },
        { "kvark_search", "{\"query\":\"a\\u0007b\"}", "Invalid value for query" },
        { "kvark_feedback", "{\"document_id\":\"42\",\"query\":\"q\",\"useful\":true}", "Invalid value for document_id" },
        { "kvark_feedback", "{\"document_id\":42,\"query\":\"q\",\"useful\":\"yes\"}", "Invalid value for useful" },
        { "kvark_ask_document", "{\"document_id\":\"a\\r\\nb\",\"question\":\"q\"}", "Invalid value for document_id" },
        { "kvark_ask_document", "{\"document_id\":\"d\"}", "Invalid value for question" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wg_engine_outcome o;
        const json_t *r = run(e, &o, bad[i].tool, bad[i].args);
        cr_assert(json_is_false(json_object_get(r, "success")), "%s", bad[i].args);
        cr_assert(strstr(err_of(r), bad[i].error), "%s: %s", bad[i].args, err_of(r));
        wg_engine_outcome_clear(&o);
    }
    /* a query of WG_KVARK_QUERY_MAX + 1 bytes */
    char *q = malloc(WG_KVARK_QUERY_MAX + 2);
    memset(q, 'q', WG_KVARK_QUERY_MAX + 1);
    q[WG_KVARK_QUERY_MAX + 1] = 0;
    char *args = NULL;
    cr_assert(asprintf(&args, "{\"query\":\"%s\"}", q) > 0);
    wg_engine_outcome o;
    const json_t *r = run(e, &o, "kvark_search", args);
    cr_assert(strstr(err_of(r), "Invalid value for query"));
    wg_engine_outcome_clear(&o);
    free(args);
    free(q);
    verdict();
    wg_engine_free(e);
}

/* ---- feedback, ask ------------------------------------------------------------------- */

Test(kvark, reference_2_4_feedback_and_ask_document_answers)
{
    wg_engine *e = enterprise();
    expect("[" LOGIN_OK("tok-1") ","
           "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/feedback\",\"headers\":{" AUTH("tok-1") "},"
           "\"body\":{\"feedbackType\":\"search_result\",\"target\":{\"documentId\":42},"
           "\"signal\":{\"rating\":\"negative\",\"label\":\"not_useful\",\"comment\":\"outdated\"},"
           "\"context\":{\"query\":\"q3 plan\"}}},"
           "\"response\":{\"status\":200,\"body\":{\"ok\":true,\"data\":{\"stored\":true,\"feedbackId\":\"f-1\"},\"error\":null}}},"
           "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/feedback\"},"
           "\"response\":{\"status\":200,\"body\":{\"ok\":false,\"data\":{\"stored\":false},\"error\":null}}},"
           "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/chat/ask\",\"body\":{\"document_id\":\"42\",\"question\":\"who?\"}},"
           "\"response\":{\"status\":200,\"body\":{\"answer\":\"The board.\",\"sources\":[\"p. 3\",\"p. 7\"]}}}]");
    wg_engine_outcome o;
    const json_t *r = run(e, &o, "kvark_feedback",
                          "{\"document_id\":42,\"query\":\"q3 plan\",\"useful\":false,\"reason\":\"outdated\"}");
    cr_assert_str_eq(text_of(r), "Feedback recorded: not useful for document #42.");
    wg_engine_outcome_clear(&o);
    r = run(e, &o, "kvark_feedback", "{\"document_id\":42,\"query\":\"q\",\"useful\":true}");
    cr_assert_str_eq(text_of(r), "Feedback was sent but KVARK did not confirm storage.");
    wg_engine_outcome_clear(&o);
    r = run(e, &o, "kvark_ask_document", "{\"document_id\":\"42\",\"question\":\"who?\"}");
    cr_assert_str_eq(text_of(r), "KVARK Document Answer (doc #42):\n\nThe board.\n\nSources: p. 3, p. 7");
    wg_engine_outcome_clear(&o);
    verdict();
    wg_engine_free(e);
}

/* ---- kvark_action: a governed write --------------------------------------------- */

static const char action_args[] =
    "{\"action_type\":\"jira.comment\",\"entity_type\":\"issue\",\"entity_id\":\"PROJ-7\","
    "\"payload\":{\"body\":\"Shipped\"},\"reason\":\"the user asked\"}";

static void pending_action(wg_engine *e, wg_engine_outcome *o, const wg_autonomy_request *a)
{
    json_t *args = json_loads(action_args, 0, NULL);
    wg_engine_call c = WG_ENGINE_CALL_INIT;
    c.tool = "kvark_action";
    c.args = args;
    c.workspace_id = "ws-1";
    cr_assert_eq(wg_engine_execute(e, &c, a, NULL, o), 0, "%s", wg_error_last());
    json_decref(args);
}

Test(kvark, spec_14_kvark_action_asks_and_a_denial_sends_nothing)
{
    wg_engine *e = enterprise();
    expect("[]");
    wg_engine_outcome o;
    pending_action(e, &o, NULL);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    cr_assert_eq(o.decision.approval_class, WG_APPROVAL_ELEVATED);
    cr_assert_str_eq(o.decision.rule, "kvark.governed_write");
    char id[WG_ENGINE_APPROVAL_ID_MAX];
    snprintf(id, sizeof id, "%s", o.approval_id);
    wg_engine_outcome_clear(&o);
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0, "sent before an answer");
    cr_assert_eq(wg_engine_approve(e, id, 0, NULL, &o), 0, "%s", wg_error_last());
    cr_assert_eq(o.status, WG_ENGINE_DENIED);
    wg_engine_outcome_clear(&o);
    /* a second answer finds nothing to run */
    cr_assert_eq(wg_engine_approve(e, id, 1, NULL, &o), WG_ENOTFOUND);
    verdict();
    cr_assert_eq(json_array_size(wgt_replay_seen(up)), 0);
    wg_engine_free(e);
}

Test(kvark, spec_14_an_approved_kvark_action_is_sent_once_with_user_approved)
{
    wg_engine *e = enterprise();
    expect("[]");
    wg_engine_outcome o;
    pending_action(e, &o, NULL);
    cr_assert_eq(o.status, WG_ENGINE_PENDING);
    char id[WG_ENGINE_APPROVAL_ID_MAX];
    snprintf(id, sizeof id, "%s", o.approval_id);
    wg_engine_outcome_clear(&o);
    char ex[2048];
    snprintf(ex, sizeof ex, "[" LOGIN_OK("tok-1") ","
             "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/actions\",\"headers\":{" AUTH("tok-1")
             ",\"Content-Type\":\"application/json\"},\"body\":{\"actionType\":\"jira.comment\","
             "\"target\":{\"entityType\":\"issue\",\"entityId\":\"PROJ-7\"},\"payload\":{\"body\":\"Shipped\"},"
             "\"governance\":{\"userApproved\":true,\"approvalReference\":\"%s\"},"
             "\"context\":{\"reason\":\"the user asked\",\"workspaceId\":\"ws-1\"}}},"
             "\"response\":{\"status\":200,\"body\":{\"ok\":true,\"data\":{\"status\":\"executed\","
             "\"actionId\":\"act-9\",\"auditRef\":\"aud-3\"},\"error\":null}}}]", id);
    expect(ex);
    cr_assert_eq(wg_engine_approve(e, id, 1, NULL, &o), 0, "%s", wg_error_last());
    cr_assert_eq(o.status, WG_ENGINE_RAN);
    cr_assert_str_eq(text_of(o.result), "Action executed: jira.comment on issue/PROJ-7\n"
                                        "Action ID: act-9\nAudit reference: aud-3");
    cr_assert(json_is_true(json_object_get(json_object_get(o.result, "data"), "userApproved")));
    wg_engine_outcome_clear(&o);
    /* once: the approval is spent */
    cr_assert_eq(wg_engine_approve(e, id, 1, NULL, &o), WG_ENOTFOUND);
    verdict();
    wg_engine_free(e);
}

Test(kvark, reference_13_20_denied_status_and_yolo_without_approval)
{
    wg_engine *e = enterprise();
    /* YOLO auto-approves (spec 7.3) but no person approved: userApproved false */
    expect("[" LOGIN_OK("tok-1") ","
           "{\"request\":{\"method\":\"POST\",\"uri\":\"/api/actions\",\"body\":{\"actionType\":\"jira.comment\","
           "\"target\":{\"entityType\":\"issue\",\"entityId\":\"PROJ-7\"},\"payload\":{\"body\":\"Shipped\"},"
           "\"governance\":{\"userApproved\":false},"
           "\"context\":{\"reason\":\"the user asked\",\"workspaceId\":\"ws-1\"}}},"
           "\"response\":{\"status\":200,\"body\":{\"ok\":true,\"data\":{\"status\":\"denied\","
           "\"auditRef\":\"aud\"},\"error\":null}}}]");
    wg_engine_outcome o;
    wg_autonomy_request yolo = WG_AUTONOMY_REQUEST_INIT;
    yolo.level = WG_AUTONOMY_YOLO;
    yolo.has_expires = 1;
    yolo.expires_ms = wg_engine_now(e) + 60000;
    pending_action(e, &o, &yolo);
    cr_assert_eq(o.status, WG_ENGINE_RAN, "%d", o.status);
    /* the original printed "Action executed" for status denied */
    cr_assert_str_eq(text_of(o.result), "Action denied: Action was denied by KVARK governance policy.\n"
                                        "Audit reference: aud\n"
                                        "Sent without a person's approval (governance.userApproved false).");
    wg_engine_outcome_clear(&o);
    verdict();
    wg_engine_free(e);
}

/* ---- one login for many threads ---------------------------------------------------- */

typedef struct {
    wg_kvark *k;
    const wg_kvark_config *cfg;
    int rc;
} searcher;

static void *search_thread(void *ud)
{
    searcher *s = ud;
    json_t *out = NULL;
    wg_kvark_error err;
    s->rc = wg_kvark_search(&out, &err, s->k, s->cfg, "q", 0, 0);
    json_decref(out);
    return NULL;
}

Test(kvark, eight_threads_share_one_login)
{
    char ex[8192];
    size_t n = (size_t)snprintf(ex, sizeof ex, "[" LOGIN_OK("tok-1"));
    for (int i = 0; i < 8; i++)
        n += (size_t)snprintf(ex + n, sizeof ex - n,
                              ",{\"request\":{\"method\":\"GET\",\"uri\":\"/api/search?q=q\","
                              "\"headers\":{" AUTH("tok-1") "}},\"response\":{\"status\":200,"
                              "\"body\":{\"results\":[],\"total\":0}}}");
    snprintf(ex + n, sizeof ex - n, "]");
    expect(ex);
    wg_kvark *k = NULL;
    wg_kvark_options o = WG_KVARK_OPTIONS_INIT;
    o.upstream.allow_private = 1;
    o.upstream.allow_http = 1;
    cr_assert_eq(wg_kvark_new(&k, &o), 0);
    wg_kvark_config cfg;
    char v[256];
    snprintf(v, sizeof v, "{\"baseUrl\":\"%s\",\"identifier\":\"analyst@corp.example\","
             "\"password\":\"hunter2-pw\"}", wgt_replay_base(up));
    cr_assert_eq(wg_kvark_config_parse(&cfg, v, strlen(v)), 0);
    pthread_t t[8];
    searcher s[8];
    for (int i = 0; i < 8; i++) {
        s[i] = (searcher){ k, &cfg, -99 };
        cr_assert_eq(pthread_create(&t[i], NULL, search_thread, &s[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(s[i].rc, 0, "thread %d: %d", i, s[i].rc);
    }
    verdict();   /* exactly one login arrived */
    wg_kvark_config_clear(&cfg);
    wg_kvark_free(k);
}

/* The MCP face lists the engine's tools: the four KVARK tools appear in
 * tools/list exactly when they are registered. */
Test(kvark, the_mcp_face_lists_them_only_when_registered)
{
    wg_engine *e = open_engine(1);
    configure(e, wgt_replay_base(up));
    for (int round = 0; round < 2; round++) {
        cr_assert_eq(wg_engine_tier_set(e, round ? WG_TIER_ENTERPRISE : WG_TIER_PRO, "test"), 0);
        json_t *tools = NULL;
        cr_assert_eq(wg_mcp__tools_list(&tools, e), 0, "%s", wg_error_last());
        size_t named = 0, i;
        json_t *t;
        json_array_foreach(tools, i, t) {
            const char *name = json_string_value(json_object_get(t, "name"));
            if (strncmp(name, "kvark_", 6) == 0) {
                named++;
                cr_assert(json_is_object(json_object_get(t, "inputSchema")), "%s", name);
            }
        }
        cr_assert_eq(named, round ? 4 : 0, "round %d: %zu", round, named);
        json_decref(tools);
    }
    wg_engine_free(e);
}

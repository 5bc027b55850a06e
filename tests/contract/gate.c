/* gate.c - POST /api/gate/check (spec 7.1-7.5): decisions with their rule,
 * the autonomy override only while expiresAt is in the future and within
 * the cap, never-autopass at YOLO, field errors. */
#include <criterion/criterion.h>

#include "server_test.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static wgt_server s;

static void setup(void)
{
    wgt_server_start(&s, NULL);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(gate, .init = setup, .fini = teardown);

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void check(wgt_http_res *r, const char *body)
{
    wgt_http(r, &s, "POST", "/api/gate/check", body);
    cr_assert_eq(r->status, 200, "%s -> %ld %s", body, r->status, r->body);
}

static int flag(const wgt_http_res *r, const char *k)
{
    return json_is_true(json_object_get(r->json, k));
}

Test(gate, safe_bash_runs_without_confirmation)
{
    wgt_http_res r;
    check(&r, "{\"tool\":\"bash\",\"args\":{\"command\":\"ls -la\"}}");
    cr_assert_not(flag(&r, "needsConfirmation"));
    cr_assert(json_is_string(json_object_get(r.json, "rule")));
    cr_assert(json_is_string(json_object_get(r.json, "reason")));
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "level")), "normal");
    wgt_http_res_free(&r);
}

Test(gate, spec_7_5_yolo_with_future_expiry_auto_approves)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"tool\":\"write_file\",\"args\":{\"path\":\"a.txt\"},\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}",
             now_ms() + 600000);
    wgt_http_res r;
    check(&r, body);
    cr_assert_not(flag(&r, "needsConfirmation"));
    cr_assert(flag(&r, "autoApproved"));
    cr_assert(flag(&r, "needsConfirmationBase"));
    cr_assert_str_eq(json_string_value(json_object_get(r.json, "level")), "yolo");
    wgt_http_res_free(&r);
}

Test(gate, spec_7_5_missing_or_past_expiry_falls_back_to_normal)
{
    char body[256];
    static const char *const fmt[] = {
        "{\"tool\":\"write_file\",\"autonomy\":{\"level\":\"yolo\"}}%s",
        "{\"tool\":\"write_file\",\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":0}}%s",
    };
    for (int i = 0; i < 2; i++) {
        snprintf(body, sizeof body, fmt[i], "");
        wgt_http_res r;
        check(&r, body);
        cr_assert(flag(&r, "needsConfirmation"), "%s", body);
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r.json, "autonomy"), "applied")), "normal");
        wgt_http_res_free(&r);
    }
    snprintf(body, sizeof body,
             "{\"tool\":\"write_file\",\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}", now_ms() - 1000);
    wgt_http_res r;
    check(&r, body);
    cr_assert(flag(&r, "needsConfirmation"));
    wgt_http_res_free(&r);
}

Test(gate, autonomy_beyond_the_cap_is_refused)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"tool\":\"write_file\",\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}",
             now_ms() + 9LL * 3600 * 1000);
    wgt_http_res r;
    check(&r, body);
    cr_assert(flag(&r, "needsConfirmation"));
    cr_assert(json_is_string(json_object_get(json_object_get(r.json, "autonomy"), "reason")));
    wgt_http_res_free(&r);
}

Test(gate, spec_7_4_sudo_prompts_even_at_yolo)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"tool\":\"bash\",\"args\":{\"command\":\"sudo rm -rf /\"},\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}",
             now_ms() + 600000);
    wgt_http_res r;
    check(&r, body);
    cr_assert(flag(&r, "needsConfirmation"));
    cr_assert(flag(&r, "critical"));
    cr_assert_not(flag(&r, "autoApproved"));
    wgt_http_res_free(&r);
}

Test(gate, connector_write_is_elevated_from_the_registry)
{
    wgt_http_res r;
    check(&r, "{\"tool\":\"connector_github_create_issue\",\"args\":{\"_riskLevel\":\"low\"}}");
    cr_assert(flag(&r, "needsConfirmation"));
    cr_assert_str_neq(json_string_value(json_object_get(r.json, "approvalClass")), "standard");
    wgt_http_res_free(&r);
}

Test(gate, bad_fields_are_400_naming_them)
{
    static const struct { const char *body, *field; } cases[] = {
        { "{}", "tool" },
        { "{\"tool\":1}", "tool" },
        { "{\"tool\":\"\"}", "tool" },
        { "{\"tool\":\"bash\",\"args\":\"ls\"}", "args" },
        { "{\"tool\":\"bash\",\"autonomy\":\"yolo\"}", "autonomy" },
        { "{\"tool\":\"bash\",\"autonomy\":{\"level\":\"god\"}}", "autonomy.level" },
        { "{\"tool\":\"bash\",\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":\"soon\"}}", "autonomy.expiresAt" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wgt_http_res r;
        wgt_http(&r, &s, "POST", "/api/gate/check", cases[i].body);
        cr_expect_eq(r.status, 400, "%s", cases[i].body);
        cr_expect_str_eq(json_string_value(json_object_get(r.json, "field")), cases[i].field, "%s", r.body);
        wgt_http_res_free(&r);
    }
}

Test(gate, spec_7_5_auto_approval_writes_an_approval_auto_audit_row)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"tool\":\"write_file\",\"args\":{\"path\":\"notes.txt\"},\"autonomy\":{\"level\":\"trusted\",\"expiresAt\":%lld}}",
             now_ms() + 600000);
    wgt_http_res r;
    check(&r, body);
    cr_assert(flag(&r, "autoApproved"));
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "GET", "/api/audit?event=approval_auto&limit=5", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *e = json_array_get(json_object_get(r.json, "events"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(e, "event")), "approval_auto");
    cr_assert_str_eq(json_string_value(json_object_get(e, "tool")), "write_file");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(e, "input"), "_autonomy")), "trusted");
    wgt_http_res_free(&r);
}

/* metrics.c - GET /metrics (issue #12 §3): the Prometheus text format, behind
 * the token, with requests by route pattern and status, latency histograms,
 * gate decisions by rule, connector calls and errors, pending approvals and
 * credential pool keys. */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server_test.h"
#include "wgtest.h"

static wgt_server s;

static void setup(void)
{
    wgt_server_config cfg = { .demo = 1 };
    wgt_server_start(&s, &cfg);
}

static void teardown(void) { wgt_server_stop(&s); }

TestSuite(metrics, .init = setup, .fini = teardown, .timeout = 60);

static char *scrape(void)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/metrics", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *ctype = wgt_http_header(&r, "Content-Type");
    cr_expect(ctype && strstr(ctype, "text/plain") && strstr(ctype, "version=0.0.4"), "%s",
              ctype ? ctype : "(none)");
    free(ctype);
    char *text = strdup(r.body);
    wgt_http_res_free(&r);
    return text;
}

/* The value of the sample whose name and labels start with `series`, or -1. */
static double sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, series, n) && (line[n] == ' ' || line[n] == '}' || line[n] == ','))
            return atof(strchr(line + n, ' ') + 1);
    return -1;
}

Test(metrics, needs_the_token)
{
    wgt_http_res r;
    wgt_http_ex(&r, &s, "GET", "/metrics", NULL, 0, WGT_AUTH_NONE, NULL);
    cr_expect_eq(r.status, 401);
    wgt_http_res_free(&r);
}

Test(metrics, every_line_is_in_the_exposition_format)
{
    wgt_http_res r;
    wgt_http(&r, &s, "GET", "/api/tier", NULL);
    wgt_http_res_free(&r);
    char *text = scrape();
    regex_t sample_re, meta_re;
    cr_assert_eq(regcomp(&sample_re,
                         "^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\",?)*\\})? "
                         "[-+0-9.eE]+$|^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{.*\\})? \\+Inf$",
                         REG_EXTENDED | REG_NOSUB), 0);
    cr_assert_eq(regcomp(&meta_re, "^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$",
                         REG_EXTENDED | REG_NOSUB), 0);
    size_t lines = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int ok = line[0] == '#' ? regexec(&meta_re, line, 0, NULL, 0) == 0
                                : regexec(&sample_re, line, 0, NULL, 0) == 0;
        cr_expect(ok, "not exposition format: %s", line);
        lines++;
    }
    cr_expect_gt(lines, 10);
    regfree(&sample_re);
    regfree(&meta_re);
    free(text);
}

Test(metrics, requests_are_counted_by_route_pattern_and_status)
{
    wgt_http_res r;
    for (int i = 0; i < 3; i++) {
        wgt_http(&r, &s, "GET", "/api/connectors/no-such-id/health", NULL);
        wgt_http_res_free(&r);
    }
    wgt_http(&r, &s, "GET", "/api/nothing-here", NULL);
    wgt_http_res_free(&r);
    char *text = scrape();
    cr_expect_eq(sample(text, "waggle_http_requests_total{route=\"/api/connectors/:id/health\","
                              "method=\"GET\",code=\"404\""), 3, "%s", text);
    cr_expect_null(strstr(text, "no-such-id"), "a requested path is never a label");
    cr_expect_eq(sample(text, "waggle_http_requests_total{route=\"(none)\",method=\"GET\","
                              "code=\"404\""), 1, "%s", text);
    cr_expect_eq(sample(text, "waggle_http_request_duration_seconds_count{route=\"/api/connectors/"
                              ":id/health\""), 3);
    cr_expect_eq(sample(text, "waggle_http_request_duration_seconds_bucket{route=\"/api/"
                              "connectors/:id/health\",le=\"+Inf\""), 3);
    free(text);
}

Test(metrics, gate_decisions_connector_calls_and_pending_approvals)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/gate/check",
             "{\"tool\":\"bash\",\"args\":{\"command\":\"rm -rf ~\"}}");
    cr_assert_eq(r.status, 200);
    const char *rule = json_string_value(json_object_get(r.json, "rule"));
    char series[256];
    snprintf(series, sizeof series, "waggle_gate_decisions_total{rule=\"%s\",confirm=\"yes\"", rule);
    wgt_http_res_free(&r);
    /* a connector call that runs (YOLO), and one that waits (Normal) */
    char body[512];
    snprintf(body, sizeof body,
             "{\"tool\":\"connector_slack-mock_send_slack_message\",\"args\":{\"channel\":\"#c\","
             "\"text\":\"hi\"},\"autonomy\":{\"level\":\"yolo\",\"expiresAt\":%lld}}",
             (long long)time(NULL) * 1000 + 600000);
    wgt_http(&r, &s, "POST", "/api/tools/execute", body);
    cr_expect_eq(r.status, 200, "%s", r.body);
    wgt_http_res_free(&r);
    wgt_http(&r, &s, "POST", "/api/tools/execute",
             "{\"tool\":\"connector_slack-mock_send_slack_message\",\"args\":{\"channel\":\"#c\","
             "\"text\":\"hi\"}}");
    cr_expect_eq(r.status, 202, "%s", r.body);
    wgt_http_res_free(&r);
    char *text = scrape();
    cr_expect_eq(sample(text, series), 1, "%s in %s", series, text);
    cr_expect_geq(sample(text, "waggle_connector_calls_total{connector=\"slack-mock\""), 1, "%s", text);
    cr_expect_eq(sample(text, "waggle_approvals_pending"), 1, "%s", text);
    free(text);
}

Test(metrics, pool_keys_by_state)
{
    const char *set1[] = { "--data-dir", s.dir, "vault", "set", "openai", NULL };
    const char *set2[] = { "--data-dir", s.dir, "vault", "set", "openai-2", NULL };
    const char *cool[] = { "--data-dir", s.dir, "pool", "report", "openai", "openai", "429", NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, "sk-one", NULL, set1), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    cr_assert_eq(wgt_run_cli(&r, "sk-two", NULL, set2), 0);
    wgt_result_free(&r);
    cr_assert_eq(wgt_run_cli(&r, NULL, NULL, cool), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    wgt_result_free(&r);
    char *text = scrape();
    cr_expect_eq(sample(text, "waggle_pool_keys{provider=\"openai\",state=\"cooldown\""), 1, "%s", text);
    cr_expect_eq(sample(text, "waggle_pool_keys{provider=\"openai\",state=\"active\""), 1, "%s", text);
    cr_expect_null(strstr(text, "sk-one"), "a key reached the metrics");
    cr_expect_null(strstr(text, "provider=\"openai-2\""), "NAME-2 counts with NAME");
    free(text);
}

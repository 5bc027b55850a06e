/* gate_sizes.c - POST /api/gate/check with the long commands of issue #10
 * §1 on a real server over loopback HTTP: 16 KB and 64 KiB are decided, a
 * body over the server's 1 MiB limit gets its 413, and the server goes on
 * answering (one 5 KB command used to kill waggled). */
#include <criterion/criterion.h>

#include "gate_sizes.h"
#include "server_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wgt_server s;

static void setup(void)
{
    wgt_server_start(&s, NULL);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(gate_sizes, .init = setup, .fini = teardown);

static void post_command(wgt_http_res *r, const char *cmd, const char *level)
{
    char *args = gatet_command_json(cmd);
    size_t cap = strlen(args) + 128;
    char *body = malloc(cap);
    cr_assert_not_null(body);
    size_t n = (size_t)snprintf(body, cap, "{\"tool\":\"bash\",\"args\":%s,\"autonomy\":{\"level\":\"%s\"}}",
                                args, level);
    wgt_http_ex(r, &s, "POST", "/api/gate/check", body, n, WGT_AUTH_API, NULL);
    free(body);
    free(args);
}

static void server_still_answers(void)
{
    wgt_http_res r;
    post_command(&r, "sudo ls", "normal");
    cr_assert_eq(r.status, 200, "%ld %s", r.status, r.body);
    cr_expect_str_eq(json_string_value(json_object_get(r.json, "rule")), "critical.privilege");
    wgt_http_res_free(&r);
}

Test(gate_sizes, long_commands_are_decided_and_the_server_lives)
{
    size_t sizes[] = { 5000, 14000, 65536 };
    for (int i = 0; i < 3; i++) {
        size_t len;
        char *cmd = gatet_git_add(sizes[i], &len);
        wgt_http_res r;
        post_command(&r, cmd, "normal");
        cr_assert_eq(r.status, 200, "%zu bytes: %ld %.200s", len, r.status, r.body);
        cr_expect_str_eq(json_string_value(json_object_get(r.json, "rule")), "bash.git");
        cr_expect(json_is_true(json_object_get(r.json, "needsConfirmation")));
        wgt_http_res_free(&r);
        free(cmd);
        server_still_answers();
    }
}

Test(gate_sizes, a_never_autopass_signal_past_the_model_limit_stays_critical)
{
    /* 300 KB: under the server's body limit, over the model's 256 KiB */
    size_t len;
    char *cmd = gatet_git_add(300000, &len);
    size_t cap = len + 64;
    cmd = realloc(cmd, cap);
    cr_assert_not_null(cmd);
    snprintf(cmd + len, cap - len, "; sudo reboot");
    wgt_http_res r;
    post_command(&r, cmd, "yolo");
    cr_assert_eq(r.status, 200, "%ld %.200s", r.status, r.body);
    cr_expect_str_eq(json_string_value(json_object_get(r.json, "rule")), "critical.unparsed_signal");
    cr_expect(json_is_true(json_object_get(r.json, "critical")));
    wgt_http_res_free(&r);
    free(cmd);
    server_still_answers();
}

Test(gate_sizes, one_mebibyte_gets_413_and_the_server_lives)
{
    size_t len;
    char *cmd = gatet_git_add(1u << 20, &len);
    wgt_http_res r;
    post_command(&r, cmd, "normal");
    cr_expect_eq(r.status, 413, "%ld %.200s", r.status, r.body);
    wgt_http_res_free(&r);
    free(cmd);
    server_still_answers();
}

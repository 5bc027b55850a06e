/* Tests for the audit log and its hash chain (waggle/audit.h; issue #5). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "waggle/audit.h"
#include "waggle/error.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "wgtest.h"

static char *dir;
static wg_store *st;
static wg_audit *au;

static void setup(void)
{
    unsetenv("WAGGLE_VAULT_PASSPHRASE");
    dir = wgt_tmpdir();
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
    cr_assert_eq(wg_audit_open(&au, st, NULL), 0);
}

static void teardown(void)
{
    wg_audit_free(au);
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(audit, .init = setup, .fini = teardown);

static void append(const char *event, const json_t *input)
{
    wg_audit_record r = { .event = event, .actor = "test", .tool = "bash", .input = input,
                          .decision = "allowed", .rule = "safe_prefix" };
    cr_assert_eq(wg_audit_append(au, &r, NULL), 0, "%s", wg_error_last());
}

Test(audit, append_list_newest_first_with_filter)
{
    append("approval_requested", NULL);
    append("connector.github.create_issue", NULL);
    append("connector.slack.post", NULL);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, au, NULL), 0);
    cr_assert_eq(n, 3);
    cr_assert_eq(ev[0].id, 3);
    cr_assert_str_eq(ev[0].event, "connector.slack.post");
    cr_assert_str_eq(ev[2].prev_hash, "0000000000000000000000000000000000000000000000000000000000000000");
    cr_assert_str_eq(ev[1].prev_hash, ev[2].hash);
    wg_audit_events_free(ev, n);
    wg_audit_query q = { .event = "connector.*" };
    cr_assert_eq(wg_audit_list(&ev, &n, au, &q), 0);
    cr_assert_eq(n, 2);
    wg_audit_events_free(ev, n);
    wg_audit_query q2 = { .event = "approval_requested", .limit = 1 };
    cr_assert_eq(wg_audit_list(&ev, &n, au, &q2), 0);
    cr_assert_eq(n, 1);
    wg_audit_events_free(ev, n);
}

Test(audit, verify_intact_chain_ok)
{
    for (int i = 0; i < 5; i++)
        append("approval_auto", NULL);
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, au), 0);
    cr_assert_eq(res.ok, 1);
    cr_assert_eq(res.rows, 5);
    cr_assert_eq(res.first_bad_id, 0);
}

Test(audit, verify_detects_edited_row)
{
    for (int i = 0; i < 5; i++)
        append("approval_denied", NULL);
    cr_assert_eq(wg_store_exec(st, "UPDATE audit_log SET decision = 'granted' WHERE id = 3",
                               NULL, 0, NULL, NULL), 0);
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, au), 0);
    cr_assert_eq(res.ok, 0);
    cr_assert_eq(res.first_bad_id, 3);
    cr_assert(strstr(res.reason, "edited"), "%s", res.reason);
}

Test(audit, verify_detects_deleted_row)
{
    for (int i = 0; i < 4; i++)
        append("approval_denied", NULL);
    cr_assert_eq(wg_store_exec(st, "DELETE FROM audit_log WHERE id = 2", NULL, 0, NULL, NULL), 0);
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, au), 0);
    cr_assert_eq(res.ok, 0);
    cr_assert_eq(res.first_bad_id, 3);
}

Test(audit, secrets_masked_by_key_at_any_depth)
{
    json_t *in = json_pack("{s:s,s:s,s:{s:s,s:s},s:[{s:s}]}", "command", "ls",
                           "apiKey", "sk-abc", "headers", "Authorization", "Bearer xyz",
                           "X-Other", "fine", "list", "refresh_token", "rt-1");
    append("connector.x.y", in);
    json_decref(in);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, au, NULL), 0);
    char *s = json_dumps(ev[0].input, JSON_SORT_KEYS | JSON_COMPACT);
    cr_assert_str_eq(s, "{\"apiKey\":\"***\",\"command\":\"ls\",\"headers\":{\"Authorization\":\"***\","
                        "\"X-Other\":\"fine\"},\"list\":[{\"refresh_token\":\"***\"}]}");
    free(s);
    wg_audit_events_free(ev, n);
}

Test(audit, vault_values_masked_anywhere)
{
    wg_vault *v = NULL;
    cr_assert_eq(wg_vault_open(&v, st), 0);
    cr_assert_eq(wg_vault_set(v, "connector:github", "ghp_TOPSECRET", 13, NULL), 0);
    wg_audit *a2 = NULL;
    cr_assert_eq(wg_audit_open(&a2, st, v), 0);
    json_t *in = json_pack("{s:s}", "command", "curl -H 'x: ghp_TOPSECRET' http://x");
    wg_audit_record r = { .event = "approval_requested", .input = in };
    cr_assert_eq(wg_audit_append(a2, &r, NULL), 0);
    json_decref(in);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, a2, NULL), 0);
    cr_assert_str_eq(json_string_value(json_object_get(ev[0].input, "command")),
                     "curl -H 'x: ***' http://x");
    wg_audit_events_free(ev, n);
    wg_audit_free(a2);
    wg_vault_free(v);
    wg_store_free(st);
    st = NULL;
    char p[4200];
    snprintf(p, sizeof p, "%s/waggle.db", dir);
    char *db = wgt_read_file(p);
    (void)db;
    free(db);
    cr_assert_eq(wg_store_open(&st, dir), 0);
    wg_audit_free(au);
    cr_assert_eq(wg_audit_open(&au, st, NULL), 0);
}

Test(audit, bad_event_is_einval)
{
    wg_audit_record r = { .event = "" };
    cr_assert_eq(wg_audit_append(au, &r, NULL), WG_EINVAL);
    r.event = "has space";
    cr_assert_eq(wg_audit_append(au, &r, NULL), WG_EINVAL);
}

Test(audit, concurrent_processes_lose_nothing_and_keep_chain)
{
    enum { PROCS = 4, EACH = 25 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            wg_store *s2 = NULL;
            wg_audit *a2 = NULL;
            if (wg_store_open(&s2, dir) < 0 || wg_audit_open(&a2, s2, NULL) < 0)
                _exit(10);
            for (int i = 0; i < EACH; i++) {
                wg_audit_record r = { .event = "approval_auto", .actor = "child" };
                if (wg_audit_append(a2, &r, NULL) < 0)
                    _exit(11);
            }
            wg_audit_free(a2);
            wg_store_free(s2);
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status = 0;
        waitpid(pids[p], &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d failed (%d)", p, status);
    }
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, au), 0);
    cr_assert_eq(res.ok, 1, "%s", res.reason);
    cr_assert_eq(res.rows, PROCS * EACH);
}

Test(audit, seam_logs_connector_execution)
{
    json_t *e = json_pack("{s:s,s:s,s:b,s:s,s:s}", "actionType", "connector.github.create_issue",
                          "description", "x", "requiresApproval", 1, "tool",
                          "connector_github_create_issue", "riskLevel", "medium");
    cr_assert_eq(wg_audit_seam_log(au, e), 0);
    json_decref(e);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, au, NULL), 0);
    cr_assert_str_eq(ev[0].event, "connector.github.create_issue");
    cr_assert_str_eq(ev[0].decision, "requires_approval");
    cr_assert_str_eq(ev[0].rule, "risk:medium");
    wg_audit_events_free(ev, n);
}

Test(audit, vault_value_used_as_key_name_is_scrubbed)
{
    wg_vault *v = NULL;
    cr_assert_eq(wg_vault_open(&v, st), 0);
    cr_assert_eq(wg_vault_set(v, "openai", "sk-LEAKED-9", 11, NULL), 0);
    json_t *in = json_pack("{s:i,s:[s]}", "sk-LEAKED-9", 1, "list", "x sk-LEAKED-9 y");
    json_t *out = NULL;
    cr_assert_eq(wg_audit_mask(&out, in, v), 0);
    char *s = json_dumps(out, JSON_SORT_KEYS | JSON_COMPACT);
    cr_assert_str_eq(s, "{\"***\":1,\"list\":[\"x *** y\"]}");
    free(s);
    json_decref(out);
    json_decref(in);
    wg_vault_free(v);
}

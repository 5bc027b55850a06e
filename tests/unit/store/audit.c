/* Tests for the audit log, its hash chain and its anchor (waggle/audit.h;
 * issue #5, issue 11 section 3). */
#include <criterion/criterion.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "waggle/audit.h"
#include "waggle/error.h"
#include "waggle/store.h"
#include "waggle/vault.h"
#include "audit_tamper.h"
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
    au = NULL;
    wg_store_free(st);
    st = NULL;
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

/* ---- anchoring (issue 11 section 3): every way to shorten or rewrite the
 * log without the key is caught, and verify names the row and the reason.
 * Each of these passed verify before the anchor existed. ---------------- */

static void sqlx(const char *q)
{
    cr_assert_eq(wg_store_exec(st, q, NULL, 0, NULL, NULL), 0, "%s: %s", q, wg_error_last());
}

static wg_audit_verify_result verify_now(void)
{
    wg_audit_verify_result res;
    cr_assert_eq(wg_audit_verify(&res, au), 0, "%s", wg_error_last());
    return res;
}

static void appendn(int n)
{
    for (int i = 0; i < n; i++)
        append("approval_auto", NULL);
}

#define ZEROS WGT_ZERO_HASH

static void rehash_from(int64_t from)
{
    wgt_audit_rehash_from(st, from);
}

static void assert_append_refused(void)
{
    wg_audit_record r = { .event = "approval_auto" };
    cr_assert_eq(wg_audit_append(au, &r, NULL), WG_ECRYPTO, "the append must be refused");
    cr_assert(strstr(wg_error_last(), "reanchor"), "%s", wg_error_last());
}

Test(audit, anchor_intact_log_reports_head_and_witness)
{
    appendn(3);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 1, "%s", res.reason);
    cr_assert_eq(res.anchor_rows, 3);
    cr_assert_eq(res.witness_rows, 3);
    cr_assert_eq(res.trusted_rows, 0);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, au, NULL), 0);
    cr_assert_str_eq(res.anchor_head, ev[0].hash);
    wg_audit_events_free(ev, n);
}

Test(audit, anchor_detects_deleted_newest_rows)
{
    appendn(5);
    sqlx("DELETE FROM audit_log WHERE id > 3");
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert_eq(res.rows, 3);
    cr_assert_eq(res.first_bad_id, 4, "the first missing row is named");
    cr_assert(strstr(res.reason, "the newest 2 rows are missing: the anchor says count 5, head "),
              "%s", res.reason);
    assert_append_refused();
}

Test(audit, anchor_detects_emptied_table)
{
    appendn(4);
    sqlx("DELETE FROM audit_log");
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert_eq(res.first_bad_id, 1);
    cr_assert(strstr(res.reason, "the newest 4 rows are missing"), "%s", res.reason);
    assert_append_refused();
}

Test(audit, anchor_detects_edited_and_rehashed_history)
{
    appendn(5);
    sqlx("UPDATE audit_log SET decision = 'denied' WHERE id = 3");
    rehash_from(3);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert_eq(res.first_bad_id, 3, "the edited row, not the head: %s", res.reason);
    cr_assert(strstr(res.reason, "row 3: its seal does not match"), "%s", res.reason);
}

Test(audit, anchor_detects_rehash_with_seals_stripped)
{
    appendn(5);
    sqlx("UPDATE audit_log SET decision = 'denied' WHERE id = 4");
    rehash_from(4);
    sqlx("UPDATE audit_log SET seal = NULL WHERE id >= 4");
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.first_bad_id, 4);
    cr_assert(strstr(res.reason, "row 4: it has no seal, though the rows before it are sealed"),
              "%s", res.reason);
}

Test(audit, anchor_detects_appended_forgery_and_rolled_back_anchor)
{
    appendn(3);
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT row_count, head, seal FROM audit_anchor", NULL, 0,
                               &rows, NULL), 0);
    wg_store_value old[3] = { WG_SV_INT(wg_store_rows_int(rows, 0, 0)),
                              WG_SV_TEXT(wg_store_rows_text(rows, 0, 1)),
                              WG_SV_TEXT(wg_store_rows_text(rows, 0, 2)) };
    appendn(2);
    /* A genuine older anchor put back: its seal is valid, its count is not. */
    cr_assert_eq(wg_store_exec(st, "UPDATE audit_anchor SET row_count = ?, head = ?, seal = ?",
                               old, 3, NULL, NULL), 0);
    wg_store_rows_free(rows);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.first_bad_id, 4);
    cr_assert(strstr(res.reason, "row 4: it is not covered by the sealed anchor (count 3)"),
              "%s", res.reason);
    assert_append_refused();
}

Test(audit, anchor_forged_or_deleted_is_reported)
{
    appendn(2);
    sqlx("UPDATE audit_anchor SET row_count = 1");
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert(strstr(res.reason, "the audit anchor's seal does not verify"), "%s", res.reason);
    assert_append_refused();
    sqlx("DELETE FROM audit_anchor");
    res = verify_now();
    cr_assert(strstr(res.reason, "the audit anchor is missing"), "%s", res.reason);
    assert_append_refused();
}

static void close_store(void)
{
    wg_audit_free(au);
    au = NULL;
    wg_store_free(st);
    st = NULL;
}

static void reopen_store(void)
{
    close_store();
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
    cr_assert_eq(wg_audit_open(&au, st, NULL), 0, "%s", wg_error_last());
}

static void remove_db(void)
{
    static const char *const files[] = { "waggle.db", "waggle.db-wal", "waggle.db-shm" };
    for (size_t i = 0; i < 3; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
}

Test(audit, witness_detects_wiped_database)
{
    appendn(6);
    close_store();
    remove_db();
    /* The key (vault.key) survives: the new store opens with it. */
    reopen_store();
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert_eq(res.first_bad_id, 1);
    cr_assert(strstr(res.reason, "the newest 6 rows are missing: this data dir witnessed count 6"),
              "%s", res.reason);
    /* Appending goes on (nothing is laundered), and the witness stays frozen. */
    appendn(8);
    res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert_eq(res.first_bad_id, 6, "%s", res.reason);
    cr_assert(strstr(res.reason, "row 6: its hash differs from the head this data dir witnessed"),
              "%s", res.reason);
}

static void copy_file(const char *from, const char *to)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp -p '%s/%s' '%s/%s'", dir, from, dir, to);
    cr_assert_eq(system(cmd), 0);
}

Test(audit, witness_detects_database_restored_from_older_copy)
{
    appendn(3);
    wg_audit_free(au);
    au = NULL;
    wg_store_free(st);
    st = NULL;                      /* checkpointed on close: one file */
    copy_file("waggle.db", "old.db");
    reopen_store();
    appendn(2);
    close_store();
    remove_db();
    copy_file("old.db", "waggle.db");
    reopen_store();
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0, "the old copy is self-consistent; only the witness knows");
    cr_assert_eq(res.first_bad_id, 4);
    cr_assert(strstr(res.reason, "the newest 2 rows are missing: this data dir witnessed count 5"),
              "%s", res.reason);
}

Test(audit, reanchor_accepts_shortened_log_and_records_it)
{
    appendn(5);
    sqlx("DELETE FROM audit_log WHERE id > 2");
    int64_t id = 0;
    cr_assert_eq(wg_audit_reanchor(au, "operator", &id), 0, "%s", wg_error_last());
    cr_assert_eq(id, 3);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 1, "%s", res.reason);
    cr_assert_eq(res.witness_rows, 3);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    wg_audit_query q = { .event = "audit_reanchored" };
    cr_assert_eq(wg_audit_list(&ev, &n, au, &q), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(ev[0].actor, "operator");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(ev[0].input, "previousAnchor"),
                                                    "rows")), 5, "what was given up is recorded");
    cr_assert_eq(json_integer_value(json_object_get(ev[0].input, "rows")), 2);
    wg_audit_events_free(ev, n);
    appendn(1);
    cr_assert_eq(verify_now().ok, 1);
}

Test(audit, reanchor_refuses_edited_log)
{
    appendn(4);
    sqlx("UPDATE audit_log SET actor = 'mallory' WHERE id = 2");
    cr_assert_eq(wg_audit_reanchor(au, NULL, NULL), WG_ECRYPTO);
    cr_assert(strstr(wg_error_last(), "row 2"), "%s", wg_error_last());
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.first_bad_id, 2, "nothing was changed");
}

Test(audit, reanchor_after_wiped_database_clears_the_witness)
{
    appendn(4);
    close_store();
    remove_db();
    reopen_store();
    cr_assert_eq(verify_now().ok, 0);
    cr_assert_eq(wg_audit_reanchor(au, NULL, NULL), 0, "%s", wg_error_last());
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 1, "%s", res.reason);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, au, NULL), 0);
    cr_assert_eq(n, 1);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(ev[0].input, "witness"),
                                                    "rows")), 4);
    wg_audit_events_free(ev, n);
}

/* A data dir as schema version 1 left it (its DDL, verbatim): a chained
 * log of n rows, no seal column, no anchor, no witness. */
static void make_legacy(int n)
{
    close_store();
    remove_db();
    char p[4200];
    snprintf(p, sizeof p, "%s/waggle.db", dir);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
    static const char *const v1[] = {
        "CREATE TABLE schema_version (version BIGINT NOT NULL)",
        "INSERT INTO schema_version VALUES (1)",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE vault_entries (name TEXT PRIMARY KEY, nonce BLOB NOT NULL,"
        " ciphertext BLOB NOT NULL, updated_at TEXT NOT NULL)",
        "CREATE TABLE audit_log (id BIGINT PRIMARY KEY, ts TEXT NOT NULL, event TEXT NOT NULL,"
        " actor TEXT, tool TEXT, input TEXT, decision TEXT, rule TEXT,"
        " prev_hash TEXT NOT NULL, hash TEXT NOT NULL)",
        "CREATE INDEX audit_log_event ON audit_log (event)",
        "CREATE TABLE pool_entries (provider TEXT NOT NULL, name TEXT NOT NULL,"
        " status TEXT NOT NULL, cooldown_until BIGINT, last_error TEXT,"
        " success_count BIGINT NOT NULL, error_count BIGINT NOT NULL, PRIMARY KEY (provider, name))",
        "CREATE TABLE pool_state (provider TEXT PRIMARY KEY, rr_index BIGINT NOT NULL)",
    };
    for (size_t i = 0; i < sizeof v1 / sizeof *v1; i++)
        cr_assert_eq(sqlite3_exec(db, v1[i], NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    char prev[65] = ZEROS;
    for (int id = 1; id <= n; id++) {
        char hex[65], q[600];
        const char *ts = "2026-01-01T00:00:00.000Z";
        wgt_audit_chain_hash(hex, prev, id, ts, "tier_changed", "cli", NULL, NULL, "changed", NULL);
        snprintf(q, sizeof q, "INSERT INTO audit_log VALUES (%d, '%s', 'tier_changed', 'cli',"
                 " NULL, NULL, 'changed', NULL, '%s', '%s')", id, ts, prev, hex);
        cr_assert_eq(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
        memcpy(prev, hex, sizeof prev);
    }
    sqlite3_close(db);
    snprintf(p, sizeof p, "%s/audit-witness", dir);
    unlink(p);
}

Test(audit, legacy_log_is_anchored_on_first_open_and_says_so)
{
    make_legacy(4);
    reopen_store();
    cr_assert_geq(wg_store_schema_version(st), 2);
    cr_assert_eq(wg_audit_legacy_sealed(au), 4);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 1, "%s", res.reason);
    cr_assert_eq(res.rows, 5);
    cr_assert_eq(res.trusted_rows, 4);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    cr_assert_eq(wg_audit_list(&ev, &n, au, NULL), 0);
    cr_assert_str_eq(ev[0].event, "audit_anchored");
    cr_assert_eq(json_integer_value(json_object_get(ev[0].input, "rows")), 4);
    wg_audit_events_free(ev, n);
    reopen_store();
    cr_assert_eq(wg_audit_legacy_sealed(au), 0, "only once");
    appendn(2);
    sqlx("DELETE FROM audit_log WHERE id = 7");
    cr_assert_eq(verify_now().first_bad_id, 7, "anchored from now on");
}

Test(audit, reset_anchor_is_not_resealed_when_the_log_was_sealed)
{
    appendn(3);
    sqlx("DELETE FROM audit_log WHERE id = 3");
    sqlx("UPDATE audit_anchor SET seal = ''");
    reopen_store();
    cr_assert_eq(wg_audit_legacy_sealed(au), 0);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert(strstr(res.reason, "the audit anchor is not sealed"), "%s", res.reason);
    assert_append_refused();
}

Test(audit, witness_fifo_or_symlink_is_reported_never_a_hang)
{
    appendn(2);
    char p[4200];
    snprintf(p, sizeof p, "%s/audit-witness", dir);
    unlink(p);
    cr_assert_eq(mkfifo(p, 0600), 0);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert(strstr(res.reason, "is not a regular file"), "%s", res.reason);
    appendn(1);                      /* no hang on the FIFO either */
    unlink(p);
    cr_assert_eq(symlink("/etc/passwd", p), 0);
    res = verify_now();
    cr_assert(strstr(res.reason, "is a symbolic link"), "%s", res.reason);
    cr_assert_eq(wg_audit_reanchor(au, NULL, NULL), WG_EIO, "reanchor says to remove it first");
    unlink(p);
    cr_assert_eq(wg_audit_reanchor(au, NULL, NULL), 0, "%s", wg_error_last());
    cr_assert_eq(verify_now().ok, 1);
}

Test(audit, witness_forged_is_reported)
{
    appendn(2);
    char p[4200];
    snprintf(p, sizeof p, "%s/audit-witness", dir);
    char *w = wgt_read_file(p);
    cr_assert_not_null(w);
    cr_assert_eq(strlen(w), 320, "two slots");
    for (int s = 0; s < 2; s++)          /* another count, same seal */
        w[s * 160 + 10] = w[s * 160 + 10] == '9' ? '8' : '9';
    FILE *f = fopen(p, "w");
    fputs(w, f);
    fclose(f);
    free(w);
    wg_audit_verify_result res = verify_now();
    cr_assert_eq(res.ok, 0);
    cr_assert(strstr(res.reason, "does not verify"), "%s", res.reason);
}

Test(audit, witness_file_is_private)
{
    appendn(1);
    char p[4200];
    snprintf(p, sizeof p, "%s/audit-witness", dir);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600);
}

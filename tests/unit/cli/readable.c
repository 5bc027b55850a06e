/* Tests for the CLI's two output forms (issue #12 §3): every command that
 * answers with data prints a readable form by default and JSON with --json
 * (before or after the command); the readable form never passes a control
 * byte from outside text to the terminal; help texts cite no section of a
 * document the user does not have. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgtest.h"

static char *dir;

static void setup(void) { dir = wgt_tmpdir(); }
static void teardown(void) { wgt_rmtree(dir); free(dir); }

TestSuite(cli_readable, .init = setup, .fini = teardown);

/* Runs waggle --data-dir DIR ARGS... with stdin text; asserts it started. */
static wgt_result run_in(const char *in, const char *const *args)
{
    const char *argv[16] = { "--data-dir", dir };
    size_t n = 2;
    for (; *args && n < 15; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, in, NULL, argv), 0);
    return r;
}
#define RUN(in, ...) run_in(in, (const char *const[]){ __VA_ARGS__, NULL })

static int is_json(const char *text)
{
    json_t *v = json_loads(text, 0, NULL);
    json_decref(v);
    return v != NULL;
}

/* The commands that answer with data, and a word of their readable form. */
static const struct {
    const char *args[6];
    const char *stdin_text;
    const char *readable;   /* must appear without --json */
} answers[] = {
    { { "tier" }, NULL, "Effective tier:" },
    { { "tier", "capabilities", "free" }, NULL, "Connector limit: 5" },
    { { "vault", "list" }, NULL, "no entries" },
    { { "vault", "set", "openai" }, "sk-1", "stored openai" },
    { { "trust" }, "Run bash to deploy", "Risk:" },
    { { "route", "open", "a", "jira", "ticket" }, NULL, "SOURCE" },
    { { "catalog", "search", "--limit", "2", "crash", "reports" }, NULL, "servers match" },
    { { "catalog", "categories" }, NULL, "CATEGORY" },
    { { "catalog", "show", "sentry" }, NULL, "Install:" },
};

Test(cli_readable, every_answer_is_readable_by_default_and_json_with_the_flag)
{
    for (size_t i = 0; i < sizeof answers / sizeof *answers; i++) {
        const char *const *a = answers[i].args;
        wgt_result r = RUN(answers[i].stdin_text, a[0], a[1], a[2], a[3], a[4], a[5]);
        cr_assert_eq(r.status, 0, "%s: %s", a[0], r.err);
        cr_expect(strstr(r.out, answers[i].readable), "%s %s: %s", a[0], a[1] ? a[1] : "", r.out);
        cr_expect(!is_json(r.out), "%s answers JSON by default: %s", a[0], r.out);
        wgt_result_free(&r);
        /* --json before the command, then after it */
        r = RUN(answers[i].stdin_text, "--json", a[0], a[1], a[2], a[3], a[4], a[5]);
        cr_assert_eq(r.status, 0, "%s: %s", a[0], r.err);
        cr_expect(is_json(r.out), "--json %s: %s", a[0], r.out);
        wgt_result_free(&r);
        size_t n = 0;
        while (n < 6 && a[n])
            n++;
        const char *after[8] = { 0 };
        for (size_t k = 0; k < n; k++)
            after[k] = a[k];
        after[n] = "--json";
        r = RUN(answers[i].stdin_text, after[0], after[1], after[2], after[3], after[4], after[5],
                after[6]);
        cr_assert_eq(r.status, 0, "%s --json: %s", a[0], r.err);
        cr_expect(is_json(r.out), "%s --json: %s", a[0], r.out);
        wgt_result_free(&r);
    }
}

Test(cli_readable, a_route_to_a_connector_names_the_command_that_connects_it)
{
    wgt_result r = RUN(NULL, "route", "open", "a", "jira", "ticket");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "waggle connectors connect jira"), "%s", r.out);
    cr_expect_null(strstr(r.out, "Cockpit"), "the original's UI is not ours: %s", r.out);
    wgt_result_free(&r);
    /* the library's text (a test vector of the original) stays in the JSON */
    r = RUN(NULL, "route", "--json", "open", "a", "jira", "ticket");
    cr_expect(strstr(r.out, "Add your credentials in Cockpit > Connectors"), "%s", r.out);
    wgt_result_free(&r);
}

Test(cli_readable, pool_cooldowns_read_as_times_and_stay_epoch_ms_in_json)
{
    wgt_result r = RUN("sk-1", "vault", "set", "openai");
    wgt_result_free(&r);
    r = RUN(NULL, "pool", "report", "openai", "openai", "429");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "reported 429"), "%s", r.out);
    wgt_result_free(&r);
    r = RUN(NULL, "pool", "status", "openai");
    cr_expect(strstr(r.out, "COOLS UNTIL"), "%s", r.out);
    cr_expect(strstr(r.out, "Z  HTTP 429"), "an ISO time before the error: %s", r.out);
    wgt_result_free(&r);
    r = RUN(NULL, "pool", "status", "openai", "--json");
    json_t *v = json_loads(r.out, 0, NULL);
    json_t *until = json_object_get(json_array_get(json_object_get(v, "entries"), 0), "cooldownUntil");
    cr_expect(json_is_integer(until), "PoolStatus.cooldownUntil is a number: %s", r.out);
    json_decref(v);
    wgt_result_free(&r);
}

Test(cli_readable, outside_text_cannot_drive_the_terminal)
{
    /* a registry entry whose name and description carry escape sequences */
    const char *registry =
        "{\"servers\":[{\"server\":{\"name\":\"io.github.evil/term-mcp\","
        "\"title\":\"Evil\\u001b]0;owned\\u0007 Server\","
        "\"description\":\"Reads \\u001b[2J\\u001b[31mred\\u009b text\",\"version\":\"1.0.0\","
        "\"repository\":{\"url\":\"https://github.com/evil/term-mcp\",\"source\":\"github\"},"
        "\"packages\":[{\"registryType\":\"npm\",\"identifier\":\"@evil/term-mcp\","
        "\"version\":\"1.0.0\",\"transport\":{\"type\":\"stdio\"}}]},"
        "\"_meta\":{\"io.modelcontextprotocol.registry/official\":{\"status\":\"active\","
        "\"isLatest\":true}}}]}";
    cr_assert_eq(wgt_write_file(dir, "registry.json", registry), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/registry.json", dir);
    wgt_result r = RUN(NULL, "catalog", "import", "--data-dir", dir, path);
    cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
    wgt_result_free(&r);
    r = RUN(NULL, "catalog", "search", "--data-dir", dir, "--limit", "3", "term", "red", "text");
    cr_assert_eq(r.status, 0, "%s", r.err);
    for (const char *p = r.out; *p; p++)
        cr_assert(*p == '\n' || (unsigned char)*p >= 0x20, "control byte 0x%02x in: %s",
                  (unsigned char)*p, r.out);
    cr_expect(strstr(r.out, "\\x1b"), "the escape is shown, not sent: %s", r.out);
    cr_expect_null(strstr(r.out, "\xc2\x9b"), "a C1 CSI is not sent either: %s", r.out);
    wgt_result_free(&r);
}

Test(cli_readable, help_texts_cite_no_section_numbers)
{
    wgt_result list;
    const char *argv[] = { "--list-commands", NULL };
    cr_assert_eq(wgt_run_cli(&list, NULL, NULL, argv), 0);
    size_t checked = 0;
    for (char *line = strtok(list.out, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        if (tab)
            *tab = '\0';
        const char *help[] = { line, "--help", NULL };
        wgt_result r;
        cr_assert_eq(wgt_run_cli(&r, NULL, NULL, help), 0);
        cr_expect_eq(r.status, 0, "waggle %s --help: %s", line, r.err);
        cr_expect_null(strstr(r.out, "spec "), "waggle %s --help cites the spec: %s", line, r.out);
        cr_expect_null(strstr(r.out, "\xc2\xa7"), "waggle %s --help cites a section: %s", line,
                       r.out);
        wgt_result_free(&r);
        checked++;
    }
    cr_expect_geq(checked, 10);
    wgt_result_free(&list);
}

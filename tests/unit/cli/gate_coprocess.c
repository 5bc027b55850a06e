/* `waggle gate --batch` as a co-process (issue #14 §4): a runtime keeps one
 * process open and asks one question at a time, writing the next line only
 * after it has read the answer to the previous one. Before the fix answers
 * were held until 64 KiB or EOF, so this test would wait forever; the poll
 * bound below only turns such a hang into a failure (no timing is asserted). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wgtest.h"

enum { ANSWER_WAIT_MS = 60000 };   /* a hang guard, not a timing assertion */

typedef struct {
    pid_t pid;
    int to;        /* its stdin */
    int from;      /* its stdout */
    char buf[8192];
    size_t len;
} coproc;

static void start(coproc *c, const char *const *args)
{
    int in[2], out[2];
    cr_assert_eq(pipe(in), 0);
    cr_assert_eq(pipe(out), 0);
    memset(c, 0, sizeof *c);
    c->pid = fork();
    cr_assert_neq(c->pid, -1);
    if (c->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        char *argv[16];
        int n = 0;
        argv[n++] = (char *)WG_CLI_PATH;
        for (; args[n - 1] && n < 15; n++)
            argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(WG_CLI_PATH, argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->to = in[1];
    c->from = out[0];
}

/* One answer line (without '\n') into line, or a test failure if none comes. */
static void answer(coproc *c, char *line, size_t cap)
{
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            cr_assert_lt(n, cap);
            memcpy(line, c->buf, n);
            line[n] = '\0';
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return;
        }
        struct pollfd p = { c->from, POLLIN, 0 };
        int r = poll(&p, 1, ANSWER_WAIT_MS);
        cr_assert_gt(r, 0, "no answer before the next line was written (held back)");
        ssize_t got = read(c->from, c->buf + c->len, sizeof c->buf - c->len);
        cr_assert_gt(got, 0, "the co-process closed its output");
        c->len += (size_t)got;
    }
}

static void ask(coproc *c, const char *q)
{
    size_t n = strlen(q);
    cr_assert_eq(write(c->to, q, n), (ssize_t)n);
}

static int finish(coproc *c)
{
    close(c->to);
    int st = 0;
    while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
        ;
    close(c->from);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *rule_of(const char *line, json_t **hold)
{
    *hold = json_loads(line, 0, NULL);
    cr_assert_not_null(*hold, "%s", line);
    const char *r = json_string_value(json_object_get(*hold, "rule"));
    return r ? r : json_string_value(json_object_get(*hold, "error"));
}

Test(cli_gate_coprocess, each_line_is_answered_before_the_next_is_written)
{
    signal(SIGPIPE, SIG_IGN);
    const char *args[] = { "gate", "--batch", NULL };
    coproc c;
    start(&c, args);
    static const struct { const char *q, *rule; } turns[] = {
        { "{\"tool\":\"bash\",\"args\":{\"command\":\"ls -la\"}}\n", "bash.safe" },
        { "{\"tool\":\"bash\",\"args\":{\"command\":\"sudo ls\"},\"level\":\"yolo\"}\n", "critical.privilege" },
        { "not json\n", NULL },
        { "{\"tool\":\"install_capability\",\"args\":{\"name\":\"brainstorm\",\"source\":\"starter-pack\"}}\n", NULL },
        /* a line that arrives in two writes is answered once it is whole */
        { "{\"tool\":\"write_file\",", NULL },
    };
    char line[4096];
    json_t *j = NULL;
    for (size_t i = 0; i < sizeof turns / sizeof turns[0]; i++) {
        ask(&c, turns[i].q);
        if (i == 4)
            break;
        answer(&c, line, sizeof line);
        const char *rule = rule_of(line, &j);
        if (turns[i].rule)
            cr_expect_str_eq(rule, turns[i].rule, "turn %zu: %s", i, line);
        else if (i == 2)
            cr_expect(strstr(line, "\"error\":\"line 3: "), "%s", line);
        else
            cr_expect(strstr(line, "\"tool\":\"install_capability\""), "%s", line);
        json_decref(j);
    }
    ask(&c, "\"args\":{},\"level\":\"trusted\"}\n");
    answer(&c, line, sizeof line);
    cr_expect_str_eq(rule_of(line, &j), "tool.always_confirm", "%s", line);
    cr_expect(json_is_true(json_object_get(j, "autoApproved")), "%s", line);
    json_decref(j);
    cr_expect_eq(finish(&c), 0);
}

Test(cli_gate_coprocess, a_regular_file_still_gets_every_answer_in_order)
{
    char *dir = wgt_tmpdir();
    char text[8192] = "";
    for (int i = 0; i < 50; i++)
        strcat(text, i % 2 ? "{\"tool\":\"bash\",\"args\":{\"command\":\"rm -rf /\"}}\n"
                           : "{\"tool\":\"bash\",\"args\":{\"command\":\"pwd\"}}\n");
    cr_assert_eq(wgt_write_file(dir, "calls.jsonl", text), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' gate --batch < '%s/calls.jsonl'", WG_CLI_PATH, dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        cr_expect(strstr(line, n % 2 ? "\"critical\":true" : "\"rule\":\"bash.safe\""),
                  "line %d: %s", n + 1, line);
        n++;
    }
    cr_expect_eq(pclose(p), 0);
    cr_expect_eq(n, 50);
    wgt_rmtree(dir);
    free(dir);
}

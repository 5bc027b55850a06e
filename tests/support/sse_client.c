/* sse_client.c - see sse_client.h. */
#include "sse_client.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct wgt_sse {
    pid_t pid;
    int fd;
    char *raw;          /* everything read */
    size_t len, cap;
    size_t pos;         /* start of the next unparsed event */
    int eof;
    int reaped;
};

wgt_sse *wgt_sse_open(const wgt_server *s, const char *method, const char *path,
                      const char *body)
{
    return wgt_sse_open_ex(s, method, path, body, NULL);
}

wgt_sse *wgt_sse_open_ex(const wgt_server *s, const char *method, const char *path,
                         const char *body, const char *const *headers)
{
    wgt_sse *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    char url[512], auth[256];
    snprintf(url, sizeof url, "%s%s", s->base, path);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->token);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        const char *argv[28] = { "curl", "-sS", "-N", "--max-time", "60", "-X", method, "-H", auth,
                                 "-H", "Content-Type: application/json" };
        int n = 11, accept = 0;
        for (int i = 0; headers && headers[i] && i < 6; i++) {
            accept |= strncasecmp(headers[i], "Accept:", 7) == 0;
            argv[n++] = "-H";
            argv[n++] = headers[i];
        }
        if (!accept) {
            argv[n++] = "-H";
            argv[n++] = "Accept: text/event-stream";
        }
        if (body) {
            argv[n++] = "--data-binary";
            argv[n++] = body;
        }
        argv[n++] = url;
        argv[n] = NULL;
        execvp("curl", (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    c->pid = pid;
    c->fd = p[0];
    c->cap = 1 << 16;
    c->raw = calloc(1, c->cap);
    return c;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads what is there, waiting at most wait_ms. 0 = nothing new. */
static int fill(wgt_sse *c, int wait_ms)
{
    if (c->eof)
        return 0;
    struct pollfd pf = { c->fd, POLLIN, 0 };
    if (poll(&pf, 1, wait_ms) <= 0)
        return 0;
    if (c->len + 4096 + 1 > c->cap) {
        c->cap *= 2;
        c->raw = realloc(c->raw, c->cap);
    }
    ssize_t k = read(c->fd, c->raw + c->len, c->cap - c->len - 1);
    if (k <= 0) {
        c->eof = 1;
        return 0;
    }
    c->len += (size_t)k;
    c->raw[c->len] = 0;
    return 1;
}

json_t *wgt_sse_next(wgt_sse *c, const char *name, int timeout_ms)
{
    long long until = now_ms() + timeout_ms;
    for (;;) {
        char *end = strstr(c->raw + c->pos, "\n\n");
        if (end) {
            /* one event: its lines between pos and end */
            char ev[64] = "";
            json_t *data = NULL;
            char *line = c->raw + c->pos;
            while (line < end) {
                char *nl = memchr(line, '\n', (size_t)(end - line));
                size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
                if (ll > 7 && strncmp(line, "event: ", 7) == 0)
                    snprintf(ev, sizeof ev, "%.*s", (int)(ll - 7), line + 7);
                else if (ll > 6 && strncmp(line, "data: ", 6) == 0)
                    data = json_loadb(line + 6, ll - 6, 0, NULL);
                line += ll + 1;
            }
            c->pos = (size_t)(end - c->raw) + 2;
            if (ev[0] && (!name || strcmp(ev, name) == 0))
                return data ? data : json_object();
            json_decref(data);
            continue;
        }
        long long left = until - now_ms();
        if (left <= 0 || (c->eof && !strstr(c->raw + c->pos, "\n\n")))
            return NULL;
        fill(c, (int)(left < 200 ? left : 200));
    }
}

const char *wgt_sse_raw(const wgt_sse *c)
{
    return c->raw;
}

int wgt_sse_ended(wgt_sse *c, int timeout_ms)
{
    long long until = now_ms() + timeout_ms;
    while (!c->reaped) {
        fill(c, 50);
        int st;
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid) {
            c->reaped = 1;
            break;
        }
        if (now_ms() >= until)
            return 0;
    }
    while (fill(c, 0))
        ;
    return 1;
}

void wgt_sse_kill(wgt_sse *c)
{
    if (!c->reaped) {
        kill(c->pid, SIGKILL);
        waitpid(c->pid, NULL, 0);
        c->reaped = 1;
    }
}

void wgt_sse_close(wgt_sse *c)
{
    if (!c)
        return;
    wgt_sse_kill(c);
    close(c->fd);
    free(c->raw);
    free(c);
}

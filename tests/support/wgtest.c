/* wgtest.c - test helpers (wgtest.h): temp dirs, files, running the CLI. */
#include "wgtest.h"

#include <errno.h>
#include <libpq-fe.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* WGT_STORE_ON_PG=1 (ctest's integration.store_pg.* entries): each temp
 * dir gets a fresh PostgreSQL schema of its own on $WAGGLE_TEST_PG, and
 * $WAGGLE_DATABASE_URL points at it, so a suite written against
 * wg_store_open(dir) runs unchanged on the PostgreSQL back end. */
static int store_on_pg(void)
{
    const char *on = getenv("WGT_STORE_ON_PG"), *pg = getenv("WAGGLE_TEST_PG");
    return on && !strcmp(on, "1") && pg && *pg;
}

static void quiet_notice(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static void schema_of(char *out, size_t cap, const char *dir)
{
    const char *b = strrchr(dir, '.');
    snprintf(out, cap, "wgt_%s", b ? b + 1 : "x");
}

static void schema_sql(const char *dir, int create)
{
    char schema[64], q[256];
    schema_of(schema, sizeof schema, dir);
    snprintf(q, sizeof q, create ? "DROP SCHEMA IF EXISTS \"%s\" CASCADE; CREATE SCHEMA \"%s\""
                                 : "DROP SCHEMA IF EXISTS \"%s\" CASCADE", schema, schema);
    PGconn *c = PQconnectdb(getenv("WAGGLE_TEST_PG"));
    PQsetNoticeProcessor(c, quiet_notice, NULL);
    PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, q) : NULL;
    int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    PQfinish(c);
    if (!ok && create) {
        fprintf(stderr, "wgt_tmpdir: cannot make schema %s on WAGGLE_TEST_PG\n", schema);
        abort();
    }
    if (create) {
        static char url[1400];   /* setenv copies it; static keeps it off the stack */
        snprintf(url, sizeof url, "%s options='-csearch_path=\"%s\"'", getenv("WAGGLE_TEST_PG"),
                 schema);
        setenv("WAGGLE_DATABASE_URL", url, 1);
    }
}

char *wgt_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/waggle-test.XXXXXX", base && *base ? base : "/tmp");
    char *dir = mkdtemp(tmpl);
    if (!dir) {
        perror("mkdtemp");
        abort();
    }
    if (store_on_pg())
        schema_sql(dir, 1);
    return strdup(dir);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

void wgt_rmtree(const char *path)
{
    if (path && store_on_pg() && strstr(path, "/waggle-test."))
        schema_sql(path, 0);
    if (path)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int wgt_write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (char *s = path + strlen(dir) + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(path, 0700);
            *s = '/';
        }
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

char *wgt_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) { free(buf); buf = NULL; }
            else buf = b;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

typedef struct { char *data; size_t len, cap; } sink;

static void sink_add(sink *s, const char *p, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 1024;
        while (cap < s->len + n + 1)
            cap *= 2;
        s->data = realloc(s->data, cap);
        s->cap = cap;
    }
    memcpy(s->data + s->len, p, n);
    s->len += n;
    s->data[s->len] = '\0';
}

int wgt_run_cli(wgt_result *r, const char *stdin_text, const char *const *env,
                const char *const *argv)
{
    return wgt_run_program(r, WG_CLI_PATH, stdin_text, env, argv);
}

int wgt_run_program(wgt_result *r, const char *path, const char *stdin_text,
                    const char *const *env, const char *const *argv)
{
    int in[2], out[2], err[2];
    if (pipe(in) || pipe(out) || pipe(err))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(in[0], 0); dup2(out[1], 1); dup2(err[1], 2);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]); close(err[0]); close(err[1]);
        for (const char *const *e = env; e && *e; e++)
            putenv((char *)*e);
        int n = 0;
        while (argv[n])
            n++;
        char **args = calloc((size_t)n + 2, sizeof *args);
        const char *base = strrchr(path, '/');
        args[0] = (char *)(base ? base + 1 : path);
        for (int i = 0; i < n; i++)
            args[i + 1] = (char *)argv[i];
        execv(path, args);
        _exit(127);
    }
    close(in[0]); close(out[1]); close(err[1]);
    sink so = { 0 }, se = { 0 };
    sink_add(&so, "", 0);
    sink_add(&se, "", 0);
    size_t to_write = stdin_text ? strlen(stdin_text) : 0, written = 0;
    if (to_write == 0) {
        close(in[1]);
        in[1] = -1;
    } else {
        fcntl(in[1], F_SETFL, O_NONBLOCK);
    }
    int open_fds = 2;
    while (open_fds > 0 || in[1] >= 0) {
        struct pollfd p[3] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 },
                               { in[1], POLLOUT, 0 } };
        if (poll(p, 3, -1) < 0 && errno != EINTR)
            break;
        char buf[8192];
        for (int k = 0; k < 2; k++) {
            if (p[k].fd >= 0 && (p[k].revents & (POLLIN | POLLHUP))) {
                ssize_t got = read(p[k].fd, buf, sizeof buf);
                if (got > 0) {
                    sink_add(k == 0 ? &so : &se, buf, (size_t)got);
                } else {
                    close(p[k].fd);
                    if (k == 0) out[0] = -1; else err[0] = -1;
                    open_fds--;
                }
            }
        }
        if (in[1] >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t w = write(in[1], stdin_text + written, to_write - written);
            if (w > 0)
                written += (size_t)w;
            if (w < 0 || written == to_write) {
                close(in[1]);
                in[1] = -1;
            }
        }
    }
    int st = 0;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = so.data;
    r->err = se.data;
    return 0;
}

void wgt_result_free(wgt_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

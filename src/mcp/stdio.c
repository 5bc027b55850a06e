/* stdio.c - the stdio transport of `waggle mcp` (stdio.h). */
#include "mcp/stdio.h"
#include "mcp/jsonrpc.h"
#include "waggle/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct item {
    struct item *next;
    size_t len;
    char text[];           /* the line and its '\n' */
} item;

typedef struct outbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    item *head, *tail;
    size_t bytes;
    int done, broken;
    int fd;
} outbox;

static void enqueue(void *ud, const json_t *related, int final, const char *line, size_t len)
{
    (void)related;
    (void)final;
    outbox *ob = ud;
    item *it = malloc(sizeof *it + len + 1);
    if (!it)
        return;
    memcpy(it->text, line, len);
    it->text[len] = '\n';
    it->len = len + 1;
    it->next = NULL;
    pthread_mutex_lock(&ob->mu);
    if (ob->broken || ob->bytes + it->len > WG_MCP_OUTBOX_MAX) {
        ob->broken = 1;    /* a client that does not read gets nothing more */
        pthread_mutex_unlock(&ob->mu);
        free(it);
        return;
    }
    if (ob->tail)
        ob->tail->next = it;
    else
        ob->head = it;
    ob->tail = it;
    ob->bytes += it->len;
    pthread_cond_signal(&ob->cv);
    pthread_mutex_unlock(&ob->mu);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *writer(void *arg)
{
    outbox *ob = arg;
    pthread_mutex_lock(&ob->mu);
    for (;;) {
        while (!ob->head && !ob->done)
            pthread_cond_wait(&ob->cv, &ob->mu);
        item *it = ob->head;
        if (!it)
            break;
        ob->head = it->next;
        if (!ob->head)
            ob->tail = NULL;
        ob->bytes -= it->len;
        int broken = ob->broken;
        pthread_mutex_unlock(&ob->mu);
        int bad = !broken && write_all(ob->fd, it->text, it->len) < 0;
        free(it);
        pthread_mutex_lock(&ob->mu);
        if (bad)
            ob->broken = 1;
    }
    pthread_mutex_unlock(&ob->mu);
    return NULL;
}

/* Reads lines and hands each to the session. */
static void read_loop(wg_mcp_session *s, int fd)
{
    enum { CHUNK = 64 * 1024 };
    char *line = NULL, chunk[CHUNK];
    size_t len = 0, cap = 0;
    int skipping = 0;            /* inside a line over the frame limit */
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n;) {
            char *nl = memchr(chunk + i, '\n', (size_t)(n - i));
            size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)(n - i);
            if (!skipping && len + take > WG_MCP_FRAME_MAX) {
                skipping = 1;
                len = 0;
            }
            if (!skipping && take) {
                if (len + take > cap) {
                    size_t ncap = cap ? cap : 4096;
                    while (ncap < len + take)
                        ncap *= 2;
                    char *p = realloc(line, ncap);
                    if (!p) {
                        skipping = 1;
                        len = 0;
                    } else {
                        line = p;
                        cap = ncap;
                    }
                }
                if (!skipping) {
                    memcpy(line + len, chunk + i, take);
                    len += take;
                }
            }
            i += (ssize_t)take;
            if (!nl)
                break;
            i++;                 /* the newline */
            if (skipping)
                wg_mcp__session_oversized(s);
            else {
                size_t l = len;
                if (l && line[l - 1] == '\r')
                    l--;
                if (l)
                    wg_mcp__session_handle(s, line, l);
            }
            skipping = 0;
            len = 0;
        }
    }
    if (!skipping && len)        /* a last message without its newline */
        wg_mcp__session_handle(s, line, len);
    free(line);
}

int wg_mcp__stdio_serve(const wg_mcp_options *o, int in_fd, int out_fd)
{
    outbox ob = { .fd = out_fd };
    pthread_mutex_init(&ob.mu, NULL);
    pthread_cond_init(&ob.cv, NULL);
    pthread_t wt;
    if (pthread_create(&wt, NULL, writer, &ob) != 0)
        return wg_error_set(WG_ENOMEM, "could not start the writer thread");
    wg_mcp_options so = *o;
    so.send = enqueue;
    so.send_ud = &ob;
    wg_mcp_session *s = NULL;
    int rc = wg_mcp__session_new(&s, &so);
    if (rc == 0) {
        read_loop(s, in_fd);
        wg_mcp__session_free(s);  /* running calls finish and answer */
    }
    pthread_mutex_lock(&ob.mu);
    ob.done = 1;
    pthread_cond_signal(&ob.cv);
    pthread_mutex_unlock(&ob.mu);
    pthread_join(wt, NULL);
    pthread_cond_destroy(&ob.cv);
    pthread_mutex_destroy(&ob.mu);
    return rc;
}

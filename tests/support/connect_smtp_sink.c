/* connect_smtp_sink.c - see connect_smtp_sink.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "connect_smtp_sink.h"

struct wgt_smtp {
    int fd, port, stop;
    pthread_t th;
    pthread_mutex_t mu;
    json_t *msgs;
};

typedef struct {
    int fd;
    char buf[65536];
    size_t len;
} conn;

static void say(conn *c, const char *s) { (void)!write(c->fd, s, strlen(s)); }

/* Next CRLF line into out (without CRLF); 0 on EOF. */
static int line(conn *c, char *out, size_t cap)
{
    for (;;) {
        char *nl = memmem(c->buf, c->len, "\r\n", 2);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            snprintf(out, cap, "%.*s", (int)(n < cap - 1 ? n : cap - 1), c->buf);
            memmove(c->buf, nl + 2, c->len - n - 2);
            c->len -= n + 2;
            return 1;
        }
        if (c->len == sizeof c->buf)
            c->len = 0;
        struct pollfd p = { c->fd, POLLIN, 0 };
        if (poll(&p, 1, 5000) <= 0)
            return 0;
        ssize_t r = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (r <= 0)
            return 0;
        c->len += (size_t)r;
    }
}

static char *b64dec(const char *s)
{
    unsigned char out[1024];
    size_t n = 0;
    if (sodium_base642bin(out, sizeof out - 1, s, strlen(s), NULL, &n, NULL,
                          sodium_base64_VARIANT_ORIGINAL) < 0)
        return strdup("");
    out[n] = 0;
    for (size_t i = 0; i < n; i++)   /* PLAIN: authzid\0user\0pass -> user */
        if (out[i] == 0)
            out[i] = '\n';
    return strndup((char *)out, n);
}

static void session(wgt_smtp *s, int fd)
{
    conn *c = calloc(1, sizeof *c);
    c->fd = fd;
    char l[8192];
    json_t *msg = NULL;
    char *auth = NULL;
    say(c, "220 sink ESMTP\r\n");
    while (line(c, l, sizeof l)) {
        if (!strncasecmp(l, "EHLO", 4)) {
            say(c, "250-sink\r\n250-AUTH PLAIN LOGIN\r\n250 OK\r\n");
        } else if (!strncasecmp(l, "HELO", 4) || !strncasecmp(l, "RSET", 4) ||
                   !strncasecmp(l, "NOOP", 4)) {
            say(c, "250 OK\r\n");
        } else if (!strncasecmp(l, "AUTH PLAIN", 10)) {
            if (strlen(l) > 11) {
                free(auth);
                auth = b64dec(l + 11);
            } else {
                say(c, "334 \r\n");
                if (!line(c, l, sizeof l))
                    break;
                free(auth);
                auth = b64dec(l);
            }
            say(c, "235 2.7.0 Authentication successful\r\n");
        } else if (!strncasecmp(l, "AUTH LOGIN", 10)) {
            say(c, "334 VXNlcm5hbWU6\r\n");
            if (!line(c, l, sizeof l))
                break;
            free(auth);
            auth = b64dec(l);
            say(c, "334 UGFzc3dvcmQ6\r\n");
            if (!line(c, l, sizeof l))
                break;
            say(c, "235 2.7.0 Authentication successful\r\n");
        } else if (!strncasecmp(l, "MAIL FROM:", 10)) {
            json_decref(msg);
            msg = json_pack("{s:s,s:[],s:s?}", "from", l + 10, "rcpt", "auth", auth);
            say(c, "250 OK\r\n");
        } else if (!strncasecmp(l, "RCPT TO:", 8)) {
            json_array_append_new(json_object_get(msg, "rcpt"), json_string(l + 8));
            say(c, "250 OK\r\n");
        } else if (!strncasecmp(l, "DATA", 4)) {
            say(c, "354 End data with <CR><LF>.<CR><LF>\r\n");
            size_t cap = 1 << 20, n = 0;
            char *data = malloc(cap);
            data[0] = 0;
            while (line(c, l, sizeof l) && strcmp(l, ".")) {
                const char *t = l[0] == '.' ? l + 1 : l;   /* undo dot-stuffing */
                n += (size_t)snprintf(data + n, cap - n, "%s\r\n", t);
                if (n >= cap - 1)
                    n = cap - 1;
            }
            json_object_set_new(msg, "data", json_string(data));
            free(data);
            pthread_mutex_lock(&s->mu);
            json_array_append(s->msgs, msg);
            pthread_mutex_unlock(&s->mu);
            say(c, "250 OK queued\r\n");
        } else if (!strncasecmp(l, "QUIT", 4)) {
            say(c, "221 Bye\r\n");
            break;
        } else {
            say(c, "500 unknown command\r\n");
        }
    }
    json_decref(msg);
    free(auth);
    close(fd);
    free(c);
}

static void *serve(void *ud)
{
    wgt_smtp *s = ud;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        struct pollfd p = { s->fd, POLLIN, 0 };
        if (poll(&p, 1, 50) <= 0)
            continue;
        int c = accept(s->fd, NULL, NULL);
        if (c >= 0)
            session(s, c);
    }
    return NULL;
}

wgt_smtp *wgt_smtp_start(void)
{
    wgt_smtp *s = calloc(1, sizeof *s);
    struct sockaddr_in a = { 0 };
    socklen_t al = sizeof a;
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(s->fd, 8) < 0 ||
        getsockname(s->fd, (struct sockaddr *)&a, &al) < 0) {
        if (s->fd >= 0)
            close(s->fd);
        free(s);
        return NULL;
    }
    s->port = ntohs(a.sin_port);
    s->msgs = json_array();
    pthread_mutex_init(&s->mu, NULL);
    pthread_create(&s->th, NULL, serve, s);
    return s;
}

void wgt_smtp_stop(wgt_smtp *s)
{
    if (!s)
        return;
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    pthread_join(s->th, NULL);
    close(s->fd);
    json_decref(s->msgs);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int wgt_smtp_port(const wgt_smtp *s) { return s->port; }

json_t *wgt_smtp_messages(wgt_smtp *s)
{
    pthread_mutex_lock(&s->mu);
    json_t *copy = json_deep_copy(s->msgs);
    pthread_mutex_unlock(&s->mu);
    return copy;
}

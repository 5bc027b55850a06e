/* raw_http.c - HTTP/1.1 over a plain socket (raw_http.h). */
#include "raw_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int wgt_raw_connect(unsigned port, const char *src)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (src) {
        struct sockaddr_in b = { 0 };
        b.sin_family = AF_INET;
        if (inet_pton(AF_INET, src, &b.sin_addr) != 1 ||
            bind(fd, (struct sockaddr *)&b, sizeof b) != 0) {
            close(fd);
            return -1;
        }
    }
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int wgt_raw_send(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EPIPE;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads more into *buf; 1 read, 0 EOF, -1 timeout, -3 error. */
static int more(int fd, char **buf, size_t *len, size_t *cap, long long until)
{
    long long left = until - now_ms();
    if (left <= 0)
        return -1;
    struct pollfd p = { fd, POLLIN, 0 };
    int n = poll(&p, 1, (int)left);
    if (n == 0)
        return -1;
    if (n < 0)
        return -3;
    if (*len + 4096 + 1 > *cap) {
        size_t c = *cap ? *cap * 2 : 8192;
        char *b = realloc(*buf, c);
        if (!b)
            return -3;
        *buf = b;
        *cap = c;
    }
    ssize_t r = recv(fd, *buf + *len, *cap - *len - 1, 0);
    if (r < 0)
        return -3;
    if (r == 0)
        return 0;
    *len += (size_t)r;
    (*buf)[*len] = '\0';
    return 1;
}

int wgt_raw_read(int fd, wgt_raw_res *r, int timeout_ms)
{
    memset(r, 0, sizeof *r);
    long long until = now_ms() + timeout_ms;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        char *end = buf ? strstr(buf, "\r\n\r\n") : NULL;
        if (end) {
            size_t head_len = (size_t)(end - buf) + 4;
            int status = atoi(buf + 9);
            if (strncmp(buf, "HTTP/1.", 7) == 0 && status == 100) {
                memmove(buf, buf + head_len, len - head_len + 1);
                len -= head_len;
                continue;
            }
            size_t body_len = 0;
            for (const char *h = buf; h && h < end; h = strstr(h, "\r\n"), h = h ? h + 2 : NULL)
                if (strncasecmp(h, "Content-Length:", 15) == 0)
                    body_len = strtoul(h + 15, NULL, 10);
            if (len >= head_len + body_len) {
                r->status = status;
                r->head = strndup(buf, head_len);
                r->body = strndup(buf + head_len, body_len);
                r->body_len = body_len;
                r->json = json_loadb(r->body, body_len, 0, NULL);
                free(buf);
                return 0;
            }
        }
        int m = more(fd, &buf, &len, &cap, until);
        if (m <= 0) {
            int e = errno;
            free(buf);
            errno = e;
            return m == 0 ? -2 : m;
        }
    }
}

void wgt_raw_res_free(wgt_raw_res *r)
{
    free(r->head);
    free(r->body);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

int wgt_raw_closed_within(int fd, int timeout_ms)
{
    long long until = now_ms() + timeout_ms;
    char sink[4096];
    for (;;) {
        long long left = until - now_ms();
        if (left < 0)
            left = 0;
        struct pollfd p = { fd, POLLIN, 0 };
        int n = poll(&p, 1, (int)left);
        if (n == 0)
            return 0;
        if (n < 0)
            return 1;
        ssize_t r = recv(fd, sink, sizeof sink, 0);
        if (r <= 0)
            return 1;
    }
}

/* rules_common.c - helpers shared by the per-program rules (rules_common.h). */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

int sh_skip_opts(const sh_view *v, int j, const char *optarg, const char *const *longarg)
{
    while (j < v->end) {
        const char *t = W(j);
        if (t[0] != '-' || t[1] == '\0')
            return j;
        if (strcmp(t, "--") == 0)
            return j + 1;
        if (t[1] == '-') {
            char name[40];
            size_t len = strcspn(t + 2, "=");
            if (t[2 + len] == '=' || len >= sizeof name) {
                j++;
                continue;
            }
            memcpy(name, t + 2, len);
            name[len] = '\0';
            int takes = in_set(name, longarg);
            for (const char *const *l = longarg; !takes && l && *l; l++)
                takes = len > 0 && strncmp(*l, name, len) == 0;     /* --sig is --signal */
            j += takes ? 2 : 1;
            continue;
        }
        int skip = 1;
        for (int k = 1; t[k]; k++)
            if (optarg && strchr(optarg, t[k])) {
                if (t[k + 1] == '\0')
                    skip = 2;
                break;
            }
        j += skip;
    }
    return j < v->end ? j : v->end;     /* an option's missing argument */
}

/* Joins words [from, to) with spaces; -1 when one cannot be seen. */
static int join_words(const sh_view *v, int from, int to, char *buf, size_t cap, size_t *len)
{
    size_t k = 0;
    for (int i = from; i < to; i++) {
        if (FL(i) & (SH_W_CMDSUB | SH_W_PROCSUB | SH_W_TRUNC | SH_W_CTRL))
            return -1;
        const char *t = W(i);
        size_t n = v->c->w[i].len;
        if (k + n + 8 > cap)
            return -1;
        if (i > from)
            buf[k++] = ' ';
        for (size_t m = 0; m < n; m++) {
            if (t[m] != SH_MARK) {
                buf[k++] = t[m];
                continue;
            }
            /* ~ and $HOME are known to be the home directory; re-reading
             * them as ~ keeps that. Any other expansion is unseen text. */
            if (t[m + 1] != SH_K_HOME)
                return -1;
            buf[k++] = '~';
            m++;
        }
    }
    buf[k] = '\0';
    *len = k;
    return 0;
}

/* join_words into arena scratch sized for the words: the text, or NULL
 * when a word cannot be seen or the scratch is out (the caller fails
 * closed). Release with sh_scratch_release(cx, *mark). */
char *sh_join_scratch(sh_ctx *cx, const sh_view *v, int from, int to, size_t *len,
                          uint32_t *mark)
{
    size_t cap = sh_words_len(v->c, from, to) + 8;
    char *buf = sh_scratch(cx, cap, mark);
    if (buf && join_words(v, from, to, buf, cap, len) == 0)
        return buf;
    sh_scratch_release(cx, *mark);
    return NULL;
}

void sh_run_script(sh_ctx *cx, const char *text, size_t len, const char *via)
{
    if (sh_parse_script(cx, text, len, via) < 0)
        sh_coarse_scan(cx, text, len);
}

void sh_unseen(sh_ctx *cx, const sh_view *v, const char *who, const char *what)
{
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.shell_unseen_text", who, what, NULL, v->via);
}

/* Inline code of another language (python -c, perl -e, awk, a here-doc fed
 * to an interpreter): not shell, but a never-autopass signal in it counts. */
int sh_code_signal(sh_ctx *cx, const sh_view *v, const char *who, const char *code, size_t n)
{
    return sh_code_scan(cx, v, who, code, n);
}

void sh_unsafe_opt(sh_ctx *cx, const sh_view *v, const sh_program *p, const char *opt)
{
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unsafe_option", p->name, " with ", opt, v->via);
}

void sh_env_dump(sh_ctx *cx, const sh_view *v, const char *who, const char *how)
{
    if (v->c->piped_out && !v->c->background && cx->dump_depth < 0) {
        cx->dump_who = who;             /* env | grep -c PATH: decided by the next stage */
        cx->dump_how = how;
        cx->dump_via = v->via;
        cx->dump_depth = cx->depth;
        return;
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.env_dump", who, how, NULL, v->via);
}

/* A pipe stage that prints only a count or a status of what it reads:
 * wc, grep -c / -q / --count / --quiet (options without arguments only). */
static int counts_only(const sh_cmd *c)
{
    if (c->nw == 0 || !sh_word_is_literal(c, 0))
        return 0;
    const char *p = sh_wtext(c, 0);
    const char *slash = strrchr(p, '/');
    if (slash && (strncmp(p, "/usr/bin/", 9) == 0 || strncmp(p, "/bin/", 5) == 0))
        p = slash + 1;
    if (strcmp(p, "wc") == 0)
        return 1;
    if (strcmp(p, "grep") != 0 && strcmp(p, "egrep") != 0 && strcmp(p, "fgrep") != 0)
        return 0;
    int counts = 0;
    for (int j = 1; j < c->nw; j++) {
        const char *t = sh_wtext(c, j);
        if (t[0] != '-')
            continue;
        if (strcmp(t, "--count") == 0 || strcmp(t, "--quiet") == 0 || strcmp(t, "--silent") == 0) {
            counts = 1;
            continue;
        }
        if (t[1] == '-')
            continue;
        /* a cluster of flags that take no argument: -c, -ic, -qE (not -ec: -e takes one) */
        if (strspn(t + 1, "cqiwxvFEGPsnHhIlLyUz") == strlen(t + 1) && strpbrk(t + 1, "cq"))
            counts = 1;
    }
    return counts;
}

void sh_dump_flush(sh_ctx *cx, const sh_cmd *c)
{
    if (cx->dump_depth < 0)
        return;
    int keep_silent = c && c->piped_in && cx->depth == cx->dump_depth && counts_only(c);
    const char *who = cx->dump_who, *how = cx->dump_how, *via = cx->dump_via;
    cx->dump_depth = -1;
    if (!keep_silent)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.env_dump", who, how, NULL, via);
}

int sh_win_critical(sh_ctx *cx, const sh_view *v, int j)
{
    const sh_word *w = &v->c->w[j];
    const char *raw = v->c->src + w->raw_off;
    if (sh_is_drive_root(W(j), w->len) || sh_is_drive_root(raw, w->raw_len) ||
        sh_is_windows_critical(raw, w->raw_len))
        return 1;
    int cls = sh_word_target(cx, v, j);
    return cls == SH_T_HOME || cls == SH_T_ROOT;
}

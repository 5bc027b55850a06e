/* vars.c - what the command defines as it goes (issue #10 §2): shell
 * functions, variables with the literal values assigned to them, and
 * command remaps. The lexer asks for a variable's value when it reads $NAME
 * (SUDO=sudo; $SUDO reboot is sudo reboot); a variable assigned two
 * different values, or something the model cannot see (read, $(..),
 * source), has no known value and stays an expansion it cannot see.
 *
 * One open-addressing hash table (at most half full) over (kind, name),
 * sized from the input in the decision's arena; names and values are
 * copied into its keep pool. Past its size: sh_overflow (fail closed).
 */
#include "core/shell/internal.h"

#include <string.h>

static uint32_t sym_hash(int kind, const char *s, size_t n)
{
    uint32_t h = 2166136261u ^ (uint32_t)kind;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The slot of (kind, name): its entry or the empty slot where it belongs;
 * NULL past SH_MAX_PROBES probes (names chosen to collide: an insert fails
 * closed, so a lookup never misses a name that was added). */
static uint32_t *sym_slot(const sh_arena *a, int kind, const char *name, size_t n)
{
    uint32_t i = sym_hash(kind, name, n) & a->smask;
    for (int probe = 0; probe < SH_MAX_PROBES; probe++) {
        uint32_t *slot = &a->slot[i];
        if (*slot == 0)
            return slot;
        const sh_sym *y = &a->sym[*slot - 1];
        if (y->kind == kind && y->nlen == n && memcmp(a->keep + y->name, name, n) == 0)
            return slot;
        i = (i + 1) & a->smask;
    }
    return NULL;
}

sh_sym *sh_sym_find(const sh_ctx *cx, int kind, const char *name, size_t n)
{
    const sh_arena *a = &cx->ar;
    if (a->nsym == 0)
        return NULL;
    uint32_t *slot = sym_slot(a, kind, name, n);
    return slot && *slot ? &a->sym[*slot - 1] : NULL;
}

int sh_keep(sh_ctx *cx, const char *s, size_t n, uint32_t *off)
{
    sh_arena *a = &cx->ar;
    if ((size_t)a->ktop + n + 1 > a->kcap) {
        sh_overflow(cx, "the command defines more than the model holds");
        return -1;
    }
    memcpy(a->keep + a->ktop, s, n);
    a->keep[a->ktop + n] = '\0';
    *off = a->ktop;
    a->ktop += (uint32_t)n + 1;
    return 0;
}

sh_sym *sh_sym_add(sh_ctx *cx, int kind, const char *name, size_t n)
{
    sh_arena *a = &cx->ar;
    if (!a->sready) {
        memset(a->slot, 0, ((size_t)a->smask + 1) * sizeof *a->slot);
        a->sready = 1;
    }
    uint32_t *slot = sym_slot(a, kind, name, n);
    if (slot && *slot)
        return &a->sym[*slot - 1];
    uint32_t off;
    if (!slot || a->nsym >= a->scap || (a->nsym + 1) * 2 > a->smask + 1) {
        sh_overflow(cx, "the command defines more names than the model holds");
        return NULL;
    }
    if (sh_keep(cx, name, n, &off) < 0)
        return NULL;
    sh_sym *y = &a->sym[a->nsym];
    memset(y, 0, sizeof *y);
    y->name = off;
    y->nlen = (uint32_t)n;
    y->kind = (uint8_t)kind;
    *slot = ++a->nsym;
    return y;
}

/* A value is literal when its only markers are the home directory (~ in
 * an assignment) and array element boundaries. */
static int literal_value(const char *v, size_t n)
{
    for (const char *m = memchr(v, SH_MARK, n); m; m = memchr(m + 2, SH_MARK, n - (size_t)(m + 2 - v))) {
        if (m + 1 >= v + n)
            return 0;
        if (m[1] != SH_K_HOME && m[1] != SH_K_USER && m[1] != SH_K_SPLIT)
            return 0;
        if (m + 2 >= v + n)
            break;
    }
    return 1;
}

void sh_var_assign(sh_ctx *cx, const char *name, size_t n, const char *val, size_t vlen, int append)
{
    sh_sym *y = sh_sym_add(cx, SH_SYM_VAR, name, n);
    if (!y)
        return;
    SH_STEP(cx, vlen);
    if (!literal_value(val, vlen) || vlen > SH_MAX_VALUE ||
        (append && (y->state != SH_V_ONE || y->vlen + vlen > SH_MAX_VALUE))) {
        y->state = SH_V_UNKNOWN;        /* unseen, or too long to be worth following */
        return;
    }
    if (append) {
        sh_arena *a = &cx->ar;
        size_t need = y->val + y->vlen + 1 == a->ktop ? vlen : y->vlen + vlen + 1;
        if ((size_t)a->ktop + need > a->kcap) {
            sh_overflow(cx, "the command defines more than the model holds");
            return;
        }
        if (y->val + y->vlen + 1 == a->ktop) {
            a->ktop--;                  /* the newest value: extend it in place */
        } else {
            memmove(a->keep + a->ktop, a->keep + y->val, y->vlen);
            y->val = a->ktop;
            a->ktop += y->vlen;
        }
        memcpy(a->keep + a->ktop, val, vlen);
        a->ktop += (uint32_t)vlen;
        a->keep[a->ktop++] = '\0';
        y->vlen += (uint32_t)vlen;
        return;
    }
    if (y->state == SH_V_ONE) {
        if (y->vlen != vlen || memcmp(cx->ar.keep + y->val, val, vlen) != 0)
            y->state = SH_V_MULTI;      /* which one holds depends on the path taken */
        return;
    }
    if (y->state == SH_V_UNSET && vlen == 0)
        return;
    if (y->state == SH_V_UNSET) {
        y->state = SH_V_MULTI;          /* unset on one path, set on another */
        return;
    }
    if (y->state != 0)
        return;                         /* MULTI or UNKNOWN stay so */
    uint32_t off;
    if (sh_keep(cx, val, vlen, &off) < 0)
        return;
    y->val = off;
    y->vlen = (uint32_t)vlen;
    y->state = SH_V_ONE;
}

void sh_var_unknown(sh_ctx *cx, const char *name, size_t n)
{
    sh_sym *y = sh_sym_add(cx, SH_SYM_VAR, name, n);
    if (y)
        y->state = SH_V_UNKNOWN;
}

int sh_var_value(const sh_ctx *cx, const char *name, size_t n, const char **val, uint32_t *vlen)
{
    if (cx->vars_unknown)
        return 0;
    const sh_sym *y = sh_sym_find(cx, SH_SYM_VAR, name, n);
    if (y && y->state == SH_V_UNSET) {
        *val = "";
        *vlen = 0;
        return 1;
    }
    if (!y || y->state != SH_V_ONE)
        return 0;
    *val = cx->ar.keep + y->val;
    *vlen = y->vlen;
    return 1;
}

void sh_var_unset(sh_ctx *cx, const char *name, size_t n)
{
    sh_sym *y = sh_sym_add(cx, SH_SYM_VAR, name, n);
    if (!y)
        return;
    if (y->state == 0 || y->state == SH_V_UNSET)
        y->state = SH_V_UNSET;
    else if (y->state == SH_V_ONE && y->vlen == 0)
        ;                               /* empty either way */
    else
        y->state = SH_V_MULTI;
}

int sh_var_is_unset(const sh_ctx *cx, const char *name, size_t n)
{
    const sh_sym *y = cx->vars_unknown ? NULL : sh_sym_find(cx, SH_SYM_VAR, name, n);
    return y && y->state == SH_V_UNSET;
}

/* ---- functions: calls and fork bombs --------------------------------------- */

void sh_call(sh_ctx *cx, const sh_view *v, const sh_sym *f)
{
    sh_arena *a = &cx->ar;
    if (cx->cur_func < 0 || !f)
        return;
    const sh_cmd *c = v->c;
    int forked = c->piped_in || c->piped_out || c->background || cx->fork_level > cx->body_fork_level;
    if (a->nedge >= a->ecap) {
        sh_overflow(cx, "the functions make more calls than the model follows");
        return;
    }
    sh_edge *e = &a->edge[a->nedge++];
    e->from = (uint32_t)cx->cur_func;
    e->to = (uint32_t)(f - a->sym);
    e->forked = (uint8_t)forked;
}

void sh_check_fork_bombs(sh_ctx *cx)
{
    sh_arena *a = &cx->ar;
    uint32_t n = a->nsym, m = a->nedge;
    int any = 0;
    for (uint32_t e = 0; e < m && !any; e++)
        any = a->edge[e].forked;
    if (!any)
        return;
    /* Tarjan's strongly connected components, iterative, in scratch:
     * head[n+1] adj[m] idx[n] low[n] comp[n] stk[n] fnode[n] fedge[n] */
    uint32_t mark;
    uint32_t *mem = (uint32_t *)(void *)sh_scratch(cx, ((size_t)7 * n + m + 1) * sizeof(uint32_t) + 4,
                                                   &mark);
    if (!mem)
        return;                         /* sh_overflow: fails closed */
    mem = (uint32_t *)(((uintptr_t)mem + 3) & ~(uintptr_t)3);
    uint32_t *head = mem, *adj = head + n + 1, *idx = adj + m, *low = idx + n, *comp = low + n,
             *stk = comp + n, *fnode = stk + n, *fedge = fnode + n;
    memset(head, 0, (n + 1) * sizeof *head);
    for (uint32_t e = 0; e < m; e++)
        head[a->edge[e].from + 1]++;
    for (uint32_t u = 0; u < n; u++)
        head[u + 1] += head[u];
    for (uint32_t u = 0; u < n; u++)
        fedge[u] = head[u];             /* fill cursor, reused below */
    for (uint32_t e = 0; e < m; e++)
        adj[fedge[a->edge[e].from]++] = a->edge[e].to;
    memset(idx, 0, (size_t)n * sizeof *idx);
    uint32_t counter = 0, sp = 0, fp = 0;
    const uint32_t ON = 0x80000000u;    /* comp[] bit: on the stack */
    for (uint32_t r = 0; r < n; r++) {
        if (idx[r])
            continue;
        idx[r] = low[r] = ++counter;
        stk[sp++] = r;
        comp[r] = ON;
        fnode[fp] = r;
        fedge[fp++] = head[r];
        while (fp) {
            uint32_t u = fnode[fp - 1];
            if (fedge[fp - 1] < head[u + 1]) {
                uint32_t w = adj[fedge[fp - 1]++];
                if (!idx[w]) {
                    idx[w] = low[w] = ++counter;
                    stk[sp++] = w;
                    comp[w] = ON;
                    fnode[fp] = w;
                    fedge[fp++] = head[w];
                } else if (comp[w] & ON && idx[w] < low[u]) {
                    low[u] = idx[w];
                }
                continue;
            }
            fp--;
            if (low[u] == idx[u]) {
                uint32_t x;
                do {
                    x = stk[--sp];
                    comp[x] = u;        /* the component's root */
                } while (x != u);
            }
            if (fp && low[u] < low[fnode[fp - 1]])
                low[fnode[fp - 1]] = low[u];
        }
    }
    SH_STEP(cx, n + m);
    for (uint32_t e = 0; e < m; e++) {
        const sh_edge *d = &a->edge[e];
        if (d->forked && comp[d->from] == comp[d->to]) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.fork_bomb", "the function ",
                       sh_sym_name(cx, &a->sym[d->from]),
                       " calls itself again through a pipe, & or a subshell (fork bomb)", NULL);
            break;
        }
    }
    sh_scratch_release(cx, mark);
}

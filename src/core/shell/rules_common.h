/* rules_common.h - helpers shared by the per-program rules (the rule files
 * of src/core/shell/: wrappers.c, shells.c, delete.c, disks.c, writes.c,
 * system.c, windows.c, readonly.c, network.c, git.c). Not installed. Pure
 * functions of the view; none keeps state. */
#ifndef WAGGLE_SHELL_RULES_COMMON_H
#define WAGGLE_SHELL_RULES_COMMON_H

#include <stddef.h>
#include <string.h>

#include "core/shell/internal.h"

#define W(i) sh_wtext(v->c, (i))
#define FL(i) (v->c->w[(i)].flags)

static inline int is_opt(const sh_view *v, int i)
{
    const char *t = W(i);
    return t[0] == '-' && t[1] != '\0';
}

static inline int short_has(const char *t, char ch)
{
    return t[0] == '-' && t[1] != '-' && strchr(t + 1, ch) != NULL;
}

/* A long option --name or --name=value whose name is a non-empty prefix of
 * full (GNU getopt accepts unambiguous abbreviations). */
static inline int long_is(const char *t, const char *full, size_t min)
{
    if (t[0] != '-' || t[1] != '-')
        return 0;
    const char *n = t + 2;
    size_t len = strcspn(n, "=");
    return len >= min && len <= strlen(full) && strncmp(n, full, len) == 0;
}

static inline int in_set(const char *s, const char *const *set)
{
    for (; set && *set; set++)          /* first bytes first: a call only for a likely match */
        if ((*set)[0] == s[0] && strcmp(s, *set) == 0)
            return 1;
    return 0;
}

static inline const char *crit_rule(int cls)
{
    switch (cls) {
    case SH_T_ROOT: return "critical.rm_root";
    case SH_T_HOME: return "critical.rm_home";
    case SH_T_SYSTEM: return "critical.rm_system";
    default: return "critical.rm_unseen";
    }
}

static inline int win_switch(const char *t)
{
    return t[0] == '/' && t[1] && !t[2];
}

/* A drive root, a system or profile folder, or the home directory. */

/* Joins words [from, to) with spaces into arena scratch: the text, or NULL
 * when a word cannot be seen or the scratch is out (the caller fails
 * closed). Release with sh_scratch_release(cx, *mark). */
char *sh_join_scratch(sh_ctx *cx, const sh_view *v, int from, int to, size_t *len, uint32_t *mark);
/* Parses text as a script (fail-closed coarse scan when it cannot). */
void sh_run_script(sh_ctx *cx, const char *text, size_t len, const char *via);
/* critical.shell_unseen_text: who + what. */
void sh_unseen(sh_ctx *cx, const sh_view *v, const char *who, const char *what);
/* Inline code of another language (shell/code.c); 1 when critical. */
int sh_code_signal(sh_ctx *cx, const sh_view *v, const char *who, const char *code, size_t n);
/* bash.unsafe_option: p with opt. */
void sh_unsafe_opt(sh_ctx *cx, const sh_view *v, const sh_program *p, const char *opt);
/* bash.env_dump: who + how. */
void sh_env_dump(sh_ctx *cx, const sh_view *v, const char *who, const char *how);
/* A Windows drive root, a system or profile folder, or the home directory. */
int sh_win_critical(sh_ctx *cx, const sh_view *v, int j);

#endif
